/*
 * kernel/bench.c - the benchmark framework (see kernel/bench.h).
 *
 * One sample = one fenced timed region around `iters` back-to-back
 * operations.  `iters` is sized so a sample is long against the timer
 * overhead; the number of samples is cut when the case would overrun its
 * time budget (budget_ms), never below BENCH_MIN_SAMPLES.  The empty
 * region's median cost is subtracted from every sample.
 */
#include "kernel/bench.h"
#include "kernel/console.h"
#include "lib/json.h"
#include "kernel/lava.h"
#include "lib/fmt.h"
#include "kernel/model.h"
#include "lib/string.h"
#include "arch/x86/tsc.h"

#define OVERHEAD_ROUNDS     1001
#define BENCH_MIN_SAMPLES   3
#define BENCH_MAX_SAMPLES   10000
#define GOAL_MIN_CYCLES     50000ull   /* a sample lasts at least this */
#define GOAL_OVERHEAD_X     200ull     /* ... and this many timer overheads */
#define MAX_ITERS           1000000ull
#define JSON_LINE_MAX       1024

const struct tm_config *bench_cfg;
u64 bench_timer_overhead;

static u64 samples[BENCH_MAX_SAMPLES];
static u8 buffer[BENCH_BUF_SIZE] __attribute__((aligned(BENCH_PAGE)));
static u32 failed_checks;

u8 *bench_buffer(void)
{
	return buffer;
}

const char *bench_method_name(u8 method)
{
	switch (method) {
	case METHOD_REP: return "rep";
	case METHOD_DMA: return "dma";
	default: return "single";
	}
}

static const char *handler_name(u8 h)
{
	static const char *const names[] = {
		[HANDLER_NONE] = "none", [HANDLER_USER] = "user", [HANDLER_KERNEL] = "kernel",
		[HANDLER_COALESCED] = "coalesced", [HANDLER_IOEVENTFD] = "ioeventfd",
	};

	return h < ARRAY_SIZE(names) ? names[h] : "none";
}

static const char *dir_name(u8 d)
{
	return d == DIR_IN ? "in" : d == DIR_OUT ? "out" : "none";
}

u32 bench_units(const struct bench_case *c)
{
	return c->width ? c->bytes / c->width : 1;
}

u32 bench_model_units(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	return bench_units(c);
}

u32 bench_model_one(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return 1;
}

u32 bench_model_rep_in(const struct bench_case *c, const u8 *buf)
{
	if (c->rep_as_loop)
		return bench_units(c);
	return model_rep_in_exits((u64)(uintptr_t)buf, c->bytes, c->width);
}

u32 bench_model_rep_kernel_out(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	if (c->rep_as_loop)
		return bench_units(c);
	return model_rep_out_kernel_exits(bench_units(c));
}

void bench_init(const struct tm_config *cfg)
{
	u32 i;
	u64 t0, t1;
	struct stats st;

	bench_cfg = cfg;
	for (i = 0; i < OVERHEAD_ROUNDS; i++) {
		t0 = tsc_begin();
		t1 = tsc_end();
		samples[i] = t1 - t0;
	}
	stats_compute(samples, OVERHEAD_ROUNDS, &st);
	bench_timer_overhead = st.median;
}

void bench_suite_begin(const char *suite)
{
	char line[128];
	struct jw w;

	jw_init(&w, line, sizeof(line));
	jw_obj_begin(&w);
	jw_str(&w, "type", "suite");
	jw_str(&w, "suite", suite);
	jw_obj_end(&w);
	kprintf("\n== suite %s ==\n", suite);
	kprintf("  %-30s %-6s %8s %14s %11s %7s %12s\n", "case", "method", "bytes",
		"cycles/op", "cycles/unit", "exits*", "cycles/exit*");
	tm_line(jw_finish(&w));
}

static void emit_case_start(const struct bench_case *c)
{
	char line[160];
	struct jw w;

	jw_init(&w, line, sizeof(line));
	jw_obj_begin(&w);
	jw_str(&w, "type", "case");
	jw_str(&w, "suite", c->suite);
	jw_str(&w, "case", c->name);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
}

static u64 timed(const struct bench_case *c, u8 *buf, u64 iters)
{
	u64 t0, t1, d;

	t0 = tsc_begin();
	c->op(c, buf, iters);
	t1 = tsc_end();
	d = t1 - t0;
	return d > bench_timer_overhead ? d - bench_timer_overhead : 0;
}

/* Pick operations per sample and the sample count; warms up on the way. */
static u32 plan(const struct bench_case *c, u8 *buf, u64 *iters_out)
{
	u64 one, two, goal, iters, budget, per_sample;
	u32 n = bench_cfg->samples;

	one = timed(c, buf, 1);          /* cold: warm-up */
	two = timed(c, buf, 1);
	if (two < one)
		one = two;
	if (!one)
		one = 1;
	goal = bench_timer_overhead * GOAL_OVERHEAD_X;
	if (goal < GOAL_MIN_CYCLES)
		goal = GOAL_MIN_CYCLES;
	iters = one >= goal ? 1 : (goal + one - 1) / one;
	if (iters > MAX_ITERS)
		iters = MAX_ITERS;
	budget = (u64)bench_cfg->budget_ms * tsc.khz;
	per_sample = iters * one;
	if ((u64)n * per_sample > budget)
		n = budget / per_sample;
	if (n < BENCH_MIN_SAMPLES)
		n = BENCH_MIN_SAMPLES;
	if (n > BENCH_MAX_SAMPLES)
		n = BENCH_MAX_SAMPLES;
	if (bench_cfg->verbose)
		kprintf("  [%s: warm op %lu cycles, %lu ops/sample, %u samples, budget %u ms]\n",
			c->name, one, iters, n, bench_cfg->budget_ms);
	*iters_out = iters;
	return n;
}

static void emit_cycles(struct jw *w, const struct stats *s)
{
	jw_key_obj(w, "cycles");
	jw_u64(w, "min", s->min);
	jw_u64(w, "p10", s->p10);
	jw_u64(w, "median", s->median);
	jw_u64(w, "p90", s->p90);
	jw_u64(w, "p99", s->p99);
	jw_u64(w, "max", s->max);
	jw_u64(w, "mean", s->mean);
	jw_u64(w, "stddev", s->stddev);
	jw_obj_end(w);
}

static void emit_result(const struct bench_case *c, const struct bench_result *r)
{
	char line[JSON_LINE_MAX], per_unit[32], per_exit[32];
	u32 units = bench_units(c);
	struct jw w;

	jw_init(&w, line, sizeof(line));
	jw_obj_begin(&w);
	jw_str(&w, "type", "result");
	jw_str(&w, "suite", c->suite);
	jw_str(&w, "case", c->name);
	jw_str(&w, "target", c->target);
	jw_hex(&w, "port", c->port);
	jw_str(&w, "handler", handler_name(c->handler));
	jw_str(&w, "dir", dir_name(c->dir));
	jw_u64(&w, "width", c->width);
	jw_str(&w, "method", bench_method_name(c->method));
	if (c->method == METHOD_REP)
		jw_str(&w, "rep_impl", c->rep_as_loop ? "loop" : "rep");
	jw_u64(&w, "bytes", c->bytes);
	jw_u64(&w, "units", units);
	jw_u64(&w, "buf_offset", c->buf_offset);
	jw_u64(&w, "samples", r->cycles.n);
	jw_u64(&w, "iters", r->iters);
	emit_cycles(&w, &r->cycles);
	jw_dec(&w, "cycles_per_unit", r->cycles.median, units, 2);
	jw_dec(&w, "ns_median", tsc_cycles_to_ps(r->cycles.median), 1000, 1);
	jw_u64(&w, "exits_model", r->exits_model);
	jw_dec(&w, "cycles_per_exit_model", r->cycles.median, r->exits_model, 1);
	jw_u64(&w, "ops", (u64)r->cycles.n * r->iters);
	if (bench_cfg->sync)
		sync_emit(&w, &r->sync);
	if (c->extra)
		c->extra(c, r, &w);
	jw_obj_end(&w);
	tm_line(jw_finish(&w));
	lava_case("", c->name, r->mismatches ? LAVA_FAIL : LAVA_PASS,
		  r->cycles.median, "cycles");

	fmt_decimal(per_unit, sizeof(per_unit), r->cycles.median, units, 2);
	fmt_decimal(per_exit, sizeof(per_exit), r->cycles.median, r->exits_model, 1);
	kprintf("  %-30s %-6s %8u %14lu %11s %7u %12s\n", c->name,
		c->rep_as_loop ? "rep=lp" : bench_method_name(c->method), c->bytes,
		r->cycles.median, per_unit, r->exits_model, per_exit);
}

/*
 * The timed samples; with sync=on bracketed by phase points (an empty
 * window first, for the host to subtract the sync traffic), and, when the
 * host asks, the same ops once more untimed for its tracing counter.
 */
static void measure(const struct bench_case *c, u8 *buf, struct bench_result *r, u32 n)
{
	bool sync = bench_cfg->sync;
	u64 t0, t1;
	u32 i;

	if (sync)
		sync_begin(c->name, &r->sync);
	t0 = tsc_begin();
	for (i = 0; i < n; i++)
		samples[i] = timed(c, buf, r->iters) / r->iters;
	t1 = tsc_end();
	if (sync && sync_end(c->name, &r->sync, t1 - t0)) {
		sync_point(c->name, SYNC_C0, &r->sync);
		c->op(c, buf, r->iters);
		r->sync.count_ops = r->iters;
		sync_point(c->name, SYNC_C1, &r->sync);
	}
}

int bench_run(const struct bench_case *c, struct bench_result *r)
{
	u8 *buf = buffer + c->buf_offset;
	const char *why;
	u32 n;

	if (!cmdline_case_selected(bench_cfg, c->name))
		return -1;
	if (c->skip && (why = c->skip(c))) {
		bench_skip(c->suite, c->name, why);
		return -1;
	}
	emit_case_start(c);
	kmemset(r, 0, sizeof(*r));
	n = plan(c, buf, &r->iters);
	measure(c, buf, r, n);
	stats_compute(samples, n, &r->cycles);
	r->exits_model = c->exits_model ? c->exits_model(c, buf) : 0;
	if (c->verify)
		r->mismatches = c->verify(c, buf);
	emit_result(c, r);
	return r->mismatches ? 1 : 0;
}

void bench_check(const char *name, bool ok, const char *detail)
{
	char line[512];
	struct jw w;

	if (!ok)
		failed_checks++;
	jw_init(&w, line, sizeof(line));
	jw_obj_begin(&w);
	jw_str(&w, "type", "check");
	jw_str(&w, "name", name);
	jw_bool(&w, "ok", ok);
	jw_str(&w, "detail", detail);
	jw_obj_end(&w);
	kprintf("  check %-28s %s  %s\n", name, ok ? "ok" : "FAILED", detail);
	tm_line(jw_finish(&w));
	lava_case("check.", name, ok ? LAVA_PASS : LAVA_FAIL, 0, "none");
}

/* LAVA id skip.<suite>.<case>, or skip.<suite> for a whole suite ("*"). */
static void lava_skip(const char *suite, const char *case_name)
{
	char id[LAVA_LINE_MAX];

	if (kstrcmp(case_name, "*") == 0)
		fmt_snprintf(id, sizeof(id), "%s", suite);
	else
		fmt_snprintf(id, sizeof(id), "%s.%s", suite, case_name);
	lava_case("skip.", id, LAVA_SKIP, 0, "none");
}

void bench_skip(const char *suite, const char *case_name, const char *reason)
{
	char line[512];
	struct jw w;

	jw_init(&w, line, sizeof(line));
	jw_obj_begin(&w);
	jw_str(&w, "type", "skip");
	jw_str(&w, "suite", suite);
	jw_str(&w, "case", case_name);
	jw_str(&w, "reason", reason);
	jw_obj_end(&w);
	if (kstrcmp(case_name, "*") == 0)
		cmdline_note_suite_skipped();
	kprintf("  %-30s skipped: %s\n", case_name, reason);
	tm_line(jw_finish(&w));
	lava_skip(suite, case_name);
}

u32 bench_failed_checks(void)
{
	return failed_checks;
}
