/*
 * arch/x86/control.h - non-trapping twins of the trapping instructions the
 * suites time, for their control ops (kernel/bench.h): the same instruction
 * shape with RAM in place of a port, or an instruction no hypervisor
 * intercepts in place of one it does.  A control op's figure is the loop
 * and data movement around the trap; the case's figure minus it is the
 * trap itself (docs/design.md, "Timing").
 */
#ifndef ARCH_X86_CONTROL_H
#define ARCH_X86_CONTROL_H

#include "lib/types.h"

/* rep movs{b,w,l}, RAM to RAM: the string twin of rep ins/outs (the REP
 * controls run it with n = 0, see kernel/suites/pio.c). */
static inline void ctl_movsb(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static inline void ctl_movsw(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsw" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static inline void ctl_movsl(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsl" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/*
 * The twin of cpuid(leaf, subleaf) in arch/x86/cpu.h: the same register
 * set-up and outputs around a nop, which nothing intercepts.
 */
static inline u32 ctl_cpuid(u32 leaf, u32 subleaf)
{
	u32 a = leaf, b, c = subleaf, d;

	__asm__ volatile("nop" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
	return a ^ b ^ c ^ d;
}

/* The twin of a hypercall (vmcall/vmmcall): one nop with the call register. */
static inline void ctl_hypercall(u64 nr)
{
	__asm__ volatile("nop" : "+a"(nr) : : "memory");
}

/* The twin of rdmsr/wrmsr (and xsetbv): the MSR number and value in
 * ECX, EDX:EAX around a nop. */
static inline void ctl_msr(u32 msr, u64 v)
{
	u32 lo = (u32)v, hi = (u32)(v >> 32);

	__asm__ volatile("nop" : "+a"(lo), "+d"(hi) : "c"(msr) : "memory");
}

#endif
