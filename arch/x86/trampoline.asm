; arch/x86/trampoline.asm - the application processor's way from the
; real-mode SIPI entry to 64-bit C code (Intel SDM vol. 3, 9.4 "MP
; initialization" and 9.8 "initializing IA-32e mode").
;
; The code is assembled here but runs from a copy at SMP_TRAMPOLINE_BASE
; (arch/x86/smp.c copies it; a SIPI vector names a 4 KiB page below 1 MiB),
; so every address inside it is computed against that base (the T macro).
; It enters protected mode with its own small GDT, turns on PAE, EFER.LME
; and paging with the boot page tables (boot/boot.asm's identity map, the
; BSP's), far-jumps to 64-bit code, takes the stack arch/x86/smp.c wrote
; into the copy and calls smp_ap_entry.  The GDT's selectors match
; boot/boot.asm's (0x08 64-bit code, 0x10 data), so the AP's segment
; registers mean what the BSP's do.

SMP_TRAMPOLINE_BASE equ 0x7000
%define T(x) (SMP_TRAMPOLINE_BASE + (x) - smp_trampoline_start)

%include "arch/x86/longmode.inc"
SEL_CODE64       equ 0x08
SEL_DATA         equ 0x10
SEL_CODE32       equ 0x18

extern boot_pml4
extern smp_ap_entry
global smp_trampoline_start
global smp_trampoline_end
global smp_trampoline_stack

section .rodata                       ; copied, never run in place
bits 16
smp_trampoline_start:
    cli
    cld
    xor ax, ax
    mov ds, ax
    lgdt [T(tramp_gdt_ptr)]
    mov eax, cr0
    or eax, CR0_PE
    mov cr0, eax
    jmp dword SEL_CODE32:T(tramp_pm32)

bits 32
tramp_pm32:
    mov ax, SEL_DATA
    mov ds, ax
    mov es, ax
    mov ss, ax
    ENABLE_LONG_MODE boot_pml4
    jmp SEL_CODE64:T(tramp_lm64)

bits 64
tramp_lm64:
    LOAD_DATA_SEGMENTS SEL_DATA
    mov rsp, [T(smp_trampoline_stack)]
    mov rax, smp_ap_entry
    call rax
.hang:
    cli
    hlt
    jmp .hang

align 8
tramp_gdt:
    dq 0                              ; null
    dq 0x00af9a000000ffff             ; 0x08: 64-bit code, DPL0
    dq 0x00cf92000000ffff             ; 0x10: data, DPL0
    dq 0x00cf9a000000ffff             ; 0x18: 32-bit code, DPL0
tramp_gdt_end:
tramp_gdt_ptr:
    dw tramp_gdt_end - tramp_gdt - 1
    dd T(tramp_gdt)
align 8
smp_trampoline_stack:
    dq 0                              ; written by arch/x86/smp.c
smp_trampoline_end:
