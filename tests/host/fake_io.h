/*
 * tests/host/fake_io.h - host stand-in for arch/x86/io.h (TM_HOST builds):
 * every port access goes to two hooks the test program defines, so a
 * driver's command sequence can be recorded and its device faked.
 *   u32 fake_io_in(u16 port, int width);            width 1, 2 or 4
 *   void fake_io_out(u16 port, u32 value, int width);
 */
#ifndef TESTS_HOST_FAKE_IO_H
#define TESTS_HOST_FAKE_IO_H

#include "kernel/types.h"

u32 fake_io_in(u16 port, int width);
void fake_io_out(u16 port, u32 value, int width);

static inline u8 inb(u16 port) { return (u8)fake_io_in(port, 1); }
static inline u16 inw(u16 port) { return (u16)fake_io_in(port, 2); }
static inline u32 inl(u16 port) { return fake_io_in(port, 4); }
static inline void outb(u8 v, u16 port) { fake_io_out(port, v, 1); }
static inline void outw(u16 v, u16 port) { fake_io_out(port, v, 2); }
static inline void outl(u32 v, u16 port) { fake_io_out(port, v, 4); }

static inline void insb(u16 port, void *buf, size_t count)
{
	for (u8 *p = buf; count--; )
		*p++ = inb(port);
}

static inline void insw(u16 port, void *buf, size_t count)
{
	for (u16 *p = buf; count--; )
		*p++ = inw(port);
}

static inline void insl(u16 port, void *buf, size_t count)
{
	for (u32 *p = buf; count--; )
		*p++ = inl(port);
}

static inline void outsb(u16 port, const void *buf, size_t count)
{
	for (const u8 *p = buf; count--; )
		outb(*p++, port);
}

static inline void outsw(u16 port, const void *buf, size_t count)
{
	for (const u16 *p = buf; count--; )
		outw(*p++, port);
}

static inline void outsl(u16 port, const void *buf, size_t count)
{
	for (const u32 *p = buf; count--; )
		outl(*p++, port);
}

#endif
