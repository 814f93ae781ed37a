/*
 * kernel/suites/irq.c - the interrupt cases of suite "exits" (extended:
 * suite=all or case=), kvm-unit-tests x86/vmexit's interrupt tests beside
 * ours.  The local APIC is drivers/lapic.c's; every case enables
 * interrupts only around the interrupt it measures, with the 8259 PICs
 * masked, and counts its interrupts: a lost one is a failed data check,
 * a wait for one is bounded (IRQ_WAIT_US) and a timed-out wait is counted
 * the same way.  Models (VM exits per op under KVM with
 * kernel-irqchip=on|split, no APICv/AVIC, see docs/design.md "interrupt
 * exits"):
 *   hlt.timer           one-shot LAPIC timer of 1 tick armed with IF=0
 *                       (TMICT write), `sti; hlt`: TMICT, HLT, EOI   3
 *   tscdeadline.immed   IA32_TSC_DEADLINE = now with IF=1: the wrmsr
 *                       fires the timer at once; wrmsr, EOI          2
 *   tscdeadline.immed.cpuid  vmexit's tscdeadline_immed: the deadline
 *                       from an unfenced rdtsc, then CPUID leaf 0 (its
 *                       wrmsr_tscdeadline_serialize), IF=1, and, as
 *                       vmexit, no wait: each write re-arms the timer,
 *                       so an interrupt not yet injected is replaced by
 *                       the next one.  The interrupts taken are counted
 *                       ("interrupts"): at most one a write, and a probe
 *                       first proves one arrives (else a named skip);
 *                       wrmsr, EOI, cpuid where each fires at once   3
 *   tscdeadline         deadline now + 3000 cycles, spin until the
 *                       interrupt: wrmsr, the timer's own exit
 *                       (preemption timer or host hrtimer IRQ), EOI 3
 *                       The spin is vmexit's three instructions (load,
 *                       compare, branch) with no bound inside: on PVM
 *                       the op is one emulator batch of what the spin
 *                       runs.  The PIT watchdog bounds it
 *                       (drivers/pit_watchdog.h), kicked between samples.
 *                       The op is mostly a wait: its handler reads the
 *                       TSC, and the result gives how late each
 *                       interrupt came after its deadline ("deadline_late":
 *                       the host timer's latency, up to LATE_SAMPLES ops).
 *   self_ipi.xapic      ICR "self" write with IF=1: the interrupt is
 *                       injected on the way back in; ICR, EOI        2
 *   self_ipi.x2apic.icr the same through the x2APIC ICR (MSR 0x830)  2
 *   self_ipi.x2apic     through x2APIC SELF_IPI (MSR 0x83f)          2
 *   *.sti_nop           kvm-unit-tests' shape: the write with IF=0,
 *                       then `sti; nop`: one more exit, the
 *                       interrupt window KVM opens for it            3
 *   *.sti_hlt           the write with IF=0, then `sti; hlt`: the HLT
 *                       (or the window) exit instead of the window 3
 *   *.tpr               vmexit's: TPR (CR8) 0xf, the write, TPR 0 with
 *                       IF=1: CR8 writes stay in the TPR shadow
 *                       (VMX) / V_TPR (SVM) but the lowering one,
 *                       which KVM traps once an interrupt waits (TPR
 *                       threshold, SVM CR8 write intercept); the
 *                       write, that CR8 exit, EOI                    3
 *   *.tpr.sti_nop/_hlt  the same with IF=0, then `sti; nop` / `sti;
 *                       hlt`: one more exit (window or HLT)          4
 *                       The TPR cases check the TPR: no interrupt
 *                       taken while it is 0xf, and 0 after the op.
 *   *.nowait            vmexit's sti_nop and IF=1 TPR shapes as it runs
 *                       them: no wait and no `cli` after the nop, so the
 *                       interrupt comes wherever the backend delivers
 *                       it; counted, at most one a write (one sent while
 *                       the last is pending merges with it), none left
 *                       pending at the end.  Exits as their shape's
 *                       where each arrives at once.
 *   eoi.xapic/.x2apic   an EOI write with nothing in service         1
 *   ipi                 fixed IPI to the halted second vCPU and wait
 *                       for its handler: ICR high + low (xAPIC), the
 *                       AP's HLT and EOI (exits of both vCPUs)        4
 *                       in x2APIC mode (both CPUs, where CPUID has
 *                       it, as vmexit's ipi runs) one ICR WRMSR       3
 *   ipi.halt            the same, then 2000 TSC cycles for the AP to
 *                       halt again, so every IPI wakes a halted vCPU 4
 *   ipi.on_cpu          vmexit's ipi: kvm-unit-tests' on_cpu(1, nop, 0)
 *                       (lib/x86/smp.c) as a round trip: lock, the
 *                       call's function, data and flags stored, the IPI,
 *                       a spin on "done"; the AP's handler calls the
 *                       empty function, counts it down, sets "done",
 *                       then EOIs; vmexit's two unfenced rdtsc around
 *                       each call (its tsc_ipi) included.  Exits as
 *                       ipi's: the ICR, the AP's HLT and EOI       4/3
 *   ipi.halt.on_cpu     vmexit's ipi_halt: the same round trip without
 *                       the rdtsc pair, then 2000 TSC cycles        4/3
 *                       The on_cpu cases count the AP's completions;
 *                       their control runs the same round trip on the
 *                       BSP alone (the function called in place, a RAM
 *                       store for the ICR), so net is what the second
 *                       vCPU adds: the IPI, its wake-up, EOI and HLT.
 * vmexit's x2apic_self_ipi_* shapes are the self_ipi.x2apic.* cases (the
 * SELF_IPI register).  Where a backend takes the interrupt is measured in
 * the boot, not assumed: before each self-IPI shape a probe sends
 * PROBE_TRIES of its self-IPIs and counts those taken where the op takes
 * them (at `sti; nop`, at `sti; hlt`); a shape whose op would lose one
 * skips with the count (on the PVM hosts here `sti; nop` took 0 of 16:
 * the interrupt came later, with IF=1).  The sti_hlt cases
 * run under the PIT watchdog: a hlt no interrupt wakes ends at its shot.
 * x2APIC and TSC-deadline cases are skipped when CPUID lacks them; ipi
 * needs `-smp 2` (the runner passes it when case= selects ipi, or with
 * --smp 2) and brings the AP up with INIT-SIPI-SIPI (arch/x86/smp.c);
 * then both CPUs go to x2APIC where CPUID has it (ap_mode_x2apic).
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "drivers/platform.h"
#include "drivers/lapic.h"
#include "drivers/pit_watchdog.h"
#include "drivers/fw_cfg.h"
#include "arch/x86/cpu.h"
#include "arch/x86/control.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/smp.h"
#include "arch/x86/tsc.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "lib/stats.h"

#define VEC_SELF        0xb0     /* kvm-unit-tests' IPI_TEST_VECTOR */
#define VEC_AP          0xb1     /* IPIs the AP takes */
#define VEC_TIMER       0xe0
#define PIC_MASK_ALL    0xff
#define PIC2_DATA_PORT  0xa1
/* For one interrupt: 1 s.  The interrupt may be due on a vCPU whose host
 * thread is not running: at load 6 on 2 CPUs, 10 ms timed out once in
 * thousands of waits (kut-coverage-kvm-pvm.txt).  A case stops waiting
 * after its first timeout (gave_up), so a lost interrupt costs it 1 s. */
#define IRQ_WAIT_US     1000000
#define DEADLINE_DELTA  3000     /* kvm-unit-tests' tscdeadline */
#define AP_START_US     200000
#define AP_STACK_SIZE   16384
#define TPR_BLOCK_ALL   0xf      /* CR8: masks every vector below 0xf0 */
#define HALT_DELAY      2000     /* vmexit's ipi_halt: TSC cycles for the AP to halt */
#define VEC_AP_JOB      0xb2     /* the AP runs exits_ap_run's job */
#define VEC_AP_ON_CPU   0xb3     /* on_cpu's call (kvm-unit-tests: 0x20) */
#define VEC_AP_X2APIC   0xb4     /* the AP switches itself to x2APIC */
/* The on_cpu spin checks the TSC once per this many polls of "done": a
 * poll is vmexit's plain load, the bound is still time (wait_ticks). */
#define ON_CPU_POLLS    64
#define PROBE_TRIES     16       /* self-IPIs a shape's probe sends */

enum irq_op { I_HLT_TIMER, I_DEADLINE_IMMED, I_DEADLINE, I_SELF_XAPIC, I_SELF_X2_ICR,
	      I_SELF_X2_REG, I_EOI_XAPIC, I_EOI_X2APIC, I_IPI, I_SELF_XAPIC_STI,
	      I_SELF_X2_ICR_STI, I_SELF_X2_REG_STI,
	      /* vmexit's other self-IPI shapes, xAPIC ICR and x2APIC SELF_IPI */
	      I_SELF_XAPIC_HLT, I_SELF_XAPIC_TPR, I_SELF_XAPIC_TPR_STI, I_SELF_XAPIC_TPR_HLT,
	      I_SELF_X2_REG_HLT, I_SELF_X2_REG_TPR, I_SELF_X2_REG_TPR_STI, I_SELF_X2_REG_TPR_HLT,
	      I_IPI_HALT, I_IPI_ON_CPU, I_IPI_HALT_ON_CPU, I_DEADLINE_CPUID, I_COUNT };

static volatile u64 isr_count;     /* BSP's interrupts */
static volatile u64 ap_count;      /* the AP's */
static u64 ops_done, timeouts, wait_ticks;
static bool gave_up;               /* a wait of this case timed out */
static u32 ap_apic_id;
static const char *ap_why;         /* NULL once the AP runs */
static bool ap_tried;
static volatile bool ap_ready;     /* ap_main runs, ap_apic_id is set */
static volatile bool ap_x2apic;    /* the AP's APIC is in x2APIC mode */
static u8 ap_stack[AP_STACK_SIZE] __attribute__((aligned(16)));
/* tscdeadline: TSC at its handler less the deadline, per op */
#define LATE_SAMPLES    1024
static u64 late[LATE_SAMPLES];
static u32 late_n;
static volatile u64 isr_tsc;       /* the deadline handler's TSC */

static void isr_bsp(u32 vector)
{
	(void)vector;
	isr_count++;
	lapic_eoi();
}

/* tscdeadline's handler: isr_bsp's, with the TSC read first */
static void isr_late(u32 vector)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	isr_tsc = ((u64)hi << 32) | lo;
	isr_bsp(vector);
}

static void isr_ap(u32 vector)
{
	(void)vector;
	ap_count++;
	lapic_eoi();
}

/* Spin until *count passes `want`, at most IRQ_WAIT_US, and not at all
 * once a wait of this case timed out (each such wait still counts as
 * timed out); IF as it is. */
static void wait_count(volatile u64 *count, u64 want)
{
	u64 start = tsc_begin();

	while (*count < want) {
		if (gave_up || tsc_begin() - start > wait_ticks) {
			timeouts++;
			gave_up = true;
			return;
		}
		cpu_relax();
	}
}

/* tscdeadline's spin: vmexit's load, test and branch, here a load, a
 * compare and a branch, with no bound inside (on PVM the op is one
 * emulator batch of what the spin runs: wait_count's rdtsc and pause put
 * it 3.7 % under vmexit's); the watchdog ends it (spin_release). */
static inline void spin_count(volatile u64 *count, u64 want)
{
	__asm__ volatile("1:\tmov %[c], %%rax\n\t"
			 "cmp %[w], %%rax\n\t"
			 "jb 1b"
			 : : [c] "m"(*count), [w] "r"(want) : "rax", "cc", "memory");
}

/* The watchdog ran IRQ_WAIT_US without a kick: the spin ended with one
 * interrupt counted that never came, and the wait timed out. */
static void spin_release(void)
{
	isr_count++;
	timeouts++;
	gave_up = true;
}

/* A `sti; hlt` no interrupt wakes ends at the watchdog's next shot;
 * once the bound passes without a kick the case stops (gave_up). */
static void hlt_release(void)
{
	timeouts++;
	gave_up = true;
}

static void spin_kick(const struct bench_case *c)
{
	(void)c;
	pit_watchdog_kick();
}

/* ---- operations ---------------------------------------------------------- */

static void op_hlt_timer(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	ops_done += iters;
	while (iters--) {
		lapic_timer_arm(1);
		irq_enable_and_halt();
		irq_disable();
	}
}

/* How late the interrupt an op waited for came, if it came. */
static void late_note(u64 deadline, u64 want)
{
	if (isr_count < want || late_n >= LATE_SAMPLES)
		return;
	late[late_n++] = isr_tsc > deadline ? isr_tsc - deadline : 0;
}

static void op_deadline(const struct bench_case *c, u8 *buf, u64 iters)
{
	u64 want = isr_count, deadline;

	(void)buf;
	ops_done += iters;
	irq_enable();
	while (iters--) {
		want++;
		if (c->arg == I_DEADLINE_IMMED) {
			lapic_deadline_arm(tsc_begin());
			__asm__ volatile("nop");
			wait_count(&isr_count, want);
			continue;
		}
		deadline = tsc_begin() + DEADLINE_DELTA;
		lapic_deadline_arm(deadline);
		spin_count(&isr_count, want);
		late_note(deadline, want);
	}
	irq_disable();
}

/* vmexit's plain rdtsc (no fence), as its tscdeadline_immed and ipi()
 * read it */
static inline u64 rdtsc_unfenced(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

/* vmexit's tscdeadline_immed op: no wait, its interrupts are counted */
static void op_deadline_cpuid(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	ops_done += iters;
	irq_enable();
	while (iters--) {
		lapic_deadline_arm(rdtsc_unfenced());
		cpuid(0, 0);
	}
	irq_disable();
}

/* Its control: the same loop with the MSR's and CPUID's registers
 * around nops. */
static void ctl_deadline_cpuid(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--) {
		ctl_msr(MSR_TSC_DEADLINE, rdtsc_unfenced());
		ctl_cpuid(0, 0);
	}
}

/* Between batches (bench_case.settle): the last write disarmed with IF=1,
 * so its deadline does not fire in the next batch (op or control); an
 * interrupt already pending is taken at the write's exit, untimed. */
static void settle_deadline_cpuid(const struct bench_case *c)
{
	(void)c;
	irq_enable();
	lapic_deadline_arm(0);
	irq_disable();
}

/* The case's last write may still be armed, or its interrupt pending:
 * disarm (a deadline of 0), take what is pending, so no interrupt of
 * this case lands in the next one's count. */
static void deadline_cpuid_drain(void)
{
	lapic_deadline_arm(0);
	irq_window();
}

/* Does the interrupt arm() asks for arrive within IRQ_WAIT_US?  A
 * bounded spin before a case that relies on it; its timeout is not the
 * case's. */
static bool irq_arrives(void (*arm)(void))
{
	u64 before = isr_count, left = timeouts;

	irq_enable();
	arm();
	wait_count(&isr_count, before + 1);
	irq_disable();
	if (timeouts != left) {
		timeouts = left;
		return false;
	}
	return true;
}

static void arm_deadline_now(void)
{
	lapic_deadline_arm(rdtsc_unfenced());
}

/* A deadline of now arrives. */
static bool deadline_fires(void)
{
	return irq_arrives(arm_deadline_now);
}

static bool deadline_case(u32 id)
{
	return id == I_DEADLINE || id == I_DEADLINE_IMMED || id == I_DEADLINE_CPUID;
}

static bool sti_nop(u32 id)
{
	return id == I_SELF_XAPIC_STI || id == I_SELF_X2_ICR_STI || id == I_SELF_X2_REG_STI ||
	       id == I_SELF_XAPIC_TPR_STI || id == I_SELF_X2_REG_TPR_STI;
}

static bool sti_hlt(u32 id)
{
	return id == I_SELF_XAPIC_HLT || id == I_SELF_XAPIC_TPR_HLT || id == I_SELF_X2_REG_HLT ||
	       id == I_SELF_X2_REG_TPR_HLT;
}

/* vmexit's *_tpr shapes: TPR (CR8) raised to 0xf around the ICR write,
 * so the interrupt waits in IRR until the TPR is lowered again */
static bool tpr_shape(u32 id)
{
	return id == I_SELF_XAPIC_TPR || id == I_SELF_XAPIC_TPR_STI ||
	       id == I_SELF_XAPIC_TPR_HLT || id == I_SELF_X2_REG_TPR ||
	       id == I_SELF_X2_REG_TPR_STI || id == I_SELF_X2_REG_TPR_HLT;
}

static bool x2_self_reg(u32 id)
{
	return id == I_SELF_X2_REG || id == I_SELF_X2_REG_STI || id == I_SELF_X2_REG_HLT ||
	       id == I_SELF_X2_REG_TPR || id == I_SELF_X2_REG_TPR_STI ||
	       id == I_SELF_X2_REG_TPR_HLT;
}

static u64 tpr_early;              /* interrupts taken while TPR was 0xf */

static void self_ipi(u32 id)
{
	if (x2_self_reg(id))
		wrmsr(LAPIC_MSR_SELF_IPI, VEC_SELF);
	else
		lapic_self_ipi(VEC_SELF);
}

/* The self-IPI, under a raised TPR for the *_tpr shapes: an interrupt
 * that arrives before the TPR comes down is counted (the TPR let it by). */
static void self_ipi_shaped(u32 id)
{
	u64 before;

	if (!tpr_shape(id)) {
		self_ipi(id);
		return;
	}
	write_cr8(TPR_BLOCK_ALL);
	before = isr_count;
	self_ipi(id);
	tpr_early += isr_count != before;
	write_cr8(0);
}

/* IF=1: the interrupt arrives before the next instruction (bounded wait
 * in case it does not); sti_nop: IF=0 and one `sti; nop` window. */
static void op_self_ipi(const struct bench_case *c, u8 *buf, u64 iters)
{
	u64 want = isr_count;

	(void)buf;
	ops_done += iters;
	if (sti_nop(c->arg) || sti_hlt(c->arg)) {
		while (iters-- && !gave_up) {	/* hlt_release gave up: stop */
			self_ipi_shaped(c->arg);
			if (sti_hlt(c->arg)) {
				irq_enable_and_halt();	/* the pending IPI wakes it */
				irq_disable();
			} else {
				irq_window();
			}
		}
		return;
	}
	irq_enable();
	while (iters--) {
		self_ipi_shaped(c->arg);
		__asm__ volatile("nop");	/* vmexit's: the interrupt lands here */
		wait_count(&isr_count, ++want);
	}
	irq_disable();
}

/* vmexit's shape as it runs it: `cli`, the write, `sti; nop` (or, IF=1,
 * the TPR shape and its `nop`), and on; IF stays 1 after the nop. */
static void op_self_ipi_nowait(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	ops_done += iters;
	if (sti_nop(c->arg)) {
		while (iters--) {
			irq_disable();
			self_ipi_shaped(c->arg);
			__asm__ volatile("sti; nop" ::: "memory");
		}
	} else {
		irq_enable();
		while (iters--) {
			self_ipi_shaped(c->arg);
			__asm__ volatile("nop" ::: "memory");
		}
	}
	irq_disable();
}

/* Is a self-IPI still waiting in IRR? */
static bool self_pending(void)
{
	return lapic_read(LAPIC_IRR + VEC_SELF / 32 * 0x10) & (1u << (VEC_SELF % 32));
}

/* The no-wait twins' last interrupt, if one still waits: taken with a
 * bounded spin, IF=1, so none lands in the next case's count. */
static void self_ipi_drain(void)
{
	if (!self_pending())
		return;
	irq_enable();
	wait_count(&isr_count, isr_count + 1);
	irq_disable();
}

static void op_eoi(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--)
		lapic_eoi();
}

/* The only honest control here: an EOI is one store (xAPIC) or wrmsr
 * (x2APIC) with no interrupt behind it, so a RAM store stands in.  The
 * interrupt cases have none: nothing but the interrupt does what they do. */
static volatile u32 ctl_reg;
#define IRQ_NO_CONTROL "only the interrupt itself does what the op does"

static void ctl_eoi(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--)
		ctl_reg = 0;
}

static void spin_cycles(u64 n)
{
	u64 end = tsc_begin() + n;

	while (tsc_begin() < end)
		cpu_relax();
}

static void op_ipi(const struct bench_case *c, u8 *buf, u64 iters)
{
	u64 want = ap_count;

	(void)buf;
	ops_done += iters;
	while (iters--) {
		lapic_send_ipi(ap_apic_id, VEC_AP);
		wait_count(&ap_count, ++want);
		if (c->arg == I_IPI_HALT)	/* let the AP go back to hlt */
			spin_cycles(HALT_DELAY);
	}
}

/* ---- vmexit's ipi: on_cpu's round trip ---------------------------------- */

/* lib/x86/smp.c's state of one call, ours by name */
static volatile u32 oncpu_lock;
static volatile u32 oncpu_active;
static void (*volatile oncpu_fn)(void *data);
static void *volatile oncpu_data;
static volatile bool oncpu_wait;
static volatile u32 oncpu_done;
static volatile u64 oncpu_calls;   /* calls the AP's handler took */
static volatile u64 oncpu_ticks;   /* vmexit's tsc_ipi */
static volatile u32 ctl_icr;       /* the control's ICR stand-in */

static void oncpu_nop(void *data)
{
	(void)data;
}

/* smp.c's ipi(): with wait set, "done" and the EOI after the function */
static void oncpu_run(void)
{
	void (*fn)(void *data) = oncpu_fn;
	void *data = oncpu_data;
	bool wait = oncpu_wait;

	if (!wait)
		oncpu_done = 1;
	fn(data);
	__atomic_fetch_sub(&oncpu_active, 1, __ATOMIC_SEQ_CST);
	if (wait)
		oncpu_done = 1;
}

static void isr_on_cpu(u32 vector)
{
	(void)vector;
	oncpu_calls++;		/* before "done": the BSP's count is whole */
	oncpu_run();
	lapic_eoi();
}

/* Spin on "done" as __on_cpu does, the TSC read every ON_CPU_POLLS
 * polls (a bounded wait; a timeout counts as wait_count's do). */
static void oncpu_spin(void)
{
	u64 start = tsc_begin();
	u32 polls = 0;

	while (!oncpu_done) {
		if (++polls % ON_CPU_POLLS)
			continue;
		if (gave_up || tsc_begin() - start > wait_ticks) {
			timeouts++;
			gave_up = true;
			return;
		}
	}
}

/* __on_cpu(1, nop, 0, wait=1); `alone`: the control, the AP's part run
 * here and a RAM store in place of the ICR write */
static void oncpu_call(bool alone)
{
	while (__atomic_exchange_n(&oncpu_lock, 1, __ATOMIC_ACQUIRE))
		;
	__atomic_fetch_add(&oncpu_active, 1, __ATOMIC_SEQ_CST);
	oncpu_done = 0;
	oncpu_fn = oncpu_nop;
	oncpu_data = NULL;
	oncpu_wait = true;
	if (alone) {
		ctl_icr = VEC_AP_ON_CPU;
		oncpu_run();
	} else {
		lapic_send_ipi(ap_apic_id, VEC_AP_ON_CPU);
	}
	oncpu_spin();
	__atomic_store_n(&oncpu_lock, 0, __ATOMIC_RELEASE);
}

/* vmexit's ipi() (the rdtsc pair) or ipi_halt() (the 2000-cycle spin) */
static void oncpu_ops(const struct bench_case *c, u64 iters, bool alone)
{
	u64 t;

	while (iters--) {
		if (c->arg == I_IPI_HALT_ON_CPU) {
			oncpu_call(alone);
			spin_cycles(HALT_DELAY);
			continue;
		}
		t = rdtsc_unfenced();
		oncpu_call(alone);
		oncpu_ticks += rdtsc_unfenced() - t;
	}
}

static void op_on_cpu(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	ops_done += iters;
	oncpu_ops(c, iters, false);
}

static void ctl_on_cpu(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	oncpu_ops(c, iters, true);
}

/* ---- the application processor --------------------------------------- */

static void ap_main(void)
{
	if (lapic_init())
		return;                    /* smp_ap_entry halts */
	ap_apic_id = lapic_id();
	barrier();
	ap_ready = true;
	for (;;)
		irq_enable_and_halt();     /* woken by each IPI, back to sleep */
}

u32 exits_vcpu_count(void)
{
	u16 n = 0;

	if (fw_cfg_present())
		fw_cfg_read(FW_CFG_NB_CPUS, &n, sizeof(n));
	return n;
}

/* The AP's half of the switch: EOI while both are still xAPIC, then
 * its own IA32_APIC_BASE. */
static void isr_ap_x2apic(u32 vector)
{
	(void)vector;
	lapic_eoi();
	ap_x2apic = lapic_x2apic_this_cpu() == 0;
}

/* vmexit's ipi cases run in x2APIC mode (the ICR one WRMSR, the AP's
 * EOI another): both CPUs go there where the CPU has it, the AP first,
 * and stay (the AP's cases come last; a case of the other mode after
 * them skips by name).  Without x2APIC (TCG here) both stay xAPIC.
 * NULL, or why the AP cannot be used. */
static const char *ap_mode_x2apic(void)
{
	u64 start = tsc_begin();

	if (!lapic_has_x2apic())
		return NULL;
	irq_set_handler(VEC_AP_X2APIC, isr_ap_x2apic);
	lapic_send_ipi(ap_apic_id, VEC_AP_X2APIC);
	while (!ap_x2apic) {
		if (tsc_begin() - start > AP_START_US * tsc.khz / 1000)
			return "the AP did not switch to x2APIC within 200 ms of its IPI (-ETIMEDOUT)";
		cpu_relax();
	}
	if (lapic_set_x2apic(true))
		return "the AP switched to x2APIC but the BSP could not";
	return NULL;
}

/* Once per boot: -smp 2, an AP that reaches ap_main. */
static const char *start_ap(void)
{
	if (ap_tried)
		return ap_why;
	ap_tried = true;
	if (exits_vcpu_count() < 2)
		return ap_why = "one vCPU: ipi needs -smp 2 (the runner passes it when case= selects ipi, or with --smp 2)";
	if (exits_vcpu_count() > 2)
		return ap_why = "more than two vCPUs: the trampoline has one AP stack (-smp 2)";
	if (lapic_x2apic_on() && lapic_set_x2apic(false))
		return ap_why = "cannot return the BSP's local APIC to xAPIC mode";
	smp_prepare(ap_main, ap_stack, sizeof(ap_stack));
	if (lapic_start_ap(SMP_SIPI_VECTOR, &ap_ready, AP_START_US))
		return ap_why = smp_ap_alive ?
		       "the AP reached C code but its local APIC did not come up (-ENODEV)" :
		       "the AP did not reach 64-bit C code within 200 ms of INIT-SIPI-SIPI (-ETIMEDOUT)";
	return ap_why = ap_mode_x2apic();
}

/* A job for the AP (kernel/suites/exits_ple.c): taken from the IPI,
 * EOI first, run with IF=0; back to hlt when it returns. */
static void (*volatile ap_job)(void);
static bool lapic_ok;

static void isr_ap_job(u32 vector)
{
	void (*fn)(void) = ap_job;

	(void)vector;
	ap_job = NULL;
	lapic_eoi();
	if (fn)
		fn();
}

const char *exits_ap_run(void (*fn)(void))
{
	if (!lapic_ok)
		return "no usable local APIC (CPUID 1 EDX[9] or IA32_APIC_BASE.EN clear)";
	if (start_ap())
		return ap_why;
	irq_set_handler(VEC_AP_JOB, isr_ap_job);
	ap_job = fn;
	barrier();
	lapic_send_ipi(ap_apic_id, VEC_AP_JOB);
	return NULL;
}

/* ---- per case: skips (which also set the APIC up), models, checks --------- */

static u64 isr_base;

static bool wants_x2apic(u32 id)
{
	return id == I_SELF_X2_ICR || id == I_EOI_X2APIC || id == I_SELF_X2_ICR_STI ||
	       x2_self_reg(id);
}

static bool on_cpu_shape(u32 id)
{
	return id == I_IPI_ON_CPU || id == I_IPI_HALT_ON_CPU;
}

static bool on_ap(u32 id)
{
	return id == I_IPI || id == I_IPI_HALT || on_cpu_shape(id);
}

/* The mode a case ran in: the AP's cases in the one ap_mode_x2apic()
 * set (x2APIC where the CPU has it), the others in their own. */
static bool ran_x2apic(u32 id)
{
	return on_ap(id) ? lapic_x2apic_on() : wants_x2apic(id);
}

/* What a case counts against its ops: the AP's interrupts, the on_cpu
 * calls the AP's handler took (the control's, run here, count in
 * neither), or the BSP's interrupts. */
static u64 counted(u32 id)
{
	if (on_cpu_shape(id))
		return oncpu_calls;
	return on_ap(id) ? ap_count : isr_count;
}

/* hlt cannot be bounded: prove first, with a bounded spin, that the
 * timer's interrupt arrives. */
static void arm_timer_tick(void)
{
	lapic_timer_arm(1);
}

static bool timer_fires(void)
{
	return irq_arrives(arm_timer_tick);
}

/* The APIC mode and timer the case needs; NULL or why not. */
static const char *setup(u32 id)
{
	if (wants_x2apic(id) && !lapic_has_x2apic())
		return "no x2APIC (CPUID 1 ECX[21])";
	if (deadline_case(id) && !lapic_has_tsc_deadline())
		return "no TSC-deadline timer (CPUID 1 ECX[24])";
	if (on_ap(id) && start_ap())
		return ap_why;
	if (!ap_ready && lapic_set_x2apic(wants_x2apic(id)) && wants_x2apic(id))
		return "x2APIC present but cannot be enabled";
	if (ap_ready && !on_ap(id) && wants_x2apic(id) != lapic_x2apic_on())
		return lapic_x2apic_on() ?
		       "the AP's cases left both CPUs in x2APIC mode: xAPIC cases must run before ipi" :
		       "the AP runs in xAPIC mode: x2APIC cases must run before ipi";
	lapic_timer_stop();
	irq_set_handler(VEC_TIMER, id == I_DEADLINE ? isr_late : isr_bsp);
	if (id == I_HLT_TIMER) {
		lapic_timer_oneshot_mode(VEC_TIMER);
		if (!timer_fires())
			return "the one-shot LAPIC timer interrupt did not arrive within 1 s: `hlt` would never wake";
	}
	if (deadline_case(id))
		lapic_deadline_mode(VEC_TIMER);
	if (id == I_DEADLINE_CPUID && !deadline_fires())
		return "a TSC deadline of now raised no interrupt within 1 s: the case's interrupts could not be counted";
	if (id == I_DEADLINE && pit_watchdog_start(IRQ_WAIT_US, spin_release))
		return "the PIT's interrupt (IRQ 0, I/O APIC pin 2) did not arrive: the spin would have no bound";
	if (sti_hlt(id) && pit_watchdog_start(IRQ_WAIT_US, hlt_release))
		return "the PIT's interrupt (IRQ 0, I/O APIC pin 2) did not arrive: `sti; hlt` would have no bound";
	if (id == I_DEADLINE && bench_cfg->fault == FAULT_TIMER)
		lapic_timer_stop();	/* test hook: no deadline fires */
	return NULL;
}

/* ---- where the self-IPI arrives: measured before each shape --------- */

static u32 probe_hits;             /* of PROBE_TRIES, taken where the op takes them */
static char probe_why[200];

/* One self-IPI of the case's shape, taken as its op takes it: left
 * pending with IF=0, then `sti; hlt` (the sti_hlt shapes, under the
 * watchdog) or one `sti; nop` window; the IF=1 shapes at the `nop` after
 * it (the TPR shapes: after the TPR came down).  True when it arrived
 * there; a late one is drained with a bounded wait, IF=1, so nothing
 * stays pending. */
static bool probe_once(u32 id)
{
	u64 before = isr_count;

	if (sti_hlt(id))
		pit_watchdog_kick();	/* its own shot, its own bound */
	if (!sti_nop(id) && !sti_hlt(id))
		irq_enable();
	if (bench_cfg->fault != FAULT_SELF_IPI)	/* test hook: none sent */
		self_ipi_shaped(id);
	if (sti_hlt(id)) {
		irq_enable_and_halt();
		irq_disable();
	} else {
		irq_window();		/* IF=1 already: the nop, then cli */
	}
	if (isr_count == before + 1)
		return true;
	irq_enable();
	wait_count(&isr_count, before + 1);
	irq_disable();
	return false;
}

/* NULL when every probe arrived where the op needs it: the sti shapes at
 * their window or hlt, the IF=1 shapes (which wait, bounded) and the
 * no-wait twins (which count) at all; else why not, with the count. */
static const char *probe_shape(const struct bench_case *c)
{
	u32 id = c->arg;
	bool at_window = (sti_nop(id) || sti_hlt(id)) && c->op != op_self_ipi_nowait;
	u64 left = timeouts;
	u32 i;

	probe_hits = 0;
	for (i = 0; i < PROBE_TRIES && !gave_up; i++)
		probe_hits += probe_once(id);
	timeouts = left;
	if (gave_up) {
		fmt_snprintf(probe_why, sizeof(probe_why),
			     "measured: a self-IPI of this shape did not arrive within 1 s, even with IF=1 (%u of %u probes had)",
			     probe_hits, i);
		return probe_why;
	}
	if (at_window && probe_hits < PROBE_TRIES) {
		fmt_snprintf(probe_why, sizeof(probe_why),
			     "measured: %u of %u self-IPIs left pending with IF=0 were taken at `%s`, the rest later with IF=1: the op would lose them",
			     probe_hits, PROBE_TRIES, sti_hlt(id) ? "sti; hlt" : "sti; nop");
		return probe_why;
	}
	return NULL;
}

static bool self_ipi_case(u32 id)
{
	return sti_nop(id) || sti_hlt(id) || tpr_shape(id);
}

static const char *skip_irq(const struct bench_case *c)
{
	const char *why;

	gave_up = false;	/* the probes below wait afresh */
	if (!lapic_ok)
		return "no usable local APIC (CPUID 1 EDX[9] or IA32_APIC_BASE.EN clear)";
	why = setup(c->arg);
	if (!why && self_ipi_case(c->arg)) {
		why = probe_shape(c);
		if (why && sti_hlt(c->arg))
			pit_watchdog_stop();	/* setup started it */
	}
	ops_done = timeouts = tpr_early = 0;
	late_n = 0;
	gave_up = false;
	isr_base = counted(c->arg);
	return why;
}

/* Interrupts taken against operations made: each op takes exactly one
 * (none for the EOI cases); every timed-out wait counts too, and for the
 * TPR shapes every interrupt the raised TPR let by and a TPR left up. */
static u32 verify_irq(const struct bench_case *c, const u8 *buf)
{
	u64 got, bad;

	(void)buf;
	if (c->arg == I_DEADLINE || sti_hlt(c->arg))
		pit_watchdog_stop();
	if (c->arg == I_DEADLINE_CPUID) {
		/* at most one interrupt a write: no wait, so fewer is no error */
		deadline_cpuid_drain();
		got = isr_count - isr_base;
		return got > ops_done ? 1 : 0;
	}
	if (c->op == op_self_ipi_nowait) {
		/* the same, and none left waiting; the TPR's checks below */
		self_ipi_drain();
		got = isr_count - isr_base;
		bad = (got > ops_done) + self_pending() + timeouts + tpr_early;
		return (u32)bad + (tpr_shape(c->arg) && read_cr8() != 0);
	}
	got = counted(c->arg) - isr_base;
	bad = (got > ops_done ? got - ops_done : ops_done - got) + timeouts + tpr_early;
	if (tpr_shape(c->arg) && read_cr8() != 0)
		bad++;		/* the TPR did not come back down */
	return bad > 0xffffffffull ? 0xffffffffu : (u32)bad;
}

static const u8 model[I_COUNT] = {
	[I_HLT_TIMER] = 3, [I_DEADLINE_IMMED] = 2, [I_DEADLINE] = 3, [I_SELF_XAPIC] = 2,
	[I_SELF_X2_ICR] = 2, [I_SELF_X2_REG] = 2, [I_EOI_XAPIC] = 1, [I_EOI_X2APIC] = 1,
	[I_IPI] = 4, [I_SELF_XAPIC_STI] = 3, [I_SELF_X2_ICR_STI] = 3, [I_SELF_X2_REG_STI] = 3,
	[I_SELF_XAPIC_HLT] = 3, [I_SELF_X2_REG_HLT] = 3, [I_SELF_XAPIC_TPR] = 3,
	[I_SELF_X2_REG_TPR] = 3, [I_SELF_XAPIC_TPR_STI] = 4, [I_SELF_X2_REG_TPR_STI] = 4,
	[I_SELF_XAPIC_TPR_HLT] = 4, [I_SELF_X2_REG_TPR_HLT] = 4, [I_IPI_HALT] = 4,
	[I_IPI_ON_CPU] = 4, [I_IPI_HALT_ON_CPU] = 4, [I_DEADLINE_CPUID] = 3,
};

/* x2APIC: the AP cases' ICR is one WRMSR, not ICR high + low */
static u32 model_irq(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	return model[c->arg] - (on_ap(c->arg) && lapic_x2apic_on() ? 1 : 0);
}

/* "deadline_late": TSC cycles from each deadline to its handler */
static void late_json(struct jw *w)
{
	struct stats st;

	stats_order(late, late_n, &st);
	jw_stats(w, "deadline_late", &st, JW_STATS_N | JW_STATS_MIN | JW_STATS_P10 |
		 JW_STATS_MEDIAN | JW_STATS_P90 | JW_STATS_MAX);
}

static void extra_irq(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	(void)r;
	jw_str(w, "apic_mode", ran_x2apic(c->arg) ? "x2apic" : "xapic");
	jw_u64(w, "interrupts", counted(c->arg) - isr_base);
	jw_u64(w, "wait_timeouts", timeouts);
	if (c->arg == I_DEADLINE_CPUID || c->op == op_self_ipi_nowait)
		jw_u64(w, "writes", ops_done);	/* "interrupts" of these, at most */
	if (c->arg == I_DEADLINE && late_n)
		late_json(w);
	if (c->arg == I_DEADLINE || sti_hlt(c->arg))	/* a kicked, healthy wait sees none */
		jw_u64(w, "watchdog_shots", pit_watchdog_fired);
	if (self_ipi_case(c->arg)) {	/* where its probe's self-IPIs arrived */
		jw_u64(w, "probe_tries", PROBE_TRIES);
		jw_u64(w, "probe_at_window", probe_hits);
	}
	if (tpr_shape(c->arg)) {
		jw_u64(w, "tpr_early", tpr_early);	/* taken under TPR 0xf: 0 */
		jw_u64(w, "tpr_after", read_cr8());
	}
	/* xAPIC registers are MMIO KVM answers: no exit reaches QEMU */
	if (!ran_x2apic(c->arg) && !deadline_case(c->arg)) {
		jw_hex(w, "addr", LAPIC_BASE);
		jw_u64(w, "exits_to_qemu_model", 0);
	}
}

#define IRQ(n, a, fn, k) { .suite = "exits", .name = n, .target = "lapic", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = fn, .arg = a, \
	.exits_model = model_irq, .skip = skip_irq, .verify = verify_irq, .extra = extra_irq, \
	.no_control = IRQ_NO_CONTROL, .kut_name = k }
/* the same, one op untimed before each sample (bench_case.prime): the
 * deadline ops, which wait for their interrupt */
#define IRQ_PRIMED(n, a, fn, s, k) { .suite = "exits", .name = n, .target = "lapic", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = fn, .arg = a, \
	.exits_model = model_irq, .skip = skip_irq, .verify = verify_irq, .extra = extra_irq, \
	.no_control = IRQ_NO_CONTROL, .kut_name = k, .prime = 1, .settle = s }
#define IRQ_CTL(n, a, fn, ctl, k) { .suite = "exits", .name = n, .target = "lapic", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = fn, .control = ctl, \
	.arg = a, .exits_model = model_irq, .skip = skip_irq, .verify = verify_irq, \
	.extra = extra_irq, .kut_name = k }
/* the same, with a hook run untimed after each batch (bench_case.settle) */
#define IRQ_CTL_SETTLE(n, a, fn, ctl, s, k) { .suite = "exits", .name = n, \
	.target = "lapic", .handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = fn, \
	.control = ctl, .settle = s, .arg = a, .exits_model = model_irq, .skip = skip_irq, \
	.verify = verify_irq, .extra = extra_irq, .kut_name = k }
/* the on_cpu cases: their control runs after their samples (interleaved,
 * each control batch kept the AP halted past KVM's halt-poll window) */
#define IRQ_AP(n, a, k) { .suite = "exits", .name = n, .target = "lapic", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = op_on_cpu, \
	.control = ctl_on_cpu, .control_after = true, .arg = a, .exits_model = model_irq, \
	.skip = skip_irq, .verify = verify_irq, .extra = extra_irq, .kut_name = k }
/* the sti_hlt shapes: the watchdog kicked after each batch */
#define IRQ_KICKED(n, a, k) { .suite = "exits", .name = n, .target = "lapic", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = op_self_ipi, .arg = a, \
	.exits_model = model_irq, .skip = skip_irq, .verify = verify_irq, .extra = extra_irq, \
	.no_control = IRQ_NO_CONTROL, .kut_name = k, .settle = spin_kick }
/* vmexit's shapes with no wait (op_self_ipi_nowait) */
#define IRQ_NOWAIT(n, a, k) { .suite = "exits", .name = n, .target = "lapic", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = op_self_ipi_nowait, \
	.arg = a, .exits_model = model_irq, .skip = skip_irq, .verify = verify_irq, \
	.extra = extra_irq, .no_control = IRQ_NO_CONTROL, .kut_name = k }
#define NO_KUT BENCH_NO_KUT

/* xAPIC first, then x2APIC, then the AP's cases (x2APIC where CPUID has it) */
static const struct bench_case cases[] = {
	IRQ("hlt.timer", I_HLT_TIMER, op_hlt_timer, NO_KUT),
	IRQ_PRIMED("tscdeadline.immed", I_DEADLINE_IMMED, op_deadline, NULL, NO_KUT),
	IRQ_CTL_SETTLE("tscdeadline.immed.cpuid", I_DEADLINE_CPUID, op_deadline_cpuid,
		       ctl_deadline_cpuid, settle_deadline_cpuid, "tscdeadline_immed"),
	IRQ_PRIMED("tscdeadline", I_DEADLINE, op_deadline, spin_kick, "tscdeadline"),
	IRQ("self_ipi.xapic", I_SELF_XAPIC, op_self_ipi, NO_KUT),
	IRQ("self_ipi.xapic.sti_nop", I_SELF_XAPIC_STI, op_self_ipi, NO_KUT),
	IRQ_NOWAIT("self_ipi.xapic.sti_nop.nowait", I_SELF_XAPIC_STI, "self_ipi_sti_nop"),
	IRQ_KICKED("self_ipi.xapic.sti_hlt", I_SELF_XAPIC_HLT, "self_ipi_sti_hlt"),
	IRQ("self_ipi.xapic.tpr", I_SELF_XAPIC_TPR, op_self_ipi, NO_KUT),
	IRQ_NOWAIT("self_ipi.xapic.tpr.nowait", I_SELF_XAPIC_TPR, "self_ipi_tpr"),
	IRQ("self_ipi.xapic.tpr.sti_nop", I_SELF_XAPIC_TPR_STI, op_self_ipi, NO_KUT),
	IRQ_NOWAIT("self_ipi.xapic.tpr.sti_nop.nowait", I_SELF_XAPIC_TPR_STI,
		   "self_ipi_tpr_sti_nop"),
	IRQ_KICKED("self_ipi.xapic.tpr.sti_hlt", I_SELF_XAPIC_TPR_HLT, "self_ipi_tpr_sti_hlt"),
	IRQ_CTL("eoi.xapic", I_EOI_XAPIC, op_eoi, ctl_eoi, NO_KUT),
	IRQ("self_ipi.x2apic.icr", I_SELF_X2_ICR, op_self_ipi, NO_KUT),
	IRQ("self_ipi.x2apic.icr.sti_nop", I_SELF_X2_ICR_STI, op_self_ipi, NO_KUT),
	IRQ("self_ipi.x2apic", I_SELF_X2_REG, op_self_ipi, NO_KUT),
	IRQ("self_ipi.x2apic.sti_nop", I_SELF_X2_REG_STI, op_self_ipi, NO_KUT),
	IRQ_NOWAIT("self_ipi.x2apic.sti_nop.nowait", I_SELF_X2_REG_STI, "x2apic_self_ipi_sti_nop"),
	IRQ_KICKED("self_ipi.x2apic.sti_hlt", I_SELF_X2_REG_HLT, "x2apic_self_ipi_sti_hlt"),
	IRQ("self_ipi.x2apic.tpr", I_SELF_X2_REG_TPR, op_self_ipi, NO_KUT),
	IRQ_NOWAIT("self_ipi.x2apic.tpr.nowait", I_SELF_X2_REG_TPR, "x2apic_self_ipi_tpr"),
	IRQ("self_ipi.x2apic.tpr.sti_nop", I_SELF_X2_REG_TPR_STI, op_self_ipi, NO_KUT),
	IRQ_NOWAIT("self_ipi.x2apic.tpr.sti_nop.nowait", I_SELF_X2_REG_TPR_STI,
		   "x2apic_self_ipi_tpr_sti_nop"),
	IRQ_KICKED("self_ipi.x2apic.tpr.sti_hlt", I_SELF_X2_REG_TPR_HLT,
		   "x2apic_self_ipi_tpr_sti_hlt"),
	IRQ_CTL("eoi.x2apic", I_EOI_X2APIC, op_eoi, ctl_eoi, NO_KUT),
	IRQ("ipi", I_IPI, op_ipi, NO_KUT),
	IRQ("ipi.halt", I_IPI_HALT, op_ipi, NO_KUT),
	IRQ_AP("ipi.on_cpu", I_IPI_ON_CPU, "ipi"),
	IRQ_AP("ipi.halt.on_cpu", I_IPI_HALT_ON_CPU, "ipi_halt"),
};

static void pic_mask(u8 *saved1, u8 *saved2, bool restore)
{
	if (restore) {
		outb(*saved1, PIC1_DATA_PORT);
		outb(*saved2, PIC2_DATA_PORT);
		return;
	}
	*saved1 = inb(PIC1_DATA_PORT);
	*saved2 = inb(PIC2_DATA_PORT);
	outb(PIC_MASK_ALL, PIC1_DATA_PORT);
	outb(PIC_MASK_ALL, PIC2_DATA_PORT);
}

static void check(const struct bench_case *c, const struct bench_result *r)
{
	char name[64], detail[128];

	fmt_snprintf(name, sizeof(name), "exits.irq.%s", c->name);
	fmt_snprintf(detail, sizeof(detail), "%lu interrupts for %lu ops, %lu waits timed out (%u us each)",
		     counted(c->arg) - isr_base,
		     c->op == op_eoi ? 0 : ops_done, timeouts, IRQ_WAIT_US);
	bench_check(name, r->mismatches == 0, detail);
}

void exits_irq_run(void)
{
	struct bench_result r;
	u8 imr1, imr2;
	u32 i;

	lapic_ok = lapic_init() == 0;
	wait_ticks = IRQ_WAIT_US * tsc.khz / 1000;
	irq_set_handler(VEC_SELF, isr_bsp);
	irq_set_handler(VEC_TIMER, isr_bsp);
	irq_set_handler(VEC_AP, isr_ap);
	irq_set_handler(VEC_AP_ON_CPU, isr_on_cpu);
	pic_mask(&imr1, &imr2, false);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (bench_run(&cases[i], &r) >= 0)
			check(&cases[i], &r);
	if (lapic_ok) {
		lapic_timer_stop();
		if (!ap_ready)
			lapic_set_x2apic(false);
	}
	pic_mask(&imr1, &imr2, true);
}
