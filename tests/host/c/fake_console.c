/*
 * tests/host/c/fake_console.c - see fake_console.h.
 */
#include "tests/host/c/fake_console.h"
#include "tests/host/c/fake_fw_cfg.h"
#include "kernel/console.h"
#include "lib/json.h"
#include <stdio.h>

char fake_console_lines[FAKE_CONSOLE_LINES][FAKE_CONSOLE_LINE_MAX];
u32 fake_console_n;

int kprintf(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

void console_write(const char *s, size_t n)
{
	(void)s;
	(void)n;
}

void tm_line(const char *json)
{
	if (fake_console_n < FAKE_CONSOLE_LINES)
		snprintf(fake_console_lines[fake_console_n++], FAKE_CONSOLE_LINE_MAX, "%s",
			 json ? json : "(null)");
}

/* As the kernel's: the line is the writer's first len bytes. */
void tm_record(struct jw *w)
{
	const char *json = jw_finish(w);

	if (fake_console_n < FAKE_CONSOLE_LINES)
		snprintf(fake_console_lines[fake_console_n++], FAKE_CONSOLE_LINE_MAX, "%.*s",
			 json ? (int)w->len : 6, json ? json : "(null)");
}

u32 fake_console_fw_cfg_read(u16 port, u8 width)
{
	u32 v = 0xffffffffu;

	fake_fw_cfg_in(port, width, &v);
	return v;
}

void fake_console_fw_cfg_write(u16 port, u8 width, u32 value)
{
	fake_fw_cfg_out(port, width, value);
}
