/*
 * tests/host/c/fake_tsc.h - a fake time-stamp counter for host tests
 * (reached through tests/host/c/shadow/arch/x86/tsc.h).  Time moves only
 * when the test moves it (once it sets fake_tsc_on; until then the reads
 * are the host's real TSC): each read adds fake_tsc_read_cost (so an empty
 * timed region costs exactly that), and fake ops and devices add what they
 * "take" to fake_tsc_now.
 */
#ifndef TESTS_HOST_FAKE_TSC_H
#define TESTS_HOST_FAKE_TSC_H

#include "lib/types.h"

extern bool fake_tsc_on;         /* off: the host's real TSC */
extern u64 fake_tsc_now;
extern u64 fake_tsc_read_cost;

#endif
