/*
 * drivers/vtd_tables.h - the in-memory structures of Intel VT-d DMA
 * remapping in legacy mode (Intel VT-d spec rev 3.x, chapter 9): root
 * entries (one per bus), context entries (one per devfn), second-level
 * page tables (3 levels for a 39-bit, 4 for a 48-bit address width, 4 KiB
 * pages or 2 MiB superpages), and the register values of register-based
 * invalidation (section 11.4.7, 11.4.8) and of a fault record (11.4.14).
 * Pure logic: tables live in memory the caller hands over, no register
 * access; host-tested (tests/host/c/test_vtd.c).  drivers/vtd.h programs
 * the unit with them.
 *
 * Addresses: the kernel maps memory identically (virtual = physical), so a
 * table's physical address is its pointer value.
 */
#ifndef DRIVERS_VTD_TABLES_H
#define DRIVERS_VTD_TABLES_H

#include "lib/types.h"

#define VTD_PAGE          4096ull
#define VTD_PAGE_2M       (2ull << 20)
#define VTD_ENTRIES       512            /* a page-table page */
#define VTD_ROOT_ENTRIES  256            /* one per bus */
#define VTD_CTX_ENTRIES   256            /* one per devfn */

/* Root entry (9.1): present, context-table pointer */
#define VTD_ROOT_P        (1ull << 0)
/* Context entry (9.3), low qword: present, fault processing disable,
 * translation type, second-level page-table pointer; high qword: address
 * width, domain id */
#define VTD_CTX_P         (1ull << 0)
#define VTD_CTX_TT_SHIFT  2
#define VTD_TT_TRANSLATED 0u             /* untranslated requests only */
#define VTD_TT_PASS       2u             /* pass-through (ECAP.PT) */
#define VTD_CTX_AW_39     1u             /* 3-level tables */
#define VTD_CTX_AW_48     2u             /* 4-level tables */
#define VTD_CTX_DID_SHIFT 8
/* Second-level paging entry (9.8): read, write, page size (a 2 MiB leaf
 * in a level-2 entry) */
#define VTD_SL_R          (1ull << 0)
#define VTD_SL_W          (1ull << 1)
#define VTD_SL_PS         (1ull << 7)
#define VTD_SL_ADDR_MASK  0x000ffffffffff000ull
#define VTD_UNMAPPED      (~0ull)

/* CAP register fields used here (11.4.2) */
#define VTD_CAP_SAGAW_SHIFT 8
#define VTD_CAP_SAGAW_39    (1ull << 1)  /* 3-level */
#define VTD_CAP_SAGAW_48    (1ull << 2)  /* 4-level */
#define VTD_CAP_FRO_SHIFT   24
#define VTD_CAP_FRO_MASK    0x3ffull
#define VTD_CAP_SLLPS_2M    (1ull << 34)
#define VTD_CAP_NFR_SHIFT   40
#define VTD_CAP_NFR_MASK    0xffull
#define VTD_CAP_ND_MASK     0x7ull
/* ECAP register fields (11.4.3) */
#define VTD_ECAP_PT         (1ull << 6)
#define VTD_ECAP_IRO_SHIFT  8
#define VTD_ECAP_IRO_MASK   0x3ffull

/* CCMD (11.4.7): invalidate context cache, granularity */
#define VTD_CCMD_ICC        (1ull << 63)
#define VTD_CCMD_GLOBAL     (1ull << 61)
#define VTD_CCMD_DOMAIN     (2ull << 61)
#define VTD_CCMD_CAIG_MASK  (3ull << 59)
/* IOTLB_REG (11.4.8.1): invalidate, granularity, drain reads and writes,
 * domain id */
#define VTD_IOTLB_IVT       (1ull << 63)
#define VTD_IOTLB_GLOBAL    (1ull << 60)
#define VTD_IOTLB_DOMAIN    (2ull << 60)
#define VTD_IOTLB_IAIG_MASK (3ull << 57)
#define VTD_IOTLB_DR        (1ull << 49)
#define VTD_IOTLB_DW        (1ull << 48)
#define VTD_IOTLB_DID_SHIFT 32

struct vtd_root_entry {
	u64 lo;             /* VTD_ROOT_P | context table address */
	u64 hi;             /* reserved in legacy mode */
};
_Static_assert(sizeof(struct vtd_root_entry) == 16, "root entry");

struct vtd_context_entry {
	u64 lo;             /* P, FPD, TT, second-level table address */
	u64 hi;             /* AW, domain id */
};
_Static_assert(sizeof(struct vtd_context_entry) == 16, "context entry");

/* Page-table pages the builder takes from, in order. */
struct vtd_pool {
	u64 (*pages)[VTD_ENTRIES];   /* 4 KiB aligned */
	u32 n, used;
};

/* One domain's second-level tables. */
struct vtd_space {
	struct vtd_pool *pool;
	u64 *top;           /* the table the context entry points at */
	u8 levels;          /* 3 or 4 */
};

/* A decoded fault record */
struct vtd_fault {
	bool valid;         /* F bit set */
	u64 addr;           /* faulting page address (FI) */
	u16 sid;            /* source id: bus << 8 | devfn */
	u8 reason;          /* FR: 6 = not present for read ... (spec 7.1.3) */
	bool read;          /* T: a read request */
};

/* Levels from CAP.SAGAW, preferring 3 levels (QEMU's default aw-bits=39),
 * 0 when neither 39 nor 48 bits are offered. */
u8 vtd_levels(u64 cap);
u8 vtd_context_aw(u8 levels);

void vtd_root_set(struct vtd_root_entry *root, u8 bus, const void *ctx_table);
void vtd_context_set(struct vtd_context_entry *ctx, u8 devfn, u8 tt, const void *slpt,
		     u8 levels, u16 did);

/* Start an empty space; -ENOSPC with no page left, -EINVAL on levels. */
int vtd_space_init(struct vtd_space *s, struct vtd_pool *pool, u8 levels);
/* Map [iova, iova + size) to phys with 4 KiB or 2 MiB leaves (all three
 * aligned to the page size); perm VTD_SL_R | VTD_SL_W.  -EINVAL (bad
 * page size, alignment, a 4 KiB leaf where a 2 MiB one is, or the
 * reverse), -ENOSPC (pool used up). */
int vtd_map(struct vtd_space *s, u64 iova, u64 phys, u64 size, u64 page, u64 perm);
/* Walk as the unit does: the physical address, or VTD_UNMAPPED; *page and
 * *perm (may be NULL) get the leaf's size and R/W bits. */
u64 vtd_translate(const struct vtd_space *s, u64 iova, u64 *page, u64 *perm);

/* Register values of the invalidations */
u64 vtd_ccmd_global(void);
u64 vtd_iotlb_global(void);
u64 vtd_iotlb_domain(u16 did);

/* A fault recording register pair (low, high qword). */
void vtd_fault_decode(u64 lo, u64 hi, struct vtd_fault *f);
const char *vtd_fault_reason(u8 reason);

#endif
