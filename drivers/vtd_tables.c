/*
 * drivers/vtd_tables.c - VT-d root, context and second-level tables and
 * invalidation values (see drivers/vtd_tables.h).
 */
#include "drivers/vtd_tables.h"
#include "lib/string.h"

#define LEVEL_SHIFT(l)   (12u + 9u * ((l) - 1u))
#define INDEX(iova, l)   (((iova) >> LEVEL_SHIFT(l)) & (VTD_ENTRIES - 1))
#define PRESENT          (VTD_SL_R | VTD_SL_W)
#define FRCD_F           (1ull << 63)
#define FRCD_T           (1ull << 62)
#define FRCD_FR_SHIFT    32
#define FRCD_FR_MASK     0xffull
#define FRCD_SID_MASK    0xffffull
#define FRCD_FI_MASK     (~0xfffull)

u8 vtd_levels(u64 cap)
{
	u64 sagaw = cap >> VTD_CAP_SAGAW_SHIFT;

	if (sagaw & VTD_CAP_SAGAW_39)
		return 3;
	return (sagaw & VTD_CAP_SAGAW_48) ? 4 : 0;
}

u8 vtd_context_aw(u8 levels)
{
	return levels == 4 ? VTD_CTX_AW_48 : VTD_CTX_AW_39;
}

static u64 phys_of(const void *p)
{
	return (u64)(uintptr_t)p;
}

void vtd_root_set(struct vtd_root_entry *root, u8 bus, const void *ctx_table)
{
	root[bus].hi = 0;
	root[bus].lo = (phys_of(ctx_table) & VTD_SL_ADDR_MASK) | VTD_ROOT_P;
}

void vtd_context_set(struct vtd_context_entry *ctx, u8 devfn, u8 tt, const void *slpt,
		     u8 levels, u16 did)
{
	/* the unit reads hi when it sees P in lo: hi first */
	ctx[devfn].hi = vtd_context_aw(levels) | (u64)did << VTD_CTX_DID_SHIFT;
	ctx[devfn].lo = (slpt ? phys_of(slpt) & VTD_SL_ADDR_MASK : 0) |
			(u64)tt << VTD_CTX_TT_SHIFT | VTD_CTX_P;
}

static u64 *take_page(struct vtd_pool *p)
{
	u64 *page;

	if (p->used == p->n)
		return NULL;
	page = p->pages[p->used++];
	kmemset(page, 0, VTD_PAGE);
	return page;
}

int vtd_space_init(struct vtd_space *s, struct vtd_pool *pool, u8 levels)
{
	if (levels != 3 && levels != 4)
		return -EINVAL;
	s->pool = pool;
	s->levels = levels;
	s->top = take_page(pool);
	return s->top ? 0 : -ENOSPC;
}

/* The table at `level` under entry *e, made when absent; NULL when the
 * pool is empty or *e is a leaf already. */
static u64 *next_table(struct vtd_space *s, u64 *e)
{
	u64 *t;

	if (*e & VTD_SL_PS)
		return NULL;
	if (*e & PRESENT)
		return (u64 *)(uintptr_t)(*e & VTD_SL_ADDR_MASK);
	t = take_page(s->pool);
	if (t)
		*e = phys_of(t) | PRESENT;     /* non-leaf: R/W let the leaf decide */
	return t;
}

static int map_one(struct vtd_space *s, u64 iova, u64 phys, u32 leaf_level, u64 perm)
{
	u64 *t = s->top, *e;
	u32 l;

	for (l = s->levels; l > leaf_level; l--) {
		e = &t[INDEX(iova, l)];
		if (*e & VTD_SL_PS)
			return -EINVAL;           /* a 2 MiB leaf already covers it */
		t = next_table(s, e);
		if (!t)
			return -ENOSPC;
	}
	e = &t[INDEX(iova, leaf_level)];
	if (leaf_level > 1 && (*e & PRESENT) && !(*e & VTD_SL_PS))
		return -EINVAL;                   /* a table of 4 KiB leaves is there */
	*e = (phys & VTD_SL_ADDR_MASK) | perm | (leaf_level > 1 ? VTD_SL_PS : 0);
	return 0;
}

int vtd_map(struct vtd_space *s, u64 iova, u64 phys, u64 size, u64 page, u64 perm)
{
	u32 leaf = page == VTD_PAGE ? 1 : page == VTD_PAGE_2M ? 2 : 0;
	u64 off;
	int rc;

	if (!leaf || (iova | phys | size) & (page - 1) || !(perm & PRESENT))
		return -EINVAL;
	for (off = 0; off < size; off += page) {
		rc = map_one(s, iova + off, phys + off, leaf, perm & PRESENT);
		if (rc)
			return rc;
	}
	return 0;
}

u64 vtd_translate(const struct vtd_space *s, u64 iova, u64 *page, u64 *perm)
{
	const u64 *t = s->top;
	u64 e, size;
	u32 l;

	for (l = s->levels; l >= 1; l--) {
		e = t[INDEX(iova, l)];
		if (!(e & PRESENT))
			return VTD_UNMAPPED;
		if (l == 1 || (e & VTD_SL_PS)) {
			size = 1ull << LEVEL_SHIFT(l);
			if (page)
				*page = size;
			if (perm)
				*perm = e & PRESENT;
			return (e & VTD_SL_ADDR_MASK & ~(size - 1)) | (iova & (size - 1));
		}
		t = (const u64 *)(uintptr_t)(e & VTD_SL_ADDR_MASK);
	}
	return VTD_UNMAPPED;
}

u64 vtd_ccmd_global(void)
{
	return VTD_CCMD_ICC | VTD_CCMD_GLOBAL;
}

u64 vtd_iotlb_global(void)
{
	return VTD_IOTLB_IVT | VTD_IOTLB_GLOBAL | VTD_IOTLB_DR | VTD_IOTLB_DW;
}

u64 vtd_iotlb_domain(u16 did)
{
	return VTD_IOTLB_IVT | VTD_IOTLB_DOMAIN | VTD_IOTLB_DR | VTD_IOTLB_DW |
	       (u64)did << VTD_IOTLB_DID_SHIFT;
}

void vtd_fault_decode(u64 lo, u64 hi, struct vtd_fault *f)
{
	f->valid = hi & FRCD_F;
	f->addr = lo & FRCD_FI_MASK;
	f->sid = (u16)(hi & FRCD_SID_MASK);
	f->reason = (u8)((hi >> FRCD_FR_SHIFT) & FRCD_FR_MASK);
	f->read = hi & FRCD_T;
}

const char *vtd_fault_reason(u8 reason)
{
	static const char *const names[] = {
		[1] = "root entry not present", [2] = "context entry not present",
		[3] = "invalid context entry", [4] = "address beyond the address width",
		[5] = "write to a page not present or read-only",
		[6] = "read of a page not present", [7] = "page-table entry not accessible",
		[8] = "root table address invalid", [9] = "context table pointer invalid",
		[10] = "root entry reserved bits", [11] = "context entry reserved bits",
		[12] = "paging entry reserved bits", [13] = "translation type invalid",
	};

	return reason < ARRAY_SIZE(names) && names[reason] ? names[reason] : "unknown reason";
}
