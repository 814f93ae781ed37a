/*
 * tests/host/c/test_ata.c - drivers/ata.c on the host: command encoding
 * (LBA28/LBA48 register values, CDBs), IDENTIFY parsing, status/error
 * names, and the driver's port sequences against a small fake IDE
 * controller (an ATA disk on the primary channel, an ATAPI CD-ROM on the
 * secondary, a PIIX-like PCI function) behind tests/host/c/fake_io.h.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_tsc.h"
#include "arch/x86/tsc.h"
#include "drivers/ata.h"
#include "kernel/suites/idepat.h"
#include "model/model.h"

#define DISK_SECTORS   300
#define CD_SECTORS     40
#define XBUF_BYTES     (256 * 512)
#define PCI_ADDR_PORT  0xcf8
#define PCI_DATA_PORT  0xcfc
#define ST_READY       0x50     /* DRDY | DSC */
#define ST_DRQ         0x58
#define ST_ERR         0x51
#define PIIX_IDE_ID    0x70108086u
#define PIIX_ISA_ID    0x70008086u

struct fdrive {
	bool present, atapi, stuck_bsy, fail_next;
	u8 status, error, reg[8], hob[8], mult;
	u32 pos, len, block;       /* data phase over xbuf */
	u32 blk_end;               /* where the current DRQ block ends */
	bool writing, cdb_phase, unit_attention;
	u64 wlba;
	u8 xbuf[XBUF_BYTES];
};

struct fchan {
	struct fdrive d[2];
	u8 sel;
	bool floating;
	u8 devctl;
};

static struct fchan chans[2];
static u8 disk[DISK_SECTORS * 512];
static u8 cdimg[CD_SECTORS * 2048];
static u32 atapi_block = 2048;         /* bytes the CD offers per DRQ block */
static u32 pci_addr;
static bool pci_has_ide;
static u8 pci_progif;
static u32 pci_bar[4];

/* ---- the fake controller ------------------------------------------------ */

static void put_string(u16 *id, u32 word, u32 words, const char *s)
{
	u32 i;
	char c0, c1;

	for (i = 0; i < words; i++) {
		c0 = *s ? *s++ : ' ';
		c1 = *s ? *s++ : ' ';
		id[word + i] = (u16)((u8)c0 << 8 | (u8)c1);
	}
}

static void make_identify(u16 *id, bool atapi)
{
	memset(id, 0, 512);
	if (atapi) {
		id[0] = 0x85c0;              /* ATAPI, CD-ROM (5), 12-byte packets */
		put_string(id, 27, 20, "QEMU DVD-ROM");
		return;
	}
	id[0] = 0x0040;
	put_string(id, 10, 10, "QM00001");
	put_string(id, 27, 20, "QEMU HARDDISK");
	id[47] = 0x8010;                     /* up to 16 sectors per block */
	id[49] = 0x0200;                     /* LBA */
	id[60] = DISK_SECTORS;
	id[83] = 0x4400;                     /* LBA48 */
	id[100] = DISK_SECTORS;
}

static void start_in(struct fdrive *d, u32 len, u32 block)
{
	d->pos = 0;
	d->len = len;
	d->block = block;
	d->blk_end = block < len ? block : len;
	d->writing = false;
	d->status = ST_DRQ;
}

static void abort_cmd(struct fdrive *d)
{
	d->status = ST_ERR;
	d->error = ATA_ER_ABRT;
}

static void rw_cmd(struct fdrive *d, u8 cmd)
{
	bool ext = cmd == 0x24 || cmd == 0x29 || cmd == 0x34 || cmd == 0x39;
	bool mult = cmd == 0xc4 || cmd == 0xc5 || cmd == 0x29 || cmd == 0x39;
	bool wr = cmd == 0x30 || cmd == 0x34 || cmd == 0xc5 || cmd == 0x39;
	u32 count;
	u64 lba;

	if (ext) {
		count = (u32)d->hob[2] << 8 | d->reg[2];
		count = count ? count : 65536;
		lba = d->reg[3] | (u64)d->reg[4] << 8 | (u64)d->reg[5] << 16 |
		      (u64)d->hob[3] << 24 | (u64)d->hob[4] << 32 | (u64)d->hob[5] << 40;
	} else {
		count = d->reg[2] ? d->reg[2] : 256;
		lba = d->reg[3] | (u64)d->reg[4] << 8 | (u64)d->reg[5] << 16 |
		      (u64)(d->reg[6] & 0x0f) << 24;
	}
	if (d->fail_next || lba + count > DISK_SECTORS || (mult && !d->mult)) {
		d->fail_next = false;
		abort_cmd(d);
		return;
	}
	start_in(d, count * 512, (mult ? d->mult : 1) * 512);
	if (wr) {
		d->writing = true;
		d->wlba = lba;
	} else {
		memcpy(d->xbuf, disk + lba * 512, count * 512);
	}
}

static void packet_cmd(struct fdrive *d)
{
	u8 *cdb = d->xbuf;
	u32 lba = (u32)cdb[2] << 24 | (u32)cdb[3] << 16 | (u32)cdb[4] << 8 | cdb[5];
	u32 n = cdb[0] == ATAPI_READ10 ? (u32)cdb[7] << 8 | cdb[8] :
		(u32)cdb[6] << 24 | (u32)cdb[7] << 16 | (u32)cdb[8] << 8 | cdb[9];

	d->cdb_phase = false;
	if (d->unit_attention && cdb[0] != ATAPI_REQUEST_SENSE) {
		d->status = ST_ERR;
		d->error = 0x06 << 4;         /* UNIT ATTENTION */
		return;
	}
	switch (cdb[0]) {
	case ATAPI_TEST_UNIT_READY:
		d->status = ST_READY;
		return;
	case ATAPI_REQUEST_SENSE:
		memset(d->xbuf, 0, 18);
		d->xbuf[2] = d->unit_attention ? 0x06 : 0;
		d->unit_attention = false;
		start_in(d, 18, 18);
		break;
	case ATAPI_READ_CAPACITY:
		memset(d->xbuf, 0, 8);
		d->xbuf[3] = CD_SECTORS - 1;
		d->xbuf[6] = 0x08;            /* 2048 */
		start_in(d, 8, 8);
		break;
	case ATAPI_READ10:
	case ATAPI_READ12:
		if (lba + n > CD_SECTORS) {
			d->status = ST_ERR;
			d->error = 0x05 << 4;
			return;
		}
		memcpy(d->xbuf, cdimg + lba * 2048, n * 2048);
		start_in(d, n * 2048, atapi_block);
		break;
	default:
		d->status = ST_ERR;
		d->error = (0x05 << 4) | ATA_ER_ABRT;
		return;
	}
	d->reg[4] = (u8)d->blk_end;           /* byte count of this DRQ block */
	d->reg[5] = (u8)(d->blk_end >> 8);
}

static void command(struct fdrive *d, u8 cmd)
{
	d->error = 0;
	switch (cmd) {
	case ATA_CMD_IDENTIFY:
	case ATA_CMD_IDENTIFY_PACKET:
		if (d->atapi != (cmd == ATA_CMD_IDENTIFY_PACKET)) {
			abort_cmd(d);
			if (d->atapi) {
				d->reg[4] = ATAPI_SIG_LBA1;
				d->reg[5] = ATAPI_SIG_LBA2;
			}
			return;
		}
		make_identify((u16 *)d->xbuf, d->atapi);
		start_in(d, 512, 512);
		return;
	case ATA_CMD_SET_MULTIPLE:
		if (d->reg[2] > 16) {
			abort_cmd(d);
			return;
		}
		d->mult = d->reg[2];
		d->status = ST_READY;
		return;
	case ATA_CMD_PACKET:
		d->cdb_phase = true;
		start_in(d, ATAPI_CDB_LEN, ATAPI_CDB_LEN);
		d->writing = true;
		return;
	default:
		if (d->atapi)
			abort_cmd(d);
		else
			rw_cmd(d, cmd);
	}
}

static void block_done(struct fdrive *d)
{
	if (d->pos < d->blk_end)
		return;
	if (d->pos < d->len) {
		d->blk_end = d->len - d->pos > d->block ? d->pos + d->block : d->len;
		d->reg[4] = (u8)(d->blk_end - d->pos);
		d->reg[5] = (u8)((d->blk_end - d->pos) >> 8);
		return;
	}
	d->status = ST_READY;
	if (d->cdb_phase) {
		packet_cmd(d);
		return;
	}
	if (d->writing)
		memcpy(disk + d->wlba * 512, d->xbuf, d->len);
}

static struct fchan *chan_of(u16 port, u8 *reg, bool *ctl)
{
	*ctl = port == ATA_PRIMARY_CTL || port == ATA_SECONDARY_CTL;
	if (port >= ATA_PRIMARY_CMD && port <= ATA_PRIMARY_CMD + 7) {
		*reg = (u8)(port - ATA_PRIMARY_CMD);
		return &chans[0];
	}
	if (port >= ATA_SECONDARY_CMD && port <= ATA_SECONDARY_CMD + 7) {
		*reg = (u8)(port - ATA_SECONDARY_CMD);
		return &chans[1];
	}
	*reg = ATA_REG_STATUS;
	if (port == ATA_PRIMARY_CTL)
		return &chans[0];
	return port == ATA_SECONDARY_CTL ? &chans[1] : NULL;
}

static u32 pci_read(void)
{
	u32 dev = (pci_addr >> 11) & 31, fn = (pci_addr >> 8) & 7, off = pci_addr & 0xfc;

	if (!pci_has_ide || dev != 1)
		return 0xffffffffu;
	if (fn == 0)
		return off == 0 ? PIIX_ISA_ID : off == 0x0c ? 0x00800000u : 0;
	if (fn != 1)
		return 0xffffffffu;
	if (off == 0)
		return PIIX_IDE_ID;
	if (off == 0x08)
		return 0x01010000u | (u32)pci_progif << 8;
	if (off >= 0x10 && off < 0x20)
		return pci_bar[(off - 0x10) / 4];
	return 0;
}

/* A drive stuck in BSY: each status read takes STUCK_POLL_CYCLES of the
 * fake clock; after STUCK_POLL_MAX reads (far past any bound) it gives
 * in, so a wait without a time bound ends, and says so, instead of
 * hanging the test. */
#define STUCK_POLL_CYCLES 1000000u      /* 1 ms at the tests' 1 GHz */
#define STUCK_POLL_MAX    100000u
static u32 stuck_polls;

static u8 stuck_status(void)
{
	fake_tsc_now += STUCK_POLL_CYCLES;
	return ++stuck_polls > STUCK_POLL_MAX ? ST_READY : ATA_SR_BSY;
}

static u32 read_hook(u16 port, u8 width)
{
	struct fdrive *d;
	struct fchan *ch;
	u32 v = 0;
	bool ctl;
	u8 reg;

	if (port == PCI_DATA_PORT)
		return pci_read();
	ch = chan_of(port, &reg, &ctl);
	if (!ch || ch->floating)
		return 0xffffffffu;
	d = &ch->d[ch->sel];
	if (!d->present)
		return 0;                     /* QEMU: absent drive reads 0 */
	if (reg == ATA_REG_STATUS && d->stuck_bsy)
		return stuck_status();
	if (reg == ATA_REG_STATUS)
		return d->status;
	if (reg == ATA_REG_ERROR)
		return d->error;
	if (reg != ATA_REG_DATA)
		return d->reg[reg];
	if (!(d->status & ATA_SR_DRQ) || d->writing)
		return 0xffffffffu;
	memcpy(&v, d->xbuf + d->pos, width);
	d->pos += width;
	block_done(d);
	return v;
}

static void write_hook(u16 port, u8 width, u32 value)
{
	struct fdrive *d;
	struct fchan *ch;
	bool ctl;
	u8 reg;

	if (port == PCI_ADDR_PORT) {
		pci_addr = value;
		return;
	}
	ch = chan_of(port, &reg, &ctl);
	if (!ch || ch->floating)
		return;
	if (ctl) {
		ch->devctl = (u8)value;
		return;
	}
	if (reg == ATA_REG_DEVICE)
		ch->sel = (value >> 4) & 1;
	d = &ch->d[ch->sel];
	if (reg == ATA_REG_COMMAND) {
		if (d->present)
			command(d, (u8)value);
		return;
	}
	if (reg == ATA_REG_DATA) {
		if (d->present && (d->status & ATA_SR_DRQ) && d->writing) {
			memcpy(d->xbuf + d->pos, &value, width);
			d->pos += width;
			block_done(d);
		}
		return;
	}
	d->hob[reg] = d->reg[reg];            /* registers are two deep (LBA48) */
	d->reg[reg] = (u8)value;
	ch->d[!ch->sel].reg[reg] = (u8)value; /* both drives see taskfile writes */
}

static void fake_setup(void)
{
	u32 i;

	memset(chans, 0, sizeof(chans));
	chans[0].d[0].present = true;
	chans[0].d[0].status = ST_READY;
	chans[1].d[0].present = true;
	chans[1].d[0].atapi = true;
	chans[1].d[0].status = ST_READY;
	for (i = 0; i < DISK_SECTORS; i++)
		idepat_fill(disk + i * 512, i, 0);
	for (i = 0; i < sizeof(cdimg); i++)
		cdimg[i] = (u8)(i * 13 + (i >> 11));
	pci_has_ide = true;
	pci_progif = 0x80;
	fake_io_read_hook = read_hook;
	fake_io_write_hook = write_hook;
	fake_io_reset();
}

static struct ata_channel ch[2];
static struct ata_dev hd, cd;

static void setup_drives(void)
{
	fake_setup();
	ata_channel_legacy(&ch[0], 0);
	ata_channel_legacy(&ch[1], 1);
	CHECK_EQ_S64(ata_probe(&ch[0], 0, &hd), 0);
	CHECK_EQ_S64(ata_probe(&ch[1], 0, &cd), 0);
	fake_io_reset();
}

/* Outputs to the command block (ports base+1..base+7) in the log. */
static u32 taskfile_writes(u16 base, struct ata_reg_write *out, u32 max)
{
	u32 i, n = 0;

	for (i = 0; i < fake_io_len && n < max; i++)
		if (fake_io_log[i].out && fake_io_log[i].port > base &&
		    fake_io_log[i].port <= base + 7)
			out[n++] = (struct ata_reg_write){ (u8)(fake_io_log[i].port - base),
							   (u8)fake_io_log[i].value };
	return n;
}

/* ---- pure encoding ------------------------------------------------------- */

static void test_encode_lba28(void)
{
	struct ata_taskfile tf = { .command = ATA_CMD_READ_SECTORS, .count = 256,
				   .lba = 0x0a123456, .lba_mode = true };
	struct ata_reg_write w[ATA_TF_MAX_WRITES];
	static const struct ata_reg_write want[] = {
		{ 1, 0 }, { 2, 0 }, { 3, 0x56 }, { 4, 0x34 }, { 5, 0x12 },
		{ 6, 0xa0 | 0x40 | 0x10 | 0x0a }, { 7, 0x20 } };
	int n = ata_encode(&tf, 1, w), i;

	CHECK_EQ_S64(n, 7);
	for (i = 0; i < n && i < 7; i++) {
		CHECK_EQ_U64(w[i].reg, want[i].reg);
		CHECK_EQ_U64(w[i].value, want[i].value);
	}
}

static void test_encode_lba48(void)
{
	struct ata_taskfile tf = { .command = ATA_CMD_READ_SECTORS_EXT, .count = 0x1234,
				   .lba = 0x123456789abcull, .ext = true, .lba_mode = true };
	struct ata_reg_write w[ATA_TF_MAX_WRITES];
	static const struct ata_reg_write want[] = {
		{ 1, 0 }, { 2, 0x12 }, { 3, 0x56 }, { 4, 0x34 }, { 5, 0x12 },
		{ 1, 0 }, { 2, 0x34 }, { 3, 0xbc }, { 4, 0x9a }, { 5, 0x78 },
		{ 6, 0xe0 }, { 7, 0x24 } };
	int n = ata_encode(&tf, 0, w), i;

	CHECK_EQ_S64(n, 12);
	for (i = 0; i < n && i < 12; i++) {
		CHECKF(w[i].reg == want[i].reg && w[i].value == want[i].value,
		       "write %d: reg %u = 0x%02x, want reg %u = 0x%02x", i, w[i].reg,
		       w[i].value, want[i].reg, want[i].value);
	}
	tf.count = 65536;                    /* 65536 is encoded as 0 */
	n = ata_encode(&tf, 0, w);
	CHECK_EQ_U64(w[1].value, 0);
	CHECK_EQ_U64(w[6].value, 0);
}

static void test_encode_ranges(void)
{
	struct ata_taskfile tf = { .command = ATA_CMD_READ_SECTORS, .count = 257 };
	struct ata_reg_write w[ATA_TF_MAX_WRITES];

	CHECK_EQ_S64(ata_encode(&tf, 0, w), -ERANGE);
	tf.count = 256;
	tf.lba = ATA_LBA28_LIMIT - 256;
	CHECK_EQ_S64(ata_encode(&tf, 0, w), 7);
	tf.lba++;
	CHECK_EQ_S64(ata_encode(&tf, 0, w), -ERANGE);
	tf.ext = true;
	CHECK_EQ_S64(ata_encode(&tf, 0, w), 12);
	tf.count = 65537;
	CHECK_EQ_S64(ata_encode(&tf, 0, w), -ERANGE);
	tf.count = 1;
	tf.lba = ATA_LBA48_LIMIT;
	CHECK_EQ_S64(ata_encode(&tf, 0, w), -ERANGE);
}

static void test_cdbs(void)
{
	static const u8 r10[12] = { 0x28, 0, 0x01, 0x02, 0x03, 0x04, 0, 0x12, 0x34, 0, 0, 0 };
	static const u8 r12[12] = { 0xa8, 0, 0xde, 0xad, 0xbe, 0xef, 0, 0x01, 0x00, 0x02, 0, 0 };
	static const u8 sense[12] = { 0x03, 0, 0, 0, 18, 0, 0, 0, 0, 0, 0, 0 };
	u8 cdb[12];

	atapi_cdb_read10(cdb, 0x01020304, 0x1234);
	CHECK(memcmp(cdb, r10, 12) == 0);
	atapi_cdb_read12(cdb, 0xdeadbeef, 0x10002);
	CHECK(memcmp(cdb, r12, 12) == 0);
	atapi_cdb_simple(cdb, ATAPI_REQUEST_SENSE, 18);
	CHECK(memcmp(cdb, sense, 12) == 0);
}

static void test_identify_parse(void)
{
	static u16 id[256];
	struct ata_identity out;

	make_identify(id, false);
	id[102] = 0x0001;                      /* > 2^32 sectors: LBA48 words */
	ata_parse_identify(id, &out);
	CHECK_STR(out.model, "QEMU HARDDISK");
	CHECK_STR(out.serial, "QM00001");
	CHECK(out.lba && out.lba48 && !out.atapi);
	CHECK_EQ_U64(out.sectors, 0x10000ull * 0x10000 + DISK_SECTORS);
	CHECK_EQ_U64(out.multiple_max, 16);
	id[83] = 0;                            /* no LBA48: words 60-61 */
	ata_parse_identify(id, &out);
	CHECK(!out.lba48);
	CHECK_EQ_U64(out.sectors, DISK_SECTORS);
	make_identify(id, true);
	ata_parse_identify(id, &out);
	CHECK(out.atapi);
	CHECK_EQ_U64(out.atapi_type, 5);
	CHECK_STR(out.model, "QEMU DVD-ROM");
}

static void test_status_names(void)
{
	char buf[64];

	ata_status_str(0x51, buf, sizeof(buf));
	CHECK_STR(buf, "DRDY DSC ERR");
	ata_status_str(0x21, buf, sizeof(buf));
	CHECK_STR(buf, "DF ERR");
	ata_status_str(0, buf, sizeof(buf));
	CHECK_STR(buf, "none");
	ata_error_str(0x04, buf, sizeof(buf));
	CHECK_STR(buf, "ABRT");
	ata_error_str(0x50, buf, sizeof(buf));
	CHECK_STR(buf, "UNC IDNF");
}

/* ---- driver against the fake ---------------------------------------------- */

static void test_probe(void)
{
	struct ata_dev d;

	setup_drives();
	CHECK_EQ_U64(hd.kind, ATA_KIND_ATA);
	CHECK_STR(hd.name, "ata0.0");
	CHECK_EQ_U64(hd.id.sectors, DISK_SECTORS);
	CHECK_EQ_U64(cd.kind, ATA_KIND_ATAPI);
	CHECK_STR(cd.name, "ata1.0");
	CHECK(chans[0].devctl & ATA_CTL_NIEN);
	CHECK_EQ_S64(ata_probe(&ch[0], 1, &d), -ENODEV);
	CHECK_CONTAINS(ata_last_error(), "ata0.1");
	CHECK_CONTAINS(ata_last_error(), "no drive");
	chans[0].floating = true;
	CHECK_EQ_S64(ata_probe(&ch[0], 0, &d), -ENODEV);
	CHECK_CONTAINS(ata_last_error(), "floating bus");
}

static void test_probe_selects_dev0_and_settles(void)
{
	struct ata_dev d;
	u32 i, settle = 0;

	fake_setup();
	chans[0].sel = 1;                      /* firmware left dev1 selected */
	ata_channel_legacy(&ch[0], 0);
	CHECK_EQ_S64(ata_probe(&ch[0], 0, &d), 0);
	CHECK(fake_io_log[1].out && fake_io_log[1].port == 0x1f6 && fake_io_log[1].value == 0xe0);
	for (i = 2; i < 6; i++)
		settle += !fake_io_log[i].out && fake_io_log[i].port == ATA_PRIMARY_CTL;
	CHECK_EQ_U64(settle, 4);
}

static void test_read_methods(void)
{
	static u8 buf[8 * 512] __attribute__((aligned(8)));
	u32 x;

	setup_drives();
	for (x = 0; x < ATA_XFER_COUNT; x++) {
		memset(buf, 0, sizeof(buf));
		ata_count = (struct ata_counters){ 0 };
		fake_io_reset();
		CHECK_EQ_S64(ata_read(&hd, 7, 1, buf, (u8)x, false, false), 0);
		CHECKF(idepat_match(buf, 7, 0), "%s", ata_xfer_name((u8)x));
		/* rep: one string instruction of 512 B; loops: one access per unit */
		CHECK_EQ_U64(ata_count.data_units, ata_xfer_is_rep((u8)x) ? 0 : 512 / ata_xfer_width((u8)x));
		CHECK_EQ_U64(ata_count.str_ops, ata_xfer_is_rep((u8)x) ? 1 : 0);
		CHECK_EQ_U64(ata_count.str_bytes, ata_xfer_is_rep((u8)x) ? 512 : 0);
		CHECK_EQ_S64(ata_read(&hd, 100, 8, buf, (u8)x, true, false), 0);
		CHECK(idepat_match(buf, 100, 0) && idepat_match(buf + 7 * 512, 107, 0));
	}
}

static void test_read_ext_registers(void)
{
	static u8 buf[4 * 512];
	struct ata_reg_write w[32];
	u32 n;

	setup_drives();
	CHECK_EQ_S64(ata_read(&hd, 0x102, 4, buf, ATA_XFER_REP16, true, false), 0);
	n = taskfile_writes(ATA_PRIMARY_CMD, w, 32);
	CHECK_EQ_U64(n, 12);
	CHECK(w[1].reg == 2 && w[1].value == 0);         /* count high */
	CHECK(w[6].reg == 2 && w[6].value == 4);         /* count low */
	CHECK(w[7].reg == 3 && w[7].value == 0x02);
	CHECK(w[8].reg == 4 && w[8].value == 0x01);
	CHECK(w[10].reg == 6 && w[10].value == 0xe0);
	CHECK(w[11].reg == 7 && w[11].value == ATA_CMD_READ_SECTORS_EXT);
	CHECK(idepat_match(buf + 3 * 512, 0x105, 0));
}

/* What a suite does with the driver's string reports: apply the model. */
static u64 model_exits;

static void model_string(const void *buf, u32 bytes, u32 width, bool in)
{
	CHECK(in);
	model_exits += model_rep_in_exits((u64)(uintptr_t)buf, bytes, width);
}

static void test_multiple(void)
{
	static u8 buf[40 * 512] __attribute__((aligned(4096)));
	u32 i, reps = 0;

	setup_drives();
	CHECK_EQ_S64(ata_read(&hd, 0, 16, buf, ATA_XFER_REP16, true, true), -EINVAL);
	CHECK_CONTAINS(ata_last_error(), "SET MULTIPLE");
	CHECK_EQ_S64(ata_set_multiple(&hd, 16), 0);
	CHECK_EQ_U64(hd.multiple, 16);
	fake_io_reset();
	model_exits = 0;
	ata_string_seen = model_string;
	CHECK_EQ_S64(ata_read(&hd, 10, 40, buf, ATA_XFER_REP16, true, true), 0);
	ata_string_seen = 0;
	for (i = 0; i < 40; i++)
		CHECK(idepat_match(buf + i * 512, 10 + i, 0));
	/* DRQ blocks of 16, 16 and 8 sectors: three rep insw runs */
	for (i = 0; i < fake_io_len; i++)
		reps += fake_io_log[i].rep && (i == 0 || !fake_io_log[i - 1].rep);
	CHECK_EQ_U64(reps, 3);
	CHECK_EQ_U64(model_exits, 8 + 8 + 4);    /* 1024 B per exit */
	CHECK_EQ_S64(ata_read(&hd, 10, 2, buf, ATA_XFER_LOOP32, false, true), 0);
	CHECK(idepat_match(buf + 512, 11, 0));
}

static void test_write(void)
{
	static u8 src[20 * 512], back[20 * 512];
	u32 x, i;

	setup_drives();
	CHECK_EQ_S64(ata_set_multiple(&hd, 4), 0);
	for (i = 0; i < 20; i++)
		idepat_fill(src + i * 512, 200 + i, IDEPAT_WRITE_SEED);
	for (x = 0; x < ATA_XFER_COUNT; x++) {
		idepat_fill(disk + 200 * 512, 200, 0);
		CHECK_EQ_S64(ata_write(&hd, 200, 20, src, (u8)x, x & 1, x >= 2), 0);
		CHECK(idepat_match(disk + 219 * 512, 219, IDEPAT_WRITE_SEED));
		memset(back, 0, sizeof(back));
		CHECK_EQ_S64(ata_read(&hd, 200, 20, back, (u8)x, false, false), 0);
		CHECK(memcmp(back, src, sizeof(src)) == 0);
	}
}

static void test_errors_named(void)
{
	static u8 buf[512];

	setup_drives();
	chans[0].d[0].fail_next = true;
	CHECK_EQ_S64(ata_read(&hd, 1, 1, buf, ATA_XFER_REP16, false, false), -EIO);
	CHECK_CONTAINS(ata_last_error(), "ata0.0: READ SECTORS");
	CHECK_CONTAINS(ata_last_error(), "ERR");
	CHECK_CONTAINS(ata_last_error(), "ABRT");
	CHECK_EQ_S64(ata_read(&hd, DISK_SECTORS - 1, 2, buf, ATA_XFER_REP16, true, false), -ERANGE);
	CHECK_CONTAINS(ata_last_error(), "READ SECTORS EXT");
}

/* A drive that never clears BSY: the wait ends by the fake clock after
 * its bound, with an error that names the bound; the same for a CD's
 * PACKET command. */
static void test_stuck_bsy_times_out(void)
{
	static u8 buf[2048];
	u64 t0;

	setup_drives();
	fake_tsc_on = true;
	fake_tsc_read_cost = 20;
	tsc.khz = 1000000;
	chans[0].d[0].stuck_bsy = true;
	stuck_polls = 0;
	t0 = fake_tsc_now;
	CHECK_EQ_S64(ata_read(&hd, 1, 1, buf, ATA_XFER_REP16, false, false), -ETIMEDOUT);
	CHECK_CONTAINS(ata_last_error(), "ata0.0: READ SECTORS: timeout after 5000 ms");
	CHECK_CONTAINS(ata_last_error(), "BSY");
	CHECKF(stuck_polls <= STUCK_POLL_MAX, "the wait outlasted %u polls", STUCK_POLL_MAX);
	CHECK(fake_tsc_now - t0 >= 5000ull * 1000000);
	CHECK(fake_tsc_now - t0 < 5010ull * 1000000);
	chans[0].d[0].stuck_bsy = false;
	setup_drives();
	cd.blocks = CD_SECTORS;
	chans[1].d[0].stuck_bsy = true;
	stuck_polls = 0;
	CHECK_EQ_S64(atapi_read(&cd, 16, 1, buf, ATA_XFER_LOOP16, false), -ETIMEDOUT);
	CHECK_CONTAINS(ata_last_error(), "timeout after 5000 ms");
	CHECKF(stuck_polls <= STUCK_POLL_MAX, "the wait outlasted %u polls", STUCK_POLL_MAX);
	chans[1].d[0].stuck_bsy = false;
	fake_tsc_on = false;
}

static void test_atapi(void)
{
	static u8 buf[6 * 2048] __attribute__((aligned(8)));
	u32 x;

	setup_drives();
	chans[1].d[0].unit_attention = true;
	CHECK_EQ_S64(atapi_ready(&cd), 0);
	CHECK(!chans[1].d[0].unit_attention);
	CHECK_EQ_S64(atapi_read_capacity(&cd), 0);
	CHECK_EQ_U64(cd.blocks, CD_SECTORS);
	CHECK_EQ_U64(cd.block_size, 2048);
	for (x = 0; x < ATA_XFER_COUNT; x++) {
		memset(buf, 0, sizeof(buf));
		CHECK_EQ_S64(atapi_read(&cd, 3, 6, buf, (u8)x, x & 1), 0);
		CHECKF(memcmp(buf, cdimg + 3 * 2048, sizeof(buf)) == 0, "%s", ata_xfer_name((u8)x));
	}
	/* a device offering odd-sized DRQ blocks: the driver follows its count */
	atapi_block = 3002;
	for (x = 0; x < ATA_XFER_COUNT; x++) {
		memset(buf, 0, sizeof(buf));
		CHECK_EQ_S64(atapi_read(&cd, 5, 6, buf, (u8)x, false), 0);
		CHECKF(memcmp(buf, cdimg + 5 * 2048, sizeof(buf)) == 0, "%s, 3002-byte blocks",
		       ata_xfer_name((u8)x));
	}
	atapi_block = 2048;
	CHECK_EQ_S64(atapi_read(&cd, CD_SECTORS - 1, 2, buf, ATA_XFER_REP16, false), -ERANGE);
	CHECK_CONTAINS(ata_last_error(), "ata1.0: READ(10)");
}

static void test_atapi_packet_sequence(void)
{
	static u8 buf[2048];
	u32 i, cdb_words = 0;
	bool saw_bc = false;

	setup_drives();
	cd.blocks = CD_SECTORS;
	CHECK_EQ_S64(atapi_read(&cd, 16, 1, buf, ATA_XFER_LOOP16, true), 0);
	for (i = 0; i < fake_io_len; i++) {
		if (fake_io_log[i].out && fake_io_log[i].port == ATA_SECONDARY_CMD)
			cdb_words++;
		if (!fake_io_log[i].out && fake_io_log[i].port == ATA_SECONDARY_CMD + 5)
			saw_bc = true;
	}
	CHECK_EQ_U64(cdb_words, 6);            /* 12-byte CDB as 6 words */
	CHECK(saw_bc);                         /* byte count read per DRQ block */
	CHECK(fake_io_log[0].port == ATA_SECONDARY_CMD + 7 || fake_io_log[0].port == ATA_SECONDARY_CMD + 1);
}

/* What the suite's control replays: every data phase, heard in order. */
static u32 heard[16], n_heard;

static void hear_phase(u32 bytes, bool in)
{
	if (n_heard < 16)
		heard[n_heard] = bytes << 1 | in;
	n_heard++;
}

static void test_phases_heard(void)
{
	static u8 buf[40 * 512] __attribute__((aligned(4096)));
	static const u32 atapi_want[] = { 12 << 1, 3002 << 1 | 1, 3002 << 1 | 1,
					  3002 << 1 | 1, 3002 << 1 | 1, 280 << 1 | 1 };
	u32 i;

	setup_drives();
	CHECK_EQ_S64(ata_set_multiple(&hd, 16), 0);
	n_heard = 0;
	ata_phase_seen = hear_phase;
	CHECK_EQ_S64(ata_read(&hd, 10, 40, buf, ATA_XFER_LOOP16, true, true), 0);
	CHECK_EQ_U64(n_heard, 3);              /* DRQ blocks of 16, 16, 8 sectors */
	CHECK_EQ_U64(heard[0], 8192u << 1 | 1);
	CHECK_EQ_U64(heard[2], 4096u << 1 | 1);
	n_heard = 0;
	CHECK_EQ_S64(ata_write(&hd, 200, 2, buf, ATA_XFER_REP32, false, false), 0);
	CHECK_EQ_U64(n_heard, 2);
	CHECK_EQ_U64(heard[1], 512u << 1);     /* out */
	CHECK_EQ_S64(atapi_ready(&cd), 0);
	CHECK_EQ_S64(atapi_read_capacity(&cd), 0);
	atapi_block = 3002;
	n_heard = 0;
	CHECK_EQ_S64(atapi_read(&cd, 5, 6, buf, ATA_XFER_REP16, false), 0);
	atapi_block = 2048;
	ata_phase_seen = 0;
	CHECK_EQ_U64(n_heard, ARRAY_SIZE(atapi_want));   /* the CDB, then the device's blocks */
	for (i = 0; i < ARRAY_SIZE(atapi_want) && i < n_heard; i++)
		CHECK_EQ_U64(heard[i], atapi_want[i]);
}

static void test_find_channels(void)
{
	struct ata_channel c[2];

	fake_setup();
	CHECK_EQ_S64(ata_find_channels(c), 0);
	CHECK(c[0].cmd == 0x1f0 && c[0].ctl == 0x3f6 && !c[0].native);
	CHECK(c[1].cmd == 0x170 && c[1].ctl == 0x376);
	pci_progif = 0x85;                      /* both channels native */
	pci_bar[0] = 0xc001;
	pci_bar[1] = 0xc101;
	pci_bar[2] = 0xc201;
	pci_bar[3] = 0xc301;
	CHECK_EQ_S64(ata_find_channels(c), 0);
	CHECK(c[0].native && c[0].cmd == 0xc000 && c[0].ctl == 0xc102);
	CHECK(c[1].cmd == 0xc200 && c[1].ctl == 0xc302);
	pci_has_ide = false;
	CHECK_EQ_S64(ata_find_channels(c), -ENODEV);
	CHECK_CONTAINS(ata_last_error(), "q35");
}

int main(void)
{
	RUN(test_encode_lba28, "ata: LBA28 taskfile register values");
	RUN(test_encode_lba48, "ata: LBA48 taskfile, high bytes first");
	RUN(test_encode_ranges, "ata: count and LBA limits");
	RUN(test_cdbs, "atapi: READ(10), READ(12), REQUEST SENSE CDBs");
	RUN(test_identify_parse, "ata: IDENTIFY strings, capacity, LBA48, multiple");
	RUN(test_status_names, "ata: status and error bits named");
	RUN(test_probe, "ata: probe finds disk and CD, absent drive, floating bus");
	RUN(test_probe_selects_dev0_and_settles, "ata: probe selects dev0 and waits 400 ns");
	RUN(test_read_methods, "ata: READ SECTORS (EXT) with every method");
	RUN(test_read_ext_registers, "ata: READ SECTORS EXT port sequence");
	RUN(test_multiple, "ata: SET MULTIPLE + READ MULTIPLE blocks");
	RUN(test_write, "ata: WRITE SECTORS/MULTIPLE then read back");
	RUN(test_stuck_bsy_times_out, "ata: a drive stuck in BSY times out after 5000 ms by the clock, named");
	RUN(test_errors_named, "ata: device error and timeout name drive and command");
	RUN(test_atapi, "atapi: ready, capacity, READ(10)/(12) every method");
	RUN(test_atapi_packet_sequence, "atapi: CDB words and byte count per block");
	RUN(test_phases_heard, "ata: every data phase (DRQ block, CDB) heard with its size");
	RUN(test_find_channels, "ata: PCI legacy/native channels, q35 without IDE");
	return check_summary();
}
