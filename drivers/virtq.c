/*
 * drivers/virtq.c - split virtqueue bookkeeping (virtio 1.x, 2.7): free
 * list of descriptors, publishing the available ring, consuming the used
 * ring, and the notification decisions of 2.7.7 / 2.7.10 with
 * VIRTIO_F_EVENT_IDX.  Barriers come from arch/x86/barrier.h (a host
 * version exists), so this file builds into tests/host/c/test_virtq.c.
 * Exercised in QEMU by `-device virtio-net-pci` (drivers/virtio_net.c).
 */
#include "drivers/virtq.h"
#include "arch/x86/barrier.h"

#define VIRTQ_EVENT_BYTES 2    /* used_event / avail_event after a ring */
#define VIRTQ_NO_DESC     0xffff
/* used_event this far ahead of what we consumed: the device never
 * reaches it, so a polling driver gets no interrupts (2.7.10) */
#define VIRTQ_IRQ_FAR     0x7fff

/* Shared fields: read and written once each, never cached by the compiler */
static inline u16 read16(const volatile u16 *p)
{
	return *p;
}

static inline void write16(volatile u16 *p, u16 v)
{
	*p = v;
}

static size_t avail_bytes(u16 num)
{
	return sizeof(struct virtq_avail) + (size_t)num * sizeof(u16) + VIRTQ_EVENT_BYTES;
}

static size_t used_bytes(u16 num)
{
	return sizeof(struct virtq_used) + (size_t)num * sizeof(struct virtq_used_elem) +
	       VIRTQ_EVENT_BYTES;
}

/* We poll: tell the device not to interrupt (flag without EVENT_IDX,
 * used_event out of reach with it). */
static void quiet_interrupts(struct virtq *q)
{
	if (q->event_idx)
		write16(virtq_used_event(q), (u16)(q->last_used + VIRTQ_IRQ_FAR));
	else
		write16(&q->avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
}

size_t virtq_mem_size(u16 num)
{
	size_t first = (size_t)num * sizeof(struct virtq_desc) + avail_bytes(num);

	return ALIGN_UP(first, (size_t)VIRTQ_ALIGN) + ALIGN_UP(used_bytes(num), (size_t)VIRTQ_ALIGN);
}

int virtq_init(struct virtq *q, u16 num, void *mem, bool event_idx)
{
	u8 *base = mem;
	size_t first;
	u16 i;

	if (!num || num > VIRTQ_MAX_SIZE || (num & (num - 1)))
		return -EINVAL;
	first = (size_t)num * sizeof(struct virtq_desc) + avail_bytes(num);
	q->num = num;
	q->desc = (struct virtq_desc *)base;
	q->avail = (struct virtq_avail *)(base + (size_t)num * sizeof(struct virtq_desc));
	q->used = (struct virtq_used *)(base + ALIGN_UP(first, (size_t)VIRTQ_ALIGN));
	q->event_idx = event_idx;
	q->free_head = 0;
	q->num_free = num;
	q->avail_shadow = q->avail_published = q->last_used = 0;
	q->kicks_needed = q->kicks_suppressed = 0;
	for (i = 0; i < num; i++) {
		q->desc[i].next = i + 1 < num ? i + 1 : VIRTQ_NO_DESC;
		q->desc[i].flags = 0;
		q->token[i] = NULL;
	}
	quiet_interrupts(q);
	return 0;
}

volatile u16 *virtq_used_event(struct virtq *q)
{
	return (volatile u16 *)&q->avail->ring[q->num];
}

volatile u16 *virtq_avail_event(struct virtq *q)
{
	return (volatile u16 *)&q->used->ring[q->num];
}

int virtq_add(struct virtq *q, const struct virtq_buf *bufs, u32 n, void *token)
{
	u16 head = q->free_head, d = head, last = head;
	u32 i;

	if (!n)
		return -EINVAL;
	if (n > q->num_free)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		q->desc[d].addr = (u64)(uintptr_t)bufs[i].addr;
		q->desc[d].len = bufs[i].len;
		q->desc[d].flags = (bufs[i].device_writes ? VIRTQ_DESC_F_WRITE : 0) |
				   (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0);
		last = d;
		d = q->desc[d].next;
	}
	q->free_head = q->desc[last].next;
	q->num_free -= n;
	q->token[head] = token;
	/* 2.7.13.2: the head goes into the next ring slot; idx moves later */
	q->avail->ring[q->avail_shadow & (q->num - 1)] = head;
	q->avail_shadow++;
	return 0;
}

bool virtq_publish(struct virtq *q)
{
	u16 old = q->avail_published, new_idx = q->avail_shadow;
	bool kick;

	if (old == new_idx)
		return false;
	/* 2.7.13.3: descriptors and ring entries before the index */
	virt_wmb();
	write16(&q->avail->idx, new_idx);
	q->avail_published = new_idx;
	/* 2.7.13.4: the index store before reading the suppression fields */
	virt_mb();
	if (q->event_idx)
		kick = virtq_need_event(read16(virtq_avail_event(q)), new_idx, old);
	else
		kick = !(read16(&q->used->flags) & VIRTQ_USED_F_NO_NOTIFY);
	if (kick)
		q->kicks_needed++;
	else
		q->kicks_suppressed++;
	return kick;
}

u16 virtq_used_pending(const struct virtq *q)
{
	return (u16)(read16(&q->used->idx) - q->last_used);
}

static void free_chain(struct virtq *q, u16 head)
{
	u16 d = head, n = 1;

	while ((q->desc[d].flags & VIRTQ_DESC_F_NEXT) && n < q->num) {
		d = q->desc[d].next;
		n++;
	}
	q->desc[d].next = q->free_head;
	q->free_head = head;
	q->num_free += n;
}

/* The next used entry, or false when the device returned nothing new. */
static bool next_used(struct virtq *q, struct virtq_used_elem *e)
{
	if (read16(&q->used->idx) == q->last_used)
		return false;
	/* 2.7.14: read the ring entry only after seeing the index */
	virt_rmb();
	*e = ((volatile struct virtq_used_elem *)q->used->ring)[q->last_used & (q->num - 1)];
	return true;
}

void *virtq_peek(struct virtq *q, u32 *len)
{
	struct virtq_used_elem e;

	if (!next_used(q, &e) || e.id >= q->num)
		return NULL;
	if (len)
		*len = e.len;
	return q->token[e.id];
}

void *virtq_get(struct virtq *q, u32 *len)
{
	struct virtq_used_elem e;
	void *token;

	if (!next_used(q, &e))
		return NULL;
	q->last_used++;
	if (e.id >= q->num || !q->token[e.id])
		return NULL;          /* a device bug: never a wild pointer */
	token = q->token[e.id];
	q->token[e.id] = NULL;
	free_chain(q, (u16)e.id);
	if (len)
		*len = e.len;
	quiet_interrupts(q);
	return token;
}

u64 virtq_desc_addr(const struct virtq *q)
{
	return (u64)(uintptr_t)q->desc;
}

u64 virtq_avail_addr(const struct virtq *q)
{
	return (u64)(uintptr_t)q->avail;
}

u64 virtq_used_addr(const struct virtq *q)
{
	return (u64)(uintptr_t)q->used;
}
