/*
 * drivers/ide_prd.h - the physical region descriptor (PRD) table of an IDE
 * bus-master DMA transfer (Programming Interface for Bus Master IDE
 * Controller, rev 1.0, section 1.2), built from a buffer.  Pure logic:
 * no port access, host-tested (tests/host/c/test_ide_prd.c).
 *
 * A PRD names one physically contiguous region: a 32-bit address, a 16-bit
 * byte count (0 = 64 KiB) and, in the last entry of the table, the end-of-
 * table bit.  A region must not cross a 64 KiB boundary; both address and
 * count are even (bit 0 is reserved).  QEMU (hw/ide/pci.c
 * bmdma_prepare_buf) reads the table through the device's DMA address
 * space, so a vIOMMU translates both the table and the regions.
 */
#ifndef DRIVERS_IDE_PRD_H
#define DRIVERS_IDE_PRD_H

#include "lib/types.h"

#define PRD_EOT            0x8000u    /* flags: last entry of the table */
#define PRD_MAX_BYTES      0x10000u   /* one entry: 64 KiB, stored as 0 */
#define PRD_BOUNDARY       0x10000ull /* an entry never crosses this */
#define PRD_ADDR_LIMIT     0x100000000ull  /* 32-bit addresses */
#define PRD_TABLE_ALIGN    4          /* the table's address: dword aligned */

struct ide_prd {
	u32 addr;    /* physical (bus) address of the region, even */
	u16 count;   /* bytes, even; 0 means 64 KiB */
	u16 flags;   /* PRD_EOT in the last entry */
} __attribute__((packed));
_Static_assert(sizeof(struct ide_prd) == 8, "PRD entry layout");

/*
 * Fill tbl (room for max entries) for len bytes at bus address addr, each
 * entry at most chunk bytes (1..64 KiB, even) and split at every 64 KiB
 * boundary; the last entry gets PRD_EOT.  Returns the entry count, or
 * -EINVAL (odd address or length, len 0 or over the chunk rules, above
 * 4 GiB) / -ENOSPC (more than max entries needed).
 */
int ide_prd_build(struct ide_prd *tbl, u32 max, u64 addr, u32 len, u32 chunk);

/* Bytes entry e covers (its count, 0 read as 64 KiB). */
u32 ide_prd_bytes(const struct ide_prd *e);

/* Entries of tbl that cross a page boundary of page bytes. */
u32 ide_prd_page_crossings(const struct ide_prd *tbl, u32 n, u32 page);

#endif
