/*
 * tests/host/c/test_smbios.c - SMBIOS entry points (2.1 and 3.0) found in a
 * hand-built F segment, the BIOS vendor read from hand-built structure
 * tables, and the firmware names the runner uses (platform/smbios.h).
 */
#include "tests/host/c/check.h"
#include "platform/smbios.h"

static u8 seg[0x1000] __attribute__((aligned(16)));

static void fix_sum(u8 *p, u32 n, u32 at)
{
	u8 s = 0;
	u32 i;

	p[at] = 0;
	for (i = 0; i < n; i++)
		s += p[i];
	p[at] = (u8)-s;
}

static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}

/* A 2.1 entry point at off: table at addr, len bytes. */
static void ep21(u32 off, u32 addr, u16 len)
{
	u8 *p = seg + off;

	memset(p, 0, 0x1f);
	memcpy(p, "_SM_", 4);
	p[5] = 0x1f;
	p[6] = 2;
	p[7] = 8;
	memcpy(p + 0x10, "_DMI_", 5);
	memcpy(p + 0x16, &len, 2);
	put32(p + 0x18, addr);
	fix_sum(p, 0x1f, 4);
}

static void ep30(u32 off, u64 addr, u32 max)
{
	u8 *p = seg + off;

	memset(p, 0, 0x18);
	memcpy(p, "_SM3_", 5);
	p[6] = 0x18;
	p[7] = 3;
	put32(p + 0x0c, max);
	memcpy(p + 0x10, &addr, 8);
	fix_sum(p, 0x18, 5);
}

static void test_entry_points(void)
{
	struct smbios_table t;

	memset(seg, 0, sizeof(seg));
	CHECK_EQ_S64(smbios_find(seg, sizeof(seg), &t), -ENOENT);
	ep21(0x200, 0x7fff0000u, 0x1234);
	CHECK_EQ_S64(smbios_find(seg, sizeof(seg), &t), 0);
	CHECK_EQ_U64(t.addr, 0x7fff0000u);
	CHECK_EQ_U64(t.len, 0x1234);
	CHECK_EQ_U64(t.major, 2);
	seg[0x210] ^= 1;                    /* checksum broken: not taken */
	CHECK_EQ_S64(smbios_find(seg, sizeof(seg), &t), -ENOENT);
	memset(seg, 0, sizeof(seg));
	ep21(0x208, 0x1000, 16);            /* off the 16-byte grid */
	CHECK_EQ_S64(smbios_find(seg, sizeof(seg), &t), -ENOENT);
	ep30(0xff0 - 0x10, 0x123456789ull, 0x800);
	CHECK_EQ_S64(smbios_find(seg, sizeof(seg), &t), 0);
	CHECK_EQ_U64(t.addr, 0x123456789ull);
	CHECK_EQ_U64(t.len, 0x800);
	CHECK_EQ_U64(t.major, 3);
	/* an entry point cut by the end of the segment is not read past it */
	memset(seg, 0, sizeof(seg));
	ep30(0x100, 0x1000, 0x10);
	memmove(seg + sizeof(seg) - 16, seg + 0x100, 16);
	memset(seg + 0x100, 0, 0x18);
	CHECK_EQ_S64(smbios_find(seg, sizeof(seg), &t), -ENOENT);
}

/* type 1 (System), then type 0 with vendor string `vendor_idx`, end */
static u32 build_table(u8 *tab, u8 vendor_idx, const char *strings, u32 slen)
{
	static const u8 sys[] = { 1, 8, 0x00, 0x01, 1, 2, 0, 0, 'Q', 'E', 'M', 'U', 0, 'x', 0, 0 };
	u8 bios[0x12] = { 0, 0x12, 0x00, 0x00 };
	u32 n = 0;

	memcpy(tab, sys, sizeof(sys));
	n += sizeof(sys);
	bios[4] = vendor_idx;
	bios[5] = 2;
	memcpy(tab + n, bios, sizeof(bios));
	n += sizeof(bios);
	memcpy(tab + n, strings, slen);
	n += slen;
	tab[n++] = 127;
	tab[n++] = 4;
	tab[n++] = 0;
	tab[n++] = 0;
	tab[n++] = 0;
	tab[n++] = 0;
	return n;
}

static void test_vendor(void)
{
	static const char qboot[] = "qboot\0" "11/11/2019\0";
	static const char sea[] = "SeaBIOS\0" "rel-1.16.3\0";
	u8 tab[256];
	char v[16];
	u32 n;

	n = build_table(tab, 1, qboot, sizeof(qboot));
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, sizeof(v)), 0);
	CHECK_STR(v, "qboot");
	CHECK_STR(smbios_firmware_name(v), "qboot");
	n = build_table(tab, 2, qboot, sizeof(qboot));
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, sizeof(v)), 0);
	CHECK_STR(v, "11/11/2019");
	CHECK(smbios_firmware_name(v) == NULL);
	n = build_table(tab, 1, sea, sizeof(sea));
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, 4), 0);
	CHECK_STR(v, "Sea");                /* cut to the room given */
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, sizeof(v)), 0);
	CHECK_STR(smbios_firmware_name(v), "bios");
	n = build_table(tab, 3, sea, sizeof(sea));    /* only two strings */
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, sizeof(v)), -ENOENT);
	n = build_table(tab, 0, sea, sizeof(sea));    /* no vendor string */
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, sizeof(v)), -ENOENT);
	n = build_table(tab, 1, sea, sizeof(sea));
	CHECK_EQ_S64(smbios_bios_vendor(tab, 16 + 0x12 + 4, v, sizeof(v)), -EINVAL);
	tab[16] = 4;                        /* no type 0 before the end */
	CHECK_EQ_S64(smbios_bios_vendor(tab, n, v, sizeof(v)), -ENOENT);
	CHECK(smbios_firmware_name("EFI Development Kit II / OVMF") == NULL);
}

int main(void)
{
	RUN(test_entry_points, "smbios: 2.1 and 3.0 entry points, checksum, alignment, bounds");
	RUN(test_vendor, "smbios: BIOS vendor string of type 0, firmware names");
	return check_summary();
}
