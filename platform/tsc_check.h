/*
 * platform/tsc_check.h - a second opinion on the TSC frequency from the ACPI
 * PM timer (3.579545 MHz, a fixed crystal QEMU emulates from the host's
 * clock), measured over TSC_CHECK_MS.  It replaces a guessed frequency and
 * cross-checks a chosen one (more than TSC_CHECK_WARN_PPM apart: a warning).
 */
#ifndef PLATFORM_TSC_CHECK_H
#define PLATFORM_TSC_CHECK_H

#include "lib/types.h"

#define TSC_CHECK_MS        50
#define TSC_CHECK_WARN_PPM  20000     /* 2 % */
/* the PM timer must cover TSC_CHECK_MS within this (by the TSC) */
#define TSC_CHECK_WAIT_MS   1000

struct tsc_check {
	bool done;          /* the PM timer was found and ticked */
	u64 khz;            /* TSC kHz measured against it */
	u32 ms;             /* over this long */
	s64 diff_ppm;       /* (chosen - measured) / measured, ppm */
	bool disagree;      /* |diff_ppm| > TSC_CHECK_WARN_PPM */
	bool replaced;      /* the chosen figure was a guess: now this */
};

extern struct tsc_check tsc_check;

/* After tsc_init(): measure, replace a guess, cross-check (the caller
 * warns when tsc_check.disagree).  0, -ENODEV without a PM timer, or
 * -ETIMEDOUT when it did not tick TSC_CHECK_MS in TSC_CHECK_WAIT_MS. */
int tsc_check_run(void);

/* Pure: TSC kHz from ticks counted over pm_ticks of the PM timer. */
u64 tsc_check_khz(u64 tsc_ticks, u32 pm_ticks);
/* Pure: (chosen - measured) / measured in ppm. */
s64 tsc_check_diff_ppm(u64 chosen_khz, u64 measured_khz);

#endif
