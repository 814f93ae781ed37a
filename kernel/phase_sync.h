/*
 * kernel/phase_sync.h - phase boundaries agreed with the host runner, so it
 * can read the hypervisor's exit counters (QMP query-stats, the host's KVM
 * tracepoints) exactly around a case's operations (kernel word sync=on; the
 * runner adds it when it counts exits).
 *
 * The points of one case, in order, and the windows between them:
 *   e0 -> m0   empty window: the sync traffic alone (the host subtracts it)
 *   m0 -> m1   the timed samples
 *   c0 -> c1   only when the host answers m1 with SYNC_REPLY_COUNT: one
 *              sample's worth of ops again, untimed, for a tracing counter
 *              that would slow the timed samples down
 * Every window begins with the guest reading the host's byte and ends with
 * one sync line of the same length, so their traffic is the same.
 */
#ifndef KERNEL_PHASE_SYNC_H
#define KERNEL_PHASE_SYNC_H

#include "lib/types.h"

enum sync_phase { SYNC_E0, SYNC_M0, SYNC_M1, SYNC_C0, SYNC_C1, SYNC_PHASES };

/* The host's byte after a sync line: go on, or (at m1) run the c window. */
#define SYNC_REPLY_GO     's'
#define SYNC_REPLY_COUNT  'c'

struct sync_record {
	u32 polls[SYNC_PHASES];   /* LSR polls while waiting at each point */
	u32 timeouts;             /* points where no byte came in time */
	u64 window_cycles;        /* TSC length of the timed window */
	u64 count_ops;            /* ops run in the c window (0: none) */
};

struct jw;

/*
 * Print the sync line for (case_name, phase) and wait, bounded by
 * SYNC_TIMEOUT_MS of TSC, for one byte on COM1.  Counts the polls into
 * rec; a timeout is counted and the run goes on.  Returns the byte, or
 * -ETIMEDOUT.
 */
int sync_point(const char *case_name, enum sync_phase phase,
	       struct sync_record *rec);

/* e0 and m0: the empty window, then the start of the timed one. */
void sync_begin(const char *case_name, struct sync_record *rec);

/* m1 after `cycles` of timed samples; true when the host asks for the
 * untimed count window (the caller then runs it between c0 and c1). */
bool sync_end(const char *case_name, struct sync_record *rec, u64 cycles);

/* The "sync" object of a result line: what the host needs to turn its
 * counter snapshots into exits per op. */
void sync_emit(struct jw *w, const struct sync_record *rec);

/* Once per boot: a SYNC_BACKGROUND_MS TSC spin between m0 and m1 of the
 * pseudo case "background", so the host can measure the exits a counter
 * collects per second without any I/O; a closing "report" sync line
 * carries the spin length and the sync record. */
void sync_background(void);

#endif
