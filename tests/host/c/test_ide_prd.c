/*
 * tests/host/c/test_ide_prd.c - drivers/ide_prd.c on the host: entries and
 * their byte counts, the end-of-table bit, the 64 KiB-boundary split, a
 * region ending inside a page against one crossing a page, chunking into
 * many small entries, and the refusals.
 */
#include "tests/host/c/check.h"
#include "drivers/ide_prd.h"

#define KIB 1024u
#define PAGE 4096u
#define MAXE 64

static struct ide_prd tbl[MAXE];

/* Whatever the split, the entries cover the buffer in order and only the
 * last carries the end bit; none crosses 64 KiB. */
static void check_cover(int n, u64 addr, u32 len)
{
	u64 at = addr, total = 0;
	int i;

	CHECK(n > 0);
	for (i = 0; i < n; i++) {
		CHECK_EQ_U64(tbl[i].addr, at);
		CHECK_EQ_U64(tbl[i].flags, i == n - 1 ? PRD_EOT : 0);
		CHECK_EQ_U64(tbl[i].addr / PRD_BOUNDARY,
			     (tbl[i].addr + ide_prd_bytes(&tbl[i]) - 1) / PRD_BOUNDARY);
		at += ide_prd_bytes(&tbl[i]);
		total += ide_prd_bytes(&tbl[i]);
	}
	CHECK_EQ_U64(total, len);
}

static void test_one_entry(void)
{
	int n = ide_prd_build(tbl, MAXE, 0x200000, 512, PRD_MAX_BYTES);

	CHECK_EQ_S64(n, 1);
	CHECK_EQ_U64(tbl[0].addr, 0x200000);
	CHECK_EQ_U64(tbl[0].count, 512);
	CHECK_EQ_U64(tbl[0].flags, PRD_EOT);
	check_cover(n, 0x200000, 512);
}

/* 64 KiB on a 64 KiB boundary is one entry whose count field is 0. */
static void test_full_64k(void)
{
	int n = ide_prd_build(tbl, MAXE, 0x210000, 64 * KIB, PRD_MAX_BYTES);

	CHECK_EQ_S64(n, 1);
	CHECK_EQ_U64(tbl[0].count, 0);
	CHECK_EQ_U64(ide_prd_bytes(&tbl[0]), 64 * KIB);
	check_cover(n, 0x210000, 64 * KIB);
}

/* The same 64 KiB a page past a 64 KiB boundary: two entries, split at
 * the boundary. */
static void test_boundary_split(void)
{
	u64 addr = 0x210000 + PAGE;
	int n = ide_prd_build(tbl, MAXE, addr, 64 * KIB, PRD_MAX_BYTES);

	CHECK_EQ_S64(n, 2);
	CHECK_EQ_U64(tbl[0].count, 60 * KIB);
	CHECK_EQ_U64(tbl[1].addr, 0x220000);
	CHECK_EQ_U64(tbl[1].count, 4 * KIB);
	check_cover(n, addr, 64 * KIB);
}

/* A region ending inside its page (no crossing) against one crossing a
 * page: page crossings are allowed inside an entry. */
static void test_page_end_vs_crossing(void)
{
	int n = ide_prd_build(tbl, MAXE, 0x200000 + PAGE - 1024, 1024, PRD_MAX_BYTES);

	CHECK_EQ_S64(n, 1);
	CHECK_EQ_U64(ide_prd_page_crossings(tbl, (u32)n, PAGE), 0);
	n = ide_prd_build(tbl, MAXE, 0x200000 + PAGE - 512, 1024, PRD_MAX_BYTES);
	CHECK_EQ_S64(n, 1);
	CHECK_EQ_U64(ide_prd_page_crossings(tbl, (u32)n, PAGE), 1);
	check_cover(n, 0x200000 + PAGE - 512, 1024);
}

/* Many small entries: 64 KiB in 512-byte entries is 128 of them; a table
 * too small for them is refused. */
static void test_many_small(void)
{
	static struct ide_prd big[128];
	int n = ide_prd_build(big, 128, 0x210000, 64 * KIB, 512);
	int i;

	CHECK_EQ_S64(n, 128);
	for (i = 0; i < n; i++)
		CHECK_EQ_U64(big[i].count, 512);
	CHECK_EQ_U64(big[127].flags, PRD_EOT);
	CHECK_EQ_U64(big[126].flags, 0);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, 0x210000, 64 * KIB, 512), -ENOSPC);
}

/* Chunks of a page from a page offset: the first entry ends at the chunk
 * size, not at the page end. */
static void test_chunk_from_offset(void)
{
	u64 addr = 0x200000 + 512;
	int n = ide_prd_build(tbl, MAXE, addr, 3 * PAGE, PAGE);

	CHECK_EQ_S64(n, 3);
	CHECK_EQ_U64(tbl[0].count, PAGE);
	CHECK_EQ_U64(ide_prd_page_crossings(tbl, (u32)n, PAGE), 3);
	check_cover(n, addr, 3 * PAGE);
}

static void test_refusals(void)
{
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, 0x200001, 512, PRD_MAX_BYTES), -EINVAL);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, 0x200000, 511, PRD_MAX_BYTES), -EINVAL);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, 0x200000, 0, PRD_MAX_BYTES), -EINVAL);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, 0x200000, 512, 0), -EINVAL);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, 0x200000, 512, PRD_MAX_BYTES + 2), -EINVAL);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, PRD_ADDR_LIMIT - 256, 512, PRD_MAX_BYTES),
		     -EINVAL);
	CHECK_EQ_S64(ide_prd_build(tbl, 0, 0x200000, 512, PRD_MAX_BYTES), -ENOSPC);
}

/* The last bytes below 4 GiB are addressable: a transfer ending exactly at
 * the limit is built; one ending 2 bytes past it is refused. */
static void test_limit_boundary(void)
{
	int n = ide_prd_build(tbl, MAXE, PRD_ADDR_LIMIT - 512, 512, PRD_MAX_BYTES);

	CHECK_EQ_S64(n, 1);
	CHECK_EQ_U64(tbl[0].addr, 0xfffffe00u);
	CHECK_EQ_U64(tbl[0].count, 512);
	check_cover(n, PRD_ADDR_LIMIT - 512, 512);
	CHECK_EQ_S64(ide_prd_build(tbl, MAXE, PRD_ADDR_LIMIT - 510, 512, PRD_MAX_BYTES),
		     -EINVAL);
}

int main(void)
{
	RUN(test_one_entry, "prd: one entry with the end bit");
	RUN(test_full_64k, "prd: 64 KiB on a boundary is count 0");
	RUN(test_boundary_split, "prd: split at the 64 KiB boundary");
	RUN(test_page_end_vs_crossing, "prd: ending inside a page vs crossing one");
	RUN(test_many_small, "prd: many small entries, table too small");
	RUN(test_chunk_from_offset, "prd: chunks from a page offset");
	RUN(test_refusals, "prd: odd, empty, oversized, above 4 GiB");
	RUN(test_limit_boundary, "prd: a transfer ending at 4 GiB is built");
	return check_summary();
}
