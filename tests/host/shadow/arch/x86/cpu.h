/*
 * tests/host/shadow/arch/x86/cpu.h - what "arch/x86/cpu.h" means in host
 * unit tests: the real header, with CPUID answered by the test
 * (fake_cpuid_hook; all zeros, "no leaves", when the test sets none) so
 * that code probing the CPU sees a known machine, not the build host.
 */
#ifndef TESTS_HOST_SHADOW_CPU_H
#define TESTS_HOST_SHADOW_CPU_H

#define cpuid cpuid_hw
#include "../../../../../arch/x86/cpu.h"
#undef cpuid

__attribute__((weak)) struct cpuid_regs (*fake_cpuid_hook)(u32 leaf, u32 subleaf);

static inline struct cpuid_regs cpuid(u32 leaf, u32 subleaf)
{
	struct cpuid_regs none = { 0, 0, 0, 0 };

	return fake_cpuid_hook ? fake_cpuid_hook(leaf, subleaf) : none;
}

#endif
