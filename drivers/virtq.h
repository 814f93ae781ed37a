/*
 * drivers/virtq.h - the split virtqueue (virtio 1.x, section 2.7): a
 * descriptor table, the available ring the driver fills and the used ring
 * the device fills, plus VIRTIO_F_EVENT_IDX (2.7.7, 2.7.10).  Pure
 * bookkeeping over memory given by the caller: no port or MMIO access, so
 * it compiles into host unit tests (tests/host/c/test_virtq.c).  Addresses
 * handed to the device are the pointers themselves (identity mapping).
 */
#ifndef DRIVERS_VIRTQ_H
#define DRIVERS_VIRTQ_H

#include "lib/types.h"

#define VIRTQ_DESC_F_NEXT      1   /* chain continues at `next` */
#define VIRTQ_DESC_F_WRITE     2   /* device writes this buffer */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY 1
#define VIRTQ_MAX_SIZE         256 /* the largest queue we drive */
#define VIRTQ_ALIGN            4096 /* legacy: used ring on its own page */

struct virtq_desc {
	u64 addr;      /* guest-physical address of the buffer */
	u32 len;       /* its length in bytes */
	u16 flags;     /* VIRTQ_DESC_F_* */
	u16 next;      /* next descriptor when F_NEXT */
};
_Static_assert(sizeof(struct virtq_desc) == 16, "virtq_desc is 16 bytes");

struct virtq_avail {
	u16 flags;     /* VIRTQ_AVAIL_F_NO_INTERRUPT */
	u16 idx;       /* where the driver puts the next entry (free-running) */
	u16 ring[];    /* heads of chains; then u16 used_event */
};
_Static_assert(sizeof(struct virtq_avail) == 4, "virtq_avail header is 4 bytes");

struct virtq_used_elem {
	u32 id;        /* head of the chain the device used */
	u32 len;       /* bytes it wrote into the chain */
};
_Static_assert(sizeof(struct virtq_used_elem) == 8, "used_elem is 8 bytes");

struct virtq_used {
	u16 flags;     /* VIRTQ_USED_F_NO_NOTIFY */
	u16 idx;       /* where the device puts the next entry (free-running) */
	struct virtq_used_elem ring[];   /* then u16 avail_event */
};
_Static_assert(sizeof(struct virtq_used) == 4, "virtq_used header is 4 bytes");

/* One buffer of a chain. */
struct virtq_buf {
	void *addr;
	u32 len;
	bool device_writes;
};

struct virtq {
	u16 num;               /* queue size, a power of 2 */
	u16 num_free;          /* descriptors on the free list */
	u16 free_head;         /* first free descriptor */
	u16 avail_shadow;      /* our next avail idx, not yet published */
	u16 avail_published;   /* avail->idx as the device last saw it */
	u16 last_used;         /* next used entry to consume */
	bool event_idx;        /* VIRTIO_F_EVENT_IDX negotiated */
	struct virtq_desc *desc;
	struct virtq_avail *avail;
	struct virtq_used *used;
	void *token[VIRTQ_MAX_SIZE];   /* caller's cookie per chain head */
	u64 kicks_needed;      /* publish() answers "kick" */
	u64 kicks_suppressed;  /* publish() answers "no kick" */
};

/* Bytes of ring memory for `num` entries in the legacy layout (desc,
 * avail, padding to VIRTQ_ALIGN, used); also valid for modern devices. */
size_t virtq_mem_size(u16 num);

/* Lay out a queue in zeroed, VIRTQ_ALIGN-aligned memory.  -EINVAL when num
 * is 0, not a power of 2 or above VIRTQ_MAX_SIZE. */
int virtq_init(struct virtq *q, u16 num, void *mem, bool event_idx);

/* Put a chain of `n` buffers on the available ring (not yet visible to
 * the device: see virtq_publish).  -ENOSPC when descriptors are short,
 * -EINVAL for n == 0.  Device-readable buffers must come first. */
int virtq_add(struct virtq *q, const struct virtq_buf *bufs, u32 n, void *token);

/* Make added chains visible (avail->idx) and say whether the device wants
 * a notification: the spec's vring_need_event() with EVENT_IDX, else the
 * used ring's NO_NOTIFY flag.  Returns false when nothing was added. */
bool virtq_publish(struct virtq *q);

/* Take one used chain: its token (NULL when the used ring has nothing
 * new) and, through len, the bytes the device wrote.  Frees its
 * descriptors. */
void *virtq_get(struct virtq *q, u32 *len);

/* The next used chain's token and length without taking it (NULL when
 * the used ring has nothing new): lets a driver look at a header before
 * deciding how many chains belong together (VIRTIO_NET_F_MRG_RXBUF). */
void *virtq_peek(struct virtq *q, u32 *len);

/* Chains the device has returned that virtq_get has not taken yet. */
u16 virtq_used_pending(const struct virtq *q);

/* Driver's used_event (in the available ring) and device's avail_event
 * (in the used ring), VIRTIO_F_EVENT_IDX. */
volatile u16 *virtq_used_event(struct virtq *q);
volatile u16 *virtq_avail_event(struct virtq *q);

/* virtio 1.x 2.7.10.1: the device wants a notification when the driver
 * moved the index from old to new_idx past event_idx.  All u16 modular. */
static inline bool virtq_need_event(u16 event_idx, u16 new_idx, u16 old)
{
	return (u16)(new_idx - event_idx - 1) < (u16)(new_idx - old);
}

u64 virtq_desc_addr(const struct virtq *q);
u64 virtq_avail_addr(const struct virtq *q);
u64 virtq_used_addr(const struct virtq *q);

#endif
