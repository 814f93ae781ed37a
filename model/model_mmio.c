/*
 * model/model_mmio.c - the exit-count model for MMIO, ioeventfd and
 * coalesced I/O (see model/model.h).  Pure; kept apart from model.c's
 * port I/O rules.
 */
#include "model/model.h"

u32 model_mmio_access_exits(u64 addr, u32 width)
{
	u64 first = addr / MODEL_PAGE_SIZE, last = (addr + width - 1) / MODEL_PAGE_SIZE;

	if (!width)
		return 0;
	/* one fragment per page touched; a fragment holds at most 8 bytes */
	if (first != last)
		return 2;
	return (width + MODEL_MMIO_FRAGMENT - 1) / MODEL_MMIO_FRAGMENT;
}

u32 model_mmio_string_exits(u32 units, bool user_write)
{
	if (user_write)
		return units;
	return (units + MODEL_REP_ITER_CHUNK - 1) / MODEL_REP_ITER_CHUNK;
}

u32 model_coalesced_user_exits_milli(u32 writes)
{
	return (u32)(((u64)writes * 1000 + MODEL_COALESCED_RING / 2) / MODEL_COALESCED_RING);
}

u32 model_qemu_mmio_piece(u64 addr, u32 width, bool kvm_exit)
{
	u64 align = addr & -addr;     /* the largest power of two dividing addr */
	u32 piece = width;

	if (!width)
		return 0;
	if (!kvm_exit)
		return addr % width ? 1 : width;
	if (piece > MODEL_QEMU_MMIO_PIECE_MAX)
		piece = MODEL_QEMU_MMIO_PIECE_MAX;
	if (align && align < piece)
		piece = (u32)align;
	while (piece & (piece - 1))   /* pow2floor, as memory_access_size */
		piece &= piece - 1;
	return piece;
}
