/*
 * kernel/model.h - how many VM exits KVM takes for a port I/O operation,
 * by the model in docs/design.md (read from KVM's x86 emulator).  The host runner's
 * measured counts are the truth; this is what we expect.
 */
#ifndef KERNEL_MODEL_H
#define KERNEL_MODEL_H

#include "lib/types.h"

/* The emulator's PIO read-ahead cache (struct read_cache) holds this much. */
#define MODEL_PIO_CACHE_BYTES 1024
/* Without read-ahead, a REP string instruction re-enters the guest after
 * this many iterations. */
#define MODEL_REP_ITER_CHUNK  1024
#define MODEL_PAGE_SIZE       4096

/*
 * `rep ins` of `bytes` into a buffer at address `addr` (DF=0): every exit
 * fills at most the read-ahead cache, and at most as many *units* as there
 * are *bytes* left in the page (KVM's rule, see model.c): 8-bit chunks end
 * at a page end, 16/32-bit chunks may run past it.
 */
u32 model_rep_in_exits(u64 addr, u32 bytes, u32 width);

/* `rep outs` to a port KVM handles itself: one exit per chunk of
 * iterations.  (To a QEMU port every unit is its own exit.) */
u32 model_rep_out_kernel_exits(u32 units);

#endif
