/*
 * kernel/phase_sync.h - phase boundaries agreed with the host runner, so it
 * can read the hypervisor's exit counters (QMP query-stats) exactly around
 * a case's measured samples (kernel word sync=on; the runner adds it when
 * it counts exits).
 */
#ifndef KERNEL_PHASE_SYNC_H
#define KERNEL_PHASE_SYNC_H

#include "lib/types.h"

/* The four phase points of one case: measured begin/end, idle begin/end. */
enum sync_phase { SYNC_M0, SYNC_M1, SYNC_I0, SYNC_I1, SYNC_PHASES };

struct sync_record {
	u32 polls[SYNC_PHASES];   /* LSR polls while waiting at each point */
	u32 timeouts;             /* points where no byte came in time */
	u64 idle_cycles;          /* length of the idle phase */
};

/*
 * Print the sync line for (case_name, phase) and wait, bounded by
 * SYNC_TIMEOUT_MS of TSC, for one byte on COM1.  Counts the polls into
 * rec; a timeout is counted and the run goes on.
 */
void sync_point(const char *case_name, enum sync_phase phase,
		struct sync_record *rec);

/* Spin on the TSC for `cycles` without any I/O (the idle phase). */
void sync_idle(u64 cycles);

#endif
