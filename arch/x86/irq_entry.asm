; arch/x86/irq_entry.asm - entry stubs for interrupt vectors 32-255 (local APIC
; timer, IPIs, spurious).
;
; No vector here pushes an error code.  Each stub pushes its vector and
; jumps to one common path that saves the caller-saved registers (the C
; handler keeps the others, SysV ABI), calls irq_dispatch(vector) on a
; 16-byte aligned stack and returns with IRETQ.  Kept short on purpose: the
; irq cases time interrupt delivery, so the stub is part of what they pay.

bits 64
extern irq_dispatch
global irq_stub_table

IRQ_FIRST equ 32
IRQ_COUNT equ 224

section .text
%assign v IRQ_FIRST
%rep IRQ_COUNT
irq_ %+ v:
    push v
    jmp irq_common
%assign v v + 1
%endrep

irq_common:
    push rax
    push rcx
    push rdx
    push rsi
    push rdi
    push r8
    push r9
    push r10
    push r11
    push rbx
    mov edi, [rsp + 80]               ; the vector pushed by the stub
    mov rbx, rsp
    and rsp, -16                      ; SysV ABI stack alignment for C
    cld
    call irq_dispatch
    mov rsp, rbx
    pop rbx
    pop r11
    pop r10
    pop r9
    pop r8
    pop rdi
    pop rsi
    pop rdx
    pop rcx
    pop rax
    add rsp, 8                        ; the vector
    iretq

section .rodata
align 8
irq_stub_table:
%assign v IRQ_FIRST
%rep IRQ_COUNT
    dq irq_ %+ v
%assign v v + 1
%endrep
