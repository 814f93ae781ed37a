/*
 * drivers/ide_bm.c - IDE bus-master DMA (see drivers/ide_bm.h).
 *
 * One transfer, in the order the bus-master spec (section 3.1) gives:
 * PRD table pointer, clear ERROR/INTR, direction; the ATA command through
 * the task file; then START.  The engine clears ACTIVE when the device
 * has moved the last byte (QEMU: ide_dma_cb -> set_inactive); the driver
 * polls that, bounded by a TSC deadline, stops the engine and reads the
 * drive's status, which also ends the command's pending interrupt.
 */
#include "drivers/ide_bm.h"
#include "drivers/pci.h"
#include "arch/x86/io.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/fmt.h"

#define PCI_CLASS_STORAGE   0x01
#define PCI_SUBCLASS_IDE    0x01
#define IDE_PROGIF_BM       0x80    /* prog-if bit 7: bus-master capable */
#define IDE_BM_BAR          4
#define IDE_BM_ERRMSG_LEN   200
#define RAM_REGS            16      /* the control's register file */
#define US_PER_MS           1000

struct ide_bm_counters ide_bm_count;
static char errmsg[IDE_BM_ERRMSG_LEN];
/* The control's ports: writes land in RAM, every read answers "engine
 * idle, drive ready" (a volatile load the compiler cannot fold). */
static volatile u8 ram_regs[RAM_REGS];
static volatile u32 ram_prdt;
static volatile u8 ram_status = ATA_SR_DRDY;

const char *ide_bm_last_error(void)
{
	return errmsg;
}

/* the last error, kept (truncated) for the caller to name */
#define set_error(...) ((void)fmt_snprintf(errmsg, sizeof(errmsg), __VA_ARGS__))

/* ---- ports, or RAM for the control --------------------------------------- */

static u8 port_in(u16 port, bool ram)
{
	ide_bm_count.accesses++;
	return ram ? ram_status : inb(port);
}

static void port_out(u8 v, u16 port, bool ram)
{
	ide_bm_count.accesses++;
	if (ram)
		ram_regs[port % RAM_REGS] = v;
	else
		outb(v, port);
}

static void port_out32(u32 v, u16 port, bool ram)
{
	ide_bm_count.accesses++;
	if (ram)
		ram_prdt = v;
	else
		outl(v, port);
}

/* ---- controller ------------------------------------------------------------ */

int ide_bm_init(struct ide_bm *bm)
{
	struct pci_dev pd;

	if (!pci_find_class(PCI_CLASS_STORAGE, PCI_SUBCLASS_IDE, &pd)) {
		set_error("no PCI IDE controller (class 01:01); on q35 add -device piix3-ide");
		return -ENODEV;
	}
	if (!(pd.prog_if & IDE_PROGIF_BM)) {
		set_error("IDE %02x:%02x.%u: prog-if 0x%02x: not bus-master capable",
			  pd.bus, pd.dev, pd.fn, pd.prog_if);
		return -ENODEV;
	}
	if (!pd.bar[IDE_BM_BAR].io || !pd.bar[IDE_BM_BAR].addr) {
		set_error("IDE %02x:%02x.%u: BAR4 (bus master) unassigned: the firmware left it (qboot does; use SeaBIOS)",
			  pd.bus, pd.dev, pd.fn);
		return -ENODEV;
	}
	pci_enable(&pd, PCI_COMMAND_IO | PCI_COMMAND_MASTER);
	bm->base = (u16)pd.bar[IDE_BM_BAR].addr;
	bm->bus = pd.bus;
	bm->devfn = (u8)(pd.dev << 3 | pd.fn);
	bm->vendor = pd.vendor;
	bm->device = pd.device;
	return 0;
}

/* ---- one transfer ------------------------------------------------------------ */

/* The task file of READ/WRITE DMA, LBA28, written in the encoder's order. */
static int send_command(struct ata_dev *d, bool write, u32 lba, u32 sectors, bool ram)
{
	struct ata_taskfile tf = {
		.command = write ? ATA_CMD_WRITE_DMA : ATA_CMD_READ_DMA,
		.count = sectors, .lba = lba, .lba_mode = true,
	};
	struct ata_reg_write w[ATA_TF_MAX_WRITES];
	int n, i;

	n = sectors && sectors <= ATA_LBA28_MAX_COUNT ? ata_encode(&tf, d->dev, w) : -ERANGE;
	if (n < 0) {
		set_error("%s: %s DMA: lba %u count %u out of LBA28 range", d->name,
			  write ? "WRITE" : "READ", lba, sectors);
		return n;
	}
	if (port_in(d->ch->cmd + ATA_REG_STATUS, ram) & (ATA_SR_BSY | ATA_SR_DRQ)) {
		set_error("%s: busy before %s DMA", d->name, write ? "WRITE" : "READ");
		return -EIO;
	}
	for (i = 0; i < n; i++)
		port_out(w[i].value, d->ch->cmd + w[i].reg, ram);
	return 0;
}

/* Poll until the engine stops, bounded by time (arch/x86/tsc.h: the
 * clock starts at the first miss, so an engine already idle costs no TSC
 * read); the bus-master status at the end. */
static int wait_engine(u16 base, u32 timeout_ms, bool ram, u8 *st)
{
	struct tsc_wait wait = TSC_WAIT((u64)timeout_ms * US_PER_MS);

	for (;;) {
		ide_bm_count.polls++;
		*st = port_in(base + IDE_BM_STATUS, ram);
		if (!(*st & IDE_BM_ST_ACTIVE))
			return 0;
		if (tsc_wait_over(&wait))
			return -ETIMEDOUT;
		cpu_relax();
	}
}

/* Stop the engine, read the drive's status (ends its interrupt). */
static int finish(struct ata_dev *d, u16 base, u8 dir, u8 bm_st, bool ram)
{
	u8 st;

	port_out(dir, base + IDE_BM_CMD, ram);
	st = port_in(d->ch->cmd + ATA_REG_STATUS, ram);
	if ((bm_st & IDE_BM_ST_ERROR) || (st & (ATA_SR_ERR | ATA_SR_DF | ATA_SR_BSY))) {
		set_error("%s: DMA ended with bus-master status 0x%02x, drive status 0x%02x",
			  d->name, bm_st, st);
		return -EIO;
	}
	return 0;
}

int ide_bm_transfer(const struct ide_bm *bm, struct ata_dev *d, bool write, u32 lba,
		    u32 sectors, u32 prd_bus, u32 timeout_ms, bool ram)
{
	u16 base = bm->base + d->ch->index * IDE_BM_CHANNEL_SIZE;
	u8 dir = write ? 0 : IDE_BM_CMD_TO_MEM, st;
	int rc;

	if (prd_bus & (PRD_TABLE_ALIGN - 1)) {
		set_error("PRD table at 0x%x: not dword aligned", prd_bus);
		return -EINVAL;
	}
	port_out32(prd_bus, base + IDE_BM_PRDT, ram);
	port_out(IDE_BM_ST_ERROR | IDE_BM_ST_INTR, base + IDE_BM_STATUS, ram);
	port_out(dir, base + IDE_BM_CMD, ram);
	rc = send_command(d, write, lba, sectors, ram);
	if (rc)
		return rc;
	barrier();          /* the PRD table is in memory before START */
	port_out(dir | IDE_BM_CMD_START, base + IDE_BM_CMD, ram);
	rc = wait_engine(base, timeout_ms, ram, &st);
	if (rc) {
		set_error("%s: %s DMA of %u sectors at lba %u: engine still active after %u ms (status 0x%02x)",
			  d->name, write ? "WRITE" : "READ", sectors, lba, timeout_ms, st);
		return rc;
	}
	return finish(d, base, dir, st, ram);
}
