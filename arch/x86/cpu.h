/*
 * arch/x86/cpu.h - CPUID, MSRs, control registers, fences and halting.
 */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(u32 leaf, u32 subleaf)
{
	struct cpuid_regs r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf)
			 : "memory");
	return r;
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

static inline u64 read_cr2(void)
{
	u64 v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr0(void)
{
	u64 v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr3(void)
{
	u64 v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static inline u64 read_cr4(void)
{
	u64 v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void barrier(void)
{
	__asm__ volatile("" ::: "memory");
}

static inline void mfence(void)
{
	__asm__ volatile("mfence" ::: "memory");
}

static inline void __attribute__((noreturn)) cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* The vendor's hypercall instruction with an unknown call number: KVM
 * answers -KVM_ENOSYS in RAX.  Without a hypervisor it raises #UD, which
 * the caller must be prepared to catch (see arch/x86/trap.h). */
static inline u64 cpu_vmcall(u64 nr)
{
	__asm__ volatile("vmcall" : "+a"(nr) : : "memory");
	return nr;
}

static inline u64 cpu_vmmcall(u64 nr)
{
	__asm__ volatile("vmmcall" : "+a"(nr) : : "memory");
	return nr;
}

static inline void write_cr0(u64 v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

/* reloading CR3 flushes the TLB's non-global entries */
static inline void write_cr3(u64 v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void write_cr4(u64 v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

/* CR8: the task-priority register in 64-bit mode */
static inline u64 read_cr8(void)
{
	u64 v;
	__asm__ volatile("mov %%cr8, %0" : "=r"(v));
	return v;
}

static inline void write_cr8(u64 v)
{
	__asm__ volatile("mov %0, %%cr8" : : "r"(v) : "memory");
}

static inline void write_dr7(u64 v)
{
	__asm__ volatile("mov %0, %%dr7" : : "r"(v) : "memory");
}

static inline void wbinvd(void)
{
	__asm__ volatile("wbinvd" ::: "memory");
}

/* caches dropped unwritten: only ever run where a hypervisor intercepts it */
static inline void invd(void)
{
	__asm__ volatile("invd" ::: "memory");
}

/* XCR0 (needs CR4.OSXSAVE) */
static inline u64 xgetbv(u32 xcr)
{
	u32 lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(xcr));
	return ((u64)hi << 32) | lo;
}

static inline void xsetbv(u32 xcr, u64 v)
{
	__asm__ volatile("xsetbv" : : "c"(xcr), "a"((u32)v), "d"((u32)(v >> 32)) : "memory");
}

/* IDTR as sidt/lidt read and write it (suite firmware swaps the
 * firmware's IDT for a copy around a single-stepped call). */
struct desc_ptr {
	u16 limit;      /* bytes - 1 */
	u64 base;       /* linear address */
} __attribute__((packed));

static inline void sidt(struct desc_ptr *p)
{
	__asm__ volatile("sidt %0" : "=m"(*p));
}

static inline void lidt(const struct desc_ptr *p)
{
	__asm__ volatile("lidt %0" : : "m"(*p));
}

static inline u16 read_cs(void)
{
	u16 cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	return cs;
}

#endif
