/*
 * tests/host/c/test_bootinfo.c - multiboot2 tag walking on hand-built
 * information structures.
 */
#include "tests/host/c/check.h"
#include "platform/bootinfo.h"

struct mb2_builder {
	uint8_t buf[1024] __attribute__((aligned(8)));
	uint32_t len;
};

static void mb2_start(struct mb2_builder *b)
{
	memset(b->buf, 0xcc, sizeof(b->buf));
	b->len = 8;
	memset(b->buf + 4, 0, 4);
}

static void mb2_tag(struct mb2_builder *b, uint32_t type, const void *payload, uint32_t plen)
{
	uint32_t size = 8 + plen;

	memcpy(b->buf + b->len, &type, 4);
	memcpy(b->buf + b->len + 4, &size, 4);
	if (plen)
		memcpy(b->buf + b->len + 8, payload, plen);
	b->len += (size + 7) & ~7u;
}

static void mb2_finish(struct mb2_builder *b)
{
	mb2_tag(b, 0, NULL, 0);
	memcpy(b->buf, &b->len, 4);
}

static void test_mb2_bios(void)
{
	struct mb2_builder b;
	struct bootinfo bi;

	mb2_start(&b);
	mb2_tag(&b, 2, "GRUB 2.06", 10);
	mb2_tag(&b, 1, "suite=pio quick", 16);
	mb2_finish(&b);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK_STR(bi.protocol, "multiboot2");
	CHECK_STR(bi.firmware, "bios");
	CHECK_STR(bi.cmdline, "suite=pio quick");
	CHECK_STR(bi.loader, "GRUB 2.06");
	CHECK(!bi.truncated);
}

static void test_mb2_uefi(void)
{
	uint64_t systab = 0x7f000000;
	struct mb2_builder b;
	struct bootinfo bi;

	mb2_start(&b);
	mb2_tag(&b, 12, &systab, 8);
	mb2_tag(&b, 1, "", 1);
	mb2_finish(&b);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK_STR(bi.firmware, "uefi");
	CHECK_STR(bi.cmdline, "");
	CHECK(bi.rsdp == NULL);
	CHECK_EQ_U64(bi.efi_system_table, systab);
	CHECK_EQ_U64(bi.efi_image_handle, 0);
	CHECK(!bi.efi_boot_services);
}

/* Boot services kept (header tags 7 and 9): tags 18 and 20 as well. */
static void test_mb2_uefi_boot_services(void)
{
	uint64_t systab = 0x7f000000, handle = 0x7e123418;
	struct mb2_builder b;
	struct bootinfo bi;

	mb2_start(&b);
	mb2_tag(&b, 18, NULL, 0);
	mb2_tag(&b, 12, &systab, 8);
	mb2_tag(&b, 20, &handle, 8);
	mb2_finish(&b);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK_EQ_U64(bi.efi_system_table, systab);
	CHECK_EQ_U64(bi.efi_image_handle, handle);
	CHECK(bi.efi_boot_services);
}

/* The ACPI tags: the new RSDP copy wins, whichever comes first. */
static void test_mb2_rsdp(void)
{
	static const char old_rsdp[20] = "RSD PTR old";
	static const char new_rsdp[36] = "RSD PTR new";
	struct mb2_builder b;
	struct bootinfo bi;

	mb2_start(&b);
	mb2_tag(&b, 15, new_rsdp, sizeof(new_rsdp));
	mb2_tag(&b, 14, old_rsdp, sizeof(old_rsdp));
	mb2_finish(&b);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK(bi.rsdp != NULL);
	CHECK_EQ_U64(bi.rsdp_len, sizeof(new_rsdp));
	CHECK(bi.rsdp && !memcmp(bi.rsdp, "RSD PTR new", 11));
	mb2_start(&b);
	mb2_tag(&b, 14, old_rsdp, sizeof(old_rsdp));
	mb2_finish(&b);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK_EQ_U64(bi.rsdp_len, sizeof(old_rsdp));
}

static void test_long_cmdline_truncated(void)
{
	static char longline[BOOTINFO_CMDLINE_MAX + 100];
	struct mb2_builder b;
	struct bootinfo bi;

	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	mb2_start(&b);
	mb2_tag(&b, 1, longline, sizeof(longline));
	mb2_finish(&b);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK(bi.truncated);
	CHECK_EQ_U64(strlen(bi.cmdline), BOOTINFO_CMDLINE_MAX - 1);
}

static void test_bad_input(void)
{
	struct mb2_builder b;
	struct bootinfo bi;
	uint32_t huge = 1u << 30;

	mb2_start(&b);
	mb2_finish(&b);
	CHECK(bootinfo_parse(0x12345678, b.buf, &bi) < 0);
	CHECK_STR(bi.protocol, "unknown");
	CHECK(bootinfo_parse(MB2_BOOT_MAGIC, NULL, &bi) < 0);
	memcpy(b.buf, &huge, 4);
	CHECK(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi) < 0);
	/* a zero-size tag must stop the walk, not loop forever */
	mb2_start(&b);
	memset(b.buf + 8, 0, 16);
	b.buf[8] = 1;
	b.len = 32;
	memcpy(b.buf, &b.len, 4);
	CHECK_EQ_S64(bootinfo_parse(MB2_BOOT_MAGIC, b.buf, &bi), 0);
	CHECK_STR(bi.cmdline, "");
}

int main(void)
{
	RUN(test_mb2_bios, "bootinfo: multiboot2 under BIOS");
	RUN(test_mb2_uefi, "bootinfo: multiboot2 under UEFI");
	RUN(test_mb2_uefi_boot_services, "bootinfo: UEFI boot services kept (tags 18, 20)");
	RUN(test_mb2_rsdp, "bootinfo: multiboot2 ACPI RSDP tags");
	RUN(test_long_cmdline_truncated, "bootinfo: long command line truncated");
	RUN(test_bad_input, "bootinfo: bad magic, NULL, oversize, zero-size tag");
	return check_summary();
}
