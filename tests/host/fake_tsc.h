/*
 * tests/host/fake_tsc.h - a fake time-stamp counter for host tests
 * (reached through tests/host/shadow/arch/x86/tsc.h).  Time moves only
 * when the test moves it: each read adds fake_tsc_read_cost (so an empty
 * timed region costs exactly that), and fake ops and devices add what they
 * "take" to fake_tsc_now.
 */
#ifndef TESTS_HOST_FAKE_TSC_H
#define TESTS_HOST_FAKE_TSC_H

#include "lib/types.h"

extern u64 fake_tsc_now;
extern u64 fake_tsc_read_cost;

static inline u64 tsc_begin(void)
{
	fake_tsc_now += fake_tsc_read_cost;
	return fake_tsc_now;
}

static inline u64 tsc_end(void)
{
	fake_tsc_now += fake_tsc_read_cost;
	return fake_tsc_now;
}

#endif
