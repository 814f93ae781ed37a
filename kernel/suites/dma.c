/*
 * kernel/suites/dma.c - suite "dma": what a device model's access to guest
 * memory costs, by direction, size and page crossing, with and without a
 * virtual IOMMU translating it.
 *
 * Devices:
 *   bm.*     the PIIX IDE function's bus-master DMA (drivers/ide_bm.h) on
 *            the ATA disk the ide suite's runner attaches (every sector
 *            stamped by kernel/idepat.h; fw_cfg opt/trapmeter/ide names
 *            the writable region): READ DMA (the device writes guest
 *            memory) and WRITE DMA (it reads guest memory), 512 B..64 KiB
 *            a command, one PRD against many small ones, regions ending
 *            inside a page against regions crossing one.
 *   vnet.*   virtio-net reading a transmit frame and writing a receive
 *            buffer through a QEMU hub (kernel/suites/dma_vnet.c).
 *   fwdma.*  fw_cfg's DMA interface reading the runner's blob (and
 *            writing a writable item where the machine has one): fw_cfg
 *            is no PCI device, a vIOMMU never translates it (a control).
 *
 * With an Intel IOMMU (runner: --machine q35 --viommu intel) every bm case
 * runs in each mode the unit offers (kernel/suites/dma_vtd.h): the plain
 * name is translated with 4 KiB pages, what an OS with an IOMMU does by
 * default, so an A/B against a machine without one pairs the same names;
 * suffixes .vtd_off (unit present, translation off), .vtd_pt (pass-
 * through) and .vtd_2m (2 MiB pages) name the others, bm.read.4096.miss
 * invalidates the IOTLB before each op and vtd.iotlb_inval times the
 * invalidation alone.  A DMA the unit faults is a named check failure
 * (the fault record decoded), never a hang: every wait has a deadline.
 *
 * Each case's control runs the same driver path with its ports in RAM
 * (no exit, no data moves).  Exits per op: the driver's port accesses,
 * each one QEMU's (docs/design.md, "Suite dma").
 */
#include "kernel/suites/suites.h"
#include "kernel/suites/dma_vtd.h"
#include "kernel/suites/dma_vnet.h"
#include "kernel/bench.h"
#include "kernel/suites/blob.h"
#include "kernel/console.h"
#include "kernel/suites/idepat.h"
#include "kernel/suites/ide_runner.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/ata.h"
#include "drivers/fw_cfg.h"
#include "drivers/ide_bm.h"
#include "drivers/ide_prd.h"
#include "arch/x86/tsc.h"

#define BLOB_NAME         "opt/trapmeter/blob"
#define KIB               1024u
#define DMA_MAX_BYTES     (64u * KIB)
#define DMA_BUF_BYTES     (2 * DMA_MAX_BYTES)   /* op area, then read-back area */
#define PRD_MAX           (DMA_MAX_BYTES / IDEPAT_SECTOR)
#define XFER_TIMEOUT_MS   2000
#define FAULT_TIMEOUT_MS  200
#define READ_LBA          0
#define MAX_CASES         96
#define NAME_LEN          40

enum dma_kind { K_BM_READ, K_BM_WRITE, K_FW_READ, K_FW_WRITE, K_INVAL };
#define F_PCI    (1u << 0)     /* runs once per IOMMU mode */
#define F_MISS   (1u << 1)     /* IOTLB invalidated before each op */

/* The case table: each name a reader greps for is written here once. */
struct dma_def {
	const char *name;
	u8 kind;            /* enum dma_kind */
	u32 bytes;          /* per op */
	u32 offset;         /* buffer start past a 64 KiB boundary */
	u32 chunk;          /* most bytes per PRD */
	u32 flags;
};

#define ONE PRD_MAX_BYTES
static const struct dma_def defs[] = {
	{ "bm.read.512",            K_BM_READ,  512,       0,                 ONE, F_PCI },
	{ "bm.read.4096",           K_BM_READ,  4096,      0,                 ONE, F_PCI },
	{ "bm.read.65536",          K_BM_READ,  65536,     0,                 ONE, F_PCI },
	{ "bm.read.65536.prd512",   K_BM_READ,  65536,     0,                 512, F_PCI },
	{ "bm.read.1024.inpage",    K_BM_READ,  1024,      1024,              ONE, F_PCI },
	{ "bm.read.1024.cross",     K_BM_READ,  1024,      BENCH_PAGE - 512,  ONE, F_PCI },
	{ "bm.read.4096.cross",     K_BM_READ,  4096,      BENCH_PAGE / 2,    ONE, F_PCI },
	{ "bm.write.512",           K_BM_WRITE, 512,       0,                 ONE, F_PCI },
	{ "bm.write.4096",          K_BM_WRITE, 4096,      0,                 ONE, F_PCI },
	{ "bm.write.65536",         K_BM_WRITE, 65536,     0,                 ONE, F_PCI },
	{ "bm.write.65536.prd512",  K_BM_WRITE, 65536,     0,                 512, F_PCI },
	{ "bm.write.1024.inpage",   K_BM_WRITE, 1024,      1024,              ONE, F_PCI },
	{ "bm.write.1024.cross",    K_BM_WRITE, 1024,      BENCH_PAGE - 512,  ONE, F_PCI },
	{ "bm.write.4096.cross",    K_BM_WRITE, 4096,      BENCH_PAGE / 2,    ONE, F_PCI },
	{ "bm.read.4096.miss",      K_BM_READ,  4096,      0,                 ONE, F_PCI | F_MISS },
	{ "vtd.iotlb_inval",        K_INVAL,    0,         0,                 0,   F_PCI },
	{ "fwdma.read.16",          K_FW_READ,  16,        0,                 0,   0 },
	{ "fwdma.read.512",         K_FW_READ,  512,       0,                 0,   0 },
	{ "fwdma.read.512.cross",   K_FW_READ,  512,       BENCH_PAGE - 256,  0,   0 },
	{ "fwdma.read.4096",        K_FW_READ,  4096,      0,                 0,   0 },
	{ "fwdma.read.4096.cross",  K_FW_READ,  4096,      BENCH_PAGE / 2,    0,   0 },
	{ "fwdma.read.65536",       K_FW_READ,  65536,     0,                 0,   0 },
	{ "fwdma.read.65536.cross", K_FW_READ,  65536,     BENCH_PAGE / 2,    0,   0 },
	{ "fwdma.write.8",          K_FW_WRITE, 8,         0,                 0,   0 },
};
#undef ONE

struct dma_state {
	const struct dma_def *def;
	u8 mode;            /* enum dma_mode */
	u32 lba;
	int n_prd;          /* entries of this case's PRD table */
	u64 ops;            /* every op, the warm-up's included */
	u64 counted, accesses;  /* ops after the warm-up, their port accesses */
	u64 polls;          /* of those, status reads while waiting */
	u64 checked, bad;   /* sectors or bytes verified */
	bool failed;
	char why[160];      /* the first failure */
};

static struct bench_case cases[MAX_CASES];
static struct dma_state state[MAX_CASES];
static char names[MAX_CASES][NAME_LEN];
static struct bench_table table = BENCH_TABLE(cases, state);

static bool written_room(void);

/* dma_buf: DMA_BUF_BYTES from a 64 KiB boundary inside dma_area (an
 * aligned(64 KiB) object would raise the ELF segment's alignment and move
 * the multiboot header out of the file's first 8 KiB) */
static u8 dma_area[DMA_BUF_BYTES + DMA_MAX_BYTES] __attribute__((aligned(BENCH_PAGE))) NOCLEAR;
static u8 *dma_buf;
static struct ide_prd prd_tbl[PRD_MAX] __attribute__((aligned(BENCH_PAGE)));
static struct ide_prd rb_prd[2] __attribute__((aligned(16)));
static struct ide_bm bm;
static struct ata_channel channels[2];
static struct ata_dev disk;
static bool have_disk, have_bm;
static char disk_why[ATA_ERRMSG_LEN + 40];
static struct ide_fw_cfg runner;
static bool have_runner;
static u32 written_hi;          /* sectors written from write_lba */
static struct fw_cfg_file blob, wr_item;
static bool have_blob, have_wr;
static bool bm_ran;             /* a bus-master case ran: probe the fault */

static struct dma_state *st_of(const struct bench_case *c)
{
	return c->priv;
}

static u8 *op_area(const struct dma_state *s)
{
	return dma_buf + s->def->offset;
}

static void fail(struct dma_state *s, const char *why)
{
	if (!s->failed)
		fmt_snprintf(s->why, sizeof(s->why), "%s", why);
	s->failed = true;
}

/* ---- bus-master ops ----------------------------------------------------------- */

static int bm_once(struct dma_state *s, bool ram)
{
	const struct dma_def *d = s->def;

	return ide_bm_transfer(&bm, &disk, d->kind == K_BM_WRITE, s->lba,
			       d->bytes / IDEPAT_SECTOR, (u32)(uintptr_t)prd_tbl,
			       XFER_TIMEOUT_MS, ram);
}

/* The case's PRD table; rebuilt per case (cases share one table). */
static int build_prd(struct dma_state *s)
{
	const struct dma_def *d = s->def;

	s->n_prd = ide_prd_build(prd_tbl, PRD_MAX, (u64)(uintptr_t)op_area(s), d->bytes,
				 d->chunk);
	return s->n_prd < 0 ? s->n_prd : 0;
}

static void note_error(struct dma_state *s)
{
	char detail[sizeof(s->why)];
	struct vtd_fault f;

	if (dma_vtd_fault(detail, sizeof(detail), &f))
		fail(s, detail);
	else
		fail(s, ide_bm_last_error());
}

static void op_bm(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct dma_state *s = st_of(c);
	u64 acc0, polls0;

	(void)buf;
	while (iters-- && !s->failed) {
		if ((s->def->flags & F_MISS) && dma_vtd_invalidate_iotlb())
			fail(s, "IOTLB invalidation timed out");
		acc0 = ide_bm_count.accesses;
		polls0 = ide_bm_count.polls;
		if (bm_once(s, false))
			note_error(s);
		if (s->ops++) {        /* the warm-up op (the case's first) waits longest */
			s->accesses += ide_bm_count.accesses - acc0;
			s->polls += ide_bm_count.polls - polls0;
			s->counted++;
		}
	}
}

/* The same path, its ports in RAM; the miss case's invalidation is its
 * own case (vtd.iotlb_inval), so its control leaves it out too. */
static void op_bm_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct dma_state *s = st_of(c);

	(void)buf;
	while (iters--)
		bm_once(s, true);
}

static void op_inval(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct dma_state *s = st_of(c);

	(void)buf;
	while (iters-- && !s->failed) {
		if (dma_vtd_invalidate_iotlb())
			fail(s, "IOTLB invalidation timed out");
		s->ops++;
	}
}

/* ---- fw_cfg ops ------------------------------------------------------------------ */

static void op_fw(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct dma_state *s = st_of(c);
	int rc = 0;

	(void)buf;
	while (iters-- && !rc) {
		if (s->def->kind == K_FW_WRITE)
			rc = fw_cfg_dma_write(wr_item.select, op_area(s), s->def->bytes);
		else
			rc = fw_cfg_dma_read(blob.select, op_area(s), s->def->bytes);
		s->ops++;
	}
	if (rc)
		fail(s, rc == -ETIMEDOUT ? "fw_cfg DMA: no completion before the deadline" :
		     "fw_cfg DMA: the device reported an error");
}

static void op_fw_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct dma_state *s = st_of(c);

	(void)buf;
	while (iters--)
		fw_cfg_dma_read_control(s->def->kind == K_FW_WRITE ? wr_item.select : blob.select,
					op_area(s), s->def->bytes);
}

/* ---- checks -------------------------------------------------------------------------- */

static void check_sectors(struct dma_state *s, const u8 *p, u32 lba, u32 n, u64 seed)
{
	u32 i;

	for (i = 0; i < n; i++, s->checked++)
		if (!idepat_match(p + i * IDEPAT_SECTOR, lba + i, seed))
			s->bad++;
}

/* Read the written sectors back (one PRD into the read-back area). */
static int read_back(struct dma_state *s, u8 *into)
{
	u32 bytes = s->def->bytes;
	int n = ide_prd_build(rb_prd, ARRAY_SIZE(rb_prd), (u64)(uintptr_t)into, bytes,
			      PRD_MAX_BYTES);

	if (n < 0)
		return n;
	return ide_bm_transfer(&bm, &disk, false, s->lba, bytes / IDEPAT_SECTOR,
			       (u32)(uintptr_t)rb_prd, XFER_TIMEOUT_MS, false);
}

static void verify_bm_read(struct dma_state *s)
{
	kmemset(op_area(s), 0, s->def->bytes);
	if (bm_once(s, false)) {
		note_error(s);
		return;
	}
	check_sectors(s, op_area(s), s->lba, s->def->bytes / IDEPAT_SECTOR, 0);
}

static void verify_bm_write(struct dma_state *s)
{
	u8 *rb = dma_buf + DMA_MAX_BYTES;

	kmemset(rb, 0, s->def->bytes);
	if (read_back(s, rb)) {
		note_error(s);
		return;
	}
	check_sectors(s, rb, s->lba, s->def->bytes / IDEPAT_SECTOR, IDEPAT_WRITE_SEED);
}


static void verify_fw_read(struct dma_state *s)
{
	u8 *p = op_area(s);
	u32 i;

	kmemset(p, 0, s->def->bytes);
	if (fw_cfg_dma_read(blob.select, p, s->def->bytes)) {
		fail(s, "fw_cfg DMA read failed during the check");
		return;
	}
	for (i = 0; i < s->def->bytes; i++, s->checked++)
		if (p[i] != blob_byte(i))
			s->bad++;
}

/* The item is written with the value it held: read back, compare. */
static void verify_fw_write(struct dma_state *s)
{
	u8 back[16];
	u32 i;

	kmemset(back, 0, sizeof(back));
	fw_cfg_read(wr_item.select, back, s->def->bytes);
	for (i = 0; i < s->def->bytes; i++, s->checked++)
		if (back[i] != op_area(s)[i])
			s->bad++;
}

/* A fault the unit recorded during the case fails it, named and decoded
 * (QEMU completes such a transfer without an error: the data is lost). */
static void check_faults(struct dma_state *s)
{
	char detail[sizeof(s->why)];
	struct vtd_fault f;

	if (dma_vtd_fault(detail, sizeof(detail), &f))
		fail(s, detail);
}

static u32 verify_dma(const struct bench_case *c, const u8 *buf)
{
	struct dma_state *s = st_of(c);

	(void)buf;
	check_faults(s);
	if (!s->failed) {
		switch (s->def->kind) {
		case K_BM_READ: verify_bm_read(s); break;
		case K_BM_WRITE: verify_bm_write(s); break;
		case K_FW_READ: verify_fw_read(s); break;
		case K_FW_WRITE: verify_fw_write(s); break;
		default: break;
		}
	}
	check_faults(s);
	return (u32)s->bad + (s->failed ? 1 : 0);
}

/* ---- exits, skips, result fields ------------------------------------------------- */

/* Port accesses per op after the warm-up (each one an exit to QEMU; the
 * status polls make it an average); fw_cfg DMA: the doorbell. */
static u32 model_dma(const struct bench_case *c, const u8 *buf)
{
	struct dma_state *s = st_of(c);

	(void)buf;
	if (s->def->kind == K_FW_READ || s->def->kind == K_FW_WRITE)
		return 1;
	if (s->def->kind == K_INVAL)
		return dma_vtd_inval_accesses();
	/* the miss case invalidates before each op: those accesses exit too */
	return (s->def->flags & F_MISS ? dma_vtd_inval_accesses() : 0) +
	       (s->counted ? (u32)((s->accesses + s->counted / 2) / s->counted) : 0);
}

static const char *skip_dma(const struct bench_case *c)
{
	struct dma_state *s = st_of(c);
	const struct dma_def *d = s->def;

	if ((d->kind == K_INVAL || (d->flags & F_MISS)) && s->mode != DMA_MODE_4K)
		return "needs IOMMU translation (runner: --machine q35 --viommu intel)";
	if (d->kind == K_BM_READ || d->kind == K_BM_WRITE) {
		if (!have_bm || !have_disk)
			return disk_why;
		if (s->n_prd < 0)
			return "PRD table does not fit";
	}
	if (d->kind == K_BM_WRITE && !s->lba)
		return runner.flags & IDE_CFG_READONLY ? "read-only image: the runner marked no writable region" :
		       "no writable region of 64 KiB marked by the runner (fw_cfg " IDE_CFG_NAME ")";
	if ((d->kind == K_FW_READ || d->kind == K_FW_WRITE) && !fw_cfg_has_dma())
		return "fw_cfg has no DMA interface";
	if (d->kind == K_FW_READ && (!have_blob || blob.size < d->bytes))
		return "no fw_cfg file " BLOB_NAME " of that size (boot through tools/trapmeter)";
	if (d->kind == K_FW_WRITE && !have_wr)
		return "no writable fw_cfg item on this machine: QEMU accepts DMA writes only to items it added as writable (on pc none; q35 has " DMA_FW_WRITABLE ")";
	return NULL;
}

static void extra_dma(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	struct dma_state *s = st_of(c);
	u64 med = r->cycles.median;

	jw_str(w, "iommu_mode", dma_mode_name(s->mode));
	if (c->bytes)
		jw_dec(w, "cycles_per_kib", med * KIB, c->bytes, 1);
	if (s->def->kind == K_BM_READ || s->def->kind == K_BM_WRITE) {
		jw_u64(w, "prds", (u64)(s->n_prd > 0 ? s->n_prd : 0));
		jw_u64(w, "prd_page_crossings", s->n_prd > 0 ?
		       ide_prd_page_crossings(prd_tbl, (u32)s->n_prd, BENCH_PAGE) : 0);
		jw_u64(w, "lba", s->lba);
		jw_dec(w, "polls_per_op", s->polls, s->counted ? s->counted : 1, 2);
		/* the status polls make the model an average (ab: docs/design.md) */
		jw_bool(w, "exits_model_exact", false);
	}
	jw_u64(w, "checked", s->checked);
	if (s->failed)
		jw_str(w, "error", s->why);
}

/* ---- table ------------------------------------------------------------------------- */

static void add_case(const struct dma_def *d, u8 mode)
{
	char *name = names[table.n];
	struct bench_case *c = bench_table_add(&table);
	bool bm_case = d->kind == K_BM_READ || d->kind == K_BM_WRITE;
	struct dma_state *s;

	if (!c)
		return;
	s = c->priv;
	fmt_snprintf(name, NAME_LEN, "%s%s", d->name,
		     d->flags & F_PCI ? dma_mode_suffix(mode) : "");
	s->def = d;
	s->mode = mode;
	s->lba = d->kind == K_BM_WRITE ? (written_room() ? runner.write_lba : 0) : READ_LBA;
	c->suite = "dma";
	c->name = name;
	c->target = bm_case ? "piix-ide.bm" : d->kind == K_INVAL ? "vtd" : "fwcfg.dma";
	c->port = bm_case ? bm.base : 0;
	c->handler = HANDLER_USER;
	c->dir = d->kind == K_BM_READ || d->kind == K_FW_READ ? DIR_IN :
		 d->kind == K_INVAL ? DIR_NONE : DIR_OUT;
	c->method = METHOD_DMA;
	c->bytes = d->bytes;
	c->buf_offset = d->offset % BENCH_PAGE;
	c->op = bm_case ? op_bm : d->kind == K_INVAL ? op_inval : op_fw;
	c->control = bm_case ? op_bm_control : d->kind == K_INVAL ? NULL : op_fw_control;
	c->no_control = d->kind == K_INVAL ? "an invalidation is register writes and polls only" : NULL;
	c->exits_model = model_dma;
	c->skip = skip_dma;
	c->verify = verify_dma;
	c->extra = extra_dma;
}

/* ---- set-up -------------------------------------------------------------------------- */

static bool written_room(void)
{
	return have_runner && !(runner.flags & IDE_CFG_READONLY) &&
	       runner.write_sectors >= DMA_MAX_BYTES / IDEPAT_SECTOR &&
	       runner.write_lba + runner.write_sectors <= runner.disk_sectors;
}

static void read_runner_info(void)
{
	have_runner = ide_runner_read(&runner);
	have_blob = fw_cfg_find(BLOB_NAME, &blob) == 0;
	have_wr = fw_cfg_find(DMA_FW_WRITABLE, &wr_item) == 0 && wr_item.size >= 8;
}

/* The first ATA drive on the channels of the bus-master function. */
static void find_disk(void)
{
	u32 i;

	have_disk = false;
	have_bm = ide_bm_init(&bm) == 0;
	if (!have_bm) {
		fmt_snprintf(disk_why, sizeof(disk_why), "%s", ide_bm_last_error());
		return;
	}
	fmt_snprintf(disk_why, sizeof(disk_why), "no ATA drive on the IDE function");
	if (ata_find_channels(channels)) {
		fmt_snprintf(disk_why, sizeof(disk_why), "%s", ata_last_error());
		return;
	}
	for (i = 0; i < 4 && !have_disk; i++)
		have_disk = ata_probe(&channels[i / 2], (u8)(i % 2), &disk) == 0 &&
			    disk.kind == ATA_KIND_ATA;
	if (have_disk && !have_runner)
		fmt_snprintf(disk_why, sizeof(disk_why),
			     "no runner pattern info (fw_cfg " IDE_CFG_NAME "): data could not be checked");
	have_disk = have_disk && have_runner;
	if (have_disk)
		kprintf("  dma: %s \"%s\" on IDE %02x:%02x.%u, bus master at 0x%x\n", disk.name,
			disk.id.model, bm.bus, bm.devfn >> 3, bm.devfn & 7, bm.base);
}

/* The IOTLB cases time translation alone: 4 KiB mode, or their skip. */
static bool miss_case(const struct dma_def *d)
{
	return d->kind == K_INVAL || (d->flags & F_MISS);
}

static void build_table(void)
{
	u32 i, m;

	table.n = 0;
	for (i = 0; i < ARRAY_SIZE(defs); i++)
		if (!(defs[i].flags & F_PCI))
			add_case(&defs[i], dma_vtd_mode());
	/* a case's modes back to back: a drift of the host's pace between
	 * cases then moves all of one case's modes together */
	for (i = 0; i < ARRAY_SIZE(defs); i++) {
		for (m = 0; m < DMA_MODE_COUNT; m++)
			if ((defs[i].flags & F_PCI) && dma_mode_available((u8)m) &&
			    (!miss_case(&defs[i]) || m == DMA_MODE_4K || m == DMA_MODE_NONE))
				add_case(&defs[i], (u8)m);
	}
}

/* What the op starts from: the write pattern, or the item's own value. */
static void prepare_case(struct dma_state *s)
{
	u32 i;

	if (s->def->kind == K_BM_WRITE)
		for (i = 0; i < s->def->bytes / IDEPAT_SECTOR; i++)
			idepat_fill(op_area(s) + i * IDEPAT_SECTOR, s->lba + i, IDEPAT_WRITE_SEED);
	if (s->def->kind == K_FW_WRITE && have_wr)
		fw_cfg_read(wr_item.select, op_area(s), s->def->bytes);
	if (s->def->kind == K_BM_READ || s->def->kind == K_BM_WRITE)
		build_prd(s);
}

/* ---- reporting --------------------------------------------------------------------- */

static void emit_written(void)
{
	char line[200];
	struct jw w;

	if (!written_hi)
		return;
	jw_record(&w, line, sizeof(line), "ide_written");
	jw_str(&w, "device", disk.name);
	jw_str(&w, "suite", "dma");
	jw_u64(&w, "lba", runner.write_lba);
	jw_u64(&w, "sectors", written_hi);
	jw_hex(&w, "seed", IDEPAT_WRITE_SEED);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

static void check_kind(const char *name, u8 k0, u8 k1, const char *what)
{
	u64 checked = 0, bad = 0;
	const char *first = NULL, *why = NULL;
	char detail[240];
	u32 i;

	for (i = 0; i < table.n; i++) {
		if (state[i].def->kind < k0 || state[i].def->kind > k1)
			continue;
		checked += state[i].checked;
		bad += state[i].bad + state[i].failed;
		if ((state[i].bad || state[i].failed) && !first) {
			first = cases[i].name;
			why = state[i].failed ? state[i].why : "wrong data";
		}
	}
	if (!checked && !bad)
		return;
	if (bad)
		fmt_snprintf(detail, sizeof(detail), "%lu %s verified, %lu bad; first %s: %s",
			     (unsigned long)checked, what, (unsigned long)bad, first, why);
	else
		fmt_snprintf(detail, sizeof(detail), "%lu %s verified, 0 mismatches",
			     (unsigned long)checked, what);
	bench_check(name, bad == 0, detail);
}

/*
 * A READ DMA into an IOVA the tables leave unmapped: the unit must record
 * the fault (address, source id, a write request).  QEMU 7.2 then
 * completes the transfer without an error (the failed translation maps a
 * bounce buffer whose contents go nowhere), so the check is the fault
 * record; the detail says how the transfer ended.  It runs last, in case
 * a QEMU leaves the channel waiting for a mapping.
 */
static void fault_probe(void)
{
	u64 iova = dma_vtd_unmapped_iova();
	struct vtd_fault f = { 0 };
	char detail[200];
	bool got, ok;
	int rc;

	if (!dma_mode_available(DMA_MODE_4K) || !bm_ran)
		return;
	if (dma_vtd_enter(DMA_MODE_4K))
		return;
	rb_prd[0] = (struct ide_prd){ (u32)iova, IDEPAT_SECTOR, PRD_EOT };
	rc = ide_bm_transfer(&bm, &disk, false, READ_LBA, 1, (u32)(uintptr_t)rb_prd,
			     FAULT_TIMEOUT_MS, false);
	got = dma_vtd_fault(detail, sizeof(detail), &f);
	ok = got && f.addr == (iova & ~(BENCH_PAGE - 1ull)) &&
	     f.sid == (u16)(bm.bus << 8 | bm.devfn) && !f.read;
	if (!got)
		fmt_snprintf(detail, sizeof(detail), "no fault recorded for IOVA 0x%lx", (unsigned long)iova);
	if (rc)
		fmt_snprintf(detail + kstrlen(detail), sizeof(detail) - kstrlen(detail),
			     "; the transfer did not complete (%d)", rc);
	else
		fmt_snprintf(detail + kstrlen(detail), sizeof(detail) - kstrlen(detail),
			     "; the transfer completed without an error");
	bench_check("dma.vtd.fault_unmapped", ok, detail);
}

static void run_case(u32 i)
{
	struct dma_state *s = &state[i];
	struct bench_result r;

	if (!bench_selected(&cases[i]))
		return;
	if (dma_vtd_enter(s->mode)) {
		bench_skip("dma", cases[i].name, "the IOMMU could not be put in this mode (check dma.vtd.mode)");
		return;
	}
	prepare_case(s);
	if (bench_run(&cases[i], &r) < 0)
		return;
	bm_ran = bm_ran || s->def->kind == K_BM_READ || s->def->kind == K_BM_WRITE;
	if (s->def->kind == K_BM_WRITE && s->ops)
		written_hi = s->def->bytes / IDEPAT_SECTOR > written_hi ?
			     s->def->bytes / IDEPAT_SECTOR : written_hi;
}

void suite_dma(const struct tm_config *cfg)
{
	u32 i;

	(void)cfg;
	bench_suite_begin("dma");
	dma_buf = (u8 *)ALIGN_UP((uintptr_t)dma_area, DMA_MAX_BYTES);
	written_hi = 0;
	bm_ran = false;
	read_runner_info();
	find_disk();
	dma_vtd_probe();
	if (have_bm)
		dma_vtd_attach(bm.bus, bm.devfn);
	dma_vnet_setup();
	build_table();
	for (i = 0; i < table.n; i++)
		run_case(i);
	check_kind("dma.bm.read", K_BM_READ, K_BM_READ, "sectors (LBA pattern)");
	check_kind("dma.bm.write", K_BM_WRITE, K_BM_WRITE, "sectors (read back)");
	check_kind("dma.fwcfg", K_FW_READ, K_FW_WRITE, "bytes (blob pattern, item read back)");
	emit_written();
	dma_vnet_run();
	fault_probe();
	dma_vnet_fault_probe();
	dma_vtd_leave();
}
