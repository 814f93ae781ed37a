/*
 * platform/acpi_tables.h - find ACPI tables (ACPI 6.x, 5.2: RSDP, RSDT,
 * XSDT) and read the DMA remapping reporting table (Intel VT-d spec,
 * 8.1-8.3: DMAR, its DRHD structures).
 *
 * The firmware (SeaBIOS, qboot, OVMF) builds the tables QEMU hands it
 * through fw_cfg; the RSDP sits on a 16-byte boundary in the first KiB of
 * the EBDA or in 0xe0000-0xfffff.  QEMU adds a DMAR table when the
 * machine has `-device intel-iommu`.  The kernel maps memory identically,
 * so a table's physical address is its pointer.
 */
#ifndef DRIVERS_ACPI_TABLES_H
#define DRIVERS_ACPI_TABLES_H

#include "lib/types.h"

#define ACPI_SIG_LEN        4
#define ACPI_HEADER_LEN     36
#define DMAR_HEADER_LEN     48       /* ACPI header + width, flags, reserved */
#define DMAR_TYPE_DRHD      0
#define DMAR_DRHD_INCLUDE_ALL 0x01   /* the unit covers every device on its segment */

struct dmar_unit {
	u64 regbase;        /* register base address */
	u16 segment;
	u8 flags;           /* DMAR_DRHD_INCLUDE_ALL */
	u8 host_width;      /* the DMAR's host address width + 1, bits */
};

/* ---- pure (host-tested) ------------------------------------------------- */

/* The RSDP in [area, area + len) on 16-byte boundaries, checksum checked
 * (and the extended checksum for revision 2+); NULL when none. */
const void *acpi_rsdp_in(const void *area, size_t len);
/* The table with this signature under the RSDP (XSDT when it has one,
 * else RSDT), its checksum checked; NULL when none. */
const void *acpi_table_under(const void *rsdp, const char *sig, u32 *len);
/* The first DRHD of a DMAR table: 0, or -ENOENT (none), -EINVAL (a
 * structure runs past the table). */
int acpi_dmar_first_unit(const void *dmar, u32 len, struct dmar_unit *out);

/* ---- firmware memory ----------------------------------------------------- */

/* The loader's copy of the RSDP (multiboot2's ACPI tag: under UEFI the
 * RSDP is not in the BIOS areas); acpi_find_table tries it first. */
void acpi_use_rsdp(const void *rsdp, u32 len);
/* The table with this signature under the loader's RSDP, else the one
 * the BIOS areas hold; NULL when there is no RSDP or no such table. */
const void *acpi_find_table(const char *sig, u32 *len);

#endif
