/*
 * arch/x86/smp.c - the application processor's start: copy the trampoline
 * (arch/x86/trampoline.asm) below 1 MiB, hand it a stack, and give the AP
 * the BSP's IDT before the kernel's entry function runs.
 */
#include "arch/x86/smp.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "lib/string.h"

extern const u8 smp_trampoline_start[], smp_trampoline_end[], smp_trampoline_stack[];

static smp_entry_fn ap_entry;
volatile bool smp_ap_alive;

void smp_prepare(smp_entry_fn entry, u8 *stack, size_t stack_size)
{
	u8 *dst = (u8 *)(uintptr_t)SMP_TRAMPOLINE_BASE;
	size_t len = (size_t)(smp_trampoline_end - smp_trampoline_start);
	u64 top = ((u64)(uintptr_t)(stack + stack_size)) & ~15ull;  /* ABI alignment */

	ap_entry = entry;
	smp_ap_alive = false;
	kmemcpy(dst, smp_trampoline_start, len);
	kmemcpy(dst + (smp_trampoline_stack - smp_trampoline_start), &top, sizeof(top));
	mfence();             /* the copy is in memory before the SIPI goes out */
}

void smp_ap_entry(void)
{
	trap_load_idt();
	smp_ap_alive = true;
	if (ap_entry)
		ap_entry();
	cpu_halt_forever();
}
