/*
 * arch/x86/paging.h - map device memory (MMIO BARs) that boot/boot.asm's
 * identity map of the first 4 GiB does not cover.
 */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include "lib/types.h"

/* Identity-map [phys, phys + size) uncached with 2 MiB pages.  Below
 * 4 GiB this is already done (the top GiB uncached) and returns 0;
 * -ERANGE above 512 GiB (one PDPT) or when the page-directory pool is
 * used up. */
int paging_map_mmio(u64 phys, u64 size);

#endif
