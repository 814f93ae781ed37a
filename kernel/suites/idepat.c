/*
 * kernel/suites/idepat.c - disk and CD data patterns of the ide suite (see
 * kernel/suites/idepat.h).  Pure: compiled into the kernel and the host tests.
 */
#include "kernel/suites/idepat.h"

static u64 word_at(u64 lba, u32 i, u64 seed)
{
	return lba * IDEPAT_K_LBA + (u64)i * IDEPAT_K_WORD + seed;
}

void idepat_fill(void *sector, u64 lba, u64 seed)
{
	u64 *w = sector, sum = 0;
	u32 i;

	for (i = 0; i < IDEPAT_W_SEED; i++) {
		w[i] = word_at(lba, i, seed);
		sum += w[i];
	}
	w[IDEPAT_W_SEED] = seed;
	w[IDEPAT_W_LBA] = lba;
	w[IDEPAT_W_SUM] = 0 - (sum + seed + lba);
}

bool idepat_match(const void *sector, u64 lba, u64 seed)
{
	const u64 *w = sector;
	u64 sum = 0;
	u32 i;

	for (i = 0; i < IDEPAT_W_SEED; i++) {
		if (w[i] != word_at(lba, i, seed))
			return false;
		sum += w[i];
	}
	return w[IDEPAT_W_SEED] == seed && w[IDEPAT_W_LBA] == lba &&
	       w[IDEPAT_W_SUM] == 0 - (sum + seed + lba);
}

u64 idepat_sum(const void *buf, u32 bytes)
{
	const u64 *w = buf;
	u64 h = IDEPAT_FNV_OFFSET;
	u32 i;

	for (i = 0; i < bytes / 8; i++) {
		h ^= w[i];
		h *= IDEPAT_FNV_PRIME;
	}
	return h;
}
