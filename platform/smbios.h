/*
 * platform/smbios.h - the BIOS vendor from the SMBIOS tables (DMTF DSP0134:
 * 5.2 entry points, 6.1 structure layout, 7.1 BIOS Information, type 0),
 * which names the legacy firmware that booted us: SeaBIOS and qboot each
 * write their own name there (QEMU's fw_cfg tables leave type 0 to the
 * firmware).  Pure: the caller passes the memory to look at, so
 * tests/host/c/test_smbios.c feeds hand-built tables.
 */
#ifndef PLATFORM_SMBIOS_H
#define PLATFORM_SMBIOS_H

#include "lib/types.h"

/* Where the firmware leaves the entry point: the BIOS F segment. */
#define SMBIOS_SCAN_BASE 0xf0000u
#define SMBIOS_SCAN_LEN  0x10000u

struct smbios_table {
	u64 addr;           /* structure table, physical */
	u32 len;            /* its length (3.0: its maximum) */
	u8 major;           /* entry point version: 2 or 3 */
};

/* Find a valid (checksummed) 2.1 "_SM_" or 3.0 "_SM3_" entry point on a
 * 16-byte boundary of seg[0..len); 0, or -ENOENT. */
int smbios_find(const u8 *seg, u32 len, struct smbios_table *t);

/* The vendor string of the first type-0 structure in table[0..len) into
 * out (cut to cap - 1); 0, -ENOENT (no type 0, or no vendor string) or
 * -EINVAL (a structure runs past the table). */
int smbios_bios_vendor(const u8 *table, u32 len, char *out, size_t cap);

/* The runner's name for the firmware of that vendor: "qboot", "bios"
 * (SeaBIOS), or NULL when the vendor is neither. */
const char *smbios_firmware_name(const char *vendor);

#endif
