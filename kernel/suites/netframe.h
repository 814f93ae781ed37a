/*
 * kernel/suites/netframe.h - the payload checksum of the virtio suite's test
 * frames, computed in one go or streamed over the pieces of a frame that
 * arrived in several receive buffers (VIRTIO_NET_F_MRG_RXBUF), with the
 * same result however the bytes are split.  Pure: host-tested in
 * tests/host/test_netframe.c.
 */
#ifndef KERNEL_SUITES_NETFRAME_H
#define KERNEL_SUITES_NETFRAME_H

#include "lib/types.h"

/* State of a streamed checksum: the running sum and a partial word. */
struct netframe_csum {
	u64 sum;
	u64 word;           /* bytes of the unfinished 8-byte word, low first */
	u32 nword;          /* how many of them (0..7) */
};

/* Start a checksum over `len` bytes (the length is part of the sum). */
void netframe_csum_init(struct netframe_csum *c, u32 len);

/* Feed the next n bytes. */
void netframe_csum_feed(struct netframe_csum *c, const u8 *p, u32 n);

/* The 32-bit checksum of everything fed. */
u32 netframe_csum_final(const struct netframe_csum *c);

/* One-shot: netframe_csum_init(n) + feed(p, n) + final. */
u32 netframe_csum(const u8 *p, u32 n);

#endif
