/*
 * platform/efi.c - find the boot services and the protocols suite firmware
 * calls (see platform/efi.h).  Offsets are the UEFI 2.10 structures'
 * (section 4.3 EFI_SYSTEM_TABLE, 4.4 EFI_BOOT_SERVICES); GUIDs from edk2
 * MdePkg/Include/Protocol.
 */
#include "platform/efi.h"
#include "lib/string.h"

#define ST_SIGNATURE        0x5453595320494249ull   /* "IBI SYST" */
#define BS_SIGNATURE        0x56524553544f4f42ull   /* "BOOTSERV" */
#define ST_FW_VENDOR        24
#define ST_FW_REVISION      32
#define ST_BOOT_SERVICES    96
#define BS_FREE_POOL        72
#define BS_HANDLE_PROTOCOL  152
#define BS_LOCATE_HANDLE_BUFFER 312
#define BS_LOCATE_PROTOCOL  320
#define BY_PROTOCOL         2        /* EFI_LOCATE_SEARCH_TYPE ByProtocol */
/* EFI_CPU_IO2_PROTOCOL: Mem.Read, Mem.Write, Io.Read, Io.Write */
#define CPU_IO2_IO_READ     16
#define CPU_IO2_IO_WRITE    24
/* EFI_PCI_ROOT_BRIDGE_IO_PROTOCOL: ParentHandle, PollMem, PollIo,
 * Mem.Read, Mem.Write, Io.Read, Io.Write, ... */
#define ROOT_BRIDGE_IO_READ  40
#define ROOT_BRIDGE_IO_WRITE 48
/* EFI_BLOCK_IO_PROTOCOL: Revision, Media, Reset, ReadBlocks, ... */
#define BLOCK_IO_MEDIA      8
#define BLOCK_IO_READ_BLOCKS 24

static const struct efi_guid cpu_io2_guid = {
	0xad61f191, 0xae5f, 0x4c0e, { 0xb9, 0xfa, 0xe8, 0x69, 0xd2, 0x88, 0xc6, 0x4f } };
static const struct efi_guid root_bridge_io_guid = {
	0x2f707ebb, 0x4a1a, 0x11d4, { 0x9a, 0x38, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } };
static const struct efi_guid block_io_guid = {
	0x964e5b21, 0x6459, 0x11d2, { 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } };

static u64 rd64(u64 addr)
{
	u64 v;

	kmemcpy(&v, (const void *)(uintptr_t)addr, sizeof(v));
	return v;
}

static u64 bs_fn(const struct efi_env *env, u32 off)
{
	return rd64(env->boot_services + off);
}

static u64 locate(const struct efi_env *env, const struct efi_guid *guid)
{
	u64 iface = 0;

	if (efi_call5(bs_fn(env, BS_LOCATE_PROTOCOL), (u64)(uintptr_t)guid, 0,
		      (u64)(uintptr_t)&iface, 0, 0) != EFI_SUCCESS)
		return 0;
	return iface;
}

/* FirmwareVendor is UCS-2: keep its ASCII characters */
static void vendor_ascii(char *dst, size_t cap, u64 src)
{
	const u16 *s = (const u16 *)(uintptr_t)src;
	size_t i;

	for (i = 0; s && s[i] && i + 1 < cap; i++)
		dst[i] = s[i] < 0x80 ? (char)s[i] : '?';
	dst[i] = 0;
}

int efi_init(struct efi_env *env, u64 system_table, u64 image_handle)
{
	kmemset(env, 0, sizeof(*env));
	if (!system_table || rd64(system_table) != ST_SIGNATURE)
		return -ENODEV;
	env->system_table = system_table;
	env->image_handle = image_handle;
	env->boot_services = rd64(system_table + ST_BOOT_SERVICES);
	if (!env->boot_services || rd64(env->boot_services) != BS_SIGNATURE)
		return -ENODEV;
	env->fw_revision = (u32)rd64(system_table + ST_FW_REVISION);
	vendor_ascii(env->fw_vendor, sizeof(env->fw_vendor),
		     rd64(system_table + ST_FW_VENDOR));
	env->cpu_io2 = locate(env, &cpu_io2_guid);
	env->root_bridge = locate(env, &root_bridge_io_guid);
	return 0;
}

u32 efi_block_devices(const struct efi_env *env, u32 block_size,
		      struct efi_block_dev *out, u32 cap)
{
	u64 n = 0, handles = 0, bio;
	const struct efi_block_media *m;
	u32 found = 0;

	if (efi_call5(bs_fn(env, BS_LOCATE_HANDLE_BUFFER), BY_PROTOCOL,
		      (u64)(uintptr_t)&block_io_guid, 0, (u64)(uintptr_t)&n,
		      (u64)(uintptr_t)&handles) != EFI_SUCCESS)
		return 0;
	for (u64 i = 0; i < n && found < cap; i++) {
		bio = 0;
		if (efi_call5(bs_fn(env, BS_HANDLE_PROTOCOL), rd64(handles + 8 * i),
			      (u64)(uintptr_t)&block_io_guid, (u64)(uintptr_t)&bio,
			      0, 0) != EFI_SUCCESS || !bio)
			continue;
		m = (const struct efi_block_media *)(uintptr_t)rd64(bio + BLOCK_IO_MEDIA);
		if (!m || m->logical_partition || !m->present || m->block_size != block_size)
			continue;
		out[found].block_io = bio;
		out[found++].media = m;
	}
	efi_call5(bs_fn(env, BS_FREE_POOL), handles, 0, 0, 0, 0);
	return found;
}

u64 efi_cpu_io_read(const struct efi_env *env)
{
	return rd64(env->cpu_io2 + CPU_IO2_IO_READ);
}

u64 efi_cpu_io_write(const struct efi_env *env)
{
	return rd64(env->cpu_io2 + CPU_IO2_IO_WRITE);
}

u64 efi_root_bridge_io_read(const struct efi_env *env)
{
	return rd64(env->root_bridge + ROOT_BRIDGE_IO_READ);
}

u64 efi_root_bridge_io_write(const struct efi_env *env)
{
	return rd64(env->root_bridge + ROOT_BRIDGE_IO_WRITE);
}

u64 efi_block_read_blocks(const struct efi_block_dev *dev)
{
	return rd64(dev->block_io + BLOCK_IO_READ_BLOCKS);
}

const char *efi_status_name(efi_status s)
{
	switch (s) {
	case EFI_SUCCESS: return "EFI_SUCCESS";
	case EFI_INVALID_PARAMETER: return "EFI_INVALID_PARAMETER";
	case EFI_UNSUPPORTED: return "EFI_UNSUPPORTED";
	case EFI_BAD_BUFFER_SIZE: return "EFI_BAD_BUFFER_SIZE";
	case EFI_DEVICE_ERROR: return "EFI_DEVICE_ERROR";
	case EFI_NO_MEDIA: return "EFI_NO_MEDIA";
	case EFI_MEDIA_CHANGED: return "EFI_MEDIA_CHANGED";
	case EFI_NOT_FOUND: return "EFI_NOT_FOUND";
	case EFI_TIMEOUT: return "EFI_TIMEOUT";
	}
	return "EFI error";
}
