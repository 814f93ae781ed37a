/*
 * tests/host/c/test_bench.c - the bench framework (kernel/bench.c) against a
 * fake TSC (every read costs fake_tsc_read_cost) and fake ops that take a
 * known number of cycles, so every figure it prints is known exactly:
 * overhead subtracted once per sample, divided by the batch, the batch
 * sized to the goal and robust to an outlier, adaptive stops, the control
 * and net figures, ns, the sync poll counts and the fixed plan.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "tests/host/c/fake_fw_cfg.h"
#include "tests/host/c/fake_console.h"
#include "tests/host/c/fake_tsc.h"
#include "kernel/bench.h"
#include "kernel/console.h"
#include "kernel/phase_sync.h"
#include "drivers/fw_cfg.h"
#include "drivers/uart16550.h"
#include "arch/x86/tsc.h"
#include <stdio.h>

#define READ_COST   400u        /* the empty timed region: goal 200 x 400 */
#define OP_COST     1000u       /* so a sample is 80 ops */
#define CTL_COST    300u
#define KHZ         2000000u    /* 2 GHz: 1000 cycles = 500 ns */

static u64 op_calls, op_cost;
static u32 drains, drained_at[8];	/* console lines when each drain came */
static s64 op_extra[8];
static u32 polls_left[8], poll_phase;
static char reply[8];           /* the host's byte at each sync point */
static struct tm_config cfg;

/* ---- what bench.c calls besides the framework ----------------------- */

/* COM1 RX for phase sync: the byte comes after polls_left[point] polls */
int uart_getc_ready(void)
{
	if (--polls_left[poll_phase] == 0)
		return reply[poll_phase++];
	return -1;
}

/* before each sync line: the console's line count then */
void uart_tx_drain(void)
{
	if (drains < 8)
		drained_at[drains] = fake_console_n;
	drains++;
}

/* ---- fake ops -------------------------------------------------------- */

/* What ran last ('o' op, 'c' control, 's' settle), and the control
 * batches that came straight after an op's batch, unsettled. */
static char last_ran;
static u32 unsettled_controls, settles;

static void fake_op(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	fake_tsc_now += iters * op_cost + (u64)(op_calls < 8 ? op_extra[op_calls] : 0);
	op_calls++;
	last_ran = 'o';
}

static u64 ctl_calls, ctl_shrink;	/* each control call ctl_shrink cycles/op cheaper */

static void fake_control(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	fake_tsc_now += iters * (CTL_COST - ctl_calls * ctl_shrink);
	ctl_calls++;
	unsettled_controls += last_ran == 'o';
	last_ran = 'c';
}

static void fake_settle(const struct bench_case *c)
{
	(void)c;
	settles++;
	last_ran = 's';
}

static struct bench_case the_case = {
	.suite = "t", .name = "case.a", .target = "fake", .method = METHOD_SINGLE,
	.op = fake_op, .control = fake_control, .exits_model = bench_model_one,
};

static void setup(u64 cost, const char *words)
{
	char err[160];

	fake_console_n = 0;
	op_calls = 0;
	op_cost = cost;
	memset(op_extra, 0, sizeof(op_extra));
	fake_tsc_now = 1000000;
	fake_tsc_on = true;
	fake_tsc_read_cost = READ_COST;
	tsc.khz = KHZ;
	cmdline_defaults(&cfg);
	if (cmdline_parse(words, &cfg, err, sizeof(err)))
		printf("#   bad words %s: %s\n", words, err);
	bench_init(&cfg);
}

/* The last result line. */
static const char *result_line(void)
{
	u32 i = fake_console_n;

	while (i--)
		if (strstr(fake_console_lines[i], "\"type\":\"result\""))
			return fake_console_lines[i];
	return "";
}

/* Schema 3's arrays: the names of their places (docs/design.md). */
static const char *const cycles_keys[] = { "min", "p10", "median", "p90", "p99", "max",
					   "mean", "stddev", NULL };
static const char *const control_keys[] = { "min", "p10", "median", "p90", "max", NULL };
static const char *const sync_keys[] = { "polls_e0", "polls_m0", "polls_m1", "polls_c0",
					 "polls_c1", "timeouts", "window_cycles", "count_ops",
					 NULL };

static int place(const char *obj, const char *key)
{
	const char *const *keys = !strcmp(obj, "sync") ? sync_keys :
				  !strcmp(obj, "cycles") ? cycles_keys : control_keys;
	int i;

	for (i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

/* Integer after "key": at top level (obj NULL), or the place named key
 * of the array "obj". */
static s64 field(const char *line, const char *obj, const char *key)
{
	char pat[64];
	const char *p = line;
	int i = obj ? place(obj, key) : 0;

	snprintf(pat, sizeof(pat), "\"%s\":%s", obj ? obj : key, obj ? "[" : "");
	p = strstr(p, pat);
	if (!p || i < 0)
		return -999999;
	p += strlen(pat);
	while (i-- > 0) {
		p = strchr(p, ',');
		if (!p)
			return -999999;
		p++;
	}
	return strtoll(p, NULL, 10);
}

/* ---- tests ------------------------------------------------------------ */

static void test_overhead_and_batch(void)
{
	struct bench_result r;
	const char *l;

	setup(OP_COST, "");
	CHECK_EQ_U64(bench_timer_overhead, READ_COST);
	CHECK_EQ_S64(bench_run(&the_case, &r), 0);
	l = result_line();
	/* one overhead per sample, then / iters: exactly the op's cost */
	CHECK_EQ_S64(field(l, "cycles", "min"), OP_COST);
	CHECK_EQ_S64(field(l, "cycles", "median"), OP_COST);
	CHECK_EQ_S64(field(l, "cycles", "max"), OP_COST);
	/* batch: the goal (200 overheads) over the op */
	CHECK_EQ_S64(field(l, NULL, "iters"), 200 * READ_COST / OP_COST);
	CHECK_EQ_U64(r.iters, 80);
}

static void test_control_and_net(void)
{
	struct bench_result r;
	const char *l;

	setup(OP_COST, "");
	bench_run(&the_case, &r);
	l = result_line();
	CHECK_EQ_S64(field(l, "cycles_control", "median"), CTL_COST);
	CHECK_EQ_S64(field(l, "cycles_control", "min"), CTL_COST);
	CHECK_EQ_S64(field(l, "cycles_control", "max"), CTL_COST);
	CHECK_EQ_U64(r.control.n, r.cycles.n);
	/* the host derives net, per unit, ns and per exit (schema 3) */
	CHECK(!strstr(l, "cycles_net"));
	CHECK(!strstr(l, "ns_median"));
	/* a case without a control reports none */
	the_case.control = NULL;
	bench_run(&the_case, &r);
	the_case.control = fake_control;
	CHECK(!strstr(result_line(), "cycles_control"));
}

/* controls=off: the control op is never run, the line says why. */
static void test_controls_off(void)
{
	struct bench_result r;
	const char *l;

	setup(OP_COST, "controls=off");
	ctl_calls = 0;
	CHECK_EQ_S64(bench_run(&the_case, &r), 0);
	l = result_line();
	CHECK_EQ_U64(ctl_calls, 0);
	CHECK_EQ_U64(r.control.n, 0);
	CHECK(!strstr(l, "cycles_control"));
	CHECK(strstr(l, "\"control_none\":\"controls=off (kernel word)\"") != NULL);
	CHECK_EQ_S64(field(l, "cycles", "min"), OP_COST);
}

/* Schema 3: the statistics as arrays in their documented order. */
static void test_compact_line(void)
{
	struct bench_result r;
	char want[160];

	setup(OP_COST, "");
	bench_run(&the_case, &r);
	snprintf(want, sizeof(want), "\"cycles\":[%u,%u,%u,%u,%u,%u,%u,0]", OP_COST, OP_COST,
		 OP_COST, OP_COST, OP_COST, OP_COST, OP_COST);
	CHECK_CONTAINS(result_line(), want);
	snprintf(want, sizeof(want), "\"cycles_control\":[%u,%u,%u,%u,%u]", CTL_COST, CTL_COST,
		 CTL_COST, CTL_COST, CTL_COST);
	CHECK_CONTAINS(result_line(), want);
	CHECK(!strstr(result_line(), "\"sync\""));    /* sync=off */
}

/* An op whose cost does not divide the goal: the batch is rounded up, so
 * a sample reaches the goal (80000 / 3000 = 26.7: 27 ops, never 26). */
static void test_batch_rounds_up(void)
{
	struct bench_result r;

	setup(3000, "");
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.iters, 27);
	CHECK(r.iters * 3000 >= 200 * READ_COST);
	setup(79999, "");
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.iters, 2);
}

/* A disturbed warm-up and a disturbed first probe (the "pair" that once
 * gave iters 17 instead of 43) must not move the batch. */
static void test_plan_robust_to_outlier(void)
{
	struct bench_result r;

	setup(OP_COST, "");
	op_extra[0] = 150000;          /* warm-up */
	op_extra[1] = 150000;          /* first probe: above the goal */
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.iters, 80);
	setup(OP_COST, "");
	op_extra[2] = 40000;           /* second probe */
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.iters, 80);
	setup(OP_COST, "");
	op_extra[1] = -900;            /* a probe that reads too short */
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.iters, 80);
}

static void test_adaptive_stops_when_stable(void)
{
	struct bench_result r;

	setup(OP_COST, "");
	bench_run(&the_case, &r);
	/* checkpoints 3 and 5 agree: stable after 5 samples */
	CHECK_EQ_U64(r.cycles.n, 5);
	CHECK_CONTAINS(result_line(), "\"stop\":\"stable\"");
	CHECK(!strstr(result_line(), "\"plan\""));    /* the host derives it from stop */
}

/* Each op 2 % cheaper than the last: never stable, so the cap stops it. */
static void drifting_op(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	fake_tsc_now += iters * op_cost;
	op_cost -= op_cost / 50;
}

static void test_unstable_hits_cap_or_budget(void)
{
	struct bench_case c = the_case;
	struct bench_result r;

	c.op = drifting_op;
	setup(1000000, "samples=12");
	bench_run(&c, &r);
	CHECK_EQ_U64(r.cycles.n, 12);
	CHECK_CONTAINS(result_line(), "\"stop\":\"max\"");
	setup(1000000, "budget_ms=10");        /* 2e7 cycles: a few samples */
	bench_run(&c, &r);
	CHECK(r.cycles.n >= 2 && r.cycles.n < 63);
	CHECK_CONTAINS(result_line(), "\"stop\":\"budget\"");
}

/* stable=off (trapmeter kut): a steady case samples to its budget. */
static void test_adaptive_stable_off(void)
{
	struct bench_result r;

	setup(OP_COST, "stable=off samples=10000 budget_ms=10");
	bench_run(&the_case, &r);
	CHECK(r.cycles.n > 63 && r.cycles.n < 10000);
	CHECK_CONTAINS(result_line(), "\"stop\":\"budget\"");
	setup(OP_COST, "stable=off samples=40");
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.cycles.n, 40);
	CHECK_CONTAINS(result_line(), "\"stop\":\"max\"");
}

static void test_min_samples(void)
{
	/* 1 ms at 1 GHz (khz 1e6): six fit in 500 ms */
	CHECK_EQ_U64(bench_min_samples(1000000, 1000000), 6);
	CHECK_EQ_U64(bench_min_samples(0, 1000000), 6);          /* not known yet */
	CHECK_EQ_U64(bench_min_samples(80000000, 1000000), 6);   /* 80 ms: 6 fit */
	CHECK_EQ_U64(bench_min_samples(90000000, 1000000), 5);   /* 90 ms: 5 fit */
	CHECK_EQ_U64(bench_min_samples(200000000, 1000000), 2);  /* 200 ms: 2 fit */
	CHECK_EQ_U64(bench_min_samples(800000000, 1000000), 2);  /* never below 2 */
}

/* Long ops under the default 60 ms budget: a 40 ms op takes 6 samples
 * (the host brackets a speed-up from six a side), as 6 fit in
 * LONG_CASE_MS; a 150 ms op stops at 3, a 300 ms one at 2. */
static void test_long_case_floor(void)
{
	struct bench_case c = the_case;
	struct bench_result r;

	c.op = drifting_op;                     /* never stable: the budget stops */
	setup(80000000, "");                    /* 40 ms at 2 GHz */
	bench_run(&c, &r);
	CHECK_EQ_U64(r.cycles.n, 6);
	CHECK_CONTAINS(result_line(), "\"stop\":\"budget\"");
	setup(300000000, "");                   /* 150 ms */
	bench_run(&c, &r);
	CHECK_EQ_U64(r.cycles.n, 3);
	setup(600000000, "");                   /* 300 ms */
	bench_run(&c, &r);
	CHECK_EQ_U64(r.cycles.n, 2);
	c.op = the_case.op;                     /* stable at 5, budget spent */
	setup(80000000, "");
	bench_run(&c, &r);
	CHECK_EQ_U64(r.cycles.n, 6);
	CHECK_CONTAINS(result_line(), "\"stop\":\"stable\"");
}

/* A cheap case judged stable stops at once, budget or not spent. */
static void test_cheap_stable_stops_at_five(void)
{
	struct bench_result r;

	setup(1000000, "");                     /* 0.5 ms at 2 GHz */
	bench_run(&the_case, &r);
	CHECK_CONTAINS(result_line(), "\"stop\":\"stable\"");
	CHECK_EQ_U64(r.cycles.n, 5);
}

/* A warm-up longer than 2^26 cycles is a sample itself (and over 2^28 two samples suffice); it runs before
 * the sync window, so "ops" counts only the ops inside. */
static void test_huge_op(void)
{
	struct bench_result r;

	setup(1ull << 29, "");
	bench_run(&the_case, &r);
	CHECK_EQ_U64(r.iters, 1);
	CHECK_EQ_U64(r.cycles.n, 2);
	CHECK_EQ_S64(field(result_line(), NULL, "ops"), 1);
	CHECK_EQ_S64(field(result_line(), "cycles", "min"), 1ll << 29);
}

/* The console lines of type sync, in order, from line `from` on. */
static u32 sync_lines(u32 from, const char **out, u32 max)
{
	u32 i, n = 0;

	for (i = from; i < fake_console_n && n < max; i++)
		if (strstr(fake_console_lines[i], "\"type\":\"sync\""))
			out[n++] = fake_console_lines[i];
	return n;
}

static void test_sync_polls_reported(void)
{
	static const u32 polls[4] = { 7, 2, 4, 6 };     /* m0 m1 c0 c1 */
	static const char *const phases[4] = { "m0", "m1", "c0", "c1" };
	const char *lines[8];
	struct bench_result r;
	const char *l;
	char want[64];
	u32 i, n, start;

	setup(OP_COST, "sync=on");
	memcpy(polls_left, polls, sizeof(polls));
	memcpy(reply, "sccc", 4);          /* at m1 the host asks for the c window */
	poll_phase = 0;
	drains = 0;
	start = fake_console_n;
	bench_run(&the_case, &r);
	l = result_line();
	CHECK_EQ_S64(field(l, "sync", "polls_e0"), 0);   /* a case has no e0 point */
	CHECK_EQ_S64(field(l, "sync", "polls_m0"), 7);
	CHECK_EQ_S64(field(l, "sync", "polls_m1"), 2);
	CHECK_EQ_S64(field(l, "sync", "polls_c0"), 4);
	CHECK_EQ_S64(field(l, "sync", "polls_c1"), 6);
	CHECK_EQ_S64(field(l, "sync", "timeouts"), 0);
	CHECK_EQ_S64(field(l, "sync", "count_ops"), 80);
	/* window ops: three probes at one op, then samples of 80 */
	CHECK_EQ_S64(field(l, NULL, "ops"), 3 + 5 * 80);
	/* four sync lines, each the same bytes but its phase, none naming
	 * the case (the case line before them does), each after a drain */
	n = sync_lines(start, lines, 8);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(drains, 4);
	for (i = 0; i < n && i < 4; i++) {
		snprintf(want, sizeof(want), "{\"type\":\"sync\",\"phase\":\"%s\"}", phases[i]);
		CHECK(strcmp(lines[i], want) == 0);
		CHECK(strcmp(fake_console_lines[drained_at[i]], lines[i]) == 0);
	}
}

/* Once per boot: five empty windows e0..e5 and the spin e5..sp, lines of
 * the same form as a case's; the report (not answered) carries every
 * point's polls, the timeouts and the spin. */
static void test_background_calibration(void)
{
	static const u32 polls[7] = { 1, 2, 3, 1, 5, 1, 9 };
	static const char *const phases[7] = { "e0", "e1", "e2", "e3", "e4", "e5", "sp" };
	const char *lines[9];
	char want[160];
	u32 i, n, start;

	setup(OP_COST, "sync=on");
	memcpy(polls_left, polls, sizeof(polls));
	memset(reply, 's', sizeof(reply));
	poll_phase = 0;
	drains = 0;
	start = fake_console_n;
	sync_background();
	n = sync_lines(start, lines, 9);
	CHECK_EQ_U64(n, 8);
	CHECK_EQ_U64(drains, 7);
	CHECK_EQ_U64(poll_phase, 7);       /* no wait after the report */
	for (i = 0; i < 7 && i < n; i++) {
		snprintf(want, sizeof(want), "{\"type\":\"sync\",\"phase\":\"%s\"}", phases[i]);
		CHECK(strcmp(lines[i], want) == 0);
	}
	snprintf(want, sizeof(want), "{\"type\":\"sync\",\"case\":\"background\",\"phase\":"
		 "\"report\",\"spin_cycles\":%llu,\"polls\":[1,2,3,1,5,1,9],\"timeouts\":0}",
		 100ull * KHZ);
	CHECK(n == 8 && strcmp(lines[7], want) == 0);
}

static void load_plan(const char *text, int want)
{
	char err[160] = "";

	fake_io_reset();
	fake_fw_cfg_reset();
	fake_io_read_hook = fake_console_fw_cfg_read;
	fake_io_write_hook = fake_console_fw_cfg_write;
	fake_fw_cfg_add("opt/trapmeter/plan", text, (u32)strlen(text));
	CHECK(fw_cfg_init());
	CHECK_EQ_S64(bench_load_plan(err, sizeof(err)), want);
	if (want)
		CHECK_CONTAINS(err, "plan line 2");
}

static void test_fixed_plan(void)
{
	struct bench_case other = the_case;
	struct bench_result r;

	setup(OP_COST, "");
	load_plan("t case.a 7 4\n", 0);
	CHECK_EQ_S64(bench_run(&the_case, &r), 0);
	CHECK_EQ_U64(r.iters, 7);
	CHECK_EQ_U64(r.cycles.n, 4);
	CHECK_EQ_S64(field(result_line(), NULL, "iters"), 7);
	CHECK_EQ_S64(field(result_line(), NULL, "samples"), 4);
	CHECK_CONTAINS(result_line(), "\"stop\":\"plan\"");
	CHECK_EQ_S64(field(result_line(), "cycles", "median"), OP_COST);
	other.name = "case.b";            /* not planned: does not run */
	CHECK_EQ_S64(bench_run(&other, &r), -1);
	fake_console_n = 0;
	bench_plan_report();
	CHECK_EQ_U64(fake_console_n, 0);
	load_plan("t case.a 7 4\nt case.b 0 4\n", -EINVAL);
}

/* With sync=on the control's samples follow the window, up to the
 * case's count and at most 8, stopped by the case's rule: min and p10
 * moved by at most 0.5 % of the case's between checkpoints 3, 5, 8. */
static void test_control_after_window(void)
{
	static const struct { const char *plan; u32 samples; u64 shrink; u32 want; } runs[] = {
		{ "t case.a 80 12\n", 12, 0, 5 },  /* stable: stops at 5 */
		{ "t case.a 80 12\n", 12, 3, 8 },  /* 6 cycles/op = 0.6 % of the case: cap */
		{ "t case.a 80 12\n", 12, 2, 5 },  /* 4 cycles/op = 0.4 %: stable at 5 */
		{ "t case.a 80 4\n", 4, 0, 4 },    /* never more than the case's samples */
	};
	struct bench_result r;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(runs); i++) {
		setup(OP_COST, "sync=on");
		load_plan(runs[i].plan, 0);
		memset(polls_left, 0, sizeof(polls_left));
		polls_left[0] = polls_left[1] = 1;
		memcpy(reply, "ss", 2);
		poll_phase = 0;
		ctl_calls = 0;
		ctl_shrink = runs[i].shrink;
		CHECK_EQ_S64(bench_run(&the_case, &r), 0);
		CHECKF(r.control.n == runs[i].want, "run %u: %u control samples, want %u", i,
		       r.control.n, runs[i].want);
		CHECK_EQ_U64(r.cycles.n, runs[i].samples);
	}
	ctl_shrink = 0;
}

/* A case with a settle hook has it run after every batch of its op,
 * untimed: no control batch follows an op's batch before it. */
static void test_settle_after_each_batch(void)
{
	struct bench_result r;
	u64 ops_before;

	setup(OP_COST, "");
	unsettled_controls = settles = 0;
	CHECK_EQ_S64(bench_run(&the_case, &r), 0);
	CHECK(unsettled_controls > 0);		/* interleaved, half follow an op */
	the_case.settle = fake_settle;
	unsettled_controls = settles = 0;
	ops_before = op_calls;
	CHECK_EQ_S64(bench_run(&the_case, &r), 0);
	the_case.settle = NULL;
	CHECK_EQ_U64(unsettled_controls, 0);
	CHECK_EQ_U64(settles, op_calls - ops_before);
	/* untimed: the figures are the op's and the control's alone */
	CHECK_EQ_S64(field(result_line(), "cycles", "median"), OP_COST);
	CHECK_EQ_S64(field(result_line(), "cycles_control", "median"), CTL_COST);
}

int main(void)
{
	RUN(test_overhead_and_batch, "bench: overhead once per sample, divided by the batch, batch to the goal");
	RUN(test_control_and_net, "bench: control and net figures, cost per exit from net");
	RUN(test_controls_off, "bench: controls=off runs no control op and says so");
	RUN(test_compact_line, "bench: schema 3 statistics arrays in their order");
	RUN(test_min_samples, "bench: the sample floor from the cost of a sample");
	RUN(test_cheap_stable_stops_at_five, "bench: a cheap stable case stops at its checkpoint");
	RUN(test_long_case_floor, "bench: a 40 ms op gets 6 samples, stable or not; 150 ms 3, 300 ms 2");
	RUN(test_batch_rounds_up, "bench: the batch is rounded up to reach the goal");
	RUN(test_plan_robust_to_outlier, "bench: batch size robust to a disturbed warm-up and probe");
	RUN(test_adaptive_stops_when_stable, "bench: adaptive sampling stops when min and p10 are stable");
	RUN(test_unstable_hits_cap_or_budget, "bench: an unstable case stops at the cap or the budget");
	RUN(test_adaptive_stable_off, "bench: stable=off samples to the budget or the cap");
	RUN(test_huge_op, "bench: a huge warm-up op is a sample, outside the sync window");
	RUN(test_sync_polls_reported, "bench: sync poll counts as they happened");
	RUN(test_background_calibration, "bench: the boot's sync calibration and background spin");
	RUN(test_fixed_plan, "bench: fixed plan: exact iters and samples, unplanned cases skipped");
	RUN(test_control_after_window, "bench: control samples after a counted window stop by the case's rule");
	RUN(test_settle_after_each_batch, "bench: a settle hook runs untimed after every batch of the op");
	return check_summary();
}
