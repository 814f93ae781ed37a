/*
 * kernel/phase_sync.c - phase sync with the host over COM1 (16550 at
 * 0x3f8; QEMU `-chardev stdio` feeds the runner's bytes to its RX).
 *
 * At each point the guest prints `@tm {"type":"sync",...}` and polls the
 * line status register until the host's byte arrives.  The host pauses the
 * VM, reads its exit counters, queues the byte and resumes, so the counters
 * are read while the guest sits in this wait.  Phase names all have two
 * letters, so the sync lines of one case have the same length and the
 * empty window (e0..m0) carries exactly the sync traffic of the timed one
 * (m0..m1); the polls, whose number depends on host latency, are reported
 * so the host can take them out too (see kernel/phase_sync.h).
 */
#include "kernel/phase_sync.h"
#include "kernel/console.h"
#include "lib/json.h"
#include "drivers/uart16550.h"
#include "arch/x86/tsc.h"

#define SYNC_TIMEOUT_MS     5000  /* host answers in ms; never hang */
#define SYNC_BACKGROUND_MS  100   /* idle spin measured once per boot */
#define SYNC_LINE_MAX       320
#define SYNC_BACKGROUND_CASE "background"

static const char *const sync_phase_names[SYNC_PHASES] = {
	[SYNC_E0] = "e0", [SYNC_M0] = "m0", [SYNC_M1] = "m1",
	[SYNC_C0] = "c0", [SYNC_C1] = "c1",
};
static const char *const sync_poll_keys[SYNC_PHASES] = {
	[SYNC_E0] = "polls_e0", [SYNC_M0] = "polls_m0", [SYNC_M1] = "polls_m1",
	[SYNC_C0] = "polls_c0", [SYNC_C1] = "polls_c1",
};

/* Poll COM1 RX until a byte or the TSC deadline; counts the polls. */
static int sync_wait(u32 *polls)
{
	u64 deadline = tsc_begin() + (u64)SYNC_TIMEOUT_MS * tsc.khz;
	int byte;

	*polls = 0;
	for (;;) {
		(*polls)++;
		byte = uart_getc_timeout(0);
		if (byte >= 0)
			return byte;
		if (tsc_begin() > deadline)
			return -ETIMEDOUT;
	}
}

/*
 * One sync line and the wait for the host's byte.  `report` (the
 * background's closing line only, outside every window) adds the record
 * of the points before it and the spin length.
 */
static int sync_line(const char *case_name, const char *phase,
		     u32 *polls, struct sync_record *rec,
		     const struct sync_record *report, u64 spin_cycles)
{
	char line[SYNC_LINE_MAX];
	struct jw w;
	int byte;

	jw_record(&w, line, sizeof(line), "sync");
	jw_str(&w, "case", case_name);
	jw_str(&w, "phase", phase);
	if (report) {
		jw_u64(&w, "spin_cycles", spin_cycles);
		sync_emit(&w, report);
	}
	jw_obj_end(&w);
	tm_record(&w);
	byte = sync_wait(polls);
	if (byte < 0)
		rec->timeouts++;
	return byte;
}

int sync_point(const char *case_name, enum sync_phase phase,
	       struct sync_record *rec)
{
	return sync_line(case_name, sync_phase_names[phase],
			 &rec->polls[phase], rec, NULL, 0);
}

void sync_begin(const char *case_name, struct sync_record *rec)
{
	sync_point(case_name, SYNC_E0, rec);
	sync_point(case_name, SYNC_M0, rec);
}

bool sync_end(const char *case_name, struct sync_record *rec, u64 cycles)
{
	rec->window_cycles = cycles;
	return sync_point(case_name, SYNC_M1, rec) == SYNC_REPLY_COUNT;
}

void sync_emit(struct jw *w, const struct sync_record *s)
{
	u32 i;

	jw_key_obj(w, "sync");
	for (i = 0; i < SYNC_PHASES; i++)
		jw_u64(w, sync_poll_keys[i], s->polls[i]);
	jw_u64(w, "timeouts", s->timeouts);
	jw_u64(w, "window_cycles", s->window_cycles);
	jw_u64(w, "count_ops", s->count_ops);
	jw_obj_end(w);
}

void sync_background(void)
{
	struct sync_record rec = { 0 };
	u64 spin = (u64)SYNC_BACKGROUND_MS * tsc.khz;
	u64 end;
	u32 polls;

	sync_begin(SYNC_BACKGROUND_CASE, &rec);
	end = tsc_begin() + spin;
	while (tsc_begin() < end)
		;
	sync_end(SYNC_BACKGROUND_CASE, &rec, spin);
	sync_line(SYNC_BACKGROUND_CASE, "report", &polls, &rec, &rec, spin);
}
