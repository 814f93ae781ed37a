/*
 * tests/host/c/fake_cpu.h - a CPU for host unit tests: CPUID answers from a
 * table the test fills (leaves not in it read as zeros), MSR writes go to a
 * hook (e.g. one that plays KVM and fills a pvclock record), MSR reads to
 * another (or read as zeros).
 */
#ifndef TESTS_HOST_FAKE_CPU_H
#define TESTS_HOST_FAKE_CPU_H

#include "lib/types.h"

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

#define FAKE_CPUID_MAX 16

struct fake_cpuid_leaf {
	u32 leaf;
	struct cpuid_regs regs;
};

extern struct fake_cpuid_leaf fake_cpuid_table[FAKE_CPUID_MAX];
extern u32 fake_cpuid_len;
extern void (*fake_wrmsr_hook)(u32 msr, u64 value);
extern u64 (*fake_rdmsr_hook)(u32 msr);    /* NULL: every MSR reads 0 */

void fake_cpu_reset(void);
void fake_cpuid_set(u32 leaf, u32 eax, u32 ebx, u32 ecx, u32 edx);
struct cpuid_regs fake_cpuid(u32 leaf, u32 subleaf);

static inline struct cpuid_regs cpuid(u32 leaf, u32 subleaf)
{
	return fake_cpuid(leaf, subleaf);
}

static inline u64 rdmsr(u32 msr)
{
	return fake_rdmsr_hook ? fake_rdmsr_hook(msr) : 0;
}

static inline void wrmsr(u32 msr, u64 v)
{
	if (fake_wrmsr_hook)
		fake_wrmsr_hook(msr, v);
}

#endif
