/*
 * platform/bootinfo.c - multiboot2 tag walk (Multiboot2 spec section 3.6)
 * and the multiboot1 information structure (Multiboot 0.6.96 section 3.3).
 * Pure: reads memory only, so the host tests feed it fake structures.
 */
#include "platform/bootinfo.h"
#include "lib/string.h"

#define MB2_TAG_END       0
#define MB2_TAG_CMDLINE   1
#define MB2_TAG_LOADER    2
#define MB2_TAG_EFI32     11
#define MB2_TAG_EFI64     12
#define MB2_TAG_ACPI_OLD  14   /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW  15   /* a copy of the ACPI 2.0+ RSDP */
#define MB2_TAG_EFI_BS    18   /* boot services not terminated (header tag 7) */
#define MB2_TAG_EFI64_IH  20   /* the EFI 64-bit image handle */
#define MB2_TAG_ALIGN     8
#define MB2_MAX_TOTAL     (1u << 20)

#define MB1_FLAG_CMDLINE  (1u << 2)
#define MB1_FLAG_LOADER   (1u << 9)
#define MB1_OFF_FLAGS     0
#define MB1_OFF_CMDLINE   16
#define MB1_OFF_LOADER    64

struct mb2_tag {
	u32 type;
	u32 size;   /* including this header, not the padding to 8 */
};

static void copy_str(char *dst, size_t cap, const char *src, bool *truncated)
{
	size_t n = kstrlen(src);

	if (n >= cap) {
		n = cap - 1;
		if (truncated)
			*truncated = true;
	}
	kmemcpy(dst, src, n);
	dst[n] = 0;
}

/* The RSDP copy a tag carries (the new one wins over the old). */
static void set_rsdp(struct bootinfo *bi, const struct mb2_tag *t)
{
	bi->rsdp = t + 1;
	bi->rsdp_len = t->size - (u32)sizeof(*t);
}

static int parse_mb2(const u8 *info, struct bootinfo *bi)
{
	u32 total, off = MB2_TAG_ALIGN;
	const struct mb2_tag *t;

	kmemcpy(&total, info, sizeof(total));
	if (total < MB2_TAG_ALIGN || total > MB2_MAX_TOTAL)
		return -EINVAL;
	while (off + sizeof(*t) <= total) {
		t = (const struct mb2_tag *)(info + off);
		if (t->type == MB2_TAG_END || t->size < sizeof(*t))
			break;
		if (t->type == MB2_TAG_CMDLINE)
			copy_str(bi->cmdline, sizeof(bi->cmdline), (const char *)(t + 1), &bi->truncated);
		else if (t->type == MB2_TAG_LOADER)
			copy_str(bi->loader, sizeof(bi->loader), (const char *)(t + 1), NULL);
		else if (t->type == MB2_TAG_EFI32 || t->type == MB2_TAG_EFI64)
			bi->firmware = "uefi";
		if (t->type == MB2_TAG_EFI64 && t->size >= sizeof(*t) + sizeof(u64))
			kmemcpy(&bi->efi_system_table, t + 1, sizeof(u64));
		else if (t->type == MB2_TAG_EFI64_IH && t->size >= sizeof(*t) + sizeof(u64))
			kmemcpy(&bi->efi_image_handle, t + 1, sizeof(u64));
		else if (t->type == MB2_TAG_EFI_BS)
			bi->efi_boot_services = true;
		else if (t->type == MB2_TAG_ACPI_NEW ||
			 (t->type == MB2_TAG_ACPI_OLD && !bi->rsdp))
			set_rsdp(bi, t);
		off += ALIGN_UP(t->size, MB2_TAG_ALIGN);
	}
	return 0;
}

static const char *skip_first_word(const char *s)
{
	while (*s == ' ')
		s++;
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

static int parse_mb1(const u8 *info, struct bootinfo *bi)
{
	u32 flags, ptr;

	kmemcpy(&flags, info + MB1_OFF_FLAGS, sizeof(flags));
	if (flags & MB1_FLAG_CMDLINE) {
		kmemcpy(&ptr, info + MB1_OFF_CMDLINE, sizeof(ptr));
		if (ptr)
			copy_str(bi->cmdline, sizeof(bi->cmdline),
				 skip_first_word((const char *)(uintptr_t)ptr), &bi->truncated);
	}
	if (flags & MB1_FLAG_LOADER) {
		kmemcpy(&ptr, info + MB1_OFF_LOADER, sizeof(ptr));
		if (ptr)
			copy_str(bi->loader, sizeof(bi->loader), (const char *)(uintptr_t)ptr, NULL);
	}
	return 0;
}

int bootinfo_parse(u32 magic, const void *info, struct bootinfo *bi)
{
	kmemset(bi, 0, sizeof(*bi));
	bi->firmware = "bios";
	bi->protocol = "unknown";
	if (!info)
		return -EINVAL;
	if (magic == MB2_BOOT_MAGIC) {
		bi->protocol = "multiboot2";
		return parse_mb2(info, bi);
	}
	if (magic == MB1_BOOT_MAGIC) {
		bi->protocol = "multiboot1";
		return parse_mb1(info, bi);
	}
	return -EINVAL;
}
