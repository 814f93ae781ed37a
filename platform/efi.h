/*
 * platform/efi.h - the few UEFI boot services and protocols suite firmware
 * calls while boot services are alive (UEFI 2.10 sections 4.3, 4.4, 7.3;
 * edk2 MdePkg/Include/Protocol/CpuIo2.h, PciRootBridgeIo.h, BlockIo.h).
 * Reached only from build/trapmeter-fw.elf, entered by GRUB-EFI through
 * multiboot2 header tag 9 with tag 7 (boot/boot.asm): QEMU `-cdrom
 * build/trapmeter-fw.iso` with OVMF in pflash.
 *
 * Every call goes through the Microsoft x64 convention by the NASM thunk
 * in platform/efi_call.asm; structures are read at their spec offsets.
 */
#ifndef PLATFORM_EFI_H
#define PLATFORM_EFI_H

#include "lib/types.h"

typedef u64 efi_status;
#define EFI_SUCCESS          0
#define EFI_ERROR_BIT        (1ull << 63)
#define EFI_INVALID_PARAMETER (EFI_ERROR_BIT | 2)
#define EFI_UNSUPPORTED      (EFI_ERROR_BIT | 3)
#define EFI_DEVICE_ERROR     (EFI_ERROR_BIT | 7)
#define EFI_NO_MEDIA         (EFI_ERROR_BIT | 12)
#define EFI_MEDIA_CHANGED    (EFI_ERROR_BIT | 13)
#define EFI_NOT_FOUND        (EFI_ERROR_BIT | 14)
#define EFI_BAD_BUFFER_SIZE  (EFI_ERROR_BIT | 4)
#define EFI_TIMEOUT          (EFI_ERROR_BIT | 18)

struct efi_guid {
	u32 data1;
	u16 data2;
	u16 data3;
	u8 data4[8];
};
_Static_assert(sizeof(struct efi_guid) == 16, "EFI_GUID is 16 bytes");

/* EFI_CPU_IO_PROTOCOL_WIDTH (the root bridge's widths number the same) */
enum efi_io_width {
	EFI_IO_UINT8, EFI_IO_UINT16, EFI_IO_UINT32, EFI_IO_UINT64,
	EFI_IO_FIFO_UINT8, EFI_IO_FIFO_UINT16, EFI_IO_FIFO_UINT32, EFI_IO_FIFO_UINT64,
};

/* EFI_BLOCK_IO_MEDIA, the fields read */
struct efi_block_media {
	u32 media_id;           /* MediaId */
	u8 removable;           /* RemovableMedia */
	u8 present;             /* MediaPresent */
	u8 logical_partition;   /* LogicalPartition */
	u8 read_only;           /* ReadOnly */
	u8 write_caching;       /* WriteCaching */
	u8 pad[3];
	u32 block_size;         /* BlockSize */
	u32 io_align;           /* IoAlign */
	u32 pad2;
	u64 last_block;         /* LastBlock */
};
_Static_assert(sizeof(struct efi_block_media) == 32, "EFI_BLOCK_IO_MEDIA head");

/* What suite firmware found (efi_init). */
struct efi_env {
	u64 system_table;       /* EFI_SYSTEM_TABLE * */
	u64 boot_services;      /* EFI_BOOT_SERVICES * */
	u64 image_handle;
	u64 cpu_io2;            /* EFI_CPU_IO2_PROTOCOL *, 0 if none */
	u64 root_bridge;        /* EFI_PCI_ROOT_BRIDGE_IO_PROTOCOL *, 0 if none */
	u32 fw_revision;        /* FirmwareRevision */
	char fw_vendor[40];     /* FirmwareVendor, ASCII */
};

/* One Block I/O device (not a partition). */
struct efi_block_dev {
	u64 block_io;           /* EFI_BLOCK_IO_PROTOCOL * */
	const struct efi_block_media *media;
};

/* The thunk: fn(a1..a5) by the Microsoft x64 convention (shadow space,
 * RCX/RDX/R8/R9, the fifth on the stack, RSP 16-aligned at the call). */
u64 efi_call5(u64 fn, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);
/* The same with the trap flag set across the call (platform/efi_step.c). */
u64 efi_call5_stepped(u64 fn, u64 a1, u64 a2, u64 a3, u64 a4, u64 a5);

/* The audit's hand-counted path (platform/efi_call.asm): a1 = a buffer
 * of 16 bytes. */
void efi_audit_selftest(void);
#define EFI_SELFTEST_INSNS  8
#define EFI_SELFTEST_TRAPS  23
#define EFI_SELFTEST_UNITS  16      /* rep outsb to port 0x80 */
#define EFI_SELFTEST_EXITS  17      /* 16 outs units + 1 inb */

/* Find the tables and CpuIo2 / the root bridge from the boot information's
 * system table and image handle: 0, or -ENODEV without boot services. */
int efi_init(struct efi_env *env, u64 system_table, u64 image_handle);

/* Block I/O devices that are whole media with block_size bytes per block
 * (512: the IDE disk; 2048: the CD), at most cap; their number. */
u32 efi_block_devices(const struct efi_env *env, u32 block_size,
		      struct efi_block_dev *out, u32 cap);

/* Protocol functions' addresses (spec member offsets). */
u64 efi_cpu_io_read(const struct efi_env *env);
u64 efi_cpu_io_write(const struct efi_env *env);
u64 efi_root_bridge_io_read(const struct efi_env *env);
u64 efi_root_bridge_io_write(const struct efi_env *env);
u64 efi_block_read_blocks(const struct efi_block_dev *dev);

/* "EFI_INVALID_PARAMETER", ... ("EFI error" for others). */
const char *efi_status_name(efi_status s);

#endif
