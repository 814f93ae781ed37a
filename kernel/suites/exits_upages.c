/*
 * kernel/suites/exits_upages.c - every page user-accessible, as
 * kvm-unit-tests maps them: its setup_mmu (lib/x86/vm.c) sets PT_USER_MASK
 * at every level of its identity map; boot/boot.asm maps supervisor-only.
 * Suite exits runs a few of its cases again with the bit set (".upages"),
 * so `trapmeter kut` can tell a vmexit figure that moves with the page
 * tables' U/S bit from one that moves with the exit.  No SMEP or SMAP is
 * enabled, so the bit changes nothing for CPL-0 code on hardware; a
 * backend that runs the guest kernel in ring 3 may treat such pages
 * differently (docs/design.md, "kvm-unit-tests beside trapmeter").
 */
#include "kernel/suites/exits_upages.h"
#include "arch/x86/cpu.h"

#define PTE_P          (1ull << 0)
#define PTE_US         (1ull << 2)
#define PTE_PS         (1ull << 7)   /* a 1 GiB page in a PDPT entry */
#define PTE_ADDR_MASK  0x000ffffffffff000ull
#define ENTRIES        512

extern u64 boot_pml4[];             /* boot/boot.asm */

static u64 *table_of(u64 entry)
{
	return (u64 *)(uintptr_t)(entry & PTE_ADDR_MASK);
}

static void set_us(u64 *entry, bool user)
{
	if (user)
		*entry |= PTE_US;
	else
		*entry &= ~PTE_US;
}

const char *upages_set(bool user)
{
	u64 *pml4 = table_of(read_cr3()), *pdpt, *pd;
	u32 i, j;

	/* a firmware's tables (UEFI) may be 4 KiB deep or read-only */
	if (pml4 != boot_pml4)
		return "not on boot.asm's page tables (UEFI): the U/S pass needs its own map";
	set_us(&pml4[0], user);
	pdpt = table_of(pml4[0]);
	for (i = 0; i < ENTRIES; i++) {
		if (!(pdpt[i] & PTE_P))
			continue;
		set_us(&pdpt[i], user);
		if (pdpt[i] & PTE_PS)
			continue;
		pd = table_of(pdpt[i]);
		for (j = 0; j < ENTRIES; j++)
			if (pd[j] & PTE_P)
				set_us(&pd[j], user);
	}
	write_cr3(read_cr3());
	return NULL;
}
