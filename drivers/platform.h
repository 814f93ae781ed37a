/*
 * drivers/platform.h - every port, address and id trapmeter relies on, with
 * where it comes from.  Machine: QEMU `pc` (i440FX + PIIX3).
 */
#ifndef DRIVERS_PLATFORM_H
#define DRIVERS_PLATFORM_H

/* 16550 UART, COM1 (PC/AT convention; QEMU `-serial`) */
#define COM1_BASE          0x3f8

/* QEMU isa-debug-exit (`-device isa-debug-exit,iobase=0xf4,iosize=0x04`):
 * writing V makes QEMU exit with status (V << 1) | 1 */
#define DEBUG_EXIT_PORT    0xf4

/* QEMU isa-debugcon (`-device isa-debugcon,iobase=0x402`): bytes written
 * go to a chardev; a plain QEMU-handled OUT target */
#define DEBUGCON_PORT      0x402

/* POST diagnostic port; QEMU answers it in userspace (ioport80) */
#define POST_PORT          0x80

/* QEMU fw_cfg, I/O interface (docs/specs/fw_cfg.rst): selector (16-bit
 * write), data (8-bit read), DMA address (two big-endian 32-bit halves) */
#define FW_CFG_PORT_SEL    0x510
#define FW_CFG_PORT_DATA   0x511
#define FW_CFG_PORT_DMA_HI 0x514
#define FW_CFG_PORT_DMA_LO 0x518

/* 8259A master PIC: IMR at 0x21 (OCW1).  KVM emulates the PIC in the kernel
 * with kernel-irqchip=on, so these accesses never reach QEMU. */
#define PIC1_CMD_PORT      0x20
#define PIC1_DATA_PORT     0x21

/* ELCR, edge/level control for IRQ 0-7 (PIIX); in KVM with the in-kernel
 * PIC */
#define ELCR1_PORT         0x4d0

/* MC146818 RTC/CMOS index and data (PC/AT); QEMU registers the index
 * port as coalesced PIO (hw/rtc/mc146818rtc.c) when KVM offers
 * KVM_CAP_COALESCED_PIO */
#define RTC_INDEX_PORT     0x70
#define RTC_DATA_PORT      0x71

/* PCI configuration mechanism #1 address register; i440FX registers its 4
 * bytes as coalesced PIO (hw/pci-host/i440fx.c) */
#define PCI_CONFIG_ADDR_PORT 0xcf8

/* An unassigned port: QEMU answers reads with all ones (kvm-unit-tests'
 * inl_from_qemu reads it) */
#define UNASSIGNED_PORT    0x1234

/* QEMU pc-testdev (`-device pc-testdev`, hw/misc/pc-testdev.c): 64 KiB
 * of MMIO at this address that QEMU answers and that stores what is
 * written, at every access width */
#define PC_TESTDEV_IOMEM   0xff000000ull
#define PC_TESTDEV_IOMEM_LEN 0x10000u

/* I/O APIC (82093AA) and the local APIC's xAPIC window: KVM emulates both
 * in the kernel with kernel-irqchip=on (split: the I/O APIC moves to QEMU) */
#define IOAPIC_BASE        0xfec00000ull
#define LAPIC_BASE         0xfee00000ull

/* Intel 82540EM (`-device e1000`): QEMU registers most of BAR0 as
 * coalesced MMIO (hw/net/e1000.c e1000_mmio_setup) */
#define E1000_VENDOR       0x8086
#define E1000_DEVICE       0x100e

/* VGA (`-vga std`): QEMU registers the legacy window 0xa0000-0xbffff as
 * coalesced MMIO (hw/display/vga.c vga_init) and flushes the ring before
 * any access it handles there; after the VGA BIOS sets text mode 3 the
 * window's live part is the text buffer at 0xb8000 (32 KiB) */
#define VGA_TEXT_BASE      0xb8000ull
#define VGA_TEXT_LEN       0x8000u

/* IDE (PIIX3 function 1, PCI class 01:01): legacy channels 0x1f0/0x3f6
 * and 0x170/0x376, defined with their sources in drivers/ata.h */

#endif
