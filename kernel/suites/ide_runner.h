/*
 * kernel/suites/ide_runner.h - the runner's record of the disk it attaches
 * (fw_cfg opt/trapmeter/ide, little-endian; written by
 * tools/trapmeterlib/guest/ide.py): how large the image is and which
 * sectors the guest may write.  Suites ide and dma read it.
 */
#ifndef KERNEL_SUITES_IDE_RUNNER_H
#define KERNEL_SUITES_IDE_RUNNER_H

#include "lib/types.h"
#include "lib/string.h"
#include "drivers/fw_cfg.h"

#define IDE_CFG_NAME       "opt/trapmeter/ide"
#define IDE_CFG_MAGIC      0x44494d54u      /* "TMID" little-endian */
#define IDE_CFG_VERSION    1
#define IDE_CFG_READONLY   (1u << 0)

struct ide_fw_cfg {
	u32 magic;          /* IDE_CFG_MAGIC */
	u32 version;        /* IDE_CFG_VERSION */
	u32 disk_sectors;   /* size of the runner's image */
	u32 write_lba;      /* first sector the guest may write */
	u32 write_sectors;  /* 0: nothing may be written */
	u32 flags;          /* IDE_CFG_READONLY */
} __attribute__((packed));
_Static_assert(sizeof(struct ide_fw_cfg) == 24, "ide fw_cfg layout");

/* Read the record into *r: true when the runner wrote one of this
 * version, else false with *r zeroed (no runner: a disk of unknown
 * pattern and nothing writable). */
static inline bool ide_runner_read(struct ide_fw_cfg *r)
{
	struct fw_cfg_file f;
	bool ok = false;

	kmemset(r, 0, sizeof(*r));
	if (fw_cfg_find(IDE_CFG_NAME, &f) == 0 && f.size >= sizeof(*r)) {
		fw_cfg_read(f.select, r, sizeof(*r));
		ok = r->magic == IDE_CFG_MAGIC && r->version == IDE_CFG_VERSION;
	}
	if (!ok)
		kmemset(r, 0, sizeof(*r));
	return ok;
}

#endif
