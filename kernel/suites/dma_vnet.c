/*
 * kernel/suites/dma_vnet.c - suite dma's virtio-net cases (dma_vnet.h).
 *
 * NICs, the first three virtio-net functions in PCI order, as
 * tools/trapmeterlib/guest/virtio.py attaches them for suite dma:
 *   A, B  on hub 0 (-netdev hubport,hubid=0): A transmits, the hub hands
 *         the frame to B inside A's transmit flush (net/hub.c), B receives
 *   C     on hub 1 alone: QEMU reads C's frame and drops it
 * With --viommu intel the runner sets iommu_platform=on, the driver takes
 * VIRTIO_F_ACCESS_PLATFORM (virtio 1.x 6) and QEMU maps rings and buffers
 * through the NIC's DMA address space: the unit translates them.
 *
 * One op: stamp the frame's sequence number and checksum, put the chain on
 * the transmit ring (txrx: first a receive chain on B's), publish, kick
 * (the op's one exit), wait, bounded by time, for the used entries and
 * check them: tx the used id and length 0 (a transmit buffer is read, not
 * written), txrx the frame B got (length, address, type, length field,
 * sequence number, payload checksum: kernel/suites/netframe.h).  Buffers:
 *   plain  header and frame in one descriptor at a page start; B's
 *          receive buffer one 2 KiB descriptor at a page start
 *   chain  the header in its own descriptor, the frame in a second one
 *          starting size/2 before a page end; B's receive chain likewise
 *          (header, then a buffer crossing a page at the frame's middle)
 * The control does the same guest work on queues in RAM that no device
 * reads (the driver's ring stores, the used entry written by the control
 * itself, the checks on the frame as sent) with a RAM store for the
 * doorbell: no exit, no device.
 */
#include "kernel/suites/dma_vnet.h"
#include "kernel/suites/dma_vtd.h"
#include "kernel/suites/netframe.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/pci.h"
#include "drivers/virtio_pci.h"
#include "drivers/virtio_net.h"
#include "arch/x86/tsc.h"
#include "arch/x86/cpu.h"

#define KIB              1024u
#define PAGE             4096u
#define ETHERTYPE_DMA    0x88b6     /* IEEE local experimental 2 */
#define CSUM_SEQ_MUL     0x9e3779b1u
#define WAIT_US          2000000    /* one op's used entries */
#define FAULT_WAIT_US    200000
#define RX_PLAIN_BYTES   2048
#define CTL_QUEUE        16         /* the control's RAM queues */
#define MAX_CASES        48
#define NAME_LEN         40
#define NICS             3
#define AREA_PAGES       8

enum { NIC_A, NIC_B, NIC_C };
enum vnet_kind { K_TX, K_TXRX };

/* The case table: each name a reader greps for is written here once. */
struct vnet_def {
	const char *name;
	u8 kind;            /* enum vnet_kind */
	u32 size;           /* frame bytes, Ethernet without FCS */
	bool chain;         /* header and frame apart, the frame across a page */
};

static const struct vnet_def defs[] = {
	{ "vnet.tx.64",           K_TX,   64,   false },
	{ "vnet.tx.512",          K_TX,   512,  false },
	{ "vnet.tx.1514",         K_TX,   1514, false },
	{ "vnet.tx.64.chain",     K_TX,   64,   true },
	{ "vnet.tx.1514.chain",   K_TX,   1514, true },
	{ "vnet.txrx.64",         K_TXRX, 64,   false },
	{ "vnet.txrx.512",        K_TXRX, 512,  false },
	{ "vnet.txrx.1514",       K_TXRX, 1514, false },
	{ "vnet.txrx.64.chain",   K_TXRX, 64,   true },
	{ "vnet.txrx.1514.chain", K_TXRX, 1514, true },
};

struct vnet_state {
	const struct vnet_def *def;
	u8 mode;            /* enum dma_mode */
	u32 seq;            /* next frame's sequence number */
	u64 ops, checked, bad, lost;
	bool failed;
	char why[160];      /* the first failure */
};

/* One op's chains: transmit (header, frame) and receive buffers. */
struct chains {
	struct virtq_buf tx[2], rx[2];
	u32 ntx, nrx;
	u8 *frame;          /* the frame as sent */
	u8 *rx_frame;       /* where B's copy lands */
};

static struct vnet nics[NICS];
static bool nic_up[NICS];
static char nic_why[160];
static struct pci_dev pci_devs[PCI_MAX_DEVICES];
static u8 area[AREA_PAGES * PAGE] __attribute__((aligned(PAGE)));
static u8 ctl_mem[2][2 * PAGE] __attribute__((aligned(PAGE)));
static struct virtq ctl_tx, ctl_rx;
static volatile u16 ctl_doorbell;
static volatile u32 ctl_faults;
static struct chains ch;
static u32 pattern_csum;        /* of the running size's payload */
static bool broken;             /* a frame was lost: queues out of step */
static struct bench_case cases[MAX_CASES];
static struct vnet_state state[MAX_CASES];
static char names[MAX_CASES][NAME_LEN];
static struct bench_table table = BENCH_TABLE(cases, state);

static struct vnet_state *st_of(const struct bench_case *c)
{
	return c->priv;
}

static void fail(struct vnet_state *s, const char *why)
{
	if (!s->failed)
		fmt_snprintf(s->why, sizeof(s->why), "%s", why);
	s->failed = true;
}

static struct vnet *sender(const struct vnet_def *d)
{
	return &nics[d->kind == K_TX ? NIC_C : NIC_A];
}

static bool platform_dma(const struct vnet *n)
{
	return n->vp.features & (1ull << VIRTIO_F_ACCESS_PLATFORM);
}

/* ---- frames ---------------------------------------------------------------- */

static u32 seq_csum(u32 seq)
{
	return pattern_csum ^ (seq * CSUM_SEQ_MUL);
}

/* Addresses, type and payload pattern of a frame of `size` bytes. */
static void frame_fill(u8 *f, u32 size)
{
	u32 i;

	kmemcpy(f, nics[NIC_B].mac, VNET_ETH_ALEN);
	kmemcpy(f + VNET_ETH_ALEN, nics[NIC_A].mac, VNET_ETH_ALEN);
	f[NETFRAME_OFF_ETHERTYPE] = ETHERTYPE_DMA >> 8;
	f[NETFRAME_OFF_ETHERTYPE + 1] = ETHERTYPE_DMA & 0xff;
	netframe_wr32(f + NETFRAME_OFF_LEN, size);
	for (i = NETFRAME_OFF_PAYLOAD; i < size; i++)
		f[i] = (u8)(i * 29 + (i >> 5) + 0x3c);
}

static void frame_stamp(u8 *f, u32 seq)
{
	netframe_wr32(f + NETFRAME_OFF_SEQ, seq);
	netframe_wr32(f + NETFRAME_OFF_CSUM, seq_csum(seq));
}

/* Is f the frame with this sequence number, whole? */
static bool frame_ok(const u8 *f, u32 len, u32 size, u32 seq)
{
	return len == size && kmemcmp(f, nics[NIC_B].mac, VNET_ETH_ALEN) == 0 &&
	       f[NETFRAME_OFF_ETHERTYPE] == ETHERTYPE_DMA >> 8 &&
	       netframe_rd32(f + NETFRAME_OFF_LEN) == size &&
	       netframe_rd32(f + NETFRAME_OFF_SEQ) == seq &&
	       netframe_rd32(f + NETFRAME_OFF_CSUM) == seq_csum(seq) &&
	       netframe_csum(f + NETFRAME_OFF_PAYLOAD, size - NETFRAME_OFF_PAYLOAD) == pattern_csum;
}

/* The case's chains over `area` (layout in the file comment). */
static void lay_out(const struct vnet_def *d, u32 hdr_len)
{
	u8 *tx_frame = d->chain ? area + 3 * PAGE - d->size / 2 : area + hdr_len;
	u8 *rx_data = d->chain ? area + 7 * PAGE - d->size / 2 : area + 4 * PAGE;

	kmemset(&ch, 0, sizeof(ch));
	ch.frame = tx_frame;
	if (d->chain) {
		ch.tx[0] = (struct virtq_buf){ area + PAGE, hdr_len, false };
		ch.tx[1] = (struct virtq_buf){ tx_frame, d->size, false };
		ch.rx[0] = (struct virtq_buf){ area + 5 * PAGE, hdr_len, true };
		ch.rx[1] = (struct virtq_buf){ rx_data, VNET_MAX_FRAME, true };
		ch.ntx = ch.nrx = 2;
		ch.rx_frame = rx_data;
	} else {
		ch.tx[0] = (struct virtq_buf){ area, hdr_len + d->size, false };
		ch.rx[0] = (struct virtq_buf){ rx_data, RX_PLAIN_BYTES, true };
		ch.ntx = ch.nrx = 1;
		ch.rx_frame = rx_data + hdr_len;
	}
	kmemset(area, 0, sizeof(area));
	frame_fill(tx_frame, d->size);
	pattern_csum = netframe_csum(tx_frame + NETFRAME_OFF_PAYLOAD, d->size - NETFRAME_OFF_PAYLOAD);
}

/* Descriptors whose buffer crosses a page end. */
static u32 crossings(const struct virtq_buf *b, u32 n)
{
	u32 i, c = 0;

	for (i = 0; i < n; i++)
		c += (uintptr_t)b[i].addr / PAGE != ((uintptr_t)b[i].addr + b[i].len - 1) / PAGE;
	return c;
}

/* ---- ops --------------------------------------------------------------------- */

/* Wait for the chain with `token` to come back on q; false at the deadline
 * (or for a used entry that is not ours: *bad). */
static bool wait_used(struct virtq *q, void *token, u32 *len, bool *bad)
{
	struct tsc_wait w = TSC_WAIT(WAIT_US);
	void *got;

	while ((got = virtq_get(q, len)) == NULL) {
		if (tsc_wait_over(&w))
			return false;
		cpu_relax();
	}
	*bad = got != token;
	return true;
}

static void lost(struct vnet_state *s, const char *where)
{
	char detail[sizeof(s->why)];
	struct vtd_fault f;

	s->lost++;
	broken = true;
	if (dma_vtd_fault(detail, sizeof(detail), &f)) {
		fail(s, detail);
		return;
	}
	fmt_snprintf(detail, sizeof(detail), "frame %u: %s used entry missing after %u ms%s",
		     s->seq, where, WAIT_US / 1000,
		     vpci_check(&sender(s->def)->vp) ? " (the device asks for a reset)" : "");
	fail(s, detail);
}

static void one_op(struct vnet_state *s)
{
	struct vnet *tx = sender(s->def), *rx = &nics[NIC_B];
	bool txrx = s->def->kind == K_TXRX, bad = false, bad_rx = false;
	u32 len = 0, rx_len = 0;

	frame_stamp(ch.frame, s->seq);
	if (txrx) {
		virtq_add(&rx->rx, ch.rx, ch.nrx, ch.rx_frame);
		virtq_publish(&rx->rx);
	}
	virtq_add(&tx->tx, ch.tx, ch.ntx, ch.frame);
	virtq_publish(&tx->tx);
	vpci_notify(&tx->vp, VNET_TX_QUEUE);
	if (!wait_used(&tx->tx, ch.frame, &len, &bad)) {
		lost(s, "transmit");
		return;
	}
	if (txrx && !wait_used(&rx->rx, ch.rx_frame, &rx_len, &bad_rx)) {
		lost(s, "receive");
		return;
	}
	bad = bad || len != 0;
	if (txrx)
		bad = bad || bad_rx || rx_len < rx->hdr_len ||
		      !frame_ok(ch.rx_frame, rx_len - rx->hdr_len, s->def->size, s->seq);
	s->checked++;
	s->bad += bad;
	s->seq++;
}

static void op_vnet(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct vnet_state *s = st_of(c);

	(void)buf;
	while (iters-- && !s->failed) {
		one_op(s);
		s->ops++;
	}
}

/* The device's part, done by the control itself: the chain comes back. */
static void ctl_cycle(struct virtq *q, const struct virtq_buf *b, u32 n, void *token)
{
	u16 head = q->free_head;
	volatile struct virtq_used_elem *e = &q->used->ring[q->used->idx & (q->num - 1)];

	virtq_add(q, b, n, token);
	virtq_publish(q);
	e->id = head;
	e->len = 0;
	q->used->idx++;
	ctl_faults += virtq_get(q, NULL) != token;
}

static void op_vnet_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct vnet_state *s = st_of(c);
	const struct vnet *tx = sender(s->def);
	bool txrx = s->def->kind == K_TXRX;
	u32 seq = 0;

	(void)buf;
	while (iters--) {
		frame_stamp(ch.frame, seq);
		if (txrx)
			ctl_cycle(&ctl_rx, ch.rx, ch.nrx, ch.rx_frame);
		ctl_cycle(&ctl_tx, ch.tx, ch.ntx, ch.frame);
		ctl_doorbell = tx->vp.notify[VNET_TX_QUEUE].value;
		if (txrx)
			ctl_faults += !frame_ok(ch.frame, s->def->size, s->def->size, seq);
		seq++;
	}
	frame_stamp(ch.frame, s->seq);
}

/* ---- case hooks ------------------------------------------------------------------ */

static bool translated(u8 mode)
{
	return mode == DMA_MODE_PT || mode == DMA_MODE_4K || mode == DMA_MODE_2M;
}

static const char *skip_vnet(const struct bench_case *c)
{
	struct vnet_state *s = st_of(c);
	bool tx_only = s->def->kind == K_TX;

	if (!nic_up[NIC_A] || !nic_up[NIC_B])
		return nic_why;
	if (tx_only && !nic_up[NIC_C])
		return "no third virtio-net NIC on a hub of its own (tools/trapmeter --suite dma attaches it)";
	if (broken)
		return "an earlier vnet case lost a frame: the queues are out of step (see its error)";
	if (translated(s->mode) && !platform_dma(sender(s->def)))
		return "the NIC offers no VIRTIO_F_ACCESS_PLATFORM (iommu_platform=off): its DMA bypasses the IOMMU";
	return NULL;
}

static u32 verify_vnet(const struct bench_case *c, const u8 *buf)
{
	struct vnet_state *s = st_of(c);
	char detail[sizeof(s->why)];
	struct vtd_fault f;

	(void)buf;
	if (dma_vtd_fault(detail, sizeof(detail), &f))
		fail(s, detail);
	if (s->bad)
		fail(s, s->def->kind == K_TX ? "a used entry not as posted (id, or length not 0)" :
		     "a frame arrived wrong (length, address, sequence or checksum)");
	return (u32)(s->bad + s->lost) + (s->failed ? 1 : 0);
}

static void extra_vnet(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	struct vnet_state *s = st_of(c);
	bool txrx = s->def->kind == K_TXRX;

	jw_str(w, "iommu_mode", dma_mode_name(s->mode));
	jw_dec(w, "cycles_per_kib", r->cycles.median * KIB, c->bytes, 1);
	jw_u64(w, "frame_bytes", s->def->size);
	jw_u64(w, "tx_descriptors", ch.ntx);
	jw_u64(w, "rx_descriptors", txrx ? ch.nrx : 0);
	jw_u64(w, "page_crossings", crossings(ch.tx, ch.ntx) + (txrx ? crossings(ch.rx, ch.nrx) : 0));
	jw_bool(w, "access_platform", platform_dma(sender(s->def)));
	jw_u64(w, "checked", s->checked);
	jw_u64(w, "lost", s->lost);
	jw_u64(w, "corrupt", s->bad);
	if (s->failed)
		jw_str(w, "error", s->why);
}

static void add_case(const struct vnet_def *d, u8 mode)
{
	char *name = names[table.n];
	struct bench_case *c = bench_table_add(&table);
	struct vnet_state *s;

	if (!c)
		return;
	s = c->priv;
	fmt_snprintf(name, NAME_LEN, "%s%s", d->name, dma_mode_suffix(mode));
	s->def = d;
	s->mode = mode;
	c->suite = "dma";
	c->name = name;
	c->target = d->kind == K_TX ? "virtio-net.tx" : "virtio-net.hub";
	c->handler = HANDLER_NONE;      /* KVM with ioeventfd=on, else QEMU */
	c->dir = DIR_OUT;
	c->method = METHOD_DMA;
	c->bytes = d->size;
	c->buf_offset = d->chain ? PAGE - d->size / 2 : 0;
	c->op = op_vnet;
	c->control = op_vnet_control;
	c->exits_model = bench_model_one;
	c->skip = skip_vnet;
	c->verify = verify_vnet;
	c->extra = extra_vnet;
}

/* A case's modes back to back, as the bus-master cases run. */
static void build_table(void)
{
	u32 i, m;

	table.n = 0;
	for (i = 0; i < ARRAY_SIZE(defs); i++)
		for (m = 0; m < DMA_MODE_COUNT; m++)
			if (dma_mode_available((u8)m))
				add_case(&defs[i], (u8)m);
}

/* ---- set-up -------------------------------------------------------------------- */

static u8 devfn_of(const struct vnet *n)
{
	return (u8)(n->vp.pci.dev << 3 | n->vp.pci.fn);
}

static void bring_up(u32 which, const struct pci_dev *d)
{
	char detail[160];
	int err = vnet_init_rx_empty(&nics[which], which, d, true, 0);

	if (!err && dma_vtd_attach(d->bus, devfn_of(&nics[which])))
		err = -EINVAL;
	nic_up[which] = !err;
	if (!err)
		return;
	fmt_snprintf(detail, sizeof(detail), "NIC %c at %02x:%02x.%u: %s (%d)", 'A' + which,
		     d->bus, d->dev, d->fn, err == -EINVAL ? "not on bus 0 (one context table)" :
		     vpci_strerror(err), err);
	bench_check("dma.vnet.init", false, detail);
	fmt_snprintf(nic_why, sizeof(nic_why), "virtio-net bring-up failed (check dma.vnet.init)");
}

void dma_vnet_setup(void)
{
	u32 n = pci_scan(pci_devs, PCI_MAX_DEVICES), i, found = 0;

	kmemset(nic_up, 0, sizeof(nic_up));
	broken = false;
	fmt_snprintf(nic_why, sizeof(nic_why),
		     "fewer than two virtio-net NICs (tools/trapmeter --suite dma attaches three)");
	for (i = 0; i < n && found < NICS; i++)
		if (vpci_is_net(&pci_devs[i]))
			bring_up(found++, &pci_devs[i]);
	for (i = 0; i < found; i++)
		if (nic_up[i])
			kprintf("  dma: virtio-net %c at %02x:%02x.%u, %s, features 0x%lx%s\n", 'A' + i,
				nics[i].vp.pci.bus, nics[i].vp.pci.dev, nics[i].vp.pci.fn,
				nics[i].vp.ops->name, (unsigned long)nics[i].vp.features,
				platform_dma(&nics[i]) ? " (ACCESS_PLATFORM)" : "");
}

/* ---- run, checks --------------------------------------------------------------- */

static void check_kind(const char *name, u8 kind, const char *what)
{
	u64 checked = 0, bad = 0, gone = 0;
	const char *first = NULL, *why = NULL;
	char detail[240];
	u32 i;

	for (i = 0; i < table.n; i++) {
		if (state[i].def->kind != kind)
			continue;
		checked += state[i].checked;
		bad += state[i].bad;
		gone += state[i].lost;
		if (state[i].failed && !first) {
			first = cases[i].name;
			why = state[i].why;
		}
	}
	if (!checked && !first)
		return;
	fmt_snprintf(detail, sizeof(detail), "%lu %s, %lu lost, %lu corrupt%s%s%s%s",
		     (unsigned long)checked, what, (unsigned long)gone, (unsigned long)bad,
		     first ? "; first " : "", first ? first : "", first ? ": " : "",
		     first ? why : "");
	bench_check(name, !first, detail);
}

/* The mode, the buffers and the control's queues of case i. */
static int prepare_case(u32 i)
{
	if (dma_vtd_enter(state[i].mode))
		return -EIO;
	lay_out(state[i].def, sender(state[i].def)->hdr_len);
	virtq_init(&ctl_tx, CTL_QUEUE, kmemset(ctl_mem[0], 0, sizeof(ctl_mem[0])), false);
	virtq_init(&ctl_rx, CTL_QUEUE, kmemset(ctl_mem[1], 0, sizeof(ctl_mem[1])), false);
	return 0;
}

static void run_case(u32 i)
{
	struct bench_result r;

	/* a skipped or unselected case: bench_run says so, touching nothing */
	if (bench_selected(&cases[i]) && !skip_vnet(&cases[i]) && prepare_case(i)) {
		bench_skip("dma", cases[i].name, "the IOMMU could not be put in this mode (check dma.vtd.mode)");
		return;
	}
	bench_run(&cases[i], &r);
}

void dma_vnet_run(void)
{
	u32 i;

	build_table();
	for (i = 0; i < table.n; i++)
		run_case(i);
	check_kind("dma.vnet.tx", K_TX, "frames read by the device (used id and length as posted)");
	check_kind("dma.vnet.txrx", K_TXRX, "frames verified on receipt");
}

/* ---- the fault probe ------------------------------------------------------------ */

static void probe_detail(char *d, size_t len, bool got, u64 iova, const struct vnet *n)
{
	size_t at = kstrlen(d);

	if (!got)
		at = (size_t)fmt_snprintf(d, len, "no fault recorded for IOVA 0x%lx",
					  (unsigned long)iova);
	fmt_snprintf(d + at, len - at, "; the device then %s",
		     vpci_check((struct vpci_dev *)&n->vp) ? "set DEVICE_NEEDS_RESET" :
		     virtq_used_pending(&n->tx) ? "returned the chain" : "kept the chain");
}

/* The NIC the probe breaks: C (no case needs it after), else A. */
static int probe_nic(void)
{
	int i = nic_up[NIC_C] ? NIC_C : NIC_A;

	if (!dma_mode_available(DMA_MODE_4K) || !nic_up[i] || broken || !platform_dma(&nics[i]))
		return -1;
	return i;
}

void dma_vnet_fault_probe(void)
{
	int i = probe_nic();
	struct vnet *n = &nics[i < 0 ? 0 : i];
	u64 iova = dma_vtd_unmapped_iova();
	struct virtq_buf b = { (void *)(uintptr_t)iova, n->hdr_len + VNET_MAX_FRAME, false };
	struct tsc_wait w = TSC_WAIT(FAULT_WAIT_US);
	struct vtd_fault f = { 0 };
	char detail[240];
	bool got;

	if (i < 0 || dma_vtd_enter(DMA_MODE_4K))
		return;
	while (dma_vtd_fault(detail, sizeof(detail), &f))
		;                       /* one a case left: not the probe's */
	virtq_add(&n->tx, &b, 1, &b);
	virtq_publish(&n->tx);
	vpci_notify(&n->vp, VNET_TX_QUEUE);
	while (!(got = dma_vtd_fault(detail, sizeof(detail), &f)) && !tsc_wait_over(&w))
		cpu_relax();
	probe_detail(detail, sizeof(detail), got, iova, n);
	bench_check("dma.vtd.vnet_fault_unmapped",
		    got && f.read && f.addr == (iova & ~(PAGE - 1ull)) &&
		    f.sid == (u16)(n->vp.pci.bus << 8 | devfn_of(n)), detail);
	n->vp.ops->set_status(&n->vp, 0);     /* reset: the chain is gone */
	nic_up[i] = false;
}
