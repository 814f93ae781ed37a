/*
 * lib/crc32.c - table-driven CRC-32 as used by zlib, gzip and PNG.
 * The 256-entry table is computed on first use (single-threaded kernel).
 */
#include "lib/crc32.h"

#define CRC32_POLY 0xEDB88320u

static u32 crc32_table[256];
static bool crc32_table_ready;

static void crc32_build_table(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY : c >> 1;
		crc32_table[i] = c;
	}
	crc32_table_ready = true;
}

u32 crc32_update(u32 crc, const void *data, size_t len)
{
	const u8 *p = data;

	if (!crc32_table_ready)
		crc32_build_table();
	crc = ~crc;
	while (len--)
		crc = crc32_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
