/*
 * kernel/console.c - the serial console: printf over the 16550 UART, with
 * "\n" sent as "\r\n" for terminals, and the counted "@tm" dump.
 */
#include "kernel/console.h"
#include "lib/fmt.h"
#include "kernel/dump.h"
#include "drivers/uart16550.h"

static struct tm_dump dump;

void console_write(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

static void put_char(char c, void *arg)
{
	(void)arg;
	console_write(&c, 1);
}

void console_init(void)
{
	uart_init();
	tm_dump_init(&dump, console_write);
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_format(put_char, NULL, fmt, ap);
	va_end(ap);
	return n;
}

void tm_line(const char *json)
{
	/* jw_finish() gives NULL when a line overflowed its buffer: the dump
	 * says so rather than emit half an object, and counts it */
	tm_dump_line(&dump, json);
}

u32 tm_lines_dropped(void)
{
	return dump.dropped;
}

void tm_end(const char *status, u32 checks_failed)
{
	tm_dump_end(&dump, status, checks_failed);
}
