/*
 * kernel/lava.h - "TM_LAVA" lines for a LAVA test monitor (kernel word
 * lava=on; `tools/trapmeter lava-job` adds it).  One line per result,
 * check, skip, guest error, exception and the final status:
 *   TM_LAVA case=<id> result=<pass|fail|skip> measurement=<uint> units=<word>
 * Every line has all four fields, so one monitor pattern reads them all
 * (a LAVA pattern with a result group needs it on every line, and a
 * missing or non-numeric measurement breaks the job).  These are human
 * lines without the "@tm " prefix: the dump's count and CRC do not change.
 */
#ifndef KERNEL_LAVA_H
#define KERNEL_LAVA_H

#include "lib/types.h"

#define LAVA_LINE_MAX 192

enum lava_result { LAVA_PASS, LAVA_FAIL, LAVA_SKIP };

typedef void (*lava_write_fn)(const char *s, size_t n);

/* Enable (write != NULL and enabled) or disable the TM_LAVA lines. */
void lava_init(lava_write_fn write, bool enabled);
bool lava_enabled(void);

/*
 * Format one line into buf (always NUL-terminated when len > 0); the id is
 * prefix + name with every byte that is not a printable non-space ASCII
 * character turned into '_' (empty id -> "_").  Returns the length, or
 * -EINVAL when the line does not fit.
 */
int lava_format(char *buf, size_t len, const char *prefix, const char *name,
		enum lava_result result, u64 measurement, const char *units);

/* Write one line when enabled (a line that does not fit is dropped). */
void lava_case(const char *prefix, const char *name, enum lava_result result,
	       u64 measurement, const char *units);

#endif
