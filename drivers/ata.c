/*
 * drivers/ata.c - IDE PIO driver, ATA and ATAPI (see drivers/ata.h).
 *
 * Device: an IDE controller (PCI class 01:01; PCI IDE Controller spec 1.0)
 * and its drives, per ATA/ATAPI-6: PIO data-in/out protocols (section
 * 9.5/9.6), PACKET protocol (9.8), IDENTIFY words (8.15, 8.16).  QEMU:
 * `-M pc` (PIIX3 IDE at legacy ports); `-drive
 * file=disk.img,format=raw,if=ide,index=0,media=disk`; `-cdrom x.iso`.
 *
 * Everything is polled: nIEN is set in the device control register and
 * every wait is a bounded loop over the status register; a timeout or a
 * device error leaves a sentence naming the drive and the command in
 * ata_last_error().  Data moves through the data port with the method the
 * caller picks (rep insw/outsw, inw/outw loop, rep insl/outsl, inl/outl
 * loop), which is what trapmeter's ide suite measures.
 */
#include "drivers/ata.h"
#include "drivers/pci.h"
#include "arch/x86/io.h"
#include "arch/x86/tsc.h"
#include "lib/fmt.h"
#include "lib/string.h"

/* How long a wait for BSY to clear may take.  QEMU completes a PIO
 * block in microseconds (SeaBIOS bounds its IDE waits in ms too); under
 * a software hypervisor one status poll is ~10 us. */
#define ATA_WAIT_MS           5000
/* Alternate-status reads that make the 400 ns settle delay (ATA/ATAPI-6
 * 9.7: each read takes at least 100 ns on an ISA-speed bus). */
#define ATA_SETTLE_READS      4
/* LBA28: bits 27:24 of the LBA sit in the device register's low nibble */
#define ATA_LBA28_DEV_SHIFT   24
#define ATA_LBA28_DEV_MASK    0x0f
/* Register probe values (written then read back to find a drive) */
#define ATA_PROBE_A           0x55
#define ATA_PROBE_B           0xaa
/* PCI: the IDE class, and the raw I/O BAR bits of a native-mode channel */
#define PCI_CLASS_STORAGE     0x01
#define PCI_SUBCLASS_IDE      0x01
#define PCI_BAR_IO            0x01
#define PCI_BAR_IO_MASK       0xfffcu
#define IDE_PROGIF_NATIVE(ch) (1u << ((ch) * 2))
#define IDE_NATIVE_CTL_OFF    2     /* alt status at control BAR + 2 */
/* IDENTIFY words (ATA/ATAPI-6 table 26/27) */
#define ID_GENERAL            0
#define ID_SERIAL             10
#define ID_SERIAL_WORDS       10
#define ID_MODEL              27
#define ID_MODEL_WORDS        20
#define ID_MULTIPLE_MAX       47
#define ID_CAPS               49
#define ID_LBA28_CAP          60
#define ID_CMDSET2            83
#define ID_LBA48_CAP          100
#define ID_GEN_ATAPI_MASK     0xc000
#define ID_GEN_ATAPI          0x8000
#define ID_GEN_TYPE_SHIFT     8
#define ID_GEN_TYPE_MASK      0x1f
#define ID_CAPS_LBA           (1u << 9)
#define ID_CMDSET2_LBA48      (1u << 10)
/* ATAPI */
#define ATAPI_BYTE_COUNT_MAX  0xfffe   /* largest even byte count limit */
#define ATAPI_READY_TRIES     8
#define ATAPI_SENSE_LEN       18
#define ATAPI_SENSE_KEY_OFF   2
#define ATAPI_SENSE_ASC_OFF   12
#define ATAPI_SENSE_KEY_MASK  0x0f
#define ATAPI_KEY_NOT_READY   0x02
#define ATAPI_ASC_NO_MEDIUM   0x3a
#define ATAPI_ERROR_KEY_SHIFT 4
#define ATAPI_CAPACITY_LEN    8

/* DRQ blocks of odd sizes (ATAPI byte counts) leave the buffer unaligned
 * for the next unit: x86 allows that; say so to the compiler. */
typedef u16 u16_una __attribute__((aligned(1), may_alias));
typedef u32 u32_una __attribute__((aligned(1), may_alias));

struct ata_counters ata_count;
ata_string_fn ata_string_seen;
ata_phase_fn ata_phase_seen;
static char errmsg[ATA_ERRMSG_LEN];

const char *ata_last_error(void)
{
	return errmsg;
}

/* the last error, kept (truncated) for the caller to name */
#define set_error(...) ((void)fmt_snprintf(errmsg, sizeof(errmsg), __VA_ARGS__))

/* ---- pure helpers ----------------------------------------------------- */

int ata_encode(const struct ata_taskfile *tf, u8 dev, struct ata_reg_write *out)
{
	u8 devreg = ATA_DEV_OBS | (dev ? ATA_DEV_DEV1 : 0) | (tf->lba_mode ? ATA_DEV_LBA : 0);
	u32 count = tf->count;
	u64 lba = tf->lba;
	int n = 0;

	if (tf->ext) {
		if (count > ATA_LBA48_MAX_COUNT || lba >= ATA_LBA48_LIMIT ||
		    lba + (count ? count : 1) > ATA_LBA48_LIMIT)
			return -ERANGE;
		/* high-order bytes first: the registers are two-deep FIFOs */
		out[n++] = (struct ata_reg_write){ ATA_REG_FEATURES, 0 };
		out[n++] = (struct ata_reg_write){ ATA_REG_COUNT, (u8)(count >> 8) };
		out[n++] = (struct ata_reg_write){ ATA_REG_LBA0, (u8)(lba >> 24) };
		out[n++] = (struct ata_reg_write){ ATA_REG_LBA1, (u8)(lba >> 32) };
		out[n++] = (struct ata_reg_write){ ATA_REG_LBA2, (u8)(lba >> 40) };
	} else {
		if (count > ATA_LBA28_MAX_COUNT || lba >= ATA_LBA28_LIMIT ||
		    lba + (count ? count : 1) > ATA_LBA28_LIMIT)
			return -ERANGE;
		devreg |= (u8)((lba >> ATA_LBA28_DEV_SHIFT) & ATA_LBA28_DEV_MASK);
	}
	out[n++] = (struct ata_reg_write){ ATA_REG_FEATURES, tf->features };
	out[n++] = (struct ata_reg_write){ ATA_REG_COUNT, (u8)count };  /* 256/65536 -> 0 */
	out[n++] = (struct ata_reg_write){ ATA_REG_LBA0, (u8)lba };
	out[n++] = (struct ata_reg_write){ ATA_REG_LBA1, (u8)(lba >> 8) };
	out[n++] = (struct ata_reg_write){ ATA_REG_LBA2, (u8)(lba >> 16) };
	out[n++] = (struct ata_reg_write){ ATA_REG_DEVICE, devreg };
	out[n++] = (struct ata_reg_write){ ATA_REG_COMMAND, tf->command };
	return n;
}

void ata_id_string(const u16 *id, u32 word, u32 words, char *out)
{
	u32 i, len = words * 2;

	for (i = 0; i < words; i++) {
		out[2 * i] = (char)(id[word + i] >> 8);      /* first char in the high byte */
		out[2 * i + 1] = (char)(id[word + i] & 0xff);
	}
	out[len] = 0;
	while (len && (out[len - 1] == ' ' || out[len - 1] == 0))
		out[--len] = 0;
}

void ata_parse_identify(const u16 *id, struct ata_identity *out)
{
	kmemset(out, 0, sizeof(*out));
	ata_id_string(id, ID_MODEL, ID_MODEL_WORDS, out->model);
	ata_id_string(id, ID_SERIAL, ID_SERIAL_WORDS, out->serial);
	out->atapi = (id[ID_GENERAL] & ID_GEN_ATAPI_MASK) == ID_GEN_ATAPI;
	if (out->atapi) {
		out->atapi_type = (id[ID_GENERAL] >> ID_GEN_TYPE_SHIFT) & ID_GEN_TYPE_MASK;
		return;
	}
	out->lba = id[ID_CAPS] & ID_CAPS_LBA;
	out->lba48 = out->lba && (id[ID_CMDSET2] & ID_CMDSET2_LBA48);
	out->multiple_max = (u8)id[ID_MULTIPLE_MAX];
	if (out->lba48)
		out->sectors = (u64)id[ID_LBA48_CAP] | (u64)id[ID_LBA48_CAP + 1] << 16 |
			       (u64)id[ID_LBA48_CAP + 2] << 32 | (u64)id[ID_LBA48_CAP + 3] << 48;
	else if (out->lba)
		out->sectors = (u32)id[ID_LBA28_CAP] | (u32)id[ID_LBA28_CAP + 1] << 16;
}

static void bits_str(u8 v, const char *const names[8], char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 7; i >= 0; i--)
		if ((v & (1u << i)) && used < len)
			used += fmt_snprintf(buf + used, len - used, "%s%s",
					     used ? " " : "", names[i]);
	if (!used)
		fmt_snprintf(buf, len, "none");
}

void ata_status_str(u8 status, char *buf, size_t len)
{
	static const char *const names[8] = {
		"ERR", "IDX", "CORR", "DRQ", "DSC", "DF", "DRDY", "BSY" };

	bits_str(status, names, buf, len);
}

void ata_error_str(u8 error, char *buf, size_t len)
{
	static const char *const names[8] = {
		"AMNF", "TK0NF", "ABRT", "MCR", "IDNF", "MC", "UNC", "ICRC" };

	bits_str(error, names, buf, len);
}

static void put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

void atapi_cdb_read10(u8 *cdb, u32 lba, u16 blocks)
{
	kmemset(cdb, 0, ATAPI_CDB_LEN);
	cdb[0] = ATAPI_READ10;
	put_be32(cdb + 2, lba);
	cdb[7] = (u8)(blocks >> 8);
	cdb[8] = (u8)blocks;
}

void atapi_cdb_read12(u8 *cdb, u32 lba, u32 blocks)
{
	kmemset(cdb, 0, ATAPI_CDB_LEN);
	cdb[0] = ATAPI_READ12;
	put_be32(cdb + 2, lba);
	put_be32(cdb + 6, blocks);
}

void atapi_cdb_simple(u8 *cdb, u8 opcode, u8 alloc_len)
{
	kmemset(cdb, 0, ATAPI_CDB_LEN);
	cdb[0] = opcode;
	cdb[4] = alloc_len;     /* REQUEST SENSE / INQUIRY allocation length */
}

const char *ata_xfer_name(u8 xfer)
{
	static const char *const names[] = {
		[ATA_XFER_LOOP16] = "inw loop", [ATA_XFER_REP16] = "rep insw",
		[ATA_XFER_LOOP32] = "inl loop", [ATA_XFER_REP32] = "rep insl" };

	return xfer < ATA_XFER_COUNT ? names[xfer] : "?";
}

const char *ata_xfer_out_name(u8 xfer)
{
	static const char *const names[] = {
		[ATA_XFER_LOOP16] = "outw loop", [ATA_XFER_REP16] = "rep outsw",
		[ATA_XFER_LOOP32] = "outl loop", [ATA_XFER_REP32] = "rep outsl" };

	return xfer < ATA_XFER_COUNT ? names[xfer] : "?";
}

u8 ata_xfer_width(u8 xfer)
{
	return xfer == ATA_XFER_LOOP32 || xfer == ATA_XFER_REP32 ? 4 : 2;
}

bool ata_xfer_is_rep(u8 xfer)
{
	return xfer == ATA_XFER_REP16 || xfer == ATA_XFER_REP32;
}

static const char *cmd_name(u8 cmd)
{
	switch (cmd) {
	case ATA_CMD_READ_SECTORS: return "READ SECTORS";
	case ATA_CMD_READ_SECTORS_EXT: return "READ SECTORS EXT";
	case ATA_CMD_READ_MULTIPLE: return "READ MULTIPLE";
	case ATA_CMD_READ_MULTIPLE_EXT: return "READ MULTIPLE EXT";
	case ATA_CMD_WRITE_SECTORS: return "WRITE SECTORS";
	case ATA_CMD_WRITE_SECTORS_EXT: return "WRITE SECTORS EXT";
	case ATA_CMD_WRITE_MULTIPLE: return "WRITE MULTIPLE";
	case ATA_CMD_WRITE_MULTIPLE_EXT: return "WRITE MULTIPLE EXT";
	case ATA_CMD_SET_MULTIPLE: return "SET MULTIPLE MODE";
	case ATA_CMD_IDENTIFY: return "IDENTIFY DEVICE";
	case ATA_CMD_IDENTIFY_PACKET: return "IDENTIFY PACKET DEVICE";
	case ATA_CMD_PACKET: return "PACKET";
	default: return "command";
	}
}

/* ---- registers, waits and data ---------------------------------------- */

static u8 reg_in(const struct ata_channel *ch, u8 reg)
{
	ata_count.reg++;
	return inb(ch->cmd + reg);
}

static void reg_out(const struct ata_channel *ch, u8 reg, u8 v)
{
	ata_count.reg++;
	outb(v, ch->cmd + reg);
}

static u8 alt_status(const struct ata_channel *ch)
{
	ata_count.reg++;
	return inb(ch->ctl);
}

static void settle(const struct ata_channel *ch)
{
	u32 i;

	for (i = 0; i < ATA_SETTLE_READS; i++)
		alt_status(ch);
}

static int device_error(struct ata_dev *d, const char *what, u8 st)
{
	char sbuf[48], ebuf[48];
	u8 err = reg_in(d->ch, ATA_REG_ERROR);

	ata_status_str(st, sbuf, sizeof(sbuf));
	ata_error_str(err, ebuf, sizeof(ebuf));
	set_error("%s: %s: device error: status 0x%02x (%s), error 0x%02x (%s)%s",
		  d->name, what, st, sbuf, err, ebuf,
		  st & ATA_SR_DF ? "; device fault (DF)" : "");
	return -EIO;
}

/* Poll until BSY clears; device errors (unless a previous command's ERR
 * is to be ignored: before a new command) and timeouts are named. */
static int wait_bsy(struct ata_dev *d, const char *what, u8 *st_out, bool errors)
{
	struct tsc_wait wait = TSC_WAIT((u64)ATA_WAIT_MS * 1000);
	char sbuf[48];
	u8 st = 0;

	do {
		st = reg_in(d->ch, ATA_REG_STATUS);
		if (st == ATA_SR_FLOATING) {
			set_error("%s: %s: floating bus (status 0xff): no controller or drive",
				  d->name, what);
			return -ENODEV;
		}
		if (st & ATA_SR_BSY)
			continue;
		if (errors && (st & (ATA_SR_ERR | ATA_SR_DF)))
			return device_error(d, what, st);
		*st_out = st;
		return 0;
	} while (!tsc_wait_over(&wait));
	ata_status_str(st, sbuf, sizeof(sbuf));
	set_error("%s: %s: timeout after %u ms waiting for BSY to clear (status 0x%02x %s)",
		  d->name, what, ATA_WAIT_MS, st, sbuf);
	return -ETIMEDOUT;
}

static int wait_idle(struct ata_dev *d, const char *what, u8 *st_out)
{
	return wait_bsy(d, what, st_out, true);
}

/* Before a command: the drive must not be busy; ERR may be stale. */
static int wait_ready(struct ata_dev *d, const char *what)
{
	u8 st;

	return wait_bsy(d, what, &st, false);
}

/* Wait for a data block: BSY clear and DRQ set. */
static int wait_drq(struct ata_dev *d, const char *what, u64 lba)
{
	char sbuf[48];
	u8 st;
	int rc = wait_idle(d, what, &st);

	if (rc)
		return rc;
	if (!(st & ATA_SR_DRQ)) {
		ata_status_str(st, sbuf, sizeof(sbuf));
		set_error("%s: %s: lba %lu: device finished without DRQ (status 0x%02x %s)",
			  d->name, what, (unsigned long)lba, st, sbuf);
		return -EIO;
	}
	return 0;
}

static void count_data(u8 xfer, const void *buf, u32 bytes, bool in)
{
	u32 width = ata_xfer_width(xfer);

	if (!ata_xfer_is_rep(xfer)) {
		ata_count.data_units += bytes / width;
		return;
	}
	ata_count.str_ops++;
	ata_count.str_bytes += bytes;
	if (ata_string_seen)
		ata_string_seen(buf, bytes, width, in);
}

static void data_in(const struct ata_dev *d, u8 xfer, void *buf, u32 bytes)
{
	u16 port = d->ch->cmd + ATA_REG_DATA;
	u32 width = ata_xfer_width(xfer), units = bytes / width, i;
	u8 *tail = (u8 *)buf + units * width;

	if (ata_phase_seen)
		ata_phase_seen(bytes, true);
	if (xfer == ATA_XFER_REP16)
		insw(port, buf, units);
	else if (xfer == ATA_XFER_REP32)
		insl(port, buf, units);
	else if (width == 2)
		for (i = 0; i < units; i++)
			((u16_una *)buf)[i] = inw(port);
	else
		for (i = 0; i < units; i++)
			((u32_una *)buf)[i] = inl(port);
	count_data(xfer, buf, units * width, true);
	if (bytes % width >= 2) {         /* a 32-bit transfer's odd word */
		*(u16_una *)tail = inw(port);
		ata_count.data_units++;
	}
}

static void data_out(const struct ata_dev *d, u8 xfer, const void *buf, u32 bytes)
{
	u16 port = d->ch->cmd + ATA_REG_DATA;
	u32 width = ata_xfer_width(xfer), units = bytes / width, i;
	const u8 *tail = (const u8 *)buf + units * width;

	if (ata_phase_seen)
		ata_phase_seen(bytes, false);
	if (xfer == ATA_XFER_REP16)
		outsw(port, buf, units);
	else if (xfer == ATA_XFER_REP32)
		outsl(port, buf, units);
	else if (width == 2)
		for (i = 0; i < units; i++)
			outw(((const u16_una *)buf)[i], port);
	else
		for (i = 0; i < units; i++)
			outl(((const u32_una *)buf)[i], port);
	count_data(xfer, buf, units * width, false);
	if (bytes % width >= 2) {
		outw(*(const u16_una *)tail, port);
		ata_count.data_units++;
	}
}

/* Select the drive if another one was selected last, and let it settle. */
static void select_dev(struct ata_dev *d)
{
	struct ata_channel *ch = d->ch;

	if (ch->selected == (s8)d->dev)
		return;
	reg_out(ch, ATA_REG_DEVICE, ATA_DEV_OBS | ATA_DEV_LBA | (d->dev ? ATA_DEV_DEV1 : 0));
	settle(ch);
	ch->selected = (s8)d->dev;
}

/* Select, wait until the drive accepts a command, write the taskfile. */
static int issue(struct ata_dev *d, const struct ata_taskfile *tf, u64 lba_for_msg)
{
	struct ata_reg_write w[ATA_TF_MAX_WRITES];
	const char *what = cmd_name(tf->command);
	int n, i, rc;

	n = ata_encode(tf, d->dev, w);
	if (n < 0) {
		set_error("%s: %s: lba %lu count %u out of range", d->name, what,
			  (unsigned long)lba_for_msg, tf->count);
		return n;
	}
	select_dev(d);
	rc = wait_ready(d, what);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		reg_out(d->ch, w[i].reg, w[i].value);
	alt_status(d->ch);      /* status is valid 400 ns after the command */
	return 0;
}

/* After the last block: the drive must end idle without error. */
static int finish(struct ata_dev *d, const char *what, u64 lba)
{
	char sbuf[48];
	u8 st;
	int rc = wait_idle(d, what, &st);

	if (rc)
		return rc;
	if (st & ATA_SR_DRQ) {
		ata_status_str(st, sbuf, sizeof(sbuf));
		set_error("%s: %s: lba %lu: DRQ still set after the last block (status 0x%02x %s)",
			  d->name, what, (unsigned long)lba, st, sbuf);
		return -EIO;
	}
	return 0;
}

/* ---- controller and probe --------------------------------------------- */

void ata_channel_legacy(struct ata_channel *ch, u8 index)
{
	ch->cmd = index ? ATA_SECONDARY_CMD : ATA_PRIMARY_CMD;
	ch->ctl = index ? ATA_SECONDARY_CTL : ATA_PRIMARY_CTL;
	ch->index = index;
	ch->native = false;
	ch->selected = -1;
}

static int native_ports(const struct pci_dev *pd, struct ata_channel *ch, u8 index)
{
	u32 bar_cmd = pci_dev_read32(pd, PCI_BAR0 + 8 * index);
	u32 bar_ctl = pci_dev_read32(pd, PCI_BAR0 + 8 * index + 4);

	if (!(bar_cmd & PCI_BAR_IO) || !(bar_ctl & PCI_BAR_IO) ||
	    !(bar_cmd & PCI_BAR_IO_MASK) || !(bar_ctl & PCI_BAR_IO_MASK)) {
		set_error("ide%u: native-mode channel without I/O BARs (0x%x, 0x%x)",
			  index, bar_cmd, bar_ctl);
		return -ENODEV;
	}
	ch->cmd = (u16)(bar_cmd & PCI_BAR_IO_MASK);
	ch->ctl = (u16)((bar_ctl & PCI_BAR_IO_MASK) + IDE_NATIVE_CTL_OFF);
	ch->index = index;
	ch->native = true;
	ch->selected = -1;
	return 0;
}

static int setup_controller(const struct pci_dev *pd, struct ata_channel ch[2])
{
	u8 i;
	int rc;

	for (i = 0; i < 2; i++) {
		if (!(pd->prog_if & IDE_PROGIF_NATIVE(i))) {
			ata_channel_legacy(&ch[i], i);
			continue;
		}
		rc = native_ports(pd, &ch[i], i);
		if (rc)
			return rc;
	}
	return 0;
}

int ata_find_channels(struct ata_channel ch[2])
{
	struct pci_dev pd;

	if (pci_find_class(PCI_CLASS_STORAGE, PCI_SUBCLASS_IDE, &pd))
		return setup_controller(&pd, ch);
	set_error("no PCI IDE controller (class 01:01); q35 has AHCI only: use -M pc");
	return -ENODEV;
}

/* A drive answers: its registers hold what we write (ATA/ATAPI-6 9.1). */
static bool regs_respond(struct ata_channel *ch)
{
	reg_out(ch, ATA_REG_COUNT, ATA_PROBE_A);
	reg_out(ch, ATA_REG_LBA0, ATA_PROBE_B);
	return reg_in(ch, ATA_REG_COUNT) == ATA_PROBE_A &&
	       reg_in(ch, ATA_REG_LBA0) == ATA_PROBE_B;
}

static int identify(struct ata_dev *d, u8 cmd, u16 *id)
{
	const char *what = cmd_name(cmd);
	int rc;

	rc = wait_ready(d, what);
	if (rc)
		return rc;
	reg_out(d->ch, ATA_REG_DEVICE, ATA_DEV_OBS | (d->dev ? ATA_DEV_DEV1 : 0));
	reg_out(d->ch, ATA_REG_COMMAND, cmd);
	if (alt_status(d->ch) == 0) {
		set_error("%s: %s: status 0 after the command: no drive", d->name, what);
		return -ENODEV;
	}
	rc = wait_drq(d, what, 0);
	if (rc)
		return rc;
	data_in(d, ATA_XFER_REP16, id, ATA_IDENTIFY_WORDS * 2);
	return finish(d, what, 0);
}

static int probe_identify(struct ata_dev *d)
{
	static u16 id[ATA_IDENTIFY_WORDS];
	int rc;

	rc = identify(d, ATA_CMD_IDENTIFY, id);
	if (rc == -EIO && reg_in(d->ch, ATA_REG_LBA1) == ATAPI_SIG_LBA1 &&
	    reg_in(d->ch, ATA_REG_LBA2) == ATAPI_SIG_LBA2)
		rc = identify(d, ATA_CMD_IDENTIFY_PACKET, id);
	else if (rc == -EIO) {
		set_error("%s: IDENTIFY DEVICE aborted and no ATAPI signature: no drive", d->name);
		return -ENODEV;
	}
	if (rc)
		return rc;
	ata_parse_identify(id, &d->id);
	d->kind = d->id.atapi ? ATA_KIND_ATAPI : ATA_KIND_ATA;
	if (d->kind == ATA_KIND_ATA && !d->id.lba) {
		set_error("%s: \"%s\" has no LBA addressing (CHS only)", d->name, d->id.model);
		return -ENODEV;
	}
	return 0;
}

int ata_probe(struct ata_channel *ch, u8 dev, struct ata_dev *d)
{
	u8 st;

	kmemset(d, 0, sizeof(*d));
	d->ch = ch;
	d->dev = dev;
	fmt_snprintf(d->name, sizeof(d->name), "ata%u.%u", ch->index, dev);
	outb(ATA_CTL_NIEN, ch->ctl);        /* polled: no interrupts */
	ch->selected = -1;
	select_dev(d);
	st = alt_status(ch);
	if (st == ATA_SR_FLOATING) {
		set_error("%s: floating bus (status 0xff): no controller or drive", d->name);
		return -ENODEV;
	}
	if (!regs_respond(ch)) {
		set_error("%s: registers do not hold written values (status 0x%02x): no drive",
			  d->name, st);
		return -ENODEV;
	}
	return probe_identify(d);
}

int ata_set_multiple(struct ata_dev *d, u8 sectors)
{
	struct ata_taskfile tf = { .command = ATA_CMD_SET_MULTIPLE, .count = sectors };
	int rc;
	u8 st;

	if (!sectors || sectors > d->id.multiple_max) {
		set_error("%s: SET MULTIPLE MODE: %u sectors per block not supported (max %u)",
			  d->name, sectors, d->id.multiple_max);
		return -EINVAL;
	}
	rc = issue(d, &tf, 0);
	if (!rc)
		rc = wait_idle(d, cmd_name(tf.command), &st);
	if (!rc)
		d->multiple = sectors;
	return rc;
}

/* ---- ATA data commands ------------------------------------------------- */

static u8 rw_command(bool write, bool ext, bool multiple)
{
	static const u8 cmds[2][2][2] = {
		{ { ATA_CMD_READ_SECTORS, ATA_CMD_READ_MULTIPLE },
		  { ATA_CMD_READ_SECTORS_EXT, ATA_CMD_READ_MULTIPLE_EXT } },
		{ { ATA_CMD_WRITE_SECTORS, ATA_CMD_WRITE_MULTIPLE },
		  { ATA_CMD_WRITE_SECTORS_EXT, ATA_CMD_WRITE_MULTIPLE_EXT } },
	};

	return cmds[write][ext][multiple];
}

static int rw_prepare(struct ata_dev *d, struct ata_taskfile *tf, u64 lba, u32 count,
		      bool ext, bool multiple, u32 *block)
{
	const char *what = cmd_name(tf->command);

	if (multiple && !d->multiple) {
		set_error("%s: %s: SET MULTIPLE MODE has not succeeded", d->name, what);
		return -EINVAL;
	}
	if (ext && !d->id.lba48) {
		set_error("%s: %s: drive has no 48-bit addressing", d->name, what);
		return -EINVAL;
	}
	if (!count || lba + count > d->id.sectors) {
		set_error("%s: %s: lba %lu count %u beyond the drive's %lu sectors", d->name,
			  what, (unsigned long)lba, count, (unsigned long)d->id.sectors);
		return -ERANGE;
	}
	tf->count = count;
	tf->lba = lba;
	tf->ext = ext;
	tf->lba_mode = true;
	*block = multiple ? d->multiple : 1;
	return issue(d, tf, lba);
}

/* One READ/WRITE (MULTIPLE) command: a DRQ block of 1 or `multiple`
 * sectors at a time, in the direction of the command. */
static int rw_sectors(struct ata_dev *d, bool write, u64 lba, u32 count, u8 *buf,
		      u8 xfer, bool ext, bool multiple)
{
	struct ata_taskfile tf = { .command = rw_command(write, ext, multiple) };
	const char *what = cmd_name(tf.command);
	u32 block, done, n;
	int rc;

	rc = rw_prepare(d, &tf, lba, count, ext, multiple, &block);
	for (done = 0; !rc && done < count; done += n) {
		n = count - done < block ? count - done : block;
		rc = wait_drq(d, what, lba + done);
		if (rc)
			break;
		if (write)
			data_out(d, xfer, buf + done * ATA_SECTOR_SIZE, n * ATA_SECTOR_SIZE);
		else
			data_in(d, xfer, buf + done * ATA_SECTOR_SIZE, n * ATA_SECTOR_SIZE);
	}
	return rc ? rc : finish(d, what, lba + count - 1);
}

int ata_read(struct ata_dev *d, u64 lba, u32 count, void *buf, u8 xfer,
	     bool ext, bool multiple)
{
	return rw_sectors(d, false, lba, count, buf, xfer, ext, multiple);
}

int ata_write(struct ata_dev *d, u64 lba, u32 count, const void *buf, u8 xfer,
	      bool ext, bool multiple)
{
	/* the buffer is only read on this path */
	return rw_sectors(d, true, lba, count, (u8 *)(uintptr_t)buf, xfer, ext, multiple);
}

/* ---- ATAPI ------------------------------------------------------------- */

static u8 atapi_last_key;

static int packet_error(struct ata_dev *d, const u8 *cdb, u8 st)
{
	char sbuf[48];
	u8 err = reg_in(d->ch, ATA_REG_ERROR);

	atapi_last_key = err >> ATAPI_ERROR_KEY_SHIFT;
	ata_status_str(st, sbuf, sizeof(sbuf));
	set_error("%s: PACKET op 0x%02x: check condition: status 0x%02x (%s), sense key 0x%x%s",
		  d->name, cdb[0], st, sbuf, atapi_last_key,
		  err & ATA_ER_ABRT ? " (ABRT)" : "");
	return -EIO;
}

/* Wait out BSY without treating ERR as fatal: the caller decodes it. */
static int packet_wait(struct ata_dev *d, const u8 *cdb, u8 *st_out)
{
	struct tsc_wait wait = TSC_WAIT((u64)ATA_WAIT_MS * 1000);
	char sbuf[48];
	u8 st = 0;

	do {
		st = reg_in(d->ch, ATA_REG_STATUS);
		if (!(st & ATA_SR_BSY) && st != ATA_SR_FLOATING) {
			*st_out = st;
			return (st & (ATA_SR_ERR | ATA_SR_DF)) ? packet_error(d, cdb, st) : 0;
		}
	} while (!tsc_wait_over(&wait));
	ata_status_str(st, sbuf, sizeof(sbuf));
	set_error("%s: PACKET op 0x%02x: timeout after %u ms (status 0x%02x %s)",
		  d->name, cdb[0], ATA_WAIT_MS, st, sbuf);
	return -ETIMEDOUT;
}

static int packet_send(struct ata_dev *d, const u8 *cdb, u32 len, u8 xfer)
{
	u32 limit = len < ATAPI_BYTE_COUNT_MAX ? len : ATAPI_BYTE_COUNT_MAX;
	int rc;
	u8 st;

	select_dev(d);
	rc = wait_ready(d, "PACKET");
	if (rc)
		return rc;
	reg_out(d->ch, ATA_REG_FEATURES, 0);                /* PIO, not DMA */
	reg_out(d->ch, ATA_REG_LBA1, (u8)limit);            /* byte count limit */
	reg_out(d->ch, ATA_REG_LBA2, (u8)(limit >> 8));
	reg_out(d->ch, ATA_REG_DEVICE, ATA_DEV_OBS | (d->dev ? ATA_DEV_DEV1 : 0));
	reg_out(d->ch, ATA_REG_COMMAND, ATA_CMD_PACKET);
	alt_status(d->ch);
	rc = packet_wait(d, cdb, &st);
	if (rc)
		return rc;
	if (!(st & ATA_SR_DRQ)) {
		set_error("%s: PACKET op 0x%02x: drive not asking for the CDB (status 0x%02x)",
			  d->name, cdb[0], st);
		return -EIO;
	}
	data_out(d, xfer, cdb, ATAPI_CDB_LEN);
	return 0;
}

int atapi_packet(struct ata_dev *d, const u8 *cdb, void *buf, u32 len,
		 u32 *got, u8 xfer)
{
	u32 done = 0, bc;
	int rc;
	u8 st;

	rc = packet_send(d, cdb, len, xfer);
	while (!rc) {
		rc = packet_wait(d, cdb, &st);
		if (rc || !(st & ATA_SR_DRQ))
			break;
		/* the device says how much this DRQ block carries */
		bc = reg_in(d->ch, ATA_REG_LBA1) | (u32)reg_in(d->ch, ATA_REG_LBA2) << 8;
		if (!bc || bc > len - done) {
			set_error("%s: PACKET op 0x%02x: device offers %u bytes, %u left in the buffer",
				  d->name, cdb[0], bc, len - done);
			rc = -EIO;
			break;
		}
		data_in(d, xfer, (u8 *)buf + done, bc);
		done += bc;
	}
	if (got)
		*got = done;
	return rc;
}

int atapi_ready(struct ata_dev *d)
{
	u8 cdb[ATAPI_CDB_LEN], sense[ATAPI_SENSE_LEN];
	u32 i;

	for (i = 0; i < ATAPI_READY_TRIES; i++) {
		atapi_cdb_simple(cdb, ATAPI_TEST_UNIT_READY, 0);
		if (atapi_packet(d, cdb, NULL, 0, NULL, ATA_XFER_REP16) == 0)
			return 0;
		/* REQUEST SENSE clears a pending unit attention */
		atapi_cdb_simple(cdb, ATAPI_REQUEST_SENSE, ATAPI_SENSE_LEN);
		kmemset(sense, 0, sizeof(sense));
		if (atapi_packet(d, cdb, sense, sizeof(sense), NULL, ATA_XFER_REP16))
			continue;
		if ((sense[ATAPI_SENSE_KEY_OFF] & ATAPI_SENSE_KEY_MASK) == ATAPI_KEY_NOT_READY &&
		    sense[ATAPI_SENSE_ASC_OFF] == ATAPI_ASC_NO_MEDIUM) {
			set_error("%s: TEST UNIT READY: no medium", d->name);
			return -ENODEV;
		}
	}
	set_error("%s: TEST UNIT READY: not ready after %u tries (sense key 0x%x)",
		  d->name, ATAPI_READY_TRIES, atapi_last_key);
	return -ETIMEDOUT;
}

static u32 get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

int atapi_read_capacity(struct ata_dev *d)
{
	u8 cdb[ATAPI_CDB_LEN], cap[ATAPI_CAPACITY_LEN];
	u32 got;
	int rc;

	atapi_cdb_simple(cdb, ATAPI_READ_CAPACITY, 0);
	rc = atapi_packet(d, cdb, cap, sizeof(cap), &got, ATA_XFER_REP16);
	if (rc)
		return rc;
	if (got != sizeof(cap)) {
		set_error("%s: READ CAPACITY: %u bytes instead of %u", d->name, got,
			  ATAPI_CAPACITY_LEN);
		return -EIO;
	}
	d->blocks = (u64)get_be32(cap) + 1;
	d->block_size = get_be32(cap + 4);
	return 0;
}

int atapi_read(struct ata_dev *d, u32 lba, u32 count, void *buf, u8 xfer, bool read12)
{
	u8 cdb[ATAPI_CDB_LEN];
	u32 got, want = count * ATAPI_SECTOR_SIZE;
	int rc;

	if (!count || count > ATAPI_READ10_MAX || lba + (u64)count > d->blocks) {
		set_error("%s: READ(%u): lba %u count %u beyond the medium's %lu blocks",
			  d->name, read12 ? 12 : 10, lba, count, (unsigned long)d->blocks);
		return -ERANGE;
	}
	if (read12)
		atapi_cdb_read12(cdb, lba, count);
	else
		atapi_cdb_read10(cdb, lba, (u16)count);
	rc = atapi_packet(d, cdb, buf, want, &got, xfer);
	if (!rc && got != want) {
		set_error("%s: READ(%u): lba %u: %u bytes instead of %u", d->name,
			  read12 ? 12 : 10, lba, got, want);
		rc = -EIO;
	}
	return rc;
}
