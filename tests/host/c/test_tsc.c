/*
 * tests/host/c/test_tsc.c - arch/x86/tsc.c's choice of TSC frequency source,
 * on a fake CPU (tests/host/c/fake_cpu.h) and fake ports: the sources in
 * order of trust, CPUID 0x16 (the base frequency) only as a flagged guess.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_cpu.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_tsc.h"
#include "arch/x86/tsc.h"
#include "arch/x86/cpuinfo.h"

struct hv_info hv;

#define PVCLOCK_MUL_OFF   24     /* tsc_to_system_mul in the 32-byte record */
#define PORT_NMI_SC       0x61
#define NMI_SC_OUT2       0x20

/* Plays KVM: the pvclock record at the written address gets pv_mul and
 * pv_shift, ns = (tsc << shift) * mul >> 32 (a negative shift shifts
 * right): mul 2^31, shift 0 is a 2 GHz TSC. */
static u32 pv_mul = 1u << 31;
static s8 pv_shift;

static void kvm_wrmsr(u32 msr, u64 value)
{
	u8 *rec = (u8 *)(uintptr_t)(value & ~1ull);

	(void)msr;
	if (value & 1) {
		memcpy(rec + PVCLOCK_MUL_OFF, &pv_mul, sizeof(pv_mul));
		rec[PVCLOCK_MUL_OFF + 4] = (u8)pv_shift;
	}
}

/* The PIT's OUT2 rises after a few polls. */
static u32 pit_reads;
static u32 pit_port(u16 port, u8 width)
{
	(void)width;
	return port == PORT_NMI_SC && ++pit_reads % 50 == 0 ? NMI_SC_OUT2 : 0;
}

static void cpu_with(u32 max_leaf, bool kvm)
{
	fake_cpu_reset();
	fake_io_reset();
	fake_io_read_hook = pit_port;
	memset(&hv, 0, sizeof(hv));
	memset(&tsc, 0, sizeof(tsc));
	fake_cpuid_set(0, max_leaf, 0, 0, 0);
	fake_cpuid_set(0x16, 2100, 2100, 100, 0);	/* base 2.1 GHz */
	if (kvm) {
		hv.present = hv.kvm = true;
		hv.max_leaf = 0x40000001;
		fake_cpuid_set(0x40000001, 1u << 3, 0, 0, 0);	/* CLOCKSOURCE2 */
		fake_wrmsr_hook = kvm_wrmsr;
	}
}

static void test_crystal_first(void)
{
	cpu_with(0x16, false);
	fake_cpuid_set(0x15, 2, 166, 24000000, 0);	/* 24 MHz * 166/2 */
	tsc_init();
	CHECK_STR(tsc.source, "cpuid15");
	CHECK_EQ_U64(tsc.khz, 1992000);
	CHECK(!tsc.guess);
}

/* CPUID 0x15 without a crystal, 0x16 present: the hypervisor leaf wins. */
static void test_hv_leaf_over_base_frequency(void)
{
	cpu_with(0x16, false);
	fake_cpuid_set(0x15, 2, 166, 0, 0);
	hv.present = true;
	hv.max_leaf = 0x40000010;
	fake_cpuid_set(0x40000010, 2445406, 1000000, 0, 0);
	tsc_init();
	CHECK_STR(tsc.source, "hv-leaf");
	CHECK_EQ_U64(tsc.khz, 2445406);
	CHECK(!tsc.guess);
}

static void test_kvmclock_over_base_frequency(void)
{
	cpu_with(0x16, true);
	pv_mul = 1u << 31;
	pv_shift = 0;
	tsc_init();
	CHECK_STR(tsc.source, "kvmclock");
	CHECK_EQ_U64(tsc.khz, 2000000);
	CHECK(!tsc.guess);
}

/* The scales KVM picks (mul in [2^31, 2^32)): a 2.3 GHz TSC is shifted
 * right once (shift -1, mul 2^32 / 1.15), a 600 MHz one left once (shift
 * 1, mul 2^32 / 1.2).  Swapping the shift's direction reads 575 MHz and
 * 2.4 GHz. */
static void test_kvmclock_shift(void)
{
	cpu_with(0x16, true);
	pv_mul = (u32)((1000000000ull << 32) / 1150000000ull);
	pv_shift = -1;
	tsc_init();
	CHECK_STR(tsc.source, "kvmclock");
	CHECK(tsc.khz >= 2299990 && tsc.khz <= 2300010);
	cpu_with(0x16, true);
	pv_mul = (u32)((1000000000ull << 32) / 1200000000ull);
	pv_shift = 1;
	tsc_init();
	CHECK(tsc.khz >= 599990 && tsc.khz <= 600010);
	pv_mul = 1u << 31;
	pv_shift = 0;
}

/* A measured PIT calibration beats the base frequency too. */
static void test_pit_over_base_frequency(void)
{
	cpu_with(0x16, false);
	tsc_init();
	CHECK_STR(tsc.source, "pit");
	CHECK(tsc.khz > 0);
	CHECK(!tsc.guess);
	CHECK(pit_reads >= 3 * 50);
}

/* A PIT whose calibration measures nothing: OUT2 rises, but the clock
 * does not move between the reads (fake TSC, no read cost), so every
 * round counts 0 ticks and the PIT gives no frequency. */
static void no_measured_source(u32 max_leaf)
{
	cpu_with(max_leaf, false);
	fake_tsc_on = true;
	fake_tsc_now = 0;
	fake_tsc_read_cost = 0;
	pit_reads = 0;
}

/* Nothing measured it: CPUID 0x16's base frequency is used, as a guess. */
static void test_base_frequency_is_a_flagged_guess(void)
{
	no_measured_source(0x16);
	tsc_init();
	fake_tsc_on = false;
	CHECK_STR(tsc.source, "cpuid16-base");
	CHECK_EQ_U64(tsc.khz, 2100000);
	CHECK(tsc.guess);
	CHECK(pit_reads >= 3 * 50);     /* the PIT was tried first */
}

/* EAX[15:0] is the frequency in MHz; the bits above are reserved. */
static void test_base_frequency_reads_the_low_16_bits(void)
{
	no_measured_source(0x16);
	fake_cpu_reset();
	fake_cpuid_set(0, 0x16, 0, 0, 0);
	fake_cpuid_set(0x16, 0xabcd0000u | 3000, 3000, 100, 0);
	tsc_init();
	fake_tsc_on = false;
	CHECK_STR(tsc.source, "cpuid16-base");
	CHECK_EQ_U64(tsc.khz, 3000000);
	CHECK(tsc.guess);
}

/* Below leaf 0x16 (or a leaf that reads 0) nothing answers: 1 GHz is
 * assumed, flagged, and a cycle then reads as one nanosecond. */
static void test_nothing_answers_assumes_1ghz(void)
{
	static const u32 leaves[] = { 0x0d, 0x16 };

	for (u32 i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		no_measured_source(leaves[i]);
		fake_cpu_reset();
		fake_cpuid_set(0, leaves[i], 0, 0, 0);
		fake_cpuid_set(0x16, 0, 0, 0, 0);
		tsc_init();
		fake_tsc_on = false;
		CHECK_STR(tsc.source, "assumed-1GHz");
		CHECK_EQ_U64(tsc.khz, 1000000);
		CHECK(tsc.guess);
		CHECK_EQ_U64(tsc_cycles_to_ps(1234567), 1234567000ull);
	}
}

/* A source that measured the rate is not a guess, even with 0x16 there. */
static void test_measured_source_clears_the_guess(void)
{
	no_measured_source(0x16);
	tsc_init();
	CHECK(tsc.guess);
	fake_tsc_on = false;
	cpu_with(0x16, true);
	tsc_init();
	CHECK_STR(tsc.source, "kvmclock");
	CHECK(!tsc.guess);
}

int main(void)
{
	RUN(test_crystal_first, "tsc: CPUID 0x15 with a crystal comes first");
	RUN(test_hv_leaf_over_base_frequency, "tsc: hypervisor leaf beats CPUID 0x16 (base frequency)");
	RUN(test_kvmclock_over_base_frequency, "tsc: kvmclock beats CPUID 0x16");
	RUN(test_kvmclock_shift, "tsc: kvmclock's shift in both directions");
	RUN(test_pit_over_base_frequency, "tsc: a PIT calibration beats CPUID 0x16");
	RUN(test_base_frequency_is_a_flagged_guess, "tsc: nothing measured: CPUID 0x16 base frequency, flagged as a guess");
	RUN(test_base_frequency_reads_the_low_16_bits, "tsc: CPUID 0x16 EAX[15:0] is the MHz, the high bits are reserved");
	RUN(test_nothing_answers_assumes_1ghz, "tsc: no CPUID 0x16 answer: 1 GHz assumed, flagged, 1 cycle = 1 ns");
	RUN(test_measured_source_clears_the_guess, "tsc: a measured source clears the guess flag");
	return check_summary();
}
