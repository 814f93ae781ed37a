/*
 * kernel/phase_sync.h - phase boundaries agreed with the host runner, so it
 * can read the hypervisor's exit counters (QMP query-stats, the host's KVM
 * tracepoints) exactly around a case's operations (kernel word sync=on; the
 * runner adds it when it counts exits).
 *
 * The points of one case, in order, and the windows between them:
 *   m0 -> m1   the timed samples
 *   c0 -> c1   only when the host answers m1 with SYNC_REPLY_COUNT: one
 *              sample's worth of ops again, untimed, for a tracing counter
 *              that would slow the timed samples down
 * A sync line names no case (the `case` line before it does), so every
 * sync line has the same length, and each starts with the UART's transmit
 * FIFO empty: the sync traffic of a window (reading the host's byte at its
 * start, the sync line at its end) costs the same exits in every window.
 * The host measures it once per boot, in the empty windows of
 * sync_background(), and subtracts it from every case; the polls at a
 * point, whose number depends on host latency, are reported so the host
 * can take them out too.
 */
#ifndef KERNEL_PHASE_SYNC_H
#define KERNEL_PHASE_SYNC_H

#include "lib/types.h"

/* A case's points (the background's e0 .. e5 and sp are its own). */
enum sync_phase { SYNC_M0, SYNC_M1, SYNC_C0, SYNC_C1, SYNC_PHASES };

/* The host's byte after a sync line: go on, or (at m1) run the c window. */
#define SYNC_REPLY_GO     's'
#define SYNC_REPLY_COUNT  'c'

/* Empty windows of the once-per-boot calibration (odd: a median of whole
 * exits stays whole). */
#define SYNC_CAL_WINDOWS  5

struct sync_record {
	u32 polls[SYNC_PHASES];   /* LSR polls while waiting at each point */
	u32 timeouts;             /* points where no byte came in time */
	u64 window_cycles;        /* TSC length of the timed window */
	u64 count_ops;            /* ops run in the c window (0: none) */
};

/*
 * Print the sync line for phase and wait, bounded by SYNC_TIMEOUT_MS of
 * TSC, for one byte on COM1.  Counts the polls into rec; a timeout is
 * counted and the run goes on.  Returns the byte, or -ETIMEDOUT.
 */
int sync_point(enum sync_phase phase, struct sync_record *rec);

/* m0: the start of the timed window. */
void sync_begin(struct sync_record *rec);

/* m1 after `cycles` of timed samples; true when the host asks for the
 * untimed count window (the caller then runs it between c0 and c1). */
bool sync_end(struct sync_record *rec, u64 cycles);

/* Once per boot, before any case: SYNC_CAL_WINDOWS empty windows (points
 * e0 .. e5: the sync traffic alone, which the host subtracts from every
 * case's window), then a SYNC_BACKGROUND_MS TSC spin (e5 .. sp), so the
 * host can measure the exits a counter collects per second without any
 * I/O; a closing "report" line carries the polls of every point and the
 * spin length. */
void sync_background(void);

#endif
