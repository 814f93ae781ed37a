/*
 * kernel/suites/virtio.c - suite "virtio": what a virtio notification
 * ("kick") costs and how many packets per second a split ring moves with
 * three kick policies, through two virtio-net NICs on one QEMU hub:
 *   -netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0
 *   -netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1
 * (tools/trapmeter adds both when the virtio suite is selected).  The
 * guest transmits on NIC A and receives on NIC B.
 *
 * Cases, per frame size (64 ... 1500 bytes, Ethernet without FCS):
 *   net.SIZE.each     publish and kick after every frame
 *   net.SIZE.batch32  publish and kick once per 32 frames
 *   net.SIZE.event    publish every frame, kick only when the device asks
 *                     (VIRTIO_F_EVENT_IDX avail_event, virtio 1.x 2.7.10)
 *   kick.alone        the transmit doorbell write by itself (nothing new
 *                     on the ring): one exit per kick
 *   kick.alone.nic_b  the same on NIC B (a boot may set its ioeventfd
 *                     differently, e.g. tests/boot/test_virtio.py)
 *   kick.interleaved  A and B kicked alternately, each timed alone: a
 *                     {"type":"virtio_kicks"} line with both distributions
 * Controls (docs/design.md, "Timing"): a kick's is the notify lookup with
 * a RAM store for the doorbell; a packet op's the guest's own work on its
 * frames (header stores, receive checks) with no ring and no device.
 * Every frame carries a sequence number and a checksum of its payload;
 * the receiver checks order, length and payload.  The sender never has
 * more frames in flight than NIC B has receive buffers, so nothing is
 * dropped by design: the "virtio.packets" check wants 0 lost, 0 corrupt.
 *
 * The same cases run against a vhost-user backend that forwards NIC A's
 * frames to NIC B (DPDK testpmd, tools/trapmeter --virtio-backend
 * vhost-user).  Such a backend may start forwarding a moment after
 * DRIVER_OK, so before any case the suite sends probe frames until one
 * comes back (bounded; "virtio.link").  virtio_path=normal|mergeable picks
 * the receive path (VIRTIO_NET_F_MRG_RXBUF with 512-byte buffers).  The
 * guest PMD's SIMD ("vector") path of the DPDK regression has no
 * counterpart: this kernel uses no SSE.
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "kernel/console.h"
#include "lib/stats.h"
#include "kernel/suites/netframe.h"
#include "drivers/pci.h"
#include "drivers/virtio_pci.h"
#include "drivers/virtio_net.h"
#include "arch/x86/tsc.h"
#include "arch/x86/cpu.h"

#define SUITE             "virtio"
#define ETHERTYPE_TM      0x88b5     /* IEEE local experimental */
#define BATCH             32
#define STALL_TIMEOUT_MS  3000       /* no progress this long: FLOW_ESTALL */
#define LINK_TIMEOUT_MS   10000      /* no probe back this long: FLOW_ENOLINK */
#define PROBE_WAIT_MS     50         /* per probe frame */
#define PROBE_SEQ         0xffffffffu  /* marks a probe frame */
#define PROBE_SIZE        64
#define FLOW_ESTALL       2001       /* named errors of the flow (negated) */
#define FLOW_ENOLINK      2002
#define FLOW_EBADRX       2003
#define SEQ_MUL           0x85ebca6bu
#define MAX_CASES         32
#define PAIR_ROUNDS       512        /* kick.interleaved: A, B, A, B, ... */
#define PAIR_CASE         "kick.interleaved"
/* a side's kicks in its "virtio_kicks" record */
#define PAIR_STATS        (JW_STATS_MIN | JW_STATS_P10 | JW_STATS_MEDIAN | JW_STATS_P90)
#define FRAME_BROKEN      1u         /* frame_faults() */
#define FRAME_CORRUPT     2u
#define CTL_FRAME_MAX     1536       /* the control's frame: the largest size */

enum policy { POLICY_EACH, POLICY_BATCH, POLICY_EVENT };
static const char *const policy_names[] = { "each", "batch32", "event" };
static const u32 sizes[] = { 64, 128, 260, 520, 1024, 1500 };
/* the packet cases by size and policy, as sizes[] and policy_names[] */
static const char *const net_names[][ARRAY_SIZE(policy_names)] = {
	{ "net.64.each", "net.64.batch32", "net.64.event" },
	{ "net.128.each", "net.128.batch32", "net.128.event" },
	{ "net.260.each", "net.260.batch32", "net.260.event" },
	{ "net.520.each", "net.520.batch32", "net.520.event" },
	{ "net.1024.each", "net.1024.batch32", "net.1024.event" },
	{ "net.1500.each", "net.1500.batch32", "net.1500.event" },
};
_Static_assert(ARRAY_SIZE(net_names) == ARRAY_SIZE(sizes), "virtio: a name row per size");

struct flow {
	u64 sent, received, corrupt, out_of_order;
	u32 next_seq;          /* sequence number the receiver expects */
	u32 size;              /* frame size of the running case */
	u32 pattern_csum;      /* checksum of the payload pattern at `size` */
	int error;             /* first error: the flow stops */
};

struct case_stats {
	u64 sent, received, kicks, rx_kicks, bad;
};

static struct vnet nic_a, nic_b;
static struct flow flow;
static struct pci_dev pci_devs[PCI_MAX_DEVICES];
static struct bench_case cases[MAX_CASES];
static struct case_stats case_start;     /* counters when the case began */
static u32 n_cases;
static u64 pair_cycles[2][PAIR_ROUNDS];
/* What the controls touch in place of a doorbell and of the rings: a RAM
 * word, and one frame of the running size in RAM (see op_packets_control) */
static volatile u16 ctl_doorbell;
static volatile u32 ctl_faults;
static u8 ctl_frame[CTL_FRAME_MAX];

/* ---- frames ----------------------------------------------------------- */

static u32 frame_csum(u32 pattern_csum, u32 seq, u32 size)
{
	return pattern_csum ^ (seq * SEQ_MUL) ^ size;
}

static u8 pattern_byte(u32 i)
{
	return (u8)(i * 13 + (i >> 7) + 0xa5);
}

/* Write the constant part of a frame (addresses, type, pattern). */
static void frame_template(u8 *f, u32 size)
{
	u32 i;

	kmemcpy(f, nic_b.mac, VNET_ETH_ALEN);
	kmemcpy(f + VNET_ETH_ALEN, nic_a.mac, VNET_ETH_ALEN);
	f[NETFRAME_OFF_ETHERTYPE] = ETHERTYPE_TM >> 8;
	f[NETFRAME_OFF_ETHERTYPE + 1] = ETHERTYPE_TM & 0xff;
	netframe_wr32(f + NETFRAME_OFF_LEN, size);
	for (i = NETFRAME_OFF_PAYLOAD; i < size; i++)
		f[i] = pattern_byte(i);
}

/* Every transmit buffer gets the template of the new size (not timed;
 * all buffers are back from the device between cases). */
static void prepare_size(u32 size)
{
	u8 *first = vnet_tx_frame(&nic_a, 0);
	u16 slot;

	flow.size = size;
	frame_template(first, size);
	for (slot = 1; slot < nic_a.tx.num; slot++)
		kmemcpy(vnet_tx_frame(&nic_a, slot), first, size);
	flow.pattern_csum = netframe_csum(first + NETFRAME_OFF_PAYLOAD, size - NETFRAME_OFF_PAYLOAD);
	frame_template(ctl_frame, size);
}

/* ---- the flow: send on A, receive on B --------------------------------- */

/* Frames the sender may still offer: never more than B's posted receive
 * buffers minus what is already on its way. */
static u32 credit(void)
{
	u64 in_flight = flow.sent - flow.received;
	u32 posted = vnet_rx_posted(&nic_b) / vnet_rx_bufs_per_frame(&nic_b, flow.size);

	if (in_flight >= posted)
		return 0;
	return posted - (u32)in_flight < nic_a.tx_free_n ? posted - (u32)in_flight
							 : nic_a.tx_free_n;
}

static int send_one(void)
{
	u16 slot;
	u8 *f = vnet_tx_buffer(&nic_a, &slot);
	u32 seq = (u32)flow.sent;

	if (!f)
		return -ENOSPC;
	netframe_wr32(f + NETFRAME_OFF_SEQ, seq);
	netframe_wr32(f + NETFRAME_OFF_CSUM, frame_csum(flow.pattern_csum, seq, flow.size));
	flow.sent++;
	return vnet_tx_queue(&nic_a, slot, flow.size);
}

/* The payload checksum over a frame's pieces (header fields in piece 0). */
static u32 frame_payload_csum(const struct vnet_rx_frame *f)
{
	struct netframe_csum c;
	u16 i;

	netframe_csum_init(&c, f->len - NETFRAME_OFF_PAYLOAD);
	netframe_csum_feed(&c, f->data[0] + NETFRAME_OFF_PAYLOAD, f->frag_len[0] - NETFRAME_OFF_PAYLOAD);
	for (i = 1; i < f->nfrags; i++)
		netframe_csum_feed(&c, f->data[i], f->frag_len[i]);
	return netframe_csum_final(&c);
}

/* A frame against what the sender wrote: FRAME_BROKEN (not one of ours
 * at this size: no sequence number to trust), FRAME_CORRUPT (header or
 * payload checksum wrong) or 0; *seq its sequence number. */
static u32 frame_faults(const struct vnet_rx_frame *f, u32 *seq)
{
	const u8 *h = f->data[0];

	if (f->len != flow.size || f->frag_len[0] < NETFRAME_OFF_PAYLOAD ||
	    kmemcmp(h, nic_b.mac, VNET_ETH_ALEN) != 0 ||
	    h[NETFRAME_OFF_ETHERTYPE] != ETHERTYPE_TM >> 8 ||
	    netframe_rd32(h + NETFRAME_OFF_LEN) != flow.size)
		return FRAME_BROKEN;
	*seq = netframe_rd32(h + NETFRAME_OFF_SEQ);
	if (netframe_rd32(h + NETFRAME_OFF_CSUM) != frame_csum(flow.pattern_csum, *seq, flow.size) ||
	    frame_payload_csum(f) != flow.pattern_csum)
		return FRAME_CORRUPT;
	return 0;
}

/* Is this the frame we expect next, whole and unchanged? */
static void check_frame(const struct vnet_rx_frame *f)
{
	u32 seq = 0, faults = frame_faults(f, &seq);

	if (faults == FRAME_BROKEN) {
		flow.corrupt++;
		flow.next_seq++;
		return;
	}
	if (faults)
		flow.corrupt++;
	if (seq != flow.next_seq)
		flow.out_of_order++;
	flow.next_seq = seq + 1;
}

static u32 receive_all(void)
{
	struct vnet_rx_frame f;
	u32 got = 0;
	int r;

	while ((r = vnet_rx_poll(&nic_b, &f)) != 0) {
		if (r < 0)
			flow.corrupt++;
		else
			check_frame(&f);
		flow.received++;
		got++;
		if (vnet_rx_release(&nic_b, &f) != 0 && !flow.error)
			flow.error = -ENOSPC;
	}
	return got;
}

/* Offer up to `n` frames (credit permitting) and notify per policy. */
static u32 offer(u32 n, enum policy p)
{
	u32 burst = p == POLICY_BATCH ? BATCH : 1, done = 0, i, c;

	while (done < n) {
		c = n - done < burst ? n - done : burst;
		if (credit() < c)
			break;
		for (i = 0; i < c; i++)
			if (send_one() != 0 && !flow.error)
				flow.error = -ENOSPC;
		done += c;
		if (vnet_tx_publish(&nic_a) || p != POLICY_EVENT)
			vnet_tx_kick(&nic_a);
	}
	return done;
}

/* Move `count` more frames through and wait until all have arrived;
 * bounded: STALL_TIMEOUT_MS without progress ends the flow. */
static void pump(u64 count, enum policy p)
{
	u64 goal = flow.sent + count, last = tsc_begin();
	u64 stall = (u64)STALL_TIMEOUT_MS * tsc.khz, left;
	u32 moved;

	while (!flow.error && flow.received < goal) {
		left = goal - flow.sent;
		moved = offer(left > VIRTQ_MAX_SIZE ? VIRTQ_MAX_SIZE : (u32)left, p);
		moved += vnet_tx_reap(&nic_a);
		moved += receive_all();
		if (moved) {
			last = tsc_begin();
		} else if (tsc_begin() - last > stall) {
			flow.error = vpci_check(&nic_a.vp) ?: vpci_check(&nic_b.vp) ?: -FLOW_ESTALL;
		} else {
			cpu_relax();
		}
	}
	vnet_tx_reap(&nic_a);
}

/* ---- cases -------------------------------------------------------------- */

/* One operation = BATCH frames, whatever the policy, so that all three
 * policies move the same bursts and per-frame figures divide by BATCH. */
static void op_packets(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	pump(iters * BATCH, (enum policy)c->arg);
}

/* arg 0: NIC A's transmit doorbell, 1: NIC B's (B never transmits, so
 * its queue stays empty; a boot may give the NICs different ioeventfd) */
static void op_kick(const struct bench_case *c, u8 *buf, u64 iters)
{
	const struct vpci_dev *v = c->arg ? &nic_b.vp : &nic_a.vp;

	(void)buf;
	while (iters--)
		vpci_notify(v, VNET_TX_QUEUE);
}

/* ---- controls: the guest's own work, no doorbell, no device ------------- */

/* vpci_notify's twin: the same call and notify lookup, a 16-bit RAM store
 * in place of the doorbell's outw or MMIO store. */
static __attribute__((noinline)) void notify_control(const struct vpci_dev *v, u16 index)
{
	const struct vpci_notify *n = &v->notify[index];

	ctl_doorbell = n->value;
}

static void op_kick_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	const struct vpci_dev *v = c->arg ? &nic_b.vp : &nic_a.vp;

	(void)buf;
	while (iters--)
		notify_control(v, VNET_TX_QUEUE);
}

/*
 * What the guest itself does with each frame of a packet op, on one frame
 * in RAM: the sender's header stores (sequence number, checksum) and the
 * receiver's checks (header, payload checksum over every byte), plus a
 * RAM store for each kick the policy's model makes (each: per frame,
 * batch32: per op, event: none).  Left out: the doorbells, the device and
 * the rings (a ring nothing consumes returns no buffers).
 */
static void op_packets_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct vnet_rx_frame f = { .len = flow.size, .nfrags = 1 };
	u32 i, seq;

	(void)buf;
	f.data[0] = ctl_frame;
	f.frag_len[0] = flow.size;
	while (iters--) {
		for (i = 0; i < BATCH; i++) {
			netframe_wr32(ctl_frame + NETFRAME_OFF_SEQ, i);
			netframe_wr32(ctl_frame + NETFRAME_OFF_CSUM, frame_csum(flow.pattern_csum, i, flow.size));
			ctl_faults += frame_faults(&f, &seq);
			if (c->arg == POLICY_EACH || (c->arg == POLICY_BATCH && i == BATCH - 1))
				notify_control(&nic_a.vp, VNET_TX_QUEUE);
		}
	}
}

static u32 model_packets(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	if (c->arg == POLICY_EACH)
		return BATCH;
	return c->arg == POLICY_BATCH ? 1 : 0;  /* event: see kicks_per_packet */
}

static const char *skip_failed_flow(const struct bench_case *c)
{
	(void)c;
	return flow.error ? "the packet flow stopped earlier (see check virtio.packets)" : NULL;
}

static const char *path_name(void)
{
	return nic_b.mrg ? "mergeable" : "normal";
}

static void extra_common(struct jw *w)
{
	jw_str(w, "virtio_transport", nic_a.vp.ops->name);
	jw_str(w, "virtio_path", path_name());
	jw_str(w, "virtio_notify", vpci_notify_name(&nic_a.vp, VNET_TX_QUEUE));
	jw_bool(w, "event_idx", nic_a.tx.event_idx);
}

static void snapshot(struct case_stats *s)
{
	s->sent = flow.sent;
	s->received = flow.received;
	s->kicks = nic_a.tx_kicks;
	s->rx_kicks = nic_b.rx_kicks;
	s->bad = flow.corrupt + flow.out_of_order;
}

/* The net median per op (case minus control, 0 when the control was the
 * slower): what a kick costs is divided from it, as cycles per exit are. */
static u64 net_per_op(const struct bench_result *r)
{
	if (!r->control.n)
		return r->cycles.median;
	return r->cycles.median > r->control.median ? r->cycles.median - r->control.median : 0;
}

/* Per-frame figures over everything the case moved (warm-up included);
 * throughput from the gross figure, the cost per kick from the net. */
static void extra_packets(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	struct case_stats now;
	u64 per_op = r->cycles.median, sent, kicks;

	snapshot(&now);
	sent = now.sent - case_start.sent;
	kicks = now.kicks - case_start.kicks;
	extra_common(w);
	jw_str(w, "policy", policy_names[c->arg]);
	jw_u64(w, "packet_bytes", c->bytes / BATCH);
	jw_u64(w, "packets_per_op", BATCH);
	jw_u64(w, "sent", sent);
	jw_u64(w, "received", now.received - case_start.received);
	jw_u64(w, "lost", sent - (now.received - case_start.received));
	jw_u64(w, "corrupt", now.bad - case_start.bad);
	jw_u64(w, "kicks", kicks);
	jw_u64(w, "rx_kicks", now.rx_kicks - case_start.rx_kicks);
	jw_dec(w, "cycles_per_packet", per_op, BATCH, 1);
	jw_dec(w, "kicks_per_packet", kicks, sent, 4);
	jw_dec(w, "cycles_per_kick", net_per_op(r) * sent, kicks * BATCH, 1);
	jw_dec(w, "packets_per_s", tsc.khz * 1000 * BATCH, per_op, 0);
}

static void extra_kick(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	(void)c;
	(void)r;
	extra_common(w);
}

static struct bench_case *add_case(const char *name)
{
	struct bench_case *c;

	if (n_cases == MAX_CASES)
		return NULL;
	c = &cases[n_cases];
	kmemset(c, 0, sizeof(*c));
	c->suite = SUITE;
	c->name = name;
	n_cases++;
	c->target = "virtio-net";
	c->handler = HANDLER_NONE;      /* KVM with ioeventfd=on, else QEMU */
	c->dir = DIR_OUT;
	c->method = METHOD_SINGLE;
	c->skip = skip_failed_flow;
	return c;
}

static void add_kick(const char *name, const struct vnet *n, u32 which)
{
	const struct vpci_notify *doorbell = &n->vp.notify[VNET_TX_QUEUE];
	struct bench_case *c = add_case(name);

	c->port = doorbell->kind == VPCI_NOTIFY_PIO ? doorbell->port : 0;
	c->width = 2;
	c->bytes = 2;
	c->arg = which;
	c->op = op_kick;
	c->control = op_kick_control;
	c->exits_model = bench_model_one;
	c->extra = extra_kick;
}

static void build_table(void)
{
	struct bench_case *c;
	u32 s, p;

	n_cases = 0;
	add_kick("kick.alone", &nic_a, 0);
	add_kick("kick.alone.nic_b", &nic_b, 1);
	for (s = 0; s < ARRAY_SIZE(sizes); s++)
		for (p = 0; p < ARRAY_SIZE(policy_names); p++) {
			c = add_case(net_names[s][p]);
			if (!c)
				return;
			c->target = "virtio-net.hub";
			c->bytes = sizes[s] * BATCH;
			c->arg = p;
			c->op = op_packets;
			c->control = op_packets_control;
			c->exits_model = model_packets;
			c->extra = extra_packets;
		}
}

/* ---- kick.interleaved ---------------------------------------------------- */

static u64 time_kick(const struct vpci_dev *v)
{
	u64 t0, t1;

	t0 = tsc_begin();
	vpci_notify(v, VNET_TX_QUEUE);
	t1 = tsc_end();
	return t1 - t0 > bench_timer_overhead ? t1 - t0 - bench_timer_overhead : 0;
}

/* NIC A's and NIC B's doorbells timed one kick at a time, alternating, so
 * that host noise hits both alike: the fair comparison when the two NICs
 * differ in one property (e.g. ioeventfd).  Emits {"type":"virtio_kicks"}. */
static void kick_interleaved(void)
{
	struct stats st[2];
	char line[512];
	struct jw w;
	u32 i, b_slower = 0;

	if (!cmdline_case_selected(bench_cfg, PAIR_CASE))
		return;
	for (i = 0; i < PAIR_ROUNDS; i++) {
		pair_cycles[0][i] = time_kick(&nic_a.vp);
		pair_cycles[1][i] = time_kick(&nic_b.vp);
		b_slower += pair_cycles[1][i] > pair_cycles[0][i];
	}
	stats_compute(pair_cycles[0], PAIR_ROUNDS, &st[0]);
	stats_compute(pair_cycles[1], PAIR_ROUNDS, &st[1]);
	jw_record(&w, line, sizeof(line), "virtio_kicks");
	jw_str(&w, "suite", SUITE);
	jw_str(&w, "case", PAIR_CASE);
	jw_u64(&w, "rounds", PAIR_ROUNDS);
	/* the rounds whose B kick took longer than the A kick just before it:
	 * a sign test of the pair that host noise, hitting both, cancels */
	jw_u64(&w, "b_slower", b_slower);
	jw_stats(&w, "nic_a", &st[0], PAIR_STATS);
	jw_stats(&w, "nic_b", &st[1], PAIR_STATS);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	kprintf("  %-30s A median %lu, B median %lu cycles per kick (%u rounds)\n",
		PAIR_CASE, st[0].median, st[1].median, PAIR_ROUNDS);
}

/* ---- set-up, run, checks ---------------------------------------------- */

/* The first two virtio-net functions; how many were found. */
static u32 find_nics(const struct pci_dev **a, const struct pci_dev **b)
{
	u32 n = pci_scan(pci_devs, PCI_MAX_DEVICES), i, found = 0;

	for (i = 0; i < n; i++) {
		if (!vpci_is_net(&pci_devs[i]))
			continue;
		if (found == 0)
			*a = &pci_devs[i];
		else if (found == 1)
			*b = &pci_devs[i];
		found++;
	}
	return found;
}

static void emit_info(void)
{
	char line[512];
	struct jw w;

	jw_record(&w, line, sizeof(line), "virtio");
	jw_str(&w, "transport", nic_a.vp.ops->name);
	jw_str(&w, "notify", vpci_notify_name(&nic_a.vp, VNET_TX_QUEUE));
	jw_hex(&w, "features", nic_a.vp.features);
	jw_bool(&w, "event_idx", nic_a.tx.event_idx);
	jw_u64(&w, "queue_size", nic_a.tx.num);
	jw_u64(&w, "hdr_len", nic_a.hdr_len);
	jw_str(&w, "path", path_name());
	jw_u64(&w, "rx_buf_size", nic_b.rx_buf_size);
	jw_hex(&w, "notify_addr", nic_a.vp.notify[VNET_TX_QUEUE].kind == VPCI_NOTIFY_PIO ?
	       nic_a.vp.notify[VNET_TX_QUEUE].port :
	       (u64)(uintptr_t)nic_a.vp.notify[VNET_TX_QUEUE].mmio);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	kprintf("  virtio-net: %s transport, %s notify at 0x%lx, features 0x%lx, queues of %u, %s receive path (%u-byte buffers)\n",
		nic_a.vp.ops->name, vpci_notify_name(&nic_a.vp, VNET_TX_QUEUE),
		nic_a.vp.notify[VNET_TX_QUEUE].kind == VPCI_NOTIFY_PIO ?
		(u64)nic_a.vp.notify[VNET_TX_QUEUE].port :
		(u64)(uintptr_t)nic_a.vp.notify[VNET_TX_QUEUE].mmio,
		nic_a.vp.features, nic_a.tx.num, path_name(), nic_b.rx_buf_size);
}

static const char *flow_strerror(int err)
{
	switch (-err) {
	case FLOW_ESTALL: return "no frame moved for 3000 ms (the device or backend stopped)";
	case FLOW_ENOLINK: return "no probe frame came back from NIC A to NIC B within 10 s "
				  "(the backend does not forward)";
	case FLOW_EBADRX: return "virtio_path=mergeable, but the device did not offer MRG_RXBUF";
	case ETIMEDOUT: return "the device kept transmit buffers for 3000 ms";
	default: return vpci_strerror(err);
	}
}

static int bring_up(const struct pci_dev *a, const struct pci_dev *b, bool mergeable)
{
	u64 extra = 1ull << VIRTIO_F_EVENT_IDX;
	char detail[160];
	int err;

	if (mergeable)
		extra |= 1ull << VIRTIO_NET_F_MRG_RXBUF;
	err = vnet_init(&nic_a, 0, a, true, extra);
	if (!err)
		err = vnet_init(&nic_b, 1, b, true, extra);
	if (!err && nic_a.vp.ops != nic_b.vp.ops)
		err = -ENODEV;
	if (!err && mergeable && !nic_b.mrg)
		err = -FLOW_EBADRX;
	if (err) {
		fmt_snprintf(detail, sizeof(detail), "virtio-net bring-up failed: %s (%d)",
			     flow_strerror(err), err);
		bench_check("virtio.init", false, detail);
	}
	return err;
}

/* Wait (bounded) until the device has returned every transmit buffer. */
static void drain_tx(void)
{
	u64 t0 = tsc_begin(), limit = (u64)STALL_TIMEOUT_MS * tsc.khz;

	while (nic_a.tx_free_n < nic_a.tx.num && !flow.error) {
		vnet_tx_reap(&nic_a);
		receive_all();
		if (tsc_begin() - t0 > limit)
			flow.error = -ETIMEDOUT;
	}
}

/* ---- link: probe frames until the backend forwards ------------------- */

static struct { u64 sent, received, first_ms; } probe;

static u32 take_probes(void)
{
	struct vnet_rx_frame f;
	u32 got = 0;

	vnet_tx_reap(&nic_a);
	while (vnet_rx_poll(&nic_b, &f) != 0) {
		got++;
		if (vnet_rx_release(&nic_b, &f) != 0)
			flow.error = -ENOSPC;
	}
	probe.received += got;
	return got;
}

static void send_probe(void)
{
	u16 slot;
	u8 *f = vnet_tx_buffer(&nic_a, &slot);

	if (!f)
		return;
	frame_template(f, PROBE_SIZE);
	netframe_wr32(f + NETFRAME_OFF_SEQ, PROBE_SEQ);
	if (vnet_tx_queue(&nic_a, slot, PROBE_SIZE) != 0)
		return;
	probe.sent++;
	vnet_tx_publish(&nic_a);
	vnet_tx_kick(&nic_a);
}

/* Poll for `ms` or until a probe arrives (stop_early). */
static void probe_wait(u64 ms, bool stop_early)
{
	u64 t0 = tsc_begin(), limit = ms * tsc.khz;

	while (tsc_begin() - t0 < limit && !flow.error)
		if (take_probes() && stop_early)
			return;
}

/* Probe frames, one per PROBE_WAIT_MS, until one comes back; then let
 * late ones drain.  Check "virtio.link". */
static void probe_link(void)
{
	u64 t0 = tsc_begin(), limit = (u64)LINK_TIMEOUT_MS * tsc.khz;
	char detail[160];

	kmemset(&probe, 0, sizeof(probe));
	while (!probe.received && !flow.error) {
		if (tsc_begin() - t0 > limit) {
			flow.error = -FLOW_ENOLINK;
			break;
		}
		send_probe();
		probe_wait(PROBE_WAIT_MS, true);
	}
	probe.first_ms = (tsc_begin() - t0) / tsc.khz;
	probe_wait(PROBE_WAIT_MS, false);
	fmt_snprintf(detail, sizeof(detail), "%lu probe frames sent, %lu came back, first after %lu ms%s%s",
		     probe.sent, probe.received, probe.first_ms, flow.error ? "; " : "",
		     flow.error ? flow_strerror(flow.error) : "");
	bench_check("virtio.link", !flow.error, detail);
}

/* Every frame each NIC moved, probes included: the runner compares these
 * with the backend's own port counters
 * (tools/trapmeterlib/backends/testpmd.py). */
static void emit_totals(void)
{
	char line[400];
	struct jw w;

	jw_record(&w, line, sizeof(line), "virtio_totals");
	jw_str(&w, "suite", SUITE);
	jw_str(&w, "path", path_name());
	jw_u64(&w, "nic_a_tx_frames", nic_a.tx_frames);
	jw_u64(&w, "nic_a_tx_bytes", nic_a.tx_bytes);
	jw_u64(&w, "nic_b_rx_frames", nic_b.rx_frames);
	jw_u64(&w, "nic_b_rx_bytes", nic_b.rx_bytes);
	jw_u64(&w, "nic_b_rx_buffers", nic_b.rx_bufs_used);
	jw_u64(&w, "nic_b_rx_bad", nic_b.rx_bad);
	jw_u64(&w, "probes_sent", probe.sent);
	jw_u64(&w, "probes_received", probe.received);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

static void report_flow(void)
{
	char detail[200];
	u64 lost = flow.sent - flow.received;
	bool ok = !flow.error && lost == 0 && flow.corrupt == 0 && flow.out_of_order == 0;

	fmt_snprintf(detail, sizeof(detail),
		     "sent %lu, received %lu, lost %lu, corrupt %lu, out of order %lu%s%s",
		     flow.sent, flow.received, lost, flow.corrupt, flow.out_of_order,
		     flow.error ? "; stopped: " : "", flow.error ? flow_strerror(flow.error) : "");
	bench_check("virtio.packets", ok, detail);
}

void suite_virtio(const struct tm_config *cfg)
{
	const struct pci_dev *a = NULL, *b = NULL;
	struct bench_result r;
	u32 i, found;

	bench_suite_begin(SUITE);
	found = find_nics(&a, &b);
	if (found < 2) {
		bench_skip(SUITE, "*", found ? "only one virtio-net NIC: the suite needs two on one hub (tools/trapmeter --suite virtio attaches them)"
					     : "no virtio-net device (tools/trapmeter --suite virtio attaches two)");
		return;
	}
	kmemset(&flow, 0, sizeof(flow));
	if (bring_up(a, b, cfg->virtio_mergeable) != 0)
		return;
	emit_info();
	probe_link();
	build_table();
	kick_interleaved();
	for (i = 0; i < n_cases; i++) {
		if (cases[i].op == op_packets && !flow.error &&
		    cases[i].bytes / BATCH != flow.size) {
			drain_tx();
			prepare_size(cases[i].bytes / BATCH);
		}
		snapshot(&case_start);
		bench_run(&cases[i], &r);
	}
	drain_tx();
	report_flow();
	emit_totals();
}
