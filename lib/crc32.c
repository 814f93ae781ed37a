/*
 * lib/crc32.c - CRC-32 as used by zlib, gzip and PNG, eight bytes a step
 * ("slicing by 8": table k gives the CRC of a byte followed by k zero
 * bytes, so the eight lookups of one 64-bit word are independent).
 *
 * The dump's CRC runs over every byte the guest sends, and under a
 * software hypervisor each guest instruction costs about a microsecond:
 * a byte at a time took ~9 instructions and two memory accesses a byte,
 * this ~5 and one.  The tables (8 KiB) are computed on first use
 * (single-threaded kernel).  Little-endian only: the word's low byte is
 * the first in memory.
 */
#include "lib/crc32.h"

#define CRC32_POLY   0xEDB88320u
#define CRC32_SLICES 8

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "slicing by 8 reads the message as little-endian words");

typedef u64 __attribute__((may_alias, aligned(1))) crc32_word;

static u32 crc32_table[CRC32_SLICES][256];
static bool crc32_table_ready;

static void crc32_build_table(void)
{
	for (u32 i = 0; i < 256; i++) {
		u32 c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32_POLY : c >> 1;
		crc32_table[0][i] = c;
	}
	/* one more zero byte after each: shift out a byte and fold it in */
	for (int k = 1; k < CRC32_SLICES; k++)
		for (u32 i = 0; i < 256; i++) {
			u32 c = crc32_table[k - 1][i];

			crc32_table[k][i] = (c >> 8) ^ crc32_table[0][c & 0xff];
		}
	crc32_table_ready = true;
}

/* The register state (already inverted) after one 64-bit word. */
static u32 crc32_word_step(u32 crc, u64 v)
{
	v ^= crc;
	return crc32_table[7][v & 0xff] ^ crc32_table[6][(v >> 8) & 0xff] ^
	       crc32_table[5][(v >> 16) & 0xff] ^ crc32_table[4][(v >> 24) & 0xff] ^
	       crc32_table[3][(v >> 32) & 0xff] ^ crc32_table[2][(v >> 40) & 0xff] ^
	       crc32_table[1][(v >> 48) & 0xff] ^ crc32_table[0][v >> 56];
}

u32 crc32_update(u32 crc, const void *data, size_t len)
{
	const u8 *p = data;

	if (!crc32_table_ready)
		crc32_build_table();
	crc = ~crc;
	for (; len >= 8; len -= 8, p += 8)
		crc = crc32_word_step(crc, *(const crc32_word *)p);
	while (len--)
		crc = crc32_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
