/*
 * tests/host/test_model.c - the exit-count model against hand-worked cases
 * and against a unit-by-unit simulation of KVM's emulator loop.
 */
#include "tests/host/check.h"
#include "kernel/model.h"

/* Brute force: walk unit by unit, start a new exit whenever the chunk is
 * full (1024 B) or the next unit would start on a new page. */
static uint32_t brute_rep_in(uint64_t addr, uint32_t bytes, uint32_t width)
{
	uint32_t exits = 0, in_chunk = 0, units = bytes / width, i;
	uint64_t chunk_page = 0;

	for (i = 0; i < units; i++, addr += width) {
		bool fits = in_chunk && (in_chunk + 1) * width <= 1024 &&
			    (addr + width - 1) / 4096 == chunk_page;
		if (!fits) {
			exits++;
			in_chunk = 0;
			chunk_page = addr / 4096;
		}
		in_chunk++;
	}
	return exits;
}

static void test_rep_in_cases(void)
{
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 1, 1), 1);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 1024, 1), 1);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 1025, 1), 2);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 4096, 1), 4);   /* DESIGN.md: measured 4 */
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 65536, 1), 64);
	/* 512 B before a page end: 512 | 1024 1024 1024 | 512 */
	CHECK_EQ_U64(model_rep_in_exits(0x10000 + 3584, 4096, 1), 5);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 512, 2), 1);    /* one IDE sector */
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 0, 1), 0);
}

static void test_rep_in_vs_brute(void)
{
	static const uint32_t widths[] = { 1, 2, 4 };
	static const uint32_t sizes[] = { 1, 4, 16, 512, 1000, 1024, 2048, 4096, 5000, 16384 };
	static const uint32_t offs[] = { 0, 2, 512, 1020, 3584, 4092, 4095 };
	unsigned w, s, o;

	for (w = 0; w < 3; w++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
				uint64_t a = 0x200000 + offs[o];
				uint32_t got = model_rep_in_exits(a, sizes[s], widths[w]);
				uint32_t want = brute_rep_in(a, sizes[s], widths[w]);
				CHECKF(got == want, "w=%u size=%u off=%u: model %u, brute %u",
				       widths[w], sizes[s], offs[o], got, want);
			}
}

static void test_rep_out_kernel(void)
{
	CHECK_EQ_U64(model_rep_out_kernel_exits(1), 1);
	CHECK_EQ_U64(model_rep_out_kernel_exits(1024), 1);
	CHECK_EQ_U64(model_rep_out_kernel_exits(1025), 2);
	CHECK_EQ_U64(model_rep_out_kernel_exits(4096), 4);
	CHECK_EQ_U64(model_rep_out_kernel_exits(0), 0);
}

int main(void)
{
	RUN(test_rep_in_cases, "model: rep ins hand-worked cases");
	RUN(test_rep_in_vs_brute, "model: rep ins against a unit-by-unit walk");
	RUN(test_rep_out_kernel, "model: rep outs to an in-kernel port");
	return check_summary();
}
