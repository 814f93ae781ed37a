/*
 * kernel/dump.c - "@tm" line emitter with running line count and CRC-32
 * (see dump.h for the contract the host runner checks).
 */
#include "kernel/dump.h"
#include "lib/crc32.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define DUMP_PREFIX "@tm "

void tm_dump_init(struct tm_dump *d, dump_write_fn write)
{
	d->write = write;
	d->lines = 0;
	d->crc = 0;
	d->dropped = 0;
}

void tm_dump_text(struct tm_dump *d, const char *json, size_t len)
{
	if (!json) {
		json = TM_DUMP_DROPPED;
		len = sizeof(TM_DUMP_DROPPED) - 1;
		d->dropped++;
	}
	d->write(DUMP_PREFIX, sizeof(DUMP_PREFIX) - 1);
	d->write(json, len);
	d->write("\n", 1);
	d->lines++;
	d->crc = crc32_update(d->crc, json, len);
	d->crc = crc32_update(d->crc, "\n", 1);
}

void tm_dump_line(struct tm_dump *d, const char *json)
{
	tm_dump_text(d, json, json ? kstrlen(json) : 0);
}

void tm_dump_end(struct tm_dump *d, const char *status, u32 checks_failed)
{
	char line[160];
	int n;

	fmt_snprintf(line, sizeof(line),
		     "{\"type\":\"status\",\"status\":\"%s\",\"checks_failed\":%u,\"lines_dropped\":%u}",
		     status, (unsigned)checks_failed, (unsigned)d->dropped);
	tm_dump_line(d, line);
	n = fmt_snprintf(line, sizeof(line),
			 DUMP_PREFIX "{\"type\":\"end\",\"lines\":%u,\"crc32\":\"%08x\",\"status\":\"%s\"}",
			 (unsigned)d->lines, (unsigned)d->crc, status);
	d->write(line, (size_t)n);
	d->write("\n", 1);
}
