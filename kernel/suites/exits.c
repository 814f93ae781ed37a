/*
 * kernel/suites/exits.c - suite "exits": the classic kvm-unit-tests
 * `vmexit` figures beside ours, so every run has a reference.
 *   cpuid       CPUID leaf 0: always exits, KVM answers in the kernel
 *   vmcall      the vendor's hypercall instruction (vmcall/vmmcall) with
 *               an unknown call number; #UD without a hypervisor (TCG)
 *   pio.kernel  inb from the PIC IMR (0x21): KVM's in-kernel PIC
 *   pio.user    outb to port 0x80: a round trip to QEMU
 */
#include "kernel/suites/suites.h"
#include "kernel/bench.h"
#include "drivers/platform.h"
#include "arch/x86/cpu.h"
#include "arch/x86/cpuinfo.h"
#include "arch/x86/io.h"
#include "arch/x86/control.h"
#include "arch/x86/trap.h"

#define HC_UNKNOWN       0xffffffffull  /* KVM returns -KVM_ENOSYS */
#define HYPERCALL_LEN    3              /* 0f 01 c1 / 0f 01 d9 */

static void op_cpuid(const struct bench_case *c, u8 *buf, u64 iters)
{
	(void)c;
	(void)buf;
	while (iters--)
		cpuid(0, 0);
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

static struct bench_case cases[] = {
	{ .suite = "exits", .name = "cpuid", .target = "cpu", .handler = HANDLER_KERNEL,
	  .method = METHOD_SINGLE, .op = op_cpuid,
	  .control = ctl_cpuid_loop, .exits_model = bench_model_one },
	{ .suite = "exits", .name = "vmcall", .target = "cpu", .handler = HANDLER_KERNEL,
	  .method = METHOD_SINGLE, .op = op_vmcall,
	  .control = ctl_hypercall_loop, .exits_model = bench_model_one,
	  .skip = skip_vmcall },
	{ .suite = "exits", .name = "pio.kernel", .target = "pic", .port = PIC1_DATA_PORT,
	  .handler = HANDLER_KERNEL, .dir = DIR_IN, .width = 1, .bytes = 1,
	  .method = METHOD_SINGLE, .op = op_in_kernel,
	  .control = ctl_in_loop, .exits_model = bench_model_one },
	{ .suite = "exits", .name = "pio.user", .target = "port80", .port = POST_PORT,
	  .handler = HANDLER_USER, .dir = DIR_OUT, .width = 1, .bytes = 1,
	  .method = METHOD_SINGLE, .op = op_out_user,
	  .control = ctl_out_loop, .exits_model = bench_model_one },
};

void suite_exits(const struct tm_config *cfg)
{
	struct bench_result r;
	u32 i;

	(void)cfg;
	bench_suite_begin("exits");
	cases[1].name = cpu.amd ? "vmmcall" : "vmcall";
	cases[1].arg = cpu.amd;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		bench_run(&cases[i], &r);
}
