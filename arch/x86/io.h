/*
 * arch/x86/io.h - the only home of x86 port I/O.
 *
 * Single-unit forms take (value, port) like xv6/Linux; string forms move
 * `count` units between memory and one port with a REP prefix.  Every one of
 * these traps when the guest runs under a hypervisor, which is what
 * trapmeter measures.  The "volatile" and "memory" clobbers stop the compiler
 * from merging, reordering or dropping accesses inside timed loops.
 */
#ifndef ARCH_X86_IO_H
#define ARCH_X86_IO_H

#include "lib/types.h"

static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline void outb(u8 v, u16 port)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outw(u16 v, u16 port)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outl(u32 v, u16 port)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void insb(u16 port, void *buf, size_t count)
{
	__asm__ volatile("rep insb" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void insw(u16 port, void *buf, size_t count)
{
	__asm__ volatile("rep insw" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void insl(u16 port, void *buf, size_t count)
{
	__asm__ volatile("rep insl" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsb(u16 port, const void *buf, size_t count)
{
	__asm__ volatile("rep outsb" : "+S"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsw(u16 port, const void *buf, size_t count)
{
	__asm__ volatile("rep outsw" : "+S"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsl(u16 port, const void *buf, size_t count)
{
	__asm__ volatile("rep outsl" : "+S"(buf), "+c"(count) : "d"(port) : "memory");
}

#endif
