/*
 * lib/fmt.h - printf-style formatting without libc or floating point.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %%, length modifiers hh h l ll
 * z j t, flags - 0 + space #, width and precision (both may be '*').
 * Output matches glibc's snprintf for these, including "(null)" for a
 * NULL %s and "(nil)" for a NULL %p.  %n and floating point are not
 * supported: an unknown conversion is emitted literally.
 */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include "lib/types.h"

typedef void (*fmt_put_fn)(char c, void *arg);

/* Feed every output character to put(c, arg); returns the count emitted. */
int fmt_format(fmt_put_fn put, void *arg, const char *fmt, va_list ap);

/*
 * C99 vsnprintf: writes at most size bytes including the terminating NUL
 * (always terminated when size > 0) and returns the length the full
 * output would have had.  buf may be NULL when size is 0.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Write num/den rounded half-up to `places` decimals (at most 19; larger
 * values are clamped), e.g. (1234, 100, 2) -> "12.34", (2, 3, 0) -> "1".
 * den == 0 writes "null".  Same buffer/return semantics as fmt_snprintf.
 */
int fmt_decimal(char *buf, size_t size, u64 num, u64 den, unsigned places);

#endif
