/*
 * kernel/console.h - formatted output to COM1, and the "@tm" machine lines.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include "lib/types.h"

void console_init(void);
void console_write(const char *s, size_t n);
int kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Emit one "@tm <json>" line, counted into the END line's count and CRC. */
void tm_line(const char *json);
/* Emit the end line with the count and CRC of all earlier "@tm" lines. */
void tm_end(void);

#endif
