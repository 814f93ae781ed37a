/*
 * tests/host/c/test_vtd.c - drivers/vtd_tables.c on the host: root and
 * context entries bit by bit, second-level tables of 3 and 4 levels with
 * 4 KiB and 2 MiB leaves walked back as the unit walks them, the refusals
 * (alignment, mixed leaf sizes, pool used up), the invalidation register
 * values and the fault record decoding (values as QEMU's
 * hw/i386/intel_iommu.c records them).
 */
#include "tests/host/c/check.h"
#include "drivers/vtd_tables.h"

#define POOL_PAGES 16
#define MIB (1ull << 20)
#define GIB (1ull << 30)

static u64 pages[POOL_PAGES][VTD_ENTRIES] __attribute__((aligned(4096)));
static struct vtd_root_entry root[VTD_ROOT_ENTRIES] __attribute__((aligned(4096)));
static struct vtd_context_entry ctx[VTD_CTX_ENTRIES] __attribute__((aligned(4096)));
static struct vtd_pool pool;

static void fresh_pool(u32 n)
{
	pool.pages = pages;
	pool.n = n;
	pool.used = 0;
}

static void test_levels(void)
{
	CHECK_EQ_U64(vtd_levels(VTD_CAP_SAGAW_39 << VTD_CAP_SAGAW_SHIFT), 3);
	CHECK_EQ_U64(vtd_levels(VTD_CAP_SAGAW_48 << VTD_CAP_SAGAW_SHIFT), 4);
	CHECK_EQ_U64(vtd_levels((VTD_CAP_SAGAW_39 | VTD_CAP_SAGAW_48) << VTD_CAP_SAGAW_SHIFT), 3);
	CHECK_EQ_U64(vtd_levels(1ull << VTD_CAP_SAGAW_SHIFT), 0);   /* 30-bit only */
	CHECK_EQ_U64(vtd_context_aw(3), 1);
	CHECK_EQ_U64(vtd_context_aw(4), 2);
}

static void test_root_context(void)
{
	memset(root, 0, sizeof(root));
	memset(ctx, 0, sizeof(ctx));
	vtd_root_set(root, 0, ctx);
	CHECK_EQ_U64(root[0].lo, (u64)(uintptr_t)ctx | 1);
	CHECK_EQ_U64(root[0].hi, 0);
	CHECK_EQ_U64(root[1].lo, 0);
	vtd_context_set(ctx, 0x09, VTD_TT_TRANSLATED, pages[0], 3, 7);
	CHECK_EQ_U64(ctx[0x09].lo, (u64)(uintptr_t)pages[0] | 1);      /* TT 00 */
	CHECK_EQ_U64(ctx[0x09].hi, 1 | 7u << 8);                        /* AW 39, DID 7 */
	vtd_context_set(ctx, 0x09, VTD_TT_PASS, NULL, 4, 1);
	CHECK_EQ_U64(ctx[0x09].lo, 2u << 2 | 1);                        /* TT 10 */
	CHECK_EQ_U64(ctx[0x09].hi, 2 | 1u << 8);
	CHECK_EQ_U64(ctx[0x08].lo, 0);
}

static void test_map_4k(void)
{
	struct vtd_space s;
	u64 page = 0, perm = 0;

	fresh_pool(POOL_PAGES);
	CHECK_EQ_S64(vtd_space_init(&s, &pool, 3), 0);
	CHECK_EQ_S64(vtd_map(&s, 0x200000, 0x200000, 3 * VTD_PAGE, VTD_PAGE,
			     VTD_SL_R | VTD_SL_W), 0);
	CHECK_EQ_U64(pool.used, 3);              /* top (PDPT), PD, PT */
	CHECK_EQ_U64(vtd_translate(&s, 0x201234, &page, &perm), 0x201234);
	CHECK_EQ_U64(page, VTD_PAGE);
	CHECK_EQ_U64(perm, VTD_SL_R | VTD_SL_W);
	CHECK_EQ_U64(vtd_translate(&s, 0x203000, NULL, NULL), VTD_UNMAPPED);
	CHECK_EQ_U64(vtd_translate(&s, 0x1ff000, NULL, NULL), VTD_UNMAPPED);
	/* a leaf's bits: address, R, W, no PS */
	CHECK_EQ_U64(pages[2][0x200000 >> 12 & 511], 0x200000 | 3);
	/* non-identity and read-only */
	CHECK_EQ_S64(vtd_map(&s, 0x40000000, 0x300000, VTD_PAGE, VTD_PAGE, VTD_SL_R), 0);
	CHECK_EQ_U64(vtd_translate(&s, 0x40000010, NULL, &perm), 0x300010);
	CHECK_EQ_U64(perm, VTD_SL_R);
}

static void test_map_2m(void)
{
	struct vtd_space s;
	u64 page = 0;

	fresh_pool(POOL_PAGES);
	CHECK_EQ_S64(vtd_space_init(&s, &pool, 3), 0);
	CHECK_EQ_S64(vtd_map(&s, 0, 0, 4 * MIB, VTD_PAGE_2M, VTD_SL_R | VTD_SL_W), 0);
	CHECK_EQ_U64(pool.used, 2);              /* top and one PD, no PT */
	CHECK_EQ_U64(vtd_translate(&s, 0x3fffff, &page, NULL), 0x3fffff);
	CHECK_EQ_U64(page, VTD_PAGE_2M);
	CHECK_EQ_U64(pages[1][1], 0x200000 | VTD_SL_PS | 3);
	CHECK_EQ_U64(vtd_translate(&s, 4 * MIB, NULL, NULL), VTD_UNMAPPED);
	/* 4 KiB under a 2 MiB leaf, and 2 MiB over a table of 4 KiB leaves */
	CHECK_EQ_S64(vtd_map(&s, 0x1000, 0x1000, VTD_PAGE, VTD_PAGE, VTD_SL_R), -EINVAL);
	CHECK_EQ_S64(vtd_map(&s, 8 * MIB, 8 * MIB, VTD_PAGE, VTD_PAGE, VTD_SL_R), 0);
	CHECK_EQ_S64(vtd_map(&s, 8 * MIB, 8 * MIB, VTD_PAGE_2M, VTD_PAGE_2M, VTD_SL_R), -EINVAL);
}

/* Four levels: the top index comes from bits 47:39. */
static void test_four_levels(void)
{
	struct vtd_space s;
	u64 iova = (1ull << 39) + 5 * GIB + 0x3000;

	fresh_pool(POOL_PAGES);
	CHECK_EQ_S64(vtd_space_init(&s, &pool, 4), 0);
	CHECK_EQ_S64(vtd_map(&s, iova, 0x500000, VTD_PAGE, VTD_PAGE, VTD_SL_R | VTD_SL_W), 0);
	CHECK_EQ_U64(pool.used, 4);
	CHECK(s.top[1] & VTD_SL_R);
	CHECK_EQ_U64(s.top[0], 0);
	CHECK_EQ_U64(vtd_translate(&s, iova + 8, NULL, NULL), 0x500008);
	CHECK_EQ_U64(vtd_translate(&s, iova - (1ull << 39), NULL, NULL), VTD_UNMAPPED);
	CHECK_EQ_S64(vtd_space_init(&s, &pool, 5), -EINVAL);
}

static void test_refusals(void)
{
	struct vtd_space s;

	fresh_pool(2);
	CHECK_EQ_S64(vtd_space_init(&s, &pool, 3), 0);
	CHECK_EQ_S64(vtd_map(&s, 0x1001, 0x1000, VTD_PAGE, VTD_PAGE, VTD_SL_R), -EINVAL);
	CHECK_EQ_S64(vtd_map(&s, 0x1000, 0x1000, VTD_PAGE, 8192, VTD_SL_R), -EINVAL);
	CHECK_EQ_S64(vtd_map(&s, 0x1000, 0x1000, VTD_PAGE, VTD_PAGE, 0), -EINVAL);
	CHECK_EQ_S64(vtd_map(&s, 0x200000, 0x1000, VTD_PAGE_2M, VTD_PAGE_2M, VTD_SL_R), -EINVAL);
	/* top + PD fit, the PT does not */
	CHECK_EQ_S64(vtd_map(&s, 0x1000, 0x1000, VTD_PAGE, VTD_PAGE, VTD_SL_R), -ENOSPC);
	fresh_pool(0);
	CHECK_EQ_S64(vtd_space_init(&s, &pool, 3), -ENOSPC);
}

static void test_invalidation(void)
{
	/* CCMD: ICC (63), CIRG = 01 global (62:61) */
	CHECK_EQ_U64(vtd_ccmd_global(), 0xa000000000000000ull);
	/* IOTLB_REG: IVT (63), IIRG = 01 global (61:60), DR (49), DW (48) */
	CHECK_EQ_U64(vtd_iotlb_global(), 0x9003000000000000ull);
	/* IIRG = 10 domain, DID in 47:32 */
	CHECK_EQ_U64(vtd_iotlb_domain(5), 0xa003000500000000ull);
}

static void test_fault_decode(void)
{
	struct vtd_fault f;
	/* QEMU vtd_record_frcd: hi = SID | FR << 32 | (read ? T : 0) | F */
	u64 hi = 0x0009ull | 6ull << 32 | 1ull << 62 | 1ull << 63;

	vtd_fault_decode(0x3fff0000ull, hi, &f);
	CHECK(f.valid);
	CHECK_EQ_U64(f.addr, 0x3fff0000ull);
	CHECK_EQ_U64(f.sid, 0x0009);
	CHECK_EQ_U64(f.reason, 6);
	CHECK(f.read);
	CHECK_STR(vtd_fault_reason(6), "read of a page not present");
	vtd_fault_decode(0x1234567ull, 5ull << 32, &f);
	CHECK(!f.valid);
	CHECK(!f.read);
	CHECK_EQ_U64(f.addr, 0x1234000ull);
	CHECK_STR(vtd_fault_reason(200), "unknown reason");
}

int main(void)
{
	RUN(test_levels, "vtd: levels from SAGAW, context AW");
	RUN(test_root_context, "vtd: root and context entries");
	RUN(test_map_4k, "vtd: 4 KiB leaves, 3 levels, walked back");
	RUN(test_map_2m, "vtd: 2 MiB leaves, mixed sizes refused");
	RUN(test_four_levels, "vtd: 4 levels");
	RUN(test_refusals, "vtd: alignment, perm, pool used up");
	RUN(test_invalidation, "vtd: CCMD and IOTLB invalidation values");
	RUN(test_fault_decode, "vtd: fault record decoding");
	return check_summary();
}
