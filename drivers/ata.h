/*
 * drivers/ata.h - IDE (ATA/ATAPI) PIO driver: legacy or PCI native-mode
 * channels, dev0/dev1, IDENTIFY (PACKET) DEVICE, READ/WRITE SECTORS (EXT),
 * READ/WRITE MULTIPLE, ATAPI PACKET with 12-byte CDBs.  Polled (nIEN set),
 * every wait bounded.  Specs: ATA/ATAPI-6 (T13/1410D) sections 6, 8, 9;
 * SFF-8020i / MMC for the CDBs.
 *
 * QEMU: `-M pc` has a PIIX3 IDE function at legacy ports; `-drive
 * file=X,format=raw,if=ide,index=0,media=disk` is ATA dev0 on the primary
 * channel, `-cdrom X` is ATAPI dev0 on the secondary channel.
 */
#ifndef DRIVERS_ATA_H
#define DRIVERS_ATA_H

#include "lib/types.h"

/* Legacy channel ports (ATA/ATAPI-6 annex; PCI IDE Controller spec 1.0
 * section 2.1 "compatibility mode") */
#define ATA_PRIMARY_CMD      0x1f0
#define ATA_PRIMARY_CTL      0x3f6
#define ATA_SECONDARY_CMD    0x170
#define ATA_SECONDARY_CTL    0x376

/* Command block register offsets */
#define ATA_REG_DATA         0
#define ATA_REG_ERROR        1   /* read */
#define ATA_REG_FEATURES     1   /* write */
#define ATA_REG_COUNT        2   /* ATAPI: interrupt reason */
#define ATA_REG_LBA0         3
#define ATA_REG_LBA1         4   /* ATAPI: byte count low */
#define ATA_REG_LBA2         5   /* ATAPI: byte count high */
#define ATA_REG_DEVICE       6
#define ATA_REG_STATUS       7   /* read */
#define ATA_REG_COMMAND      7   /* write */

/* Status register bits */
#define ATA_SR_ERR           0x01
#define ATA_SR_DRQ           0x08
#define ATA_SR_DF            0x20
#define ATA_SR_DRDY          0x40
#define ATA_SR_BSY           0x80
#define ATA_SR_FLOATING      0xff   /* nothing drives the bus */

/* Error register bits */
#define ATA_ER_AMNF          0x01
#define ATA_ER_TK0NF         0x02
#define ATA_ER_ABRT          0x04
#define ATA_ER_MCR           0x08
#define ATA_ER_IDNF          0x10
#define ATA_ER_MC            0x20
#define ATA_ER_UNC           0x40
#define ATA_ER_ICRC          0x80

/* Device register */
#define ATA_DEV_OBS          0xa0   /* bits 7 and 5: obsolete, set */
#define ATA_DEV_LBA          0x40
#define ATA_DEV_DEV1         0x10

/* Device control register */
#define ATA_CTL_NIEN         0x02

/* Commands (ATA/ATAPI-6 section 8) */
#define ATA_CMD_READ_SECTORS        0x20
#define ATA_CMD_READ_SECTORS_EXT    0x24
#define ATA_CMD_READ_MULTIPLE_EXT   0x29
#define ATA_CMD_WRITE_SECTORS       0x30
#define ATA_CMD_WRITE_SECTORS_EXT   0x34
#define ATA_CMD_WRITE_MULTIPLE_EXT  0x39
#define ATA_CMD_PACKET              0xa0
#define ATA_CMD_IDENTIFY_PACKET     0xa1
#define ATA_CMD_READ_MULTIPLE       0xc4
#define ATA_CMD_WRITE_MULTIPLE      0xc5
#define ATA_CMD_SET_MULTIPLE        0xc6
#define ATA_CMD_FLUSH_CACHE         0xe7
#define ATA_CMD_FLUSH_CACHE_EXT     0xea
#define ATA_CMD_IDENTIFY            0xec

/* ATAPI signature left in LBA1/LBA2 after reset or an aborted IDENTIFY */
#define ATAPI_SIG_LBA1       0x14
#define ATAPI_SIG_LBA2       0xeb

/* SCSI/MMC operation codes */
#define ATAPI_TEST_UNIT_READY 0x00
#define ATAPI_REQUEST_SENSE   0x03
#define ATAPI_READ_CAPACITY   0x25
#define ATAPI_READ10          0x28
#define ATAPI_READ12          0xa8
#define ATAPI_CDB_LEN         12
#define ATAPI_SECTOR_SIZE     2048
#define ATAPI_READ10_MAX      0xffff   /* 16-bit transfer length */
#define ATA_SECTOR_SIZE       512

/* Limits of one command */
#define ATA_LBA28_MAX_COUNT  256
#define ATA_LBA48_MAX_COUNT  65536
#define ATA_LBA28_LIMIT      (1ull << 28)
#define ATA_LBA48_LIMIT      (1ull << 48)

#define ATA_MODEL_LEN        40
#define ATA_SERIAL_LEN       20
#define ATA_IDENTIFY_WORDS   256
#define ATA_ERRMSG_LEN       160

enum ata_kind { ATA_KIND_NONE, ATA_KIND_ATA, ATA_KIND_ATAPI };

/* How the data port is driven: the parameter trapmeter measures. */
enum ata_xfer {
	ATA_XFER_LOOP16,   /* one inw/outw per 16-bit unit */
	ATA_XFER_REP16,    /* rep insw / rep outsw */
	ATA_XFER_LOOP32,   /* one inl/outl per 32-bit unit */
	ATA_XFER_REP32,    /* rep insl / rep outsl */
	ATA_XFER_COUNT
};

struct ata_channel {
	u16 cmd;            /* command block base */
	u16 ctl;            /* device control / alternate status */
	u8 index;           /* 0 primary, 1 secondary */
	bool native;        /* ports came from PCI BARs (native mode) */
	s8 selected;        /* device last selected, -1 unknown */
};

struct ata_identity {
	char model[ATA_MODEL_LEN + 1];
	char serial[ATA_SERIAL_LEN + 1];
	bool atapi;
	u8 atapi_type;      /* word 0 bits 12:8 (5 = CD/DVD) */
	bool lba;           /* word 49 bit 9 */
	bool lba48;         /* word 83 bit 10 */
	u64 sectors;        /* words 60-61, or 100-103 with LBA48 */
	u8 multiple_max;    /* word 47 bits 7:0; 0 = no READ/WRITE MULTIPLE */
};

struct ata_dev {
	struct ata_channel *ch;
	u8 dev;             /* 0 or 1 */
	u8 kind;            /* enum ata_kind */
	char name[8];       /* "ata0.0" = primary dev0 */
	struct ata_identity id;
	u8 multiple;        /* current sectors per DRQ block for MULTIPLE */
	u32 block_size;     /* ATAPI: from READ CAPACITY */
	u64 blocks;         /* ATAPI: from READ CAPACITY */
};

/* Taskfile of one command; the encoder turns it into register writes. */
struct ata_taskfile {
	u8 command;
	u8 features;
	u32 count;          /* sectors: 1..256 (LBA28) or 1..65536 (EXT) */
	u64 lba;
	bool ext;           /* 48-bit addressing */
	bool lba_mode;      /* set the LBA bit in the device register */
};

struct ata_reg_write {
	u8 reg;             /* ATA_REG_* */
	u8 value;
};

#define ATA_TF_MAX_WRITES 12

/*
 * What the driver did, counted as it went: register accesses, single
 * data-port units, and string instructions with the bytes they moved.  The
 * driver knows no exit model; a suite turns these into exits (model/model.h),
 * and ata_string_seen, when set, hears of every string instruction with its
 * buffer, so a model that depends on page offsets can be applied.
 */
struct ata_counters {
	u64 reg;            /* non-data register reads and writes */
	u64 data_units;     /* single in/out on the data port */
	u64 str_ops;        /* rep ins/outs on the data port */
	u64 str_bytes;      /* bytes those moved */
};

typedef void (*ata_string_fn)(const void *buf, u32 bytes, u32 width, bool in);
extern ata_string_fn ata_string_seen;
/* ata_phase_seen, when set, hears of every data phase (a DRQ block, an
 * ATAPI CDB) with its bytes and direction, whatever the method. */
typedef void (*ata_phase_fn)(u32 bytes, bool in);
extern ata_phase_fn ata_phase_seen;
extern struct ata_counters ata_count;

/* ---- pure helpers (host-tested) ------------------------------------- */

/* Register writes for tf on device dev (0/1), in order, ending with the
 * command; returns how many, or -ERANGE for a bad count or LBA. */
int ata_encode(const struct ata_taskfile *tf, u8 dev, struct ata_reg_write *out);
/* Copy an IDENTIFY string (words, bytes swapped), trailing spaces cut. */
void ata_id_string(const u16 *id, u32 word, u32 words, char *out);
void ata_parse_identify(const u16 *id, struct ata_identity *out);
/* "DRDY ERR" etc. into buf */
void ata_status_str(u8 status, char *buf, size_t len);
void ata_error_str(u8 error, char *buf, size_t len);
/* 12-byte CDBs */
void atapi_cdb_read10(u8 *cdb, u32 lba, u16 blocks);
void atapi_cdb_read12(u8 *cdb, u32 lba, u32 blocks);
void atapi_cdb_simple(u8 *cdb, u8 opcode, u8 alloc_len);
const char *ata_xfer_name(u8 xfer);     /* "rep insw" ... (read side) */
const char *ata_xfer_out_name(u8 xfer); /* "rep outsw" ... */
u8 ata_xfer_width(u8 xfer);
bool ata_xfer_is_rep(u8 xfer);

/* ---- hardware ------------------------------------------------------- */

/* Channel ports: the PCI IDE controller (class 01:01) in legacy or native
 * mode.  Returns 0 and fills ch[0..1], or -ENODEV (no IDE controller, e.g.
 * q35's AHCI) with the reason in ata_last_error(). */
int ata_find_channels(struct ata_channel ch[2]);
void ata_channel_legacy(struct ata_channel *ch, u8 index);

/* Probe one device: floating bus, absent drive, IDENTIFY / IDENTIFY
 * PACKET.  0 with d->kind set, -ENODEV when absent, other errors named. */
int ata_probe(struct ata_channel *ch, u8 dev, struct ata_dev *d);

/* SET MULTIPLE MODE; 0 or a named error. */
int ata_set_multiple(struct ata_dev *d, u8 sectors);

/*
 * PIO data commands.  `multiple`: READ/WRITE MULTIPLE (DRQ block =
 * d->multiple sectors); `ext`: 48-bit command.  count sectors of 512 B
 * move between buf and the drive with method xfer.
 */
int ata_read(struct ata_dev *d, u64 lba, u32 count, void *buf, u8 xfer,
	     bool ext, bool multiple);
int ata_write(struct ata_dev *d, u64 lba, u32 count, const void *buf, u8 xfer,
	      bool ext, bool multiple);

/* ATAPI PACKET: send cdb, read up to `len` bytes of data in whatever DRQ
 * blocks the device reports.  *got (may be NULL) = bytes received. */
int atapi_packet(struct ata_dev *d, const u8 *cdb, void *buf, u32 len,
		 u32 *got, u8 xfer);
/* TEST UNIT READY until ready (REQUEST SENSE clears unit attention). */
int atapi_ready(struct ata_dev *d);
int atapi_read_capacity(struct ata_dev *d);
/* READ(10) or READ(12) of `count` 2048-byte sectors. */
int atapi_read(struct ata_dev *d, u32 lba, u32 count, void *buf, u8 xfer,
	       bool read12);

/* The last error as a sentence naming drive and command. */
const char *ata_last_error(void);

#endif
