/*
 * tests/host/c/fake_console.h - host stand-in for kernel/console.c: kprintf
 * and console_write discard, tm_line keeps the "@tm" JSON lines so a test
 * can read what the guest would have reported; plus port hooks that put
 * only the fake fw_cfg device (tests/host/c/fake_fw_cfg.h) on the bus.
 */
#ifndef TESTS_HOST_FAKE_CONSOLE_H
#define TESTS_HOST_FAKE_CONSOLE_H

#include "lib/types.h"

#define FAKE_CONSOLE_LINES    256
#define FAKE_CONSOLE_LINE_MAX 2048

extern char fake_console_lines[FAKE_CONSOLE_LINES][FAKE_CONSOLE_LINE_MAX];
extern u32 fake_console_n;

/* fake_io hooks answering the fw_cfg ports (others float). */
u32 fake_console_fw_cfg_read(u16 port, u8 width);
void fake_console_fw_cfg_write(u16 port, u8 width, u32 value);

#endif
