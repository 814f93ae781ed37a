/*
 * drivers/virtio_net.c - virtio-net (virtio 1.x, 5.1) over drivers/
 * virtio_pci.c: initialisation (5.1.5), MAC from the device
 * configuration (5.1.4), receive buffers (5.1.6.3) and transmission
 * (5.1.6.2) with a zeroed virtio_net_hdr (no offloads), polled.  Header
 * and frame share one descriptor, which needs VIRTIO_F_ANY_LAYOUT on
 * legacy devices (always true for VERSION_1).  With VIRTIO_NET_F_MRG_RXBUF
 * (5.1.6.3.1, 5.1.6.4) receive buffers are VNET_MRG_BUF_SIZE bytes and
 * the first buffer's header says in num_buffers how many used entries,
 * in order, make up the frame.
 * QEMU: `-netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0`,
 * or a vhost-user backend: `-netdev vhost-user,chardev=c0` with guest
 * memory shared (memory-backend-memfd,share=on).
 */
#include "drivers/virtio_net.h"
#include "lib/string.h"

#define VNET_HDR_LEGACY  10     /* without num_buffers */
#define VNET_HDR_MODERN  12
#define VNET_MIN_FRAME   14     /* an Ethernet header */

/* virtq_mem_size(VIRTQ_MAX_SIZE): descriptors 4096 B + available ring,
 * padded to 2 pages, then the used ring on a third */
#define VNET_RING_PAGES  3
#define VNET_RING_BYTES  (VNET_RING_PAGES * VIRTQ_ALIGN)

static u8 vnet_ring_mem[VNET_MAX_NICS][2][VNET_RING_BYTES] __attribute__((aligned(VIRTQ_ALIGN)));
static u8 vnet_buf_mem[VNET_MAX_NICS][2][VIRTQ_MAX_SIZE * VNET_BUF_SIZE]
	__attribute__((aligned(VIRTQ_ALIGN))) NOCLEAR;

_Static_assert(VIRTQ_MAX_SIZE * sizeof(struct virtq_desc) + sizeof(struct virtq_avail) +
	       (VIRTQ_MAX_SIZE + 1) * sizeof(u16) <= 2 * VIRTQ_ALIGN &&
	       sizeof(struct virtq_used) + VIRTQ_MAX_SIZE * sizeof(struct virtq_used_elem) +
	       sizeof(u16) <= VIRTQ_ALIGN, "ring memory holds a VIRTQ_MAX_SIZE queue");

static u8 *buf_at(u8 *base, u16 slot)
{
	return base + (size_t)slot * VNET_BUF_SIZE;
}

static u8 *rx_buf_at(const struct vnet *n, u16 slot)
{
	return n->rx_bufs + (size_t)slot * n->rx_buf_size;
}

static void read_mac(struct vnet *n)
{
	u32 i;

	for (i = 0; i < VNET_ETH_ALEN; i++)
		n->mac[i] = n->vp.features & (1ull << VIRTIO_NET_F_MAC) ?
			    n->vp.ops->config_read8(&n->vp, i) : 0;
}

static int rx_add(struct vnet *n, u16 slot)
{
	struct virtq_buf b = { rx_buf_at(n, slot), n->rx_buf_size, true };

	return virtq_add(&n->rx, &b, 1, b.addr);
}

int vnet_rx_fill(struct vnet *n)
{
	u16 slot;
	int err;

	for (slot = 0; slot < n->rx.num; slot++) {
		err = rx_add(n, slot);
		if (err)
			return err;
	}
	virtq_publish(&n->rx);
	return 0;
}

void vnet_set_layout(struct vnet *n, u64 features)
{
	n->mrg = features & (1ull << VIRTIO_NET_F_MRG_RXBUF);
	/* 5.1.6.1: num_buffers is there with VERSION_1 or MRG_RXBUF */
	n->hdr_len = features & ((1ull << VIRTIO_F_VERSION_1) |
				 (1ull << VIRTIO_NET_F_MRG_RXBUF)) ? VNET_HDR_MODERN
								   : VNET_HDR_LEGACY;
	n->rx_buf_size = n->mrg ? VNET_MRG_BUF_SIZE : VNET_BUF_SIZE;
}

static int setup_queues(struct vnet *n, u32 which)
{
	int err;

	kmemset(vnet_ring_mem[which], 0, sizeof(vnet_ring_mem[which]));
	err = vpci_queue_setup(&n->vp, VNET_RX_QUEUE, &n->rx, vnet_ring_mem[which][0]);
	if (err)
		return err;
	err = vpci_queue_setup(&n->vp, VNET_TX_QUEUE, &n->tx, vnet_ring_mem[which][1]);
	if (err)
		return err;
	n->rx_bufs = vnet_buf_mem[which][0];
	n->tx_bufs = vnet_buf_mem[which][1];
	for (n->tx_free_n = 0; n->tx_free_n < n->tx.num; n->tx_free_n++) {
		n->tx_free[n->tx_free_n] = n->tx_free_n;
		kmemset(buf_at(n->tx_bufs, n->tx_free_n), 0, n->hdr_len);
	}
	return 0;
}

/* ACCESS_PLATFORM is taken whenever offered: every address this driver
 * hands the device is an IOVA too (suite dma maps the image one to one). */
static int start(struct vnet *n, u32 which, const struct pci_dev *pci,
		 bool prefer_pio_notify, u64 extra, bool fill_rx)
{
	u64 wanted = (1ull << VIRTIO_NET_F_MAC) | (1ull << VIRTIO_F_ANY_LAYOUT) |
		     (1ull << VIRTIO_F_ACCESS_PLATFORM) | extra;
	int err;

	if (which >= VNET_MAX_NICS)
		return -EINVAL;
	kmemset(n, 0, sizeof(*n));
	err = vpci_probe(&n->vp, pci, prefer_pio_notify);
	if (err)
		return err;
	err = vpci_negotiate(&n->vp, wanted);
	if (err)
		return err;
	if (!(n->vp.features & ((1ull << VIRTIO_F_VERSION_1) | (1ull << VIRTIO_F_ANY_LAYOUT)))) {
		vpci_fail(&n->vp);
		return -VPCI_EFEATURES;
	}
	vnet_set_layout(n, n->vp.features);
	err = setup_queues(n, which);
	if (err)
		goto err_fail;
	read_mac(n);
	err = fill_rx ? vnet_rx_fill(n) : 0;
	if (err)
		goto err_fail;
	/* 3.1.1 step 8: buffers may be posted before DRIVER_OK (5.1.5) */
	return vpci_driver_ok(&n->vp);
err_fail:
	vpci_fail(&n->vp);
	return err;
}

int vnet_init(struct vnet *n, u32 which, const struct pci_dev *pci,
	      bool prefer_pio_notify, u64 extra)
{
	return start(n, which, pci, prefer_pio_notify, extra, true);
}

int vnet_init_rx_empty(struct vnet *n, u32 which, const struct pci_dev *pci,
		       bool prefer_pio_notify, u64 extra)
{
	return start(n, which, pci, prefer_pio_notify, extra, false);
}

u8 *vnet_tx_buffer(struct vnet *n, u16 *slot)
{
	if (!n->tx_free_n)
		return NULL;
	*slot = n->tx_free[--n->tx_free_n];
	return buf_at(n->tx_bufs, *slot) + n->hdr_len;
}

u8 *vnet_tx_frame(struct vnet *n, u16 slot)
{
	return buf_at(n->tx_bufs, slot) + n->hdr_len;
}

int vnet_tx_queue(struct vnet *n, u16 slot, u32 len)
{
	struct virtq_buf b = { buf_at(n->tx_bufs, slot), n->hdr_len + len, false };

	int err;

	if (len < VNET_MIN_FRAME || len > VNET_MAX_FRAME || slot >= n->tx.num)
		return -EINVAL;
	err = virtq_add(&n->tx, &b, 1, (void *)(uintptr_t)(slot + 1));
	if (!err) {
		n->tx_frames++;
		n->tx_bytes += len;
	}
	return err;
}

bool vnet_tx_publish(struct vnet *n)
{
	return virtq_publish(&n->tx);
}

void vnet_tx_kick(struct vnet *n)
{
	vpci_notify(&n->vp, VNET_TX_QUEUE);
	n->tx_kicks++;
}

u32 vnet_tx_reap(struct vnet *n)
{
	void *tok;
	u32 done = 0;

	while ((tok = virtq_get(&n->tx, NULL)) != NULL) {
		n->tx_free[n->tx_free_n++] = (u16)((uintptr_t)tok - 1);
		done++;
	}
	return done;
}

/* Take one used receive buffer as the next piece of f; false when the
 * device returned a chain we never posted. */
static bool rx_take(struct vnet *n, struct vnet_rx_frame *f, u32 skip)
{
	u32 written = 0;
	u8 *buf = virtq_get(&n->rx, &written);
	u16 i = f->nfrags;

	if (!buf)
		return false;
	f->nfrags++;
	f->slot[i] = (u16)((buf - n->rx_bufs) / n->rx_buf_size);
	f->data[i] = buf + skip;
	f->frag_len[i] = written > skip ? written - skip : 0;
	f->len += f->frag_len[i];
	n->rx_bufs_used++;
	return true;
}

/* Mergeable: how many used entries the next frame spans (0: none yet). */
static u32 mrg_buffers(struct vnet *n, bool *bad)
{
	u32 written = 0;
	const struct virtio_net_hdr *h = virtq_peek(&n->rx, &written);
	u32 num;

	if (!h)
		return 0;
	num = ((const volatile struct virtio_net_hdr *)h)->num_buffers;
	*bad = num == 0 || num > VNET_MAX_FRAGS || written < n->hdr_len;
	if (num == 0 || num > VNET_MAX_FRAGS)
		num = 1;     /* take the head alone; the caller counts it bad */
	return virtq_used_pending(&n->rx) >= num ? num : 0;
}

int vnet_rx_poll(struct vnet *n, struct vnet_rx_frame *f)
{
	bool bad = false;
	u32 num = 1, i;

	f->len = 0;
	f->nfrags = 0;
	if (n->mrg)
		num = mrg_buffers(n, &bad);
	else if (!virtq_used_pending(&n->rx))
		num = 0;
	if (!num || !virtq_peek(&n->rx, NULL))
		return 0;
	for (i = 0; i < num; i++)
		if (!rx_take(n, f, i ? 0 : n->hdr_len))
			bad = true;
	n->rx_frames++;
	n->rx_bytes += f->len;
	if (bad || f->len > VNET_MAX_FRAME) {
		n->rx_bad++;
		return -EIO;
	}
	return 1;
}

int vnet_rx_release(struct vnet *n, const struct vnet_rx_frame *f)
{
	u16 i;
	int err;

	for (i = 0; i < f->nfrags; i++) {
		err = rx_add(n, f->slot[i]);
		if (err)
			return err;
	}
	if (virtq_publish(&n->rx)) {
		vpci_notify(&n->vp, VNET_RX_QUEUE);
		n->rx_kicks++;
	}
	return 0;
}

u16 vnet_rx_posted(const struct vnet *n)
{
	return n->rx.num - n->rx.num_free;
}

u32 vnet_rx_bufs_per_frame(const struct vnet *n, u32 len)
{
	if (!n->mrg)
		return 1;
	return (n->hdr_len + len + n->rx_buf_size - 1) / n->rx_buf_size;
}
