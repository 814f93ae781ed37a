/*
 * kernel/suites/dma_vtd.h - suite dma's virtual IOMMU: the Intel VT-d unit
 * the ACPI DMAR table names (drivers/acpi_tables.h, drivers/vtd.h), set up
 * in the mode a case runs in.  Only suite dma uses it.
 *
 * Modes, for every device attached (one context entry each on bus 0, all
 * in domain 1, sharing the second-level tables):
 *   none     no DMAR table: the machine has no IOMMU
 *   off      unit present, translation disabled (GSTS.TES clear)
 *   pt       translation on, the device's context entry pass-through
 *            (TT 10; only where ECAP.PT)
 *   4k       translated, identity map of the kernel image, 4 KiB leaves
 *   2m       the same with 2 MiB leaves (only where CAP.SLLPS has 2 MiB)
 */
#ifndef KERNEL_SUITES_DMA_VTD_H
#define KERNEL_SUITES_DMA_VTD_H

#include "lib/types.h"
#include "drivers/vtd_tables.h"

enum dma_mode { DMA_MODE_NONE, DMA_MODE_OFF, DMA_MODE_PT, DMA_MODE_4K, DMA_MODE_2M,
		DMA_MODE_COUNT };

/* fw_cfg's writable item on q35 (hw/isa/lpc_ich9.c adds it writable) */
#define DMA_FW_WRITABLE "etc/smi/requested-features"

/* Find and initialise the unit; the mode the machine starts in (none,
 * or off).  A DMAR table whose unit does not answer is a failed check. */
u8 dma_vtd_probe(void);
bool dma_mode_available(u8 mode);
const char *dma_mode_name(u8 mode);     /* "none", "off", "pt", "4k", "2m" */
/* Case-name suffix: "" for none and 4k (the machine's default path),
 * ".vtd_off", ".vtd_pt", ".vtd_2m" */
const char *dma_mode_suffix(u8 mode);

/* Give device bus:devfn a context entry in every mode entered from now
 * on: 0, or -EINVAL (bus other than 0: one context table) / -ENOSPC. */
int dma_vtd_attach(u8 bus, u8 devfn);
/* Put every attached device in mode; 0, or an error after a failed
 * check.  A mode already in force with no device attached since costs
 * nothing. */
int dma_vtd_enter(u8 mode);
/* The mode in force (the probe's until a dma_vtd_enter). */
u8 dma_vtd_mode(void);
/* Global IOTLB invalidation (the next DMA walks the tables again). */
int dma_vtd_invalidate_iotlb(void);
/* Register accesses of one invalidation (write, poll). */
u32 dma_vtd_inval_accesses(void);
/* A pending fault, described into detail and cleared: true when one was. */
bool dma_vtd_fault(char *detail, size_t len, struct vtd_fault *f);
/* An IOVA no mode maps (the fault probe's target). */
u64 dma_vtd_unmapped_iova(void);
/* Translation off again. */
void dma_vtd_leave(void);

#endif
