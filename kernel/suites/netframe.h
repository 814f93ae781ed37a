/*
 * kernel/suites/netframe.h - the test frames of suites virtio and dma
 * (vnet.*): their layout, and the payload checksum, computed in one go or streamed over the pieces of a frame that
 * arrived in several receive buffers (VIRTIO_NET_F_MRG_RXBUF), with the
 * same result however the bytes are split.  Pure: host-tested in
 * tests/host/c/test_netframe.c.
 */
#ifndef KERNEL_SUITES_NETFRAME_H
#define KERNEL_SUITES_NETFRAME_H

#include "lib/types.h"

/* A test frame: the Ethernet header (destination, source, EtherType),
 * then trapmeter's header (u32 sequence number, u32 frame length, u32
 * header checksum), then the suite's payload pattern. */
#define NETFRAME_OFF_ETHERTYPE  12
#define NETFRAME_OFF_SEQ        14
#define NETFRAME_OFF_LEN        18
#define NETFRAME_OFF_CSUM       22
#define NETFRAME_OFF_PAYLOAD    26

/* A header word (unaligned: the fields follow the 14-byte Ethernet header). */
static inline u32 netframe_rd32(const u8 *p)
{
	return *(const u32 *)(const void *)p;
}

static inline void netframe_wr32(u8 *p, u32 v)
{
	*(u32 *)(void *)p = v;
}

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
