/*
 * platform/bootinfo.h - what the boot loader told us: protocol, firmware,
 * loader name and the kernel command line.
 */
#ifndef PLATFORM_BOOTINFO_H
#define PLATFORM_BOOTINFO_H

#include "lib/types.h"

#define MB1_BOOT_MAGIC 0x2BADB002u
#define MB2_BOOT_MAGIC 0x36d76289u
#define BOOTINFO_CMDLINE_MAX 512

struct bootinfo {
	const char *protocol;   /* "multiboot2", "multiboot1" or "unknown" */
	const char *firmware;   /* "bios" or "uefi"; platform/firmware.c may say "qboot" */
	char loader[64];        /* boot loader name, if given */
	char cmdline[BOOTINFO_CMDLINE_MAX];
	bool truncated;         /* command line longer than we keep */
	const void *rsdp;       /* multiboot2's copy of the ACPI RSDP, or NULL
				   (UEFI keeps it outside the BIOS areas) */
	u32 rsdp_len;
	/* UEFI with boot services kept (header tags 7 and 9, kernel/suites/
	 * firmware.c): tags 12, 20 and 18; 0/false otherwise */
	u64 efi_system_table;   /* EFI_SYSTEM_TABLE *, physical */
	u64 efi_image_handle;   /* EFI_HANDLE of the loaded image */
	bool efi_boot_services; /* tag 18: ExitBootServices not called */
};

/*
 * Parse the loader's structure at physical address `info` (identity
 * mapped).  A multiboot1 command line starts with the kernel's file name
 * (QEMU's -kernel puts it there); that first word is dropped.
 * Returns -EINVAL for an unknown magic.
 */
int bootinfo_parse(u32 magic, const void *info, struct bootinfo *bi);

#endif
