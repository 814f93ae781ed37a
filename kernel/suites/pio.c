/*
 * kernel/suites/pio.c - suite "pio": REP string port I/O against one
 * in/out per unit, per port class, width and size.  The cases are the
 * rows of kernel/suites/pio_table.c, one each, by name.
 *
 * Targets (drivers/platform.h):
 *   fwcfg    0x511 IN, 8-bit only: QEMU answers (userspace exit each unit,
 *            REP batched by KVM's read-ahead); plus the DMA interface
 *   debugcon 0x402 OUT 8-bit: QEMU (isa-debugcon)
 *   port80   0x80 OUT 8/16/32-bit: QEMU (ioport80)
 *   pic      0x21 IN/OUT 8-bit: the in-kernel PIC under kernel-irqchip=on
 *   elcr     0x4d0 IN/OUT 8-bit: the in-kernel PIC's ELCR
 *   acpi.pm1 PM1a status (PM base + 0) IN 16-bit: QEMU (ACPI PM block)
 *   acpi.tmr PM timer (PM base + 8) IN 32-bit: QEMU
 * fw_cfg reads the runner's blob (opt/trapmeter/blob) so that what every
 * method read can be checked against the known pattern.
 *
 * Extended cases (suite=all, or named by case=; see suite_extended()):
 *   rtc      0x70 OUT 8-bit: coalesced PIO (QEMU's RTC index port): each
 *            write a VM exit, one in 170 a round trip to QEMU
 *   cf8      0xcf8 OUT 32-bit: coalesced PIO (i440FX config address)
 *   ptd.io   pci-testdev's I/O BAR test ports: no-eventfd (QEMU) and
 *            wildcard / datamatch (an ioeventfd KVM answers)
 *   fwcfg.fifo.{loop,rep,probe_rep}.512  edk2's FIFO code shapes
 *            (kernel/suites/edk2_fifo.h) reading 512 B of the blob
 *   debugcon.fifo.{loop,rep,probe_rep}.512  the same shapes writing 512 B
 *            to debugcon, as edk2's PlatformDebugLibIoPort prints a
 *            debug message (IoWriteFifo8); debugcon keeps nothing to check
 */
#include "kernel/suites/suites.h"
#include "kernel/suites/pio.h"
#include "kernel/bench.h"
#include "kernel/suites/blob.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/platform.h"
#include "drivers/fw_cfg.h"
#include "drivers/acpi_pm.h"
#include "drivers/pci_testdev.h"
#include "kernel/suites/edk2_fifo.h"
#include "model/model.h"
#include "arch/x86/io.h"
#include "arch/x86/control.h"

#define BLOB_NAME      "opt/trapmeter/blob"
#define PIC_IMR_ALL    0xff
/* check_blob reads this much by each method; the per-case checks cover
 * every longer read the selected cases make (and each byte checked costs
 * microseconds under a software hypervisor) */
#define BLOB_CHECK_LEN 4096

static struct bench_case cases[PIO_MAX_ROWS];
static u8 shapes[PIO_MAX_ROWS];	/* each case's priv: its FIFO shape */
static u32 n_cases;
static bool ran[PIO_MAX_ROWS];	/* the case ran (in some round) */
/* bench_selected, asked once per boot: 0 not yet, else SEL_YES / SEL_NO.
 * Under PVM the glob matching and the buffer fills of a table of ~170
 * cases cost about 0.2 s a round; only the selected few need them. */
enum { SEL_UNKNOWN, SEL_YES, SEL_NO };
static u8 selection[PIO_MAX_ROWS];
static bool case_bad[PIO_MAX_ROWS];	/* its data or counts were wrong in some round */
static u16 blob_key;
static u32 blob_size;
static u8 elcr_value;
static u16 pm_base;
/* What control ops touch in place of a port: one word for in/out (like a
 * data register), and a RAM buffer the loops' IN twins store into. */
static volatile union { u8 b; u16 w; u32 l; } ctl_port;
static u8 ctl_ram[BENCH_BUF_SIZE] __attribute__((aligned(BENCH_PAGE)));
/* String instructions executed by the current case: the result line says
 * what really ran (rep=off or a loop in their place shows 0). */
static u64 string_instrs;


/* ---- operations ------------------------------------------------------ */

static void in_loop(u16 port, u8 width, u8 *buf, u32 units)
{
	u32 i;

	for (i = 0; i < units; i++) {
		if (width == 1)
			buf[i] = inb(port);
		else if (width == 2)
			((u16 *)buf)[i] = inw(port);
		else
			((u32 *)buf)[i] = inl(port);
	}
}

static void out_loop(u16 port, u8 width, const u8 *buf, u32 units)
{
	u32 i;

	for (i = 0; i < units; i++) {
		if (width == 1)
			outb(buf[i], port);
		else if (width == 2)
			outw(((const u16 *)buf)[i], port);
		else
			outl(((const u32 *)buf)[i], port);
	}
}

static void rep_in(u16 port, u8 width, u8 *buf, u32 units)
{
	string_instrs++;
	if (width == 1)
		insb(port, buf, units);
	else if (width == 2)
		insw(port, buf, units);
	else
		insl(port, buf, units);
}

static void rep_out(u16 port, u8 width, const u8 *buf, u32 units)
{
	string_instrs++;
	if (width == 1)
		outsb(port, buf, units);
	else if (width == 2)
		outsw(port, buf, units);
	else
		outsl(port, buf, units);
}

/* One data transfer of the case, by its method (rep=off: the loop). */
static void transfer(const struct bench_case *c, u8 *buf)
{
	u32 units = bench_units(c);
	bool rep = c->method == METHOD_REP && !c->rep_as_loop;

	if (c->dir == DIR_IN) {
		if (rep)
			rep_in(c->port, c->width, buf, units);
		else
			in_loop(c->port, c->width, buf, units);
	} else {
		if (rep)
			rep_out(c->port, c->width, buf, units);
		else
			out_loop(c->port, c->width, buf, units);
	}
}

static void op_port(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		transfer(c, buf);
}

/* fw_cfg: each read restarts the item, so one op = select + transfer */
static void op_fwcfg(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--) {
		fw_cfg_select((u16)c->arg);
		transfer(c, buf);
	}
}

static void op_fwcfg_dma(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		fw_cfg_dma_read((u16)c->arg, buf, c->bytes);
}

/* ---- control ops: the same loops with RAM in place of the port -------- */

static void in_loop_ram(u8 width, u8 *dst, u32 units)
{
	u32 i;

	for (i = 0; i < units; i++) {
		if (width == 1)
			dst[i] = ctl_port.b;
		else if (width == 2)
			((u16 *)dst)[i] = ctl_port.w;
		else
			((u32 *)dst)[i] = ctl_port.l;
	}
}

static void out_loop_ram(u8 width, const u8 *buf, u32 units)
{
	u32 i;

	for (i = 0; i < units; i++) {
		if (width == 1)
			ctl_port.b = buf[i];
		else if (width == 2)
			ctl_port.w = ((const u16 *)buf)[i];
		else
			ctl_port.l = ((const u32 *)buf)[i];
	}
}

/*
 * The REP twin: the same call, loop and register set-up with the string
 * instruction itself at a count of zero, so no unit moves and nothing
 * traps.  What rep ins/outs move is moved by the trap's handler (KVM's
 * emulator, QEMU), so it belongs to the trap's cost, not to the control;
 * a rep movs of the same units would add the guest's own copy instead,
 * which a software backend emulates unit by unit (docs/design.md, Timing).
 */
static void rep_fixed(u8 width, void *dst, const void *src)
{
	if (width == 1)
		ctl_movsb(dst, src, 0);
	else if (width == 2)
		ctl_movsw(dst, src, 0);
	else
		ctl_movsl(dst, src, 0);
}

/* transfer()'s twin: IN cases write ctl_ram (at the case's offset), never
 * buf, so the data check still sees what the port delivered. */
static void transfer_control(const struct bench_case *c, const u8 *buf)
{
	u32 units = bench_units(c);
	bool rep = c->method == METHOD_REP && !c->rep_as_loop;
	u8 *dst = ctl_ram + c->buf_offset;

	if (c->dir == DIR_IN) {
		if (rep)
			rep_fixed(c->width, dst, ctl_ram);
		else
			in_loop_ram(c->width, dst, units);
	} else {
		if (rep)
			rep_fixed(c->width, ctl_ram, buf);
		else
			out_loop_ram(c->width, buf, units);
	}
}

static void op_port_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		transfer_control(c, buf);
}

/* the select is an outw: its twin a 16-bit store */
static void op_fwcfg_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--) {
		ctl_port.w = (u16)c->arg;
		transfer_control(c, buf);
	}
}

/* DMA: the same descriptor writes and poll, a RAM store for the doorbell */
static void op_fwcfg_dma_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		fw_cfg_dma_read_control((u16)c->arg, buf, c->bytes);
}

/* ---- exit models, skips and checks ----------------------------------- */

static u32 model_fwcfg(const struct bench_case *c, const u8 *buf)
{
	if (c->method == METHOD_DMA)
		return 1;                       /* one doorbell write */
	if (c->method == METHOD_REP)
		return 1 + bench_model_rep_in(c, buf);   /* select + data */
	return 1 + bench_units(c);
}

static const char *skip_fwcfg(const struct bench_case *c)
{
	if (!fw_cfg_present())
		return "no fw_cfg device (not QEMU?)";
	if (c->method == METHOD_DMA && !fw_cfg_has_dma())
		return "fw_cfg has no DMA interface (QEMU < 2.9?)";
	return NULL;
}

/* Bytes i..i+7 of the blob (i a multiple of 8, so i >> 8 is the same for
 * all eight): byte k is base + 7k mod 256, added lane by lane without
 * carries between the lanes. */
static u64 blob_word(u32 i)
{
	const u64 lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull;
	const u64 steps = 0x312a231c150e0700ull;     /* 7k in lane k */
	u64 base = (u8)blob_byte(i) * 0x0101010101010101ull;

	return ((base & lo7) + (steps & lo7)) ^ ((base ^ steps) & hi);
}

typedef u64 __attribute__((may_alias, aligned(1))) u64_unaligned;

/* The blob's first bytes as words, made once as far as a case needs them
 * (blob_word costs a dozen instructions a word, and under a software
 * hypervisor an instruction costs about a microsecond). */
static u64 expect[BENCH_BUF_SIZE / 8];
static u32 expect_len;

static void expect_upto(u32 n)
{
	for (; expect_len < n && expect_len < sizeof(expect); expect_len += 8)
		expect[expect_len / 8] = blob_word(expect_len);
}

/* Count the wrong bytes of one 32-byte block (or fewer at the end). */
static u32 bad_bytes(const u8 *buf, u32 i, u32 n)
{
	u32 k, bad = 0;

	for (k = i; k < n; k++)
		bad += buf[k] != blob_byte(k);
	return bad;
}

/* Four words a step against the made pattern; only a block that differs
 * is counted byte by byte. */
static u32 verify_fwcfg(const struct bench_case *c, const u8 *buf)
{
	u32 n = c->bytes < blob_size ? c->bytes : blob_size, i = 0, bad = 0;
	const u64_unaligned *p = (const u64_unaligned *)buf;
	const u64 *e = expect;

	expect_upto(n & ~31u);
	for (; i + 32 <= n; i += 32, p += 4, e += 4) {
		if (((p[0] ^ e[0]) | (p[1] ^ e[1]) | (p[2] ^ e[2]) | (p[3] ^ e[3])) == 0)
			continue;
		bad += bad_bytes(buf, i, i + 32);
	}
	return bad + bad_bytes(buf, i, n);
}

static void extra_pio(const struct bench_case *c, const struct bench_result *r,
		      struct jw *w)
{
	(void)c;
	(void)r;
	jw_u64(w, "string_instrs", string_instrs);
}

static const char *skip_acpi(const struct bench_case *c)
{
	(void)c;
	return pm_base ? NULL : "no ACPI PM I/O block (chipset unknown or not enabled by firmware)";
}

/* ---- the case table (kernel/suites/pio_table.c) ----------------------- */

static void setup_fwcfg(struct bench_case *c)
{
	c->arg = blob_key;
	c->op = c->method == METHOD_DMA ? op_fwcfg_dma : op_fwcfg;
	c->control = c->method == METHOD_DMA ? op_fwcfg_dma_control : op_fwcfg_control;
	c->exits_model = model_fwcfg;
	c->skip = skip_fwcfg;
	c->verify = verify_fwcfg;
	if (c->method == METHOD_DMA)
		c->port = FW_CFG_PORT_DMA_LO;
}

static void setup_ext(struct bench_case *c, const struct pio_row *row);

/* The bench case of one row, appended to the cases. */
static void add_row(const struct pio_row *row)
{
	struct bench_case *c = &cases[n_cases];

	shapes[n_cases] = row->kind == PIO_FIFO ? row->shape : SHAPE_NONE;
	kmemset(c, 0, sizeof(*c));
	c->priv = &shapes[n_cases++];
	c->suite = "pio";
	c->name = row->name;
	c->target = row->target;
	c->port = row->port;
	c->handler = row->handler;
	c->dir = row->dir;
	c->width = row->width;
	c->method = row->method;
	c->bytes = row->bytes;
	c->buf_offset = row->off;
	c->op = op_port;
	c->control = op_port_control;
	c->extra = extra_pio;
	c->rep_as_loop = c->method == METHOD_REP && !bench_cfg->rep;
	if (c->method == METHOD_SINGLE)
		c->exits_model = bench_model_units;
	else if (c->dir == DIR_IN)
		c->exits_model = bench_model_rep_in;
	else if (c->handler == HANDLER_KERNEL)
		c->exits_model = bench_model_rep_kernel_out;
	else
		c->exits_model = bench_model_units;   /* QEMU: one exit per unit */
	if (row->kind == PIO_FWCFG) {
		setup_fwcfg(c);
	} else if (row->kind == PIO_ACPI) {
		c->port = pm_base + row->port;
		c->skip = skip_acpi;
	} else if (row->kind != PIO_PORT) {
		setup_ext(c, row);
	}
}

static bool in_table(u8 set, bool quick, bool more)
{
	return set == PIO_QUICK || (set == PIO_FULL && !quick) ||
	       (set == PIO_MORE && more && !quick);
}

/* quick: one size per port class (fw_cfg 4096 and its split twin, the
 * rest 512), so a quick run stays a few seconds under a software
 * hypervisor; the full table sweeps the sizes.  more: the cost
 * breakdown's extra sweep points -- in the extended set, because the
 * default run must stay within its 15 s (docs/design.md, "Cost
 * breakdown"). */
u32 pio_build_table(bool quick, bool more)
{
	n_cases = 0;
	for (u32 i = 0; i < pio_n_rows; i++)
		if (in_table(pio_rows[i].set, quick, more))
			add_row(&pio_rows[i]);
	return n_cases;
}

const char *pio_case_name(u32 i)
{
	return i < n_cases ? cases[i].name : NULL;
}

/* ---- extended cases: coalesced and ioeventfd PIO, edk2's FIFO shapes --- */

#define CMOS_SCRATCH       0x7e        /* CMOS RAM byte nothing else uses */
#define CMOS_SCRATCH_VAL   0xa7
#define PCI_ADDR_HOST      0x80000000u /* enable, bus 0 dev 0 fn 0, reg 0 */
#define PCI_VENDOR_INTEL   0x8086      /* i440FX / Q35 host bridge */
#define PTD_IO_VALUE       0xfa        /* pci-testdev's datamatch value */

static struct pci_testdev ptd;
static const char *ptd_why;
static u64 ptd_written;
static u32 probe_traps;

static const char *skip_ptd(const struct bench_case *c)
{
	(void)c;
	return ptd_why;
}

static void op_ptd(const struct bench_case *c, u8 *buf, u64 iters)
{
	op_port(c, buf, iters);
	ptd_written += iters * bench_units(c);
}

/* The writes QEMU's handler saw: all of no-eventfd's, none of the
 * ioeventfd tests' (KVM, or QEMU under TCG, signals the eventfd). */
static u32 verify_ptd(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	return ptd_count(&ptd, false) == (c->handler == HANDLER_USER ? ptd_written : 0) ? 0 : 1;
}

/* The coalesced writes must all have landed by the time a read (never
 * coalesced) reaches QEMU: the CMOS byte the last index selects, the host
 * bridge's vendor id behind the last config address. */
static u32 verify_coalesced(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	if (c->port == RTC_INDEX_PORT)
		return inb(RTC_DATA_PORT) != CMOS_SCRATCH_VAL;
	return (inl(PCI_CONFIG_ADDR_PORT + 4) & 0xffff) != PCI_VENDOR_INTEL;
}

static u8 shape_of(const struct bench_case *c)
{
	return *(const u8 *)c->priv;
}

/* Round trips to QEMU by the model, beside exits_model's VM exits. */
static void extra_ext(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	u8 shape = shape_of(c);

	if (c->handler == HANDLER_COALESCED)
		jw_dec(w, "exits_to_qemu_model",
		       model_coalesced_user_exits_milli(bench_units(c)), 1000, 3);
	else    /* the probe's CPUID/RDMSR are answered by KVM */
		jw_u64(w, "exits_to_qemu_model", c->handler != HANDLER_USER ? 0 :
		       r->exits_model - (shape == SHAPE_PROBE_REP ? probe_traps : 0));
	if (shape) {
		jw_str(w, "fifo_shape", shape == SHAPE_LOOP ? "loop" :
		       shape == SHAPE_REP ? "rep" : "probe_rep");
		jw_u64(w, "edk2_probe_traps", shape == SHAPE_PROBE_REP ? probe_traps : 0);
	}
}

/* fw_cfg read in one of edk2's shapes: select, then the FIFO call. */
static void op_fifo(const struct bench_case *c, u8 *buf, u64 iters)
{
	u8 shape = shape_of(c);
	u32 traps;

	while (iters--) {
		bool loop = shape == SHAPE_LOOP;

		fw_cfg_select((u16)c->arg);
		if (shape == SHAPE_PROBE_REP)
			loop = edk2_fifo_no_rep(&traps);
		if (loop)
			in_loop(c->port, c->width, buf, bench_units(c));
		else
			rep_in(c->port, c->width, buf, bench_units(c));
	}
}

static u32 model_fifo(const struct bench_case *c, const u8 *buf)
{
	u8 shape = shape_of(c);
	u32 traps = 0;
	bool loop = shape == SHAPE_LOOP;

	if (shape == SHAPE_PROBE_REP)
		loop = edk2_fifo_no_rep(&traps);
	return 1 + traps + (loop ? bench_units(c) :
			    model_rep_in_exits((u64)(uintptr_t)buf, c->bytes, c->width));
}

/* debugcon write in one of edk2's shapes (IoWriteFifo8 of a message). */
static void op_fifo_out(const struct bench_case *c, u8 *buf, u64 iters)
{
	u8 shape = shape_of(c);
	u32 traps;

	while (iters--) {
		bool loop = shape == SHAPE_LOOP;

		if (shape == SHAPE_PROBE_REP)
			loop = edk2_fifo_no_rep(&traps);
		if (loop)
			out_loop(c->port, c->width, buf, bench_units(c));
		else
			rep_out(c->port, c->width, buf, bench_units(c));
	}
}

/* a QEMU port: one exit per unit either way, plus the probe's traps */
static u32 model_fifo_out(const struct bench_case *c, const u8 *buf)
{
	u32 traps = 0;

	(void)buf;
	if (shape_of(c) == SHAPE_PROBE_REP)
		edk2_fifo_no_rep(&traps);
	return traps + bench_units(c);
}

/* The extended kinds: edk2's FIFO shapes, coalesced and pci-testdev PIO. */
static void setup_ext(struct bench_case *c, const struct pio_row *row)
{
	c->extra = extra_ext;
	if (row->kind == PIO_FIFO && c->dir == DIR_IN) {
		c->arg = blob_key;
		c->op = op_fifo;
		c->exits_model = model_fifo;
		c->skip = skip_fwcfg;
		c->verify = verify_fwcfg;
		return;
	}
	if (row->kind == PIO_FIFO) {
		c->op = op_fifo_out;
		c->exits_model = model_fifo_out;
		return;
	}
	c->arg = row->kind == PIO_PTD ? row->shape : 0;
	/* in-kernel claim (coalesced ring, eventfd): re-entry per 1024 */
	if (c->method == METHOD_REP && c->handler != HANDLER_USER)
		c->exits_model = bench_model_rep_kernel_out;
	if (row->kind == PIO_PTD) {
		c->kut_name = "pci-io";
		c->op = op_ptd;
		c->skip = skip_ptd;
		c->verify = verify_ptd;
	} else {
		c->verify = verify_coalesced;
	}
}

static void add_extended(void)
{
	edk2_fifo_no_rep(&probe_traps);
	ptd_why = NULL;
	if (ptd_find(&ptd, &ptd_why))
		ptd_why = ptd_why ? ptd_why : "pci-testdev unusable";
	for (u32 i = 0; i < pio_n_rows; i++)
		if (pio_rows[i].set == PIO_EXT)
			add_row(&pio_rows[i]);
}

/* Set-up of an extended OUT case before it runs; true when it filled the
 * buffer (the values the port must see). */
static bool ext_fill(struct bench_case *c, u8 *buf, u32 len)
{
	struct ptd_test hdr;
	u32 i;

	if (c->extra != extra_ext || c->dir != DIR_OUT)
		return false;
	if (c->port == RTC_INDEX_PORT) {
		outb(CMOS_SCRATCH, RTC_INDEX_PORT);
		outb(CMOS_SCRATCH_VAL, RTC_DATA_PORT);
		kmemset(buf, CMOS_SCRATCH, len);
	} else if (c->port == PCI_CONFIG_ADDR_PORT) {
		for (i = 0; i + 4 <= len; i += 4)
			*(u32 *)(buf + i) = PCI_ADDR_HOST;
	} else if (!ptd_why) {
		kmemset(buf, PTD_IO_VALUE, len);
		if (ptd_select(&ptd, false, c->arg, &hdr))
			ptd_why = "pci-testdev header unreadable after selecting a test";
		c->port = (u16)(ptd.io + hdr.offset);   /* known now */
		ptd_written = 0;
	}
	return true;
}

/* Fill the buffer with what an OUT case writes: the pattern for QEMU
 * ports, values that leave the PIC as it was for the in-kernel ones.
 * Refilled only when the kind or length changes: under a software
 * hypervisor every store is emulated. */
static void prepare_buffer(struct bench_case *c)
{
	static u16 last_port;
	static u32 last_len;
	u32 len = c->buf_offset + c->bytes;
	u8 *buf = bench_buffer();
	u16 kind;

	if (c->dir != DIR_OUT || ext_fill(c, buf, len)) {
		last_len = 0;       /* the next case refills */
		return;
	}
	kind = (c->port == PIC1_DATA_PORT || c->port == ELCR1_PORT) ? c->port : 0;
	if (kind == last_port && len <= last_len)
		return;
	if (kind == PIC1_DATA_PORT) {
		kmemset(buf, PIC_IMR_ALL, len);
	} else if (kind == ELCR1_PORT) {
		kmemset(buf, elcr_value, len);
	} else {		/* the pattern's words, as the data checks make them */
		expect_upto((len + 7) & ~7u);
		kmemcpy(buf, expect, len);
	}
	last_port = kind;
	last_len = len;
}

/* Read the whole blob by each method and compare with the pattern. */
static void check_blob(void)
{
	static const u8 methods[] = { METHOD_SINGLE, METHOD_REP, METHOD_DMA };
	u32 len = blob_size < BLOB_CHECK_LEN ? blob_size : BLOB_CHECK_LEN;
	u32 m, bad = 0, bytes = 0;
	struct bench_case c;
	u8 *buf = bench_buffer();
	char detail[160];

	for (m = 0; m < ARRAY_SIZE(methods); m++) {
		if (methods[m] == METHOD_DMA && !fw_cfg_has_dma())
			continue;
		kmemset(&c, 0, sizeof(c));
		c.port = FW_CFG_PORT_DATA;
		c.dir = DIR_IN;
		c.width = 1;
		c.method = methods[m];
		c.bytes = len;
		c.arg = blob_key;
		kmemset(buf, 0, len);
		if (methods[m] == METHOD_DMA)
			op_fwcfg_dma(&c, buf, 1);
		else
			op_fwcfg(&c, buf, 1);
		bad += verify_fwcfg(&c, buf);
		bytes += len;
	}
	fmt_snprintf(detail, sizeof(detail), "%u bytes read by single, rep%s; %u mismatches",
		     bytes, fw_cfg_has_dma() ? ", dma" : "", bad);
	bench_check("fwcfg.blob", bad == 0, detail);
}

static void find_blob(void)
{
	struct fw_cfg_file f;

	blob_key = FW_CFG_SIGNATURE;
	blob_size = 0;
	if (fw_cfg_find(BLOB_NAME, &f) == 0 && f.size) {
		blob_key = f.select;
		blob_size = f.size;
	}
}

/* One pass over the table (one round). */
static void run_cases(void)
{
	struct bench_result r;
	u32 i;

	for (i = 0; i < n_cases; i++) {
		if (selection[i] == SEL_UNKNOWN)
			selection[i] = bench_selected(&cases[i]) ? SEL_YES : SEL_NO;
		if (selection[i] == SEL_NO)
			continue;
		prepare_buffer(&cases[i]);
		string_instrs = 0;
		if (bench_run(&cases[i], &r) < 0)
			continue;
		case_bad[i] = case_bad[i] || r.mismatches;
		ran[i] = true;
	}
}

static void pio_begin(const struct tm_config *cfg)
{
	find_blob();
	elcr_value = inb(ELCR1_PORT);
	pm_base = acpi_pm_base();
	pio_build_table(cfg->quick, !cfg->quick && suite_extended(cfg));
	if (!blob_size)
		bench_skip("pio", "fwcfg.verify",
			   "no fw_cfg file " BLOB_NAME " (boot through tools/trapmeter); fw_cfg cases read the signature item, unchecked");
	else
		check_blob();
	if (suite_extended(cfg))
		add_extended();
	kmemset(ran, 0, sizeof(ran));
	kmemset(case_bad, 0, sizeof(case_bad));
	kmemset(selection, 0, sizeof(selection));
}

/* The data checks, once over every round. */
static void pio_end(void)
{
	u32 i, cases_bad = 0, verified = 0, ext_checked = 0, ext_bad = 0;
	char detail[160];

	for (i = 0; i < n_cases; i++) {
		if (!ran[i])
			continue;
		if (cases[i].extra == extra_ext && cases[i].verify && cases[i].verify != verify_fwcfg) {
			ext_checked++;
			ext_bad += case_bad[i];
		} else if (cases[i].verify && blob_size) {
			verified++;
			cases_bad += case_bad[i];
		}
	}
	if (verified) {
		fmt_snprintf(detail, sizeof(detail), "%u fw_cfg cases, %u with wrong data",
			     verified, cases_bad);
		bench_check("fwcfg.cases", cases_bad == 0, detail);
	}
	if (ext_checked) {
		fmt_snprintf(detail, sizeof(detail),
			     "%u coalesced/ioeventfd cases, %u with wrong data or counts",
			     ext_checked, ext_bad);
		bench_check("pio.handlers", ext_bad == 0, detail);
	}
}

void suite_pio_round(const struct tm_config *cfg, u32 round)
{
	bench_round(round, cfg->rounds);	/* first: the suite line names it */
	bench_suite_begin("pio");
	if (round == 0)
		pio_begin(cfg);
	run_cases();
	bench_round(0, 1);
	if (round + 1 == cfg->rounds)
		pio_end();
}
