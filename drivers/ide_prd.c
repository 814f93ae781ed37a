/*
 * drivers/ide_prd.c - build a bus-master IDE PRD table (see ide_prd.h).
 */
#include "drivers/ide_prd.h"

u32 ide_prd_bytes(const struct ide_prd *e)
{
	return e->count ? e->count : PRD_MAX_BYTES;
}

/* Bytes from addr to the next 64 KiB boundary. */
static u64 to_boundary(u64 addr)
{
	return PRD_BOUNDARY - (addr & (PRD_BOUNDARY - 1));
}

static bool bad_request(u64 addr, u32 len, u32 chunk)
{
	return !len || (addr & 1) || (len & 1) || !chunk || (chunk & 1) ||
	       chunk > PRD_MAX_BYTES || addr + len > PRD_ADDR_LIMIT;
}

int ide_prd_build(struct ide_prd *tbl, u32 max, u64 addr, u32 len, u32 chunk)
{
	u32 n = 0;
	u64 step;

	if (bad_request(addr, len, chunk))
		return -EINVAL;
	while (len) {
		if (n == max)
			return -ENOSPC;
		step = to_boundary(addr);
		if (step > chunk)
			step = chunk;
		if (step > len)
			step = len;
		tbl[n].addr = (u32)addr;
		tbl[n].count = (u16)step;          /* 64 KiB wraps to 0, as the spec says */
		tbl[n].flags = 0;
		addr += step;
		len -= (u32)step;
		n++;
	}
	tbl[n - 1].flags = PRD_EOT;
	return (int)n;
}

u32 ide_prd_page_crossings(const struct ide_prd *tbl, u32 n, u32 page)
{
	u32 i, crossings = 0;
	u64 first, last;

	for (i = 0; i < n; i++) {
		first = tbl[i].addr / page;
		last = ((u64)tbl[i].addr + ide_prd_bytes(&tbl[i]) - 1) / page;
		crossings += first != last;
	}
	return crossings;
}
