/*
 * arch/x86/paging.c - identity-map MMIO above 4 GiB (Intel SDM vol. 3,
 * 4.5: 4-level paging).  boot/boot.asm maps 0-4 GiB with 2 MiB pages
 * through PML4[0] -> one PDPT; a BAR above 4 GiB (SeaBIOS places 64-bit
 * BARs there when the 32-bit hole is short, e.g. `-device
 * virtio-net-pci` with large `-m`) gets a page directory from a small
 * static pool in the same PDPT, uncached (PCD|PWT).
 */
#include "arch/x86/paging.h"
#include "arch/x86/cpu.h"

#define PTE_P          (1ull << 0)
#define PTE_RW         (1ull << 1)
#define PTE_PWT        (1ull << 3)
#define PTE_PCD        (1ull << 4)
#define PTE_PS         (1ull << 7)
#define PTE_ADDR_MASK  0x000ffffffffff000ull
#define PAGE_SIZE      4096
#define PAGE_2M        (1ull << 21)
#define PAGE_1G        (1ull << 30)
#define ENTRIES        512
#define BOOT_MAPPED    (4ull << 30)     /* boot.asm's identity map */
#define PD_POOL        4                /* spare page directories (4 GiB) */

static u64 pd_pool[PD_POOL][ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static u32 pd_used;

static u64 *pdpt(void)
{
	u64 *pml4 = (u64 *)(uintptr_t)(read_cr3() & PTE_ADDR_MASK);

	return (u64 *)(uintptr_t)(pml4[0] & PTE_ADDR_MASK);
}

/* The page directory for the GiB at index gi, created on first use. */
static u64 *pd_for(u64 *dir, u64 gi)
{
	u64 *pd;

	if (dir[gi] & PTE_P)
		return (u64 *)(uintptr_t)(dir[gi] & PTE_ADDR_MASK);
	if (pd_used == PD_POOL)
		return NULL;
	pd = pd_pool[pd_used++];
	dir[gi] = (u64)(uintptr_t)pd | PTE_P | PTE_RW;
	return pd;
}

int paging_map_mmio(u64 phys, u64 size)
{
	u64 *dir = pdpt(), *pd, a, end = phys + size;

	if (end <= BOOT_MAPPED)
		return 0;
	if (end > ENTRIES * PAGE_1G || end < phys)
		return -ERANGE;
	for (a = phys & ~(PAGE_2M - 1); a < end; a += PAGE_2M) {
		if (a < BOOT_MAPPED)
			continue;
		pd = pd_for(dir, a / PAGE_1G);
		if (!pd)
			return -ERANGE;
		pd[(a / PAGE_2M) % ENTRIES] = a | PTE_P | PTE_RW | PTE_PS | PTE_PCD | PTE_PWT;
	}
	/* new entries only (nothing was mapped there), but flush to be sure */
	__asm__ volatile("mov %0, %%cr3" : : "r"(read_cr3()) : "memory");
	return 0;
}
