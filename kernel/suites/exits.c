/*
 * kernel/suites/exits.c - suite "exits": the classic kvm-unit-tests
 * `vmexit` figures beside ours, so every run has a reference.
 *   cpuid       CPUID leaf 0: always exits, KVM answers in the kernel
 *   vmcall      the vendor's hypercall instruction (vmcall/vmmcall) with
 *               an unknown call number; #UD without a hypervisor (TCG)
 *   pio.kernel  inb from the PIC IMR (0x21): KVM's in-kernel PIC
 *   pio.user    outb to port 0x80: a round trip to QEMU
 *
 * Extended (suite=all or case=), the rest of kvm-unit-tests' catalogue;
 * every result names its vmexit twin in `kut_name` (null: none):
 *   cpuid.chain     vmexit's cpuid: each CPUID runs the leaf and sub-leaf
 *                   the previous one returned (EAX, ECX never set)
 *   cpuid.insn      vmexit's cpuid op (push rbx; cpuid; pop rbx, EAX and
 *                   ECX not set) in the loop of inb.elcr below
 *   inl.unassigned  inl 0x1234 (unassigned: QEMU)        inl_from_qemu
 *   outb.elcr       outb of ELCR's own value, loaded from RAM (KVM)
 *   outb.elcr.zero  vmexit's op: outb of an immediate 0 (no load; skipped
 *                   where ELCR1 is not 0 already)        outl_to_kernel
 *   inb.elcr        inb of ELCR (KVM): vmexit's inl_from_kernel instruction
 *                   in this loop (pio.kernel is its twin in its own loop)
 *   pmtimer         inl of the ACPI PM timer (QEMU)      inl_from_pmtimer
 *   cr8.read/write  mov from/to CR8 (TPR): no exit with an in-kernel LAPIC
 *                   on VMX (TPR shadow) or SVM (V_TPR)   mov_from_cr8/mov_to_cr8
 *   dr7.write       mov to DR7: the first exits, then KVM stops intercepting
 *                   debug registers until the next exit (vmx handle_dr,
 *                   KVM_DEBUGREG_WONT_EXIT): ~0 per op       mov_dr
 *   rdmsr.apic_base MSR 0x1b: always intercepted, KVM answers
 *   rdmsr/wrmsr.tsc_adjust MSR 0x3b: intercepted (KVM emulates the offset)
 *                                             rd/wr_tsc_adjust_msr
 *   wrmsr.kernel_gs_base MSR 0xc0000102: passed through on VMX/SVM (0
 *                   exits), a reference for "no exit"    wr_kernel_gs_base
 *   wrmsr.{tsc_adjust,kernel_gs_base}.zero  vmexit's ops: wrmsr of an
 *                   immediate 0 (the two above load their value)
 *   rdmsr.core_threads MSR 0x35: KVM hands it to QEMU through QEMU's MSR
 *                   filter (target/i386/kvm/kvm.c): a userspace MSR
 *   wbinvd          always exits (KVM emulates it; a no-op without
 *                   non-coherent DMA)                    wbinvd
 *   xsetbv          XCR0 written with its own value: always exits
 *   invd            always exits; KVM's fastpath skips it  invd
 *   cr0.wp.toggle   CR0.WP off and on again: guest-owned on VMX with
 *                   EPT (0 exits), the selective CR0 write intercept on
 *                   SVM (2)
 *   cr0.wp.toggle.whole  vmexit's: CR0 = PE|PG, then PE|WP|PG; CR0 put
 *                   back after the case; exits as above  toggle_cr0_wp
 *   cr4.pge.toggle  CR4.PGE flipped and back: 2 exits     toggle_cr4_pge
 *   cr0.wp.toggle.insn, cr4.pge.toggle.insn  the two toggles as vmexit's
 *                   build runs them: its frame and exception-safe write
 *                   (%gs:4 cleared, the write, exception_vector()) around
 *                   each (kernel/suites/exits_vmexit.h); in this loop
 *   ptd.nofd.mem8.insn, ptd.nofd.io8.insn  vmexit's pci-mem and pci-io ops
 *                   (pci-testdev, no eventfd: QEMU) as its build runs them
 *   tscdeadline.immed.insn  vmexit's tscdeadline_immed and its interrupt
 *                   through kvm-unit-tests' handler path, as built
 *   tscdeadline.insn  vmexit's tscdeadline as built: the deadline 3000
 *                   cycles ahead, a spin until that path counts it
 *   self_ipi.x2apic.{sti_nop,tpr,tpr.sti_nop}.insn  vmexit's
 *                   x2apic_self_ipi_* (no wait) as built: the SELF_IPI
 *                   write in its RDTSC pair (between TPR 0xf and 0; IF=0
 *                   until `sti; nop`), never waiting for the interrupt
 *                   (that path takes it)
 *   pmtimer.insn    vmexit's inl_from_pmtimer as built: its frame, the
 *                   port tested and loaded from RAM, inl (QEMU)
 *   wrmsr.tsx_ctrl  MSR 0x122 (skipped without ARCH_CAPABILITIES[7])
 *                                                        wr_tsx_ctrl_msr
 *   wrmsr.spec_ctrl.ibrs  SPEC_CTRL 1 then 0: passed through after the
 *                   first non-zero write (skipped without IBRS) wr_ibrs_msr
 *   wrmsr.pred_cmd.ibpb   PRED_CMD IBPB: passed through (skipped without
 *                   IBPB)                                wr_ibpb_msr
 *   ple.round_robin a token passed between two vCPUs in PAUSE loops
 *                   (-smp 2; kernel/suites/exits_ple.c)   ple_round_robin
 *   ple.round_robin.insn.paired  vmexit's ple op and loop as built, on
 *                   both vCPUs, its inl_from_kernel its control (exits_ple.c)
 *   ipi.on_cpu.insn.paired  vmexit's ipi, on_cpu and loop, and the AP's
 *                   interrupt path and idle loop as built, its
 *                   inl_from_kernel its control (exits_ipi.c)
 *   *.upages        inb.elcr and the cases vmexit's figures disagree on,
 *                   again with every page user-accessible as vmexit maps
 *                   them (kernel/suites/exits_upages.c); no twin: trapmeter
 *                   kut tries them as a cause
 *   *.paired        the twins and vmexit's ops in this loop again, with
 *                   inb.elcr for their control (sampled interleaved): net
 *                   is the case less inb.elcr; no twin: trapmeter kut takes
 *                   it for the case's difference to inb.elcr
 *   tscdeadline.immed.insn.masked.paired  the last of them again with IF=0
 *                   across each timed batch (its interrupts' cost, by
 *                   difference)
 * Every extended case has a control: the same loop and dispatch with the
 * instruction's non-trapping twin (a RAM access, or its registers around
 * a nop; arch/x86/control.h).
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "drivers/platform.h"
#include "arch/x86/cpu.h"
#include "arch/x86/cpuinfo.h"
#include "arch/x86/io.h"
#include "arch/x86/control.h"
#include "lib/fmt.h"
#include "arch/x86/trap.h"
#include "arch/x86/irq.h"
#include "drivers/acpi_pm.h"
#include "drivers/pit_watchdog.h"
#include "kernel/suites/exits_upages.h"
#include "kernel/suites/exits_vmexit.h"
#include "lib/json.h"

#define HC_UNKNOWN       0xffffffffull  /* KVM returns -KVM_ENOSYS */
#define HYPERCALL_LEN    3              /* 0f 01 c1 / 0f 01 d9 */

static void op_cpuid(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--)
		cpuid(0, 0);
}

/* vmexit's cpuid: EAX and ECX are clobbered, never set, so each CPUID
 * runs the leaf and sub-leaf the previous one returned (settling on a
 * leaf KVM answers in its own time).  The chain carries on across calls
 * like vmexit's registers do. */
static u32 chain_leaf, chain_subleaf;

static void op_cpuid_chain(const struct bench_case *c, u8 *buf, u64 iters)
{
	u32 a = chain_leaf, b, cx = chain_subleaf, d;

	(void)c;
	(void)buf;
	while (iters--)
		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(cx), "=d"(d) : : "memory");
	chain_leaf = a;
	chain_subleaf = cx;
}

static void ctl_cpuid_chain(const struct bench_case *c, u8 *buf, u64 iters)
{
	u32 a = chain_leaf, b, cx = chain_subleaf, d;

	(void)c;
	(void)buf;
	while (iters--)
		__asm__ volatile("nop" : "+a"(a), "=b"(b), "+c"(cx), "=d"(d) : : "memory");
}

static void extra_chain(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	(void)c;
	(void)r;
	jw_hex(w, "leaf", chain_leaf);
	jw_hex(w, "subleaf", chain_subleaf);
}

static void op_vmcall(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	while (iters--) {
		if (c->arg)
			cpu_vmmcall(HC_UNKNOWN);
		else
			cpu_vmcall(HC_UNKNOWN);
	}
}

static void op_in_kernel(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		buf[0] = inb(c->port);
}

static void op_out_user(const struct bench_case *c, u8 *buf, u64 iters)
{
	while (iters--)
		outb(buf[0], c->port);
}

/* Controls: the same loops with a nop in place of cpuid or the hypercall
 * and a RAM byte in place of the port (docs/design.md, "Timing"). */
static volatile u8 ctl_port;

static void ctl_cpuid_loop(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--)
		ctl_cpuid(0, 0);
}

static void ctl_hypercall_loop(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--)
		ctl_hypercall(HC_UNKNOWN);
}

static void ctl_in_loop(const struct bench_case *c, u8 *buf, u64 iters)
{
	static u8 sink;

	(void)c;
	(void)buf;
	while (iters--)
		*(volatile u8 *)&sink = ctl_port;
}

static void ctl_out_loop(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	while (iters--)
		ctl_port = buf[0];
}

static const char *skip_vmcall(const struct bench_case *c)
{
	if (!bench_cfg->hypercall)
		return "hypercall=off (the runner sets it where the hypercall never returns, e.g. a software KVM backend)";
	/* one probe with #UD armed: without a hypervisor there is no answer */
	trap_expect(TRAP_UD, HYPERCALL_LEN);
	op_vmcall(c, NULL, 1);
	if (trap_caught())
		return "the hypercall instruction raised #UD: no hypervisor answers it (TCG?)";
	return NULL;
}

/* ---- the extended catalogue ------------------------------------------ */

enum insn { I_INL_QEMU, I_OUTB_ELCR, I_INB_ELCR, I_PMTIMER, I_CR8_READ, I_CR8_WRITE, I_DR7,
	    I_RD_APICBASE, I_RD_TSC_ADJUST, I_WR_TSC_ADJUST, I_WR_KGSBASE, I_RD_CORE_THREADS, I_WBINVD,
	    I_XSETBV, I_INVD, I_CR0_WP, I_CR4_PGE, I_WR_TSX_CTRL, I_WR_IBRS, I_WR_IBPB,
	    I_CR0_WHOLE, I_CPUID_KUT, I_OUTB_ELCR0, I_WR_TSC_ADJUST0, I_WR_KGSBASE0, I_CR0_KUT,
	    I_CR4_KUT, I_PTD_MEM, I_PTD_IO,
	    I_DEADLINE_KUT, I_DEADLINE_WAIT_KUT, I_SELF_STI_KUT, I_SELF_TPR_KUT, I_SELF_TPR_STI_KUT,
	    I_PMTIMER_KUT, I_COUNT };

#define MSR_APIC_BASE      0x1b
#define MSR_TSC_ADJUST     0x3b
#define MSR_CORE_THREADS   0x35       /* cores << 16 | threads */
#define MSR_SPEC_CTRL      0x48
#define MSR_PRED_CMD       0x49
#define MSR_ARCH_CAPS      0x10a
#define MSR_TSX_CTRL       0x122
#define MSR_KERNEL_GS_BASE 0xc0000102
#define SPEC_CTRL_IBRS     1ull
#define PRED_CMD_IBPB      1ull
#define ARCH_CAP_TSX_CTRL  (1ull << 7)  /* IA32_ARCH_CAPABILITIES: TSX_CTRL exists */
#define DR7_DEFAULT        0x400      /* reserved bit 10 set, nothing armed */
#define RDMSR_LEN          2
#define XSETBV_LEN         3
#define CPUID1_XSAVE       (1u << 26)
#define CPUID7_SPEC_CTRL   (1u << 26) /* EDX: IBRS and IBPB (Intel) */
#define CPUID7_ARCH_CAPS   (1u << 29) /* EDX: IA32_ARCH_CAPABILITIES */
#define CPUIDX8_AMD_IBPB   (1u << 12) /* 0x80000008 EBX */
#define CPUIDX8_AMD_IBRS   (1u << 14)
#define CPUID_EXT_MAX      0x80000000u
#define CPUID_EXT_8        0x80000008u
#define CR0_WP             (1ull << 16)
#define CR0_PE             (1ull << 0)
#define CR0_PG             (1ull << 31)
#define CR0_ET             (1ull << 4)  /* reads 1 whatever is written (486 on) */
/* vmexit's toggle_cr0_wp writes CR0 whole: PE|PG, then PE|WP|PG (NE,
 * ET, MP, AM, ... cleared; nothing this kernel relies on) */
#define CR0_WHOLE_OFF      (CR0_PE | CR0_PG)
#define CR0_WHOLE_ON       (CR0_PE | CR0_WP | CR0_PG)
#define CR4_PGE            (1ull << 7)
#define CR4_OSXSAVE        (1ull << 18)
/* -smp N: QEMU makes N cores of one thread each in one package */
#define CORE_THREADS(n)    ((u64)(n) << 16 | (n))

static u64 msr_value[3];              /* what the MSR writes write back */
static u64 msr_seen;                  /* last rdmsr.core_threads value */
static u64 cr0_now, cr4_now;          /* CR0 and CR4 as the toggles find them */
static u8 elcr_now;
static u16 pm_timer;
static int pm_tmr_blk;                /* pm_timer as vmexit keeps it */

/* The MSR each MSR case reads or writes (0: not an MSR case). */
static const u32 msr_of[I_COUNT] = {
	[I_RD_APICBASE] = MSR_APIC_BASE, [I_RD_TSC_ADJUST] = MSR_TSC_ADJUST,
	[I_WR_TSC_ADJUST] = MSR_TSC_ADJUST, [I_WR_KGSBASE] = MSR_KERNEL_GS_BASE,
	[I_RD_CORE_THREADS] = MSR_CORE_THREADS, [I_WR_TSX_CTRL] = MSR_TSX_CTRL,
	[I_WR_IBRS] = MSR_SPEC_CTRL, [I_WR_IBPB] = MSR_PRED_CMD,
	[I_WR_TSC_ADJUST0] = MSR_TSC_ADJUST, [I_WR_KGSBASE0] = MSR_KERNEL_GS_BASE,
};

/* vmexit's x2apic_self_ipi_* pieces (kernel/suites/exits_vmexit.h) */
#define CLI "cli\n\t"
#define STI "sti\n\t"
#define TPR_UP(ctl) VMEXIT_TPR("0xf", ctl)
#define TPR_DOWN(ctl) VMEXIT_TPR("0", ctl)

static void insn_once(u32 id)
{
	switch (id) {
	case I_INL_QEMU: (void)inl(UNASSIGNED_PORT); break;
	case I_OUTB_ELCR: outb(elcr_now, ELCR1_PORT); break;
	case I_INB_ELCR: (void)inb(ELCR1_PORT); break;
	case I_PMTIMER: (void)inl(pm_timer); break;
	case I_CR8_READ: (void)read_cr8(); break;
	case I_CR8_WRITE: write_cr8(0); break;
	case I_DR7: write_dr7(DR7_DEFAULT); break;
	case I_RD_APICBASE: (void)rdmsr(MSR_APIC_BASE); break;
	case I_RD_TSC_ADJUST: (void)rdmsr(MSR_TSC_ADJUST); break;
	case I_WR_TSC_ADJUST: wrmsr(MSR_TSC_ADJUST, msr_value[0]); break;
	case I_WR_KGSBASE: wrmsr(MSR_KERNEL_GS_BASE, msr_value[1]); break;
	case I_RD_CORE_THREADS: msr_seen = rdmsr(MSR_CORE_THREADS); break;
	case I_WBINVD: wbinvd(); break;
	case I_INVD: invd(); break;
	case I_CR0_WP: write_cr0(cr0_now ^ CR0_WP); write_cr0(cr0_now); break;
	case I_CR0_WHOLE: write_cr0(CR0_WHOLE_OFF); write_cr0(CR0_WHOLE_ON); break;
	case I_CR4_PGE: write_cr4(cr4_now ^ CR4_PGE); write_cr4(cr4_now); break;
	case I_WR_TSX_CTRL: wrmsr(MSR_TSX_CTRL, 0); break;
	/* vmexit's shape: IBRS on, then off */
	case I_WR_IBRS: wrmsr(MSR_SPEC_CTRL, SPEC_CTRL_IBRS); wrmsr(MSR_SPEC_CTRL, 0); break;
	case I_WR_IBPB: wrmsr(MSR_PRED_CMD, PRED_CMD_IBPB); break;
	case I_CPUID_KUT: vmexit_cpuid(); break;
	case I_CR0_KUT: VMEXIT_TOGGLE_CR0("mov %%rax, %%cr0"); break;
	case I_CR4_KUT: VMEXIT_TOGGLE_CR4(cr4_now, "mov %%rbx, %%cr4"); break;
	case I_PTD_MEM: VMEXIT_PCI_MEM("mov %%dl, (%%rax)"); break;
	case I_PTD_IO: VMEXIT_PCI_IO("out %%al, (%%dx)"); break;
	case I_DEADLINE_KUT: VMEXIT_TSCDEADLINE_IMMED("wrmsr", "cpuid"); break;
	case I_DEADLINE_WAIT_KUT: VMEXIT_TSCDEADLINE(exits_vmexit_isr_count, "0", "wrmsr"); break;
	case I_SELF_STI_KUT: VMEXIT_X2APIC_SELF_IPI(CLI, "", "", STI, ""); break;
	case I_SELF_TPR_KUT: VMEXIT_X2APIC_SELF_IPI("", TPR_UP(""), TPR_DOWN(""), "", ""); break;
	case I_SELF_TPR_STI_KUT:
		VMEXIT_X2APIC_SELF_IPI(CLI, TPR_UP(""), TPR_DOWN(""), STI, "");
		break;
	case I_PMTIMER_KUT: VMEXIT_PMTIMER(pm_tmr_blk, "in (%%dx), %%eax"); break;
	case I_OUTB_ELCR0: outb(0, ELCR1_PORT); break;
	case I_WR_TSC_ADJUST0: wrmsr(MSR_TSC_ADJUST, 0); break;
	case I_WR_KGSBASE0: wrmsr(MSR_KERNEL_GS_BASE, 0); break;
	default: xsetbv(0, msr_value[2]); break;
	}
}

/* noinline: ctl_elcr runs this very loop (no copy folded to a constant) */
static __attribute__((noinline)) void op_insn(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	while (iters--)
		insn_once(c->arg);
}

/* Controls: the same loop and dispatch with the instruction's
 * non-trapping twin: a RAM load for a read (port, CR8), a RAM store for
 * a write (port, CR8, DR7, each CR0/CR4 write), the MSR's registers
 * around a nop for rdmsr/wrmsr/xsetbv, a nop for wbinvd/invd. */
static volatile u64 ctl_word;
static u32 ctl_flag;            /* tscdeadline.insn's control's x */

static void ctl_once(u32 id)
{
	switch (id) {
	case I_INL_QEMU: case I_INB_ELCR: case I_PMTIMER: case I_CR8_READ: (void)ctl_word; break;
	case I_OUTB_ELCR: case I_CR8_WRITE: case I_DR7: ctl_word = elcr_now; break;
	case I_OUTB_ELCR0: ctl_word = 0; break;
	case I_CR0_WP: ctl_word = cr0_now ^ CR0_WP; ctl_word = cr0_now; break;
	case I_CR0_WHOLE: ctl_word = CR0_WHOLE_OFF; ctl_word = CR0_WHOLE_ON; break;
	case I_CR4_PGE: ctl_word = cr4_now ^ CR4_PGE; ctl_word = cr4_now; break;
	case I_WBINVD: case I_INVD: __asm__ volatile("nop" ::: "memory"); break;
	case I_CPUID_KUT: __asm__ volatile("push %%rbx; nop; pop %%rbx" ::: "memory"); break;
	case I_CR0_KUT: VMEXIT_TOGGLE_CR0("mov %%rax, %[to]", [to] "=m"(ctl_word)); break;
	case I_CR4_KUT: VMEXIT_TOGGLE_CR4(cr4_now, "mov %%rbx, %[to]", [to] "=m"(ctl_word)); break;
	case I_PTD_MEM: VMEXIT_PCI_MEM("mov %%dl, %[to]", [to] "=m"(ctl_word)); break;
	case I_PTD_IO: VMEXIT_PCI_IO("mov %%al, %[to]", [to] "=m"(ctl_word)); break;
	case I_DEADLINE_KUT: VMEXIT_TSCDEADLINE_IMMED("nop", "nop"); break;
	case I_DEADLINE_WAIT_KUT: VMEXIT_TSCDEADLINE(ctl_flag, "1", "nop"); break;
	case I_SELF_STI_KUT: VMEXIT_X2APIC_SELF_IPI(CLI, "", "", STI, "_ctl"); break;
	case I_SELF_TPR_KUT:
		VMEXIT_X2APIC_SELF_IPI("", TPR_UP("_ctl"), TPR_DOWN("_ctl"), "", "_ctl");
		break;
	case I_SELF_TPR_STI_KUT:
		VMEXIT_X2APIC_SELF_IPI(CLI, TPR_UP("_ctl"), TPR_DOWN("_ctl"), STI, "_ctl");
		break;
	case I_PMTIMER_KUT:
		VMEXIT_PMTIMER(pm_tmr_blk, "mov %[from], %%eax", [from] "m"(ctl_word));
		break;
	case I_WR_IBRS: ctl_msr(MSR_SPEC_CTRL, SPEC_CTRL_IBRS); ctl_msr(MSR_SPEC_CTRL, 0); break;
	case I_XSETBV: ctl_msr(0, msr_value[2]); break;
	case I_WR_TSC_ADJUST0: case I_WR_KGSBASE0: ctl_msr(msr_of[id], 0); break;
	default: ctl_msr(msr_of[id], msr_value[0]); break;
	}
}

static void ctl_insn(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)buf;
	while (iters--)
		ctl_once(c->arg);
}

/* One try with #GP armed (an MSR or XCR the backend does not offer). */
static const char *try_insn(u32 id, u32 len, const char *why)
{
	trap_expect(TRAP_GP, len);
	insn_once(id);
	return trap_caught() ? why : NULL;
}

static u32 cpuid_ext8_ebx(void)
{
	return cpuid(CPUID_EXT_MAX, 0).eax >= CPUID_EXT_8 ? cpuid(CPUID_EXT_8, 0).ebx : 0;
}

/* vmexit's has_tsx_ctrl: ARCH_CAPABILITIES says TSX_CTRL exists. */
static const char *skip_tsx_ctrl(void)
{
	u64 caps;

	if (!(cpuid(7, 0).edx & CPUID7_ARCH_CAPS))
		return "no IA32_ARCH_CAPABILITIES (CPUID 7 EDX[29]): no TSX_CTRL to write";
	trap_expect(TRAP_GP, RDMSR_LEN);
	caps = rdmsr(MSR_ARCH_CAPS);
	if (trap_caught() || !(caps & ARCH_CAP_TSX_CTRL))
		return "IA32_ARCH_CAPABILITIES[7] (TSX_CTRL_MSR) clear: no TSX_CTRL to write";
	return try_insn(I_WR_TSX_CTRL, RDMSR_LEN, "wrmsr 0x122 (TSX_CTRL) raised #GP");
}

/* IBRS: CPUID 7 EDX[26] (vmexit's test) or AMD's 0x80000008 EBX[14];
 * IBPB: the same Intel bit or AMD's EBX[12]. */
static const char *skip_spec(u32 id)
{
	bool intel = cpuid(7, 0).edx & CPUID7_SPEC_CTRL;
	u32 amd = cpuid_ext8_ebx();

	if (id == I_WR_IBRS && !intel && !(amd & CPUIDX8_AMD_IBRS))
		return "no IBRS (CPUID 7 EDX[26], 0x80000008 EBX[14])";
	if (id == I_WR_IBPB && !intel && !(amd & CPUIDX8_AMD_IBPB))
		return "no IBPB (CPUID 7 EDX[26], 0x80000008 EBX[12])";
	return try_insn(id, RDMSR_LEN, id == I_WR_IBRS ? "wrmsr 0x48 (SPEC_CTRL) raised #GP" :
			"wrmsr 0x49 (PRED_CMD) raised #GP");
}

static const char *skip_insn(const struct bench_case *c)
{
	switch (c->arg) {
	case I_PMTIMER:
	case I_PMTIMER_KUT:
		return pm_timer ? NULL : "no ACPI PM timer (chipset unknown or block disabled)";
	case I_RD_TSC_ADJUST:
	case I_WR_TSC_ADJUST:
		return try_insn(I_RD_TSC_ADJUST, RDMSR_LEN, "rdmsr 0x3b (TSC_ADJUST) raised #GP");
	case I_RD_CORE_THREADS:
		return try_insn(I_RD_CORE_THREADS, RDMSR_LEN, "rdmsr 0x35 (core/thread count) raised #GP");
	case I_WR_TSC_ADJUST0:
		return msr_value[0] ? "TSC_ADJUST is not 0 here: vmexit's write of 0 would move the "
				      "guest's TSC" : try_insn(I_RD_TSC_ADJUST, RDMSR_LEN,
							 "rdmsr 0x3b (TSC_ADJUST) raised #GP");
	case I_WR_KGSBASE0:
		return msr_value[1] ? "KERNEL_GS_BASE is not 0 here: vmexit's write of 0 would change "
				      "it" : NULL;
	case I_CR0_KUT:
	case I_CR4_KUT:
		return exits_vmexit_gs_set();
	case I_PTD_MEM:
	case I_PTD_IO:
		return exits_vmexit_ptd_set(c->arg == I_PTD_MEM);
	case I_DEADLINE_KUT:
	case I_DEADLINE_WAIT_KUT:
		return exits_vmexit_deadline_set(c->arg == I_DEADLINE_WAIT_KUT);
	case I_SELF_STI_KUT:
	case I_SELF_TPR_KUT:
	case I_SELF_TPR_STI_KUT:
		return exits_vmexit_self_ipi_set();
	case I_OUTB_ELCR0:
		return elcr_now ? "ELCR1 (0x4d0) is not 0 here: vmexit's outb of 0 would change "
				  "the trigger mode of IRQs 3-7" : NULL;
	case I_XSETBV:
		if (bench_cfg->pvm)
			return "pvm=on: xgetbv/xsetbv stop the VM on the PVM backend (KVM internal error)";
		if (!(cpuid(1, 0).ecx & CPUID1_XSAVE))
			return "no XSAVE (CPUID 1 ECX[26]): xsetbv is #UD";
		return NULL;
	case I_WR_TSX_CTRL:
		return skip_tsx_ctrl();
	case I_WR_IBRS:
	case I_WR_IBPB:
		return skip_spec(c->arg);
	default:
		return NULL;
	}
}

static u32 vcpus(void)
{
	u32 n = exits_vcpu_count();

	return n ? n : 1;
}

/* cr0.wp.toggle.whole leaves CR0 as vmexit's does (PE|WP|PG, and ET,
 * which reads 1: vmexit's log says cr0 = 80010011): check that, then put
 * back the CR0 the other cases and the .upages pass find. */
static u32 cr0_whole_restore(void)
{
	u32 bad = (read_cr0() & ~CR0_ET) != CR0_WHOLE_ON;

	write_cr0(cr0_now);
	return bad;
}

/* The vmexit-shaped toggles: GS put back; CR0 left as vmexit's leaves it
 * (PE|WP|PG) or CR4 back as it was, and no exception_vector() call found
 * a vector. */
static u32 vmexit_toggle_done(u32 id)
{
	u32 bad = exits_vmexit_faults;

	exits_vmexit_gs_put();
	if (id == I_CR0_KUT)
		return bad + cr0_whole_restore();
	return bad + (read_cr4() != cr4_now);
}

/* vmexit's x2apic_self_ipi_* as built */
static bool self_ipi_kut(u32 id)
{
	return id == I_SELF_STI_KUT || id == I_SELF_TPR_KUT || id == I_SELF_TPR_STI_KUT;
}

/* rdmsr.core_threads: the count QEMU made; the toggles: CR0 and CR4 back
 * as they were (a lost write would leave WP or PGE flipped). */
static u32 verify_insn(const struct bench_case *c, const u8 *buf)
{
	(void)buf;
	if (c->arg == I_CR0_WP)
		return read_cr0() != cr0_now;
	if (c->arg == I_CR0_WHOLE)
		return cr0_whole_restore();
	if (c->arg == I_CR0_KUT || c->arg == I_CR4_KUT)
		return vmexit_toggle_done(c->arg);
	if (c->arg == I_PTD_MEM || c->arg == I_PTD_IO)
		return exits_vmexit_ptd_written(c->arg == I_PTD_MEM) == 0;
	if (c->arg == I_DEADLINE_KUT || c->arg == I_DEADLINE_WAIT_KUT)
		return exits_vmexit_deadline_put();
	if (self_ipi_kut(c->arg))
		return exits_vmexit_self_ipi_put();
	if (c->arg == I_CR4_PGE)
		return read_cr4() != cr4_now;
	return c->arg == I_RD_CORE_THREADS && msr_seen != CORE_THREADS(vcpus());
}

/* The loop the case runs in (kutcmp pairs cases of one loop: their
 * difference cancels it, as vmexit's cancel its one loop). */
static void extra_insn(const struct bench_case *c, const struct bench_result *r, struct jw *w)
{
	(void)r;
	jw_str(w, "loop", "exits.insn");
	if (c->settle == exits_vmexit_deadline_settle || self_ipi_kut(c->arg)) {
		jw_u64(w, "interrupts_settled", exits_vmexit_settled);
		/* all taken since the case's set-up, less the one its arrival
		 * check waited for: warm-up, samples, controls and settles */
		jw_u64(w, "interrupts", exits_vmexit_isr_count - 1);
	}
	if (self_ipi_kut(c->arg))       /* vmexit's tsc_ipi: its op's RDTSC pair */
		jw_u64(w, "tsc_ipi", exits_vmexit_tsc_ipi);
	if (c->settle == exits_vmexit_wait_kick) {
		/* a kicked, healthy wait sees no shot of its watchdog */
		jw_u64(w, "watchdog_shots", pit_watchdog_fired);
		jw_u64(w, "wait_timeouts", exits_vmexit_waits_lost);
	}
}

static u32 model_zero(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return 0;
}

static u32 model_two(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return 2;
}

static u32 model_three(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return 3;
}

static u32 model_four(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return 4;
}

/* CR0.WP is guest-owned on VMX with EPT (Linux 6.4+, vmx
 * KVM_POSSIBLE_CR0_GUEST_BITS): no exit; SVM with NPT clears the CR0
 * intercepts but keeps the selective CR0 write intercept, which a WP
 * change trips (svm_set_cr0): one exit per write. */
static u32 model_cr0_wp(const struct bench_case *c, const u8 *buf)
{
	(void)c;
	(void)buf;
	return cpu.amd ? 2 : 0;
}

#define EXT(n, t, h, a, m, k) { .suite = "exits", .name = n, .target = t, .handler = h, \
	.method = METHOD_SINGLE, .op = op_insn, .control = ctl_insn, .exits_model = m, \
	.skip = skip_insn, .verify = verify_insn, .extra = extra_insn, .arg = a, .kut_name = k }
/* the same, with a hook run untimed after each batch (bench_case.settle),
 * its batches split by the interrupts of vmexit's path they took */
#define EXT_SETTLE(n, t, h, a, m, k, s) { .suite = "exits", .name = n, .target = t, \
	.handler = h, .method = METHOD_SINGLE, .op = op_insn, .control = ctl_insn, \
	.exits_model = m, .skip = skip_insn, .verify = verify_insn, .extra = extra_insn, \
	.arg = a, .kut_name = k, .settle = s, .irq_count = &exits_vmexit_isr_count }
/* the same, one op untimed before each sample (bench_case.prime) */
#define EXT_PRIMED(n, t, h, a, m, s, k) { .suite = "exits", .name = n, .target = t, \
	.handler = h, .method = METHOD_SINGLE, .op = op_insn, .control = ctl_insn, \
	.exits_model = m, .skip = skip_insn, .verify = verify_insn, .extra = extra_insn, \
	.arg = a, .kut_name = k, .prime = 1, .settle = s }
/* the same, for a port access: port, direction, width */
#define EXTP(n, t, h, a, p, d, wd, k) { .suite = "exits", .name = n, .target = t, \
	.handler = h, .method = METHOD_SINGLE, .op = op_insn, .control = ctl_insn, \
	.exits_model = bench_model_one, .skip = skip_insn, .extra = extra_insn, .arg = a, \
	.port = p, .dir = d, .width = wd, .bytes = wd, .kut_name = k }
#define NO_KUT BENCH_NO_KUT

/* in enum insn's order (prepare_ext sets the pmtimer case's port) */
static struct bench_case ext_cases[] = {
	EXTP("inl.unassigned", "unassigned", HANDLER_USER, I_INL_QEMU, UNASSIGNED_PORT, DIR_IN, 4,
	     "inl_from_qemu"),
	/* ELCR's value loaded from RAM: one guest memory read an op more than
	 * vmexit's outl_to_kernel (outb.elcr.zero below is that op) */
	EXTP("outb.elcr", "elcr", HANDLER_KERNEL, I_OUTB_ELCR, ELCR1_PORT, DIR_OUT, 1, NO_KUT),
	/* vmexit's inl_from_kernel instruction (inb 0x4d0) in this loop:
	 * the reference kutcmp takes the extended cases' differences to */
	EXTP("inb.elcr", "elcr", HANDLER_KERNEL, I_INB_ELCR, ELCR1_PORT, DIR_IN, 1, NO_KUT),
	EXTP("pmtimer", "acpi.tmr", HANDLER_USER, I_PMTIMER, 0, DIR_IN, 4, "inl_from_pmtimer"),
	EXT("cr8.read", "cpu", HANDLER_KERNEL, I_CR8_READ, model_zero, "mov_from_cr8"),
	EXT("cr8.write", "cpu", HANDLER_KERNEL, I_CR8_WRITE, model_zero, "mov_to_cr8"),
	EXT("dr7.write", "cpu", HANDLER_KERNEL, I_DR7, model_zero, "mov_dr"),
	EXT("rdmsr.apic_base", "msr", HANDLER_KERNEL, I_RD_APICBASE, bench_model_one, NO_KUT),
	EXT("rdmsr.tsc_adjust", "msr", HANDLER_KERNEL, I_RD_TSC_ADJUST, bench_model_one,
	    "rd_tsc_adjust_msr"),
	EXT("wrmsr.tsc_adjust", "msr", HANDLER_KERNEL, I_WR_TSC_ADJUST, bench_model_one,
	    "wr_tsc_adjust_msr"),
	EXT("wrmsr.kernel_gs_base", "msr", HANDLER_KERNEL, I_WR_KGSBASE, model_zero,
	    "wr_kernel_gs_base"),
	EXT("rdmsr.core_threads", "msr", HANDLER_USER, I_RD_CORE_THREADS, bench_model_one, NO_KUT),
	EXT("wbinvd", "cpu", HANDLER_KERNEL, I_WBINVD, bench_model_one, "wbinvd"),
	EXT("xsetbv", "cpu", HANDLER_KERNEL, I_XSETBV, bench_model_one, NO_KUT),
	/* INVD always exits (VMX unconditionally, SVM INTERCEPT_INVD); KVM
	 * skips it on its fastpath since 2025 */
	EXT("invd", "cpu", HANDLER_KERNEL, I_INVD, bench_model_one, "invd"),
	EXT("cr0.wp.toggle", "cpu", HANDLER_KERNEL, I_CR0_WP, model_cr0_wp, NO_KUT),
	/* CR4.PGE is never guest-owned (a flip flushes global TLB entries):
	 * both writes exit on VMX and SVM */
	EXT("cr4.pge.toggle", "cpu", HANDLER_KERNEL, I_CR4_PGE, model_two, "toggle_cr4_pge"),
	EXT("wrmsr.tsx_ctrl", "msr", HANDLER_KERNEL, I_WR_TSX_CTRL, bench_model_one,
	    "wr_tsx_ctrl_msr"),
	/* SPEC_CTRL is passed through after the first non-zero write, and
	 * PRED_CMD to a guest with IBPB (vmx/svm set_msr): no exit per op */
	EXT("wrmsr.spec_ctrl.ibrs", "msr", HANDLER_KERNEL, I_WR_IBRS, model_zero, "wr_ibrs_msr"),
	EXT("wrmsr.pred_cmd.ibpb", "msr", HANDLER_KERNEL, I_WR_IBPB, model_zero, "wr_ibpb_msr"),
	/* vmexit's toggle_cr0_wp: CR0 written whole.  After the first op
	 * only WP changes against what KVM last saw: the same exits as
	 * cr0.wp.toggle (model_cr0_wp) */
	EXT("cr0.wp.toggle.whole", "cpu", HANDLER_KERNEL, I_CR0_WHOLE, model_cr0_wp,
	    "toggle_cr0_wp"),
	/* vmexit's cpuid op in this loop: against inb.elcr, what vmexit's
	 * cpuid - inl_from_kernel is, instruction for instruction (kutcmp's
	 * "same instructions"; the cpuid case keeps the name) */
	EXT("cpuid.insn", "cpu", HANDLER_KERNEL, I_CPUID_KUT, bench_model_one, NO_KUT),
	/* vmexit's outl_to_kernel, instruction for instruction: outb(0, 0x4d0),
	 * the 0 an immediate.  On a backend that emulates every instruction
	 * outb.elcr's load of elcr_now is a guest page-table walk and a read
	 * more an op (perf: kvm_mmu_pagetable_walk 4 reads an op against 3);
	 * KVM's picdev_write takes either byte alike (elcr_ioport_write) */
	EXTP("outb.elcr.zero", "elcr", HANDLER_KERNEL, I_OUTB_ELCR0, ELCR1_PORT, DIR_OUT, 1,
	     "outl_to_kernel"),
	/* vmexit's wr_tsc_adjust_msr and wr_kernel_gs_base, instruction for
	 * instruction: wrmsr of an immediate 0 (the cases above load the value
	 * they write back from RAM: on a backend that emulates every
	 * instruction, a guest page-table walk and a read more an op; kutcmp's
	 * "same instructions"; skipped where the MSR is not 0 already) */
	EXT("wrmsr.tsc_adjust.zero", "msr", HANDLER_KERNEL, I_WR_TSC_ADJUST0, bench_model_one,
	    NO_KUT),
	EXT("wrmsr.kernel_gs_base.zero", "msr", HANDLER_KERNEL, I_WR_KGSBASE0, model_zero, NO_KUT),
	/* vmexit's toggle_cr0_wp and toggle_cr4_pge, instruction for
	 * instruction (kernel/suites/exits_vmexit.h): the frame and the
	 * exception-safe wrapper around each write; exits as the twins */
	EXT("cr0.wp.toggle.insn", "cpu", HANDLER_KERNEL, I_CR0_KUT, model_cr0_wp, NO_KUT),
	EXT("cr4.pge.toggle.insn", "cpu", HANDLER_KERNEL, I_CR4_KUT, model_two, NO_KUT),
	/* vmexit's pci-mem and pci-io ops (pci-testdev's no-eventfd test, one
	 * byte), instruction for instruction: one exit to QEMU an op; skipped
	 * without pci-testdev (the runner attaches it for suite mmio) */
	EXT("ptd.nofd.mem8.insn", "ptd.nofd", HANDLER_USER, I_PTD_MEM, bench_model_one, NO_KUT),
	EXT("ptd.nofd.io8.insn", "ptd.io.nofd", HANDLER_USER, I_PTD_IO, bench_model_one, NO_KUT),
	/* vmexit's tscdeadline_immed and the interrupt it raises, both as
	 * vmexit's build runs them (kernel/suites/exits_vmexit.c): the MSR
	 * write, CPUID and the EOI's WRMSR (x2APIC) exit; its IF=1 lasts
	 * from the skip hook to verify */
	EXT_SETTLE("tscdeadline.immed.insn", "lapic", HANDLER_KERNEL, I_DEADLINE_KUT,
		   model_three, NO_KUT, exits_vmexit_deadline_settle),
	/* vmexit's tscdeadline as built: the deadline 3000 cycles ahead and
	 * the spin until its interrupt (the same path) counts it; exits as
	 * irq's tscdeadline: the write, the timer's, the EOI's; its spin's
	 * watchdog kicked between samples */
	EXT_PRIMED("tscdeadline.insn", "lapic", HANDLER_KERNEL, I_DEADLINE_WAIT_KUT, model_three,
		   exits_vmexit_wait_kick, NO_KUT),
	/* vmexit's x2apic_self_ipi_sti_nop, x2apic_self_ipi_tpr and
	 * x2apic_self_ipi_tpr_sti_nop as built (kernel/suites/exits_vmexit.h),
	 * x2APIC mode, the interrupt through vmexit's path and never waited
	 * for (irq.c's *.nowait do the same work in their own code), the one
	 * a batch leaves pending taken untimed after it (the settle); exits
	 * where each interrupt is taken at once, as irq.c's twins: the WRMSR,
	 * (the lowering CR8 write,) the EOI (and the window) */
	EXT_SETTLE("self_ipi.x2apic.sti_nop.insn", "lapic", HANDLER_KERNEL, I_SELF_STI_KUT,
		   model_three, NO_KUT, exits_vmexit_self_ipi_settle),
	EXT_SETTLE("self_ipi.x2apic.tpr.insn", "lapic", HANDLER_KERNEL, I_SELF_TPR_KUT,
		   model_three, NO_KUT, exits_vmexit_self_ipi_settle),
	EXT_SETTLE("self_ipi.x2apic.tpr.sti_nop.insn", "lapic", HANDLER_KERNEL,
		   I_SELF_TPR_STI_KUT, model_four, NO_KUT, exits_vmexit_self_ipi_settle),
	/* vmexit's inl_from_pmtimer as built: its frame, pm_tmr_blk tested
	 * and loaded from RAM, the inl (kernel/suites/exits_vmexit.h); one
	 * exit to QEMU an op, as pmtimer */
	EXTP("pmtimer.insn", "acpi.tmr", HANDLER_USER, I_PMTIMER_KUT, 0, DIR_IN, 4, NO_KUT),
};

/* The ".upages" pass: these cases again on user-accessible pages, each in
 * the same loop as its supervisor-page twin ("loop" names the pass). */
static const struct { u32 id; const char *name; } upage_pass[] = {
	{ I_INB_ELCR, "inb.elcr.upages" }, { I_INL_QEMU, "inl.unassigned.upages" },
	{ I_OUTB_ELCR, "outb.elcr.upages" }, { I_PMTIMER, "pmtimer.upages" },
	{ I_CR8_READ, "cr8.read.upages" }, { I_CR8_WRITE, "cr8.write.upages" },
	{ I_DR7, "dr7.write.upages" }, { I_WBINVD, "wbinvd.upages" }, { I_INVD, "invd.upages" },
	{ I_WR_KGSBASE, "wrmsr.kernel_gs_base.upages" },
	{ I_RD_TSC_ADJUST, "rdmsr.tsc_adjust.upages" },
	{ I_WR_TSC_ADJUST, "wrmsr.tsc_adjust.upages" },
	{ I_CR0_WP, "cr0.wp.toggle.upages" }, { I_CR4_PGE, "cr4.pge.toggle.upages" },
	{ I_CR0_KUT, "cr0.wp.toggle.insn.upages" }, { I_CR4_KUT, "cr4.pge.toggle.insn.upages" },
	{ I_PTD_MEM, "ptd.nofd.mem8.insn.upages" }, { I_PTD_IO, "ptd.nofd.io8.insn.upages" },
	{ I_DEADLINE_KUT, "tscdeadline.immed.insn.upages" },
	{ I_DEADLINE_WAIT_KUT, "tscdeadline.insn.upages" },
	{ I_SELF_STI_KUT, "self_ipi.x2apic.sti_nop.insn.upages" },
	{ I_SELF_TPR_KUT, "self_ipi.x2apic.tpr.insn.upages" },
	{ I_SELF_TPR_STI_KUT, "self_ipi.x2apic.tpr.sti_nop.insn.upages" },
	{ I_PMTIMER_KUT, "pmtimer.insn.upages" },
};

/* The ".paired" pass: these cases again with inb.elcr for their control,
 * in the same loop and dispatch and sampled interleaved with the case, so
 * the result's net is the case less inb.elcr over the same moments of the
 * host's load.  trapmeter kut's "same instructions" and "reference and
 * loop" tries take it in place of the difference of two medians sampled
 * seconds apart, which the host's episodic load moves by a third. */
static const struct { u32 id; const char *name; } paired_pass[] = {
	{ I_CPUID_KUT, "cpuid.insn.paired" }, { I_INL_QEMU, "inl.unassigned.paired" },
	{ I_PMTIMER, "pmtimer.paired" }, { I_OUTB_ELCR0, "outb.elcr.zero.paired" },
	{ I_CR8_READ, "cr8.read.paired" }, { I_CR8_WRITE, "cr8.write.paired" },
	{ I_DR7, "dr7.write.paired" }, { I_RD_TSC_ADJUST, "rdmsr.tsc_adjust.paired" },
	{ I_WR_TSC_ADJUST, "wrmsr.tsc_adjust.paired" },
	{ I_WR_TSC_ADJUST0, "wrmsr.tsc_adjust.zero.paired" },
	{ I_WR_KGSBASE, "wrmsr.kernel_gs_base.paired" },
	{ I_WR_KGSBASE0, "wrmsr.kernel_gs_base.zero.paired" },
	{ I_WBINVD, "wbinvd.paired" }, { I_INVD, "invd.paired" },
	{ I_CR0_WHOLE, "cr0.wp.toggle.whole.paired" }, { I_CR4_PGE, "cr4.pge.toggle.paired" },
	{ I_CR0_KUT, "cr0.wp.toggle.insn.paired" }, { I_CR4_KUT, "cr4.pge.toggle.insn.paired" },
	{ I_PTD_MEM, "ptd.nofd.mem8.insn.paired" }, { I_PTD_IO, "ptd.nofd.io8.insn.paired" },
	{ I_DEADLINE_KUT, "tscdeadline.immed.insn.paired" },
	{ I_SELF_STI_KUT, "self_ipi.x2apic.sti_nop.insn.paired" },
	{ I_SELF_TPR_KUT, "self_ipi.x2apic.tpr.insn.paired" },
	{ I_SELF_TPR_STI_KUT, "self_ipi.x2apic.tpr.sti_nop.insn.paired" },
	{ I_PMTIMER_KUT, "pmtimer.insn.paired" },
};

/* The extended cases' own checks (verify_insn: a toggle put back, the
 * pci ops' writes counted, vmexit's interrupts taken, ...), one line. */
static struct bench_tally ext_tally;

static int run_checked(const struct bench_case *c)
{
	struct bench_result r;
	int rc = bench_run(c, &r);

	if (rc >= 0)
		ext_tally.ran++;
	if (rc > 0 && !ext_tally.bad++)
		ext_tally.first_bad = c->name;
	return rc;
}

static void check_extended(void)
{
	char detail[128];

	if (!ext_tally.ran)
		return;
	fmt_snprintf(detail, sizeof(detail), "%u extended cases, %u whose check failed%s%s",
		     ext_tally.ran, ext_tally.bad, ext_tally.bad ? "; first: " : "",
		     ext_tally.bad ? ext_tally.first_bad : "");
	bench_check("exits.cases", ext_tally.bad == 0, detail);
}

static void extra_upages(const struct bench_case *c, const struct bench_result *r,
			 struct jw *w)
{
	(void)c;
	(void)r;
	jw_str(w, "loop", "exits.insn.upages");
	jw_str(w, "pages", "user");
}

static struct bench_case upage_case(u32 i)
{
	struct bench_case c = ext_cases[upage_pass[i].id];

	c.name = upage_pass[i].name;
	c.kut_name = BENCH_NO_KUT;
	c.extra = extra_upages;
	return c;
}

/* Flip the U/S bit only when a case of the pass is selected. */
static void run_upages(void)
{
	struct bench_case c;
	const char *why = NULL;
	bool any = false;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(upage_pass) && !any; i++) {
		c = upage_case(i);
		any = bench_selected(&c);
	}
	if (!any)
		return;
	why = upages_set(true);
	for (i = 0; i < ARRAY_SIZE(upage_pass); i++) {
		c = upage_case(i);
		if (why)
			bench_skip("exits", c.name, why);
		else
			run_checked(&c);
	}
	if (!why)
		upages_set(false);
}

/* A paired case's control: inb.elcr's op through op_insn itself, the
 * same machine loop as the case's (its id loaded from the case each op:
 * an immediate in its place is one guest memory read an op fewer, 0.5-1 k
 * cycles where the backend emulates every instruction). */
static void ctl_elcr(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	op_insn(&ext_cases[I_INB_ELCR], buf, iters);
}

static void extra_paired(const struct bench_case *c, const struct bench_result *r,
			 struct jw *w)
{
	extra_insn(c, r, w);
	jw_str(w, "control_case", "inb.elcr");
}

/* The ".masked.paired" pass: the paired pass of vmexit's immediate
 * deadline with IF=0 across each timed batch, the case's and its
 * control's.  Not for the self-IPI cases: on PVM their interrupts come
 * mostly after each batch (its last op's, pending), so their count says
 * nothing of the ones taken inside the ops.  On PVM an interrupt left pending is taken where the
 * emulator's batch ends, after the sample's closing TSC read, so against
 * the ".paired" pass the difference is what the interrupts taken inside
 * the ops cost (trapmeter kut's "interrupts" try). */
static void op_masked(const struct bench_case *c, u8 *buf, u64 iters)
{
	irq_disable();
	op_insn(c, buf, iters);
	irq_enable();
}

static void ctl_elcr_masked(const struct bench_case *c, u8 *buf, u64 iters)
{
	irq_disable();
	ctl_elcr(c, buf, iters);
	irq_enable();
}

static const struct { u32 id; const char *name; } masked_pass[] = {
	{ I_DEADLINE_KUT, "tscdeadline.immed.insn.masked.paired" },
};

/* One case of a pass: its op (NULL: the case's own) against CONTROL */
static void run_pass(u32 id, const char *name, bench_op_fn op, bench_op_fn control)
{
	struct bench_case c = ext_cases[id];

	c.name = name;
	c.kut_name = BENCH_NO_KUT;
	c.extra = extra_paired;
	c.op = op ? op : c.op;
	c.control = control;
	run_checked(&c);
}

static void run_paired(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(paired_pass); i++)
		run_pass(paired_pass[i].id, paired_pass[i].name, NULL, ctl_elcr);
	for (i = 0; i < ARRAY_SIZE(masked_pass); i++)
		run_pass(masked_pass[i].id, masked_pass[i].name, op_masked, ctl_elcr_masked);
}

/* cpuid with vmexit's leaves: explains a cpuid figure vmexit and trapmeter
 * disagree on (trapmeter kut) */
static const struct bench_case cpuid_chain_case = {
	.suite = "exits", .name = "cpuid.chain", .target = "cpu", .handler = HANDLER_KERNEL,
	.method = METHOD_SINGLE, .op = op_cpuid_chain, .control = ctl_cpuid_chain,
	.exits_model = bench_model_one, .extra = extra_chain, .kut_name = BENCH_NO_KUT };
_Static_assert(ARRAY_SIZE(ext_cases) == I_COUNT, "one case per enum insn");

/* vmcall or vmmcall: the vendor's hypercall, one of the two runs */
#define HYPERCALL(n, amd) { .suite = "exits", .name = n, .target = "cpu", \
	.handler = HANDLER_KERNEL, .method = METHOD_SINGLE, .op = op_vmcall, .arg = amd, \
	.control = ctl_hypercall_loop, .exits_model = bench_model_one, .skip = skip_vmcall, \
	.kut_name = "vmcall" }

static const struct bench_case vmcall_case = HYPERCALL("vmcall", false);
static const struct bench_case vmmcall_case = HYPERCALL("vmmcall", true);

static const struct bench_case cpuid_case = {
	.suite = "exits", .name = "cpuid", .target = "cpu", .handler = HANDLER_KERNEL,
	.method = METHOD_SINGLE, .op = op_cpuid, .control = ctl_cpuid_loop,
	.exits_model = bench_model_one, .kut_name = "cpuid" };

static const struct bench_case pio_cases[] = {
	{ .suite = "exits", .name = "pio.kernel", .target = "pic", .port = PIC1_DATA_PORT,
	  .handler = HANDLER_KERNEL, .dir = DIR_IN, .width = 1, .bytes = 1,
	  .method = METHOD_SINGLE, .op = op_in_kernel,
	  .control = ctl_in_loop, .exits_model = bench_model_one,
	  .kut_name = "inl_from_kernel" },
	{ .suite = "exits", .name = "pio.user", .target = "port80", .port = POST_PORT,
	  .handler = HANDLER_USER, .dir = DIR_OUT, .width = 1, .bytes = 1,
	  .method = METHOD_SINGLE, .op = op_out_user,
	  .control = ctl_out_loop, .exits_model = bench_model_one,
	  .kut_name = NO_KUT },
};

/* Values the write cases write back, and XCR0 writable (CR4.OSXSAVE). */
static void prepare_ext(void)
{
	elcr_now = inb(ELCR1_PORT);
	pm_timer = acpi_pm_base();
	if (pm_timer)
		pm_timer += ACPI_PM_TMR;
	ext_cases[I_PMTIMER].port = pm_timer;
	ext_cases[I_PMTIMER_KUT].port = pm_timer;
	pm_tmr_blk = pm_timer;
	trap_expect(TRAP_GP, RDMSR_LEN);
	msr_value[0] = rdmsr(MSR_TSC_ADJUST);
	trap_caught();
	msr_value[1] = rdmsr(MSR_KERNEL_GS_BASE);
	cr0_now = read_cr0();
	if ((cpuid(1, 0).ecx & CPUID1_XSAVE) && !bench_cfg->pvm) {
		write_cr4(read_cr4() | CR4_OSXSAVE);
		msr_value[2] = xgetbv(0);
	}
	cr4_now = read_cr4();	/* with OSXSAVE: the toggle writes it back */
}

static void run_extended(void)
{
	struct bench_result r;
	char detail[96];
	int rc;
	u32 i;

	prepare_ext();
	ext_tally = (struct bench_tally){ 0 };
	bench_run(&cpuid_chain_case, &r);
	for (i = 0; i < ARRAY_SIZE(ext_cases); i++) {
		rc = run_checked(&ext_cases[i]);
		if (rc < 0 || ext_cases[i].arg != I_RD_CORE_THREADS)
			continue;
		fmt_snprintf(detail, sizeof(detail), "rdmsr 0x35 read 0x%lx, want 0x%lx (-smp %u)",
			     msr_seen, CORE_THREADS(vcpus()), vcpus());
		bench_check("exits.msr_core_threads", rc == 0, detail);
	}
	run_upages();
	run_paired();
	check_extended();
	exits_irq_run();
	exits_ple_run();	/* after: it borrows irq.c's AP */
	exits_ipi_run();	/* so does it */
}

void suite_exits_round(const struct tm_config *cfg, u32 round)
{
	struct bench_result r;
	u32 i;

	bench_round(round, cfg->rounds);	/* first: the suite line names it */
	bench_suite_begin("exits");
	bench_run(&cpuid_case, &r);
	bench_run(cpu.amd ? &vmmcall_case : &vmcall_case, &r);
	for (i = 0; i < ARRAY_SIZE(pio_cases); i++)
		bench_run(&pio_cases[i], &r);
	bench_round(0, 1);
	/* the extended cases and their checks run once, after the last round */
	if (round + 1 == cfg->rounds && suite_extended(cfg))
		run_extended();
}
