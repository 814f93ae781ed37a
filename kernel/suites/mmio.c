/*
 * kernel/suites/mmio.c - suite "mmio": what a memory-mapped access costs
 * per handler class, single accesses of 1, 2, 4 and 8 bytes against the
 * string forms (rep movs, rep stos) wherever the device accepts them.
 *
 * Targets (drivers/platform.h; the runner adds the devices, see
 * tools/trapmeterlib/guest/mmio.py):
 *   testdev  pc-testdev's 64 KiB iomem at 0xff000000 (`-device pc-testdev`):
 *            QEMU answers and stores what is written, so every width and
 *            string form is checked byte for byte            handler user
 *   ptd      pci-testdev BAR0 (`-device pci-testdev`): the test register
 *            after selecting no-eventfd (QEMU), wildcard or datamatch
 *            (an ioeventfd KVM answers); its `count` says how many writes
 *            reached QEMU                                  user / ioeventfd
 *   ioapic   IOWIN/IOREGSEL at 0xfec00000, 4-byte only       handler kernel
 *   lapic    version (read) and TPR (write) at 0xfee00000    handler kernel
 *   e1000    RDBAL and the multicast table in BAR0 (`-device e1000`):
 *            coalesced writes (each a VM exit, one in 170 a round trip to
 *            QEMU); reads are not coalesced               coalesced / user
 *   vga      the text buffer at 0xb8000 in VGA's coalesced window
 *            (`-vga std`): writes of each width and string form are
 *            coalesced, read back byte for byte (QEMU flushes the ring
 *            before the read); reads exit                coalesced / user
 * Exit models: model/model.h (MMIO part).  String forms are left out
 * where the target is one register (rep movs/stos walk the address).
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "model/model.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/platform.h"
#include "drivers/pci.h"
#include "drivers/pci_testdev.h"
#include "arch/x86/mmio_access.h"
#include "arch/x86/paging.h"
#include "arch/x86/cpuinfo.h"

#define MAX_CASES        64
#define REGION_BYTES     512        /* data moved by a testdev / MTA op */
#define REG_WRITES       64         /* accesses per op to one register */
#define IOAPIC_IOREGSEL  0x00
#define IOAPIC_IOWIN     0x10
#define IOAPIC_REG_VER   0x01
#define IOAPIC_REDIR_MAX 23         /* 24 entries on the PIIX I/O APIC */
#define LAPIC_REG_VER    0x30
#define LAPIC_REG_TPR    0x80
#define E1000_RDBAL      0x2800     /* receive descriptor base, low/high */
#define E1000_MTA        0x5200     /* multicast table: 128 x 32 bits */
#define E1000_BAR        0
#define PTD_MATCH_VALUE  0xfa       /* pci-testdev's datamatch value */
#define PTD_NOMATCH_VAL  0x5a       /* != the datamatch value */

enum mmio_insn { INSN_MOV, INSN_MOVS, INSN_STOS };
enum mmio_kind { K_TESTDEV, K_PTD, K_IOAPIC, K_LAPIC, K_E1000, K_VGA };

struct mmio_case {
	u8 kind;               /* enum mmio_kind */
	u8 insn;               /* enum mmio_insn */
	bool fixed;            /* every access to one register */
	u8 ptd_test;           /* pci-testdev test index */
	u64 addr;              /* physical (identity-mapped) address */
	u64 value;             /* what single writes and stos store */
	u64 written;           /* writes made by all operations */
};

static struct bench_case cases[MAX_CASES];
static struct mmio_case state[MAX_CASES];
static struct bench_table table = BENCH_TABLE(cases, state);
static struct pci_testdev ptd;
static const char *ptd_why;
static struct ptd_test ptd_hdr;
static struct pci_dev e1000;
static bool have_e1000, have_testdev, have_vga;

static struct mmio_case *mc_of(const struct bench_case *c)
{
	return c->priv;
}

static volatile void *va(u64 addr)
{
	return (volatile void *)(uintptr_t)addr;
}

/* byte i of what testdev reads expect and writes store */
static u8 pat_byte(u32 i)
{
	return (u8)(i * 13 + (i >> 7) + 0x3c);
}

/* ---- operations ------------------------------------------------------ */

static void put(volatile void *a, u32 width, const u8 *src)
{
	switch (width) {
	case 1: mmio_write8(a, src[0]); break;
	case 2: mmio_write16(a, *(const u16 *)src); break;
	case 4: mmio_write32(a, *(const u32 *)src); break;
	default: mmio_write64(a, *(const u64 *)src); break;
	}
}

static void get(const volatile void *a, u32 width, u8 *dst)
{
	switch (width) {
	case 1: dst[0] = mmio_read8(a); break;
	case 2: *(u16 *)dst = mmio_read16(a); break;
	case 4: *(u32 *)dst = mmio_read32(a); break;
	default: *(u64 *)dst = mmio_read64(a); break;
	}
}

/* One operation at `a`: `units` accesses by the case's instruction. */
static void transfer_at(const struct bench_case *c, const struct mmio_case *m, u8 *a, u8 *buf)
{
	u32 units = bench_units(c), w = c->width, i;

	if (m->insn == INSN_MOVS) {
		if (c->dir == DIR_IN)
			mmio_rep_movs(buf, a, units, w);
		else
			mmio_rep_movs(a, buf, units, w);
	} else if (m->insn == INSN_STOS) {
		mmio_rep_stos(a, (u32)m->value, units, w);
	} else {
		for (i = 0; i < units; i++) {
			u8 *reg = m->fixed ? a : a + i * w;

			if (c->dir == DIR_IN)
				get(reg, w, buf + i * w);
			else
				put(reg, w, m->fixed ? (const u8 *)&m->value : buf + i * w);
		}
	}
}

static void op_mmio(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct mmio_case *m = mc_of(c);
	u8 *a = (u8 *)(uintptr_t)m->addr;

	while (iters--) {
		transfer_at(c, m, a, buf);
		if (c->dir == DIR_OUT)
			m->written += bench_units(c);
	}
}

/* Control: the same instruction, width and count against RAM (reads into
 * a sink: a control must not write buf), so cycles_net is what the
 * device's trap adds (docs/design.md, "Timing"). */
static u8 ctl_ram[REGION_BYTES] __attribute__((aligned(64)));
static u8 ctl_sink[REGION_BYTES] __attribute__((aligned(64)));
_Static_assert(REGION_BYTES >= REG_WRITES * 8, "control RAM holds the largest op");

static void ctl_mmio(const struct bench_case *c, u8 *buf, u64 iters)
{
	const struct mmio_case *m = mc_of(c);

	while (iters--)
		transfer_at(c, m, ctl_ram, c->dir == DIR_IN ? ctl_sink : buf);
}

/* ---- exit models ------------------------------------------------------ */

static u32 model_mmio(const struct bench_case *c, const u8 *buf)
{
	const struct mmio_case *m = mc_of(c);
	u32 units = bench_units(c);

	(void)buf;
	if (m->insn != INSN_MOV)
		return model_mmio_string_exits(units, c->handler == HANDLER_USER &&
					       c->dir == DIR_OUT);
	return units * model_mmio_access_exits(m->addr, c->width);
}

/* ---- checks ------------------------------------------------------------ */

static u32 verify_testdev(const struct bench_case *c, const struct mmio_case *m,
			  const u8 *buf)
{
	u32 i, bad = 0;
	u8 want, got;

	for (i = 0; i < c->bytes; i++) {
		want = m->insn == INSN_STOS ? (u8)(m->value >> (8 * (i % c->width))) :
		       c->dir == DIR_IN ? pat_byte(i) : buf[i];
		got = c->dir == DIR_IN ? buf[i] : mmio_read8((u8 *)va(m->addr) + i);
		bad += got != want;
	}
	return bad;
}

/* pci-testdev counts the writes its handler saw at the test register:
 * every one of a no-eventfd test, none of a wildcard test (the eventfd
 * takes them: KVM's, or QEMU's own under TCG), and of a datamatch test
 * those that miss the eventfd yet carry the match value in the
 * register's byte (the handler takes bytes only and compares that one).
 * A write misses the 1-byte datamatch eventfd when the piece QEMU's
 * memory core dispatches at the register is wider than a byte - and
 * which piece that is depends on the accelerator
 * (model_qemu_mmio_piece): under KVM the 4- and 8-byte writes at 2050
 * arrive as 2-byte pieces and are counted; under TCG they are unaligned,
 * go as byte stores, the first one matches the eventfd, none counts. */
static bool ptd_counted(const struct bench_case *c, const struct mmio_case *m)
{
	if (m->ptd_test == PTD_NO_EVENTFD)
		return true;
	if (m->ptd_test != PTD_DATAMATCH || (m->value & 0xff) != PTD_MATCH_VALUE)
		return false;
	return model_qemu_mmio_piece(m->addr, c->width, hv.kvm) > 1;
}

static u32 verify_ptd(const struct bench_case *c, const struct mmio_case *m)
{
	u32 got = ptd_count(&ptd, true);
	bool counted = ptd_counted(c, m);

	return got == (counted ? (u32)m->written : 0) ? 0 : 1;
}

static u32 verify_words(const struct bench_case *c, const struct mmio_case *m,
			const u8 *buf)
{
	u32 i, bad = 0, v;

	for (i = 0; c->dir == DIR_IN && i < bench_units(c); i++) {
		v = ((const u32 *)buf)[i];
		if (m->kind == K_IOAPIC)
			bad += ((v & 0xff) != 0x11 && (v & 0xff) != 0x20) ||
			       ((v >> 16) & 0xff) != IOAPIC_REDIR_MAX;
		else if (m->kind == K_LAPIC)
			bad += (v & 0xf0) != 0x10;      /* integrated APIC */
		else
			bad += v != m->value;
	}
	return bad;
}

static u64 width_mask(u32 width)
{
	return width >= 8 ? ~0ull : (1ull << (8 * width)) - 1;
}

static u32 verify_e1000(const struct bench_case *c, const struct mmio_case *m,
			const u8 *buf)
{
	volatile u8 *a = (volatile u8 *)va(m->addr);
	u32 i, bad = 0, want;

	if (c->dir == DIR_IN)
		return verify_words(c, m, buf);
	if (m->insn == INSN_MOV)       /* zero-extended into the register */
		return mmio_read32(a) != (u32)(m->value & width_mask(c->width));
	for (i = 0; i < bench_units(c); i++) {
		want = m->insn == INSN_STOS ? m->value : ((const u32 *)buf)[i];
		bad += mmio_read32(a + 4 * i) != want;
	}
	return bad;
}

static u32 verify_mmio(const struct bench_case *c, const u8 *buf)
{
	const struct mmio_case *m = mc_of(c);

	switch (m->kind) {
	case K_TESTDEV:
	case K_VGA: return verify_testdev(c, m, buf);
	case K_PTD: return verify_ptd(c, m);
	case K_E1000: return verify_e1000(c, m, buf);
	default: return verify_words(c, m, buf);
	}
}

/* ---- skips and result fields -------------------------------------------- */

static const char *skip_mmio(const struct bench_case *c)
{
	switch (mc_of(c)->kind) {
	case K_TESTDEV:
		return have_testdev ? NULL :
		       "no pc-testdev iomem at 0xff000000 (QEMU -device pc-testdev; the runner adds it for suite mmio)";
	case K_PTD:
		return ptd_why;
	case K_E1000:
		return have_e1000 ? NULL :
		       "no e1000 NIC (QEMU -device e1000; the runner adds it for suite mmio)";
	case K_VGA:
		return have_vga ? NULL :
		       "no VGA text buffer at 0xb8000 (QEMU -vga std; the runner adds it for suite mmio)";
	default:
		return NULL;
	}
}

static const char *insn_name(const struct bench_case *c, const struct mmio_case *m)
{
	static const char *const movs[] = { "rep movsb", "rep movsw", "", "rep movsl",
					    "", "", "", "rep movsq" };

	if (m->insn == INSN_MOVS)
		return movs[c->width - 1];
	if (m->insn == INSN_STOS)
		return c->width == 1 ? "rep stosb" : "rep stosl";
	return "mov";
}

static void extra_mmio(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	const struct mmio_case *m = mc_of(c);
	u32 units = bench_units(c);

	(void)r;
	jw_hex(w, "addr", m->addr);
	jw_str(w, "insn", insn_name(c, m));
	if (m->kind == K_PTD)
		jw_str(w, "ptd_test", ptd_hdr.name);
	/* round trips to QEMU by the model, beside exits_model's VM exits */
	if (c->handler == HANDLER_COALESCED)
		jw_dec(w, "exits_to_qemu_model", model_coalesced_user_exits_milli(units), 1000, 3);
	else
		jw_u64(w, "exits_to_qemu_model", c->handler == HANDLER_USER ?
		       units * model_mmio_access_exits(m->addr, m->insn == INSN_MOV ? c->width : 1) : 0);
}

/* ---- the case table ----------------------------------------------------- */

static struct mmio_case *add(const char *name, u8 kind, const char *target, u64 addr,
			     u8 handler, u8 dir, u8 width, u8 insn, u32 bytes)
{
	struct bench_case *c = bench_table_add(&table);
	struct mmio_case *m;

	if (!c)
		return NULL;
	m = c->priv;
	*m = (struct mmio_case){ .kind = kind, .insn = insn, .addr = addr };
	*c = (struct bench_case){
		.suite = "mmio", .name = name, .target = target,
		.handler = handler, .dir = dir, .width = width, .bytes = bytes,
		.method = insn == INSN_MOV ? METHOD_SINGLE : METHOD_REP,
		.op = op_mmio, .control = ctl_mmio, .exits_model = model_mmio, .skip = skip_mmio,
		.verify = verify_mmio, .extra = extra_mmio, .kut_name = BENCH_NO_KUT, .priv = m,
	};
	return m;
}

#define TESTDEV(name, dir, width, insn) \
	add(name, K_TESTDEV, "testdev", PC_TESTDEV_IOMEM, HANDLER_USER, dir, width, insn, \
	    REGION_BYTES)

static void add_testdev(void)
{
	TESTDEV("testdev.in8.single.512", DIR_IN, 1, INSN_MOV);
	TESTDEV("testdev.in8.rep.512", DIR_IN, 1, INSN_MOVS);
	TESTDEV("testdev.in16.single.512", DIR_IN, 2, INSN_MOV);
	TESTDEV("testdev.in16.rep.512", DIR_IN, 2, INSN_MOVS);
	TESTDEV("testdev.in32.single.512", DIR_IN, 4, INSN_MOV);
	TESTDEV("testdev.in32.rep.512", DIR_IN, 4, INSN_MOVS);
	TESTDEV("testdev.in64.single.512", DIR_IN, 8, INSN_MOV);
	TESTDEV("testdev.in64.rep.512", DIR_IN, 8, INSN_MOVS);
	TESTDEV("testdev.out8.single.512", DIR_OUT, 1, INSN_MOV);
	TESTDEV("testdev.out8.rep.512", DIR_OUT, 1, INSN_MOVS);
	TESTDEV("testdev.out16.single.512", DIR_OUT, 2, INSN_MOV);
	TESTDEV("testdev.out16.rep.512", DIR_OUT, 2, INSN_MOVS);
	TESTDEV("testdev.out32.single.512", DIR_OUT, 4, INSN_MOV);
	TESTDEV("testdev.out32.rep.512", DIR_OUT, 4, INSN_MOVS);
	TESTDEV("testdev.out64.single.512", DIR_OUT, 8, INSN_MOV);
	TESTDEV("testdev.out64.rep.512", DIR_OUT, 8, INSN_MOVS);
	TESTDEV("testdev.out8.stos.512", DIR_OUT, 1, INSN_STOS)->value = 0xc3a5963cu;
	TESTDEV("testdev.out32.stos.512", DIR_OUT, 4, INSN_STOS)->value = 0xc3a5963cu;
}

static void add_ptd_case(const char *name, const char *target, u8 test, u8 handler,
			 u8 width, u32 value)
{
	struct mmio_case *m = add(name, K_PTD, target, 0, handler, DIR_OUT, width, INSN_MOV,
				  REG_WRITES * width);

	if (!m)
		return;
	m->fixed = true;
	m->ptd_test = test;
	m->value = value;
	cases[table.n - 1].kut_name = "pci-mem";	/* the case add() made */
}

/* The test register's address is known only once the test is selected
 * (its header names it): resolved in prepare(). */
static void add_ptd(void)
{
	add_ptd_case("ptd.nofd.out8.single.64", "ptd.nofd", PTD_NO_EVENTFD, HANDLER_USER, 1,
		     PTD_MATCH_VALUE);
	add_ptd_case("ptd.wildcard.out8.single.64", "ptd.wildcard", PTD_WILDCARD,
		     HANDLER_IOEVENTFD, 1, PTD_MATCH_VALUE);
	add_ptd_case("ptd.datamatch.out8.single.64", "ptd.datamatch", PTD_DATAMATCH,
		     HANDLER_IOEVENTFD, 1, PTD_MATCH_VALUE);
	add_ptd_case("ptd.datamatch.out8.single.64.nomatch", "ptd.datamatch", PTD_DATAMATCH,
		     HANDLER_USER, 1, PTD_NOMATCH_VAL);
	/* With KVM_CAP_IOEVENTFD_ANY_LENGTH QEMU registers the MMIO wildcard
	 * eventfd with length 0 (hw/misc/pci-testdev.c "fastmmio"), which KVM
	 * matches at any width (virt/kvm/eventfd.c ioeventfd_in_range): no
	 * round trip.  The datamatch eventfd keeps length 1, so its wider
	 * writes miss it and go to QEMU. */
	add_ptd_case("ptd.wildcard.out16.single.128", "ptd.wildcard", PTD_WILDCARD,
		     HANDLER_IOEVENTFD, 2, PTD_MATCH_VALUE);
	add_ptd_case("ptd.wildcard.out32.single.256", "ptd.wildcard", PTD_WILDCARD,
		     HANDLER_IOEVENTFD, 4, PTD_MATCH_VALUE);
	add_ptd_case("ptd.wildcard.out64.single.512", "ptd.wildcard", PTD_WILDCARD,
		     HANDLER_IOEVENTFD, 8, PTD_MATCH_VALUE);
	add_ptd_case("ptd.datamatch.out16.single.128", "ptd.datamatch", PTD_DATAMATCH,
		     HANDLER_USER, 2, PTD_MATCH_VALUE);
	add_ptd_case("ptd.datamatch.out32.single.256", "ptd.datamatch", PTD_DATAMATCH,
		     HANDLER_USER, 4, PTD_MATCH_VALUE);
	add_ptd_case("ptd.datamatch.out64.single.512", "ptd.datamatch", PTD_DATAMATCH,
		     HANDLER_USER, 8, PTD_MATCH_VALUE);
}

static void add_reg(const char *name, u8 kind, const char *target, u64 addr, u8 handler,
		    u8 dir, u8 width, u32 value)
{
	struct mmio_case *m = add(name, kind, target, addr, handler, dir, width, INSN_MOV,
				  REG_WRITES * width);

	if (m) {
		m->fixed = true;
		m->value = value;
	}
}

static void add_apics(void)
{
	add_reg("ioapic.in32.single.256", K_IOAPIC, "ioapic", IOAPIC_BASE + IOAPIC_IOWIN,
		HANDLER_KERNEL, DIR_IN, 4, 0);
	add_reg("ioapic.out32.single.256", K_IOAPIC, "ioapic", IOAPIC_BASE + IOAPIC_IOREGSEL,
		HANDLER_KERNEL, DIR_OUT, 4, IOAPIC_REG_VER);
	add_reg("lapic.in32.single.256", K_LAPIC, "lapic", LAPIC_BASE + LAPIC_REG_VER,
		HANDLER_KERNEL, DIR_IN, 4, 0);
	add_reg("lapic.out32.single.256", K_LAPIC, "lapic", LAPIC_BASE + LAPIC_REG_TPR,
		HANDLER_KERNEL, DIR_OUT, 4, 0);
}

#define E1000_RDBAL_VALUE 0x12345670u

static void add_e1000(u64 bar)
{
	struct mmio_case *m;

	add_reg("e1000.out8.single.64", K_E1000, "e1000", bar + E1000_RDBAL, HANDLER_COALESCED,
		DIR_OUT, 1, E1000_RDBAL_VALUE);
	add_reg("e1000.out16.single.128", K_E1000, "e1000", bar + E1000_RDBAL, HANDLER_COALESCED,
		DIR_OUT, 2, E1000_RDBAL_VALUE);
	add_reg("e1000.out32.single.256", K_E1000, "e1000", bar + E1000_RDBAL, HANDLER_COALESCED,
		DIR_OUT, 4, E1000_RDBAL_VALUE);
	add_reg("e1000.out64.single.512", K_E1000, "e1000", bar + E1000_RDBAL, HANDLER_COALESCED,
		DIR_OUT, 8, E1000_RDBAL_VALUE);
	add_reg("e1000.in32.single.256", K_E1000, "e1000", bar + E1000_RDBAL, HANDLER_USER,
		DIR_IN, 4, E1000_RDBAL_VALUE);
	add("e1000.out32.rep.512", K_E1000, "e1000", bar + E1000_MTA, HANDLER_COALESCED, DIR_OUT,
	    4, INSN_MOVS, REGION_BYTES);
	m = add("e1000.out32.stos.512", K_E1000, "e1000", bar + E1000_MTA, HANDLER_COALESCED,
		DIR_OUT, 4, INSN_STOS, REGION_BYTES);
	if (m)
		m->value = 0x9e3779b9u;
}

#define VGA(name, handler, dir, width, insn) \
	add(name, K_VGA, "vga", VGA_TEXT_BASE, handler, dir, width, insn, REGION_BYTES)

/* Coalesced writes of every width and string form to the text buffer,
 * and the reads that still exit. */
static void add_vga(void)
{
	VGA("vga.out8.single.512", HANDLER_COALESCED, DIR_OUT, 1, INSN_MOV);
	VGA("vga.out8.rep.512", HANDLER_COALESCED, DIR_OUT, 1, INSN_MOVS);
	VGA("vga.out16.single.512", HANDLER_COALESCED, DIR_OUT, 2, INSN_MOV);
	VGA("vga.out16.rep.512", HANDLER_COALESCED, DIR_OUT, 2, INSN_MOVS);
	VGA("vga.out32.single.512", HANDLER_COALESCED, DIR_OUT, 4, INSN_MOV);
	VGA("vga.out32.rep.512", HANDLER_COALESCED, DIR_OUT, 4, INSN_MOVS);
	VGA("vga.out64.single.512", HANDLER_COALESCED, DIR_OUT, 8, INSN_MOV);
	VGA("vga.out64.rep.512", HANDLER_COALESCED, DIR_OUT, 8, INSN_MOVS);
	VGA("vga.out8.stos.512", HANDLER_COALESCED, DIR_OUT, 1, INSN_STOS)->value = 0x1e2d3c4bu;
	VGA("vga.out32.stos.512", HANDLER_COALESCED, DIR_OUT, 4, INSN_STOS)->value = 0x1e2d3c4bu;
	VGA("vga.in8.single.512", HANDLER_USER, DIR_IN, 1, INSN_MOV);
	VGA("vga.in32.rep.512", HANDLER_USER, DIR_IN, 4, INSN_MOVS);
}

/* ---- set-up ------------------------------------------------------------- */

/* A region that stores what is written (pc-testdev, VGA's text buffer);
 * unassigned MMIO does not. */
static bool probe_store(u64 addr)
{
	volatile u8 *last = (volatile u8 *)va(addr);

	mmio_write8(last, 0xa5);
	if (mmio_read8(last) != 0xa5)
		return false;
	mmio_write8(last, 0x5a);
	return mmio_read8(last) == 0x5a;
}

static void probe_devices(void)
{
	const struct pci_bar *b;

	have_testdev = probe_store(PC_TESTDEV_IOMEM + PC_TESTDEV_IOMEM_LEN - 1);
	have_vga = probe_store(VGA_TEXT_BASE + VGA_TEXT_LEN - 1);
	ptd_why = NULL;
	if (ptd_find(&ptd, &ptd_why))
		ptd_why = ptd_why ? ptd_why : "pci-testdev unusable";
	have_e1000 = pci_find_id(E1000_VENDOR, E1000_DEVICE, &e1000);
	b = &e1000.bar[E1000_BAR];
	if (have_e1000 && (b->io || !b->addr || paging_map_mmio(b->addr, b->size)))
		have_e1000 = false;
	if (have_e1000)
		pci_enable(&e1000, PCI_COMMAND_MEMORY);
}

/* Per case, before it runs: testdev reads get the pattern, OUT buffers
 * get it too, pci-testdev gets the case's test selected. */
static void prepare(struct bench_case *c)
{
	struct mmio_case *m = c->priv;
	u8 *buf = bench_buffer();
	u32 i;

	for (i = 0; i < c->bytes; i++)
		buf[i] = pat_byte(i);
	if ((m->kind == K_TESTDEV && c->dir == DIR_IN && have_testdev) ||
	    (m->kind == K_VGA && c->dir == DIR_IN && have_vga))
		for (i = 0; i < c->bytes; i += 4)
			mmio_write32((u8 *)va(m->addr) + i, *(const u32 *)(buf + i));
	if (m->kind == K_IOAPIC && c->dir == DIR_IN)
		mmio_write32(va(IOAPIC_BASE + IOAPIC_IOREGSEL), IOAPIC_REG_VER);
	if (m->kind == K_E1000 && c->dir == DIR_IN && have_e1000)
		mmio_write32(va(m->addr), m->value);
	if (m->kind == K_PTD && !ptd_why) {
		if (ptd_select(&ptd, true, m->ptd_test, &ptd_hdr))
			ptd_why = "pci-testdev header unreadable after selecting a test";
		m->addr = (u64)(uintptr_t)ptd.mem + ptd_hdr.offset;
	}
	m->written = 0;
}

/* One check over every case that ran: the data each read and wrote. */
static void check_cases(const struct bench_tally *t)
{
	char detail[160];

	if (!t->ran)
		return;
	fmt_snprintf(detail, sizeof(detail), "%u mmio cases, %u with wrong data or counts%s%s",
		     t->ran, t->bad, t->bad ? "; first: " : "", t->bad ? t->first_bad : "");
	bench_check("mmio.data", t->bad == 0, detail);
}

void suite_mmio(const struct tm_config *cfg)
{
	struct bench_tally t = { 0 };

	bench_suite_begin("mmio");
	probe_devices();
	table.n = 0;
	add_testdev();
	add_ptd();
	add_apics();
	add_vga();
	if (have_e1000)
		add_e1000(e1000.bar[E1000_BAR].addr);
	else
		bench_skip("mmio", "e1000.*",
			   "no e1000 NIC (QEMU -device e1000; the runner adds it for suite mmio)");
	bench_run_cases(cfg, cases, table.n, prepare, &t);
	check_cases(&t);
}
