/*
 * tests/host/c/test_dump.c - unit tests for kernel/dump.c: exact bytes on
 * the wire, line count, and the running CRC checked against a bitwise
 * CRC-32 computed independently in this file.
 */
#include "tests/host/c/check.h"
#include "kernel/dump.h"

#define STATUS_OK "{\"type\":\"status\",\"status\":\"ok\",\"checks_failed\":0,\"lines_dropped\":0}"

static char wire[8192];
static size_t wire_len;
static int write_calls;

static void capture(const char *s, size_t n)
{
	if (wire_len + n <= sizeof(wire)) {
		memcpy(wire + wire_len, s, n);
		wire_len += n;
	}
	write_calls++;
}

static void capture_reset(void)
{
	wire_len = 0;
	write_calls = 0;
	memset(wire, 0, sizeof(wire));
}

/* Independent bitwise CRC-32 (zlib), continuing from a previous value. */
static uint32_t ref_crc(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return ~crc;
}

static void test_check_value(void)
{
	struct tm_dump d;

	/* the test's own reference must agree with the standard check value */
	CHECK_EQ_U64(ref_crc(0, "123456789", 9), 0xcbf43926u);
	CHECK_EQ_U64(ref_crc(ref_crc(0, "1234", 4), "56789", 5), 0xcbf43926u);

	capture_reset();
	tm_dump_init(&d, capture);
	CHECK_EQ_U64(d.lines, 0);
	CHECK_EQ_U64(d.crc, 0);
	tm_dump_line(&d, "12345678");	/* crc over "12345678\n" */
	CHECK_EQ_U64(d.crc, ref_crc(0, "12345678\n", 9));
	CHECK_STR(wire, "@tm 12345678\n");
}

static void test_lines_and_end(void)
{
	static const char *const lines[] = {
		"{\"type\":\"start\",\"version\":1}",
		"{\"type\":\"case\",\"name\":\"pio_outb\",\"median\":1234}",
		"{}",
		"{\"type\":\"note\",\"s\":\"with \\\"quotes\\\"\"}",
	};
	struct tm_dump d;
	char expect[4096], endline[128];
	uint32_t crc = 0;
	size_t off = 0;

	capture_reset();
	tm_dump_init(&d, capture);
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		tm_dump_line(&d, lines[i]);
		off += (size_t)sprintf(expect + off, "@tm %s\n", lines[i]);
		crc = ref_crc(crc, lines[i], strlen(lines[i]));
		crc = ref_crc(crc, "\n", 1);
		CHECK_EQ_U64(d.lines, i + 1);
		CHECK_EQ_U64(d.crc, crc);
	}
	tm_dump_end(&d, "ok", 0);
	strcat(expect, "@tm " STATUS_OK "\n");
	crc = ref_crc(crc, STATUS_OK "\n", strlen(STATUS_OK) + 1);
	snprintf(endline, sizeof(endline),
		 "@tm {\"type\":\"end\",\"lines\":5,\"crc32\":\"%08x\",\"status\":\"ok\"}\n", crc);
	strcat(expect, endline);
	CHECK_EQ_U64(wire_len, strlen(expect));
	CHECK_STR(wire, expect);
	CHECK_EQ_U64(d.lines, 5);	/* status line counted, end line not */
	CHECK_EQ_U64(d.crc, crc);
}

/* Schema 2: the status is a counted line, so the CRC covers it. */
static void test_status_is_sealed(void)
{
	struct tm_dump d;
	uint32_t ok_crc;

	capture_reset();
	tm_dump_init(&d, capture);
	tm_dump_line(&d, "{}");
	tm_dump_end(&d, "ok", 0);
	ok_crc = d.crc;
	capture_reset();
	tm_dump_init(&d, capture);
	tm_dump_line(&d, "{}");
	tm_dump_end(&d, "check-failed", 1);
	CHECK(d.crc != ok_crc);
	CHECK_CONTAINS(wire, "@tm {\"type\":\"status\",\"status\":\"check-failed\",\"checks_failed\":1,\"lines_dropped\":0}\n");
	CHECK_CONTAINS(wire, "\"status\":\"check-failed\"}\n");
}

/* A line that did not fit (NULL) is replaced by a named error and counted
 * as dropped in the sealed status line. */
static void test_dropped_line_counted(void)
{
	struct tm_dump d;

	capture_reset();
	tm_dump_init(&d, capture);
	tm_dump_line(&d, NULL);
	CHECK_EQ_U64(d.dropped, 1);
	CHECK_CONTAINS(wire, "@tm " TM_DUMP_DROPPED "\n");
	tm_dump_end(&d, "check-failed", 0);
	CHECK_CONTAINS(wire, "\"lines_dropped\":1}");
	CHECK_CONTAINS(wire, "\"lines\":2,");
}

static void test_empty_dump(void)
{
	struct tm_dump d;

	capture_reset();
	tm_dump_init(&d, capture);
	tm_dump_end(&d, "ok", 0);
	CHECK_CONTAINS(wire, "@tm " STATUS_OK "\n@tm {\"type\":\"end\",\"lines\":1,\"crc32\":\"");
}

static void test_known_crc(void)
{
	struct tm_dump d;

	/* constants from Python: zlib.crc32(b"a\n"), zlib.crc32(b"a\n\n") */
	capture_reset();
	tm_dump_init(&d, capture);
	tm_dump_line(&d, "a");
	CHECK_EQ_U64(d.crc, ref_crc(0, "a\n", 2));
	CHECK_EQ_U64(d.crc, 0xddeaa107u);
	tm_dump_line(&d, "");
	CHECK_EQ_U64(d.crc, ref_crc(0, "a\n\n", 3));
	CHECK_EQ_U64(d.crc, 0xac6e7991u);
	tm_dump_end(&d, "ok", 0);
	CHECK_CONTAINS(wire, "\"lines\":3,");
}

/* With the length given, only those bytes count (no NUL needed); NULL
 * is a dropped line as for tm_dump_line. */
static void test_text_with_length(void)
{
	struct tm_dump d;

	capture_reset();
	tm_dump_init(&d, capture);
	tm_dump_text(&d, "{\"a\":1}XYZ", 7);
	CHECK_STR(wire, "@tm {\"a\":1}\n");
	CHECK_EQ_U64(d.crc, ref_crc(0, "{\"a\":1}\n", 8));
	CHECK_EQ_U64(d.lines, 1);
	tm_dump_text(&d, NULL, 5);
	CHECK_EQ_U64(d.dropped, 1);
	CHECK_EQ_U64(d.lines, 2);
	CHECK_CONTAINS(wire, "\n@tm " TM_DUMP_DROPPED "\n");
	CHECK_EQ_U64(d.crc, ref_crc(ref_crc(0, "{\"a\":1}\n", 8), TM_DUMP_DROPPED "\n",
				    sizeof(TM_DUMP_DROPPED)));
}

int main(void)
{
	RUN(test_check_value, "dump: CRC core check value and first line");
	RUN(test_lines_and_end, "dump: exact wire bytes, count, running CRC, end line");
	RUN(test_empty_dump, "dump: end line with no earlier lines");
	RUN(test_status_is_sealed, "dump: the status line is counted into the end CRC");
	RUN(test_dropped_line_counted, "dump: a line that did not fit is named and counted as dropped");
	RUN(test_known_crc, "dump: CRC of known lines vs constants");
	RUN(test_text_with_length, "dump: a line of known length, and a dropped one");
	return check_summary();
}
