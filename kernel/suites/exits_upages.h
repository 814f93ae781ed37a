/*
 * kernel/suites/exits_upages.h - the identity map's U/S bit for suite
 * exits' ".upages" pass (kernel/suites/exits_upages.c).
 */
#ifndef KERNEL_SUITES_EXITS_UPAGES_H
#define KERNEL_SUITES_EXITS_UPAGES_H

#include "lib/types.h"

/* Set (user) or clear the U/S bit in every present entry of the paging
 * structures under PML4[0] (boot.asm's identity map and paging.c's MMIO
 * directories), then reload CR3.  NULL, or why not (not boot.asm's map). */
const char *upages_set(bool user);

#endif
