/*
 * kernel/suites/exits_ipi.c - suite "exits" (extended), kvm-unit-tests
 * x86/vmexit's ipi as its build compiles it: ipi.on_cpu.insn.paired.
 *
 * vmexit's ipi() times on_cpu(1, nop, 0) between two RDTSC; __on_cpu
 * takes ipi_lock, stores the call's state, writes the ICR through the APIC
 * ops at %gs:8 and spins on ipi_done with no bound.  The AP idles in
 * ap_online's `hlt; jmp` loop (IF=1); its IPI goes through ipi_entry to
 * smp.c's ipi(), which calls the function, counts active_cpus down, sets
 * ipi_done and only then EOIs.  So vmexit calls again as soon as "done"
 * is set, before the AP's EOI, IRETQ and HLT: the call back to back,
 * where trapmeter's ipi.on_cpu (its own loop and interrupt path) and
 * vmexit part (trapmeter kut, the ipi row).  Here every one of those
 * instructions is vmexit's, in vmexit's run_test loop, on both vCPUs;
 * labels and the vector are this kernel's.  Its control is vmexit's
 * inl_from_kernel op in that loop, sampled interleaved: net is what
 * vmexit's ipi - inl_from_kernel is, instruction for instruction
 * (trapmeter kut's "same instructions").
 *
 * Exit model (per op, the control's one port exit taken out): the ICR
 * write (x2APIC one WRMSR; xAPIC a read of the ICR and two stores), the
 * AP's HLT exit and its EOI write: x2APIC 2, xAPIC 4.
 *
 * The spin on ipi_done has no bound inside, as vmexit's: the PIT
 * watchdog, kicked between samples, frees it after a second without a
 * kick while the BSP is in a batch, counts a lost wait (the check fails)
 * and sends the rest of the case's calls to the BSP itself (id_map[1] is
 * the BSP's APIC id: __on_cpu then calls the function in place).  The AP
 * leaves its idle loop through a second vector whose stub returns past
 * the loop.  Test hook fault=ple: the AP takes no call until the case
 * ends.
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/trap.h"
#include "arch/x86/tsc.h"
#include "drivers/lapic.h"
#include "drivers/pit_watchdog.h"
#include "drivers/platform.h"
#include "lib/fmt.h"
#include "lib/json.h"
#include "kernel/suites/exits_vmexit.h"

#define IPI_WAIT_US   1000000   /* one call, or the AP's start and stop */
/* Calls untimed before each sample (bench_case.prime): the AP's halt
 * through the framework's code and the control's batch outlasts KVM's
 * halt-poll window, which shrinks, so the next calls woke it from sleep
 * (25 % of wake-ups slept against vmexit's 0.7 %); these grow it back
 * (docs/measurements.md, "nineteenth session") */
#define IPI_PRIME     4
#define VEC_CALL      0xb6      /* vmexit's IPI_VECTOR (0x20 there) */
/* the AP out of its idle loop: below VEC_CALL, so a call still pending
 * (fault=ple) is taken first, through its own gate, and EOI'd */
#define VEC_STOP      0xb5
#define ICR_CALL      "0x40b6"  /* APIC_INT_ASSERT | VEC_CALL, as vmexit's $0x4020 */
#define MSR_GS_BASE   0xc0000101
#define PIC2_DATA     0xa1
#define PIC_ALL       0xff

/* smp.c's state of a call, and vmexit's tsc_ipi, by their names */
u32 exits_ipi_id_map[2];
u32 exits_ipi_lock;
u32 exits_ipi_active_cpus;
u32 exits_ipi_done;
u64 exits_ipi_function;
u64 exits_ipi_data;
u8 exits_ipi_wait;
u64 exits_ipi_tsc_ipi;
/* struct apic_ops of each mode: reg_read (not called), reg_write, icr_write */
extern const u64 exits_ipi_x2apic_ops[3], exits_ipi_xapic_ops[3];

void exits_ipi_call(void);		/* vmexit's ipi() */
void exits_ipi_entry(void);		/* smp.c's ipi_entry */
void exits_ipi_ap_stop(void);		/* VEC_STOP: past the idle loop */
void exits_ipi_ap_idle(void);		/* ap_online's loop, IF=1 */

/*
 * vmexit's ipi(), on_cpu(), __on_cpu(), nop(), apic_icr_write() and the
 * two icr_write ops; smp.c's ipi_entry and ipi(); ap_online's loop:
 * instruction for instruction as kvm-unit-tests 1da1819e compiles them
 * (objdump -d x86/vmexit.elf).  The kernel is linked below 2 GiB, so
 * id_map's absolute address fits as vmexit's does.
 */
__asm__(".text\n"
	".globl exits_ipi_call\n"
	"exits_ipi_call:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp; push %r12; push %rbx\n\t"
	"rdtsc\n\t"
	"mov %edx, %ebx; mov %eax, %r12d\n\t"
	"mov $0, %edx; mov $exits_ipi_nop, %esi; mov $1, %edi\n\t"
	"call exits_ipi_on_cpu\n\t"
	"rdtsc\n\t"
	"mov exits_ipi_tsc_ipi(%rip), %rcx\n\t"
	"shl $32, %rdx; mov %eax, %eax; or %rax, %rdx; add %rdx, %rcx\n\t"
	"shl $32, %rbx; mov %r12d, %r12d; or %r12, %rbx; sub %rbx, %rcx\n\t"
	"mov %rcx, exits_ipi_tsc_ipi(%rip)\n\t"
	"pop %rbx; pop %r12; pop %rbp\n\t"
	"ret\n"
	"exits_ipi_nop:\n\t"
	"endbr64\n\t"
	"ret\n"
	"exits_ipi_on_cpu:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"mov $1, %ecx\n\t"
	"call exits_ipi___on_cpu\n\t"
	"pop %rbp\n\t"
	"ret\n"
	"exits_ipi___on_cpu:\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"movslq %edi, %rdi\n\t"
	"mov exits_ipi_id_map(,%rdi,4), %edi\n\t"
	"mov $1, %r8d\n"
	"1:\tmov %r8d, %eax\n\t"
	"xchg %eax, exits_ipi_lock(%rip)\n\t"
	"test %eax, %eax\n\t"
	"jne 1b\n\t"
	"mov %gs:0, %eax\n\t"
	"cmp %eax, %edi\n\t"
	"jne 3f\n\t"
	"mov %rdx, %rdi\n\t"
	"call *%rsi\n"
	"2:\tmovl $0, exits_ipi_lock(%rip)\n\t"
	"pop %rbp\n\t"
	"ret\n"
	"3:\tlock incl exits_ipi_active_cpus(%rip)\n\t"
	"movl $0, exits_ipi_done(%rip)\n\t"
	"mov %rsi, exits_ipi_function(%rip)\n\t"
	"mov %rdx, exits_ipi_data(%rip)\n\t"
	"test %ecx, %ecx\n\t"
	"setne %al\n\t"
	"mov %al, exits_ipi_wait(%rip)\n\t"
	"mov %edi, %esi\n\t"
	"mov $" ICR_CALL ", %edi\n\t"
	"call exits_ipi_apic_icr_write\n"
	"4:\tmov exits_ipi_done(%rip), %eax\n\t"
	"test %eax, %eax\n\t"
	"je 4b\n\t"
	"jmp 2b\n"
	"exits_ipi_apic_icr_write:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"mov %gs:8, %rax\n\t"
	"call *0x10(%rax)\n\t"
	"pop %rbp\n\t"
	"ret\n"
	"exits_ipi_x2apic_icr_write:\n\t"
	"endbr64\n\t"
	"mov %edi, %eax; mov %esi, %edx\n\t"
	"mfence\n\t"
	"mov $0x830, %ecx\n\t"
	"wrmsr\n\t"
	"ret\n"
	"exits_ipi_xapic_icr_write:\n\t"
	"endbr64\n\t"
	"mov %esi, %eax\n\t"
	"mov $0xfee00300, %ecx\n"
	"1:\tmov (%rcx), %edx\n\t"
	"test $0x10, %dh\n\t"
	"jne 1b\n\t"
	"shl $0x18, %eax\n\t"
	"movabs %eax, 0xfee00310\n\t"
	"mov %edi, %eax\n\t"
	"movabs %eax, 0xfee00300\n\t"
	"ret\n"
	".globl exits_ipi_entry\n"
	"exits_ipi_entry:\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"and $-0x10, %rsp\n\t"
	"call exits_ipi_handler\n\t"
	"mov %rbp, %rsp; pop %rbp\n\t"
	"iretq\n"
	"exits_ipi_handler:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp; push %r13; push %r12; push %rbx\n\t"
	"sub $8, %rsp\n\t"
	"mov exits_ipi_function(%rip), %r12\n\t"
	"mov exits_ipi_data(%rip), %r13\n\t"
	"movzbl exits_ipi_wait(%rip), %ebx\n\t"
	"test %bl, %bl\n\t"
	"je 3f\n"
	"1:\tmov %r13, %rdi\n\t"
	"call *%r12\n\t"
	"lock decl exits_ipi_active_cpus(%rip)\n\t"
	"test %bl, %bl\n\t"
	"jne 4f\n"
	"2:\tadd $8, %rsp\n\t"
	"pop %rbx; pop %r12; pop %r13; pop %rbp\n\t"
	"ret\n"
	"3:\tmovl $1, exits_ipi_done(%rip)\n\t"
	"mov $0, %esi; mov $0xb0, %edi\n\t"
	"call exits_vmexit_apic_write\n\t"
	"jmp 1b\n"
	"4:\tmovl $1, exits_ipi_done(%rip)\n\t"
	"mov $0, %esi; mov $0xb0, %edi\n\t"
	"call exits_vmexit_apic_write\n\t"
	"jmp 2b\n"
	".globl exits_ipi_ap_idle\n"
	"exits_ipi_ap_idle:\n\t"
	"sti\n"
	"1:\thlt\n\t"
	"jmp 1b\n"
	"exits_ipi_ap_out:\n\t"
	"cli\n\t"
	"ret\n"
	".globl exits_ipi_ap_stop\n"
	"exits_ipi_ap_stop:\n\t"
	"mov $0, %esi; mov $0xb0, %edi\n\t"
	"call exits_vmexit_apic_write\n\t"
	"movq $exits_ipi_ap_out, (%rsp)\n\t"
	"iretq\n"
	".section .rodata\n"
	".balign 8\n"
	".globl exits_ipi_x2apic_ops\n"
	"exits_ipi_x2apic_ops:\n\t"
	".quad 0, exits_vmexit_x2apic_write, exits_ipi_x2apic_icr_write\n"
	".globl exits_ipi_xapic_ops\n"
	"exits_ipi_xapic_ops:\n\t"
	".quad 0, exits_vmexit_xapic_write, exits_ipi_xapic_icr_write\n"
	".text\n");

/* kvm-unit-tests' per-CPU area of each vCPU: smp_id (its APIC id) at
 * %gs:0, the APIC's ops at %gs:8 */
static u64 percpu[2][8] __attribute__((aligned(64)));
static u64 gs_before[2];
static u64 gate_before[2];
static u8 pic_before[2];
static u32 iterations;
static u64 wait_ticks;
static u64 ops;                         /* the BSP's ops of the case */
static u32 lost;                        /* waits the watchdog ended */
static volatile bool busy;              /* the BSP is in a batch */
static volatile bool ap_in, ap_out;     /* the AP entered, left its loop */
static volatile bool ap_leave;          /* fault=ple: the AP may go */

static const u64 *apic_ops(void)
{
	return lapic_x2apic_on() ? exits_ipi_x2apic_ops : exits_ipi_xapic_ops;
}

static void percpu_set(u32 me)
{
	percpu[me][0] = lapic_id();
	percpu[me][1] = (u64)(uintptr_t)apic_ops();
	exits_ipi_id_map[me] = lapic_id();
	gs_before[me] = rdmsr(MSR_GS_BASE);
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)percpu[me]);
}

/* wait, at most ticks, for a flag the other vCPU sets */
static bool seen_within(volatile bool *flag, u64 ticks)
{
	u64 start = tsc_begin();

	while (!*flag) {
		cpu_relax();
		if (tsc_begin() - start > ticks)
			return false;
	}
	return true;
}

static bool seen(volatile bool *flag)
{
	return seen_within(flag, wait_ticks);
}

/* The AP's job (irq.c's job IPI, EOI'd, IF=0): its area, then vmexit's
 * idle loop until the stop IPI; fault=ple: IF stays 0, no call taken. */
static void ap_job(void)
{
	percpu_set(1);
	ap_out = false;
	barrier();
	ap_in = true;
	if (bench_cfg->fault == FAULT_PLE)
		/* test hook: IF=0 until the case ends (the watchdog fires at 1 s) */
		seen_within(&ap_leave, 5 * wait_ticks);
	exits_ipi_ap_idle();
	wrmsr(MSR_GS_BASE, gs_before[1]);
	barrier();
	ap_out = true;
}

/* The watchdog ran IPI_WAIT_US without a kick while the BSP waited: its
 * spin freed, the rest of the case's calls made in place. */
static void release(void)
{
	if (!busy)
		return;		/* no spin of the BSP's to free */
	exits_ipi_id_map[1] = exits_ipi_id_map[0];
	exits_ipi_done = 1;
	lost++;
}

static void op_ipi_insn(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	ops += iters;
	iterations = (u32)iters;
	busy = true;
	exits_vmexit_run_test(exits_ipi_call, &iterations);
	busy = false;
}

/* vmexit's inl_from_kernel op in that loop */
static void ctl_ipi_kernel(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	iterations = (u32)iters;
	exits_vmexit_run_test(exits_vmexit_inl_nop_kernel, &iterations);
}

static void gates_put(void)
{
	trap_set_gate(VEC_CALL, gate_before[0]);
	trap_set_gate(VEC_STOP, gate_before[1]);
}

/* The AP out of its loop (the stop IPI), bounded. */
static bool ap_stopped(void)
{
	ap_leave = true;
	barrier();
	lapic_send_ipi((u32)percpu[1][0], VEC_STOP);
	return seen(&ap_out);
}

/* The 8259, GS and the gates put back, the AP out of its loop: false if
 * it did not come out within IPI_WAIT_US. */
static bool put_back(void)
{
	bool out = ap_stopped();

	outb(pic_before[0], PIC1_DATA_PORT);
	outb(pic_before[1], PIC2_DATA);
	wrmsr(MSR_GS_BASE, gs_before[0]);
	gates_put();
	return out;
}

/* The AP in vmexit's loop, GS at the BSP's area, the watchdog armed, IF=1
 * with the 8259 masked (the watchdog's IRQ 0 comes through the I/O APIC). */
static const char *skip_ipi_insn(const struct bench_case *c)
{
	const char *why;

	(void)c;
	if (exits_vcpu_count() < 2)
		return "one vCPU: ipi.on_cpu.insn calls the second (-smp 2; the runner passes it when case= selects it, or with --smp 2)";
	wait_ticks = (u64)IPI_WAIT_US * tsc.khz / 1000;
	ops = lost = 0;
	exits_ipi_tsc_ipi = 0;
	ap_in = ap_leave = false;
	gate_before[0] = trap_set_gate(VEC_CALL, (u64)(uintptr_t)exits_ipi_entry);
	gate_before[1] = trap_set_gate(VEC_STOP, (u64)(uintptr_t)exits_ipi_ap_stop);
	why = exits_ap_run(ap_job);
	if (!why && !seen(&ap_in))
		why = "the AP did not take the ipi job within 1 s of its IPI";
	if (why) {
		gates_put();
		return why;
	}
	percpu_set(0);
	pic_before[0] = inb(PIC1_DATA_PORT);
	pic_before[1] = inb(PIC2_DATA);
	outb(PIC_ALL, PIC1_DATA_PORT);
	outb(PIC_ALL, PIC2_DATA);
	if (pit_watchdog_start(IPI_WAIT_US, release)) {
		put_back();
		return "the PIT's interrupt (IRQ 0, I/O APIC pin 2) did not arrive: the spin would have no bound";
	}
	irq_enable();
	return NULL;
}

/* No wait lost, no call left counted in, the AP out; state put back. */
static u32 verify_ipi_insn(const struct bench_case *c, const u8 *buf)
{
	u32 bad;

	(void)c;
	(void)buf;
	irq_disable();
	pit_watchdog_stop();
	bad = exits_ipi_active_cpus != 0;
	bad += !put_back();
	exits_ipi_active_cpus = 0;
	return lost + bad;
}

static u32 model_ipi_insn(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return lapic_x2apic_on() ? 2 : 4;
}

static void extra_ipi_insn(const struct bench_case *c, const struct bench_result *r,
			   struct jw *w)
{
	(void)c;
	(void)r;
	exits_vmexit_jw_loop(w, lost, ops);
	jw_bool(w, "x2apic", lapic_x2apic_on());
	jw_u64(w, "tsc_ipi", exits_ipi_tsc_ipi);
}

static const struct bench_case ipi_insn_case = {
	.suite = "exits", .name = "ipi.on_cpu.insn.paired", .target = "lapic",
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = op_ipi_insn,
	.control = ctl_ipi_kernel, .exits_model = model_ipi_insn, .skip = skip_ipi_insn,
	.verify = verify_ipi_insn, .extra = extra_ipi_insn, .settle = exits_vmexit_wait_kick,
	.prime = IPI_PRIME,
	.kut_name = BENCH_NO_KUT };

void exits_ipi_run(void)
{
	struct bench_result r;
	char detail[128];
	int rc = bench_run(&ipi_insn_case, &r);

	if (rc < 0)
		return;
	fmt_snprintf(detail, sizeof(detail), "%lu ops, %u waits ended by the watchdog, AP %s",
		     ops, lost, ap_out ? "out of its loop" : "still in its loop");
	bench_check("exits.ipi.on_cpu.insn", rc == 0, detail);
}
