/*
 * kernel/bench.h - the benchmark framework.  A suite is a table of cases;
 * the framework, not the case, does warm-up, batch sizing, fenced TSC
 * reads, overhead subtraction, the control op, adaptive sampling (or a
 * fixed plan from the runner), statistics and output.
 */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include "lib/types.h"
#include "lib/stats.h"
#include "kernel/cmdline.h"
#include "kernel/phase_sync.h"

/* Who answers the access: QEMU (user), KVM itself (kernel), KVM queueing
 * writes in its coalesced ring for QEMU (coalesced), or KVM signalling an
 * eventfd QEMU registered (ioeventfd). */
enum bench_handler { HANDLER_NONE, HANDLER_USER, HANDLER_KERNEL, HANDLER_COALESCED,
		     HANDLER_IOEVENTFD };
enum bench_dir { DIR_NONE, DIR_IN, DIR_OUT };
enum bench_method { METHOD_SINGLE, METHOD_REP, METHOD_DMA };

struct bench_case;
struct bench_result;
struct jw;
/* Perform the case's operation `iters` times on `buf`. */
typedef void (*bench_op_fn)(const struct bench_case *c, u8 *buf, u64 iters);
/* VM exits one operation takes under KVM by the model in docs/design.md. */
typedef u32 (*bench_model_fn)(const struct bench_case *c, const u8 *buf);
/* NULL when the case can run, else why not. */
typedef const char *(*bench_skip_fn)(const struct bench_case *c);
/* After the timed runs: count mismatching bytes in buf (data checks). */
typedef u32 (*bench_verify_fn)(const struct bench_case *c, const u8 *buf);
/* Untimed, after each timed batch of the op (optional). */
typedef void (*bench_settle_fn)(const struct bench_case *c);
/* Append case-specific fields to the result line (optional). */
typedef void (*bench_extra_fn)(const struct bench_case *c, const struct bench_result *r,
			       struct jw *w);

struct bench_case {
	const char *suite;
	const char *name;        /* e.g. "fwcfg.in8.rep.4096" */
	const char *target;      /* "fwcfg", "debugcon", "port80", "pic", ... */
	u16 port;
	u8 handler;              /* enum bench_handler */
	u8 dir;                  /* enum bench_dir */
	u8 width;                /* bytes per unit; 0 when no data moves */
	u8 method;               /* enum bench_method */
	u32 bytes;               /* data moved by one operation */
	u32 buf_offset;          /* buffer offset from a page start */
	u32 arg;                 /* case-private (fw_cfg item, ...) */
	bool rep_as_loop;        /* rep=off: REP case runs the single loop */
	bench_op_fn op;
	/* Optional control: the same loop and data movement as op with no
	 * trapping instruction (a RAM load/store in place of in/out, ...);
	 * timed interleaved with op, subtracted for cycles_net.  It must not
	 * write buf (verify reads what op left there). */
	bench_op_fn control;
	/* The control's samples follow the case's (as with exit counting)
	 * instead of interleaving: for an op that wakes a halted vCPU, whose
	 * halt an interleaved control batch would stretch past KVM's
	 * halt-poll window, so that each sample's first op woke it from
	 * sleep (the on_cpu cases: 10-17 % of wake-ups slept, against 0.3 %
	 * in vmexit's back-to-back loop). */
	bool control_after;
	/* Run untimed after each batch of op: an op that leaves an interrupt
	 * on its way (a TSC deadline of now, armed again by every op) has it
	 * taken here, not in the control's batch that follows (there it
	 * put tscdeadline.immed.insn.paired's control's p90 at 1.29-1.33 of
	 * its p10; settled, 1.02-1.06). */
	bench_settle_fn settle;
	/* Run one op untimed before each sample: for an op that waits for
	 * an interrupt, which PVM's instruction emulator takes only where a
	 * batch of kvm_pvm.pvm_emul_batch instructions ends, so that the
	 * timed ops start at such an end.  Unprimed, the framework's code
	 * between samples (112 emulated instructions, perf) ran inside the
	 * first op's batch, untimed, and tscdeadline.insn read 4.8 % under
	 * a batch (docs/measurements.md, "primed").  More than one: for an
	 * op that wakes a halted vCPU, so that the framework's code between
	 * samples, which outlasts KVM's halt-poll window, leaves the window
	 * grown again before the timed ops (exits_ipi.c). */
	u8 prime;
	/* Optional: an interrupt counter the op's own interrupts drive.  The
	 * framework reads it around each timed batch of the case and keeps
	 * the batches that took none apart from those that took some (the
	 * result's irq_batches, irq_op_cycles_none, ...: bench_irq_split):
	 * on PVM a pending interrupt is taken where the emulator's batch
	 * ends, so a few of a sample's ops take one and its batches cost one
	 * of two levels. */
	volatile u32 *irq_count;
	/* Without a control: why none is meaningful, sent as the result's
	 * "control_none" (a case without either says "none declared"). */
	const char *no_control;
	bench_model_fn exits_model;
	bench_skip_fn skip;
	bench_verify_fn verify;
	bench_extra_fn extra;
	/* kvm-unit-tests x86/vmexit's name for the same exit, the result's
	 * "kut_name"; BENCH_NO_KUT prints null (a suite that names twins:
	 * this case has none), NULL leaves the field out. */
	const char *kut_name;
	void *priv;              /* the suite's per-case state, or NULL */
};

extern const char bench_no_kut[];
#define BENCH_NO_KUT bench_no_kut

/* Why a case stopped taking samples. */
enum bench_stop { STOP_STABLE, STOP_BUDGET, STOP_MAX, STOP_PLAN };

struct bench_result {
	struct stats cycles;     /* per operation, overhead subtracted */
	struct stats control;    /* the control op's, n == 0 without one */
	u64 iters;               /* operations per sample */
	u64 ops;                 /* case ops inside the sync window */
	u64 case_cycles;         /* TSC from the case's start to its result */
	u32 control_n;           /* control samples taken */
	u32 exits_model;         /* per operation */
	u32 mismatches;          /* from verify, 0 when none */
	u8 stop;                 /* enum bench_stop */
	bool fixed;              /* iters and samples came from the plan */
	struct sync_record sync; /* sync=on: phase points for exit counting */
	struct bench_irq_split {  /* with irq_count: the timed batches of r->iters ops */
		u64 batches[2];  /* that took no interrupt, that took some */
		u64 op_sum[2];   /* their cycles per op, summed */
		u64 taken;       /* interrupts inside them */
		u64 ctl_batches; /* the control's batches of r->iters ops ... */
		u64 ctl_op_sum;  /* ... and their cycles per op, summed */
		u64 median_none; /* the median per op of those that took none */
	} irq;
};

#define BENCH_BUF_SIZE   (65536 + 2 * 4096)
#define BENCH_PAGE       4096

extern const struct tm_config *bench_cfg;
extern u64 bench_timer_overhead;

/* Measure the empty timed region; must run after tsc_init(). */
void bench_init(const struct tm_config *cfg);

/*
 * Load the runner's fixed sample plan (fw_cfg opt/trapmeter/plan, see
 * kernel/plan.h) if there is one.  0, or -EINVAL with a message naming the
 * bad line in err.  With a plan only the planned cases run.
 */
int bench_load_plan(char *err, size_t errlen);

/* Skip lines for planned cases that never ran (call after the suites). */
void bench_plan_report(void);

/*
 * Start pass `round` (from 0) of `of` over a suite's cases (kernel word
 * rounds=): each case then takes 1/of of its samples and budget, and its
 * result line carries "round" when of > 1.  bench_round(0, 1) ends the
 * rounds (suites without them run as one pass).
 */
void bench_round(u32 round, u32 of);

/* Emit the suite header line. */
void bench_suite_begin(const char *suite);

/* Run one case (or report its skip) and emit its result line.
 * Returns 0, 1 when it ran but verify found mismatches, or -1 skipped/not
 * selected. */
int bench_run(const struct bench_case *c, struct bench_result *r);
/* Whether bench_run would run the case (case= globs and the plan), as it
 * decides; a suite with a long table asks once per boot and skips the
 * rest in later rounds (each question costs the glob matching). */
bool bench_selected(const struct bench_case *c);
extern u32 bench_selection_queries;	/* calls of bench_selected, for tests */

/*
 * A suite's table of cases, each with its state beside it (c->priv):
 * bench_table_add hands out the slots in order.  BENCH_TABLE(cases, state)
 * over two static arrays; max is the shorter of the two.
 */
struct bench_table {
	struct bench_case *cases;
	u8 *state;               /* max entries of state_size bytes */
	u32 state_size;
	u32 max;
	u32 n;                   /* cases added */
};
#define BENCH_TABLE(cases_, state_)						\
	{ (cases_), (u8 *)(state_), sizeof((state_)[0]),			\
	  ARRAY_SIZE(cases_) < ARRAY_SIZE(state_) ? ARRAY_SIZE(cases_) :	\
						    ARRAY_SIZE(state_), 0 }

/* The next case of t, zeroed, with c->priv its zeroed state; NULL when t
 * is full (the case is left out). */
struct bench_case *bench_table_add(struct bench_table *t);

/* What a pass over a suite's cases found: the cases that ran and those
 * whose verify found mismatches, the first of them by name.  Zero it
 * before the pass. */
struct bench_tally {
	u32 ran;
	u32 bad;
	const char *first_bad;
};

/* Prepare a selected case just before it runs (device state, buffers). */
typedef void (*bench_prepare_fn)(struct bench_case *c);

/* Each of cases[0..n) that cfg's case= selects: prepare(c) when prepare
 * is not NULL, then bench_run; each case that ran counted in *t. */
void bench_run_cases(const struct tm_config *cfg, struct bench_case *cases, u32 n,
		     bench_prepare_fn prepare, struct bench_tally *t);

/* Emit a check line; failed checks make the run end with check-failed. */
void bench_check(const char *name, bool ok, const char *detail);
void bench_skip(const char *suite, const char *case_name, const char *reason);
u32 bench_failed_checks(void);

/* The fewest samples a budget stop leaves when one sample costs
 * sample_cycles (0: not known yet) at khz; see kernel/bench.c. */
u32 bench_min_samples(u64 sample_cycles, u64 khz);

/* Model helpers shared by suites. */
u32 bench_model_units(const struct bench_case *c, const u8 *buf);
u32 bench_model_rep_in(const struct bench_case *c, const u8 *buf);
u32 bench_model_rep_kernel_out(const struct bench_case *c, const u8 *buf);
u32 bench_model_one(const struct bench_case *c, const u8 *buf);
u32 bench_units(const struct bench_case *c);

/* Page-aligned scratch buffer of BENCH_BUF_SIZE bytes. */
u8 *bench_buffer(void);

const char *bench_method_name(u8 method);

#endif
