/*
 * tests/host/c/test_acpi_tables.c - platform/acpi_tables.c on the host: the
 * RSDP found on a 16-byte boundary with good checksums only, the table
 * looked up through an XSDT, and the DMAR's first DRHD (a QEMU-shaped
 * table: one INCLUDE_PCI_ALL unit at 0xfed90000) with the refusals.
 */
#include "tests/host/c/check.h"
#include "platform/acpi_tables.h"

static u8 area[256] __attribute__((aligned(16)));
static u8 xsdt[ACPI_HEADER_LEN + 8];
static u8 dmar[DMAR_HEADER_LEN + 16 + 8];

static void put32(u8 *p, u32 v) { memcpy(p, &v, 4); }
static void put64(u8 *p, u64 v) { memcpy(p, &v, 8); }

static void fix_sum(u8 *p, u32 len, u32 at)
{
	u8 sum = 0;
	u32 i;

	p[at] = 0;
	for (i = 0; i < len; i++)
		sum = (u8)(sum + p[i]);
	p[at] = (u8)-sum;
}

static void header(u8 *t, const char *sig, u32 len)
{
	memset(t, 0, len);
	memcpy(t, sig, 4);
	put32(t + 4, len);
	t[8] = 1;
}

/* A revision-2 RSDP at offset 48 naming the XSDT that lists the DMAR. */
static void build(void)
{
	u8 *r = area + 48;

	header(dmar, "DMAR", sizeof(dmar));
	dmar[36] = 38;                          /* host address width - 1 */
	put32(dmar + 48, 0 | 16u << 16);        /* type 0 DRHD, length 16 */
	dmar[52] = DMAR_DRHD_INCLUDE_ALL;
	put64(dmar + 56, 0xfed90000ull);
	put32(dmar + 64, 1 | 8u << 16);         /* an RMRR-like type 1 after it */
	fix_sum(dmar, sizeof(dmar), 9);
	header(xsdt, "XSDT", sizeof(xsdt));
	put64(xsdt + ACPI_HEADER_LEN, (u64)(uintptr_t)dmar);
	fix_sum(xsdt, sizeof(xsdt), 9);
	memset(area, 0, sizeof(area));
	memcpy(area + 16, "RSD PTR ", 8);       /* a signature with a bad sum */
	memcpy(r, "RSD PTR ", 8);
	r[15] = 2;
	put32(r + 20, 36);
	put64(r + 24, (u64)(uintptr_t)xsdt);
	fix_sum(r, 20, 8);
	fix_sum(r, 36, 32);
}

static void test_rsdp(void)
{
	build();
	CHECK(acpi_rsdp_in(area, sizeof(area)) == area + 48);
	area[60] ^= 1;                          /* breaks both checksums */
	CHECK(acpi_rsdp_in(area, sizeof(area)) == NULL);
	build();
	CHECK(acpi_rsdp_in(area, 48) == NULL);  /* not inside the range */
}

static void test_table_and_dmar(void)
{
	struct dmar_unit u;
	const void *t;
	u32 len = 0;

	build();
	t = acpi_table_under(area + 48, "DMAR", &len);
	CHECK(t == dmar);
	CHECK_EQ_U64(len, sizeof(dmar));
	CHECK(acpi_table_under(area + 48, "FACP", &len) == NULL);
	CHECK_EQ_S64(acpi_dmar_first_unit(t, len, &u), 0);
	CHECK_EQ_U64(u.regbase, 0xfed90000ull);
	CHECK_EQ_U64(u.flags, DMAR_DRHD_INCLUDE_ALL);
	CHECK_EQ_U64(u.host_width, 39);
	dmar[9] ^= 0x55;                        /* bad table checksum */
	CHECK(acpi_table_under(area + 48, "DMAR", &len) == NULL);
}

static void test_dmar_refusals(void)
{
	struct dmar_unit u;

	build();
	put32(dmar + 48, 1 | 16u << 16);        /* no DRHD at all */
	CHECK_EQ_S64(acpi_dmar_first_unit(dmar, sizeof(dmar), &u), -ENOENT);
	put32(dmar + 48, 0 | 200u << 16);       /* runs past the table */
	CHECK_EQ_S64(acpi_dmar_first_unit(dmar, sizeof(dmar), &u), -EINVAL);
	put32(dmar + 48, 0 | 2u << 16);         /* shorter than its header */
	CHECK_EQ_S64(acpi_dmar_first_unit(dmar, sizeof(dmar), &u), -EINVAL);
}

/* The loader's RSDP copy (multiboot2 under UEFI) is used first; a bad
 * copy is not (the BIOS areas are not reachable on the host, so only
 * the good case looks the table up). */
static void test_loader_rsdp(void)
{
	u32 len = 0;

	build();
	acpi_use_rsdp(area + 48, 36);
	CHECK(acpi_find_table("DMAR", &len) == dmar);
	CHECK_EQ_U64(len, sizeof(dmar));
	acpi_use_rsdp(area + 48, 19);           /* too short for an RSDP */
	acpi_use_rsdp(NULL, 0);
}

int main(void)
{
	RUN(test_rsdp, "acpi: RSDP on a 16-byte boundary, checksums");
	RUN(test_table_and_dmar, "acpi: DMAR through the XSDT, its DRHD");
	RUN(test_dmar_refusals, "acpi: DMAR without DRHD, bad lengths");
	RUN(test_loader_rsdp, "acpi: the loader's RSDP copy first");
	return check_summary();
}
