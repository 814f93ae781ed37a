/*
 * kernel/suites/ide.c - suite "ide": what IDE PIO costs per sector, per
 * exit and per MiB with each data-port method (rep insw/outsw, inw/outw
 * loop, rep insl/outsl, inl/outl loop) - the trap behind OVMF's 28 s ->
 * 464 s Windows ISO boot when its IDE path lost `rep insw`.
 *
 * Devices (drivers/ata.c): an ATA disk (runner: `-drive
 * file=disk.img,format=raw,if=ide,index=0,media=disk`, every sector
 * stamped by kernel/suites/idepat.h) and an ATAPI CD-ROM (the trapmeter ISO,
 * secondary master as with `-cdrom`).  fw_cfg `opt/trapmeter/ide` says
 * which disk region may be written; `opt/trapmeter/cd-sums` holds one sum
 * per CD sector.
 *
 * Cases, each per method: disk.read1 (one sector, READ SECTORS), disk.seq
 * (READ SECTORS EXT, 4 MiB; quick 256 KiB), disk.mult16 (READ MULTIPLE
 * EXT, 16 sectors per DRQ block), disk.write1 and disk.wseq (WRITE
 * SECTORS (EXT) on the writable region), cd.read1 (READ(12)) and cd.seq
 * (READ(10), 2048-byte sectors).  A long kind (seq, mult16, wseq, cd.seq)
 * is cut to fit its one-sector twin's measured cost (ide_size_kind).
 * After the timed runs each case repeats
 * its operation once with every sector checked (writes: read back).
 * Each case's control replays its data phases on RAM without a port
 * access (op_ide_control; docs/design.md, "Timing").
 *
 * Extended (suite=all or case=): edk2's FIFO code shapes on one READ
 * SECTORS of 512 B (kernel/suites/edk2_fifo.h): disk.fifo.loop.in16 (IoLibFifo.c:
 * an inw loop), disk.fifo.rep.in16 (IoFifo.nasm: rep insw) and
 * disk.fifo.probe_rep.in16 (IoFifoSev.nasm: its CPUID/RDMSR checks, then
 * rep insw) - edk2 makes one FIFO call per DRQ block, here one sector -
 * and the same three on one WRITE SECTORS to the first writable sector
 * (disk.fifo.*.out16: outw loop, rep outsw), read back like disk.write1.
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "kernel/suites/edk2_fifo.h"
#include "lib/fmt.h"
#include "kernel/suites/idepat.h"
#include "kernel/suites/ide_runner.h"
#include "model/model.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/ata.h"
#include "drivers/fw_cfg.h"
#include "arch/x86/tsc.h"
#include "arch/x86/control.h"

#define IDE_SUMS_NAME      "opt/trapmeter/cd-sums"

#define MIB                (1024u * 1024u)
#define SEQ_BYTES          (4u * MIB)
#define SEQ_BYTES_QUICK    (256u * 1024u)
#define WSEQ_BYTES         (1u * MIB)
#define WSEQ_BYTES_QUICK   (64u * 1024u)
#define CHUNK_BYTES        (64u * 1024u)    /* per command: fits the bench buffer */
#define DISK_CHUNK         (CHUNK_BYTES / ATA_SECTOR_SIZE)
#define CD_CHUNK           (CHUNK_BYTES / ATAPI_SECTOR_SIZE)
#define MULT_SECTORS       16
#define READ1_LBA          1
#define CD_READ1_LBA       16               /* ISO 9660 primary volume descriptor */
#define CD_SUMS_MAX        (SEQ_BYTES / ATAPI_SECTOR_SIZE)
#define WBUF_SECTORS       (WSEQ_BYTES / ATA_SECTOR_SIZE)
#define FIFO_SHAPES        3
#define MAX_CASES          (7 * ATA_XFER_COUNT + 2 * FIFO_SHAPES)
#define HZ_PER_KHZ         1000ull
/* One op of a long kind may last this many case budgets (budget_ms).  A
 * 4 MiB inw loop is 2 M exits: minutes an op where an exit costs tens of
 * microseconds (a software KVM backend under load), and the floor of two
 * samples, warm-up and check makes four ops.  Sized from the cost just
 * measured, the suite's time follows the budget, not the host's speed. */
#define OP_BUDGETS         16u
/* data phases of one op the control replays: one per sector at most
 * (READ/WRITE SECTORS), plus a CDB per ATAPI command */
#define PHASES_MAX         (SEQ_BYTES / ATA_SECTOR_SIZE + SEQ_BYTES / CHUNK_BYTES)
#define PHASE_IN           1u               /* low bit of a phases[] entry */

enum ide_kind { K_READ1, K_SEQ, K_MULT, K_WRITE1, K_WSEQ, K_CD_READ1, K_CD_SEQ, K_COUNT };

struct ide_case {
	u8 kind;
	u8 xfer;
	struct ata_dev *dev;
	u64 lba;
	u32 sectors;        /* per operation */
	u32 asked;          /* before ide_size_kind cut it */
	u32 sector_size;
	u64 ops, exits;     /* counted over every timed operation */
	u64 data_exits;     /* the data-port share of exits */
	u64 median;
	bool failed;
	u64 checked, bad, first_bad;
	u8 fifo;            /* edk2 shape: 0 none, 1 loop, 2 rep, 3 probe_rep */
	u32 probe_traps;    /* CPUID/RDMSR of one probe_rep call */
};

enum { FIFO_NONE, FIFO_LOOP, FIFO_REP, FIFO_PROBE_REP };

static const char *const kind_names[K_COUNT] = {
	"disk.read1", "disk.seq", "disk.mult16", "disk.write1", "disk.wseq",
	"cd.read1", "cd.seq",
};

/* The cases by kind and transfer (enum ata_xfer order: loop16, rep16,
 * loop32, rep32), and edk2's shapes by direction and shape. */
static const char *const case_names[K_COUNT][ATA_XFER_COUNT] = {
	{ "disk.read1.in16.single", "disk.read1.in16.rep", "disk.read1.in32.single", "disk.read1.in32.rep" },
	{ "disk.seq.in16.single", "disk.seq.in16.rep", "disk.seq.in32.single", "disk.seq.in32.rep" },
	{ "disk.mult16.in16.single", "disk.mult16.in16.rep", "disk.mult16.in32.single", "disk.mult16.in32.rep" },
	{ "disk.write1.out16.single", "disk.write1.out16.rep", "disk.write1.out32.single", "disk.write1.out32.rep" },
	{ "disk.wseq.out16.single", "disk.wseq.out16.rep", "disk.wseq.out32.single", "disk.wseq.out32.rep" },
	{ "cd.read1.in16.single", "cd.read1.in16.rep", "cd.read1.in32.single", "cd.read1.in32.rep" },
	{ "cd.seq.in16.single", "cd.seq.in16.rep", "cd.seq.in32.single", "cd.seq.in32.rep" },
};
static const char *const fifo_names[2][FIFO_SHAPES + 1] = {
	{ NULL, "disk.fifo.loop.in16", "disk.fifo.rep.in16", "disk.fifo.probe_rep.in16" },
	{ NULL, "disk.fifo.loop.out16", "disk.fifo.rep.out16", "disk.fifo.probe_rep.out16" },
};

static struct bench_case cases[MAX_CASES];
static struct ide_case state[MAX_CASES];
static struct bench_table table = BENCH_TABLE(cases, state);

static struct ata_channel channels[2];
static struct ata_dev devs[4];
static struct ata_dev *disk, *cd;
static char disk_why[ATA_ERRMSG_LEN], cd_why[ATA_ERRMSG_LEN], mult_why[ATA_ERRMSG_LEN];
static struct ide_fw_cfg runner;
static bool have_runner;
static u64 cd_sums[CD_SUMS_MAX];
static u32 n_cd_sums;
static const char *cd_sums_source;
static bool cd_sums_runner;      /* else learnt from the first read */
static u8 wbuf[WSEQ_BYTES] __attribute__((aligned(BENCH_PAGE))) NOCLEAR;
static u64 written_hi;           /* sectors written from write_lba */
static u64 write_room;           /* sectors the runner lets us write */
static char first_error[ATA_ERRMSG_LEN];

static struct ide_case *st_of(const struct bench_case *c)
{
	return c->priv;
}

static bool is_write(u8 kind)
{
	return kind == K_WRITE1 || kind == K_WSEQ;
}

static bool is_cd(u8 kind)
{
	return kind == K_CD_READ1 || kind == K_CD_SEQ;
}

/* ---- checks --------------------------------------------------------------- */

static void note_bad(struct ide_case *s, u64 lba)
{
	if (!s->bad)
		s->first_bad = lba;
	s->bad++;
}

static void check_disk(struct ide_case *s, const u8 *buf, u64 lba, u32 n, u64 seed)
{
	u32 i;

	for (i = 0; i < n; i++, s->checked++)
		if (!idepat_match(buf + i * ATA_SECTOR_SIZE, lba + i, seed))
			note_bad(s, lba + i);
}

/* Without the runner's sums the first method's read becomes the reference. */
static void check_cd(struct ide_case *s, const u8 *buf, u64 lba, u32 n)
{
	u64 sum;
	u32 i;

	for (i = 0; i < n; i++) {
		if (lba + i >= CD_SUMS_MAX)
			return;
		sum = idepat_sum(buf + i * ATAPI_SECTOR_SIZE, ATAPI_SECTOR_SIZE);
		if (lba + i >= n_cd_sums) {
			if (lba + i != n_cd_sums || cd_sums_runner)
				continue;
			cd_sums[n_cd_sums++] = sum;
			cd_sums_source = ata_xfer_name(s->xfer);
			continue;
		}
		s->checked++;
		if (sum != cd_sums[lba + i])
			note_bad(s, lba + i);
	}
}

/* ---- operations ------------------------------------------------------------ */

static int disk_chunks(struct ide_case *s, u8 *buf, bool check)
{
	bool ext = s->kind != K_READ1, mult = s->kind == K_MULT;
	u32 done, n;
	int rc = 0;

	for (done = 0; !rc && done < s->sectors; done += n) {
		n = s->sectors - done < DISK_CHUNK ? s->sectors - done : DISK_CHUNK;
		rc = ata_read(s->dev, s->lba + done, n, buf, s->xfer, ext, mult);
		if (!rc && check && have_runner)
			check_disk(s, buf, s->lba + done, n, 0);
	}
	return rc;
}

static int write_chunks(struct ide_case *s, u8 *buf, bool check)
{
	bool ext = s->kind == K_WSEQ;
	u32 done, n;
	int rc = 0;

	for (done = 0; !rc && done < s->sectors; done += n) {
		n = s->sectors - done < DISK_CHUNK ? s->sectors - done : DISK_CHUNK;
		if (!check) {
			rc = ata_write(s->dev, s->lba + done, n, wbuf + done * ATA_SECTOR_SIZE,
				       s->xfer, ext, false);
			continue;
		}
		/* read back what the timed runs wrote, with the same method */
		rc = ata_read(s->dev, s->lba + done, n, buf, s->xfer, ext, false);
		if (!rc)
			check_disk(s, buf, s->lba + done, n, IDEPAT_WRITE_SEED);
	}
	if (!rc && !check && s->lba + s->sectors - runner.write_lba > written_hi)
		written_hi = s->lba + s->sectors - runner.write_lba;
	return rc;
}

static int cd_chunks(struct ide_case *s, u8 *buf, bool check)
{
	u32 done, n;
	int rc = 0;

	for (done = 0; !rc && done < s->sectors; done += n) {
		n = s->sectors - done < CD_CHUNK ? s->sectors - done : CD_CHUNK;
		rc = atapi_read(s->dev, (u32)(s->lba + done), n, buf, s->xfer,
				s->kind == K_CD_READ1);
		if (!rc && check)
			check_cd(s, buf, s->lba + done, n);
	}
	return rc;
}

static int run_once(struct ide_case *s, u8 *buf, bool check)
{
	if (is_cd(s->kind))
		return cd_chunks(s, buf, check);
	if (is_write(s->kind))
		return write_chunks(s, buf, check);
	return disk_chunks(s, buf, check);
}

static void fail(struct ide_case *s)
{
	s->failed = true;
	if (!first_error[0])
		fmt_snprintf(first_error, sizeof(first_error), "%s", ata_last_error());
	kprintf("  ide: error: %s\n", ata_last_error());
}

/* ---- the control: the data phases without the ports ---------------------- */

/* The data phases (bytes << 1 | PHASE_IN) one op of phase_owner made, heard
 * from the driver during the case's first (warm-up) op. */
static u32 phases[PHASES_MAX];
static u32 n_phases;
static const struct ide_case *phase_owner;
static bool phases_cut;
/* What the control touches in place of the data port, and its RAM buffer
 * (never the case's buf: the checks read what the drive delivered). */
static volatile union { u16 w; u32 l; } ctl_port;
static u8 ctl_ram[CHUNK_BYTES] __attribute__((aligned(BENCH_PAGE)));

typedef u16 __attribute__((aligned(1), may_alias)) u16_una;
typedef u32 __attribute__((aligned(1), may_alias)) u32_una;

static void note_phase(u32 bytes, bool in)
{
	if (n_phases == PHASES_MAX) {
		phases_cut = true;
		return;
	}
	phases[n_phases++] = bytes << 1 | (in ? PHASE_IN : 0);
}

/* A single-unit loop's twin (drivers/ata.c data_in/data_out): a RAM word
 * load or store per unit, the odd word of a 32-bit transfer included. */
static void loop_control(u8 width, u8 *ram, u32 bytes, bool in)
{
	u32 units = bytes / width, i;

	for (i = 0; i < units; i++) {
		if (width == 2 && in)
			((u16_una *)ram)[i] = ctl_port.w;
		else if (width == 2)
			ctl_port.w = ((const u16_una *)ram)[i];
		else if (in)
			((u32_una *)ram)[i] = ctl_port.l;
		else
			ctl_port.l = ((const u32_una *)ram)[i];
	}
	if (bytes % width >= 2 && in)
		*(u16_una *)(ram + units * width) = ctl_port.w;
	else if (bytes % width >= 2)
		ctl_port.w = *(const u16_una *)(ram + units * width);
}

/* One data phase without the port: REP, the string instruction at zero
 * units (what rep ins/outs move, the trap's handler moves; pio.c's REP
 * control); a loop, the same loop on RAM. */
static void phase_control(u8 xfer, u8 *ram, u32 bytes, bool in)
{
	u8 width = ata_xfer_width(xfer);

	if (!ata_xfer_is_rep(xfer))
		loop_control(width, ram, bytes, in);
	else if (width == 2)
		ctl_movsw(ram, ctl_ram, 0);
	else
		ctl_movsl(ram, ctl_ram, 0);
}

/* The case's data phases replayed on RAM, in order and with their sizes;
 * every port access (task file, status polls, data port) is left out. */
static void op_ide_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	const struct ide_case *s = st_of(c);
	u32 i, off, bytes;

	(void)buf;
	if (phase_owner != s)          /* not recorded: nothing to replay */
		return;
	while (iters--) {
		for (i = 0, off = 0; i < n_phases; i++, off += bytes) {
			bytes = phases[i] >> 1;
			if (off + bytes > sizeof(ctl_ram))
				off = 0;
			phase_control(s->xfer, ctl_ram + off, bytes, phases[i] & PHASE_IN);
		}
	}
}

/* The first op of a case (its warm-up) tells the control what to replay. */
static void record_phases(struct ide_case *s)
{
	phase_owner = s;
	n_phases = 0;
	phases_cut = false;
	ata_phase_seen = note_phase;
}

/* Data-port exits of the string instructions the driver reports, by the
 * model: rep ins in read-ahead chunks, rep outs one exit per unit. */
static u64 string_exits;

static void count_string(const void *buf, u32 bytes, u32 width, bool in)
{
	string_exits += in ? model_rep_in_exits((u64)(uintptr_t)buf, bytes, width)
			   : bytes / width;
}

static u64 data_exits_now(void)
{
	return ata_count.data_units + string_exits;
}

static void op_ide(const struct bench_case *c, u8 *buf, u64 iters)
{
	struct ide_case *s = st_of(c);
	u64 reg0, data0;

	ata_string_seen = count_string;
	while (iters-- && !s->failed) {
		reg0 = ata_count.reg;
		data0 = data_exits_now();
		if (s->fifo == FIFO_PROBE_REP) {   /* edk2 decides per call */
			edk2_fifo_no_rep(&s->probe_traps);
			s->exits += s->probe_traps;
		}
		if (!s->ops)
			record_phases(s);
		if (run_once(s, buf, false))
			fail(s);
		ata_phase_seen = 0;
		s->exits += ata_count.reg - reg0 + data_exits_now() - data0;
		s->data_exits += data_exits_now() - data0;
		s->ops++;
	}
	ata_string_seen = 0;
}

/* Exits of one operation: the driver's counted register accesses plus
 * the data-port exits by the model in docs/design.md, averaged over the runs. */
static u32 model_ide(const struct bench_case *c, const u8 *buf)
{
	struct ide_case *s = st_of(c);

	(void)buf;
	return s->ops ? (u32)((s->exits + s->ops / 2) / s->ops) : 0;
}

/* Untimed: repeat the operation with every sector checked. */
static u32 verify_ide(const struct bench_case *c, const u8 *buf)
{
	struct ide_case *s = st_of(c);

	if (!s->failed && run_once(s, (u8 *)buf, true))
		fail(s);
	return (u32)s->bad + (s->failed ? 1 : 0);
}

static const char *skip_ide(const struct bench_case *c)
{
	struct ide_case *s = st_of(c);

	if (is_cd(s->kind))
		return cd ? NULL : cd_why;
	if (!disk)
		return disk_why;
	if (s->kind == K_MULT && !disk->multiple)
		return mult_why;
	if (is_write(s->kind) && !s->sectors)
		return runner.flags & IDE_CFG_READONLY ?
		       "read-only image: the runner marked no writable region" :
		       "no writable region marked by the runner (fw_cfg " IDE_CFG_NAME ")";
	return NULL;
}

/* ---- result fields ----------------------------------------------------------- */

static void extra_ide(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	struct ide_case *s = st_of(c);
	u64 med = r->cycles.median, bytes = (u64)s->sectors * s->sector_size;

	s->median = med;
	jw_str(w, "device", s->dev ? s->dev->name : "");
	jw_str(w, "xfer", c->dir == DIR_OUT ? ata_xfer_out_name(s->xfer) : ata_xfer_name(s->xfer));
	jw_u64(w, "sectors", s->sectors);
	if (s->asked > s->sectors)
		jw_u64(w, "sectors_asked", s->asked);
	jw_u64(w, "sector_size", s->sector_size);
	jw_dec(w, "cycles_per_sector", med, s->sectors, 1);
	jw_dec(w, "mib_s", bytes * tsc.khz * HZ_PER_KHZ, med * MIB, 2);
	jw_dec(w, "exits_per_sector_model", r->exits_model, s->sectors, 2);
	/* data-port exits alone: deterministic (status polls are not) */
	jw_dec(w, "data_exits_per_sector_model", s->data_exits, s->ops * s->sectors, 2);
	/* what the control replayed per op (cut: more than it holds) */
	jw_u64(w, "control_phases", phase_owner == s ? n_phases : 0);
	if (phase_owner == s && phases_cut)
		jw_bool(w, "control_phases_cut", true);
	/* the loop twin ran just before: table order is loop, rep per width
	 * (edk2 shapes: loop, rep, probe_rep) */
	if (s->fifo) {
		jw_str(w, "fifo_shape", s->fifo == FIFO_LOOP ? "loop" :
		       s->fifo == FIFO_REP ? "rep" : "probe_rep");
		jw_u64(w, "edk2_probe_traps", s->probe_traps);
	}
	if (s->fifo == FIFO_PROBE_REP && s[-2].median)
		jw_dec(w, "rep_loop_ratio", s[-2].median, med, 2);
	else if (ata_xfer_is_rep(s->xfer) && s > state && s[-1].median)
		jw_dec(w, "rep_loop_ratio", s[-1].median, med, 2);
}

/* ---- table ---------------------------------------------------------------------- */

static void add_case(u8 kind, u8 xfer, struct ata_dev *dev, u64 lba, u32 sectors)
{
	struct bench_case *c = bench_table_add(&table);
	u8 width = ata_xfer_width(xfer);
	struct ide_case *s;

	if (!c)
		return;
	s = c->priv;
	s->kind = kind;
	s->xfer = xfer;
	s->dev = dev;
	s->lba = lba;
	s->sectors = sectors;
	s->asked = sectors;
	s->sector_size = is_cd(kind) ? ATAPI_SECTOR_SIZE : ATA_SECTOR_SIZE;
	c->suite = "ide";
	c->name = case_names[kind][xfer];
	c->target = kind_names[kind];
	c->port = dev ? dev->ch->cmd : 0;
	c->handler = HANDLER_USER;
	c->dir = is_write(kind) ? DIR_OUT : DIR_IN;
	c->width = width;
	c->method = ata_xfer_is_rep(xfer) ? METHOD_REP : METHOD_SINGLE;
	c->bytes = sectors * s->sector_size;
	c->op = op_ide;
	c->control = op_ide_control;
	c->exits_model = model_ide;
	c->skip = skip_ide;
	c->verify = verify_ide;
	c->extra = extra_ide;
}

/* edk2's shapes on one sector, read (IoReadFifo16) and written
 * (IoWriteFifo16); an edk2 that would unroll (TDX, SEV without ES) runs
 * the loop after its probe, as the firmware does. */
static void add_fifo_cases(void)
{
	u32 traps, f, k;
	bool unroll = edk2_fifo_no_rep(&traps);

	for (k = 0; k < 2; k++) {
		for (f = FIFO_LOOP; f <= FIFO_PROBE_REP; f++) {
			u8 xfer = f == FIFO_LOOP || (f == FIFO_PROBE_REP && unroll) ?
				  ATA_XFER_LOOP16 : ATA_XFER_REP16;

			if (k)
				add_case(K_WRITE1, xfer, disk, runner.write_lba, write_room ? 1 : 0);
			else
				add_case(K_READ1, xfer, disk, READ1_LBA, 1);
			state[table.n - 1].fifo = (u8)f;
			cases[table.n - 1].name = fifo_names[k][f];
		}
	}
}

static u32 clamp(u64 want, u64 room)
{
	return (u32)(want < room ? want : room);
}

static void build_table(bool quick)
{
	u64 disk_room = disk ? disk->id.sectors : 0, cd_room;
	u32 seq, wseq, cdseq, k, x;
	u64 wlba = runner.write_lba;

	write_room = 0;
	if (have_runner && runner.write_sectors && disk && !(runner.flags & IDE_CFG_READONLY) &&
	    wlba + runner.write_sectors <= disk_room) {
		write_room = runner.write_sectors;
		disk_room = wlba;             /* reads stay below the writable region */
	}
	cd_room = cd ? cd->blocks : 0;
	seq = clamp((quick ? SEQ_BYTES_QUICK : SEQ_BYTES) / ATA_SECTOR_SIZE, disk_room);
	wseq = clamp(clamp((quick ? WSEQ_BYTES_QUICK : WSEQ_BYTES) / ATA_SECTOR_SIZE,
			   write_room), WBUF_SECTORS);
	cdseq = clamp((quick ? SEQ_BYTES_QUICK : SEQ_BYTES) / ATAPI_SECTOR_SIZE, cd_room);
	table.n = 0;
	for (k = 0; k < K_COUNT; k++) {
		for (x = 0; x < ATA_XFER_COUNT; x++) {
			switch (k) {
			case K_READ1: add_case(k, x, disk, READ1_LBA, 1); break;
			case K_SEQ: case K_MULT: add_case(k, x, disk, 0, seq); break;
			case K_WRITE1: add_case(k, x, disk, wlba, write_room ? 1 : 0); break;
			case K_WSEQ: add_case(k, x, disk, wlba, wseq); break;
			case K_CD_READ1: add_case(k, x, cd, CD_READ1_LBA, 1); break;
			default: add_case(k, x, cd, 0, cdseq); break;
			}
		}
	}
}

/* The one-sector kind whose measured cost predicts a long kind's. */
static u8 twin_of(u8 kind)
{
	switch (kind) {
	case K_SEQ: case K_MULT: return K_READ1;
	case K_WSEQ: return K_WRITE1;
	case K_CD_SEQ: return K_CD_READ1;
	default: return K_COUNT;
	}
}

/*
 * Halve a long kind's sectors (never below one command's chunk) until its
 * slowest method's predicted op - sectors times the slowest one-sector op
 * of its twin kind, which holds the command's own exits too - fits
 * OP_BUDGETS case budgets.  One size for the kind's four methods, so the
 * loop/rep view compares equal transfers.  No twin measured (skipped,
 * not selected): the size stays.
 */
static void ide_size_kind(u8 kind)
{
	u64 worst = 0, limit = (u64)bench_cfg->budget_ms * tsc.khz * OP_BUDGETS;
	u32 i, n = 0, chunk = kind == K_CD_SEQ ? CD_CHUNK : DISK_CHUNK;

	for (i = 0; i < table.n; i++)
		if (state[i].kind == twin_of(kind) && !state[i].fifo && !state[i].failed &&
		    state[i].median > worst)
			worst = state[i].median;
	for (i = 0; i < table.n; i++)
		if (state[i].kind == kind && !state[i].fifo)
			n = state[i].asked;
	if (!worst)
		return;
	while (n > chunk && worst * n > limit)
		n /= 2;
	for (i = 0; i < table.n; i++)
		if (state[i].kind == kind && !state[i].fifo) {
			state[i].sectors = n;
			cases[i].bytes = n * state[i].sector_size;
		}
}

/* ---- set-up ---------------------------------------------------------------------- */

static void read_runner_info(void)
{
	struct fw_cfg_file f;
	u32 len;

	n_cd_sums = 0;
	cd_sums_source = NULL;
	cd_sums_runner = false;
	have_runner = ide_runner_read(&runner);
	if (!have_runner)
		return;
	if (fw_cfg_find(IDE_SUMS_NAME, &f) == 0) {
		len = f.size < sizeof(cd_sums) ? f.size : sizeof(cd_sums);
		fw_cfg_read(f.select, cd_sums, len);
		n_cd_sums = len / sizeof(cd_sums[0]);
		cd_sums_source = "the ISO (runner's sums)";
		cd_sums_runner = true;
	}
}

static void print_dev(const struct ata_dev *d)
{
	if (d->kind == ATA_KIND_ATA)
		kprintf("  ide: %s: ATA \"%s\" %lu sectors%s, multiple max %u, ports 0x%x/0x%x%s\n",
			d->name, d->id.model, (unsigned long)d->id.sectors,
			d->id.lba48 ? " LBA48" : " LBA28", d->id.multiple_max,
			d->ch->cmd, d->ch->ctl, d->ch->native ? " (native)" : "");
	else
		kprintf("  ide: %s: ATAPI \"%s\" type %u, %lu blocks of %u B\n", d->name,
			d->id.model, d->id.atapi_type, (unsigned long)d->blocks, d->block_size);
}

static void prepare_cd(struct ata_dev *d)
{
	if (atapi_ready(d) || atapi_read_capacity(d)) {
		fmt_snprintf(cd_why, sizeof(cd_why), "%s", ata_last_error());
		return;
	}
	if (d->block_size != ATAPI_SECTOR_SIZE) {
		fmt_snprintf(cd_why, sizeof(cd_why), "%s: block size %u, not %u", d->name,
			     d->block_size, ATAPI_SECTOR_SIZE);
		return;
	}
	cd = d;
}

static void prepare_disk(struct ata_dev *d)
{
	disk = d;
	if (d->id.multiple_max < MULT_SECTORS)
		fmt_snprintf(mult_why, sizeof(mult_why),
			     "%s: at most %u sectors per READ MULTIPLE block, need %u",
			     d->name, d->id.multiple_max, MULT_SECTORS);
	else if (ata_set_multiple(d, MULT_SECTORS))
		fmt_snprintf(mult_why, sizeof(mult_why), "%s", ata_last_error());
}

static void probe_all(void)
{
	struct ata_dev *d;
	u32 i;

	disk = cd = NULL;
	fmt_snprintf(disk_why, sizeof(disk_why), "no ATA drive found");
	fmt_snprintf(cd_why, sizeof(cd_why), "no ATAPI drive found");
	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		d = &devs[i];
		if (ata_probe(&channels[i / 2], (u8)(i % 2), d)) {
			kprintf("  ide: %s\n", ata_last_error());
			continue;
		}
		if (d->kind == ATA_KIND_ATA && !disk)
			prepare_disk(d);
		else if (d->kind == ATA_KIND_ATAPI && !cd)
			prepare_cd(d);
		print_dev(d);
	}
}

static void fill_wbuf(void)
{
	u32 i;

	for (i = 0; i < WBUF_SECTORS; i++)
		idepat_fill(wbuf + i * ATA_SECTOR_SIZE, runner.write_lba + i, IDEPAT_WRITE_SEED);
}

/* ---- reporting ------------------------------------------------------------------ */

static void check_group(const char *name, u8 k0, u8 k1, const char *what)
{
	u64 checked = 0, bad = 0, first = 0;
	const char *first_case = NULL;
	char detail[200];
	u32 i;

	for (i = 0; i < table.n; i++) {
		if (state[i].kind < k0 || state[i].kind > k1)
			continue;
		if (state[i].bad && !first_case) {
			first = state[i].first_bad;
			first_case = cases[i].name;
		}
		checked += state[i].checked;
		bad += state[i].bad;
	}
	if (!checked && !bad)
		return;
	if (bad)
		fmt_snprintf(detail, sizeof(detail), "%lu sectors verified against %s, %lu mismatches; first at LBA %lu (%s)",
			     (unsigned long)checked, what, (unsigned long)bad, (unsigned long)first, first_case);
	else
		fmt_snprintf(detail, sizeof(detail), "%lu sectors verified against %s, 0 mismatches",
			     (unsigned long)checked, what);
	bench_check(name, bad == 0, detail);
}

static void emit_view(u8 kind, const char *what)
{
	struct ide_case *loop = NULL, *rep = NULL;
	char line[400], ratio[24], rep_cs[24], loop_cs[24];
	struct jw w;
	u32 i;

	for (i = 0; i < table.n; i++)
		if (state[i].kind == kind && state[i].median && !state[i].failed) {
			if (state[i].xfer == ATA_XFER_LOOP16)
				loop = &state[i];
			if (state[i].xfer == ATA_XFER_REP16)
				rep = &state[i];
		}
	if (!loop || !rep)
		return;
	fmt_decimal(ratio, sizeof(ratio), loop->median, rep->median, 1);
	fmt_decimal(rep_cs, sizeof(rep_cs), rep->median, rep->sectors, 0);
	fmt_decimal(loop_cs, sizeof(loop_cs), loop->median, loop->sectors, 0);
	/* measured figures only: the per-sector medians and their ratio */
	kprintf("  regression view: %s %s: loop/rep %sx per sector (rep insw %s cycles, inw loop %s cycles a sector)\n",
		what, rep->dev->name, ratio, rep_cs, loop_cs);
	jw_record(&w, line, sizeof(line), "view");
	jw_str(&w, "suite", "ide");
	jw_str(&w, "device", rep->dev->name);
	jw_str(&w, "what", what);
	jw_dec(&w, "rep_cycles_per_sector", rep->median, rep->sectors, 1);
	jw_dec(&w, "loop_cycles_per_sector", loop->median, loop->sectors, 1);
	jw_dec(&w, "loop_over_rep", loop->median, rep->median, 2);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

static void emit_written(void)
{
	char line[200];
	struct jw w;

	if (!written_hi)
		return;
	jw_record(&w, line, sizeof(line), "ide_written");
	jw_str(&w, "device", disk->name);
	jw_u64(&w, "lba", runner.write_lba);
	jw_u64(&w, "sectors", written_hi);
	jw_hex(&w, "seed", IDEPAT_WRITE_SEED);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

static void report(void)
{
	char what[96];

	if (!have_runner && disk)
		bench_skip("ide", "disk.verify", "no runner pattern info (fw_cfg " IDE_CFG_NAME "): disk data unchecked");
	check_group("ide.disk.read", K_READ1, K_MULT, "the LBA pattern");
	check_group("ide.disk.write", K_WRITE1, K_WSEQ, "what was written (read back)");
	fmt_snprintf(what, sizeof(what), "%s", cd_sums_source ? cd_sums_source : "nothing");
	check_group("ide.cd.read", K_CD_READ1, K_CD_SEQ, what);
	if (first_error[0])
		bench_check("ide.errors", false, first_error);
	emit_written();
	emit_view(K_SEQ, "disk");
	emit_view(K_MULT, "disk READ MULTIPLE 16");
	emit_view(K_CD_SEQ, "cd");
}

void suite_ide(const struct tm_config *cfg)
{
	struct bench_result r;
	u32 i;

	bench_suite_begin("ide");
	written_hi = 0;
	first_error[0] = 0;
	if (ata_find_channels(channels)) {
		bench_skip("ide", "*", ata_last_error());
		return;
	}
	read_runner_info();
	probe_all();
	if (disk && have_runner && runner.write_sectors)
		fill_wbuf();
	build_table(cfg->quick);
	if (suite_extended(cfg))
		add_fifo_cases();
	for (i = 0; i < table.n; i++) {
		if (twin_of(state[i].kind) != K_COUNT && !state[i].fifo &&
		    (!i || state[i - 1].kind != state[i].kind))
			ide_size_kind(state[i].kind);
		bench_run(&cases[i], &r);
	}
	report();
}
