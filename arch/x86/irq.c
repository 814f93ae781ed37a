/*
 * arch/x86/irq.c - the C side of the interrupt stubs (arch/x86/irq_entry.asm):
 * one handler per vector, shared by every CPU (the application processor
 * loads the same IDT).
 */
#include "arch/x86/irq.h"

static irq_fn handlers[IRQ_VECTORS];
volatile u32 irq_unhandled;

void irq_set_handler(u32 vector, irq_fn fn)
{
	if (vector >= IRQ_FIRST_VECTOR && vector < IRQ_VECTORS)
		handlers[vector] = fn;
}

void irq_dispatch(u32 vector)
{
	irq_fn fn = vector < IRQ_VECTORS ? handlers[vector] : NULL;

	if (fn)
		fn(vector);
	else
		irq_unhandled++;
}
