/*
 * kernel/suites/netframe.c - position-sensitive 32-bit payload checksum of the
 * virtio suite's frames: the sum is multiplied through every aligned
 * 8-byte word of the payload (little-endian), then through each byte of
 * the tail.  Streaming keeps a partial word across pieces, so a frame
 * split over 512-byte receive buffers after a 12-byte header checks the
 * same as one contiguous buffer.
 */
#include "kernel/suites/netframe.h"

#define CSUM_MUL   0x9e3779b97f4a7c15ull
#define WORD_BYTES 8

void netframe_csum_init(struct netframe_csum *c, u32 len)
{
	c->sum = len;
	c->word = 0;
	c->nword = 0;
}

/* Whole words straight from memory when no partial word is pending. */
static u32 feed_words(struct netframe_csum *c, const u8 *p, u32 n)
{
	typedef u64 __attribute__((may_alias, aligned(1))) u64_u;
	u32 i = 0;

	for (; i + WORD_BYTES <= n; i += WORD_BYTES)
		c->sum = (c->sum ^ *(const u64_u *)(p + i)) * CSUM_MUL;
	return i;
}

void netframe_csum_feed(struct netframe_csum *c, const u8 *p, u32 n)
{
	u32 i = 0;

	while (i < n) {
		if (c->nword == 0) {
			i += feed_words(c, p + i, n - i);
			if (i == n)
				break;
		}
		c->word |= (u64)p[i++] << (8 * c->nword);
		if (++c->nword == WORD_BYTES) {
			c->sum = (c->sum ^ c->word) * CSUM_MUL;
			c->word = 0;
			c->nword = 0;
		}
	}
}

u32 netframe_csum_final(const struct netframe_csum *c)
{
	u64 s = c->sum;
	u32 i;

	/* the tail (fewer than 8 bytes) goes in byte by byte */
	for (i = 0; i < c->nword; i++)
		s = (s ^ ((c->word >> (8 * i)) & 0xff)) * CSUM_MUL;
	return (u32)(s >> 32) ^ (u32)s;
}

u32 netframe_csum(const u8 *p, u32 n)
{
	struct netframe_csum c;

	netframe_csum_init(&c, n);
	netframe_csum_feed(&c, p, n);
	return netframe_csum_final(&c);
}
