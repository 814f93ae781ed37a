/*
 * kernel/suites/exits_vmexit.h - kvm-unit-tests x86/vmexit.c's ops that
 * suite exits runs instruction for instruction as vmexit's build compiles
 * them (kvm-unit-tests 1da1819e, its own gcc -O2 -fcf-protection: objdump
 * -d x86/vmexit.elf), less the endbr64 and ret every vmexit case shares
 * with its reference inl_from_kernel.  On a backend that emulates every
 * guest instruction (KVM on PVM) the instructions are most of the cost,
 * so `trapmeter kut` tries these against vmexit's difference of cases
 * ("same instructions", tools/trapmeterlib/stats/kutcounts.py).
 *
 * vmexit's write_cr0/write_cr4 are exception-safe writes (lib/x86/
 * processor.h, asm_safe): the per-CPU exception vector at %gs:4 is
 * cleared, the control register written, then exception_vector() reads
 * it back.  exits_vmexit_gs_set() points GS at a per-CPU area of that
 * shape for the cases that run these, exits_vmexit_gs_put() puts it back.
 */
#ifndef KERNEL_SUITES_EXITS_VMEXIT_H
#define KERNEL_SUITES_EXITS_VMEXIT_H

#include "lib/types.h"

/* vmexit's toggle_cr0_wp and toggle_cr4_pge: the value each write puts */
#define VMEXIT_CR0_OFF  0x80000001ull    /* PE|PG */
#define VMEXIT_CR0_ON   0x80010001ull    /* PE|WP|PG */
#define VMEXIT_CR4_PGE  0x80ull

/* exception_vector() calls that found a vector: vmexit aborts there */
extern u32 exits_vmexit_faults;

/* NULL, or why %gs does not reach the area (the base not honoured) */
const char *exits_vmexit_gs_set(void);
void exits_vmexit_gs_put(void);

/* One checked write of a control register, as vmexit's wrapper: the
 * vector at %gs:4 cleared, the write (WRITE, its source in rax or rbx),
 * exception_vector's call, and a non-zero vector counted out of line. */
#define VMEXIT_SAFE_WRITE(WRITE)                                          \
	"movl $0, %%gs:4\n\t"                                             \
	WRITE "\n\t"                                                      \
	"call exits_vmexit_exception_vector\n\t"                          \
	"test %%eax, %%eax\n\t"                                           \
	"jne 7f\n"                                                        \
	"1:\n\t"                                                          \
	".pushsection .text.unlikely\n"                                   \
	"7:\tincl exits_vmexit_faults(%%rip)\n\t"                         \
	"jmp 1b\n\t"                                                      \
	".popsection\n\t"

/* toggle_cr0_wp's body: frame, CR0 = PE|PG, CR0 = PE|WP|PG.  With
 * STORE "mov %%rax, %[to]" in place of the CR0 write it is the control. */
#define VMEXIT_TOGGLE_CR0(WRITE, ...)                                     \
	__asm__ volatile("push %%rbp\n\t"                                 \
			 "mov %%rsp, %%rbp\n\t"                           \
			 "mov $0x80000001, %%eax\n\t"                     \
			 VMEXIT_SAFE_WRITE(WRITE)                         \
			 "mov $0x80010001, %%eax\n\t"                     \
			 VMEXIT_SAFE_WRITE(WRITE)                         \
			 "pop %%rbp"                                      \
			 : __VA_ARGS__ : : "rax", "cc", "memory")

/* toggle_cr4_pge's body: frame with rbx saved, CR4 = shadow ^ PGE, then
 * CR4 = shadow (the shadow read from RAM each time, as vmexit's
 * cr4_shadow). */
#define VMEXIT_TOGGLE_CR4(SHADOW, WRITE, ...)                             \
	__asm__ volatile("push %%rbp\n\t"                                 \
			 "mov %%rsp, %%rbp\n\t"                           \
			 "push %%rbx\n\t"                                 \
			 "sub $8, %%rsp\n\t"                              \
			 "mov %[shadow], %%rbx\n\t"                       \
			 "xor $0x80, %%bl\n\t"                            \
			 VMEXIT_SAFE_WRITE(WRITE)                         \
			 "mov %[shadow], %%rbx\n\t"                       \
			 VMEXIT_SAFE_WRITE(WRITE)                         \
			 "mov -8(%%rbp), %%rbx\n\t"                       \
			 "leave"                                          \
			 : __VA_ARGS__ : [shadow] "m"(SHADOW) : "rax", "cc", "memory")

/* vmexit's pci_mem_testb and pci_io_testb (pci-testdev's first test, no
 * eventfd): the address or port and the byte loaded from RAM (its
 * pci_test struct), then one store or out.  The control stores to TO. */
extern u64 exits_vmexit_ptd_mem;      /* BAR0 + the test's offset */
extern u32 exits_vmexit_ptd_port;     /* BAR1 + the test's offset */
extern u32 exits_vmexit_ptd_data;     /* the test's data byte */

/* Two loads from RAM into registers RA and RB, then ACCESS */
#define VMEXIT_LOAD2_THEN(A, RA, B, RB, ACCESS, ...)                      \
	__asm__ volatile("mov %[a], %%" RA "\n\t"                         \
			 "mov %[b], %%" RB "\n\t"                         \
			 ACCESS                                           \
			 : __VA_ARGS__                                    \
			 : [a] "m"(A), [b] "m"(B)                         \
			 : "rax", "rdx", "memory")

#define VMEXIT_PCI_MEM(STORE, ...) VMEXIT_LOAD2_THEN(exits_vmexit_ptd_mem, "rax", \
	exits_vmexit_ptd_data, "edx", STORE, __VA_ARGS__)
#define VMEXIT_PCI_IO(OUT, ...) VMEXIT_LOAD2_THEN(exits_vmexit_ptd_data, "eax", \
	exits_vmexit_ptd_port, "edx", OUT, __VA_ARGS__)

/* vmexit's inl_pmtimer: a frame, pm_tmr_blk (an int in RAM) compared
 * with 0, then loaded sign-extended into rdx, then IN (inl from that
 * port, the ACPI PM timer in QEMU).  The control loads from TO (a RAM
 * load) in place of the IN. */
#define VMEXIT_PMTIMER(PORT, IN, ...)                                     \
	__asm__ volatile("push %%rbp\n\t"                                 \
			 "mov %%rsp, %%rbp\n\t"                           \
			 "cmpl $0, %[port]\n\t"                           \
			 "je 1f\n\t"                                      \
			 "movslq %[port], %%rdx\n\t"                      \
			 IN "\n"                                          \
			 "1:\tpop %%rbp"                                   \
			 : : [port] "m"(PORT), ##__VA_ARGS__                \
			 : "rax", "rdx", "cc", "memory")

/* pci-testdev found, its no-eventfd test selected on the MMIO (mem) or
 * port side, the globals above set: NULL, or why not. */
const char *exits_vmexit_ptd_set(bool mem);

/* Writes pci-testdev counted since exits_vmexit_ptd_set(mem): each op's
 * write reaches QEMU (no eventfd), so none is a lost write. */
u32 exits_vmexit_ptd_written(bool mem);

/* vmexit's tscdeadline_immed: a frame with rbx saved, the deadline MSR
 * (0x6e0) written with the TSC now, then CPUID leaf 0 to serialize
 * (wrmsr_tscdeadline_serialize); its interrupt comes with IF=1 through
 * the path kernel/suites/exits_vmexit.c runs.  The control puts nops in
 * place of WRMSR and CPUID. */
#define VMEXIT_TSCDEADLINE_IMMED(WRMSR, CPUID)                            \
	__asm__ volatile("push %%rbp\n\t"                                 \
			 "mov %%rsp, %%rbp\n\t"                           \
			 "push %%rbx\n\t"                                 \
			 "rdtsc\n\t"                                      \
			 "shl $32, %%rdx\n\t"                             \
			 "mov %%eax, %%eax\n\t"                           \
			 "or %%rdx, %%rax\n\t"                            \
			 "shr $32, %%rdx\n\t"                             \
			 "mov $0x6e0, %%ecx\n\t"                          \
			 WRMSR "\n\t"                                     \
			 "mov $0, %%eax\n\t"                              \
			 "mov %%eax, %%ecx\n\t"                           \
			 CPUID "\n\t"                                     \
			 "mov -8(%%rbp), %%rbx\n\t"                       \
			 "leave"                                          \
			 : : : "rax", "rcx", "rdx", "cc", "memory")

/* vmexit's interrupts taken (its x) and its tsc_eoi */
extern u32 exits_vmexit_isr_count;
extern u64 exits_vmexit_tsc_eoi;

/* vmexit's tscdeadline, instruction for instruction: x cleared, the
 * deadline MSR written with the TSC 3000 cycles ahead, then a spin until
 * the interrupt's handler (the path above) counts x: a first test, then
 * a loop of load, test and JE.  The spin has no bound of its own (on PVM
 * the op is one emulator batch of what it runs: a LOOPZ bound cost 3.5 %);
 * the PIT watchdog (drivers/pit_watchdog.h) bounds it, kicked between
 * samples (exits_vmexit_wait_kick), and sets x after ARRIVE_US without a
 * kick, counting a lost wait.  X is the flag (vmexit's x), START what the
 * op first writes to it: the control writes 1 with a nop for WRMSR, so it
 * runs the op's instructions to the first test and does not wait. */
#define VMEXIT_TSCDEADLINE(X, START, WRMSR)                               \
	__asm__ volatile("movl $" START ", %[x]\n\t"                      \
			 "rdtsc\n\t"                                      \
			 "shl $32, %%rdx\n\t"                             \
			 "mov %%eax, %%eax\n\t"                           \
			 "or %%rax, %%rdx\n\t"                            \
			 "lea 0xbb8(%%rdx), %%rax\n\t"                    \
			 "mov %%rax, %%rdx\n\t"                           \
			 "shr $32, %%rdx\n\t"                             \
			 "mov $0x6e0, %%ecx\n\t"                          \
			 WRMSR "\n\t"                                     \
			 "mov %[x], %%eax\n\t"                            \
			 "test %%eax, %%eax\n\t"                          \
			 "jne 2f\n"                                        \
			 "1:\tmov %[x], %%eax\n\t"                        \
			 "test %%eax, %%eax\n\t"                          \
			 "je 1b\n"                                         \
			 "2:"                                              \
			 : [x] "+m"(X) : : "rax", "rcx", "rdx", "cc", "memory")

/* Between samples (bench_case.settle): the watchdog's shot and bound
 * started afresh. */
struct bench_case;
void exits_vmexit_wait_kick(const struct bench_case *c);
/* waits the watchdog ended (the case's check fails on any) */
extern u32 exits_vmexit_waits_lost;

/* The TSC-deadline timer at vmexit's vector through vmexit's interrupt
 * path, in x2APIC mode where CPUID has it, one deadline of now seen to
 * arrive, then IF=1 for the case; for tscdeadline (wait) the watchdog
 * started: NULL, or why not. */
const char *exits_vmexit_deadline_set(bool wait);

/* IF=0, the timer disarmed and stopped, the gate, GS and xAPIC mode put
 * back; non-zero when no interrupt came at all (tscdeadline_immed's op
 * takes one a write, none waited for: fewer is no error, none is), and
 * when a wait of tscdeadline's ran out. */
u32 exits_vmexit_deadline_put(void);
/* Between batches (bench_case.settle): the deadline disarmed, so the
 * last op's does not fire in the next timed batch; one already pending
 * is taken at the write (IF=1), untimed. */
void exits_vmexit_deadline_settle(const struct bench_case *c);
/* the pending interrupts it took since exits_vmexit_deadline_set (the
 * result's "interrupts_settled"; a deadline disarmed before it fired
 * raises none) */
extern u32 exits_vmexit_settled;

/* vmexit's x2apic_self_ipi_sti_nop, x2apic_self_ipi_tpr and
 * x2apic_self_ipi_tpr_sti_nop as its build runs them: a frame, (`cli`),
 * (apic_set_tpr(0xf): a call, the TPR through CR8), x2apic_self_ipi(0xb0)
 * (a call: the SELF_IPI WRMSR between two RDTSC, their difference added
 * to tsc_ipi in RAM), (apic_set_tpr(0)), (`sti`), `nop`.  UP and DOWN are
 * VMEXIT_TPR(...) or "", CLI and STI the instruction or "".  The interrupt
 * comes through the path above when the backend delivers it (none is
 * waited for).  The control (CTL "_ctl") calls copies that store to RAM
 * in place of the CR8 write and have a nop for the WRMSR. */
#define VMEXIT_TPR(V, CTL)                                                \
	"mov $" V ", %%edi\n\t"                                            \
	"call exits_vmexit_set_tpr" CTL "\n\t"
#define VMEXIT_X2APIC_SELF_IPI(CLI, UP, DOWN, STI, CTL)                   \
	__asm__ volatile("push %%rbp\n\t"                                 \
			 "mov %%rsp, %%rbp\n\t"                           \
			 CLI UP                                           \
			 "mov $0xb0, %%edi\n\t"                           \
			 "call exits_vmexit_x2apic_self_ipi" CTL "\n\t"   \
			 DOWN STI                                         \
			 "nop\n\t"                                        \
			 "pop %%rbp"                                      \
			 : : : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "cc", "memory")

/* vmexit's tsc_ipi, and what the controls' TPR copies stored */
extern u64 exits_vmexit_tsc_ipi;
extern u64 exits_vmexit_tpr_stored;

/* x2APIC mode (vmexit runs its x2apic_* cases only there), vmexit's
 * interrupt path at its vector, one self-IPI seen to arrive, then IF=1
 * for the case: NULL, or why not. */
const char *exits_vmexit_self_ipi_set(void);
/* The last self-IPI taken if one still waits (a bounded spin, IF=1),
 * IF=0, the path and xAPIC mode put back; non-zero when the case took
 * none at all, one stayed pending, or the TPR was not left at 0. */
u32 exits_vmexit_self_ipi_put(void);
/* Between batches (bench_case.settle): the self-IPI the last op left
 * pending taken now (a bounded spin, IF=1; exits_vmexit_settled counts
 * it), not inside the control's timed batch that follows; IF=1 again. */
void exits_vmexit_self_ipi_settle(const struct bench_case *c);

/* vmexit's ple_round_robin (kernel/suites/exits_ple.c runs it): its
 * counters (n1 bumped by the previous vCPU, n2 the last n1 this one took)
 * and nr_cpus, as its build reads them; the op and its inl_from_kernel
 * op as functions, and run_test, its loop, calling fn until its count
 * reaches *iters (at least 1), all instruction for instruction. */
struct vmexit_counter {
	volatile u32 n1;
	u32 n2;
} __attribute__((aligned(64)));
#define VMEXIT_SLOTS 4
extern struct vmexit_counter exits_vmexit_ple_counters[VMEXIT_SLOTS];
extern u32 exits_vmexit_ple_cpus;
void exits_vmexit_run_test(void (*fn)(void), const u32 *iters);
/* The result fields of a case run in run_test against vmexit's
 * inl_from_kernel op, its spins bounded by the watchdog: "loop",
 * "control_case", "watchdog_shots", "wait_timeouts" (lost) and "ops_bsp". */
struct jw;
void exits_vmexit_jw_loop(struct jw *w, u32 lost, u64 ops_bsp);
void exits_vmexit_ple_round_robin(void);
void exits_vmexit_inl_nop_kernel(void);

/* vmexit's cpuid_test: RBX saved around CPUID, EAX and ECX not set (the
 * leaf is what the loop left in them). */
static inline void vmexit_cpuid(void)
{
	__asm__ volatile("push %%rbx; cpuid; pop %%rbx" ::: "eax", "ecx", "edx", "memory");
}

#endif
