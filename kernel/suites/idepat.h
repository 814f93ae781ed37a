/*
 * kernel/suites/idepat.h - the data the ide suite expects on its disk and CD.
 * Pure; tools/trapmeterlib/guest/ide.py writes the same bytes.
 *
 * Disk sector at LBA L, written with seed S (0 for the runner's image,
 * IDEPAT_WRITE_SEED for what the guest writes), as 64 little-endian u64
 * words: w[i] = L * IDEPAT_K_LBA + i * IDEPAT_K_WORD + S for i < 61,
 * w[61] = S, w[62] = L (the LBA stamp), w[63] = the checksum that makes
 * the 64 words sum to 0 mod 2^64.
 *
 * CD sectors (2048 B) are checked with idepat_sum: FNV-1a over the
 * sector's u64 words, the runner passing one sum per sector through
 * fw_cfg (opt/trapmeter/cd-sums).
 */
#ifndef KERNEL_SUITES_IDEPAT_H
#define KERNEL_SUITES_IDEPAT_H

#include "lib/types.h"

#define IDEPAT_SECTOR       512
#define IDEPAT_WORDS        (IDEPAT_SECTOR / 8)
#define IDEPAT_W_SEED       61
#define IDEPAT_W_LBA        62
#define IDEPAT_W_SUM        63
#define IDEPAT_K_LBA        0x9e3779b97f4a7c15ull
#define IDEPAT_K_WORD       0xc2b2ae3d27d4eb4full
#define IDEPAT_WRITE_SEED   0x5752495445ull          /* "WRITE" */
#define IDEPAT_FNV_OFFSET   0xcbf29ce484222325ull
#define IDEPAT_FNV_PRIME    0x100000001b3ull

/* Fill one 512-byte sector. */
void idepat_fill(void *sector, u64 lba, u64 seed);
/* True when the sector holds exactly idepat_fill(lba, seed). */
bool idepat_match(const void *sector, u64 lba, u64 seed);
/* FNV-1a 64 over bytes/8 little-endian words. */
u64 idepat_sum(const void *buf, u32 bytes);

#endif
