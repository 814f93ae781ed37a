/*
 * kernel/phase_sync.c - phase sync with the host over COM1 (16550 at
 * 0x3f8; QEMU `-chardev stdio` feeds the runner's bytes to its RX).
 *
 * At each point the guest prints `@tm {"type":"sync",...}` and polls the
 * line status register until the host's byte arrives.  The host pauses the
 * VM, snapshots the exit counters, queues the byte and resumes, so the
 * counters are read while the guest sits in this wait.  Sync lines of one
 * case all have the same length, so the measured and the idle window carry
 * the same sync traffic and it cancels when the host subtracts them; the
 * polls, whose number depends on host latency, are reported so the host
 * can take them out too.
 */
#include "kernel/phase_sync.h"
#include "kernel/console.h"
#include "lib/json.h"
#include "drivers/uart16550.h"
#include "arch/x86/tsc.h"

#define SYNC_TIMEOUT_MS  5000     /* host answers in ms; never hang */
#define SYNC_LINE_MAX    160

static const char *const sync_phase_names[SYNC_PHASES] = {
	[SYNC_M0] = "m0", [SYNC_M1] = "m1", [SYNC_I0] = "i0", [SYNC_I1] = "i1",
};

/* Poll COM1 RX until a byte or the TSC deadline; returns the polls made. */
static u32 sync_wait(bool *timed_out)
{
	u64 deadline = tsc_begin() + (u64)SYNC_TIMEOUT_MS * tsc.khz;
	u32 polls = 0;

	*timed_out = false;
	for (;;) {
		polls++;
		if (uart_getc_timeout(0) >= 0)
			return polls;
		if (tsc_begin() > deadline) {
			*timed_out = true;
			return polls;
		}
	}
}

void sync_point(const char *case_name, enum sync_phase phase,
		struct sync_record *rec)
{
	char line[SYNC_LINE_MAX];
	struct jw w;
	bool timed_out;

	jw_init(&w, line, sizeof(line));
	jw_obj_begin(&w);
	jw_str(&w, "type", "sync");
	jw_str(&w, "case", case_name);
	jw_str(&w, "phase", sync_phase_names[phase]);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	rec->polls[phase] = sync_wait(&timed_out);
	if (timed_out)
		rec->timeouts++;
}

void sync_idle(u64 cycles)
{
	u64 end = tsc_begin() + cycles;

	while (tsc_begin() < end)
		;
}
