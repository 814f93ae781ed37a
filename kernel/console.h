/*
 * kernel/console.h - formatted output to COM1, and the "@tm" machine lines.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include "lib/types.h"

void console_init(void);
void console_write(const char *s, size_t n);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct jw;

/* Emit one "@tm <json>" line, counted into the END line's count and CRC. */
void tm_line(const char *json);
/* jw_finish(w) and emit it, its length taken from the writer. */
void tm_record(struct jw *w);
/* Machine lines dropped so far because they did not fit their buffer. */
u32 tm_lines_dropped(void);
/* Seal status in the counted status line, then the end line with the
 * count and CRC of all earlier "@tm" lines (kernel/dump.h). */
void tm_end(const char *status, u32 checks_failed);

#endif
