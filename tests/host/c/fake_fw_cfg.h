/*
 * tests/host/c/fake_fw_cfg.h - QEMU's fw_cfg device (I/O port interface, no
 * DMA) on the fake port bus of tests/host/c/fake_io.h: the "QEMU" signature,
 * the ID item and a file directory, so drivers/fw_cfg.c and what uses it
 * (the pio suite's blob, the bench framework's plan) run unchanged.
 */
#ifndef TESTS_HOST_FAKE_FW_CFG_H
#define TESTS_HOST_FAKE_FW_CFG_H

#include "lib/types.h"

/* Cycles each data-port read adds to the fake clock (a "trap"). */
extern u64 fake_fw_cfg_read_cycles;

void fake_fw_cfg_reset(void);
/* Add a file item; data is not copied and must outlive the test. */
void fake_fw_cfg_add(const char *name, const void *data, u32 size);

/* Port handlers: true when the port is the device's. */
bool fake_fw_cfg_in(u16 port, u8 width, u32 *value);
bool fake_fw_cfg_out(u16 port, u8 width, u32 value);

#endif
