/*
 * tests/host/c/test_tsc_check.c - platform/tsc_check.c against a fake ACPI
 * PM timer on the fake clock: a timer that ticks with the TSC gives the
 * TSC's frequency; one that never moves ends the wait after
 * TSC_CHECK_WAIT_MS by the clock, with -ETIMEDOUT and no figure.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_tsc.h"
#include "arch/x86/tsc.h"
#include "drivers/acpi_pm.h"
#include "platform/tsc_check.h"

#define PM_BASE    0xb000
#define PM_HZ      3579545u
#define TRUE_KHZ   2000000u               /* the fake TSC's rate */
#define POLL_COST  20000u                 /* cycles a timer read takes */
#define POLL_MAX   1000000u               /* far past any bound */

u16 acpi_pm_base(void)
{
	return PM_BASE;
}

static bool pm_stuck;
static u32 polls;

/* The PM timer: TRUE_KHZ TSC cycles a ms; stuck: always the same value.
 * After POLL_MAX reads it moves anyway, so an unbounded wait ends (and
 * fails the test) instead of hanging it. */
static u32 pm_read(u16 port, u8 width)
{
	(void)width;
	if (port != PM_BASE + ACPI_PM_TMR)
		return 0;
	fake_tsc_now += POLL_COST;
	if (pm_stuck && ++polls <= POLL_MAX)
		return 0x123456;
	return (u32)(fake_tsc_now * PM_HZ / (TRUE_KHZ * 1000ull)) & 0xffffff;
}

static void setup(bool stuck)
{
	fake_io_reset();
	fake_io_read_hook = pm_read;
	fake_tsc_on = true;
	fake_tsc_read_cost = 20;
	fake_tsc_now = 1000;
	pm_stuck = stuck;
	polls = 0;
	tsc.khz = TRUE_KHZ;
	tsc.source = "pit";
	tsc.guess = false;
	memset(&tsc_check, 0, sizeof(tsc_check));
}

static void test_ticking_timer_measures_the_tsc(void)
{
	s64 diff;

	setup(false);
	CHECK_EQ_S64(tsc_check_run(), 0);
	CHECK(tsc_check.done);
	diff = (s64)tsc_check.khz - TRUE_KHZ;
	CHECKF(diff * 1000 < TRUE_KHZ && -diff * 1000 < TRUE_KHZ, "%llu kHz",
	       (unsigned long long)tsc_check.khz);
	CHECK(!tsc_check.disagree);
}

static void test_stuck_timer_times_out(void)
{
	u64 t0;

	setup(true);
	t0 = fake_tsc_now;
	CHECK_EQ_S64(tsc_check_run(), -ETIMEDOUT);
	CHECKF(polls <= POLL_MAX, "the wait outlasted %u reads", POLL_MAX);
	CHECK(!tsc_check.done);
	CHECK_EQ_U64(tsc_check.khz, 0);
	CHECK(fake_tsc_now - t0 >= (u64)TSC_CHECK_WAIT_MS * TRUE_KHZ);
	CHECK(fake_tsc_now - t0 < (u64)TSC_CHECK_WAIT_MS * TRUE_KHZ + 4 * POLL_COST);
}

int main(void)
{
	RUN(test_ticking_timer_measures_the_tsc, "tsc_check: a ticking PM timer gives the TSC rate within 0.1 %");
	RUN(test_stuck_timer_times_out, "tsc_check: a PM timer that never moves times out after TSC_CHECK_WAIT_MS");
	return check_summary();
}
