/*
 * kernel/phase_sync.c - phase sync with the host over COM1 (16550 at
 * 0x3f8; QEMU `-chardev stdio` feeds the runner's bytes to its RX).
 *
 * At each point the guest prints `@tm {"type":"sync","phase":"m0"}` and
 * polls the line status register until the host's byte arrives.  The host
 * pauses the VM, reads its exit counters, queues the byte and resumes, so
 * the counters are read while the guest sits in this wait.  Phase names
 * all have two letters and no line names its case, so every sync line has
 * the same length, and each begins with the transmit FIFO drained: the
 * traffic of any window is the same, and the empty windows measured once
 * per boot (sync_background) stand for it in every case (see
 * kernel/phase_sync.h).  The polls, whose number depends on host latency,
 * are reported so the host can take them out too.
 */
#include "kernel/phase_sync.h"
#include "kernel/console.h"
#include "lib/json.h"
#include "drivers/uart16550.h"
#include "arch/x86/tsc.h"

#define SYNC_TIMEOUT_MS     5000  /* host answers in ms; never hang */
#define SYNC_BACKGROUND_MS  100   /* idle spin measured once per boot */
#define SYNC_LINE_MAX       64
#define REPORT_LINE_MAX     256
#define SYNC_BACKGROUND_CASE "background"

static const char *const sync_phase_names[SYNC_PHASES] = {
	[SYNC_M0] = "m0", [SYNC_M1] = "m1", [SYNC_C0] = "c0", [SYNC_C1] = "c1",
};
/* The background's points: e0 .. e5 bound the empty windows, sp ends the
 * spin. */
static const char *const background_names[SYNC_CAL_WINDOWS + 2] = {
	"e0", "e1", "e2", "e3", "e4", "e5", "sp",
};

/* Poll COM1 RX until a byte or the TSC deadline; counts the polls. */
static int sync_wait(u32 *polls)
{
	struct tsc_wait wait = TSC_WAIT((u64)SYNC_TIMEOUT_MS * 1000);
	int byte;

	*polls = 0;
	for (;;) {
		(*polls)++;
		byte = uart_getc_ready();
		if (byte >= 0)
			return byte;
		if (tsc_wait_over(&wait))
			return -ETIMEDOUT;
	}
}

/* One sync line (the FIFO drained first: see the header) and the wait
 * for the host's byte. */
static int sync_line(const char *phase, u32 *polls, u32 *timeouts)
{
	char line[SYNC_LINE_MAX];
	struct jw w;
	int byte;

	jw_record(&w, line, sizeof(line), "sync");
	jw_str(&w, "phase", phase);
	jw_obj_end(&w);
	uart_tx_drain();
	tm_record(&w);
	byte = sync_wait(polls);
	if (byte < 0)
		(*timeouts)++;
	return byte;
}

int sync_point(enum sync_phase phase, struct sync_record *rec)
{
	return sync_line(sync_phase_names[phase], &rec->polls[phase], &rec->timeouts);
}

void sync_begin(struct sync_record *rec)
{
	sync_point(SYNC_M0, rec);
}

bool sync_end(struct sync_record *rec, u64 cycles)
{
	rec->window_cycles = cycles;
	return sync_point(SYNC_M1, rec) == SYNC_REPLY_COUNT;
}

/* The background's closing line, outside every window and not answered
 * (the host sends no byte for it): the polls of e0 .. e5 and sp, the
 * timeouts, the spin length. */
static void background_report(const u32 *polls, u32 timeouts, u64 spin)
{
	char line[REPORT_LINE_MAX];
	u64 v[SYNC_CAL_WINDOWS + 2];
	struct jw w;
	u32 i;

	for (i = 0; i < SYNC_CAL_WINDOWS + 2; i++)
		v[i] = polls[i];
	jw_record(&w, line, sizeof(line), "sync");
	jw_str(&w, "case", SYNC_BACKGROUND_CASE);
	jw_str(&w, "phase", "report");
	jw_u64(&w, "spin_cycles", spin);
	jw_u64s(&w, "polls", v, SYNC_CAL_WINDOWS + 2);
	jw_u64(&w, "timeouts", timeouts);
	jw_obj_end(&w);
	tm_record(&w);
}

void sync_background(void)
{
	u32 polls[SYNC_CAL_WINDOWS + 2], timeouts = 0, i;
	u64 spin = (u64)SYNC_BACKGROUND_MS * tsc.khz;
	u64 end;

	for (i = 0; i <= SYNC_CAL_WINDOWS; i++)
		sync_line(background_names[i], &polls[i], &timeouts);
	end = tsc_begin() + spin;
	while (tsc_begin() < end)
		;
	sync_line(background_names[i], &polls[i], &timeouts);
	background_report(polls, timeouts, spin);
}
