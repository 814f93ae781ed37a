/*
 * kernel/suites/exits_ple.c - suite "exits" (extended), kvm-unit-tests
 * x86/vmexit's ple_round_robin: two vCPUs pass a token round and round,
 * each waiting for it in a PAUSE loop.  QEMU: `-smp 2` (the runner passes
 * it when case= selects ple.*, or with --smp 2); the AP is irq.c's, which
 * runs our side of the loop from its IPI handler (exits_ap_run).
 *
 * One op is one round trip of the token: the BSP passes it to the AP and
 * waits in a PAUSE loop until the AP passes it back (vmexit's figure is
 * the same round trip, timed on its first vCPU).  The control is the same
 * two loops with `nop` in place of `pause`: PAUSE-loop exiting counts
 * PAUSEs only, so the control cannot exit and net = what PAUSE adds to
 * the hand-off, its own latency and any PLE exit.
 *
 * Exit model (KVM arch/x86/kvm/x86.h, vmx/vmx.c, svm/svm.c):
 *   VMX: PAUSE-loop exiting fires when PAUSEs no more than ple_gap (128)
 *        cycles apart span more than ple_window (4096 cycles, grown x2 on
 *        every PLE exit up to UINT_MAX, shrunk when the vCPU is scheduled
 *        back in); handle_pause grows the window and yields to a vCPU that
 *        was preempted (kvm_vcpu_on_spin).
 *   SVM: the pause filter: pause_filter_count (3000) PAUSEs, each within
 *        pause_filter_thresh (128) cycles of the last, then #VMEXIT(PAUSE);
 *        the count grows the same way up to USHRT_MAX.
 *   With both vCPUs running a hand-off takes far less than the window:
 *   0 exits per op.  An exit comes only when the AP's vCPU thread is
 *   preempted while the BSP waits (a loaded host), and none at all where
 *   PAUSE does not exit: `-overcommit cpu-pm=on` (KVM_X86_DISABLE_EXITS_
 *   PAUSE), ple_gap=0 / pause_filter_count=0, the PVM backend (the guest
 *   runs in hardware ring 3 without VMX/SVM: PAUSE is unprivileged and runs
 *   natively; kvm_pvm has no PLE parameter), and TCG (no VM exits; QEMU's
 *   PAUSE helper only ends the translation block).
 * So the model is 0 everywhere, and the result says which of these holds
 * ("ple"): where PLE is absent the figure is the plain token round trip,
 * the same loop vmexit times there.
 *
 * Every wait for the token is bounded (PLE_WAIT_US); a wait that times
 * out ends the batch, is counted, and fails the case's check.
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"

#define PLE_WAIT_US      1000000  /* one hand-off, a preempted vCPU included */
#define PLE_IDLE_US      5000000  /* the AP's wait for its next order */
#define PLE_POLL_MASK    255      /* read the TSC every 256 spins */
#define CACHE_LINE       64
#define CPUID_HV_BIT     (1u << 31)     /* CPUID 1 ECX: a hypervisor */
#define CPUID_KVM_BASE   0x40000000u
#define CPUID_KVM_FEAT   0x40000001u
#define KVM_HINTS_REALTIME (1u << 0)    /* EDX: vCPUs never preempted, PAUSE not intercepted */
#define KVM_SIG_EBX      0x4b4d564bu    /* "KVMKVMKVM" */

enum ple_kind { PLE_PAUSE, PLE_NOP };
enum ple_cmd { CMD_IDLE, CMD_RUN, CMD_STOP };

/* vmexit's counter: n1 is bumped by the other vCPU, n2 is the last n1
 * this one took; a vCPU holds the token while they differ. */
struct ple_counter {
	volatile u32 n1;
	u32 n2;
	u64 passes;                          /* tokens this vCPU passed on */
	u64 timeouts;                        /* its waits that timed out */
} __attribute__((aligned(CACHE_LINE)));
_Static_assert(sizeof(struct ple_counter) == CACHE_LINE, "one line per vCPU");

static struct ple_counter counter[2];   /* [0] the BSP's, [1] the AP's */

/* The BSP's orders to the AP, one line of their own. */
static struct {
	volatile u32 cmd;                    /* enum ple_cmd */
	volatile u32 seq;                    /* bumped per order */
	volatile u32 kind;                   /* enum ple_kind */
	volatile u64 iters;
	volatile u32 done;                   /* seq of the last order finished */
	volatile bool alive;                 /* the AP is in ple_ap_loop */
} __attribute__((aligned(CACHE_LINE))) order;

static u64 wait_ticks, idle_ticks;

static void spin(enum ple_kind kind)
{
	if (kind == PLE_PAUSE)
		__asm__ volatile("pause" ::: "memory");
	else
		__asm__ volatile("nop" ::: "memory");
}

/* Wait for the token (bounded), take it, pass it on: vmexit's loop body. */
static bool pass(u32 me, enum ple_kind kind)
{
	struct ple_counter *p = &counter[me];
	u64 start = tsc_begin(), spins = 0;

	while (p->n1 == p->n2) {
		spin(kind);
		if (!(++spins & PLE_POLL_MASK) && tsc_begin() - start > wait_ticks)
			return false;
	}
	p->n2 = p->n1;
	counter[me ^ 1].n1++;
	p->passes++;
	return true;
}

static void rounds(u32 me, enum ple_kind kind, u64 iters)
{
	while (iters--) {
		if (!pass(me, kind)) {
			counter[me].timeouts++;
			return;
		}
	}
}

/* The AP's side, from irq.c's job IPI (IF=0): orders until CMD_STOP, or
 * until no order came within PLE_IDLE_US (the BSP gave up). */
static void ple_ap_loop(void)
{
	u32 seen = order.seq;
	u64 start = tsc_begin();

	order.alive = true;
	for (;;) {
		if (order.seq == seen) {
			cpu_relax();
			if (tsc_begin() - start > idle_ticks)
				break;
			continue;
		}
		seen = order.seq;
		if (order.cmd == CMD_STOP)
			break;
		rounds(1, order.kind, order.iters);
		barrier();
		order.done = seen;
		start = tsc_begin();
	}
	order.alive = false;
}

/* Bounded wait for the AP to finish order `seq`. */
static bool ap_finished(u32 seq)
{
	u64 start = tsc_begin();

	while (order.done != seq) {
		cpu_relax();
		if (tsc_begin() - start > wait_ticks)
			return false;
	}
	return true;
}

/* One batch: the token starts at the BSP each time, so a batch cut short
 * by a timeout leaves the next one a clean start. */
static void batch(enum ple_kind kind, u64 iters)
{
	u32 seq;

	if (!order.alive) {
		counter[0].timeouts++;
		return;
	}
	counter[0].n1 = 1;
	counter[0].n2 = 0;
	counter[1].n1 = counter[1].n2 = 0;
	order.kind = kind;
	order.iters = iters;
	order.cmd = CMD_RUN;
	barrier();
	seq = ++order.seq;
	rounds(0, kind, iters);
	if (!ap_finished(seq))
		counter[0].timeouts++;
}

static void op_ple(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	batch(PLE_PAUSE, iters);
}

static void ctl_ple(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	batch(PLE_NOP, iters);
}

/* Where PAUSE cannot exit, as the guest can tell; NULL: the host's KVM
 * decides (ple_gap / pause_filter_count, not visible to the guest). */
static const char *ple_absent(void)
{
	bool kvm;

	if (bench_cfg->pvm)
		return "absent: PVM backend (the guest runs in ring 3 without VMX/SVM; PAUSE runs natively)";
	kvm = (cpuid(1, 0).ecx & CPUID_HV_BIT) && cpuid(CPUID_KVM_BASE, 0).ebx == KVM_SIG_EBX;
	if (!kvm)
		return "absent: no KVM signature at CPUID 0x40000000 (TCG: no VM exits)";
	if (cpuid(CPUID_KVM_FEAT, 0).edx & KVM_HINTS_REALTIME)
		return "absent: KVM_HINTS_REALTIME (-overcommit cpu-pm=on: PAUSE not intercepted)";
	return NULL;
}

static const char *skip_ple(const struct bench_case *c)
{
	const char *why;
	u64 start;

	(void)c;
	if (exits_vcpu_count() < 2)
		return "one vCPU: ple.round_robin passes a token between two (-smp 2; the runner passes it when case= selects ple.*, or with --smp 2)";
	wait_ticks = (u64)PLE_WAIT_US * tsc.khz / 1000;
	idle_ticks = (u64)PLE_IDLE_US * tsc.khz / 1000;
	kmemset(counter, 0, sizeof(counter));
	order.cmd = CMD_IDLE;
	order.done = order.seq;
	why = exits_ap_run(ple_ap_loop);
	if (why)
		return why;
	start = tsc_begin();
	while (!order.alive && tsc_begin() - start < wait_ticks)
		cpu_relax();
	return order.alive ? NULL : "the AP did not take the ple job within 1 s of its IPI";
}

/* Every op a round trip: as many passes on each side, none timed out. */
static u32 verify_ple(const struct bench_case *c, const u8 *buf)
{
	u64 a = counter[0].passes, b = counter[1].passes;
	u64 bad = counter[0].timeouts + counter[1].timeouts + (a > b ? a - b : b - a);

	(void)c;
	(void)buf;
	return bad > 0xffffffffull ? 0xffffffffu : (u32)bad;
}

static u32 model_ple(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return 0;
}

static void extra_ple(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	const char *why = ple_absent();

	(void)c;
	(void)r;
	jw_str(w, "ple", why ? why : "the host's (VMX ple_gap/ple_window, SVM pause filter): 0 exits while both vCPUs run");
	jw_u64(w, "passes_bsp", counter[0].passes);
	jw_u64(w, "passes_ap", counter[1].passes);
	jw_u64(w, "wait_timeouts", counter[0].timeouts + counter[1].timeouts);
}

static const struct bench_case ple_case = {
	.suite = "exits", .name = "ple.round_robin", .target = "cpu", .handler = HANDLER_KERNEL,
	.method = METHOD_SINGLE, .op = op_ple, .control = ctl_ple, .exits_model = model_ple,
	.skip = skip_ple, .verify = verify_ple, .extra = extra_ple,
	.kut_name = "ple_round_robin" };

void exits_ple_run(void)
{
	struct bench_result r;
	char detail[128];
	int rc;

	rc = bench_run(&ple_case, &r);
	if (order.alive) {
		order.cmd = CMD_STOP;
		barrier();
		order.seq++;
	}
	if (rc < 0)
		return;
	fmt_snprintf(detail, sizeof(detail), "%lu BSP and %lu AP passes, %lu waits timed out (%u us each)",
		     counter[0].passes, counter[1].passes, counter[0].timeouts + counter[1].timeouts,
		     PLE_WAIT_US);
	bench_check("exits.ple.round_robin", rc == 0, detail);
}
