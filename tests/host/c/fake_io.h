/*
 * tests/host/c/fake_io.h - host stand-in for arch/x86/io.h (reached through
 * tests/host/c/shadow/arch/x86/io.h in host builds): every port access is recorded in fake_io_log
 * and answered by the test's device model (fake_io_read_hook /
 * fake_io_write_hook), so a driver's exact command sequence can be
 * asserted without hardware.  String forms record one access per unit
 * with rep set.
 */
#ifndef TESTS_HOST_FAKE_IO_H
#define TESTS_HOST_FAKE_IO_H

#include "lib/types.h"
#include <string.h>

struct fake_io_access {
	u16 port;
	u8 width;          /* 1, 2 or 4 */
	bool out;
	bool rep;          /* part of a rep ins/outs */
	u32 value;
};

#define FAKE_IO_LOG_MAX 200000

extern struct fake_io_access fake_io_log[FAKE_IO_LOG_MAX];
extern u32 fake_io_len;         /* recorded (capped at FAKE_IO_LOG_MAX) */
extern u64 fake_io_total;       /* all accesses, also past the cap */
/* Device model; NULL hooks read as a floating bus (all ones). */
extern u32 (*fake_io_read_hook)(u16 port, u8 width);
extern void (*fake_io_write_hook)(u16 port, u8 width, u32 value);

void fake_io_reset(void);
u32 fake_io_in(u16 port, u8 width, bool rep);
void fake_io_out(u16 port, u8 width, u32 value, bool rep);

static inline u8 inb(u16 port) { return (u8)fake_io_in(port, 1, false); }
static inline u16 inw(u16 port) { return (u16)fake_io_in(port, 2, false); }
static inline u32 inl(u16 port) { return fake_io_in(port, 4, false); }
static inline void outb(u8 v, u16 port) { fake_io_out(port, 1, v, false); }
static inline void outw(u16 v, u16 port) { fake_io_out(port, 2, v, false); }
static inline void outl(u32 v, u16 port) { fake_io_out(port, 4, v, false); }

static inline void fake_io_ins(u16 port, void *buf, size_t count, u8 width)
{
	u8 *p = buf;
	u32 v;

	for (; count; count--, p += width) {
		v = fake_io_in(port, width, true);
		memcpy(p, &v, width);           /* little-endian host */
	}
}

static inline void fake_io_outs(u16 port, const void *buf, size_t count, u8 width)
{
	const u8 *p = buf;
	u32 v;

	for (; count; count--, p += width) {
		v = 0;
		memcpy(&v, p, width);
		fake_io_out(port, width, v, true);
	}
}

static inline void insb(u16 port, void *buf, size_t n) { fake_io_ins(port, buf, n, 1); }
static inline void insw(u16 port, void *buf, size_t n) { fake_io_ins(port, buf, n, 2); }
static inline void insl(u16 port, void *buf, size_t n) { fake_io_ins(port, buf, n, 4); }
static inline void outsb(u16 port, const void *buf, size_t n) { fake_io_outs(port, buf, n, 1); }
static inline void outsw(u16 port, const void *buf, size_t n) { fake_io_outs(port, buf, n, 2); }
static inline void outsl(u16 port, const void *buf, size_t n) { fake_io_outs(port, buf, n, 4); }

#endif
