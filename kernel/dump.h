/*
 * kernel/dump.h - emitter for the "@tm " machine-readable serial lines.
 *
 * Each line is "@tm " + JSON + "\n".  The emitter keeps a count of lines
 * and a running zlib-compatible CRC-32 over every JSON text followed by
 * its "\n" (the "@tm " prefix is not included), so the host can check
 * that nothing was lost or corrupted:
 *   lines == number of earlier @tm lines
 *   crc32 == zlib.crc32(b"".join(json + b"\n" for each earlier line))
 */
#ifndef KERNEL_DUMP_H
#define KERNEL_DUMP_H

#include "lib/types.h"

/* Every line's closing "\n" is written by itself (a writer may send it as
 * "\r\n"); no other piece holds a newline. */
typedef void (*dump_write_fn)(const char *s, size_t n);

struct tm_dump {
	dump_write_fn write;
	u32 lines;
	u32 crc;
	u32 dropped;		/* lines that did not fit (json NULL) */
};

void tm_dump_init(struct tm_dump *d, dump_write_fn write);

/*
 * Write "@tm " json "\n" and account for it.  NULL json (jw_finish() of a
 * line that overflowed its buffer) writes TM_DUMP_DROPPED instead and
 * counts a dropped line.
 */
void tm_dump_line(struct tm_dump *d, const char *json);
/* The same with the length known (len bytes of json, no NUL needed):
 * under a software hypervisor a strlen of a result line costs ~1 ms. */
void tm_dump_text(struct tm_dump *d, const char *json, size_t len);

#define TM_DUMP_DROPPED \
	"{\"type\":\"error\",\"kind\":\"internal\",\"message\":\"machine line too long: dropped\"}"

/*
 * Schema 2: seal the run's status.  Writes the counted line
 *   @tm {"type":"status","status":S,"checks_failed":N,"lines_dropped":N}
 * and then the end line covering it and every earlier line:
 *   @tm {"type":"end","lines":N,"crc32":"xxxxxxxx","status":S}
 * The end line itself is not counted.  status is a plain word (no
 * quotes or backslashes).
 */
void tm_dump_end(struct tm_dump *d, const char *status, u32 checks_failed);

#endif
