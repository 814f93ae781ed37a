; platform/efi_call.asm - call UEFI code by the Microsoft x64 convention
; (UEFI 2.10 section 2.3.4.2), and the debug-exception entry of the
; single-step audit (platform/efi_step.c).
;
; SysV passes fn, a1..a5 in RDI, RSI, RDX, RCX, R8, R9; UEFI takes a1..a4 in
; RCX, RDX, R8, R9, a5 on the stack above 32 bytes of shadow space, RSP
; 16-byte aligned at the call.  The callee keeps RBX, RBP, RDI, RSI, R12-R15
; (a superset of SysV's), so nothing more is saved here.  Built into every
; image; only build/trapmeter-fw.elf reaches it (boot/boot.asm).

bits 64
%include "arch/x86/gprs.inc"

EFLAGS_TF       equ 1 << 8
SHADOW_AND_ARG5 equ 48                ; 32 shadow + a5 + 8 to stay aligned

global efi_call5
global efi_call5_stepped
global efi_step_return
global efi_db_entry
global efi_audit_selftest
extern efi_step_trap

SELFTEST_PORT   equ 0x80              ; POST_PORT: QEMU answers, no effect
SELFTEST_UNITS  equ 16

section .text

%macro MS_ARGS 0
    push rbp
    mov rbp, rsp
    and rsp, -16
    sub rsp, SHADOW_AND_ARG5
    mov [rsp + 32], r9                ; a5
    mov rax, rdi                      ; fn
    mov r9, r8                        ; a4
    mov r8, rcx                       ; a3
    mov rcx, rsi                      ; a1 (a2 is in RDX already)
%endmacro

; u64 efi_call5(u64 fn, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
efi_call5:
    MS_ARGS
    call rax
    leave
    ret

; The same with TF set: POPF sets it, so the first trap comes after the
; CALL (RIP = the callee's first instruction); the trap at efi_step_return
; is the callee's RET, where efi_step_trap clears TF in the saved RFLAGS.
efi_call5_stepped:
    MS_ARGS
    pushfq
    or qword [rsp], EFLAGS_TF
    popfq
    call rax
efi_step_return:
    pushfq                            ; TF off even if the handler missed it
    and qword [rsp], ~EFLAGS_TF
    popfq
    leave
    ret

; #DB (vector 1, an interrupt gate in the audit's copy of the IDT): save
; the general registers as struct efi_step_frame, call efi_step_trap.
; The CPU aligned RSP to 16 and pushed 5 words; 15 more keep it aligned.
efi_db_entry:
    PUSH_GPRS
    mov rdi, rsp
    cld
    call efi_step_trap
    POP_GPRS
    iretq

; The audit's hand-counted path (kernel/suites/firmware.c checks it, and
; tests/host/c/test_fwaudit.c pins the same counts): called by efi_call5
; with a1 = a buffer of SELFTEST_UNITS bytes.  8 instructions; 23 single-
; step traps (one per instruction, 15 more for rep outsb's iterations
; after its first); port instructions: 1 rep outsb of 16 units and 1 inb,
; both at port 0x80; exits by the model: 16 (outs to QEMU: one a unit)
; + 1 = 17.
efi_audit_selftest:
    push rsi
    mov rsi, rcx
    mov ecx, SELFTEST_UNITS
    mov edx, SELFTEST_PORT
    rep outsb
    in al, dx
    pop rsi
    ret
