/*
 * kernel/suites/edk2_fifo.c - edk2 IoFifoSev.nasm's TdxNoRepIo and SevNoRepIo,
 * re-expressed in C step by step (see kernel/suites/edk2_fifo.h for the commit).
 */
#include "kernel/suites/edk2_fifo.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"

#define SIG_GENU           0x756e6547u   /* "Genu" "ineI" "ntel" */
#define SIG_INEI           0x49656e69u
#define SIG_NTEL           0x6c65746eu
#define SIG_TDX_EBX        0x65746e49u   /* "Inte" "lTDX" "    " */
#define SIG_TDX_EDX        0x5844546cu
#define SIG_TDX_ECX        0x20202020u
#define LEAF_TDX           0x21u
#define LEAF_EXT_MAX       0x80000000u
#define LEAF_MEM_ENCRYPT   0x8000001fu
#define CPUID1_HV          (1u << 31)
#define MEM_ENCRYPT_SEV    (1u << 1)
#define MSR_SEV_STATUS     0xc0010131u
#define SEV_ENABLED        (1u << 0)
#define SEV_ES_ENABLED     (1u << 1)
#define RDMSR_LEN          2

static struct cpuid_regs counted(u32 leaf, u32 *traps)
{
	(*traps)++;
	return cpuid(leaf, 0);
}

static bool tdx_no_rep_io(u32 *traps)
{
	struct cpuid_regs r = counted(0, traps);

	if (r.ebx != SIG_GENU || r.edx != SIG_INEI || r.ecx != SIG_NTEL)
		return false;
	if (!(counted(1, traps).ecx & CPUID1_HV))
		return false;
	if (counted(0, traps).eax < LEAF_TDX)
		return false;
	r = counted(LEAF_TDX, traps);
	return r.ebx == SIG_TDX_EBX && r.edx == SIG_TDX_EDX && r.ecx == SIG_TDX_ECX;
}

static bool sev_no_rep_io(u32 *traps)
{
	u64 status;

	if (!(counted(1, traps).ecx & CPUID1_HV))
		return false;
	if (counted(LEAF_EXT_MAX, traps).eax < LEAF_MEM_ENCRYPT)
		return false;
	if (!(counted(LEAF_MEM_ENCRYPT, traps).eax & MEM_ENCRYPT_SEV))
		return false;
	(*traps)++;
	/* edk2 trusts the MSR to exist; a backend without it raises #GP */
	trap_expect(TRAP_GP, RDMSR_LEN);
	status = rdmsr(MSR_SEV_STATUS);
	if (trap_caught())
		return false;
	return (status & (SEV_ENABLED | SEV_ES_ENABLED)) == SEV_ENABLED;
}

bool edk2_fifo_no_rep(u32 *traps)
{
	*traps = 0;
	if (tdx_no_rep_io(traps))
		return true;
	return sev_no_rep_io(traps);
}
