/*
 * tests/host/c/fake_io.c - the recording port I/O fake (see fake_io.h).
 */
#include "tests/host/c/fake_io.h"

#define FAKE_IO_FLOATING 0xffffffffu

struct fake_io_access fake_io_log[FAKE_IO_LOG_MAX];
u32 fake_io_len;
u64 fake_io_total;
u32 (*fake_io_read_hook)(u16 port, u8 width);
void (*fake_io_write_hook)(u16 port, u8 width, u32 value);

void fake_io_reset(void)
{
	fake_io_len = 0;
	fake_io_total = 0;
}

static void record(u16 port, u8 width, bool out, bool rep, u32 value)
{
	fake_io_total++;
	if (fake_io_len < FAKE_IO_LOG_MAX)
		fake_io_log[fake_io_len++] = (struct fake_io_access){
			.port = port, .width = width, .out = out, .rep = rep, .value = value };
}

u32 fake_io_in(u16 port, u8 width, bool rep)
{
	u32 mask = width == 4 ? FAKE_IO_FLOATING : (1u << (width * 8)) - 1;
	u32 v = fake_io_read_hook ? fake_io_read_hook(port, width) : FAKE_IO_FLOATING;

	v &= mask;
	record(port, width, false, rep, v);
	return v;
}

void fake_io_out(u16 port, u8 width, u32 value, bool rep)
{
	record(port, width, true, rep, value);
	if (fake_io_write_hook)
		fake_io_write_hook(port, width, value);
}
