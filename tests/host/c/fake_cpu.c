/*
 * tests/host/c/fake_cpu.c - the fake CPU of tests/host/c/fake_cpu.h.
 */
#include "tests/host/c/fake_cpu.h"
#include <string.h>

struct fake_cpuid_leaf fake_cpuid_table[FAKE_CPUID_MAX];
u32 fake_cpuid_len;
void (*fake_wrmsr_hook)(u32 msr, u64 value);
u64 (*fake_rdmsr_hook)(u32 msr);

void fake_cpu_reset(void)
{
	memset(fake_cpuid_table, 0, sizeof(fake_cpuid_table));
	fake_cpuid_len = 0;
	fake_wrmsr_hook = NULL;
	fake_rdmsr_hook = NULL;
}

void fake_cpuid_set(u32 leaf, u32 eax, u32 ebx, u32 ecx, u32 edx)
{
	struct fake_cpuid_leaf *l = &fake_cpuid_table[fake_cpuid_len++];

	l->leaf = leaf;
	l->regs = (struct cpuid_regs){ eax, ebx, ecx, edx };
}

struct cpuid_regs fake_cpuid(u32 leaf, u32 subleaf)
{
	(void)subleaf;
	for (u32 i = 0; i < fake_cpuid_len; i++)
		if (fake_cpuid_table[i].leaf == leaf)
			return fake_cpuid_table[i].regs;
	return (struct cpuid_regs){ 0, 0, 0, 0 };
}
