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

#endif
