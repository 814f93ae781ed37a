/*
 * kernel/suites/exits_vmexit.c - the per-CPU area and exception_vector()
 * that vmexit's control-register writes go through
 * (kernel/suites/exits_vmexit.h): GS points at a zeroed area whose byte 4
 * is the vector an exception handler would leave (none does here) and
 * whose word at 8 points at the APIC's ops.  And the path vmexit's
 * timer interrupt and self-IPI take, for tscdeadline.immed.insn,
 * tscdeadline.insn and self_ipi.x2apic.tpr(.sti_nop).insn, and vmexit's
 * apic_set_tpr and x2apic_self_ipi for the latter;
 * and vmexit's run_test, ple_round_robin and inl_nop_kernel, for
 * ple.round_robin.insn.paired.
 */
#include "kernel/suites/exits_vmexit.h"
#include "arch/x86/cpu.h"
#include "drivers/pci_testdev.h"
#include "drivers/lapic.h"
#include "drivers/pit_watchdog.h"
#include "arch/x86/irq.h"
#include "arch/x86/trap.h"
#include "arch/x86/tsc.h"
#include "arch/x86/io.h"
#include "drivers/platform.h"
#include "kernel/bench.h"
#include "lib/json.h"

#define MSR_GS_BASE 0xc0000101
#define PERCPU_APIC_OPS 8        /* kvm-unit-tests' percpu apic_ops */
#define VEC_VMEXIT  0xb0         /* vmexit's IPI_TEST_VECTOR, its LVTT's too */
#define ARRIVE_US   1000000      /* one interrupt, as kernel/suites/irq.c */
#define PIC2_DATA   0xa1
#define PIC_ALL     0xff

u32 exits_vmexit_faults;
u64 exits_vmexit_ptd_mem;
u32 exits_vmexit_ptd_port;
u32 exits_vmexit_ptd_data;

static struct pci_testdev ptd;
static u32 ptd_before[2];	/* port, mem: the test's count at set-up */

/* kvm-unit-tests' struct percpu: exception_vector is the byte at 4,
 * the APIC's ops at 8 */
static u8 percpu[64] __attribute__((aligned(64)));
static u64 gs_before;
/* struct apic_ops: reg_read (not called here), reg_write */
static u64 apic_ops[2];
static u64 gate_before;
static bool path_x2apic;      /* the path set x2APIC mode */
static bool deadline_wait;      /* tscdeadline's: the watchdog runs */
static u8 pic_before[2];        /* the legacy PIC's masks, put back after */
u32 exits_vmexit_isr_count;            /* vmexit's x */
u64 exits_vmexit_tsc_eoi;              /* vmexit's tsc_eoi */
u32 exits_vmexit_waits_lost;

/* kvm-unit-tests' exception_vector(), as its build compiles it */
__asm__(".text\n"
	".globl exits_vmexit_exception_vector\n"
	"exits_vmexit_exception_vector:\n\t"
	"endbr64\n\t"
	"mov %gs:4, %al\n\t"
	"movzbl %al, %eax\n\t"
	"ret\n");

/*
 * vmexit's timer interrupt, instruction for instruction: handle_irq's
 * per-vector thunk (the handler's address into a slot, a jump),
 * isr_entry_point (16 registers saved, the handler called through the
 * slot, restored, IRETQ), self_ipi_isr (x counted, eoi() timed by two
 * RDTSC into tsc_eoi), eoi() -> apic_write() -> the write of the APIC
 * ops at %gs:8: x2APIC one WRMSR, xAPIC one MMIO store.  Labels are this
 * kernel's; the kernel is linked below 4 GiB, so the slot's high half is
 * 0.
 */
__asm__(".text\n"
	"exits_vmexit_thunk:\n\t"
	"sub $8, %rsp\n\t"
	"movl $exits_vmexit_isr, (%rsp)\n\t"
	"movl $0, 4(%rsp)\n\t"
	"jmp exits_vmexit_isr_entry\n"
	"exits_vmexit_isr_entry:\n\t"
	"push %r15; push %r14; push %r13; push %r12\n\t"
	"push %r11; push %r10; push %r9; push %r8\n\t"
	"push %rdi; push %rsi; push %rbp; push %rsp\n\t"
	"push %rbx; push %rdx; push %rcx; push %rax\n\t"
	"mov %rsp, %rdi\n\t"
	"call *0x80(%rsp)\n\t"
	"pop %rax; pop %rcx; pop %rdx; pop %rbx\n\t"
	"pop %rbp; pop %rbp; pop %rsi; pop %rdi\n\t"
	"pop %r8; pop %r9; pop %r10; pop %r11\n\t"
	"pop %r12; pop %r13; pop %r14; pop %r15\n\t"
	"add $8, %rsp\n\t"
	"iretq\n"
	"exits_vmexit_isr:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp; push %r12; push %rbx\n\t"
	"mov exits_vmexit_isr_count(%rip), %eax\n\t"
	"add $1, %eax\n\t"
	"mov %eax, exits_vmexit_isr_count(%rip)\n\t"
	"rdtsc\n\t"
	"mov %edx, %ebx; mov %eax, %r12d\n\t"
	"call exits_vmexit_eoi\n\t"
	"rdtsc\n\t"
	"mov exits_vmexit_tsc_eoi(%rip), %rcx\n\t"
	"shl $32, %rdx; mov %eax, %eax; or %rax, %rdx; add %rdx, %rcx\n\t"
	"shl $32, %rbx; mov %r12d, %r12d; or %r12, %rbx; sub %rbx, %rcx\n\t"
	"mov %rcx, exits_vmexit_tsc_eoi(%rip)\n\t"
	"pop %rbx; pop %r12; pop %rbp\n\t"
	"ret\n"
	"exits_vmexit_eoi:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"mov $0, %esi; mov $0xb0, %edi\n\t"
	"call exits_vmexit_apic_write\n\t"
	"pop %rbp\n\t"
	"ret\n"
	".globl exits_vmexit_apic_write\n"
	"exits_vmexit_apic_write:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"mov %gs:8, %rax\n\t"
	"call *8(%rax)\n\t"
	"pop %rbp\n\t"
	"ret\n"
	".globl exits_vmexit_x2apic_write\n"
	"exits_vmexit_x2apic_write:\n\t"
	"endbr64\n\t"
	"shr $4, %edi; lea 0x800(%rdi), %ecx; mov $0, %edx; mov %esi, %eax\n\t"
	"wrmsr\n\t"
	"ret\n"
	".globl exits_vmexit_xapic_write\n"
	"exits_vmexit_xapic_write:\n\t"
	"endbr64\n\t"
	"mov %edi, %edi; mov $0xfee00000, %eax; add %rax, %rdi\n\t"
	"mov %esi, (%rdi)\n\t"
	"ret\n");

u64 exits_vmexit_tsc_ipi;               /* vmexit's tsc_ipi */
u64 exits_vmexit_tpr_stored;

/*
 * vmexit's apic_set_tpr (lib/x86/apic.c, 64-bit: the TPR through CR8)
 * and x2apic_self_ipi (the SELF_IPI WRMSR timed by two RDTSC into
 * tsc_ipi), as its build compiles them; SUFFIX "_ctl" with SET_TPR a
 * store to RAM and WRMSR a nop: the control's copies.
 */
#define VMEXIT_SELF_IPI_FNS(SUFFIX, SET_TPR, WRMSR)                       \
	".globl exits_vmexit_set_tpr" SUFFIX "\n"                         \
	"exits_vmexit_set_tpr" SUFFIX ":\n\t"                             \
	"endbr64\n\t"                                                     \
	"movzbl %dil, %edi\n\t"                                           \
	SET_TPR "\n\t"                                                    \
	"ret\n"                                                           \
	".globl exits_vmexit_x2apic_self_ipi" SUFFIX "\n"                 \
	"exits_vmexit_x2apic_self_ipi" SUFFIX ":\n\t"                     \
	"rdtsc\n\t"                                                       \
	"mov %edx, %esi; mov %eax, %r8d\n\t"                              \
	"movslq %edi, %rdx; shr $0x20, %rdx\n\t"                          \
	"mov $0x83f, %ecx; mov %edi, %eax\n\t"                            \
	WRMSR "\n\t"                                                      \
	"rdtsc\n\t"                                                       \
	"mov exits_vmexit_tsc_ipi(%rip), %rcx\n\t"                        \
	"shl $0x20, %rdx; mov %eax, %eax; or %rax, %rdx; add %rcx, %rdx\n\t" \
	"shl $0x20, %rsi; mov %r8d, %r8d; or %r8, %rsi; sub %rsi, %rdx\n\t" \
	"mov %rdx, exits_vmexit_tsc_ipi(%rip)\n\t"                        \
	"ret\n"

__asm__(".text\n"
	VMEXIT_SELF_IPI_FNS("", "mov %rdi, %cr8", "wrmsr")
	VMEXIT_SELF_IPI_FNS("_ctl", "mov %rdi, exits_vmexit_tpr_stored(%rip)", "nop"));

struct vmexit_counter exits_vmexit_ple_counters[VMEXIT_SLOTS];
u32 exits_vmexit_ple_cpus;

/*
 * vmexit's run_test (fn called iterations times, its count compared in
 * RAM each time; here the count's address in r13), ple_round_robin and
 * inl_nop_kernel, and kvm-unit-tests' smp_id(), instruction for
 * instruction as its build compiles them (kvm-unit-tests 1da1819e: objdump
 * -d x86/vmexit.elf).  The kernel is linked below 2 GiB, so the counters'
 * absolute addresses fit as vmexit's do.
 */
__asm__(".text\n"
	".globl exits_vmexit_run_test\n"
	"exits_vmexit_run_test:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp; push %r13; push %r12; push %rbx\n\t"
	"mov %rdi, %r12; mov %rsi, %r13; mov $0, %ebx\n"
	"1:\tcall *%r12\n\t"
	"add $1, %ebx\n\t"
	"cmp (%r13), %ebx\n\t"
	"jb 1b\n\t"
	"pop %rbx; pop %r12; pop %r13; pop %rbp\n\t"
	"ret\n"
	".globl exits_vmexit_ple_round_robin\n"
	"exits_vmexit_ple_round_robin:\n\t"
	"endbr64\n\t"
	"push %rbp; mov %rsp, %rbp\n\t"
	"call exits_vmexit_smp_id\n\t"
	"mov %eax, %esi\n\t"
	"cltq\n\t"
	"shl $6, %rax\n\t"
	"lea exits_vmexit_ple_counters(%rax), %rcx\n\t"
	"mov exits_vmexit_ple_counters(%rax), %edx\n\t"
	"mov exits_vmexit_ple_counters+4(%rax), %eax\n\t"
	"cmp %eax, %edx\n\t"
	"jne 2f\n\t"
	"mov %rcx, %rax\n"
	"1:\tpause\n\t"
	"mov (%rax), %ecx\n\t"
	"mov 4(%rax), %edx\n\t"
	"cmp %edx, %ecx\n\t"
	"je 1b\n"
	"2:\tmovslq %esi, %rax\n\t"
	"shl $6, %rax\n\t"
	"lea exits_vmexit_ple_counters(%rax), %rdx\n\t"
	"mov exits_vmexit_ple_counters(%rax), %eax\n\t"
	"mov %eax, 4(%rdx)\n\t"
	"lea 1(%rsi), %eax\n\t"
	"cmp %eax, exits_vmexit_ple_cpus(%rip)\n\t"
	"mov $0, %edx\n\t"
	"cmove %edx, %eax\n\t"
	"cltq\n\t"
	"shl $6, %rax\n\t"
	"mov exits_vmexit_ple_counters(%rax), %edx\n\t"
	"add $1, %edx\n\t"
	"mov %edx, exits_vmexit_ple_counters(%rax)\n\t"
	"pop %rbp\n\t"
	"ret\n"
	".globl exits_vmexit_inl_nop_kernel\n"
	"exits_vmexit_inl_nop_kernel:\n\t"
	"endbr64\n\t"
	"mov $0x4d0, %edx\n\t"
	"in (%dx), %al\n\t"
	"ret\n"
	".globl exits_vmexit_smp_id\n"
	"exits_vmexit_smp_id:\n\t"
	"endbr64\n\t"
	"mov %gs:0, %eax\n\t"
	"ret\n");

extern const char exits_vmexit_thunk[], exits_vmexit_x2apic_write[];
extern const char exits_vmexit_xapic_write[];

/* %gs:8 as the ISR path reads it */
static u64 gs_word(void)
{
	u64 v;

	__asm__ volatile("mov %%gs:8, %0" : "=r"(v));
	return v;
}

const char *exits_vmexit_gs_set(void)
{
	*(u64 *)(percpu + PERCPU_APIC_OPS) = (u64)(uintptr_t)apic_ops;
	gs_before = rdmsr(MSR_GS_BASE);
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)percpu);
	exits_vmexit_faults = 0;
	if (gs_word() != (u64)(uintptr_t)apic_ops) {
		exits_vmexit_gs_put();
		return "%gs-relative loads do not follow IA32_GS_BASE here: vmexit's per-CPU area cannot be set";
	}
	return NULL;
}

void exits_vmexit_gs_put(void)
{
	wrmsr(MSR_GS_BASE, gs_before);
}

const char *exits_vmexit_ptd_set(bool mem)
{
	struct ptd_test hdr;
	const char *why = NULL;

	if (ptd_find(&ptd, &why))
		return why ? why : "pci-testdev unusable";
	if (ptd_select(&ptd, mem, PTD_NO_EVENTFD, &hdr))
		return "pci-testdev's no-eventfd test header did not read back";
	exits_vmexit_ptd_data = hdr.data;
	if (mem)
		exits_vmexit_ptd_mem = (u64)(uintptr_t)(ptd.mem + hdr.offset);
	else
		exits_vmexit_ptd_port = ptd.io + hdr.offset;
	ptd_before[mem] = ptd_count(&ptd, mem);
	return NULL;
}

u32 exits_vmexit_ptd_written(bool mem)
{
	return ptd_count(&ptd, mem) - ptd_before[mem];
}

/* Is one deadline of now taken within ARRIVE_US (IF=1 for the spin)? */
static bool deadline_arrives(void)
{
	struct tsc_wait w = TSC_WAIT(ARRIVE_US);
	u32 before = exits_vmexit_isr_count;
	bool late = false;

	irq_enable();
	lapic_deadline_arm(tsc_begin());
	while (exits_vmexit_isr_count == before && !late)
		late = tsc_wait_over(&w);
	irq_disable();
	return !late;
}

/* The watchdog ran ARRIVE_US without a kick: vmexit's x set, so the spin
 * ends, and the wait counted lost. */
static void wait_release(void)
{
	*(volatile u32 *)&exits_vmexit_isr_count = 1;
	exits_vmexit_waits_lost++;
}

void exits_vmexit_jw_loop(struct jw *w, u32 lost, u64 ops_bsp)
{
	jw_str(w, "loop", "vmexit.run_test");
	jw_str(w, "control_case", "inl_from_kernel");
	jw_u64(w, "watchdog_shots", pit_watchdog_fired);
	jw_u64(w, "wait_timeouts", lost);
	jw_u64(w, "ops_bsp", ops_bsp);
}

void exits_vmexit_wait_kick(const struct bench_case *c)
{
	(void)c;
	pit_watchdog_kick();
}

/* vmexit's interrupt path at its vector: x2APIC where CPUID has it (as
 * vmexit's setup), GS at the per-CPU area, eoi() through the APIC ops,
 * the 8259's IRQs (its vectors from 8) masked for IF=1, the gate. */
static const char *path_set(void)
{
	const char *why;

	path_x2apic = lapic_has_x2apic();
	if (path_x2apic && lapic_set_x2apic(true))
		return "x2APIC present but cannot be enabled";
	why = exits_vmexit_gs_set();
	if (why) {
		if (path_x2apic)
			lapic_set_x2apic(false);
		return why;
	}
	apic_ops[1] = (u64)(uintptr_t)(path_x2apic ? exits_vmexit_x2apic_write :
				       exits_vmexit_xapic_write);
	pic_before[0] = inb(PIC1_DATA_PORT);
	pic_before[1] = inb(PIC2_DATA);
	outb(PIC_ALL, PIC1_DATA_PORT);
	outb(PIC_ALL, PIC2_DATA);
	gate_before = trap_set_gate(VEC_VMEXIT, (u64)(uintptr_t)exits_vmexit_thunk);
	exits_vmexit_isr_count = 0;
	exits_vmexit_waits_lost = 0;
	return NULL;
}

static void path_put(void)
{
	trap_set_gate(VEC_VMEXIT, gate_before);
	outb(pic_before[0], PIC1_DATA_PORT);
	outb(pic_before[1], PIC2_DATA);
	exits_vmexit_gs_put();
	if (path_x2apic)
		lapic_set_x2apic(false);
}

const char *exits_vmexit_deadline_set(bool wait)
{
	const char *why;

	exits_vmexit_settled = 0;
	if (lapic_init())
		return "no usable local APIC (CPUID 1 EDX[9] or IA32_APIC_BASE.EN clear)";
	if (!lapic_has_tsc_deadline())
		return "no TSC-deadline timer (CPUID 1 ECX[24])";
	why = path_set();
	if (why)
		return why;
	lapic_deadline_mode(VEC_VMEXIT);
	if (!deadline_arrives()) {
		exits_vmexit_deadline_put();
		return "a TSC deadline of now raised no interrupt within 1 s: vmexit's op would count none";
	}
	deadline_wait = wait;
	if (wait && pit_watchdog_start(ARRIVE_US, wait_release)) {
		exits_vmexit_deadline_put();
		return "the PIT's interrupt (IRQ 0, I/O APIC pin 2) did not arrive: the spin would have no bound";
	}
	if (wait && bench_cfg->fault == FAULT_TIMER)
		lapic_timer_stop();	/* test hook: no deadline fires */
	irq_enable();		/* vmexit's cases run with IF=1 */
	return NULL;
}

u32 exits_vmexit_settled;

void exits_vmexit_deadline_settle(const struct bench_case *c)
{
	u32 before = *(volatile u32 *)&exits_vmexit_isr_count;

	(void)c;
	lapic_deadline_arm(0);
	exits_vmexit_settled += *(volatile u32 *)&exits_vmexit_isr_count - before;
}

u32 exits_vmexit_deadline_put(void)
{
	irq_disable();
	if (deadline_wait)
		pit_watchdog_stop();
	deadline_wait = false;
	lapic_deadline_arm(0);	/* disarmed; one still pending is taken now */
	irq_window();
	lapic_timer_stop();
	path_put();
	return (exits_vmexit_isr_count == 0) + (exits_vmexit_waits_lost != 0);
}

/* Is vmexit's vector still waiting in IRR? */
static bool vector_pending(void)
{
	return lapic_read(LAPIC_IRR + VEC_VMEXIT / 32 * 0x10) & (1u << (VEC_VMEXIT % 32));
}

/* With IF=1 and the TPR at 0: is an interrupt pending at VEC_VMEXIT
 * taken within ARRIVE_US (none pending: at once)? */
static bool pending_taken(void)
{
	struct tsc_wait w = TSC_WAIT(ARRIVE_US);
	bool late = false;

	irq_enable();
	while (vector_pending() && !late)
		late = tsc_wait_over(&w);
	irq_disable();
	return !late;
}

static u32 settle_late;          /* settles whose pending one never came */

const char *exits_vmexit_self_ipi_set(void)
{
	const char *why;

	if (lapic_init())
		return "no usable local APIC (CPUID 1 EDX[9] or IA32_APIC_BASE.EN clear)";
	if (!lapic_has_x2apic())
		return "no x2APIC (CPUID 1 ECX[21]): vmexit runs its x2apic_self_ipi_* cases only "
		       "in x2APIC mode";
	why = path_set();
	if (why)
		return why;
	write_cr8(0);
	wrmsr(LAPIC_MSR_SELF_IPI, VEC_VMEXIT);
	if (!pending_taken() || exits_vmexit_isr_count != 1) {
		exits_vmexit_self_ipi_put();
		return "a self-IPI raised no interrupt within 1 s: vmexit's op would count none";
	}
	exits_vmexit_tsc_ipi = 0;
	exits_vmexit_settled = 0;
	settle_late = 0;
	irq_enable();		/* vmexit's cases run with IF=1 */
	return NULL;
}

void exits_vmexit_self_ipi_settle(const struct bench_case *c)
{
	u32 before = *(volatile u32 *)&exits_vmexit_isr_count;

	(void)c;
	settle_late += !pending_taken();
	exits_vmexit_settled += *(volatile u32 *)&exits_vmexit_isr_count - before;
	irq_enable();
}

u32 exits_vmexit_self_ipi_put(void)
{
	u32 bad = !pending_taken() + (settle_late != 0);

	bad += read_cr8() != 0;
	/* the arrival check's own interrupt, then at least one of the case's */
	bad += exits_vmexit_isr_count < 2;
	path_put();
	return bad;
}
