/*
 * platform/firmware.h - which firmware booted us, beyond what the boot
 * loader says: under a legacy BIOS the SMBIOS BIOS vendor tells SeaBIOS
 * from qboot (platform/smbios.h).
 */
#ifndef PLATFORM_FIRMWARE_H
#define PLATFORM_FIRMWARE_H

#include "lib/types.h"

#define FIRMWARE_VENDOR_MAX 64      /* room for the vendor string */

/* The firmware's name ("bios", "qboot", "uefi") from the loader's
 * (bootinfo's "bios" or "uefi") and the SMBIOS tables; the loader's
 * name when the tables are missing or name neither.  vendor[0..cap)
 * gets the SMBIOS BIOS vendor, "" when none was read. */
const char *firmware_detect(const char *from_loader, char *vendor, size_t cap);

#endif
