/*
 * tests/host/c/test_pit.c - the TSC frequency from the PIT (arch/x86/tsc.c)
 * on a machine whose CPUID offers nothing (the fake CPU offers
 * no leaves, tests/host/c/fake_cpu.h) and a fake PIT channel 2 whose one-shot ends after a known number
 * of fake TSC cycles: the calibration must give the TSC's true frequency.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_tsc.h"
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

/* A PIT whose OUT2 never rises: each round gives up by the clock after
 * PIT_WAIT_US counted at TSC_MAX_KHZ (the rate is unknown yet), and the
 * frequency comes from the next source.  After DEAD_POLL_MAX polls (far
 * past the bound) the fake gives in, so an unbounded wait fails here
 * instead of hanging. */
#define DEAD_POLL_CYCLES 10000000u        /* 1 ms at 10 GHz */
#define DEAD_POLL_MAX    1000000u
static u32 dead_polls;

static u32 dead_read(u16 port, u8 width)
{
	(void)width;
	if (port != 0x61)
		return 0;
	fake_tsc_now += DEAD_POLL_CYCLES;
	return ++dead_polls > DEAD_POLL_MAX ? 0x20 : 0;
}

static void test_pit_that_never_fires(void)
{
	u64 t0;

	fake_io_read_hook = dead_read;
	fake_io_write_hook = io_write;
	fake_tsc_on = true;
	fake_tsc_read_cost = 20;
	dead_polls = 0;
	tsc.khz = 1;                  /* whatever was there: tsc_init forgets it */
	t0 = fake_tsc_now;
	tsc_init();
	CHECKF(dead_polls <= DEAD_POLL_MAX, "the PIT wait outlasted %u polls", DEAD_POLL_MAX);
	CHECK(strcmp(tsc.source, "pit") != 0);
	CHECK(tsc.guess);
	/* three rounds of 1 s each at 10 GHz, a few polls over each (the
	 * round reads port 0x61 once before it starts the clock) */
	CHECK(fake_tsc_now - t0 >= 3 * 10000000000ull);
	CHECK(fake_tsc_now - t0 < 3 * (10000000000ull + 4ull * DEAD_POLL_CYCLES));
}

int main(void)
{
	RUN(test_pit_calibration, "pit: PIT one-shot calibration gives the TSC frequency within 0.1 %");
	RUN(test_pit_that_never_fires, "pit: a PIT that never fires ends each round after 1 s by the clock");
	return check_summary();
}
