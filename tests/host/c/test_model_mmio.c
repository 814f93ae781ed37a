/*
 * tests/host/c/test_model_mmio.c - the MMIO / coalesced exit model
 * (model/model_mmio.c) against hand-worked cases from KVM's source.
 */
#include "tests/host/c/check.h"
#include "model/model.h"

static void test_access(void)
{
	CHECK_EQ_U64(model_mmio_access_exits(0xff000000, 1), 1);
	CHECK_EQ_U64(model_mmio_access_exits(0xff000000, 8), 1);   /* one 8-byte fragment */
	CHECK_EQ_U64(model_mmio_access_exits(0xff000ffc, 8), 2);   /* straddles a page */
	CHECK_EQ_U64(model_mmio_access_exits(0xff000ff8, 8), 1);   /* ends on the page end */
	CHECK_EQ_U64(model_mmio_access_exits(0xff000000, 0), 0);
}

static void test_string(void)
{
	CHECK_EQ_U64(model_mmio_string_exits(512, true), 512);     /* writes: one per unit */
	CHECK_EQ_U64(model_mmio_string_exits(512, false), 1);      /* reads, in-kernel */
	CHECK_EQ_U64(model_mmio_string_exits(1, false), 1);
	CHECK_EQ_U64(model_mmio_string_exits(1024, false), 1);
	CHECK_EQ_U64(model_mmio_string_exits(1025, false), 2);
	CHECK_EQ_U64(model_mmio_string_exits(0, false), 0);
}

static void test_coalesced(void)
{
	CHECK_EQ_U64(model_coalesced_user_exits_milli(170), 1000);
	CHECK_EQ_U64(model_coalesced_user_exits_milli(64), 376);    /* 64/170 = 0.3765 */
	CHECK_EQ_U64(model_coalesced_user_exits_milli(1), 6);
	CHECK_EQ_U64(model_coalesced_user_exits_milli(0), 0);
	CHECK_EQ_U64(model_coalesced_user_exits_milli(4096), 24094);
}

/* pci-testdev's datamatch register is at 2050 (hw/misc/pci-testdev.c) */
static void test_qemu_piece(void)
{
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 1, true), 1);
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 2, true), 2);
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 4, true), 2);    /* 2050: 2 + 2 */
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 8, true), 2);    /* 2 + 2 + 2 + 2 */
	CHECK_EQ_U64(model_qemu_mmio_piece(0x801, 2, true), 1);
	CHECK_EQ_U64(model_qemu_mmio_piece(0x800, 8, true), 4);    /* at most 4 */
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 2, false), 2);   /* TCG: aligned, whole */
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 4, false), 1);   /* TCG: byte stores */
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 8, false), 1);
	CHECK_EQ_U64(model_qemu_mmio_piece(0x800, 8, false), 8);
	CHECK_EQ_U64(model_qemu_mmio_piece(0x802, 0, true), 0);
}

int main(void)
{
	RUN(test_access, "model_mmio: one exit per <= 8-byte fragment, two across a page");
	RUN(test_string, "model_mmio: rep movs/stos: user writes per unit, else per 1024");
	RUN(test_coalesced, "model_mmio: one round trip to QEMU per 170 coalesced writes");
	RUN(test_qemu_piece, "model_mmio: QEMU's piece at the address: KVM by alignment, TCG bytes");
	return check_summary();
}
