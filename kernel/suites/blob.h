/*
 * kernel/suites/blob.h - the runner's fw_cfg blob (opt/trapmeter/blob), the
 * bytes suites pio and dma read and check.  Pure; tools/trapmeterlib/guest/
 * qemu.py make_blob writes the same bytes.
 */
#ifndef KERNEL_SUITES_BLOB_H
#define KERNEL_SUITES_BLOB_H

#include "lib/types.h"

/* Byte i of the blob. */
static inline u8 blob_byte(u32 i)
{
	return (u8)(i * 7 + (i >> 8) + 0x5a);
}

#endif
