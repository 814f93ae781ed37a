/*
 * drivers/debug_exit.h - end the run through QEMU's isa-debug-exit device.
 */
#ifndef DRIVERS_DEBUG_EXIT_H
#define DRIVERS_DEBUG_EXIT_H

#include "lib/types.h"

/* Guest status codes; QEMU exits with (code << 1) | 1 (docs/reference.md). */
enum tm_status {
	TM_STATUS_OK = 0,
	TM_STATUS_CHECK_FAILED = 1,
	TM_STATUS_BAD_INPUT = 2,
	TM_STATUS_EXCEPTION = 3,
};

void __attribute__((noreturn)) debug_exit(enum tm_status code);

#endif
