/*
 * tests/host/c/test_virtq.c - the split virtqueue bookkeeping of
 * drivers/virtq.c on the host: add/get, free-list reuse, wrap-around of
 * the 16-bit ring indices, and the EVENT_IDX "need kick" decision against
 * the spec's definition (virtio 1.x, 2.7.10).  The test plays the device.
 */
#include "tests/host/c/check.h"
#include "drivers/virtq.h"

#define QMEM_MAX (3 * 4096 * 4)

static u8 qmem[QMEM_MAX] __attribute__((aligned(4096)));
static u8 bufs[VIRTQ_MAX_SIZE][64];

static void fresh(struct virtq *q, u16 num, bool event_idx)
{
	memset(qmem, 0, sizeof(qmem));
	CHECK_EQ_S64(virtq_init(q, num, qmem, event_idx), 0);
}

/* The device's side: take the next available chain and return it used. */
static bool device_use_one(struct virtq *q, u16 *dev_avail, u32 written)
{
	u16 head, used_idx;

	if (q->avail->idx == *dev_avail)
		return false;
	head = q->avail->ring[*dev_avail % q->num];
	(*dev_avail)++;
	used_idx = q->used->idx;
	q->used->ring[used_idx % q->num].id = head;
	q->used->ring[used_idx % q->num].len = written;
	q->used->idx = used_idx + 1;
	return true;
}

static int add_one(struct virtq *q, u32 i, bool writes)
{
	struct virtq_buf b = { bufs[i % VIRTQ_MAX_SIZE], 64, writes };

	return virtq_add(q, &b, 1, bufs[i % VIRTQ_MAX_SIZE]);
}

static void test_init(void)
{
	struct virtq q;

	CHECK_EQ_S64(virtq_init(&q, 0, qmem, false), -EINVAL);
	CHECK_EQ_S64(virtq_init(&q, 3, qmem, false), -EINVAL);
	CHECK_EQ_S64(virtq_init(&q, 512, qmem, false), -EINVAL);
	fresh(&q, 256, false);
	/* legacy layout: desc 4096 B, avail 518 B, used on the next page */
	CHECK_EQ_U64(virtq_desc_addr(&q), (uintptr_t)qmem);
	CHECK_EQ_U64(virtq_avail_addr(&q) - virtq_desc_addr(&q), 4096);
	CHECK_EQ_U64(virtq_used_addr(&q) - virtq_desc_addr(&q), 8192);
	CHECK_EQ_U64(virtq_mem_size(256), 8192 + 4096);
	CHECK_EQ_U64(virtq_mem_size(8), 4096 + 4096);
	CHECK_EQ_U64(q.num_free, 256);
	/* polling driver asks for no interrupts */
	CHECK_EQ_U64(q.avail->flags, VIRTQ_AVAIL_F_NO_INTERRUPT);
}

static void test_add_get(void)
{
	struct virtq q;
	struct virtq_buf chain[3] = {
		{ bufs[0], 10, false }, { bufs[1], 20, false }, { bufs[2], 30, true },
	};
	u16 dev = 0, head;
	u32 len = 0;

	fresh(&q, 8, false);
	CHECK_EQ_S64(virtq_add(&q, chain, 0, bufs[0]), -EINVAL);
	CHECK_EQ_S64(virtq_add(&q, chain, 3, chain), 0);
	CHECK_EQ_U64(q.num_free, 5);
	CHECK(virtq_get(&q, &len) == NULL);             /* nothing used yet */
	CHECK_EQ_U64(q.avail->idx, 0);                  /* not yet published */
	CHECK(virtq_publish(&q));
	CHECK_EQ_U64(q.avail->idx, 1);
	CHECK(!virtq_publish(&q));                      /* nothing new */
	head = q.avail->ring[0];
	CHECK_EQ_U64(q.desc[head].len, 10);
	CHECK_EQ_U64(q.desc[head].flags, VIRTQ_DESC_F_NEXT);
	CHECK_EQ_U64(q.desc[q.desc[head].next].len, 20);
	CHECK_EQ_U64(q.desc[q.desc[q.desc[head].next].next].flags, VIRTQ_DESC_F_WRITE);
	CHECK(device_use_one(&q, &dev, 30));
	CHECK_EQ_U64(virtq_used_pending(&q), 1);
	CHECK(virtq_get(&q, &len) == chain);
	CHECK_EQ_U64(len, 30);
	CHECK_EQ_U64(q.num_free, 8);
	CHECK(virtq_get(&q, &len) == NULL);
}

static void test_free_list_reuse(void)
{
	struct virtq q;
	u16 dev = 0, i, freed;
	u32 len;

	fresh(&q, 4, false);
	for (i = 0; i < 4; i++)
		CHECK_EQ_S64(add_one(&q, i, false), 0);
	CHECK_EQ_S64(add_one(&q, 4, false), -ENOSPC);
	virtq_publish(&q);
	freed = q.avail->ring[0];
	CHECK(device_use_one(&q, &dev, 0));
	CHECK(virtq_get(&q, &len) == bufs[0]);
	CHECK_EQ_U64(q.num_free, 1);
	CHECK_EQ_S64(add_one(&q, 5, false), 0);
	/* the freed descriptor is the one handed out again */
	CHECK_EQ_U64(q.avail->ring[4 % 4], freed);
	CHECK_EQ_U64(q.desc[freed].addr, (uintptr_t)bufs[5]);
	CHECK_EQ_S64(add_one(&q, 6, false), -ENOSPC);
}

/* 70000 chains through a 4-entry queue: both free-running indices wrap
 * past 0xffff and every token comes back in order. */
static void test_index_wrap(void)
{
	struct virtq q;
	u16 dev = 0;
	u32 i, len, bad = 0, got = 0, sent = 0;
	const u32 total = 70000;

	fresh(&q, 4, true);
	while (got < total) {
		while (sent < total && add_one(&q, sent, true) == 0)
			sent++;
		virtq_publish(&q);
		while (device_use_one(&q, &dev, dev & 63))
			;
		for (i = 0; i < 4; i++) {
			void *t = virtq_get(&q, &len);
			if (!t)
				break;
			if (t != bufs[got % VIRTQ_MAX_SIZE] || len != (got & 63))
				bad++;
			got++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(q.avail->idx, (u16)total);
	CHECK_EQ_U64(q.used->idx, (u16)total);
	CHECK_EQ_U64(q.last_used, (u16)total);
	CHECK_EQ_U64(q.num_free, 4);
	/* used_event stays far ahead of what was consumed: no interrupts */
	CHECK_EQ_U64(*virtq_used_event(&q), (u16)(total + 0x7fff));
}

/* The spec's meaning: kick iff the device's event index is one of the
 * entries this publish made visible, i.e. in [old, new) modulo 2^16. */
static bool reference_need(u16 event, u16 new_idx, u16 old)
{
	u16 k;

	for (k = old; k != new_idx; k++)
		if (k == event)
			return true;
	return false;
}

static void test_need_event_formula(void)
{
	static const u16 olds[] = { 0, 1, 100, 0x7fff, 0xfff0, 0xfffe, 0xffff };
	u32 mismatches = 0, o, step, ev;

	for (o = 0; o < ARRAY_SIZE(olds); o++)
		for (step = 1; step <= 40; step++)
			for (ev = 0; ev < 0x10000; ev += (ev % 257 == 0 ? 1 : 61)) {
				u16 old = olds[o], nw = old + step;
				if (virtq_need_event(ev, nw, old) != reference_need(ev, nw, old))
					mismatches++;
			}
	CHECK_EQ_U64(mismatches, 0);
	/* hand-checked corners: the spec's wrap-around arithmetic */
	CHECK(virtq_need_event(0xffff, 0x0000, 0xffff));
	CHECK(!virtq_need_event(0x0000, 0x0000, 0xffff));
	CHECK(virtq_need_event(0x0000, 0x0001, 0xffff));
	CHECK(!virtq_need_event(5, 5, 5));
}

/* publish() applies the formula to the device's avail_event, and the
 * NO_NOTIFY flag without EVENT_IDX. */
static void test_publish_decisions(void)
{
	struct virtq q;
	u32 i;
	u16 old;
	bool kick;

	fresh(&q, 256, true);
	for (i = 0; i < 3000; i++) {
		u16 event = (u16)(i * 7919u);
		u32 n = 1 + i % 5;
		*virtq_avail_event(&q) = event;
		old = q.avail->idx;
		while (n--) {
			struct virtq_buf b = { bufs[0], 1, false };
			CHECK_EQ_S64(virtq_add(&q, &b, 1, bufs[0]), 0);
		}
		kick = virtq_publish(&q);
		CHECK(kick == reference_need(event, q.avail->idx, old));
		while (q.num_free < 256 - 16) {       /* device returns them */
			q.used->ring[q.used->idx % 256].id = q.avail->ring[q.last_used % 256];
			q.used->idx++;
			virtq_get(&q, NULL);
		}
	}
	CHECK_EQ_U64(q.kicks_needed + q.kicks_suppressed, 3000);
	CHECK(q.kicks_needed > 0 && q.kicks_suppressed > 0);

	fresh(&q, 8, false);
	add_one(&q, 0, false);
	CHECK(virtq_publish(&q));
	q.used->flags = VIRTQ_USED_F_NO_NOTIFY;
	add_one(&q, 1, false);
	CHECK(!virtq_publish(&q));
	q.used->flags = 0;
	add_one(&q, 2, false);
	CHECK(virtq_publish(&q));
}

static void test_bad_used_id(void)
{
	struct virtq q;
	u32 len;

	fresh(&q, 8, false);
	add_one(&q, 0, false);
	virtq_publish(&q);
	q.used->ring[0].id = 200;       /* out of range: ignored, no crash */
	q.used->idx = 1;
	CHECK(virtq_get(&q, &len) == NULL);
	CHECK_EQ_U64(q.num_free, 7);
}

/* A used id equal to the queue size is out of range too, even where the
 * token array beyond the queue holds something (its room is sized for
 * VIRTQ_MAX_SIZE; with a 256-entry queue token[256] is past the array). */
static void test_used_id_equal_to_size(void)
{
	struct virtq q;
	u32 len;

	fresh(&q, 8, false);
	add_one(&q, 0, false);
	virtq_publish(&q);
	q.token[8] = bufs[3];           /* stale memory right past the queue */
	q.used->ring[0].id = 8;
	q.used->idx = 1;
	CHECK(virtq_peek(&q, &len) == NULL);
	CHECK(virtq_get(&q, &len) == NULL);
	CHECK_EQ_U64(q.num_free, 7);
	CHECK(q.token[8] == bufs[3]);
}

int main(void)
{
	RUN(test_init, "virtq: init checks size, legacy layout, no interrupts");
	RUN(test_add_get, "virtq: add chain, publish, get with length");
	RUN(test_free_list_reuse, "virtq: full queue -ENOSPC, freed descriptor reused");
	RUN(test_index_wrap, "virtq: 16-bit avail/used indices wrap (70000 chains)");
	RUN(test_need_event_formula, "virtq: need_event matches the spec definition");
	RUN(test_publish_decisions, "virtq: publish kicks per avail_event / NO_NOTIFY");
	RUN(test_bad_used_id, "virtq: out-of-range used id ignored");
	RUN(test_used_id_equal_to_size, "virtq: used id == queue size ignored");
	return check_summary();
}
