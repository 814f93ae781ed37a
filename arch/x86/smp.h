/*
 * arch/x86/smp.h - bring an application processor (AP) to 64-bit C code:
 * the real-mode trampoline below 1 MiB (arch/x86/trampoline.asm) and the
 * AP's first C function.  Sending INIT and the SIPIs is the local APIC's
 * job (drivers/lapic.h: lapic_start_ap); the kernel puts the two together.
 * QEMU: `-smp 2` (the AP waits for INIT-SIPI-SIPI until then).
 */
#ifndef ARCH_X86_SMP_H
#define ARCH_X86_SMP_H

#include "lib/types.h"

/* Where the trampoline runs (a 4 KiB page below 1 MiB, free RAM once the
 * firmware has handed over) and the SIPI vector that names it. */
#define SMP_TRAMPOLINE_BASE 0x7000u
#define SMP_SIPI_VECTOR     (SMP_TRAMPOLINE_BASE >> 12)

typedef void (*smp_entry_fn)(void);

/*
 * Copy the trampoline to SMP_TRAMPOLINE_BASE and arm it: the next AP to
 * take the SIPI runs on [stack, stack + stack_size), loads the BSP's IDT
 * and calls entry with interrupts disabled.  entry must not return (if it
 * does, the AP halts).  One AP at a time.
 */
void smp_prepare(smp_entry_fn entry, u8 *stack, size_t stack_size);

/* Set by the AP once it runs C code (before entry). */
extern volatile bool smp_ap_alive;

/* Called by the trampoline. */
void smp_ap_entry(void);

#endif
