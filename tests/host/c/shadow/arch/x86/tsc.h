/*
 * tests/host/c/shadow/arch/x86/tsc.h - what "arch/x86/tsc.h" means in host
 * unit tests: the real header's types and declarations, with the fenced
 * TSC reads replaced by the fake clock of tests/host/c/fake_tsc.h, so the
 * bench framework and the PIT calibration run against known time.
 */
#ifndef TESTS_HOST_SHADOW_TSC_H
#define TESTS_HOST_SHADOW_TSC_H

#define tsc_begin tsc_begin_hw
#define tsc_end tsc_end_hw
#include "../../../../../../arch/x86/tsc.h"
#undef tsc_begin
#undef tsc_end

#include "tests/host/c/fake_tsc.h"

static inline u64 tsc_begin(void)
{
	if (!fake_tsc_on)
		return tsc_begin_hw();
	fake_tsc_now += fake_tsc_read_cost;
	return fake_tsc_now;
}

static inline u64 tsc_end(void)
{
	if (!fake_tsc_on)
		return tsc_end_hw();
	fake_tsc_now += fake_tsc_read_cost;
	return fake_tsc_now;
}


#endif
