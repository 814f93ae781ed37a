/*
 * kernel/suites/pio.c - suite "pio": REP string port I/O against one
 * in/out per unit, per port class, width and size.
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
#include "kernel/bench.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/platform.h"
#include "drivers/fw_cfg.h"
#include "drivers/acpi_pm.h"
#include "drivers/pci_testdev.h"
#include "kernel/suites/edk2_fifo.h"
#include "model/model.h"
#include "lib/json.h"
#include "arch/x86/io.h"
#include "arch/x86/control.h"

#define BLOB_NAME      "opt/trapmeter/blob"
#define SPLIT_OFFSET   (BENCH_PAGE - 512)   /* 512 B before a page end */
#define MAX_CASES      176
#define NAME_LEN       48
#define PIC_IMR_ALL    0xff
/* check_blob reads this much by each method; the per-case checks cover
 * every longer read the selected cases make (and each byte checked costs
 * microseconds under a software hypervisor) */
#define BLOB_CHECK_LEN 4096

enum fifo_shape { SHAPE_NONE, SHAPE_LOOP, SHAPE_REP, SHAPE_PROBE_REP };

static struct bench_case cases[MAX_CASES];
static u8 shapes[MAX_CASES];
static char names[MAX_CASES][NAME_LEN];
static u32 n_cases;
static bool ran[MAX_CASES];	/* the case ran (in some round) */
/* bench_selected, asked once per boot: 0 not yet, else SEL_YES / SEL_NO.
 * Under PVM the glob matching and the buffer fills of a table of ~170
 * cases cost about 0.2 s a round; only the selected few need them. */
enum { SEL_UNKNOWN, SEL_YES, SEL_NO };
static u8 selection[MAX_CASES];
static bool case_bad[MAX_CASES];	/* its data or counts were wrong in some round */
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

/* byte i of the runner's blob; tools/trapmeterlib writes the same */
static u8 blob_byte(u32 i)
{
	return (u8)(i * 7 + (i >> 8) + 0x5a);
}

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

/* ---- the case table --------------------------------------------------- */

static struct bench_case *add(const char *target, u16 port, u8 handler, u8 dir,
			      u8 width, u8 method, u32 bytes, u32 off)
{
	struct bench_case *c;
	char *name;

	if (n_cases == MAX_CASES)
		return NULL;
	c = &cases[n_cases];
	shapes[n_cases] = SHAPE_NONE;
	name = names[n_cases++];
	fmt_snprintf(name, NAME_LEN, "%s.%s%u.%s.%u%s", target,
		     dir == DIR_IN ? "in" : "out", width * 8, bench_method_name(method),
		     bytes, off ? ".split" : "");
	kmemset(c, 0, sizeof(*c));
	c->suite = "pio";
	c->name = name;
	c->target = target;
	c->port = port;
	c->handler = handler;
	c->dir = dir;
	c->width = width;
	c->method = method;
	c->bytes = bytes;
	c->buf_offset = off;
	c->op = op_port;
	c->control = op_port_control;
	c->extra = extra_pio;
	c->rep_as_loop = method == METHOD_REP && !bench_cfg->rep;
	if (method == METHOD_SINGLE)
		c->exits_model = bench_model_units;
	else if (dir == DIR_IN)
		c->exits_model = bench_model_rep_in;
	else if (handler == HANDLER_KERNEL)
		c->exits_model = bench_model_rep_kernel_out;
	else
		c->exits_model = bench_model_units;   /* QEMU: one exit per unit */
	return c;
}

/* Single-unit loops above this size are extended cases: they show the
 * per-exit figure the 4 KiB loop already shows, at up to 16x its time
 * (the 64 KiB loop alone took 2.1 s of a 18 s default run under KVM here). */
#define FW_SINGLE_MAX_DEFAULT 4096
#define FW_SINGLE (1u << 0)	/* bits of add_fwcfg_methods' mask */
#define FW_REP    (1u << 1)
#define FW_DMA    (1u << 2)

/* the fw_cfg cases of one size; MASK: bit i for methods[i] below */
static void add_fwcfg_methods(u32 bytes, u32 off, u32 mask)
{
	static const u8 methods[] = { METHOD_SINGLE, METHOD_REP, METHOD_DMA };
	struct bench_case *c;
	u32 m;

	for (m = 0; m < ARRAY_SIZE(methods); m++) {
		if (!(mask & (1u << m)))
			continue;
		c = add("fwcfg", FW_CFG_PORT_DATA, HANDLER_USER, DIR_IN, 1, methods[m], bytes, off);
		if (!c)
			return;
		c->arg = blob_key;
		c->op = methods[m] == METHOD_DMA ? op_fwcfg_dma : op_fwcfg;
		c->control = methods[m] == METHOD_DMA ? op_fwcfg_dma_control : op_fwcfg_control;
		c->exits_model = model_fwcfg;
		c->skip = skip_fwcfg;
		c->verify = verify_fwcfg;
		if (methods[m] == METHOD_DMA)
			c->port = FW_CFG_PORT_DMA_LO;
	}
}

/* every method of one size; a long single loop only in the extended set */
static void add_fwcfg(u32 bytes, u32 off, bool dma)
{
	u32 mask = FW_REP | (dma ? FW_DMA : 0);

	if (bytes <= FW_SINGLE_MAX_DEFAULT)
		mask |= FW_SINGLE;
	add_fwcfg_methods(bytes, off, mask);
}

static const u32 fw_full[] = { 1, 16, 512, 1024, 2048, 4096, 16384, 65536 };
/* the single loops add_fwcfg left out of the default table */
static void add_long_fwcfg_loops(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(fw_full); i++)
		if (fw_full[i] > FW_SINGLE_MAX_DEFAULT)
			add_fwcfg_methods(fw_full[i], 0, FW_SINGLE);
}

static void add_pair(const char *target, u16 port, u8 handler, u8 dir, u8 width, u32 bytes)
{
	add(target, port, handler, dir, width, METHOD_SINGLE, bytes, 0);
	add(target, port, handler, dir, width, METHOD_REP, bytes, 0);
}

/* rep ins and rep outs of an in-kernel port, without their single loops */
static void add_kernel_rep(const char *target, u16 port, u32 bytes)
{
	add(target, port, HANDLER_KERNEL, DIR_IN, 1, METHOD_REP, bytes, 0);
	add(target, port, HANDLER_KERNEL, DIR_OUT, 1, METHOD_REP, bytes, 0);
}

/* rep_only: the rep ins alone (no single loop of that size) */
static void add_acpi(const char *target, u16 reg, u8 width, u32 bytes, bool rep_only)
{
	struct bench_case *c;
	u32 m;

	for (m = rep_only ? 1 : 0; m < 2; m++) {
		c = add(target, pm_base + reg, HANDLER_USER, DIR_IN, width,
			m ? METHOD_REP : METHOD_SINGLE, bytes, 0);
		if (c)
			c->skip = skip_acpi;
	}
}

/* quick: one size per port class (fw_cfg 4096 and its split twin, the
 * rest 512), so a quick run stays a few seconds under a software
 * hypervisor; the full table sweeps the sizes.  more: the cost
 * breakdown's extra sweep points (QEMU ports at 4 B, the in-kernel ports
 * at 64 B and rep only at 2048 B, the ACPI registers' rep at 8192 B) --
 * in the extended set, because the default run must stay within its 15 s
 * (docs/design.md, "Cost breakdown"). */
u32 pio_build_table(bool quick, bool more)
{
	static const u32 fw_quick[] = { 4096 };
	static const u32 split_full[] = { 1024, 2048, 16384 };
	/* QEMU's ports: small sizes too, where a string instruction's own
	 * set-up shows beside its exits */
	static const u32 qemu_sizes[] = { 1, 16, 64, 512, 4096 };
	static const u32 qemu_more[] = { 1, 4, 16, 64, 512, 4096 };
	/* the in-kernel ports, and rep only at 2048 B: KVM's emulator returns
	 * to the guest every 1 KiB of units, so 1, 2 and 4 exits at 512, 2048
	 * and 4096 B pin the breakdown's per-exit term apart from per-unit */
	static const u32 out_sizes[] = { 1, 512, 4096 };
	static const u32 out_more[] = { 1, 64, 512, 4096 };
	static const u32 kernel_rep_only = 2048;
	/* the ACPI registers' rep ins batch (1 KiB per exit): sizes between
	 * 512 and 4096 pin their per-unit slope */
	static const u32 acpi_sizes[] = { 16, 64, 512, 1024, 2048, 4096 };
	static const u32 acpi_rep_only = 8192;  /* a second row above 4 KiB */
	static const u32 out_quick[] = { 512 };
	const u32 *fw = quick ? fw_quick : fw_full;
	u32 n_fw = quick ? ARRAY_SIZE(fw_quick) : ARRAY_SIZE(fw_full);
	const u32 *outs = quick ? out_quick : more ? out_more : out_sizes;
	u32 n_out = quick ? ARRAY_SIZE(out_quick) : more ? ARRAY_SIZE(out_more) :
		    ARRAY_SIZE(out_sizes);
	const u32 *qs = quick ? out_quick : more ? qemu_more : qemu_sizes;
	u32 n_q = quick ? ARRAY_SIZE(out_quick) : more ? ARRAY_SIZE(qemu_more) :
		  ARRAY_SIZE(qemu_sizes);
	const u32 *as = quick ? out_quick : acpi_sizes;
	u32 n_a = quick ? ARRAY_SIZE(out_quick) : ARRAY_SIZE(acpi_sizes);
	u32 i, w;

	n_cases = 0;
	for (i = 0; i < n_fw; i++)
		add_fwcfg(fw[i], 0, true);
	/* the same reads from a buffer that starts 512 B before a page end */
	add_fwcfg(4096, SPLIT_OFFSET, false);
	/* more split reads, rep ins only: the exit a page split adds at the
	 * same size is what tells the cost breakdown's per-exit term from its
	 * per-unit term (tools/trapmeterlib/breakdown.py); a single-unit loop
	 * takes one exit per unit wherever its buffer lies, so its split twin
	 * beyond the 4 KiB one would only repeat it */
	for (i = 0; !quick && i < ARRAY_SIZE(split_full); i++)
		add_fwcfg_methods(split_full[i], SPLIT_OFFSET, FW_REP);
	if (!quick)     /* 16 B across a page end: 3 exits where 16 B take 2 */
		add_fwcfg_methods(16, BENCH_PAGE - 8, FW_REP);
	for (i = 0; i < n_q; i++)
		add_pair("debugcon", DEBUGCON_PORT, HANDLER_USER, DIR_OUT, 1, qs[i]);
	for (w = 1; w <= 4; w *= 2)
		for (i = 0; i < n_q; i++)
			if (qs[i] >= w)
				add_pair("port80", POST_PORT, HANDLER_USER, DIR_OUT, w, qs[i]);
	for (i = 0; i < n_a; i++) {
		add_acpi("acpi.pm1", ACPI_PM1_STS, 2, as[i], false);
		add_acpi("acpi.tmr", ACPI_PM_TMR, 4, as[i], false);
	}
	if (more) {
		add_acpi("acpi.pm1", ACPI_PM1_STS, 2, acpi_rep_only, true);
		add_acpi("acpi.tmr", ACPI_PM_TMR, 4, acpi_rep_only, true);
	}
	for (i = 0; i < n_out; i++) {
		add_pair("pic", PIC1_DATA_PORT, HANDLER_KERNEL, DIR_IN, 1, outs[i]);
		add_pair("pic", PIC1_DATA_PORT, HANDLER_KERNEL, DIR_OUT, 1, outs[i]);
	}
	if (more)
		add_kernel_rep("pic", PIC1_DATA_PORT, kernel_rep_only);
	for (i = 0; i < n_out; i++) {
		add_pair("elcr", ELCR1_PORT, HANDLER_KERNEL, DIR_IN, 1, outs[i]);
		add_pair("elcr", ELCR1_PORT, HANDLER_KERNEL, DIR_OUT, 1, outs[i]);
	}
	if (more)
		add_kernel_rep("elcr", ELCR1_PORT, kernel_rep_only);
	return n_cases;
}

const char *pio_case_name(u32 i)
{
	return i < n_cases ? cases[i].name : NULL;
}

/* ---- extended cases: coalesced and ioeventfd PIO, edk2's FIFO shapes --- */

#define EXT_UNITS          512
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

/* Round trips to QEMU by the model, beside exits_model's VM exits. */
static void extra_ext(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	u8 shape = shapes[c - cases];

	if (c->handler == HANDLER_COALESCED)
		jw_dec(w, "exits_to_qemu_model",
		       model_coalesced_user_exits_milli(bench_units(c)), 1000, 3);
	else    /* the probe's CPUID/RDMSR are answered by KVM */
		jw_u64(w, "exits_to_qemu_model", c->handler != HANDLER_USER ? 0 :
		       r->exits_model - (shape == SHAPE_PROBE_REP ? probe_traps : 0));
	if (c->target[0] == 'p')
		jw_str(w, "kut_name", "pci-io");
	if (shape) {
		jw_str(w, "fifo_shape", shape == SHAPE_LOOP ? "loop" :
		       shape == SHAPE_REP ? "rep" : "probe_rep");
		jw_u64(w, "edk2_probe_traps", shape == SHAPE_PROBE_REP ? probe_traps : 0);
	}
}

/* fw_cfg read in one of edk2's shapes: select, then the FIFO call. */
static void op_fifo(const struct bench_case *c, u8 *buf, u64 iters)
{
	u8 shape = shapes[c - cases];
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
	u8 shape = shapes[c - cases];
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
	u8 shape = shapes[c - cases];
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
	if (shapes[c - cases] == SHAPE_PROBE_REP)
		edk2_fifo_no_rep(&traps);
	return traps + bench_units(c);
}

/* One edk2 FIFO shape case of TARGET: named TARGET.fifo.SHAPE.EXT_UNITS;
 * NULL when the table is full. */
static struct bench_case *add_fifo_case(const char *target, u16 port, u8 dir, u8 shape)
{
	static const char *const shape_names[] = { "", "loop", "rep", "probe_rep" };
	struct bench_case *c = add(target, port, HANDLER_USER, dir, 1,
				   shape == SHAPE_LOOP ? METHOD_SINGLE : METHOD_REP, EXT_UNITS, 0);

	if (!c)
		return NULL;
	fmt_snprintf(names[c - cases], NAME_LEN, "%s.fifo.%s.%u", target, shape_names[shape],
		     EXT_UNITS);
	shapes[c - cases] = shape;
	c->extra = extra_ext;
	return c;
}

static void add_fifo_out(u8 shape)
{
	struct bench_case *c = add_fifo_case("debugcon", DEBUGCON_PORT, DIR_OUT, shape);

	if (!c)
		return;
	c->op = op_fifo_out;
	c->exits_model = model_fifo_out;
	c->verify = NULL;
}

static void add_fifo(u8 shape)
{
	struct bench_case *c = add_fifo_case("fwcfg", FW_CFG_PORT_DATA, DIR_IN, shape);

	if (!c)
		return;
	c->arg = blob_key;
	c->op = op_fifo;
	c->exits_model = model_fifo;
	c->skip = skip_fwcfg;
	c->verify = verify_fwcfg;
}

static void add_ext_pair(const char *target, u16 port, u8 handler, u8 width, u32 arg)
{
	struct bench_case *c;
	u32 m;

	for (m = 0; m < 2; m++) {
		c = add(target, port, handler, DIR_OUT, width, m ? METHOD_REP : METHOD_SINGLE,
			EXT_UNITS * width, 0);
		if (!c)
			return;
		c->extra = extra_ext;
		c->arg = arg;
		/* in-kernel claim (coalesced ring, eventfd): re-entry per 1024 */
		if (m && handler != HANDLER_USER)
			c->exits_model = bench_model_rep_kernel_out;
		if (target[0] == 'p') {
			c->op = op_ptd;
			c->skip = skip_ptd;
			c->verify = verify_ptd;
		} else {
			c->verify = verify_coalesced;
		}
	}
}

static void add_extended(void)
{
	static const char *const ptd_targets[] = { "ptd.io.nofd", "ptd.io.wildcard",
						   "ptd.io.datamatch" };
	u32 t;

	add_long_fwcfg_loops();
	edk2_fifo_no_rep(&probe_traps);
	add_fifo(SHAPE_LOOP);
	add_fifo(SHAPE_REP);
	add_fifo(SHAPE_PROBE_REP);
	add_fifo_out(SHAPE_LOOP);
	add_fifo_out(SHAPE_REP);
	add_fifo_out(SHAPE_PROBE_REP);
	add_ext_pair("rtc", RTC_INDEX_PORT, HANDLER_COALESCED, 1, 0);
	add_ext_pair("cf8", PCI_CONFIG_ADDR_PORT, HANDLER_COALESCED, 4, 0);
	ptd_why = NULL;
	if (ptd_find(&ptd, &ptd_why))
		ptd_why = ptd_why ? ptd_why : "pci-testdev unusable";
	for (t = 0; t < PTD_TESTS; t++)
		add_ext_pair(ptd_targets[t], 0, t ? HANDLER_IOEVENTFD : HANDLER_USER, 1, t);
}

/* Set-up of an extended OUT case before it runs; true when it filled the
 * buffer (the values the port must see). */
static bool ext_fill(const struct bench_case *c, u8 *buf, u32 len)
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
		cases[c - cases].port = (u16)(ptd.io + hdr.offset);   /* known now */
		ptd_written = 0;
	}
	return true;
}

/* Fill the buffer with what an OUT case writes: the pattern for QEMU
 * ports, values that leave the PIC as it was for the in-kernel ones.
 * Refilled only when the kind or length changes: under a software
 * hypervisor every store is emulated. */
static void prepare_buffer(const struct bench_case *c)
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

void suite_pio(const struct tm_config *cfg)
{
	u32 i;

	for (i = 0; i < cfg->rounds; i++)
		suite_pio_round(cfg, i);
}
