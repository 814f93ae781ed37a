/*
 * platform/smbios.c - SMBIOS entry point and BIOS Information (type 0)
 * vendor string (see platform/smbios.h; DMTF DSP0134).
 */
#include "platform/smbios.h"
#include "lib/string.h"

#define EP_ALIGN          16
#define EP21_LEN_MIN      0x1f      /* 2.1 entry point: 31 bytes */
#define EP21_OFF_LEN      0x05      /* entry point length */
#define EP21_OFF_MAJOR    0x06
#define EP21_OFF_TLEN     0x16      /* structure table length, u16 */
#define EP21_OFF_TADDR    0x18      /* structure table address, u32 */
#define EP30_LEN_MIN      0x18      /* 3.0 entry point: 24 bytes */
#define EP30_OFF_LEN      0x06
#define EP30_OFF_MAJOR    0x07
#define EP30_OFF_TMAX     0x0c      /* structure table maximum size, u32 */
#define EP30_OFF_TADDR    0x10      /* structure table address, u64 */
#define ST_HDR_LEN        4         /* type, length, handle */
#define ST_TYPE_BIOS      0
#define ST_TYPE_END       127
#define BIOS_OFF_VENDOR   4         /* string number of the vendor */

static u8 sum8(const u8 *p, u32 n)
{
	u8 s = 0;

	while (n--)
		s += *p++;
	return s;
}

static u32 rd16(const u8 *p)
{
	return p[0] | (u32)p[1] << 8;
}

static u32 rd32(const u8 *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

/* The entry point at p (room bytes left in the segment), if valid. */
static bool entry_at(const u8 *p, u32 room, struct smbios_table *t)
{
	u32 n;

	if (room >= EP30_LEN_MIN && kmemcmp(p, "_SM3_", 5) == 0) {
		n = p[EP30_OFF_LEN];
		if (n < EP30_LEN_MIN || n > room || sum8(p, n))
			return false;
		t->major = p[EP30_OFF_MAJOR];
		t->len = rd32(p + EP30_OFF_TMAX);
		t->addr = rd32(p + EP30_OFF_TADDR) | (u64)rd32(p + EP30_OFF_TADDR + 4) << 32;
		return true;
	}
	if (room >= EP21_LEN_MIN && kmemcmp(p, "_SM_", 4) == 0) {
		n = p[EP21_OFF_LEN];
		if (n < EP21_LEN_MIN || n > room || sum8(p, n))
			return false;
		t->major = p[EP21_OFF_MAJOR];
		t->len = rd16(p + EP21_OFF_TLEN);
		t->addr = rd32(p + EP21_OFF_TADDR);
		return true;
	}
	return false;
}

int smbios_find(const u8 *seg, u32 len, struct smbios_table *t)
{
	u32 off;

	for (off = 0; off + EP_ALIGN <= len; off += EP_ALIGN)
		if (seg[off] == '_' && entry_at(seg + off, len - off, t))
			return 0;
	return -ENOENT;
}

/* String number idx (1-based) of the set starting at s, ending before end. */
static int string_n(const u8 *s, const u8 *end, u32 idx, char *out, size_t cap)
{
	const u8 *p = s;
	size_t n;

	while (p < end && *p) {
		for (n = 0; p + n < end && p[n]; n++)
			;
		if (p + n == end)
			return -EINVAL;
		if (--idx == 0) {
			n = n < cap - 1 ? n : cap - 1;
			kmemcpy(out, p, n);
			out[n] = 0;
			return 0;
		}
		p += n + 1;
	}
	return p < end ? -ENOENT : -EINVAL;
}

/* The end of the structure at p: past its formatted part and the double
 * NUL that closes its strings; NULL when that runs past end. */
static const u8 *next_struct(const u8 *p, const u8 *end)
{
	const u8 *s = p + p[1];

	if (p[1] < ST_HDR_LEN || s >= end)
		return NULL;
	for (; s + 1 < end; s++)
		if (s[0] == 0 && s[1] == 0)
			return s + 2;
	return NULL;
}

int smbios_bios_vendor(const u8 *table, u32 len, char *out, size_t cap)
{
	const u8 *p = table, *end = table + len, *next;

	while (p + ST_HDR_LEN <= end && p[0] != ST_TYPE_END) {
		next = next_struct(p, end);
		if (!next)
			return -EINVAL;
		if (p[0] == ST_TYPE_BIOS) {
			if (p[1] <= BIOS_OFF_VENDOR || !p[BIOS_OFF_VENDOR])
				return -ENOENT;
			return string_n(p + p[1], next, p[BIOS_OFF_VENDOR], out, cap);
		}
		p = next;
	}
	return -ENOENT;
}

const char *smbios_firmware_name(const char *vendor)
{
	if (kstrncmp(vendor, "qboot", 5) == 0)
		return "qboot";
	if (kstrncmp(vendor, "SeaBIOS", 7) == 0)
		return "bios";
	return NULL;
}
