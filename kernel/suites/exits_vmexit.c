/*
 * kernel/suites/exits_vmexit.c - the per-CPU area and exception_vector()
 * that vmexit's control-register writes go through
 * (kernel/suites/exits_vmexit.h): GS points at a zeroed area whose byte 4
 * is the vector an exception handler would leave; none does here.
 */
#include "kernel/suites/exits_vmexit.h"
#include "arch/x86/cpu.h"
#include "drivers/pci_testdev.h"

#define MSR_GS_BASE 0xc0000101

u32 exits_vmexit_faults;
u64 exits_vmexit_ptd_mem;
u32 exits_vmexit_ptd_port;
u32 exits_vmexit_ptd_data;

static struct pci_testdev ptd;
static u32 ptd_before[2];	/* port, mem: the test's count at set-up */

/* kvm-unit-tests' struct percpu: exception_vector is the byte at 4 */
static u8 percpu[64] __attribute__((aligned(64)));
static u64 gs_before;

/* kvm-unit-tests' exception_vector(), as its build compiles it */
__asm__(".text\n"
	".globl exits_vmexit_exception_vector\n"
	"exits_vmexit_exception_vector:\n\t"
	"endbr64\n\t"
	"mov %gs:4, %al\n\t"
	"movzbl %al, %eax\n\t"
	"ret\n");

void exits_vmexit_gs_set(void)
{
	gs_before = rdmsr(MSR_GS_BASE);
	wrmsr(MSR_GS_BASE, (u64)(uintptr_t)percpu);
	exits_vmexit_faults = 0;
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
