/*
 * platform/firmware.c - name the legacy firmware from its SMBIOS BIOS
 * vendor (see platform/firmware.h).  The entry point lies in the F segment,
 * the tables below 4 GiB, both inside boot/boot.asm's identity map.
 */
#include "platform/firmware.h"
#include "platform/smbios.h"
#include "lib/string.h"

#define IDENTITY_LIMIT  (1ull << 32)

const char *firmware_detect(const char *from_loader, char *vendor, size_t cap)
{
	struct smbios_table t;
	const char *name;

	vendor[0] = 0;
	/* UEFI is known from the loader's EFI tags already */
	if (kstrcmp(from_loader, "bios") != 0)
		return from_loader;
	if (smbios_find((const u8 *)(uintptr_t)SMBIOS_SCAN_BASE, SMBIOS_SCAN_LEN, &t) ||
	    !t.addr || t.addr + t.len > IDENTITY_LIMIT)
		return from_loader;
	if (smbios_bios_vendor((const u8 *)(uintptr_t)t.addr, t.len, vendor, cap)) {
		vendor[0] = 0;
		return from_loader;
	}
	name = smbios_firmware_name(vendor);
	return name ? name : from_loader;
}
