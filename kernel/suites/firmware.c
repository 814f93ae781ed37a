/*
 * kernel/suites/firmware.c - suite "firmware": the firmware's own port I/O
 * path, called from inside UEFI before the firmware is left.  OVMF's
 * EFI_CPU_IO2_PROTOCOL (UefiCpuPkg/CpuIo2Dxe), the PCI root bridge's
 * Io.Read/Write (MdeModulePkg/Bus/Pci/PciHostBridgeDxe, which hands port
 * I/O to CpuIo2) and the Block I/O of the IDE disk and CD (the firmware's
 * ATA/ATAPI driver, MdeModulePkg/Bus/Ata/AtaAtapiPassThru over
 * EFI_PCI_IO_PROTOCOL).
 *
 * Each case is called once single-stepped first (platform/efi_step.c):
 * the audit (model/fwaudit.h) counts what the firmware executed
 * and predicts its VM exits; then the framework times it.  A FIFO width
 * (the same port every unit) is set against the plain width of the same
 * count, called once per unit: whether the firmware batches the FIFO
 * (rep ins/outs) or traps per unit is the regression this suite guards.
 *
 * QEMU: build/trapmeter-fw.iso (boot/boot.asm's header tags 7 and 9) as
 * `-cdrom` with OVMF in pflash; the runner attaches suite ide's disk and
 * passes its CD sums (tools/trapmeterlib/guest/firmware_suite.py).
 */
#include "kernel/suites/suites.h"
#include "model/fwaudit.h"
#include "kernel/suites/idepat.h"
#include "kernel/suites/blob.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "platform/efi.h"
#include "platform/efi_step.h"
#include "drivers/platform.h"
#include "drivers/fw_cfg.h"
#include "drivers/acpi_pm.h"
#include "arch/x86/io.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"

#define SUITE            "firmware"
#define BLOB_NAME        "opt/trapmeter/blob"
#define CD_SUMS_NAME     "opt/trapmeter/cd-sums"
#define CD_SUMS_MAX      32          /* sectors the CD cases read at most */
#define CD_SECTOR        2048
#define PM_TMR_MASK      0xffffffu   /* QEMU's PM timer counts 24 bits */
#define PM_TMR_HALF      0x800000u
#define AUDIT_LINE_MAX   768
#define MAX_BLOCK_DEVS   4

enum fw_api { API_CPUIO, API_ROOT, API_BLOCK };
enum fw_target { T_FWCFG, T_DEBUGCON, T_PORT80, T_PMTMR, T_DISK, T_CD };

struct fw_row {
	const char *name;    /* API.TARGET.DIRBITS.WIDTHKIND.BYTES */
	const char *target;
	u8 api;              /* enum fw_api */
	u8 tgt;              /* enum fw_target */
	u8 dir;              /* enum bench_dir */
	u8 width;            /* bytes per unit */
	bool fifo;           /* FIFO width in one call, else one call a unit */
	u32 bytes;
};

#define IO(api, name, tgt, target, dir, w, fifo, bytes) \
	{ name, target, API_##api, T_##tgt, DIR_##dir, w, fifo, bytes }
#define BLK(name, tgt, target, bytes) \
	{ name, target, API_BLOCK, T_##tgt, DIR_IN, 0, false, bytes }

static const struct fw_row rows[] = {
	IO(CPUIO, "cpuio.fwcfg.in8.fifo.1",       FWCFG,    "cpuio.fwcfg",    IN,  1, true,  1),
	IO(CPUIO, "cpuio.fwcfg.in8.plain.1",      FWCFG,    "cpuio.fwcfg",    IN,  1, false, 1),
	IO(CPUIO, "cpuio.fwcfg.in8.fifo.16",      FWCFG,    "cpuio.fwcfg",    IN,  1, true,  16),
	IO(CPUIO, "cpuio.fwcfg.in8.plain.16",     FWCFG,    "cpuio.fwcfg",    IN,  1, false, 16),
	IO(CPUIO, "cpuio.fwcfg.in8.fifo.512",     FWCFG,    "cpuio.fwcfg",    IN,  1, true,  512),
	IO(CPUIO, "cpuio.fwcfg.in8.plain.512",    FWCFG,    "cpuio.fwcfg",    IN,  1, false, 512),
	IO(CPUIO, "cpuio.fwcfg.in8.fifo.4096",    FWCFG,    "cpuio.fwcfg",    IN,  1, true,  4096),
	IO(CPUIO, "cpuio.fwcfg.in8.plain.4096",   FWCFG,    "cpuio.fwcfg",    IN,  1, false, 4096),
	IO(CPUIO, "cpuio.pmtmr.in32.fifo.16",     PMTMR,    "cpuio.pmtmr",    IN,  4, true,  16),
	IO(CPUIO, "cpuio.pmtmr.in32.plain.16",    PMTMR,    "cpuio.pmtmr",    IN,  4, false, 16),
	IO(CPUIO, "cpuio.pmtmr.in32.fifo.512",    PMTMR,    "cpuio.pmtmr",    IN,  4, true,  512),
	IO(CPUIO, "cpuio.pmtmr.in32.plain.512",   PMTMR,    "cpuio.pmtmr",    IN,  4, false, 512),
	IO(CPUIO, "cpuio.debugcon.out8.fifo.1",   DEBUGCON, "cpuio.debugcon", OUT, 1, true,  1),
	IO(CPUIO, "cpuio.debugcon.out8.plain.1",  DEBUGCON, "cpuio.debugcon", OUT, 1, false, 1),
	IO(CPUIO, "cpuio.debugcon.out8.fifo.512", DEBUGCON, "cpuio.debugcon", OUT, 1, true,  512),
	IO(CPUIO, "cpuio.debugcon.out8.plain.512", DEBUGCON, "cpuio.debugcon", OUT, 1, false, 512),
	IO(CPUIO, "cpuio.debugcon.out8.fifo.4096", DEBUGCON, "cpuio.debugcon", OUT, 1, true,  4096),
	IO(CPUIO, "cpuio.debugcon.out8.plain.4096", DEBUGCON, "cpuio.debugcon", OUT, 1, false, 4096),
	IO(CPUIO, "cpuio.port80.out8.fifo.512",   PORT80,   "cpuio.port80",   OUT, 1, true,  512),
	IO(CPUIO, "cpuio.port80.out8.plain.512",  PORT80,   "cpuio.port80",   OUT, 1, false, 512),
	IO(CPUIO, "cpuio.port80.out16.fifo.512",  PORT80,   "cpuio.port80",   OUT, 2, true,  512),
	IO(CPUIO, "cpuio.port80.out16.plain.512", PORT80,   "cpuio.port80",   OUT, 2, false, 512),
	IO(CPUIO, "cpuio.port80.out32.fifo.512",  PORT80,   "cpuio.port80",   OUT, 4, true,  512),
	IO(CPUIO, "cpuio.port80.out32.plain.512", PORT80,   "cpuio.port80",   OUT, 4, false, 512),
	IO(ROOT,  "rootbridge.fwcfg.in8.fifo.16",    FWCFG, "rootbridge.fwcfg",    IN,  1, true,  16),
	IO(ROOT,  "rootbridge.fwcfg.in8.plain.16",   FWCFG, "rootbridge.fwcfg",    IN,  1, false, 16),
	IO(ROOT,  "rootbridge.fwcfg.in8.fifo.512",   FWCFG, "rootbridge.fwcfg",    IN,  1, true,  512),
	IO(ROOT,  "rootbridge.fwcfg.in8.plain.512",  FWCFG, "rootbridge.fwcfg",    IN,  1, false, 512),
	IO(ROOT,  "rootbridge.fwcfg.in8.fifo.4096",  FWCFG, "rootbridge.fwcfg",    IN,  1, true,  4096),
	IO(ROOT,  "rootbridge.fwcfg.in8.plain.4096", FWCFG, "rootbridge.fwcfg",    IN,  1, false, 4096),
	IO(ROOT,  "rootbridge.debugcon.out8.fifo.512",  DEBUGCON, "rootbridge.debugcon", OUT, 1, true,  512),
	IO(ROOT,  "rootbridge.debugcon.out8.plain.512", DEBUGCON, "rootbridge.debugcon", OUT, 1, false, 512),
	BLK("blockio.disk.read.512",   DISK, "blockio.disk", 512),
	BLK("blockio.disk.read.4096",  DISK, "blockio.disk", 4096),
	BLK("blockio.disk.read.65536", DISK, "blockio.disk", 65536),
	BLK("blockio.cd.read.2048",    CD,   "blockio.cd",   2048),
	BLK("blockio.cd.read.32768",   CD,   "blockio.cd",   32768),
};
#define N_ROWS ARRAY_SIZE(rows)

static struct efi_env env;
static struct efi_block_dev disk, cd;
static bool have_disk, have_cd;
static u16 blob_key;
static u16 pm_tmr_port;
static u64 cd_sums[CD_SUMS_MAX];
static u32 n_cd_sums;
static struct bench_case cases[N_ROWS];
static struct fwaudit audits[N_ROWS];
static efi_status audit_status[N_ROWS];

static u16 row_port(const struct fw_row *r)
{
	switch (r->tgt) {
	case T_FWCFG: return FW_CFG_PORT_DATA;
	case T_DEBUGCON: return DEBUGCON_PORT;
	case T_PORT80: return POST_PORT;
	case T_PMTMR: return pm_tmr_port;
	}
	return 0;
}

/* EFI_CPU_IO_PROTOCOL_WIDTH of a unit of w bytes */
static u64 io_width(u32 w, bool fifo)
{
	u64 base = fifo ? EFI_IO_FIFO_UINT8 : EFI_IO_UINT8;

	return base + (w == 1 ? 0 : w == 2 ? 1 : 2);
}

/* A single-step trap, to the audit. */
static bool on_step(void *ctx, const struct efi_step_frame *f)
{
	return fwaudit_step(ctx, f->rip, (const u8 *)(uintptr_t)f->rip, f->rdx,
			    f->rcx, f->rdi, f->rsi);
}

static efi_status stepped(struct fwaudit *a, u64 fn, u64 a1, u64 a2, u64 a3, u64 a4,
			  u64 a5)
{
	bool returned;
	efi_status s;

	fwaudit_call_begin(a);
	s = efi_step_call(on_step, a, &returned, fn, a1, a2, a3, a4, a5);
	a->returned += returned;
	return s;
}

/* One firmware call, single-stepped into a when a is not NULL. */
static efi_status call(struct fwaudit *a, u64 fn, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5)
{
	if (a)
		return stepped(a, fn, a1, a2, a3, a4, a5);
	return efi_call5(fn, a1, a2, a3, a4, a5);
}

static efi_status port_io(const struct fw_row *r, u8 *buf, struct fwaudit *a)
{
	bool cpu = r->api == API_CPUIO, in = r->dir == DIR_IN;
	u64 self = cpu ? env.cpu_io2 : env.root_bridge;
	u64 fn = cpu ? (in ? efi_cpu_io_read(&env) : efi_cpu_io_write(&env)) :
		 (in ? efi_root_bridge_io_read(&env) : efi_root_bridge_io_write(&env));
	u32 i, units = r->bytes / r->width;
	efi_status s = EFI_SUCCESS;

	/* fw_cfg: our own select (not the firmware's) restarts the blob */
	if (r->tgt == T_FWCFG)
		outw(blob_key, FW_CFG_PORT_SEL);
	/* rep=off: the FIFO case in the plain width, as a CpuIo2 without its
	 * FIFO path would do it (the regression's shape, for compare/ab) */
	if (r->fifo && bench_cfg->rep)
		return call(a, fn, self, io_width(r->width, true), row_port(r), units,
			    (u64)(uintptr_t)buf);
	for (i = 0; i < units && s == EFI_SUCCESS; i++)
		s = call(a, fn, self, io_width(r->width, false), row_port(r), 1,
			 (u64)(uintptr_t)(buf + i * r->width));
	return s;
}

static efi_status block_read(const struct fw_row *r, u8 *buf, struct fwaudit *a)
{
	const struct efi_block_dev *d = r->tgt == T_DISK ? &disk : &cd;

	return call(a, efi_block_read_blocks(d), d->block_io, d->media->media_id, 0,
		    r->bytes, (u64)(uintptr_t)buf);
}

static efi_status row_call(const struct fw_row *r, u8 *buf, struct fwaudit *a)
{
	return r->api == API_BLOCK ? block_read(r, buf, a) : port_io(r, buf, a);
}

static const struct fw_row *row_of(const struct bench_case *c)
{
	return &rows[c->arg];
}

static void op(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		row_call(row_of(c), buf, NULL);
}

/* Exits of one op: the audit's prediction, plus our fw_cfg select. */
static u32 exits_model(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	return (u32)audits[c->arg].exits + (row_of(c)->tgt == T_FWCFG);
}

static const char *missing(const struct fw_row *r)
{
	if (r->api == API_CPUIO && !env.cpu_io2)
		return "no EFI_CPU_IO2_PROTOCOL in this firmware";
	if (r->api == API_ROOT && !env.root_bridge)
		return "no EFI_PCI_ROOT_BRIDGE_IO_PROTOCOL in this firmware";
	if (r->tgt == T_DISK && !have_disk)
		return "no Block I/O device with 512-byte blocks (the runner attaches suite ide's disk as IDE dev0)";
	if (r->tgt == T_CD && !have_cd)
		return "no Block I/O device with 2048-byte blocks (the CD)";
	if (r->tgt == T_FWCFG && !blob_key)
		return "no fw_cfg file opt/trapmeter/blob";
	if (r->tgt == T_PMTMR && !pm_tmr_port)
		return "no ACPI PM block found";
	if (r->api == API_BLOCK && r->bytes % (r->tgt == T_CD ? CD_SECTOR : IDEPAT_SECTOR))
		return "size not a whole number of blocks";
	return NULL;
}

static void emit_audit(const char *name, const struct fwaudit *a, efi_status s, bool checked);
static bool checkable(const struct fw_row *r);

/* Before the timing: the single-stepped call (the audit), which is also
 * the probe: a missing protocol or device, or an error, skips the case. */
static const char *skip(const struct bench_case *c)
{
	static char why[160];
	const struct fw_row *r = row_of(c);
	struct fwaudit *a = &audits[c->arg];
	const char *m = missing(r);

	if (m)
		return m;
	fwaudit_reset(a);
	audit_status[c->arg] = row_call(r, bench_buffer() + c->buf_offset, a);
	emit_audit(c->name, a, audit_status[c->arg], checkable(r));
	if (audit_status[c->arg] == EFI_SUCCESS)
		return NULL;
	fmt_snprintf(why, sizeof(why), "the firmware's call returned %s (0x%lx)",
		     efi_status_name(audit_status[c->arg]), audit_status[c->arg]);
	return why;
}

static u32 verify_fwcfg(const u8 *buf, u32 bytes)
{
	u32 i, bad = 0;

	for (i = 0; i < bytes; i++)
		bad += buf[i] != blob_byte(i);
	return bad;
}

/* PM timer reads: each no earlier than the one before (mod 2^24) */
static u32 verify_pmtmr(const u8 *buf, u32 bytes)
{
	u32 i, prev, cur, bad = 0;

	kmemcpy(&prev, buf, 4);
	for (i = 4; i + 4 <= bytes; i += 4) {
		kmemcpy(&cur, buf + i, 4);
		bad += ((cur - prev) & PM_TMR_MASK) >= PM_TMR_HALF;
		prev = cur;
	}
	return bad;
}

static u32 verify_blocks(const struct fw_row *r, const u8 *buf)
{
	u32 i, bad = 0;

	if (r->tgt == T_DISK) {
		for (i = 0; i < r->bytes / IDEPAT_SECTOR; i++)
			bad += !idepat_match(buf + i * IDEPAT_SECTOR, i, 0);
		return bad;
	}
	for (i = 0; i < r->bytes / CD_SECTOR && i < n_cd_sums; i++)
		bad += idepat_sum(buf + i * CD_SECTOR, CD_SECTOR) != cd_sums[i];
	return bad;
}

static u32 verify(const struct bench_case *c, const u8 *buf)
{
	const struct fw_row *r = row_of(c);

	if (r->tgt == T_FWCFG)
		return verify_fwcfg(buf, r->bytes);
	if (r->tgt == T_PMTMR)
		return verify_pmtmr(buf, r->bytes);
	return verify_blocks(r, buf);
}

/* Whether a row's data can be checked at all (writes cannot). */
static bool checkable(const struct fw_row *r)
{
	if (r->tgt == T_CD)
		return n_cd_sums >= r->bytes / CD_SECTOR;
	return r->dir == DIR_IN;
}

static void emit_io_counts(struct jw *w, const struct fwaudit *a)
{
	u32 k, wi;

	jw_key_obj(w, "io");
	for (k = 0; k < FWAUDIT_KINDS; k++)
		for (wi = 0; wi < FWAUDIT_WIDTHS; wi++)
			if (a->io[k][wi])
				jw_u64(w, fwaudit_kind_name(k, wi), a->io[k][wi]);
	jw_obj_end(w);
}

static void emit_audit(const char *name, const struct fwaudit *a, efi_status s, bool checked)
{
	char line[AUDIT_LINE_MAX];
	u64 ports[FWAUDIT_PORTS];
	u32 i, kept = a->n_ports < FWAUDIT_PORTS ? a->n_ports : FWAUDIT_PORTS;
	struct jw w;

	for (i = 0; i < kept; i++)
		ports[i] = a->ports[i];
	jw_record(&w, line, sizeof(line), "fwaudit");
	jw_str(&w, "suite", SUITE);
	jw_str(&w, "case", name);
	jw_str(&w, "status", efi_status_name(s));
	jw_str(&w, "path", fwaudit_path(a));
	jw_u64(&w, "calls", a->calls);
	jw_u64(&w, "insns", a->insns);
	jw_u64(&w, "traps", a->traps);
	emit_io_counts(&w, a);
	jw_u64(&w, "units", a->units);
	jw_u64(&w, "bytes", a->bytes);
	jw_u64(&w, "max_rep", a->max_rep);
	jw_u64s(&w, "ports", ports, kept);
	jw_u64(&w, "n_ports", a->n_ports);
	jw_u64(&w, "cpuid", a->cpuid);
	jw_u64(&w, "msr", a->msr);
	jw_u64(&w, "hlt", a->hlt);
	jw_u64(&w, "exits_model", a->exits);
	jw_bool(&w, "cut", a->cut);
	jw_u64(&w, "budget_traps", FWAUDIT_BUDGET_TRAPS);
	jw_bool(&w, "complete", !a->cut && a->returned == a->calls);
	jw_bool(&w, "data_checked", checked);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	kprintf("audit %s: %s, %lu insns, path %s, %lu exits (model)%s\n", name,
		efi_status_name(s), a->insns, fwaudit_path(a), a->exits,
		a->cut ? ", CUT at the budget" : "");
}

/* The runner's blob, the PM timer and the CD sums (ours, not firmware's). */
static void find_data(void)
{
	struct fw_cfg_file f;
	u16 pm = acpi_pm_base();

	blob_key = fw_cfg_find(BLOB_NAME, &f) == 0 ? f.select : 0;
	pm_tmr_port = pm ? (u16)(pm + ACPI_PM_TMR) : 0;
	n_cd_sums = 0;
	if (fw_cfg_find(CD_SUMS_NAME, &f) == 0) {
		n_cd_sums = f.size / 8 < CD_SUMS_MAX ? f.size / 8 : CD_SUMS_MAX;
		fw_cfg_read(f.select, cd_sums, n_cd_sums * 8);
	}
}

static void find_blocks(void)
{
	struct efi_block_dev d[MAX_BLOCK_DEVS];

	have_disk = efi_block_devices(&env, IDEPAT_SECTOR, d, MAX_BLOCK_DEVS) > 0;
	if (have_disk)
		disk = d[0];
	have_cd = efi_block_devices(&env, CD_SECTOR, d, MAX_BLOCK_DEVS) > 0;
	if (have_cd)
		cd = d[0];
}

/* One line naming the firmware and what it offers. */
static void emit_env(void)
{
	char line[512];
	struct jw w;

	jw_record(&w, line, sizeof(line), "firmware");
	jw_str(&w, "suite", SUITE);
	jw_str(&w, "vendor", env.fw_vendor);
	jw_hex(&w, "revision", env.fw_revision);
	jw_bool(&w, "cpu_io2", env.cpu_io2 != 0);
	jw_bool(&w, "root_bridge_io", env.root_bridge != 0);
	jw_bool(&w, "block_io_disk", have_disk);
	jw_bool(&w, "block_io_cd", have_cd);
	jw_u64(&w, "disk_blocks", have_disk ? disk.media->last_block + 1 : 0);
	jw_u64(&w, "cd_blocks", have_cd ? cd.media->last_block + 1 : 0);
	jw_u64(&w, "cd_sums", n_cd_sums);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	kprintf("firmware: %s rev 0x%x; CpuIo2 %s, root bridge %s, disk %s, CD %s\n",
		env.fw_vendor, env.fw_revision, env.cpu_io2 ? "yes" : "no",
		env.root_bridge ? "yes" : "no", have_disk ? "yes" : "no",
		have_cd ? "yes" : "no");
}

static void build_case(u32 i)
{
	const struct fw_row *r = &rows[i];
	struct bench_case *c = &cases[i];

	kmemset(c, 0, sizeof(*c));
	c->suite = SUITE;
	c->name = r->name;
	c->target = r->target;
	c->port = row_port(r);
	c->handler = HANDLER_USER;
	c->dir = r->dir;
	c->width = r->api == API_BLOCK ? 2 : r->width;   /* IDE data: 16-bit */
	c->method = r->fifo ? METHOD_REP : METHOD_SINGLE;
	c->rep_as_loop = r->fifo && r->api != API_BLOCK && !bench_cfg->rep;
	c->bytes = r->bytes;
	c->arg = i;
	c->op = op;
	c->no_control = "the firmware call is the operation: it has no trap-free twin";
	c->exits_model = exits_model;
	c->skip = skip;
	c->verify = checkable(r) ? verify : NULL;
}

/* The audit against a hand count (platform/efi_call.asm's
 * efi_audit_selftest), through the same stepping as the firmware's calls. */
static void audit_selftest(void)
{
	char detail[200];
	struct fwaudit a;
	bool ok;

	fwaudit_reset(&a);
	stepped(&a, (u64)(uintptr_t)efi_audit_selftest, (u64)(uintptr_t)bench_buffer(),
		0, 0, 0, 0);
	emit_audit("audit.selftest", &a, EFI_SUCCESS, false);
	ok = a.insns == EFI_SELFTEST_INSNS && a.traps == EFI_SELFTEST_TRAPS &&
	     a.io[FWAUDIT_REP_OUTS][0] == 1 && a.io[FWAUDIT_IN][0] == 1 &&
	     a.units == EFI_SELFTEST_UNITS + 1 && a.exits == EFI_SELFTEST_EXITS &&
	     a.returned == 1 && !a.cut;
	fmt_snprintf(detail, sizeof(detail), "%lu insns, %lu traps, %lu units, %lu exits "
		     "(hand count %u, %u, %u, %u)", a.insns, a.traps, a.units, a.exits,
		     EFI_SELFTEST_INSNS, EFI_SELFTEST_TRAPS, EFI_SELFTEST_UNITS + 1,
		     EFI_SELFTEST_EXITS);
	bench_check("firmware.audit_selftest", ok, detail);
}

static void check_cases(const struct bench_tally *t)
{
	char detail[160];

	fmt_snprintf(detail, sizeof(detail), "%u cases ran; %u with data that did not match%s%s",
		     t->ran, t->bad, t->bad ? ", first " : "", t->bad ? t->first_bad : "");
	bench_check("firmware.data", t->bad == 0, detail);
}

void suite_firmware(const struct tm_config *cfg, u64 system_table, u64 image_handle,
		    bool boot_services)
{
	struct bench_tally t = { 0 };
	u32 i;

	bench_suite_begin(SUITE);
	if (!boot_services || efi_init(&env, system_table, image_handle) != 0) {
		bench_skip(SUITE, "*", "UEFI boot services are not available: suite firmware "
			   "runs from build/trapmeter-fw.iso on OVMF (--boot iso --firmware ovmf)");
		cmdline_note_suite_skipped();
		return;
	}
	find_data();
	find_blocks();
	emit_env();
	audit_selftest();
	for (i = 0; i < N_ROWS; i++)
		build_case(i);
	bench_run_cases(cfg, cases, N_ROWS, NULL, &t);
	check_cases(&t);
}
