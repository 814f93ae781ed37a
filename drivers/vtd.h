/*
 * drivers/vtd.h - Intel VT-d DMA remapping unit, register interface
 * (Intel VT-d spec rev 3.x, chapter 10/11), legacy (non-scalable) mode:
 * root table pointer, register-based context-cache and IOTLB
 * invalidation, translation enable, fault recording registers.  Every
 * wait for the unit is bounded by a TSC deadline.
 *
 * QEMU: `-M q35 -device intel-iommu` (hw/i386/intel_iommu.c; registers at
 * the DRHD base of the ACPI DMAR table, 0xfed90000; default aw-bits=39:
 * 3-level tables; pt=on: pass-through).  The tables themselves are built
 * by drivers/vtd_tables.h.
 */
#ifndef DRIVERS_VTD_H
#define DRIVERS_VTD_H

#include "lib/types.h"
#include "drivers/vtd_tables.h"

/* Register offsets (11.4) */
#define VTD_REG_VER      0x000   /* 32-bit */
#define VTD_REG_CAP      0x008   /* 64-bit */
#define VTD_REG_ECAP     0x010   /* 64-bit */
#define VTD_REG_GCMD     0x018   /* 32-bit */
#define VTD_REG_GSTS     0x01c   /* 32-bit */
#define VTD_REG_RTADDR   0x020   /* 64-bit */
#define VTD_REG_CCMD     0x028   /* 64-bit */
#define VTD_REG_FSTS     0x034   /* 32-bit */
#define VTD_IOTLB_OFF    8       /* IOTLB_REG after IVA_REG at ECAP.IRO */
#define VTD_FRCD_SIZE    16

/* GCMD/GSTS bits (11.4.4, 11.4.5) */
#define VTD_GCMD_TE      (1u << 31)
#define VTD_GCMD_SRTP    (1u << 30)
#define VTD_GSTS_TES     (1u << 31)
#define VTD_GSTS_RTPS    (1u << 30)
/* GSTS bits a GCMD write must carry to keep them (the rest are one-shot) */
#define VTD_GSTS_KEEP    0x96ffffffu
/* FSTS (11.4.9): primary fault overflow, primary pending fault */
#define VTD_FSTS_PFO     (1u << 0)
#define VTD_FSTS_PPF     (1u << 1)
#define VTD_FSTS_FRI_SHIFT 8

struct vtd_unit {
	volatile u8 *regs;
	u64 cap, ecap;
	u32 version;
	u8 levels;          /* second-level tables: 3 or 4 */
	u32 fro, nfr;       /* fault records: offset in bytes, count */
	u32 iotlb;          /* IOTLB_REG offset in bytes */
	u64 accesses;       /* register reads and writes (each an exit) */
};

/* Read CAP/ECAP of the unit at regbase; -ENODEV (no unit answers there),
 * -EINVAL (no 39- or 48-bit second-level tables). */
int vtd_init(struct vtd_unit *u, u64 regbase);

/* Point the unit at the root table (GCMD.SRTP, wait for GSTS.RTPS). */
int vtd_set_root(struct vtd_unit *u, const void *root);
/* Translation on or off (GCMD.TE, wait for GSTS.TES). */
int vtd_translation(struct vtd_unit *u, bool on);
/* Register-based global invalidation, waiting for the unit to finish. */
int vtd_flush_context(struct vtd_unit *u);
int vtd_flush_iotlb(struct vtd_unit *u);

/* The first pending fault record (FSTS.PPF), decoded, and cleared; false
 * when none is pending. */
bool vtd_take_fault(struct vtd_unit *u, struct vtd_fault *f);
/* Clear every fault record and FSTS. */
void vtd_clear_faults(struct vtd_unit *u);

#endif
