/*
 * tests/host/c/test_virtio_net.c - the receive bookkeeping of
 * drivers/virtio_net.c on the host, both paths: normal (one 2 KiB buffer
 * per frame; with a legacy device's 10-byte header or a modern one's 12)
 * and mergeable (VIRTIO_NET_F_MRG_RXBUF, 5.1.6.4: 512-byte buffers, the
 * first one's num_buffers says how many used entries form the frame).  The test plays the device: it takes available buffers in
 * order, writes header and frame across them, and publishes used entries.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "drivers/virtio_net.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"

#define QSIZE     16
/* feature sets: legacy (ANY_LAYOUT: 10-byte header), modern, mergeable */
#define F_LEGACY  (1ull << VIRTIO_F_ANY_LAYOUT)
#define F_MODERN  (1ull << VIRTIO_F_VERSION_1)
#define F_MRG     (F_MODERN | 1ull << VIRTIO_NET_F_MRG_RXBUF)

/* host stubs for what virtio_pci.c links against */
struct tsc_info tsc;
void tsc_delay_us(u64 us) { (void)us; }
int paging_map_mmio(u64 phys, u64 size) { (void)phys; (void)size; return 0; }

static u8 ring[3 * 4096] __attribute__((aligned(4096)));
static u8 bufs[VIRTQ_MAX_SIZE * VNET_BUF_SIZE];
static u8 frame[VNET_MAX_FRAME];
static struct vnet n;
static u16 dev_avail;           /* the device's next available entry */
static u32 dev_hdr;             /* the header the device writes (5.1.6.1) */

/* The receive side as vnet_init sets it up, over the test's memory. */
static void fresh(u64 features)
{
	memset(&n, 0, sizeof(n));
	memset(ring, 0, sizeof(ring));
	dev_avail = 0;
	dev_hdr = features == F_LEGACY ? 10 : 12;
	vnet_set_layout(&n, features);
	CHECK_EQ_S64(virtq_init(&n.rx, QSIZE, ring, false), 0);
	n.rx_bufs = bufs;
	CHECK_EQ_S64(vnet_rx_fill(&n), 0);
}

static void make_frame(u32 len, u32 seed)
{
	for (u32 i = 0; i < len; i++)
		frame[i] = (u8)(i * 7 + seed);
}

/* Write header + frame over as many available buffers as it takes;
 * `visible` of them get their used entry published (all: -1). */
static u32 device_deliver(u32 len, int visible, u16 num_buffers_override)
{
	u32 hdr = dev_hdr, done = 0, used = 0, idx = n.rx.used->idx;
	u8 *first = NULL;

	while (done < hdr + len) {
		u16 head = n.rx.avail->ring[dev_avail++ % QSIZE];
		struct virtq_desc *d = &n.rx.desc[head];
		u8 *buf = (u8 *)(uintptr_t)d->addr;
		u32 room = d->len, put = 0;

		if (!first) {
			first = buf;
			memset(buf, 0, hdr);
			put = hdr;
		}
		while (put < room && done + put < hdr + len) {
			u32 at = done + put - hdr;

			buf[put] = frame[at];
			put++;
		}
		n.rx.used->ring[(idx + used) % QSIZE].id = head;
		n.rx.used->ring[(idx + used) % QSIZE].len = put;
		done += put;
		used++;
	}
	if (hdr == 12)                  /* a legacy 10-byte header has no num_buffers */
		((struct virtio_net_hdr *)first)->num_buffers =
			num_buffers_override ? num_buffers_override : (u16)used;
	n.rx.used->idx = (u16)(idx + (visible < 0 ? used : (u32)visible));
	return used;
}

/* The pieces of f, in order, are the frame sent. */
static bool same_frame(const struct vnet_rx_frame *f, u32 len)
{
	u32 at = 0;

	for (u16 i = 0; i < f->nfrags; i++) {
		if (at + f->frag_len[i] > len || memcmp(f->data[i], frame + at, f->frag_len[i]))
			return false;
		at += f->frag_len[i];
	}
	return at == len && f->len == len;
}

static void test_buffers_per_frame(void)
{
	fresh(F_MRG);
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, 64), 1);
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, 500), 1);     /* 12 + 500 = 512 */
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, 501), 2);
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, 1024), 3);
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, 1500), 3);
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, VNET_MAX_FRAME), 3);
	fresh(F_MODERN);
	CHECK_EQ_U64(vnet_rx_bufs_per_frame(&n, VNET_MAX_FRAME), 1);
	CHECK_EQ_U64(n.rx_buf_size, VNET_BUF_SIZE);
}

static void test_mergeable_frames(void)
{
	static const u32 sizes[] = { 64, 128, 260, 500, 501, 520, 1024, 1500, 1514 };
	struct vnet_rx_frame f;

	fresh(F_MRG);
	CHECK_EQ_U64(vnet_rx_posted(&n), QSIZE);
	CHECK_EQ_S64(vnet_rx_poll(&n, &f), 0);            /* nothing yet */
	for (u32 round = 0; round < 300; round++) {
		u32 len = sizes[round % 9], used;

		make_frame(len, round);
		used = device_deliver(len, -1, 0);
		CHECK_EQ_U64(used, vnet_rx_bufs_per_frame(&n, len));
		CHECK_EQ_S64(vnet_rx_poll(&n, &f), 1);
		CHECK_EQ_U64(f.nfrags, used);
		CHECK(same_frame(&f, len));
		CHECK_EQ_U64(vnet_rx_posted(&n), QSIZE - used);   /* taken from the ring */
		CHECK_EQ_S64(vnet_rx_release(&n, &f), 0);
		CHECK_EQ_U64(vnet_rx_posted(&n), QSIZE);          /* and given back */
		CHECK_EQ_S64(vnet_rx_poll(&n, &f), 0);
	}
	CHECK_EQ_U64(n.rx_frames, 300);
	CHECK_EQ_U64(n.rx_bad, 0);
	CHECK_EQ_U64(n.rx.num_free, 0);                    /* every buffer posted again */
}

/* A frame whose used entries are not all visible yet is left alone. */
static void test_mergeable_partial(void)
{
	struct vnet_rx_frame f;

	fresh(F_MRG);
	make_frame(1500, 3);
	CHECK_EQ_U64(device_deliver(1500, 2, 0), 3);
	CHECK_EQ_S64(vnet_rx_poll(&n, &f), 0);
	CHECK_EQ_U64(n.rx.last_used, 0);                   /* nothing consumed */
	n.rx.used->idx = 3;
	CHECK_EQ_S64(vnet_rx_poll(&n, &f), 1);
	CHECK(same_frame(&f, 1500));
	CHECK_EQ_U64(n.rx_bufs_used, 3);
}

/* num_buffers 0 or beyond VNET_MAX_FRAGS: the head alone, counted bad. */
static void test_mergeable_bad_count(void)
{
	struct vnet_rx_frame f;

	fresh(F_MRG);
	make_frame(64, 1);
	device_deliver(64, -1, VNET_MAX_FRAGS + 1);
	CHECK_EQ_S64(vnet_rx_poll(&n, &f), -EIO);
	CHECK_EQ_U64(f.nfrags, 1);
	CHECK_EQ_S64(vnet_rx_release(&n, &f), 0);
	CHECK_EQ_U64(n.rx_bad, 1);
	CHECK_EQ_U64(n.rx.num_free, 0);
	make_frame(64, 2);
	device_deliver(64, -1, 1);
	CHECK_EQ_S64(vnet_rx_poll(&n, &f), 1);             /* the next one is fine */
	CHECK(same_frame(&f, 64));
}

static void normal_path(u64 features)
{
	struct vnet_rx_frame f;

	fresh(features);
	for (u32 round = 0; round < 40; round++) {
		make_frame(1514, round);
		CHECK_EQ_U64(device_deliver(1514, -1, 0), 1);
		CHECK_EQ_S64(vnet_rx_poll(&n, &f), 1);
		CHECK_EQ_U64(f.nfrags, 1);
		CHECK(same_frame(&f, 1514));
		CHECK_EQ_S64(vnet_rx_release(&n, &f), 0);
	}
}

static void test_normal_path(void)
{
	normal_path(F_MODERN);
	CHECK_EQ_U64(n.hdr_len, 12);
}

/* A legacy device (no VERSION_1, no MRG_RXBUF): the frame starts 10
 * bytes into the buffer. */
static void test_legacy_header(void)
{
	normal_path(F_LEGACY);
	CHECK_EQ_U64(n.hdr_len, 10);
	CHECK(!n.mrg);
	CHECK_EQ_U64(n.rx_frames, 40);
}

int main(void)
{
	fake_io_reset();
	RUN(test_buffers_per_frame, "virtio_net: receive buffers a frame takes per path");
	RUN(test_mergeable_frames, "virtio_net: mergeable frames 64..1514 B over 512 B buffers, ring wraps");
	RUN(test_mergeable_partial, "virtio_net: mergeable frame waits for all its used entries");
	RUN(test_mergeable_bad_count, "virtio_net: bad num_buffers is -EIO, buffers come back");
	RUN(test_normal_path, "virtio_net: normal path, one 2 KiB buffer per frame");
	RUN(test_legacy_header, "virtio_net: a legacy device's 10-byte header on the normal path");
	return check_summary();
}
