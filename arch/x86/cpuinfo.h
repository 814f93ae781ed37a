/*
 * arch/x86/cpuinfo.h - what CPU and which hypervisor the guest runs on.
 */
#ifndef ARCH_X86_CPUINFO_H
#define ARCH_X86_CPUINFO_H

#include "lib/types.h"

struct cpu_info {
	char vendor[13];      /* CPUID 0 "GenuineIntel", "AuthenticAMD", ... */
	char brand[49];       /* CPUID 0x80000002..4, trimmed */
	u32 family, model, stepping;
	bool amd;             /* use vmmcall rather than vmcall */
};

struct hv_info {
	bool present;         /* CPUID 1 ECX[31] */
	char signature[13];   /* CPUID 0x40000000 EBX:ECX:EDX, "KVMKVMKVM" */
	u32 max_leaf;         /* CPUID 0x40000000 EAX */
	bool kvm;
};

extern struct cpu_info cpu;
extern struct hv_info hv;

void cpuinfo_init(void);

#endif
