/*
 * tests/host/c/test_uart.c - drivers/uart16550.c on the fake port bus and
 * the fake clock: bytes go out a FIFO's worth per status poll; a port
 * whose transmitter never empties is given up after TX_WAIT_MS by the
 * clock, and then costs no more polls.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_tsc.h"
#include "arch/x86/tsc.h"
#include "drivers/uart16550.h"

#define COM1_LSR    0x3fd
#define LSR_THRE    0x20
#define POLL_COST   1000000u              /* 1 ms at 1 GHz */
#define POLL_MAX    100000u               /* far past any bound */

static bool tx_stuck;
static u32 lsr_polls;

/* After POLL_MAX polls the stuck transmitter empties anyway, so an
 * unbounded wait ends (and fails the test) instead of hanging it. */
static u32 read_hook(u16 port, u8 width)
{
	(void)width;
	if (port != COM1_LSR)
		return 0;
	fake_tsc_now += POLL_COST;
	lsr_polls++;
	return tx_stuck && lsr_polls <= POLL_MAX ? 0 : LSR_THRE;
}

static void setup(bool stuck)
{
	fake_io_reset();
	fake_io_read_hook = read_hook;
	fake_tsc_on = true;
	fake_tsc_read_cost = 20;
	tsc.khz = 1000000;
	tx_stuck = stuck;
	lsr_polls = 0;
	uart_init();
}

static void test_a_poll_per_fifo(void)
{
	setup(false);
	uart_write("0123456789abcdef0123456789abcdef", 32);
	CHECK_EQ_U64(lsr_polls, 2);
}

static void test_stuck_transmitter_given_up_by_time(void)
{
	u64 t0;

	setup(true);
	t0 = fake_tsc_now;
	uart_write("x", 1);
	CHECKF(lsr_polls <= POLL_MAX, "the wait outlasted %u polls", POLL_MAX);
	CHECK(fake_tsc_now - t0 >= 1000ull * 1000000);
	CHECK(fake_tsc_now - t0 < 1000ull * 1000000 + 3 * POLL_COST);
	lsr_polls = 0;
	uart_write("0123456789abcdef0123456789abcdef", 32);
	CHECK_EQ_U64(lsr_polls, 0);          /* dead: no more waits */
}

int main(void)
{
	RUN(test_a_poll_per_fifo, "uart: one status poll per 16 bytes");
	RUN(test_stuck_transmitter_given_up_by_time, "uart: a transmitter that never empties is given up after 1000 ms");
	return check_summary();
}
