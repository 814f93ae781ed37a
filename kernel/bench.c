/*
 * kernel/bench.c - the benchmark framework (see kernel/bench.h and
 * docs/design.md, "Timing").
 *
 * One sample = one fenced timed region around `iters` back-to-back
 * operations; the empty region's median cost is subtracted once per sample
 * and the rest divided by iters.  A case with a control op times the
 * control in the same way, interleaved sample by sample (the order
 * alternates), and reports both and their difference (cycles_net).
 *
 * Adaptive sampling (the default): after a warm-up, probes of single ops
 * size the batch (median of three, so one disturbed op cannot move it), then
 * samples are added until the low-order statistics a verdict uses (minimum
 * and p10, of the case and of its control) moved by at most 0.5 % while the
 * sample count grew by half, or the case's budget (budget_ms) or the
 * sample cap (samples=) is reached.  A fixed plan from the runner
 * (kernel/plan.h) instead gives every case its iters and sample count.
 *
 * Rounds (kernel word rounds=N): a suite that supports them calls
 * bench_round() before each of N passes over its cases; each pass gives
 * a case 1/N of its plan's samples, or of the adaptive cap and budget
 * (the stability rule judges each round on its own).  Exits are counted
 * (sync=on) in the first round only; the result line names its round and
 * the host merges a case's rounds (tools/trapmeterlib/guest/rounds.py).  Rounds
 * after the first send no "case" line and a short "round" record instead
 * of the result (emit_round: the host has the rest from round 0, and
 * every COM1 byte costs ~45 us under a software hypervisor); the suite
 * line of such a round names it, so the host knows which case runs.
 */
#include "kernel/bench.h"
#include "kernel/console.h"
#include "kernel/plan.h"
#include "lib/json.h"
#include "kernel/lava.h"
#include "lib/fmt.h"
#include "model/model.h"
#include "lib/string.h"
#include "drivers/fw_cfg.h"
#include "arch/x86/tsc.h"

/* The empty region's median: 101 tries pin it well below what a sample's
 * 0.5 % could notice (one overhead in >= 200), and sorting 1001 took a
 * quarter of a second under a software hypervisor. */
#define OVERHEAD_ROUNDS     101
/* A budget stop leaves at least this many samples: six a side bracket a
 * ratio of two medians (a REP speed-up) 90 % sure from their minima and
 * maxima alone (tools/trapmeterlib/stats/medianci.py) ... */
#define BENCH_MIN_SAMPLES   6
#define LONG_CASE_MS        500        /* ... unless they would take longer: */
#define LONG_MIN_SAMPLES    2          /* then what fits, and at least this */
#define BENCH_MAX_SAMPLES   10000
#define FIRST_CHECK         3          /* first stability checkpoint */
#define STABLE_PER          200        /* stable: moved by <= 1/200 = 0.5 % */
#define GOAL_MIN_CYCLES     50000ull   /* a sample lasts at least this */
#define GOAL_OVERHEAD_X     200ull     /* ... and this many timer overheads */
#define MAX_ITERS           1000000ull
/* A warm-up op this long is itself a sample: whatever a cold start costs
 * (cache and TLB misses, first-touch faults) is far below 0.5 % of it. */
#define WARM_AS_SAMPLE      (1ull << 26)
#define JSON_LINE_MAX       1536
#define CTL_AFTER_MAX       8          /* control samples after a counted window */
#define PLAN_FW_CFG_NAME    "opt/trapmeter/plan"
#define PLAN_TEXT_MAX       (PLAN_MAX_ENTRIES * 80)

const struct tm_config *bench_cfg;
u64 bench_timer_overhead;
/* kut_name of a case whose suite names twins but which has none */
const char bench_no_kut[] = "";

static void skip_record(const char *suite, const char *case_name, const char *kut,
			const char *reason);

static u64 samples[BENCH_MAX_SAMPLES] NOCLEAR;
static u64 ctl_samples[BENCH_MAX_SAMPLES] NOCLEAR;
/* With irq_count: the cycles per op of each batch that took no interrupt
 * (r->irq.batches[0] of them), for their median: a mean of them follows
 * the few batches a busy host stretched. */
static u64 none_samples[BENCH_MAX_SAMPLES] NOCLEAR;
static struct plan plan;
static bool plan_loaded;
static char plan_text[PLAN_TEXT_MAX];
static u8 buffer[BENCH_BUF_SIZE] __attribute__((aligned(BENCH_PAGE)));
static u32 failed_checks;
static u32 round_now, round_of = 1;	/* the pass running, of how many */

void bench_round(u32 round, u32 of)
{
	round_now = round;
	round_of = of ? of : 1;
}

/* Exit counting: sync=on, and only in the first round (the exits per op
 * of a case do not change between rounds; every sync point costs ms). */
static bool counting(void)
{
	return bench_cfg->sync && round_now == 0;
}

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

	jw_record(&w, line, sizeof(line), "suite");
	jw_str(&w, "suite", suite);
	if (round_now)
		jw_u64(&w, "round", round_now);
	jw_obj_end(&w);
	kprintf("\n== suite %s ==\n", suite);
	if (bench_cfg->table && !round_now)
		kprintf("  %-30s %-6s %6s %12s %12s %12s %6s %3s %s\n", "case", "method",
			"bytes", "cycles/op", "control", "net", "exits*", "n", "stop");
	tm_record(&w);
}

/* Round 0 only: in later rounds the host takes the case that runs from
 * round 0's order (the one after the last "round" record). */
static void emit_case_start(const struct bench_case *c)
{
	char line[160];
	struct jw w;

	if (round_now)
		return;
	jw_record(&w, line, sizeof(line), "case");
	jw_str(&w, "suite", c->suite);
	jw_str(&w, "case", c->name);
	jw_obj_end(&w);
	tm_record(&w);
}

/* A case's control op, unless controls=off (a comparison of cycles per op
 * needs no net figure, and the control's samples cost about half the
 * case's time on a QEMU port loop). */
static bool has_control(const struct bench_case *c)
{
	return c->control && bench_cfg->controls;
}

static u64 timed(bench_op_fn op, const struct bench_case *c, u8 *buf, u64 iters)
{
	u64 t0, t1, d;

	t0 = tsc_begin();
	op(c, buf, iters);
	t1 = tsc_end();
	d = t1 - t0;
	return d > bench_timer_overhead ? d - bench_timer_overhead : 0;
}

/* One timed batch of the case, per op; with irq_count, a batch of the
 * planned size is split by whether it took an interrupt (bench_irq_split) */
static u64 timed_case(const struct bench_case *c, u8 *buf, struct bench_result *r, u64 iters)
{
	u32 before = c->irq_count ? *c->irq_count : 0;
	u64 per_op = timed(c->op, c, buf, iters) / iters;
	u32 taken = c->irq_count ? *c->irq_count - before : 0;

	if (c->irq_count && iters == r->iters) {
		if (!taken && r->irq.batches[0] < BENCH_MAX_SAMPLES)
			none_samples[r->irq.batches[0]] = per_op;
		r->irq.batches[taken != 0]++;
		r->irq.op_sum[taken != 0] += per_op;
		r->irq.taken += taken;
	}
	return per_op;
}

static u64 timed_control(const struct bench_case *c, u8 *buf, struct bench_result *r,
			 u64 iters)
{
	u64 per_op = timed(c->control, c, buf, iters) / iters;

	if (c->irq_count && iters == r->iters) {
		r->irq.ctl_batches++;
		r->irq.ctl_op_sum += per_op;
	}
	return per_op;
}

/* Sample i of the case and of its control, per op; odd samples time the
 * control first so that neither side always follows the other. */
static void take_sample(const struct bench_case *c, u8 *buf, struct bench_result *r,
			u64 iters, u32 i)
{
	bool ctl = has_control(c) && !counting() && !c->control_after;
	bool ctl_first = ctl && (i & 1);

	if (ctl_first)
		ctl_samples[i] = timed_control(c, buf, r, iters);
	if (c->prime) {
		c->op(c, buf, c->prime);
		r->ops += c->prime;
	}
	samples[i] = timed_case(c, buf, r, iters);
	if (c->settle)
		c->settle(c);
	if (ctl && !ctl_first)
		ctl_samples[i] = timed_control(c, buf, r, iters);
	r->ops += iters;
}

/* Forward: the stability rule, shared with the samples after a window. */
static bool close_to(u64 a, u64 b, u64 ref);

/*
 * With exit counting (sync=on) the counted window must hold the case's
 * exits only: a software backend's exit counter also ticks with emulated
 * instructions, which a control is made of.  The control's samples, of
 * the same batch, then follow the window instead of interleaving (so they
 * do for a case with control_after, counted or not): up to
 * the case's sample count and at most CTL_AFTER_MAX (a control has no
 * exits to average over, and rep movs alone can cost ten times its REP
 * case here), stopped earlier by the case's own rule: at the checkpoints
 * 3, 5, 8, ... the control's minimum and p10 moved by at most 0.5 % of
 * the case's minimum and p10 (what they would shift cycles_net by) since
 * the last checkpoint.  Returns how many.
 */
static u32 control_after_window(const struct bench_case *c, u8 *buf, u64 iters, u32 n)
{
	u64 case_min, case_p10, min = 0, p10 = 0, now_p10;
	u32 i = 0, check = FIRST_CHECK, max = n < CTL_AFTER_MAX ? n : CTL_AFTER_MAX;
	bool have_prev = false;

	if (!has_control(c))
		return n;
	stats_sort(samples, n);
	case_min = samples[0];
	case_p10 = stats_percentile(samples, n, 100);
	while (i < max) {
		ctl_samples[i] = timed(c->control, c, buf, iters) / iters;
		if (++i < check)
			continue;
		stats_sort(ctl_samples, i);
		now_p10 = stats_percentile(ctl_samples, i, 100);
		if (have_prev && close_to(min, ctl_samples[0], case_min) &&
		    close_to(p10, now_p10, case_p10))
			break;
		min = ctl_samples[0];
		p10 = now_p10;
		have_prev = true;
		check = i + (i + 1) / 2;
	}
	return i;
}

static u64 sample_goal(void)
{
	u64 goal = bench_timer_overhead * GOAL_OVERHEAD_X;

	return goal < GOAL_MIN_CYCLES ? GOAL_MIN_CYCLES : goal;
}

static u64 median3(u64 a, u64 b, u64 c)
{
	if (a > b) {
		u64 t = a;
		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

/*
 * Size the batch from single-op probes, robust to one outlier: two probes
 * that both reach the goal mean one op per sample (at most one of them is
 * disturbed, so the op really is that long); otherwise the median of three
 * decides.  Probes of one op per sample are kept as samples when the batch
 * is one op.  warm: the warm-up op, a probe itself when it is long.
 * Returns the samples kept.
 */
static u32 plan_batch(const struct bench_case *c, u8 *buf, struct bench_result *r, u64 warm)
{
	u64 goal = sample_goal(), est;
	u32 k = 0;

	if (warm >= WARM_AS_SAMPLE) {
		samples[0] = warm;
		if (has_control(c) && !counting())
			ctl_samples[0] = timed(c->control, c, buf, 1);
		k = 1;
	}
	while (k < 2)
		take_sample(c, buf, r, 1, k++);
	if (samples[0] >= goal && samples[1] >= goal) {
		r->iters = 1;
		return k;
	}
	take_sample(c, buf, r, 1, k++);
	est = median3(samples[0], samples[1], samples[2]);
	r->iters = est >= goal ? 1 : (goal + est - 1) / (est ? est : 1);
	if (r->iters > MAX_ITERS)
		r->iters = MAX_ITERS;
	return r->iters == 1 ? k : 0;
}

/* The statistics a verdict may use: minimum and p10, case and control. */
struct low_stats {
	u64 min, p10, ctl_min, ctl_p10;
};

static void low_stats(const struct bench_case *c, u32 n, struct low_stats *l)
{
	stats_sort(samples, n);
	l->min = samples[0];
	l->p10 = stats_percentile(samples, n, 100);
	l->ctl_min = l->ctl_p10 = 0;
	if (has_control(c) && !counting()) {
		stats_sort(ctl_samples, n);
		l->ctl_min = ctl_samples[0];
		l->ctl_p10 = stats_percentile(ctl_samples, n, 100);
	}
}

/* a and b within 0.5 % of ref (or one cycle, the figures' resolution) */
static bool close_to(u64 a, u64 b, u64 ref)
{
	u64 d = a > b ? a - b : b - a;

	return d <= 1 || d * STABLE_PER <= ref;
}

/* The control's moves are judged against the case's figure: that is what
 * they shift cycles_net by. */
static bool low_stable(const struct low_stats *prev, const struct low_stats *now)
{
	return close_to(prev->min, now->min, now->min) &&
	       close_to(prev->p10, now->p10, now->p10) &&
	       close_to(prev->ctl_min, now->ctl_min, now->min) &&
	       close_to(prev->ctl_p10, now->ctl_p10, now->p10);
}

/* The cheapest of the n samples kept so far (one op each when n > 0):
 * a disturbed one must not lower the floor below. */
static u64 kept_min(u32 n)
{
	u64 m = samples[0];

	while (n--)
		if (samples[n] < m)
			m = samples[n];
	return m;
}

/*
 * The fewest samples a budget stop may leave, from what one sample costs:
 * BENCH_MIN_SAMPLES (past the second stability checkpoint, so a cheap case
 * is judged at least once, and enough for the host to bracket a speed-up
 * whose rule did not settle), unless that many would take longer than
 * LONG_CASE_MS: then as many as fit, at least LONG_MIN_SAMPLES (such a
 * sample averages thousands of exits itself).  0 cost: not known yet.
 */
u32 bench_min_samples(u64 sample_cycles, u64 khz)
{
	u64 fit;

	if (!sample_cycles)
		return BENCH_MIN_SAMPLES;
	fit = (u64)LONG_CASE_MS * khz / sample_cycles;
	if (fit >= BENCH_MIN_SAMPLES)
		return BENCH_MIN_SAMPLES;
	return fit > LONG_MIN_SAMPLES ? (u32)fit : LONG_MIN_SAMPLES;
}

/*
 * Add samples until stable, the cap or the budget.  Stability is judged
 * at checkpoints n = 3, 5, 8, 12, ... (each half again the last): stable
 * when no statistic moved by more than 0.5 % since the last checkpoint.
 * A case whose budget is spent leaves at least the floor however it
 * stops: a long case judged stable at 5 takes its sixth sample, which
 * the host's interval of a speed-up needs (tools/trapmeterlib/stats/
 * medianci.py); a cheap one stops at once, as before.  stable=off
 * (`trapmeter kut`) leaves the budget or the cap to stop every case.
 */
static u32 sample_adaptive(const struct bench_case *c, u8 *buf, struct bench_result *r,
			   u32 n, u64 start)
{
	u64 budget = (u64)bench_cfg->budget_ms * tsc.khz / round_of;
	u32 max = plan_round_samples(bench_cfg->samples, round_of), check = FIRST_CHECK;
	u32 floor = bench_min_samples(n ? kept_min(n) : 0, tsc.khz);
	struct low_stats prev = { 0 }, now;
	bool have_prev = false, stable = false, spent;

	for (;;) {
		if (n >= check) {
			low_stats(c, n, &now);
			stable = stable || (bench_cfg->stable && have_prev &&
					    low_stable(&prev, &now));
			prev = now;
			have_prev = true;
			check = n + (n + 1) / 2;
		}
		spent = tsc_begin() - start >= budget;
		if (stable && (n >= floor || !spent)) {
			r->stop = STOP_STABLE;
			return n;
		}
		if (n >= max) {
			r->stop = STOP_MAX;
			return n;
		}
		if (n >= floor && spent) {
			r->stop = STOP_BUDGET;
			return n;
		}
		take_sample(c, buf, r, r->iters, n++);
	}
}

static u32 sample_fixed(const struct bench_case *c, u8 *buf, struct bench_result *r,
			const struct plan_entry *e)
{
	u32 i, n;

	r->fixed = true;
	r->stop = STOP_PLAN;
	r->iters = e->iters;
	n = plan_round_samples(e->samples, round_of);
	for (i = 0; i < n; i++)
		take_sample(c, buf, r, r->iters, i);
	return n;
}

/*
 * Schema 3 sends statistics as arrays in a fixed order (docs/design.md,
 * "The dump"): the cycles of the case {min, p10, median, p90, p99, max,
 * mean, stddev}, of its control {min, p10, median, p90, max}.  Every byte
 * on COM1 costs tens of microseconds under a software hypervisor; the
 * host names them again and derives the rest (net, per unit, ns).
 */
static void emit_stats(struct jw *w, const char *key, const struct stats *s, bool all)
{
	u64 v[8] = { s->min, s->p10, s->median, s->p90, s->p99, s->max, s->mean, s->stddev };

	if (!all) {
		v[3] = s->p90;
		v[4] = s->max;
	}
	jw_u64s(w, key, v, all ? 8 : 5);
}

/* {polls e0 m0 m1 c0 c1, timeouts, window_cycles, count_ops}: a case has
 * no e0 point, but its place stays 0 in the schema-4 array that
 * tools/trapmeterlib/values/resultform.py reads by position. */
static void emit_sync(struct jw *w, const struct sync_record *y)
{
	u64 v[1 + SYNC_PHASES + 3];
	u32 i = 0;

	v[i++] = 0;
	for (u32 p = 0; p < SYNC_PHASES; p++)
		v[i++] = y->polls[p];
	v[i++] = y->timeouts;
	v[i++] = y->window_cycles;
	v[i++] = y->count_ops;
	jw_u64s(w, "sync", v, i);
}

static const char *const stop_names[] = {
	[STOP_STABLE] = "stable", [STOP_BUDGET] = "budget", [STOP_MAX] = "max",
	[STOP_PLAN] = "plan",
};

static void emit_case_fields(struct jw *w, const struct bench_case *c)
{
	jw_str(w, "suite", c->suite);
	jw_str(w, "case", c->name);
	jw_str(w, "target", c->target);
	jw_hex(w, "port", c->port);
	jw_str(w, "handler", handler_name(c->handler));
	jw_str(w, "dir", dir_name(c->dir));
	jw_u64(w, "width", c->width);
	jw_str(w, "method", bench_method_name(c->method));
	if (c->method == METHOD_REP)
		jw_str(w, "rep_impl", c->rep_as_loop ? "loop" : "rep");
	jw_u64(w, "bytes", c->bytes);
	jw_u64(w, "buf_offset", c->buf_offset);
	if (c->prime) {
		jw_bool(w, "primed", true);
		jw_u64(w, "prime_ops", c->prime);
	}
}

static void emit_timing(struct jw *w, const struct bench_result *r)
{
	if (round_of > 1)
		jw_u64(w, "round", round_now);
	jw_u64(w, "samples", r->cycles.n);
	jw_u64(w, "iters", r->iters);
	jw_str(w, "stop", stop_names[r->stop]);
	emit_stats(w, "cycles", &r->cycles, true);
	if (r->control.n)
		emit_stats(w, "cycles_control", &r->control, false);
	jw_u64(w, "exits_model", r->exits_model);
	jw_u64(w, "ops", r->ops);
	jw_dec(w, "case_ms", r->case_cycles, tsc.khz, 1);
}

/* The console's table: what a person watching the serial line needs, in
 * as few bytes and instructions as it can be (each costs microseconds
 * under a software hypervisor); the runner's table adds the derived
 * columns from the result line, and the runner turns this one off
 * (table=off: ~8 ms a case here; the result line carries it all). */
static void print_result(const struct bench_case *c, const struct bench_result *r)
{
	const char *method = c->rep_as_loop ? "rep=lp" : bench_method_name(c->method);

	if (!bench_cfg->table)
		return;
	if (!r->control.n) {
		kprintf("  %-30s %-6s %6u %12lu %12s %12s %6u %3u %s\n", c->name, method,
			c->bytes, r->cycles.median, "-", "-", r->exits_model, r->cycles.n,
			stop_names[r->stop]);
		return;
	}
	kprintf("  %-30s %-6s %6u %12lu %12lu %12ld %6u %3u %s\n", c->name, method,
		c->bytes, r->cycles.median, r->control.median,
		(s64)(r->cycles.median - r->control.median), r->exits_model, r->cycles.n,
		stop_names[r->stop]);
}

/*
 * A round after the first (docs/design.md, "The dump"): what changes
 * between rounds, in short keys; the suite, the round (both from the suite
 * line), the case's fields and exits_model come from round 0.  Left out
 * when the host knows them: n and i (samples, iters) under a plan, i when
 * 1, stop when "stable" or "plan", ops when n * i.
 */
static void emit_round(const struct bench_case *c, const struct bench_result *r)
{
	char line[JSON_LINE_MAX];
	struct jw w;

	jw_record(&w, line, sizeof(line), "round");
	jw_str(&w, "case", c->name);
	if (!r->fixed) {
		jw_u64(&w, "n", r->cycles.n);
		if (r->iters != 1)
			jw_u64(&w, "i", r->iters);
		if (r->stop != STOP_STABLE)
			jw_str(&w, "stop", stop_names[r->stop]);
	}
	if (r->ops != (u64)r->cycles.n * r->iters)
		jw_u64(&w, "ops", r->ops);
	jw_dec(&w, "ms", r->case_cycles, tsc.khz, 1);
	emit_stats(&w, "c", &r->cycles, true);
	if (r->control.n)
		emit_stats(&w, "k", &r->control, false);
	jw_obj_end(&w);
	tm_record(&w);
}

/* The batches split by interrupts: [took none, took some], the mean
 * cycles per op of each kind and of the control's (null where no batch
 * of that kind ran), the median of those that took none, and the
 * interrupts inside them */
static void emit_irq_split(struct jw *w, const struct bench_irq_split *s)
{
	jw_u64s(w, "irq_batches", s->batches, 2);
	jw_dec(w, "irq_op_cycles_none", s->op_sum[0], s->batches[0], 0);
	jw_dec(w, "irq_op_cycles_some", s->op_sum[1], s->batches[1], 0);
	jw_dec(w, "irq_op_median_none", s->median_none, s->batches[0] ? 1 : 0, 0);
	jw_u64(w, "irq_in_batches", s->taken);
	jw_dec(w, "irq_ctl_op_cycles", s->ctl_op_sum, s->ctl_batches, 0);
}

static void emit_full(const struct bench_case *c, const struct bench_result *r)
{
	char line[JSON_LINE_MAX];
	struct jw w;

	jw_record(&w, line, sizeof(line), "result");
	emit_case_fields(&w, c);
	emit_timing(&w, r);
	if (!has_control(c))
		jw_str(&w, "control_none", c->control ? "controls=off (kernel word)" :
		       c->no_control ? c->no_control : "none declared");
	else if (c->control_after || counting())
		jw_str(&w, "control_order", "after");	/* else interleaved */
	if (counting())
		emit_sync(&w, &r->sync);
	if (c->irq_count)
		emit_irq_split(&w, &r->irq);
	if (c->extra)
		c->extra(c, r, &w);
	if (c->kut_name)
		jw_str(&w, "kut_name", c->kut_name == bench_no_kut ? NULL : c->kut_name);
	jw_obj_end(&w);
	tm_record(&w);
}

static void emit_result(const struct bench_case *c, const struct bench_result *r)
{
	if (round_now)
		emit_round(c, r);
	else
		emit_full(c, r);
	if (round_now + 1 == round_of)	/* one LAVA case per case, not per round */
		lava_case("", c->name, r->mismatches ? LAVA_FAIL : LAVA_PASS,
			  r->cycles.median, "cycles");
	if (round_now == 0)	/* the console's table: the first round */
		print_result(c, r);
}

/*
 * Warm-up (outside the sync window), then the samples inside it: a fixed
 * plan's, or batch sizing and adaptive sampling; with sync=on bracketed by
 * phase points m0 and m1 (the host subtracts the sync traffic it measured
 * once per boot, kernel/phase_sync.h), and, when the host asks, the case's
 * ops once more untimed for its tracing counter.  Returns the sample count.
 */
static u32 measure(const struct bench_case *c, u8 *buf, struct bench_result *r,
		   const struct plan_entry *e)
{
	bool sync = counting();
	u64 start = tsc_begin(), warm, t0, t1;
	u32 n;

	warm = timed(c->op, c, buf, 1);
	if (c->settle)
		c->settle(c);
	if (has_control(c) && warm < WARM_AS_SAMPLE)
		timed(c->control, c, buf, 1);
	if (sync)
		sync_begin(&r->sync);
	t0 = tsc_begin();
	if (e) {
		n = sample_fixed(c, buf, r, e);
	} else {
		n = plan_batch(c, buf, r, warm);
		n = sample_adaptive(c, buf, r, n, start);
	}
	t1 = tsc_end();
	if (sync && sync_end(&r->sync, t1 - t0)) {
		sync_point(SYNC_C0, &r->sync);
		c->op(c, buf, r->iters);
		r->sync.count_ops = r->iters;
		sync_point(SYNC_C1, &r->sync);
	}
	r->control_n = sync || c->control_after ?
		control_after_window(c, buf, r->iters, n) : n;
	if (bench_cfg->verbose)
		kprintf("  [%s: warm op %lu cycles, %lu ops/sample, %u samples, stop %s]\n",
			c->name, warm, r->iters, n, stop_names[r->stop]);
	return n;
}

/* With a plan, only planned cases run; NULL entry means adaptive. */
static bool planned(const struct bench_case *c, struct plan_entry **e)
{
	*e = NULL;
	if (!plan_loaded)
		return true;
	*e = plan_find(&plan, c->suite, c->name);
	return *e != NULL;
}

u32 bench_selection_queries;

bool bench_selected(const struct bench_case *c)
{
	struct plan_entry *e;

	bench_selection_queries++;
	return cmdline_case_selected(bench_cfg, c->name) && planned(c, &e);
}

/* The median per op of the batches that took no interrupt (0: none ran) */
static u64 none_median(const struct bench_irq_split *s)
{
	u32 n = s->batches[0] < BENCH_MAX_SAMPLES ? s->batches[0] : BENCH_MAX_SAMPLES;

	stats_sort(none_samples, n);
	return stats_percentile(none_samples, n, 500);
}

int bench_run(const struct bench_case *c, struct bench_result *r)
{
	u8 *buf = buffer + c->buf_offset;
	struct plan_entry *e;
	const char *why;
	u64 start;
	u32 n;

	if (!cmdline_case_selected(bench_cfg, c->name) || !planned(c, &e))
		return -1;
	if (e)
		e->used = true;
	if (c->skip && (why = c->skip(c))) {
		if (!round_now)		/* said once, not once a round */
			skip_record(c->suite, c->name, c->kut_name, why);
		return -1;
	}
	emit_case_start(c);
	kmemset(r, 0, sizeof(*r));
	start = tsc_begin();
	n = measure(c, buf, r, e);
	stats_compute(samples, n, &r->cycles);
	if (has_control(c))	/* its line carries no mean or stddev */
		stats_order(ctl_samples, r->control_n, &r->control);
	if (c->irq_count)
		r->irq.median_none = none_median(&r->irq);
	r->exits_model = c->exits_model ? c->exits_model(c, buf) : 0;
	if (c->verify)
		r->mismatches = c->verify(c, buf);
	r->case_cycles = tsc_end() - start;
	emit_result(c, r);
	return r->mismatches ? 1 : 0;
}

struct bench_case *bench_table_add(struct bench_table *t)
{
	struct bench_case *c;
	u8 *s;

	if (t->n == t->max)
		return NULL;
	c = &t->cases[t->n];
	s = t->state + (size_t)t->n * t->state_size;
	kmemset(c, 0, sizeof(*c));
	kmemset(s, 0, t->state_size);
	c->priv = s;
	t->n++;
	return c;
}

void bench_run_cases(const struct tm_config *cfg, struct bench_case *cases, u32 n,
		     bench_prepare_fn prepare, struct bench_tally *t)
{
	struct bench_result r;
	u32 i;

	for (i = 0; i < n; i++) {
		if (!cmdline_case_selected(cfg, cases[i].name))
			continue;
		if (prepare)
			prepare(&cases[i]);
		if (bench_run(&cases[i], &r) < 0)
			continue;
		t->ran++;
		if (r.mismatches && !t->bad++)
			t->first_bad = cases[i].name;
	}
}

int bench_load_plan(char *err, size_t errlen)
{
	struct fw_cfg_file f;

	if (fw_cfg_find(PLAN_FW_CFG_NAME, &f) != 0)
		return 0;
	if (f.size > sizeof(plan_text)) {
		fmt_snprintf(err, errlen, "%s: %u bytes, more than %u", PLAN_FW_CFG_NAME,
			     f.size, (u32)sizeof(plan_text));
		return -EINVAL;
	}
	fw_cfg_read(f.select, plan_text, f.size);
	if (plan_parse(plan_text, f.size, &plan, err, errlen))
		return -EINVAL;
	plan_loaded = true;
	kprintf("plan: %u cases with fixed iters and samples (%s)\n", plan.n,
		PLAN_FW_CFG_NAME);
	return 0;
}

void bench_plan_report(void)
{
	u32 i;

	for (i = 0; plan_loaded && i < plan.n; i++)
		if (!plan.entries[i].used)
			bench_skip(plan.entries[i].suite, plan.entries[i].name,
				   "planned, but no such case ran (not in this kernel's tables, not selected, or skipped)");
}

void bench_check(const char *name, bool ok, const char *detail)
{
	char line[512];
	struct jw w;

	if (!ok)
		failed_checks++;
	jw_record(&w, line, sizeof(line), "check");
	jw_str(&w, "name", name);
	jw_bool(&w, "ok", ok);
	jw_str(&w, "detail", detail);
	jw_obj_end(&w);
	kprintf("  check %-28s %s  %s\n", name, ok ? "ok" : "FAILED", detail);
	tm_record(&w);
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

/* A skip line; a case with a kvm-unit-tests twin names it, so the twin
 * reads as skipped by name too. */
static void skip_record(const char *suite, const char *case_name, const char *kut,
			const char *reason)
{
	char line[512];
	struct jw w;

	jw_record(&w, line, sizeof(line), "skip");
	jw_str(&w, "suite", suite);
	jw_str(&w, "case", case_name);
	jw_str(&w, "reason", reason);
	if (kut && kut != bench_no_kut)
		jw_str(&w, "kut_name", kut);
	jw_obj_end(&w);
	if (kstrcmp(case_name, "*") == 0)
		cmdline_note_suite_skipped();
	kprintf("  %-30s skipped: %s\n", case_name, reason);
	tm_record(&w);
	lava_skip(suite, case_name);
}

void bench_skip(const char *suite, const char *case_name, const char *reason)
{
	skip_record(suite, case_name, NULL, reason);
}

u32 bench_failed_checks(void)
{
	return failed_checks;
}
