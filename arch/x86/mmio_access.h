/*
 * arch/x86/mmio_access.h - memory-mapped I/O accesses of 1, 2, 4 and 8
 * bytes and their string forms (rep movs, rep stos): the mmio suite's
 * cases and the MMIO registers of the drivers (lapic, vtd, pci_testdev).
 *
 * Each single access is one `mov` through a volatile pointer, so the
 * compiler emits exactly one load or store of that width; under KVM an
 * access to a region QEMU emulates is one exit (KVM_EXIT_MMIO).  The string
 * forms run with DF=0 (the ABI guarantees it on entry to C code) and the
 * "memory" clobber keeps the compiler from moving accesses across them.
 */
#ifndef ARCH_X86_MMIO_ACCESS_H
#define ARCH_X86_MMIO_ACCESS_H

#include "lib/types.h"

static inline u8 mmio_read8(const volatile void *a)
{
	return *(const volatile u8 *)a;
}

static inline u16 mmio_read16(const volatile void *a)
{
	return *(const volatile u16 *)a;
}

static inline u32 mmio_read32(const volatile void *a)
{
	return *(const volatile u32 *)a;
}

static inline u64 mmio_read64(const volatile void *a)
{
	return *(const volatile u64 *)a;
}

static inline void mmio_write8(volatile void *a, u8 v)
{
	*(volatile u8 *)a = v;
}

static inline void mmio_write16(volatile void *a, u16 v)
{
	*(volatile u16 *)a = v;
}

static inline void mmio_write32(volatile void *a, u32 v)
{
	*(volatile u32 *)a = v;
}

static inline void mmio_write64(volatile void *a, u64 v)
{
	*(volatile u64 *)a = v;
}

/* rep movs{b,w,l,q}: copy `count` units of `width` bytes from src to dst
 * (either side may be MMIO). */
static inline void mmio_rep_movs(void *dst, const void *src, size_t count, u32 width)
{
	switch (width) {
	case 1:
		__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(count) : : "memory");
		break;
	case 2:
		__asm__ volatile("rep movsw" : "+D"(dst), "+S"(src), "+c"(count) : : "memory");
		break;
	case 4:
		__asm__ volatile("rep movsl" : "+D"(dst), "+S"(src), "+c"(count) : : "memory");
		break;
	default:
		__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(count) : : "memory");
		break;
	}
}

/* rep stos{b,l}: store `count` copies of the low `width` bytes of v. */
static inline void mmio_rep_stos(void *dst, u32 v, size_t count, u32 width)
{
	if (width == 1)
		__asm__ volatile("rep stosb" : "+D"(dst), "+c"(count) : "a"(v) : "memory");
	else
		__asm__ volatile("rep stosl" : "+D"(dst), "+c"(count) : "a"(v) : "memory");
}

#endif
