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

/* IDE (PIIX3 function 1, PCI class 01:01): legacy channels 0x1f0/0x3f6
 * and 0x170/0x376, defined with their sources in drivers/ata.h */

#endif
