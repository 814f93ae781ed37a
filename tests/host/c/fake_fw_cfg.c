/*
 * tests/host/c/fake_fw_cfg.c - the fake fw_cfg device (see fake_fw_cfg.h).
 * Item layout as QEMU's hw/nvram/fw_cfg.c: the directory is a big-endian
 * count and 64-byte FWCfgFile entries (be32 size, be16 select, name).
 */
#include "tests/host/c/fake_fw_cfg.h"
#include "tests/host/c/fake_tsc.h"
#include "drivers/platform.h"
#include <string.h>

#define MAX_FILES   4
#define FIRST_FILE  0x20
#define DIR_KEY     0x19
#define ENTRY_SIZE  64

struct file {
	const char *name;
	const u8 *data;
	u32 size;
};

u64 fake_fw_cfg_read_cycles;
static struct file files[MAX_FILES];
static u32 n_files;
static u16 key;
static u32 offset;
static u8 dir[4 + MAX_FILES * ENTRY_SIZE];

void fake_fw_cfg_reset(void)
{
	n_files = 0;
	key = 0;
	offset = 0;
	fake_fw_cfg_read_cycles = 0;
}

void fake_fw_cfg_add(const char *name, const void *data, u32 size)
{
	if (n_files < MAX_FILES)
		files[n_files++] = (struct file){ name, data, size };
}

static void put_be(u8 *p, u32 v, int bytes)
{
	while (bytes--) {
		p[bytes] = (u8)v;
		v >>= 8;
	}
}

static u32 build_dir(void)
{
	u32 i;

	memset(dir, 0, sizeof(dir));
	put_be(dir, n_files, 4);
	for (i = 0; i < n_files; i++) {
		u8 *e = dir + 4 + i * ENTRY_SIZE;

		put_be(e, files[i].size, 4);
		put_be(e + 4, FIRST_FILE + i, 2);
		strncpy((char *)e + 8, files[i].name, ENTRY_SIZE - 9);
	}
	return 4 + n_files * ENTRY_SIZE;
}

static u8 item_byte(void)
{
	static const char sig[] = "QEMU";
	u32 at = offset++;

	if (key == 0)
		return at < 4 ? (u8)sig[at] : 0;
	if (key == DIR_KEY)
		return at < build_dir() ? dir[at] : 0;
	if (key >= FIRST_FILE && key < FIRST_FILE + n_files)
		return at < files[key - FIRST_FILE].size ? files[key - FIRST_FILE].data[at] : 0;
	return 0;                   /* ID (no DMA) and unknown items */
}

bool fake_fw_cfg_in(u16 port, u8 width, u32 *value)
{
	if (port != FW_CFG_PORT_DATA || width != 1)
		return false;
	fake_tsc_now += fake_fw_cfg_read_cycles;
	*value = item_byte();
	return true;
}

bool fake_fw_cfg_out(u16 port, u8 width, u32 value)
{
	if (port != FW_CFG_PORT_SEL || width != 2)
		return false;
	key = (u16)value;
	offset = 0;
	return true;
}
