/*
 * arch/x86/irq.h - interrupt vectors 32-255: a handler per vector, the
 * interrupt flag, and waiting for an interrupt.  The IDT itself is
 * arch/x86/trap.c's; the stubs are arch/x86/irq_entry.asm.
 */
#ifndef ARCH_X86_IRQ_H
#define ARCH_X86_IRQ_H

#include "lib/types.h"

#define IRQ_FIRST_VECTOR 32
#define IRQ_VECTORS      256

/* Runs with interrupts disabled on the CPU that took the vector. */
typedef void (*irq_fn)(u32 vector);

/* Install fn for vector (32..255); NULL uninstalls.  An interrupt with no
 * handler is counted in irq_unhandled and otherwise ignored (no EOI: the
 * local APIC's spurious vector needs none, other vectors are ours). */
void irq_set_handler(u32 vector, irq_fn fn);
extern volatile u32 irq_unhandled;

/* Called from arch/x86/irq_entry.asm. */
void irq_dispatch(u32 vector);

static inline void irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

/* `sti; hlt`: the one-instruction interrupt shadow of STI keeps an
 * interrupt already pending from arriving before HLT starts, so HLT is
 * always woken by it.  Returns with interrupts enabled. */
static inline void irq_enable_and_halt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* `sti; nop; cli`: take whatever is pending, then close again. */
static inline void irq_window(void)
{
	__asm__ volatile("sti; nop; cli" ::: "memory");
}

#endif
