/*
 * arch/x86/tsc.h - fenced time-stamp-counter reads and the TSC frequency.
 *
 * A timed region opens with `lfence; rdtsc` (earlier instructions finish
 * before the read) and closes with `rdtscp; lfence` when the CPU has RDTSCP
 * (the timed instructions finish first, later ones wait for the read), or
 * `lfence; rdtsc; lfence` when it does not.
 */
#ifndef ARCH_X86_TSC_H
#define ARCH_X86_TSC_H

#include "lib/types.h"

struct tsc_info {
	u64 khz;            /* TSC ticks per millisecond */
	const char *source; /* cpuid15, hv-leaf, kvmclock, pit, acpi-pm;
			       guesses: cpuid16-base, assumed-1GHz */
	bool guess;         /* source is a guess: time figures get a mark */
	bool invariant;     /* CPUID 0x80000007 EDX[8] */
	bool rdtscp;        /* close timed regions with RDTSCP */
};

extern struct tsc_info tsc;

static inline u64 tsc_begin(void)
{
	u32 lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

static inline u64 tsc_end(void)
{
	u32 lo, hi;
	if (tsc.rdtscp)
		__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
	else
		__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

/* Find RDTSCP, invariance and the frequency from the best source. */
void tsc_init(void);

/* Cycles -> nanoseconds x1000 (picoseconds) for fixed-point output. */
u64 tsc_cycles_to_ps(u64 cycles);

/* Busy-wait, bounded by the TSC; used for device settle times. */
void tsc_delay_us(u64 us);

/*
 * A wait bounded by time, not by a poll count:
 *	struct tsc_wait w = TSC_WAIT(bound_us);
 *	while (!ready())
 *		if (tsc_wait_over(&w))
 *			return -ETIMEDOUT;	(the error names bound_us)
 * The first miss starts the clock, so a device that is ready at once
 * costs no TSC read.  Before tsc_init() knows the rate (tsc.khz == 0) a
 * microsecond counts TSC_MAX_KHZ / 1000 cycles: the fastest plausible
 * TSC, so a wait then lasts at least its bound (longer on a slower TSC).
 */
#define TSC_MAX_KHZ 10000000ull       /* 10 GHz */
struct tsc_wait {
	u64 deadline;                  /* 0: not started */
	u64 us;
};
#define TSC_WAIT(bound_us) ((struct tsc_wait){ .deadline = 0, .us = (bound_us) })
bool tsc_wait_over(struct tsc_wait *w);

#endif
