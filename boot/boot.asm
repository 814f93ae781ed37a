; boot/boot.asm - multiboot2 + multiboot1 headers and the 32-bit entry that
; switches the CPU to 64-bit long mode, then calls kmain(magic, info).
;
; GRUB2 loads the ELF through the multiboot2 header (ISO boot, BIOS or UEFI).
; QEMU's `-kernel` cannot load a 64-bit multiboot2-only ELF, so a multiboot1
; header with the address fields (flag bit 16) is present too: QEMU then loads
; the file image at load_addr and jumps to entry_addr.  Both loaders enter in
; 32-bit protected mode with paging off; EAX holds the loader's magic and EBX
; the physical address of its information structure.
;
; Assembled with -DFIRMWARE_ENTRY (build/trapmeter-fw.elf, the image of suite
; firmware) the multiboot2 header also carries tag 7 (keep EFI boot services)
; and tag 9 (EFI amd64 entry): GRUB-EFI then skips ExitBootServices and jumps
; to _start_efi64 in 64-bit mode on the firmware's GDT, IDT, page tables and
; stack (Multiboot2 spec 3.5), where kmain_uefi runs the suite.  Every other
; image is built without it.

bits 32

MB1_MAGIC        equ 0x1BADB002
MB1_FLAG_MEMINFO equ 1 << 1
MB1_FLAG_ADDRS   equ 1 << 16          ; use the address fields below
MB1_FLAGS        equ MB1_FLAG_MEMINFO | MB1_FLAG_ADDRS

MB2_MAGIC        equ 0xE85250D6
MB2_ARCH_I386    equ 0
MB2_TAG_EFI_BS   equ 7                ; header tag: keep boot services
MB2_TAG_EFI64    equ 9                ; header tag: EFI amd64 entry address

%include "arch/x86/longmode.inc"

PTE_P            equ 1 << 0
PTE_RW           equ 1 << 1
PTE_PWT          equ 1 << 3
PTE_PCD          equ 1 << 4
PTE_PS           equ 1 << 7           ; 2 MiB page in a page directory
PAGE_2M          equ 0x200000

COM1             equ 0x3f8

extern __load_start, __load_end, __bss_start, __bss_end
extern kmain
global _start32
global boot_pml4
global boot_stack_top

section .multiboot
align 4
mb1_header:
    dd MB1_MAGIC
    dd MB1_FLAGS
    dd -(MB1_MAGIC + MB1_FLAGS)
    dd mb1_header                     ; header_addr
    dd __load_start                   ; load_addr
    dd __load_end                     ; load_end_addr
    dd __bss_end                      ; bss_end_addr
    dd _start32                       ; entry_addr

align 8
mb2_header:
    dd MB2_MAGIC
    dd MB2_ARCH_I386
    dd mb2_header_end - mb2_header
    dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
    ; information request: command line, loader name, EFI system tables
    align 8
.info_req:
    dw 1, 1                           ; type 1, optional flag set
    dd .info_req_end - .info_req
    dd 1, 2, 11, 12
%ifdef FIRMWARE_ENTRY
    dd 18, 20                         ; boot services kept, image handle
%endif
.info_req_end:
    align 8
%ifdef FIRMWARE_ENTRY
    dw MB2_TAG_EFI_BS, 0
    dd 8
    align 8
    dw MB2_TAG_EFI64, 0
    dd 12
    dd _start_efi64
    align 8
%endif
    dw 0, 0                           ; end tag
    dd 8
mb2_header_end:

section .text
_start32:
    cli
    cld
    mov edi, eax                      ; keep loader magic
    mov esi, ebx                      ; keep loader info pointer

    ; zero .bss (page tables and the stack live there); the loaders clear it
    ; too (multiboot: up to bss_end_addr), but we do not rely on that except
    ; for .noclear below __bss_start: buffers written before they are read
    ; (NOCLEAR, lib/types.h), which a rep stos would take 0.46 s to clear
    ; under a software backend
    mov ebx, edi
    mov edx, esi
    mov edi, __bss_start
    mov ecx, __bss_end
    sub ecx, edi
    shr ecx, 2
    xor eax, eax
    rep stosd
    mov edi, ebx
    mov esi, edx

    mov esp, boot_stack_top

    ; long mode present? CPUID 0x80000001 EDX bit 29
    mov eax, 0x80000000
    cpuid
    cmp eax, 0x80000001
    jb no_long_mode
    mov eax, 0x80000001
    cpuid
    test edx, 1 << 29
    jz no_long_mode

    ; identity map the first 4 GiB with 2 MiB pages; the top GiB holds the
    ; PCI MMIO hole (LAPIC, IOAPIC, BARs) and is mapped uncached
    mov eax, boot_pdpt
    or eax, PTE_P | PTE_RW
    mov [boot_pml4], eax
    xor ecx, ecx
.pdpt_loop:
    mov eax, ecx
    shl eax, 12
    add eax, boot_pd
    or eax, PTE_P | PTE_RW
    mov [boot_pdpt + ecx * 8], eax
    inc ecx
    cmp ecx, 4
    jb .pdpt_loop

    xor ecx, ecx                      ; ecx = 2 MiB page index, 0..2047
.pd_loop:
    mov eax, ecx
    shl eax, 21                       ; low 32 bits of the physical address
    mov edx, ecx
    shr edx, 11                       ; bits 32.. of the address (always 0 here)
    or eax, PTE_P | PTE_RW | PTE_PS
    cmp ecx, 3 * 512
    jb .cached
    or eax, PTE_PCD | PTE_PWT
.cached:
    mov [boot_pd + ecx * 8], eax
    mov [boot_pd + ecx * 8 + 4], edx
    inc ecx
    cmp ecx, 4 * 512
    jb .pd_loop

    ENABLE_LONG_MODE boot_pml4

    lgdt [gdt64_ptr]
    jmp GDT_CODE64:long_mode_entry

no_long_mode:
    ; no 64-bit CPU: say so on COM1 and stop (firmware left the UART usable)
    mov esi, msg_no_lm
.putc:
    lodsb
    test al, al
    jz .halt
    mov dx, COM1
    out dx, al
    jmp .putc
.halt:
    hlt
    jmp .halt

bits 64
long_mode_entry:
    LOAD_DATA_SEGMENTS GDT_DATA64
    mov rsp, boot_stack_top
    ; kmain(u32 magic, u32 info) - EDI and ESI already hold them
    mov edi, edi
    mov esi, esi
    call kmain
.hang:
    cli
    hlt
    jmp .hang

%ifdef FIRMWARE_ENTRY
extern kmain_uefi
global _start_efi64
; GRUB-EFI enters here with RAX = magic, RBX = boot information, boot
; services alive and interrupts as the firmware left them.  The firmware's
; stack is kept (UEFI promises 128 KiB; ours is 64 KiB) and nothing of the
; firmware's state is touched: kmain_uefi runs suite firmware and ends the
; run through isa-debug-exit.
_start_efi64:
    mov r12d, eax                     ; keep loader magic
    mov r13, rbx                      ; keep loader info pointer
    cld
    mov rdi, __bss_start              ; zero .bss, as _start32 does
    mov rcx, __bss_end
    sub rcx, rdi
    shr rcx, 3
    xor eax, eax
    rep stosq
    and rsp, -16                      ; the SysV ABI's alignment at a call
    mov edi, r12d
    mov esi, r13d
    call kmain_uefi
.hang:
    hlt
    jmp .hang
%endif

section .rodata
msg_no_lm: db "trapmeter: CPU has no long mode", 13, 10, 0

align 8
gdt64:
    dq 0                              ; null
    dq 0x00af9a000000ffff             ; 0x08: 64-bit code, DPL0
    dq 0x00cf92000000ffff             ; 0x10: data, DPL0
gdt64_end:
GDT_CODE64 equ 0x08
GDT_DATA64 equ 0x10

gdt64_ptr:
    dw gdt64_end - gdt64 - 1
    dq gdt64

section .bss
align 4096
boot_pml4:  resb 4096
boot_pdpt:  resb 4096
boot_pd:    resb 4 * 4096
boot_stack: resb 65536
boot_stack_top:
