/*
 * tests/host/c/test_lava.c - unit tests for kernel/lava.c: the TM_LAVA line
 * shape the LAVA monitor pattern of `tools/trapmeter lava-job` reads, id
 * cleaning, overflow, and the on/off switch.
 */
#include "tests/host/c/check.h"
#include "kernel/lava.h"

static char out[4096];
static size_t out_len;

static void capture(const char *s, size_t n)
{
	if (out_len + n < sizeof(out)) {
		memcpy(out + out_len, s, n);
		out_len += n;
		out[out_len] = '\0';
	}
}

static void reset(bool enabled)
{
	out_len = 0;
	out[0] = '\0';
	lava_init(capture, enabled);
}

static void test_format(void)
{
	char buf[LAVA_LINE_MAX];

	CHECK_EQ_S64(lava_format(buf, sizeof(buf), "", "fwcfg.in8.rep.4096",
				 LAVA_PASS, 1250535, "cycles"), 77);
	CHECK_STR(buf, "TM_LAVA case=fwcfg.in8.rep.4096 result=pass measurement=1250535 units=cycles\n");
	CHECK(lava_format(buf, sizeof(buf), "check.", "fwcfg.blob", LAVA_FAIL, 0,
			  "none") > 0);
	CHECK_STR(buf, "TM_LAVA case=check.fwcfg.blob result=fail measurement=0 units=none\n");
	CHECK(lava_format(buf, sizeof(buf), "skip.", "exits.vmmcall", LAVA_SKIP,
			  0, NULL) > 0);
	CHECK_STR(buf, "TM_LAVA case=skip.exits.vmmcall result=skip measurement=0 units=none\n");
	CHECK(lava_format(buf, sizeof(buf), "x.", "", LAVA_PASS,
			  18446744073709551615ull, "") > 0);
	CHECK_STR(buf, "TM_LAVA case=x. result=pass measurement=18446744073709551615 units=none\n");
	CHECK(lava_format(buf, sizeof(buf), NULL, NULL, LAVA_PASS, 1, "u") > 0);
	CHECK_STR(buf, "TM_LAVA case=_ result=pass measurement=1 units=u\n");
}

static void test_id_cleaning(void)
{
	char buf[LAVA_LINE_MAX];

	/* spaces, tabs, newlines and non-ASCII would split or break the line */
	CHECK(lava_format(buf, sizeof(buf), "error.", "bad input\t\n\x80z",
			  LAVA_FAIL, 2, "status") > 0);
	CHECK_STR(buf, "TM_LAVA case=error.bad_input___z result=fail measurement=2 units=status\n");
	CHECK(lava_format(buf, sizeof(buf), "exception.", "#UD", LAVA_FAIL, 6,
			  "vector") > 0);
	CHECK_STR(buf, "TM_LAVA case=exception.#UD result=fail measurement=6 units=vector\n");
}

static void test_overflow(void)
{
	char buf[LAVA_LINE_MAX], small[20], name[200];

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(buf, 'X', sizeof(buf));
	CHECK_EQ_S64(lava_format(buf, sizeof(buf), "", name, LAVA_PASS, 1,
				 "cycles"), -EINVAL);
	CHECK_STR(buf, "");
	CHECK_EQ_S64(lava_format(small, sizeof(small), "", "abc", LAVA_PASS, 1,
				 "cycles"), -EINVAL);
	CHECK_STR(small, "");
	CHECK_EQ_S64(lava_format(buf, sizeof(buf), "", "a", (enum lava_result)7,
				 1, "cycles"), -EINVAL);
	CHECK_EQ_S64(lava_format(NULL, 0, "", "a", LAVA_PASS, 1, "c"), -EINVAL);
}

static void test_switch(void)
{
	reset(false);
	CHECK(!lava_enabled());
	lava_case("", "cpuid", LAVA_PASS, 50, "cycles");
	CHECK_EQ_U64(out_len, 0);

	reset(true);
	CHECK(lava_enabled());
	lava_case("", "cpuid", LAVA_PASS, 50, "cycles");
	lava_case("trapmeter.", "status", LAVA_FAIL, 1, "status");
	CHECK_STR(out, "TM_LAVA case=cpuid result=pass measurement=50 units=cycles\n"
		  "TM_LAVA case=trapmeter.status result=fail measurement=1 units=status\n");

	lava_init(NULL, true);		/* no writer: stays off */
	CHECK(!lava_enabled());
	lava_case("", "cpuid", LAVA_PASS, 50, "cycles");
}

int main(void)
{
	RUN(test_format, "lava: TM_LAVA line shape for results, checks, skips");
	RUN(test_id_cleaning, "lava: ids stay one printable word");
	RUN(test_overflow, "lava: too long lines and bad results are refused");
	RUN(test_switch, "lava: lines only when enabled with a writer");
	return check_summary();
}
