/*
 * kernel/lava.c - TM_LAVA monitor lines (see lava.h).  No device access:
 * the caller passes the console writer (COM1 in the kernel, a capture
 * buffer in tests/host/c/test_lava.c).  Exercised by
 * `tools/trapmeter lava-job` jobs and `make lava-test` (lava-run + QEMU).
 */
#include "kernel/lava.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define LAVA_ID_MAX 96
#define LAVA_ASCII_FIRST_GRAPH '!'
#define LAVA_ASCII_LAST_GRAPH '~'

static lava_write_fn lava_write;
static bool lava_on;

static const char *const lava_result_names[] = {
	[LAVA_PASS] = "pass", [LAVA_FAIL] = "fail", [LAVA_SKIP] = "skip",
};

void lava_init(lava_write_fn write, bool enabled)
{
	lava_write = write;
	lava_on = write && enabled;
}

bool lava_enabled(void)
{
	return lava_on;
}

/* Append src to id[*n], one word: no spaces or control bytes. */
static bool lava_id_append(char *id, size_t *n, const char *src)
{
	for (; src && *src; src++) {
		char c = *src;

		if (*n + 1 >= LAVA_ID_MAX)
			return false;
		if (c < LAVA_ASCII_FIRST_GRAPH || c > LAVA_ASCII_LAST_GRAPH)
			c = '_';
		id[(*n)++] = c;
	}
	id[*n] = '\0';
	return true;
}

int lava_format(char *buf, size_t len, const char *prefix, const char *name,
		enum lava_result result, u64 measurement, const char *units)
{
	char id[LAVA_ID_MAX];
	size_t n = 0;
	int out;

	id[0] = '\0';
	if (buf && len)
		buf[0] = '\0';
	if (!lava_id_append(id, &n, prefix) || !lava_id_append(id, &n, name) ||
	    (unsigned)result >= ARRAY_SIZE(lava_result_names))
		return -EINVAL;
	if (!n)
		lava_id_append(id, &n, "_");
	out = fmt_snprintf(buf, len,
			   "TM_LAVA case=%s result=%s measurement=%lu units=%s\n",
			   id, lava_result_names[result],
			   (unsigned long)measurement,
			   units && *units ? units : "none");
	if (out < 0 || (size_t)out >= len) {
		if (buf && len)
			buf[0] = '\0';
		return -EINVAL;
	}
	return out;
}

void lava_case(const char *prefix, const char *name, enum lava_result result,
	       u64 measurement, const char *units)
{
	char line[LAVA_LINE_MAX];
	int n;

	if (!lava_on)
		return;
	n = lava_format(line, sizeof(line), prefix, name, result, measurement,
			units);
	if (n > 0)
		lava_write(line, (size_t)n);
}
