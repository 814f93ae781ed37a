; arch/x86/isr.asm - entry stubs for CPU exception vectors 0-31.
;
; Each stub makes the stack uniform (a zero error code where the CPU pushes
; none), pushes its vector, saves the general registers and calls
; trap_handler(struct trap_frame *).  If the handler returns (an expected
; fault it chose to skip), the registers are restored and IRETQ resumes.

bits 64
%include "arch/x86/gprs.inc"

extern trap_handler
global isr_table

%macro ISR_NOERR 1
isr_%1:
    push 0
    push %1
    jmp isr_common
%endmacro

%macro ISR_ERR 1
isr_%1:
    push %1
    jmp isr_common
%endmacro

section .text
; vectors that push an error code: 8, 10-14, 17, 21, 29, 30
ISR_NOERR 0
ISR_NOERR 1
ISR_NOERR 2
ISR_NOERR 3
ISR_NOERR 4
ISR_NOERR 5
ISR_NOERR 6
ISR_NOERR 7
ISR_ERR   8
ISR_NOERR 9
ISR_ERR   10
ISR_ERR   11
ISR_ERR   12
ISR_ERR   13
ISR_ERR   14
ISR_NOERR 15
ISR_NOERR 16
ISR_ERR   17
ISR_NOERR 18
ISR_NOERR 19
ISR_NOERR 20
ISR_ERR   21
ISR_NOERR 22
ISR_NOERR 23
ISR_NOERR 24
ISR_NOERR 25
ISR_NOERR 26
ISR_NOERR 27
ISR_NOERR 28
ISR_ERR   29
ISR_ERR   30
ISR_NOERR 31

isr_common:
    PUSH_GPRS
    mov rdi, rsp
    mov rbx, rsp
    and rsp, -16                      ; SysV ABI stack alignment for C
    call trap_handler
    mov rsp, rbx
    POP_GPRS
    add rsp, 16                       ; vector and error code
    iretq

section .rodata
align 8
isr_table:
%assign i 0
%rep 32
    dq isr_ %+ i
%assign i i + 1
%endrep
