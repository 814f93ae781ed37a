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
 *
 * ple.round_robin.insn.paired runs vmexit's op and loop as its build
 * compiles them (smp_id() through %gs:0, the spin with no bound inside;
 * run_test's indirect call an op) on both vCPUs, with vmexit's
 * inl_from_kernel op in that loop for its control: against it, what
 * vmexit's ple_round_robin - inl_from_kernel is, instruction for
 * instruction (trapmeter kut's "same instructions").  vmexit's loop, not
 * suite exits': in a round trip each vCPU can run its loop while the
 * other holds the token, so a loop of another length need not cancel.
 * The AP runs the loop in chunks of PLE_CHUNK ops for the whole case, so
 * the token flows as in vmexit's one long loop: a timed batch is the
 * BSP's ops alone, each one round trip.  The PIT watchdog bounds the
 * spins from outside, kicked between samples: a second without a kick
 * while the BSP is in a batch frees both vCPUs for the rest of the case
 * (each passes the token to itself) and counts a lost wait, which fails
 * its check.
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/string.h"
#include "drivers/pit_watchdog.h"
#include "drivers/platform.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "kernel/suites/exits_vmexit.h"

#define PLE_WAIT_US      1000000  /* one hand-off, a preempted vCPU included */
#define PLE_IDLE_US      5000000  /* the AP's wait for its next order */
#define PLE_POLL_MASK    255      /* read the TSC every 256 spins */
#define PLE_CHUNK        1024     /* the AP's ops per call of vmexit's loop */
#define CACHE_LINE       64
#define CPUID_HV_BIT     (1u << 31)     /* CPUID 1 ECX: a hypervisor */
#define CPUID_KVM_BASE   0x40000000u
#define CPUID_KVM_FEAT   0x40000001u
#define KVM_HINTS_REALTIME (1u << 0)    /* EDX: vCPUs never preempted, PAUSE not intercepted */
#define KVM_SIG_EBX      0x4b4d564bu    /* "KVMKVMKVM" */
#define MSR_GS_BASE      0xc0000101
#define PERCPU_MARK      0x656c70u      /* "ple" at %gs:4: GS reaches the area */
#define PIC2_DATA        0xa1
#define PIC_ALL          0xff

enum ple_kind { PLE_PAUSE, PLE_NOP, PLE_INSN };
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

/* kvm-unit-tests' per-CPU area of each vCPU: its smp_id at %gs:0 */
static u32 percpu_id[2][16] __attribute__((aligned(64)));
static u64 gs_before[2];
static u8 pic_before[2];
/* each vCPU's count of its run_test loop (vmexit's iterations) */
static u32 iterations[2];
static u32 insn_lost;                   /* waits the watchdog ended */
static u64 insn_ops;                    /* the BSP's ops of the case */
static u32 insn_seq;                    /* the AP's order for the case */
static bool insn_astray;                /* a token not back, no wait lost */
static volatile bool insn_busy;         /* the BSP is in a batch */

/* vCPU me runs fn iters times in vmexit's loop (iters >= 1) */
static void run_test(u32 me, void (*fn)(void), u64 iters)
{
	iterations[me] = (u32)iters;
	exits_vmexit_run_test(fn, &iterations[me]);
}

/* GS at vCPU me's area: false where %gs-relative loads do not reach it */
static bool percpu_set(u32 me)
{
	u32 mark;

	percpu_id[me][0] = me;
	percpu_id[me][1] = PERCPU_MARK;
	gs_before[me] = rdmsr(MSR_GS_BASE);
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)percpu_id[me]);
	__asm__ volatile("mov %%gs:4, %0" : "=r"(mark));
	return mark == PERCPU_MARK;
}

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

	percpu_set(1);		/* the insn case checks it on the BSP */
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
		if (order.kind != PLE_INSN)
			rounds(1, order.kind, order.iters);
		else if (bench_cfg->fault != FAULT_PLE)	/* test hook: no pass back */
			while (order.cmd == CMD_RUN)
				run_test(1, exits_vmexit_ple_round_robin, PLE_CHUNK);
		barrier();
		order.done = seen;
		start = tsc_begin();
	}
	wrmsr(MSR_GS_BASE, gs_before[1]);
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

/* "ple": where PAUSE cannot exit, or that the host's KVM decides */
static void jw_ple(struct jw *w)
{
	const char *why = ple_absent();

	jw_str(w, "ple", why ? why : "the host's (VMX ple_gap/ple_window, SVM pause filter): 0 exits while both vCPUs run");
}

static void extra_ple(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	(void)c;
	(void)r;
	jw_ple(w);
	jw_u64(w, "passes_bsp", counter[0].passes);
	jw_u64(w, "passes_ap", counter[1].passes);
	jw_u64(w, "wait_timeouts", counter[0].timeouts + counter[1].timeouts);
}

static const struct bench_case ple_case = {
	.suite = "exits", .name = "ple.round_robin", .target = "cpu", .handler = HANDLER_KERNEL,
	.method = METHOD_SINGLE, .op = op_ple, .control = ctl_ple, .exits_model = model_ple,
	.skip = skip_ple, .verify = verify_ple, .extra = extra_ple,
	.kut_name = "ple_round_robin" };

/* ---- ple.round_robin.insn.paired: vmexit's op in its loop ---- */

/* The watchdog ran PLE_WAIT_US without a kick: both spins freed, and the
 * rest of the case free-running (nr_cpus 1: each vCPU, as vCPU 0, passes
 * the token to itself), so no later wait needs a shot of its own. */
static void insn_release(void)
{
	if (!insn_busy)
		return;		/* no spin of the BSP's to free (e.g. its statistics) */
	exits_vmexit_ple_cpus = 1;
	percpu_id[1][0] = 0;
	exits_vmexit_ple_counters[0].n1++;
	exits_vmexit_ple_counters[1].n1++;
	insn_lost++;
}

/* The BSP's side of iters round trips: vmexit's loop, nothing else (the
 * AP's loop runs on through the case).  insn_busy: a wait of the BSP's
 * can be lost only inside a batch. */
static void op_ple_insn(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	insn_ops += iters;
	insn_busy = true;
	run_test(0, exits_vmexit_ple_round_robin, iters);
	insn_busy = false;
}

/* vmexit's inl_from_kernel op in that loop */
static void ctl_ple_kernel(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	run_test(0, exits_vmexit_inl_nop_kernel, iters);
}

/* vmexit's start: GS at the BSP's area, the watchdog armed, IF=1 with the
 * 8259 masked (the watchdog's IRQ 0 comes through the I/O APIC) */
static const char *skip_ple_insn(const struct bench_case *c)
{
	const char *why = order.alive ? NULL : skip_ple(c);

	if (why)
		return why;
	insn_lost = 0;
	insn_ops = 0;
	exits_vmexit_ple_cpus = 2;
	if (!percpu_set(0)) {
		wrmsr(MSR_GS_BASE, gs_before[0]);
		return "%gs-relative loads do not follow IA32_GS_BASE here: vmexit's smp_id() cannot be run";
	}
	/* the 8259 masked first: its IRQs would come at its vectors from 8
	 * (the exceptions') once the watchdog's probe opens IF */
	pic_before[0] = inb(PIC1_DATA_PORT);
	pic_before[1] = inb(PIC2_DATA);
	outb(PIC_ALL, PIC1_DATA_PORT);
	outb(PIC_ALL, PIC2_DATA);
	if (pit_watchdog_start(PLE_WAIT_US, insn_release)) {
		outb(pic_before[0], PIC1_DATA_PORT);
		outb(pic_before[1], PIC2_DATA);
		wrmsr(MSR_GS_BASE, gs_before[0]);
		return "the PIT's interrupt (IRQ 0, I/O APIC pin 2) did not arrive: the spins would have no bound";
	}
	irq_enable();
	/* vmexit's start: vCPU 0 holds the token; the AP's loop begins */
	kmemset(exits_vmexit_ple_counters, 0, sizeof(exits_vmexit_ple_counters));
	exits_vmexit_ple_counters[0].n1 = 1;
	order.kind = PLE_INSN;
	order.cmd = CMD_RUN;
	barrier();
	insn_seq = ++order.seq;
	return NULL;
}

/* Bounded wait for the AP's pass of the BSP's last token. */
static bool insn_returned(void)
{
	u64 start = tsc_begin();

	while (exits_vmexit_ple_counters[0].n1 != insn_ops + 1) {
		cpu_relax();
		if (tsc_begin() - start > wait_ticks)
			return false;
	}
	return true;
}

/* The AP's loop ended: it runs the rest of its chunk passing the token to
 * itself (vCPU 0 of one), its wait freed. */
static bool insn_stop(void)
{
	order.cmd = CMD_STOP;
	exits_vmexit_ple_cpus = 1;
	percpu_id[1][0] = 0;
	barrier();
	exits_vmexit_ple_counters[1].n1++;
	return ap_finished(insn_seq);
}

/* Every op's token went round (each vCPU bumped the other's n1 once an
 * op of the BSP's), no wait lost, the AP's loop ended; the BSP's state
 * put back. */
static u32 verify_ple_insn(const struct bench_case *c, const u8 *buf)
{
	u32 bad;

	(void)c;
	(void)buf;
	bad = !insn_returned() || exits_vmexit_ple_counters[1].n1 != insn_ops;
	insn_astray = bad && !insn_lost;
	bad |= !insn_stop();
	irq_disable();
	pit_watchdog_stop();
	outb(pic_before[0], PIC1_DATA_PORT);
	outb(pic_before[1], PIC2_DATA);
	wrmsr(MSR_GS_BASE, gs_before[0]);
	exits_vmexit_ple_cpus = 2;
	percpu_id[1][0] = 1;
	return insn_lost + bad;
}

static void extra_ple_insn(const struct bench_case *c, const struct bench_result *r,
			   struct jw *w)
{
	(void)c;
	(void)r;
	jw_ple(w);
	exits_vmexit_jw_loop(w, insn_lost, insn_ops);
	jw_bool(w, "tokens_astray", insn_astray);
}

/* the control's exits (inl_from_kernel's: one) taken out, none left: model 0 */
static const struct bench_case ple_insn_case = {
	.suite = "exits", .name = "ple.round_robin.insn.paired", .target = "cpu",
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = op_ple_insn,
	.control = ctl_ple_kernel, .exits_model = model_ple, .skip = skip_ple_insn,
	.verify = verify_ple_insn, .extra = extra_ple_insn, .settle = exits_vmexit_wait_kick,
	.kut_name = BENCH_NO_KUT };

static void check_run(const char *check, int rc, const char *detail)
{
	if (rc >= 0)
		bench_check(check, rc == 0, detail);
}

void exits_ple_run(void)
{
	struct bench_result r;
	char detail[128];
	int rc;

	rc = bench_run(&ple_case, &r);
	fmt_snprintf(detail, sizeof(detail), "%lu BSP and %lu AP passes, %lu waits timed out (%u us each)",
		     counter[0].passes, counter[1].passes, counter[0].timeouts + counter[1].timeouts,
		     PLE_WAIT_US);
	check_run("exits.ple.round_robin", rc, detail);
	rc = bench_run(&ple_insn_case, &r);
	fmt_snprintf(detail, sizeof(detail), "%lu ops, %u waits ended by the watchdog, tokens %s",
		     insn_ops, insn_lost, insn_astray ? "astray" : "all returned");
	check_run("exits.ple.round_robin.insn", rc, detail);
	if (order.alive) {
		order.cmd = CMD_STOP;
		barrier();
		order.seq++;
	}
}
