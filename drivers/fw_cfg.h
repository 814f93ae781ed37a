/*
 * drivers/fw_cfg.h - QEMU firmware configuration device, I/O port interface.
 */
#ifndef DRIVERS_FW_CFG_H
#define DRIVERS_FW_CFG_H

#include "lib/types.h"

#define FW_CFG_SIGNATURE  0x0000
#define FW_CFG_ID         0x0001
#define FW_CFG_NB_CPUS    0x0005   /* u16: vCPUs at boot (-smp) */
#define FW_CFG_FILE_DIR   0x0019

struct fw_cfg_file {
	u32 size;
	u16 select;
};

/* True when the "QEMU" signature answers. */
bool fw_cfg_init(void);
bool fw_cfg_present(void);
bool fw_cfg_has_dma(void);

/* Find a named file item (e.g. "opt/trapmeter/blob"); -ENOENT if absent. */
int fw_cfg_find(const char *name, struct fw_cfg_file *out);

/* Select an item: the read offset restarts at 0. */
void fw_cfg_select(u16 key);

/* Read `len` bytes of item `key` from offset 0 with `rep insb`. */
void fw_cfg_read(u16 key, void *buf, u32 len);

/*
 * One DMA read of `len` bytes of item `key` into `buf` (below 4 GiB):
 * selects the item and transfers in a single trap (write of the low DMA
 * address half).  -EIO when the device reports an error.
 */
int fw_cfg_dma_read(u16 key, void *buf, u32 len);

/*
 * One DMA write of `len` bytes from `buf` into item `key` from offset 0.
 * QEMU takes writes only for items it added as writable (else -EIO).
 */
int fw_cfg_dma_write(u16 key, const void *buf, u32 len);

/*
 * The non-trapping twin of fw_cfg_dma_read for a benchmark control
 * (kernel/bench.h): the same descriptor writes (into a descriptor of its
 * own) and the same bounded poll, a RAM store in place of the doorbell.
 * No data moves: the device moves it, as part of the trap.  Always 0.
 */
int fw_cfg_dma_read_control(u16 key, void *buf, u32 len);

#endif
