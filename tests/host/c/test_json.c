/*
 * tests/host/c/test_json.c - unit tests for lib/json.c: exact output
 * strings, escaping, nesting, overflow handling, plus a small JSON
 * syntax checker run over everything produced.
 */
#include "tests/host/c/check.h"
#include "lib/json.h"
#include "lib/fmt.h"

/* ---- tiny strict JSON syntax checker (objects, strings, numbers, literals) */

static const char *js_value(const char *p);

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c >= 0x80)
			return NULL;		/* writer promises pure ASCII */
		if (c == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *js_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static const char *js_object(const char *p)
{
	if (*p++ != '{')
		return NULL;
	if (*p == '}')
		return p + 1;
	for (;;) {
		p = js_string(p);
		if (!p || *p++ != ':')
			return NULL;
		p = js_value(p);
		if (!p)
			return NULL;
		if (*p == '}')
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *js_value(const char *p)
{
	if (*p == '{')
		return js_object(p);
	if (*p == '"')
		return js_string(p);
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	return js_number(p);
}

static bool json_valid(const char *s)
{
	const char *end = s ? js_value(s) : NULL;

	return end && *end == '\0';
}

/* ---- tests */

static char buf[4096];
static struct jw w;

static void test_flat(void)
{
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_str(&w, "type", "case");
	jw_u64(&w, "a", 1);
	jw_u64(&w, "max", UINT64_MAX);
	jw_s64(&w, "neg", INT64_MIN);
	jw_s64(&w, "pos", 5);
	jw_bool(&w, "t", true);
	jw_bool(&w, "f", false);
	jw_null(&w, "n");
	jw_str(&w, "s0", NULL);
	jw_hex(&w, "port", 0x1f0);
	jw_hex(&w, "zero", 0);
	jw_hex(&w, "big", UINT64_MAX);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w),
		  "{\"type\":\"case\",\"a\":1,\"max\":18446744073709551615,"
		  "\"neg\":-9223372036854775808,\"pos\":5,\"t\":true,\"f\":false,"
		  "\"n\":null,\"s0\":null,\"port\":\"0x1f0\",\"zero\":\"0x0\","
		  "\"big\":\"0xffffffffffffffff\"}");
	CHECK(json_valid(buf));
	CHECK_EQ_U64(w.len, strlen(buf));
}

static void test_empty_and_nested(void)
{
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w), "{}");

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_u64(&w, "a", 1);
	jw_key_obj(&w, "b");
	jw_str(&w, "c", "x");
	jw_obj_end(&w);
	jw_key_obj(&w, "d");
	jw_obj_end(&w);
	jw_key_obj(&w, "e");
	jw_key_obj(&w, "f");
	jw_u64(&w, "g", 2);
	jw_obj_end(&w);
	jw_u64(&w, "h", 3);
	jw_obj_end(&w);
	jw_u64(&w, "i", 4);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w),
		  "{\"a\":1,\"b\":{\"c\":\"x\"},\"d\":{},\"e\":{\"f\":{\"g\":2},\"h\":3},\"i\":4}");
	CHECK(json_valid(buf));
}

static void test_escaping(void)
{
	char all[256];

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_str(&w, "q\"k", "a\"b\\c/d\n\t\x01\x1f\x7f\xc3\xa9");
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w),
		  "{\"q\\\"k\":\"a\\\"b\\\\c/d\\u000a\\u0009\\u0001\\u001f"
		  "\\u007f\\u00c3\\u00a9\"}");
	CHECK(json_valid(buf));

	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_str(&w, "all", all);
	jw_str(&w, "", "");
	jw_obj_end(&w);
	CHECK(jw_finish(&w) != NULL);
	CHECK(json_valid(buf));
	CHECK_CONTAINS(buf, "\\u001f !\\\"#$%&'()*+,-./0123456789:;<=>?@ABC");
	CHECK_CONTAINS(buf, "xyz{|}~\\u007f\\u0080");
	CHECK_CONTAINS(buf, "\\u00ff\",\"\":\"\"}");
}

static void test_decimals(void)
{
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_dec(&w, "a", 1234, 100, 2);
	jw_dec(&w, "b", 2, 3, 3);
	jw_dec(&w, "c", 5, 0, 2);
	jw_dec(&w, "d", 7, 2, 0);
	jw_dec(&w, "e", 0, 9, 1);
	jw_dec(&w, "f", UINT64_MAX, 1, 3);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w),
		  "{\"a\":12.34,\"b\":0.667,\"c\":null,\"d\":4,\"e\":0.0,"
		  "\"f\":18446744073709551615.000}");
	CHECK(json_valid(buf));
}

/* jw_dec writes its digits by hand: it must print what fmt_decimal does,
 * rounding included, over awkward numerators, denominators and places. */
static void test_dec_matches_fmt(void)
{
	static const u64 nums[] = { 0, 1, 5, 9, 10, 15, 95, 99, 995, 999, 1049, 1050, 123456789,
				    2445406, 92468194, 1755721683, UINT64_MAX / 7, UINT64_MAX };
	static const u64 dens[] = { 1, 2, 3, 7, 10, 1000, 2445406, 4097, 1ull << 40,
				    UINT64_MAX / 10, UINT64_MAX / 9, UINT64_MAX };
	char want[64], key[8] = "k";
	unsigned places;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(nums); i++)
		for (j = 0; j < ARRAY_SIZE(dens); j++)
			for (places = 0; places < 5; places++) {
				jw_init(&w, buf, sizeof(buf));
				jw_obj_begin(&w);
				jw_dec(&w, key, nums[i], dens[j], places);
				jw_obj_end(&w);
				fmt_decimal(want, sizeof(want), nums[i], dens[j], places);
				char line[96];
				snprintf(line, sizeof(line), "{\"k\":%s}", want);
				CHECK_STR(jw_finish(&w), line);
			}
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_hex(&w, "a", 0);
	jw_hex(&w, "b", 0x511);
	jw_hex(&w, "c", UINT64_MAX);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w), "{\"a\":\"0x0\",\"b\":\"0x511\",\"c\":\"0xffffffffffffffff\"}");
}

static void test_record(void)
{
	jw_record(&w, buf, sizeof(buf), "case");
	jw_str(&w, "suite", "pio");
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w), "{\"type\":\"case\",\"suite\":\"pio\"}");
}

static void test_u64s(void)
{
	static const u64 v[] = { 0, 7, UINT64_MAX };

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_u64s(&w, "a", v, 3);
	jw_u64s(&w, "b", v, 0);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w), "{\"a\":[0,7,18446744073709551615],\"b\":[]}");
}

static void test_overflow(void)
{
	static const char *const full = "{\"key\":\"value\",\"n\":12345}";
	size_t need = strlen(full) + 1;
	char small[64];

	for (size_t cap = 0; cap <= need + 2; cap++) {
		memset(small, '#', sizeof(small));
		jw_init(&w, cap ? small : NULL, cap);
		jw_obj_begin(&w);
		jw_str(&w, "key", "value");
		jw_u64(&w, "n", 12345);
		jw_obj_end(&w);
		const char *r = jw_finish(&w);
		if (cap >= need) {
			CHECKF(r == small && !strcmp(small, full), "cap %zu", cap);
		} else {
			CHECKF(r == NULL && w.overflow, "cap %zu should overflow", cap);
			if (cap)	/* still terminated inside the buffer */
				CHECKF(memchr(small, '\0', cap) != NULL, "cap %zu", cap);
		}
		CHECKF(cap >= sizeof(small) || small[cap] == '#',
		       "cap %zu: wrote past the end", cap);
	}
}

/* Every writer, escapes and arrays included, at every capacity: a line
 * that fits is exact, one that does not is NULL and never written past. */
static void build_mixed(char *b, size_t cap)
{
	static const u64 v[] = { 99, 100, 0 };

	jw_init(&w, b, cap);
	jw_obj_begin(&w);
	jw_str(&w, "k\"", "a\\b\x01" "c");
	jw_u64s(&w, "v", v, 3);
	jw_u64s(&w, "e", v, 0);
	jw_bool(&w, "t", true);
	jw_hex(&w, "p", 0x3f8);
	jw_dec(&w, "d", 1234, 100, 1);
	jw_s64(&w, "s", -42);
	jw_key_obj(&w, "o");
	jw_null(&w, "n");
	jw_obj_end(&w);
	jw_obj_end(&w);
}

static void test_overflow_mixed(void)
{
	static const char *const full =
		"{\"k\\\"\":\"a\\\\b\\u0001c\",\"v\":[99,100,0],\"e\":[],\"t\":true,"
		"\"p\":\"0x3f8\",\"d\":12.3,\"s\":-42,\"o\":{\"n\":null}}";
	size_t need = strlen(full) + 1;
	char small[128];

	build_mixed(buf, sizeof(buf));
	CHECK_STR(jw_finish(&w), full);
	for (size_t cap = 0; cap <= need + 2; cap++) {
		memset(small, '#', sizeof(small));
		build_mixed(cap ? small : NULL, cap);
		const char *r = jw_finish(&w);
		if (cap >= need)
			CHECKF(r == small && !strcmp(small, full), "cap %zu", cap);
		else
			CHECKF(r == NULL && w.overflow, "cap %zu should overflow", cap);
		CHECKF(cap >= sizeof(small) || small[cap] == '#',
		       "cap %zu: wrote past the end", cap);
	}
}

/* Two digits a division: every length, and both sides of every power of
 * ten, as printf writes them. */
static void test_digits(void)
{
	char want[32];
	u64 p = 1;

	for (int k = 0; k < 20; k++, p *= 10) {
		const u64 vals[] = { p - 1, p, p + 1, p * 5 + 7 };

		for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
			jw_init(&w, buf, sizeof(buf));
			jw_obj_begin(&w);
			jw_u64(&w, "k", vals[i]);
			jw_obj_end(&w);
			snprintf(want, sizeof(want), "{\"k\":%llu}", (unsigned long long)vals[i]);
			CHECK_STR(jw_finish(&w), want);
		}
	}
	for (u64 v = 0; v < 1000; v++) {
		jw_init(&w, buf, sizeof(buf));
		jw_obj_begin(&w);
		jw_u64s(&w, "a", &v, 1);
		jw_obj_end(&w);
		snprintf(want, sizeof(want), "{\"a\":[%llu]}", (unsigned long long)v);
		CHECK_STR(jw_finish(&w), want);
	}
}

static void test_misuse(void)
{
	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_u64(&w, "a", 1);
	CHECK(jw_finish(&w) == NULL);		/* unclosed object */

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_obj_end(&w);
	CHECK(jw_finish(&w) == NULL);		/* one '}' too many */

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	for (int i = 0; i < JW_MAX_DEPTH - 1; i++)
		jw_key_obj(&w, "k");
	for (int i = 0; i < JW_MAX_DEPTH; i++)
		jw_obj_end(&w);
	CHECK_STR(jw_finish(&w), "{\"k\":{\"k\":{\"k\":{\"k\":{\"k\":{\"k\":{}}}}}}}");
	CHECK(json_valid(buf));

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	for (int i = 0; i < JW_MAX_DEPTH; i++)
		jw_key_obj(&w, "k");
	for (int i = 0; i <= JW_MAX_DEPTH; i++)
		jw_obj_end(&w);
	CHECK(jw_finish(&w) == NULL);		/* too deep */
}

static void test_init_writes_nothing(void)
{
	memset(buf, '#', 8);
	jw_init(&w, buf, sizeof(buf));
	CHECK(buf[0] == '#');
	CHECK_EQ_U64(w.len, 0);
	CHECK(!w.overflow);
}

/* The forms irq's deadline_late and virtio's virtio_kicks sides had when
 * each wrote its keys by hand: jw_stats must write them byte for byte. */
static void test_stats(void)
{
	const struct stats st = { .n = 7, .min = 10, .p10 = 11, .median = 20,
				  .p90 = 30, .p99 = 31, .max = 40, .mean = 21,
				  .stddev = 5 };

	jw_init(&w, buf, sizeof(buf));
	jw_obj_begin(&w);
	jw_u64(&w, "a", 1);
	jw_stats(&w, "all", &st, JW_STATS_N | JW_STATS_MIN | JW_STATS_P10 |
		 JW_STATS_MEDIAN | JW_STATS_P90 | JW_STATS_MAX);
	jw_stats(&w, "pair", &st, JW_STATS_P90 | JW_STATS_MEDIAN |
		 JW_STATS_P10 | JW_STATS_MIN);
	jw_stats(&w, "none", &st, 0);
	jw_obj_end(&w);
	CHECK_STR(jw_finish(&w),
		  "{\"a\":1,\"all\":{\"n\":7,\"min\":10,\"p10\":11,"
		  "\"median\":20,\"p90\":30,\"max\":40},\"pair\":{\"min\":10,"
		  "\"p10\":11,\"median\":20,\"p90\":30},\"none\":{}}");
}

int main(void)
{
	RUN(test_flat, "json: flat object, every value type");
	RUN(test_empty_and_nested, "json: empty and nested objects");
	RUN(test_escaping, "json: escaping of quotes, backslash, control and high bytes");
	RUN(test_decimals, "json: jw_dec numbers and null");
	RUN(test_dec_matches_fmt, "json: jw_dec and jw_hex by hand agree with fmt");
	RUN(test_u64s, "json: arrays of unsigned integers");
	RUN(test_record, "json: jw_record starts a record with its type");
	RUN(test_overflow, "json: overflow at every capacity");
	RUN(test_overflow_mixed, "json: every writer at every capacity");
	RUN(test_digits, "json: decimal digits of every length");
	RUN(test_misuse, "json: unbalanced and too-deep nesting");
	RUN(test_init_writes_nothing, "json: jw_init writes nothing");
	RUN(test_stats, "json: jw_stats writes a stats block's members in order");
	return check_summary();
}
