/*
 * model/model.c - the exit-count model (see model/model.h).  Pure.
 */
#include "model/model.h"

/*
 * KVM (Linux v6.12 arch/x86/kvm/emulate.c, pio_in_emulated()) refills its
 * read-ahead cache with n = min3(in_page, sizeof(rc->data) / size, count)
 * units, where in_page is the *bytes* left in the page (DF=0) but is
 * compared with unit counts; each refill of a port QEMU answers is one
 * KVM_EXIT_IO with count n (x86.c, emulator_pio_in_out()).  So for 16- and
 * 32-bit units a chunk may run past a page end: 4096 B of insw at 512 B
 * before a page end take 4 exits, not 5.
 */
u32 model_rep_in_exits(u64 addr, u32 bytes, u32 width)
{
	u32 units = width ? bytes / width : 0;
	u32 exits = 0;
	u32 in_page, n;

	while (units) {
		in_page = MODEL_PAGE_SIZE - (u32)(addr % MODEL_PAGE_SIZE);
		n = in_page;			/* bytes, compared with units */
		if (n > MODEL_PIO_CACHE_BYTES / width)
			n = MODEL_PIO_CACHE_BYTES / width;
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
