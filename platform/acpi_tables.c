/*
 * platform/acpi_tables.c - RSDP search, RSDT/XSDT walk, DMAR DRHD parse
 * (see platform/acpi_tables.h).
 */
#include "platform/acpi_tables.h"
#include "lib/string.h"

#define RSDP_SIG          "RSD PTR "
#define RSDP_SIG_LEN      8
#define RSDP_V1_LEN       20
#define RSDP_REVISION     15
#define RSDP_RSDT         16
#define RSDP_LENGTH       20
#define RSDP_XSDT         24
#define RSDP_ALIGN        16
#define HDR_LENGTH        4
#define EBDA_SEG_PTR      0x40e      /* BDA: EBDA segment */
#define EBDA_SCAN_LEN     1024
#define BIOS_AREA         0xe0000
#define BIOS_AREA_LEN     0x20000
#define DMAR_WIDTH        36
#define DRHD_FLAGS        4
#define DRHD_SEGMENT      6
#define DRHD_BASE         8
#define DRHD_MIN_LEN      16
#define SUB_HDR_LEN       4

static u32 get32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static u64 get64(const u8 *p)
{
	return (u64)get32(p) | (u64)get32(p + 4) << 32;
}

static u16 get16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static bool sum_ok(const u8 *p, u32 len)
{
	u8 sum = 0;

	while (len--)
		sum = (u8)(sum + *p++);
	return sum == 0;
}

const void *acpi_rsdp_in(const void *area, size_t len)
{
	const u8 *p = area;
	size_t off;
	u32 ext;

	for (off = 0; off + RSDP_V1_LEN <= len; off += RSDP_ALIGN) {
		if (kmemcmp(p + off, RSDP_SIG, RSDP_SIG_LEN) || !sum_ok(p + off, RSDP_V1_LEN))
			continue;
		if (p[off + RSDP_REVISION] < 2)
			return p + off;
		ext = get32(p + off + RSDP_LENGTH);
		if (off + ext <= len && ext >= RSDP_XSDT + 8 && sum_ok(p + off, ext))
			return p + off;
	}
	return NULL;
}

/* The table at physical address pa when its signature matches. */
static const u8 *table_if(u64 pa, const char *sig, u32 *len)
{
	const u8 *t = (const u8 *)(uintptr_t)pa;
	u32 n;

	if (!pa || kmemcmp(t, sig, ACPI_SIG_LEN))
		return NULL;
	n = get32(t + HDR_LENGTH);
	if (n < ACPI_HEADER_LEN || !sum_ok(t, n))
		return NULL;
	*len = n;
	return t;
}

const void *acpi_table_under(const void *rsdp, const char *sig, u32 *len)
{
	const u8 *r = rsdp, *sdt, *t;
	bool x = r[RSDP_REVISION] >= 2 && get64(r + RSDP_XSDT);
	u32 sdt_len, i, step = x ? 8 : 4;
	u64 pa;

	sdt = x ? table_if(get64(r + RSDP_XSDT), "XSDT", &sdt_len) :
		  table_if(get32(r + RSDP_RSDT), "RSDT", &sdt_len);
	if (!sdt)
		return NULL;
	for (i = ACPI_HEADER_LEN; i + step <= sdt_len; i += step) {
		pa = x ? get64(sdt + i) : get32(sdt + i);
		t = table_if(pa, sig, len);
		if (t)
			return t;
	}
	return NULL;
}

int acpi_dmar_first_unit(const void *dmar, u32 len, struct dmar_unit *out)
{
	const u8 *d = dmar;
	u32 off = DMAR_HEADER_LEN, sl;

	while (off + SUB_HDR_LEN <= len) {
		sl = get16(d + off + 2);
		if (sl < SUB_HDR_LEN || off + sl > len)
			return -EINVAL;
		if (get16(d + off) == DMAR_TYPE_DRHD) {
			if (sl < DRHD_MIN_LEN)
				return -EINVAL;
			out->flags = d[off + DRHD_FLAGS];
			out->segment = get16(d + off + DRHD_SEGMENT);
			out->regbase = get64(d + off + DRHD_BASE);
			out->host_width = (u8)(d[DMAR_WIDTH] + 1);
			return 0;
		}
		off += sl;
	}
	return -ENOENT;
}

/* A word of the BIOS data area; through a variable address, since the
 * compiler takes a constant pointer below 4 KiB for a null dereference. */
static u16 bda_word(uintptr_t addr)
{
	const volatile u16 *p;

	__asm__("" : "=r"(p) : "0"(addr));
	return *p;
}

static const void *loader_rsdp;

void acpi_use_rsdp(const void *rsdp, u32 len)
{
	loader_rsdp = rsdp ? acpi_rsdp_in(rsdp, len) : NULL;
}

const void *acpi_find_table(const char *sig, u32 *len)
{
	const void *rsdp = loader_rsdp;
	u64 ebda;

	if (rsdp)
		return acpi_table_under(rsdp, sig, len);
	ebda = (u64)bda_word(EBDA_SEG_PTR) << 4;
	if (ebda)
		rsdp = acpi_rsdp_in((const void *)(uintptr_t)ebda, EBDA_SCAN_LEN);
	if (!rsdp)
		rsdp = acpi_rsdp_in((const void *)(uintptr_t)BIOS_AREA, BIOS_AREA_LEN);
	return rsdp ? acpi_table_under(rsdp, sig, len) : NULL;
}
