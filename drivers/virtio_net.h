/*
 * drivers/virtio_net.h - virtio network device (virtio 1.x, 5.1): one
 * receive and one transmit queue, MAC from the device configuration,
 * polling only (no interrupts).  Two receive paths: "normal", one
 * VNET_BUF_SIZE buffer per frame, and "mergeable"
 * (VIRTIO_NET_F_MRG_RXBUF, 5.1.6.3.1): VNET_MRG_BUF_SIZE buffers, a frame
 * spans num_buffers of them.
 */
#ifndef DRIVERS_VIRTIO_NET_H
#define DRIVERS_VIRTIO_NET_H

#include "lib/types.h"
#include "drivers/virtio_pci.h"
#include "drivers/virtq.h"

#define VIRTIO_NET_F_MAC     5
#define VIRTIO_NET_F_MRG_RXBUF 15
#define VNET_RX_QUEUE        0    /* receiveq1 (5.1.2) */
#define VNET_TX_QUEUE        1    /* transmitq1 */
#define VNET_BUF_SIZE        2048 /* one buffer per descriptor */
#define VNET_ETH_ALEN        6
#define VNET_MAX_FRAME       1514 /* Ethernet without FCS */
#define VNET_MAX_NICS        3    /* suite dma: a third NIC on a hub of its own */
#define VNET_MRG_BUF_SIZE    512  /* mergeable: a 1514-byte frame spans 3 */
#define VNET_MAX_FRAGS       8    /* more buffers per frame: a device bug */

/* struct virtio_net_hdr (5.1.6): 10 bytes legacy, 12 with VERSION_1 */
struct virtio_net_hdr {
	u8 flags;          /* VIRTIO_NET_HDR_F_*: 0, no checksum offload */
	u8 gso_type;       /* VIRTIO_NET_HDR_GSO_NONE */
	u16 hdr_len;
	u16 gso_size;
	u16 csum_start;
	u16 csum_offset;
	u16 num_buffers;   /* only with VERSION_1 or MRG_RXBUF */
};
_Static_assert(sizeof(struct virtio_net_hdr) == 12, "virtio_net_hdr is 12 bytes");

struct vnet {
	struct vpci_dev vp;
	struct virtq rx, tx;
	u8 mac[VNET_ETH_ALEN];
	u32 hdr_len;                     /* 10 or 12 */
	bool mrg;                        /* VIRTIO_NET_F_MRG_RXBUF negotiated */
	u32 rx_buf_size;                 /* VNET_BUF_SIZE or VNET_MRG_BUF_SIZE */
	u8 *rx_bufs, *tx_bufs;           /* VIRTQ_MAX_SIZE x VNET_BUF_SIZE */
	u16 tx_free[VIRTQ_MAX_SIZE];     /* free transmit buffer slots */
	u16 tx_free_n;
	u64 tx_kicks, rx_kicks;          /* doorbell writes */
	u64 tx_frames, tx_bytes;         /* frames queued (bytes without header) */
	u64 rx_frames, rx_bytes, rx_bufs_used;  /* frames taken, buffers they used */
	u64 rx_bad;                      /* frames with a bad num_buffers/length */
};

/* One received frame: its pieces in order (the first after the header)
 * and the receive slots to give back with vnet_rx_release. */
struct vnet_rx_frame {
	u32 len;                         /* frame bytes, all pieces */
	u16 nfrags;
	const u8 *data[VNET_MAX_FRAGS];
	u32 frag_len[VNET_MAX_FRAGS];
	u16 slot[VNET_MAX_FRAGS];
};

/* Bring up NIC number `which` (0..VNET_MAX_NICS-1: selects its static
 * memory) on PCI function `pci`; `extra` adds features (EVENT_IDX,
 * MRG_RXBUF); fills the receive queue.  Returns 0 or a named error
 * (vpci_strerror). */
int vnet_init(struct vnet *n, u32 which, const struct pci_dev *pci,
	      bool prefer_pio_notify, u64 extra);

/* vnet_init with the receive queue left empty: the caller posts its own
 * buffers (suite dma lays them out across pages) with virtq_add. */
int vnet_init_rx_empty(struct vnet *n, u32 which, const struct pci_dev *pci,
		       bool prefer_pio_notify, u64 extra);

/* A free transmit buffer: its frame area (after the header) and slot, or
 * NULL when all are in flight (reap first). */
u8 *vnet_tx_buffer(struct vnet *n, u16 *slot);

/* The frame area (after the header) of transmit slot `slot`. */
u8 *vnet_tx_frame(struct vnet *n, u16 slot);

/* Queue slot's frame of `len` bytes (not yet published).  -ENOSPC when
 * the ring is full, -EINVAL for a bad length. */
int vnet_tx_queue(struct vnet *n, u16 slot, u32 len);

/* Publish queued frames; true when the device asked for a kick. */
bool vnet_tx_publish(struct vnet *n);

/* Ring the transmit doorbell. */
void vnet_tx_kick(struct vnet *n);

/* Return completed transmit buffers to the free slots; how many. */
u32 vnet_tx_reap(struct vnet *n);

/* Take the next received frame into *f: 1 when one was taken, 0 when
 * none (or, mergeable, not all of its buffers) arrived yet, -EIO for a
 * frame whose num_buffers or length is impossible (its buffers are in
 * *f all the same: release them). */
int vnet_rx_poll(struct vnet *n, struct vnet_rx_frame *f);

/* Give a frame's receive buffers back and publish them; kicks only when
 * the device asks (EVENT_IDX / NO_NOTIFY).  Returns 0 or -ENOSPC. */
int vnet_rx_release(struct vnet *n, const struct vnet_rx_frame *f);

/* Receive buffers the device currently holds. */
u16 vnet_rx_posted(const struct vnet *n);

/* Receive buffers a frame of `len` bytes takes (1 on the normal path). */
u32 vnet_rx_bufs_per_frame(const struct vnet *n, u32 len);

/* The receive layout the negotiated features give: mergeable buffers or
 * not, header length (legacy 10 B, else 12), buffer size (vnet_init). */
void vnet_set_layout(struct vnet *n, u64 features);

/* Post every receive buffer (n->rx set up, n->rx_bufs VIRTQ_MAX_SIZE x
 * n->rx_buf_size) and publish them (vnet_init). */
int vnet_rx_fill(struct vnet *n);

#endif
