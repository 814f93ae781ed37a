/*
 * drivers/ide_bm.h - IDE bus-master DMA on the PIIX IDE function
 * (Programming Interface for Bus Master IDE Controller rev 1.0; Intel
 * PIIX3/PIIX4 datasheets, "Bus Master IDE I/O registers"): READ DMA
 * (0xC8, the device writes guest memory) and WRITE DMA (0xCA, the device
 * reads it), LBA28, polled (nIEN set), every wait bounded by a TSC
 * deadline.
 *
 * The PRD table comes from drivers/ide_prd.h; the drive from
 * drivers/ata.h (probe, taskfile encoding).  QEMU: `-M pc` has the PIIX3
 * IDE function with BAR4 assigned by SeaBIOS; on `-M q35` add `-device
 * piix3-ide` (its channels use the legacy ports) and hang the disk on it
 * (`-device ide-hd,bus=<id>.0`).  QEMU moves the data with
 * dma_memory_map through the function's PCI DMA address space, so a
 * vIOMMU translates the PRD table and every region.
 */
#ifndef DRIVERS_IDE_BM_H
#define DRIVERS_IDE_BM_H

#include "lib/types.h"
#include "drivers/ata.h"
#include "drivers/ide_prd.h"

/* Bus-master registers, per channel at BAR4 + 8 * channel */
#define IDE_BM_CMD          0      /* 8-bit */
#define IDE_BM_STATUS       2      /* 8-bit */
#define IDE_BM_PRDT         4      /* 32-bit, dword aligned */
#define IDE_BM_CHANNEL_SIZE 8

#define IDE_BM_CMD_START    0x01
#define IDE_BM_CMD_TO_MEM   0x08   /* direction: the device writes memory */
#define IDE_BM_ST_ACTIVE    0x01
#define IDE_BM_ST_ERROR     0x02
#define IDE_BM_ST_INTR      0x04   /* write 1 to clear, as ERROR */

#define ATA_CMD_READ_DMA    0xc8
#define ATA_CMD_WRITE_DMA   0xca

/* One controller's bus-master block and where it sits on PCI (the
 * source id a vIOMMU sees). */
struct ide_bm {
	u16 base;           /* BAR4 I/O base */
	u8 bus, devfn;
	u16 vendor, device;
};

/* Port accesses the driver made, so a suite can state exits per op: every
 * bus-master and task-file port on this function is QEMU's. */
struct ide_bm_counters {
	u64 accesses;       /* in and out, all widths */
	u64 polls;          /* status reads while waiting */
};
extern struct ide_bm_counters ide_bm_count;

/* Why the last call failed, naming the step. */
const char *ide_bm_last_error(void);

/* Find the IDE function (class 01:01) with a bus-master BAR4, enable its
 * I/O and bus mastering.  0, or -ENODEV with the reason. */
int ide_bm_init(struct ide_bm *bm);

/*
 * One READ DMA (write false) or WRITE DMA of `sectors` (1..256) at lba on
 * drive d, the regions named by prd (its bus address prd_bus: the same as
 * its physical address without a vIOMMU, else the IOVA that maps it).
 * Waits up to timeout_ms for the engine to stop.  With ram set the same
 * register accesses go to RAM (the benchmark control: no port, no data
 * moves, the wait ends at once).  0, -ETIMEDOUT (the engine never
 * stopped: a vIOMMU fault leaves QEMU waiting for a mapping) or -EIO.
 */
int ide_bm_transfer(const struct ide_bm *bm, struct ata_dev *d, bool write, u32 lba,
		    u32 sectors, u32 prd_bus, u32 timeout_ms, bool ram);

#endif
