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

typedef void (*dump_write_fn)(const char *s, size_t n);

struct tm_dump {
	dump_write_fn write;
	u32 lines;
	u32 crc;
};

void tm_dump_init(struct tm_dump *d, dump_write_fn write);

/* Write "@tm " json "\n" and account for it (NULL json writes "null"). */
void tm_dump_line(struct tm_dump *d, const char *json);

/*
 * Write @tm {"type":"end","lines":N,"crc32":"xxxxxxxx"} covering all
 * earlier lines.  The end line itself is not counted; d is unchanged.
 */
void tm_dump_end(struct tm_dump *d);

#endif
