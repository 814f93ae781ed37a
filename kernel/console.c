/*
 * kernel/console.c - the serial console: printf over the 16550 UART, with
 * "\n" sent as "\r\n" for terminals, and the counted "@tm" dump.
 *
 * Under a software hypervisor every guest instruction costs about a
 * microsecond, so text goes to the UART in runs: printf output through a
 * small buffer, not a call chain per character, and the dump's JSON (which
 * holds no raw newline: lib/json.c escapes control characters) as it is.
 */
#include "kernel/console.h"
#include "lib/fmt.h"
#include "kernel/dump.h"
#include "lib/json.h"
#include "drivers/uart16550.h"

#define PRINTF_CHUNK 128

static struct tm_dump dump;

struct printf_buf {
	char text[PRINTF_CHUNK];
	size_t n;
};

/* Runs between newlines go out in one piece (see uart_write). */
void console_write(const char *s, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		if (s[i] != '\n')
			continue;
		uart_write(s + start, i - start);
		uart_write("\r\n", 2);
		start = i + 1;
	}
	uart_write(s + start, n - start);
}

static void put_char(char c, void *arg)
{
	struct printf_buf *b = arg;

	if (b->n == sizeof(b->text)) {
		console_write(b->text, b->n);
		b->n = 0;
	}
	b->text[b->n++] = c;
}

/* The dump writes each line's "\n" on its own: that one becomes "\r\n",
 * everything else goes out unscanned. */
static void dump_write(const char *s, size_t n)
{
	if (n == 1 && s[0] == '\n')
		uart_write("\r\n", 2);
	else
		uart_write(s, n);
}

void console_init(void)
{
	uart_init();
	tm_dump_init(&dump, dump_write);
}

int kprintf(const char *fmt, ...)
{
	struct printf_buf b;
	va_list ap;
	int n;

	b.n = 0;
	va_start(ap, fmt);
	n = fmt_format(put_char, &b, fmt, ap);
	va_end(ap);
	console_write(b.text, b.n);
	return n;
}

void tm_line(const char *json)
{
	/* jw_finish() gives NULL when a line overflowed its buffer: the dump
	 * says so rather than emit half an object, and counts it */
	tm_dump_line(&dump, json);
}

void tm_record(struct jw *w)
{
	const char *json = jw_finish(w);

	tm_dump_text(&dump, json, json ? w->len : 0);
}

u32 tm_lines_dropped(void)
{
	return dump.dropped;
}

void tm_end(const char *status, u32 checks_failed)
{
	tm_dump_end(&dump, status, checks_failed);
}
