/*
 * kernel/model.c - the exit-count model (see kernel/model.h).  Pure.
 */
#include "kernel/model.h"

u32 model_rep_in_exits(u64 addr, u32 bytes, u32 width)
{
	u32 units = width ? bytes / width : 0;
	u32 exits = 0;
	u32 room, n;

	while (units) {
		room = MODEL_PAGE_SIZE - (u32)(addr % MODEL_PAGE_SIZE);
		n = room / width;
		if (n > MODEL_PIO_CACHE_BYTES / width)
			n = MODEL_PIO_CACHE_BYTES / width;
		if (n == 0)
			n = 1;      /* a unit straddling a page end goes alone */
		if (n > units)
			n = units;
		units -= n;
		addr += (u64)n * width;
		exits++;
	}
	return exits;
}

u32 model_rep_out_kernel_exits(u32 units)
{
	return (units + MODEL_REP_ITER_CHUNK - 1) / MODEL_REP_ITER_CHUNK;
}
