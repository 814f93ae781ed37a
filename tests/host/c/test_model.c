/*
 * tests/host/c/test_model.c - the exit-count model against hand-worked cases
 * and against a transcription of KVM's emulator (not of the model).
 */
#include "tests/host/c/check.h"
#include "model/model.h"

/*
 * KVM's `rep ins` emulation as read in Linux v6.12, written out as its
 * state machine: arch/x86/kvm/emulate.c pio_in_emulated() refills
 * struct read_cache { u8 data[1024]; pos; end; } when pos == end, with
 *   count   = RCX (address-masked), in_page = PAGE_SIZE - offset_in_page(RDI)
 *   n       = min3(in_page, sizeof(rc->data) / size, count); n == 0 -> 1
 * one userspace exit per refill (x86.c emulator_pio_in_out(): KVM_EXIT_IO,
 * io.count = n); then, for REP with DF=0, the string fast path hands all
 * (end - pos) / size units to writeback at once (dst.count), RCX and RDI
 * advance by them, and the instruction restarts until RCX is 0.
 */
struct kvm_read_cache {
	uint8_t data[1024];
	uint32_t pos, end;
};

static uint32_t kvm_rep_ins_refills(uint64_t rdi, uint32_t bytes, uint32_t size)
{
	struct kvm_read_cache rc = { .pos = 0, .end = 0 };
	uint64_t rcx = bytes / size;
	uint32_t refills = 0, in_page, n, dst_count;

	while (rcx) {
		if (rc.pos == rc.end) {		/* refill pio read ahead */
			in_page = 4096 - (uint32_t)(rdi & 4095);
			n = in_page;
			if (n > sizeof(rc.data) / size)
				n = sizeof(rc.data) / size;
			if (n > rcx)
				n = (uint32_t)rcx;
			if (n == 0)
				n = 1;
			rc.pos = rc.end = 0;
			refills++;		/* KVM_EXIT_IO, count n */
			rc.end = n * size;
		}
		dst_count = (rc.end - rc.pos) / size;	/* OP_MEM_STR */
		rc.pos = rc.end;
		rcx -= dst_count;
		rdi += (uint64_t)dst_count * size;
	}
	return refills;
}

static void test_rep_in_cases(void)
{
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 1, 1), 1);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 1024, 1), 1);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 1025, 1), 2);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 4096, 1), 4);   /* docs/design.md: measured 4 */
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 65536, 1), 64);
	/* 512 B before a page end: 512 | 1024 1024 1024 | 512 */
	CHECK_EQ_U64(model_rep_in_exits(0x10000 + 3584, 4096, 1), 5);
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 512, 2), 1);    /* one IDE sector */
	CHECK_EQ_U64(model_rep_in_exits(0x10000, 0, 1), 0);
	/* 16/32-bit units: KVM compares bytes left in the page with a unit
	 * count, so the chunk runs past the page end (issue 12, item 16) */
	CHECK_EQ_U64(model_rep_in_exits(0x10000 + 512, 4096, 2), 4);
	CHECK_EQ_U64(model_rep_in_exits(0x10000 + 3584, 4096, 2), 4);
	CHECK_EQ_U64(model_rep_in_exits(0x10000 + 512, 4096, 4), 4);
	CHECK_EQ_U64(model_rep_in_exits(0x10000 + 3584, 4096, 4), 4);
}

static void test_rep_in_vs_brute(void)
{
	static const uint32_t widths[] = { 1, 2, 4 };
	static const uint32_t sizes[] = { 1, 4, 16, 512, 1000, 1024, 2048, 4096, 5000, 16384 };
	static const uint32_t offs[] = { 0, 2, 256, 512, 1020, 2048, 3584, 3840, 4000, 4092, 4094, 4095 };
	unsigned w, s, o;

	for (w = 0; w < 3; w++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
				uint64_t a = 0x200000 + offs[o];
				uint32_t got = model_rep_in_exits(a, sizes[s], widths[w]);
				uint32_t want = kvm_rep_ins_refills(a, sizes[s], widths[w]);
				CHECKF(got == want, "w=%u size=%u off=%u: model %u, KVM %u",
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
	RUN(test_rep_in_vs_brute, "model: rep ins against a transcription of KVM's pio_in_emulated");
	RUN(test_rep_out_kernel, "model: rep outs to an in-kernel port");
	return check_summary();
}
