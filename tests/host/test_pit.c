/*
 * tests/host/test_pit.c - the TSC frequency from the PIT (arch/x86/tsc.c)
 * on a machine whose CPUID offers nothing (the fake CPU offers
 * no leaves, tests/host/fake_cpu.h) and a fake PIT channel 2 whose one-shot ends after a known number
 * of fake TSC cycles: the calibration must give the TSC's true frequency.
 */
#include "tests/host/check.h"
#include "tests/host/fake_io.h"
#include "tests/host/fake_tsc.h"
#include "arch/x86/tsc.h"
#include "arch/x86/cpuinfo.h"

struct hv_info hv;

#define TRUE_KHZ   2445406u       /* this project's machines' TSC */
#define PIT_HZ     1193182u
#define POLL_COST  50u            /* cycles a status poll takes */

static u32 pit_count;
static u64 pit_deadline;
static bool pit_armed, pit_high_next;

static u32 io_read(u16 port, u8 width)
{
	(void)width;
	if (port != 0x61)
		return 0;
	fake_tsc_now += POLL_COST;
	return pit_armed && fake_tsc_now >= pit_deadline ? 0x20 : 0;
}

/* mode 0 on channel 2: lo byte, then hi byte starts the count */
static void io_write(u16 port, u8 width, u32 value)
{
	(void)width;
	if (port == 0x43) {
		pit_high_next = false;
		pit_armed = false;
	} else if (port == 0x42 && !pit_high_next) {
		pit_count = value & 0xff;
		pit_high_next = true;
	} else if (port == 0x42) {
		pit_count |= (value & 0xff) << 8;
		pit_deadline = fake_tsc_now + (u64)pit_count * TRUE_KHZ * 1000 / PIT_HZ;
		pit_armed = true;
		pit_high_next = false;
	}
}

static void test_pit_calibration(void)
{
	s64 diff;

	fake_io_read_hook = io_read;
	fake_io_write_hook = io_write;
	fake_tsc_now = 12345;
	fake_tsc_on = true;
	fake_tsc_read_cost = 20;
	tsc_init();
	CHECK_STR(tsc.source, "pit");
	diff = (s64)tsc.khz - (s64)TRUE_KHZ;
	CHECKF(diff * 1000 < (s64)TRUE_KHZ && -diff * 1000 < (s64)TRUE_KHZ,
	       "PIT calibration gave %llu kHz, the TSC runs at %u kHz",
	       (unsigned long long)tsc.khz, TRUE_KHZ);
	/* one millisecond's cycles are 1e9 ps */
	tsc.khz = TRUE_KHZ;
	CHECK_EQ_U64(tsc_cycles_to_ps(TRUE_KHZ), 1000000000ull);
}

int main(void)
{
	RUN(test_pit_calibration, "pit: PIT one-shot calibration gives the TSC frequency within 0.1 %");
	return check_summary();
}
