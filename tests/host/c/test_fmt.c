/*
 * tests/host/c/test_fmt.c - unit tests for lib/fmt.c.  Every integer,
 * string, char and pointer conversion is compared byte for byte against
 * the C library's snprintf over a generated table of flags, widths,
 * precisions, length modifiers and boundary values.
 */
#include "tests/host/c/check.h"
#include "lib/fmt.h"

#include <sys/types.h>

#define OUT_SIZE 512

static long compared;

/*
 * Hide a literal from gcc's compile-time format checks, for cases that are
 * well defined at run time but that -Wformat rightly flags as odd.
 */
__attribute__((noinline)) static const char *rt(const char *s)
{
	return s;
}

/* Compare ours vs libc for one already-built format and one argument. */
#define COMPARE(fmt, ...) __extension__({ \
	char want_[OUT_SIZE], got_[OUT_SIZE]; \
	int wn_ = snprintf(want_, sizeof(want_), fmt, __VA_ARGS__); \
	int gn_ = fmt_snprintf(got_, sizeof(got_), fmt, __VA_ARGS__); \
	compared++; \
	CHECKF(wn_ == gn_ && wn_ >= 0 && wn_ < OUT_SIZE && \
	       memcmp(want_, got_, (size_t)wn_ + 1) == 0, \
	       "format \"%s\": got %d \"%s\", want %d \"%s\"", fmt, gn_, \
	       got_, wn_, want_); })

static const uint64_t int_values[] = {
	0, 1, 2, 7, 8, 9, 10, 15, 16, 42, 99, 100, 127, 128, 255, 256,
	1000, 4095, 32767, 32768, 65535, 65536, 123456789,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x123456789abcdef0ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
	0xfffffffffffffffeull, 0xffffffffffffffffull,
	(uint64_t)-2, (uint64_t)-7, (uint64_t)-42, (uint64_t)-128,
	(uint64_t)-129, (uint64_t)-32768, (uint64_t)-32769,
	(uint64_t)-2147483647, (uint64_t)(-2147483647 - 1), (uint64_t)-1000000000000ll,
};

static const char *const len_mods[] = { "", "hh", "h", "l", "ll", "z", "j", "t" };

/* Pass v with exactly the type the length modifier/conversion expects. */
static void compare_int(const char *fmt, const char *len, bool is_signed,
			uint64_t v)
{
	if (!strcmp(len, "") || !strcmp(len, "hh") || !strcmp(len, "h")) {
		if (is_signed)
			COMPARE(fmt, (int)(uint32_t)v);
		else
			COMPARE(fmt, (unsigned int)v);
	} else if (!strcmp(len, "l")) {
		if (is_signed)
			COMPARE(fmt, (long)v);
		else
			COMPARE(fmt, (unsigned long)v);
	} else if (!strcmp(len, "ll")) {
		if (is_signed)
			COMPARE(fmt, (long long)v);
		else
			COMPARE(fmt, (unsigned long long)v);
	} else if (!strcmp(len, "z")) {
		if (is_signed)
			COMPARE(fmt, (ssize_t)v);
		else
			COMPARE(fmt, (size_t)v);
	} else if (!strcmp(len, "j")) {
		if (is_signed)
			COMPARE(fmt, (intmax_t)v);
		else
			COMPARE(fmt, (uintmax_t)v);
	} else {
		COMPARE(fmt, (ptrdiff_t)v);
	}
}

/* All 32 subsets of the flag characters, in a fixed order. */
static void flag_string(unsigned mask, char *out)
{
	static const char flags[] = "-0+ #";

	for (unsigned i = 0; i < 5; i++) {
		if (mask & (1u << i))
			*out++ = flags[i];
	}
	*out = '\0';
}

static const char *const widths[] = { "", "1", "6", "25" };
static const char *const precs[] = { "", ".", ".0", ".1", ".4", ".22" };

static void test_integers(void)
{
	static const char convs[] = "diuxXo";
	char flags[8], fmt[64];

	for (unsigned f = 0; f < 32; f++) {
		flag_string(f, flags);
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++)
		for (size_t p = 0; p < ARRAY_SIZE(precs); p++)
		for (size_t l = 0; l < ARRAY_SIZE(len_mods); l++)
		for (const char *c = convs; *c; c++) {
			snprintf(fmt, sizeof(fmt), "[%%%s%s%s%s%c]", flags,
				 widths[w], precs[p], len_mods[l], *c);
			for (size_t v = 0; v < ARRAY_SIZE(int_values); v++)
				compare_int(fmt, len_mods[l], *c == 'd' || *c == 'i',
					    int_values[v]);
		}
	}
}

static void test_extremes(void)
{
	COMPARE("%lld|%llu|%llx|%llo", (long long)INT64_MIN,
		(unsigned long long)UINT64_MAX, (unsigned long long)UINT64_MAX,
		(unsigned long long)UINT64_MAX);
	COMPARE("%d|%d|%u", INT32_MIN, INT32_MAX, UINT32_MAX);
	COMPARE("%+030lld|%-30lld|% lld", (long long)INT64_MIN,
		(long long)INT64_MIN, (long long)INT64_MAX);
	COMPARE("%#.30llo|%#030llX", (unsigned long long)UINT64_MAX,
		(unsigned long long)UINT64_MAX);
	/* exact expectations, independent of libc */
	char buf[64];
	fmt_snprintf(buf, sizeof(buf), "%lld", (long long)INT64_MIN);
	CHECK_STR(buf, "-9223372036854775808");
	fmt_snprintf(buf, sizeof(buf), "%llu", (unsigned long long)UINT64_MAX);
	CHECK_STR(buf, "18446744073709551615");
	fmt_snprintf(buf, sizeof(buf), "%#llo", (unsigned long long)UINT64_MAX);
	CHECK_STR(buf, "01777777777777777777777");
	fmt_snprintf(buf, sizeof(buf), "[%05d][%-5d][%+d][% d][%#x][%#o]",
		     -42, 42, 0, 7, 255, 8);
	CHECK_STR(buf, "[-0042][42   ][+0][ 7][0xff][010]");
	fmt_snprintf(buf, sizeof(buf), "[%.0d][%#.0o][%#x][%.3d]", 0, 0, 0, -5);
	CHECK_STR(buf, "[][0][0][-005]");
}

static void test_strings(void)
{
	static const char *const strs[] = {
		"", "a", "hello", "hello, world", "tab\there", NULL,
	};
	static const char *const sflags[] = { "", "-", "0", "-0", "+", " ", "#" };
	static const char *const sw[] = { "", "1", "5", "6", "7", "20" };
	static const char *const sp[] = { "", ".", ".0", ".1", ".3", ".5", ".6", ".7", ".40" };
	char fmt[64];

	for (size_t f = 0; f < ARRAY_SIZE(sflags); f++)
	for (size_t w = 0; w < ARRAY_SIZE(sw); w++)
	for (size_t p = 0; p < ARRAY_SIZE(sp); p++) {
		snprintf(fmt, sizeof(fmt), "<%%%s%s%ss>", sflags[f], sw[w], sp[p]);
		for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
			COMPARE(fmt, strs[i]);
	}
}

static void test_string_precision_bounds(void)
{
	/* precision must stop reading: the array has no NUL terminator */
	char raw[3] = { 'x', 'y', 'z' };
	char buf[16];

	CHECK_EQ_S64(fmt_snprintf(buf, sizeof(buf), "%.3s|%.*s", raw, 2, raw), 6);
	CHECK_STR(buf, "xyz|xy");
	CHECK_EQ_S64(fmt_snprintf(buf, sizeof(buf), "%s", rt(NULL)), 6);
	CHECK_STR(buf, "(null)");
}

static void test_chars(void)
{
	static const int chars[] = { 'a', 'Z', ' ', '%', 0, 127, 128, 255, 0x141, -1 };
	static const char *const cf[] = {
		"%c", "%5c", "%-5c", "%05c", "%1c", "%.0c", "%-1c", "[%3c|%-3c]",
	};

	for (size_t f = 0; f < ARRAY_SIZE(cf); f++) {
		for (size_t i = 0; i < ARRAY_SIZE(chars); i++) {
			if (strchr(cf[f], '|'))
				COMPARE(cf[f], chars[i], chars[i]);
			else
				COMPARE(cf[f], chars[i]);
		}
	}
}

static void test_pointers(void)
{
	static const uintptr_t ptrs[] = {
		0, 1, 0xf, 0x1234, 0xdeadbeef, 0x7fffffffffffull,
		0xffffffff80000000ull, UINTPTR_MAX,
	};
	char flags[8], fmt[64];

	for (unsigned f = 0; f < 32; f++) {
		flag_string(f, flags);
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++)
		for (size_t p = 0; p < ARRAY_SIZE(precs); p++) {
			snprintf(fmt, sizeof(fmt), "{%%%s%s%sp}", flags,
				 widths[w], precs[p]);
			for (size_t i = 0; i < ARRAY_SIZE(ptrs); i++)
				COMPARE(fmt, (void *)ptrs[i]);
		}
	}
}

static void test_star(void)
{
	static const int ws[] = { 0, 1, 5, 12, -1, -5, -12 };
	static const int ps[] = { -10, -1, 0, 1, 3, 8 };

	for (size_t w = 0; w < ARRAY_SIZE(ws); w++) {
		for (size_t p = 0; p < ARRAY_SIZE(ps); p++) {
			COMPARE("[%*.*d]", ws[w], ps[p], -123);
			COMPARE(rt("[%0*.*x]"), ws[w], ps[p], 0xabcu);
			COMPARE("[%-*.*s]", ws[w], ps[p], "strings");
			COMPARE("[%*d|%.*d]", ws[w], 77, ps[p], 77);
			COMPARE("[%0*d]", ws[w], -9);
			COMPARE("[%*s]", ws[w], "s");
			COMPARE("[%.*s]", ps[p], "abcdefghij");
		}
	}
}

static void test_mixed(void)
{
	COMPARE("%%|%d%%|x%sy", 5, "mid");
	COMPARE("a=%d b=%u c=%x d=%s e=%c f=%p g=%%", -1, 2u, 0x3fu, "four", '5',
		(void *)0x6000);
	COMPARE("%hhd %hhu %hd %hu", 300, 300u, 70000, 70000u);
	COMPARE("%zu %zd %td %jd %ju", (size_t)123, (ssize_t)-123,
		(ptrdiff_t)-456, (intmax_t)INT64_MIN, (uintmax_t)UINT64_MAX);
	COMPARE("%s", "no conversions at all");
	COMPARE("%i|%5i|%-5i|%05i", 1, 2, 3, -4);
}

static void test_truncation(void)
{
	char want[32], got[32];

	for (size_t size = 0; size < 24; size++) {
		memset(want, '#', sizeof(want));
		memset(got, '#', sizeof(got));
		int wn = snprintf(size ? want : NULL, size, "%d-%s-%04x", -12345,
				  "abc", 0xbeefu);
		int gn = fmt_snprintf(size ? got : NULL, size, "%d-%s-%04x",
				      -12345, "abc", 0xbeefu);
		CHECK_EQ_S64(gn, wn);
		CHECKF(memcmp(want, got, sizeof(want)) == 0,
		       "size %zu: got \"%.*s\" want \"%.*s\"", size,
		       (int)size, got, (int)size, want);
	}
	got[0] = 'q';
	CHECK_EQ_S64(fmt_snprintf(got, 1, "hello"), 5);
	CHECK_EQ_U64((unsigned char)got[0], 0);
}

struct sink {
	char buf[64];
	size_t n;
};

static void sink_put(char c, void *arg)
{
	struct sink *s = arg;

	if (s->n < sizeof(s->buf))
		s->buf[s->n] = c;
	s->n++;
}

static int sink_format(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_format(sink_put, s, fmt, ap);
	va_end(ap);
	return n;
}

static void test_format_callback(void)
{
	struct sink s = { .n = 0 };
	int n = sink_format(&s, "%s=%d%c", "k", 42, '\0');

	CHECK_EQ_S64(n, 5);
	CHECK_EQ_U64(s.n, 5);
	CHECK(memcmp(s.buf, "k=42\0", 5) == 0);
}

/* Independent reference: one 128-bit division of num * 10^places. */
static void decimal_ref(char *out, uint64_t num, uint64_t den, unsigned places)
{
	unsigned __int128 scale = 1, t, q, r;

	for (unsigned i = 0; i < places; i++)
		scale *= 10;
	t = (unsigned __int128)num * scale;
	q = t / den;
	r = t % den;
	if (2 * r >= den)
		q++;
	if (places)
		sprintf(out, "%" PRIu64 ".%0*" PRIu64, (uint64_t)(q / scale),
			(int)places, (uint64_t)(q % scale));
	else
		sprintf(out, "%" PRIu64, (uint64_t)q);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_decimal(void)
{
	static const struct {
		uint64_t num, den;
		unsigned places;
		const char *want;
	} cases[] = {
		{ 1234, 100, 2, "12.34" }, { 1, 3, 3, "0.333" }, { 2, 3, 3, "0.667" },
		{ 1, 2, 0, "1" }, { 5, 1000, 2, "0.01" }, { 4, 1000, 2, "0.00" },
		{ 0, 5, 2, "0.00" }, { 999, 1000, 2, "1.00" }, { 7, 1, 0, "7" },
		{ 7, 1, 3, "7.000" }, { 1, 0, 2, "null" }, { 0, 0, 0, "null" },
		{ UINT64_MAX, 1, 0, "18446744073709551615" },
		{ UINT64_MAX, 1, 2, "18446744073709551615.00" },
		{ UINT64_MAX, UINT64_MAX, 19, "1.0000000000000000000" },
		{ 1, 3, 19, "0.3333333333333333333" },
		{ 2, 3, 25, "0.6666666666666666667" },	/* clamped to 19 */
		{ UINT64_MAX, 2, 1, "9223372036854775807.5" },
		{ UINT64_MAX, 2, 0, "9223372036854775808" },
		{ 15, 10, 0, "2" }, { 25, 10, 0, "3" }, { 125, 1000, 2, "0.13" },
	};
	char buf[64], ref[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int n = fmt_decimal(buf, sizeof(buf), cases[i].num, cases[i].den,
				    cases[i].places);
		CHECK_STR(buf, cases[i].want);
		CHECK_EQ_S64(n, (int64_t)strlen(cases[i].want));
	}
	for (int i = 0; i < 200000; i++) {
		uint64_t num = rng() >> (rng() % 64);
		uint64_t den = (rng() >> (rng() % 64)) | 1;
		unsigned places = (unsigned)(rng() % 20);

		if (num / den == UINT64_MAX)
			continue;
		fmt_decimal(buf, sizeof(buf), num, den, places);
		decimal_ref(ref, num, den, places);
		CHECKF(!strcmp(buf, ref), "%" PRIu64 "/%" PRIu64 " @%u: got %s want %s",
		       num, den, places, buf, ref);
	}
	CHECK_EQ_S64(fmt_decimal(buf, 4, 1234, 100, 2), 5);
	CHECK_STR(buf, "12.");
	CHECK_EQ_S64(fmt_decimal(NULL, 0, 1, 0, 2), 4);
}

int main(void)
{
	RUN(test_integers, "fmt: integers vs libc (flags x width x precision x length x value)");
	RUN(test_extremes, "fmt: INT64_MIN/UINT64_MAX and exact strings");
	RUN(test_strings, "fmt: %s vs libc incl. NULL and precision");
	RUN(test_string_precision_bounds, "fmt: %.Ns reads at most N bytes");
	RUN(test_chars, "fmt: %c vs libc");
	RUN(test_pointers, "fmt: %p vs libc");
	RUN(test_star, "fmt: '*' width and precision vs libc");
	RUN(test_mixed, "fmt: mixed formats vs libc");
	RUN(test_truncation, "fmt: snprintf truncation and return value");
	RUN(test_format_callback, "fmt: fmt_format callback and count");
	RUN(test_decimal, "fmt: fmt_decimal vs 128-bit division reference");
	printf("# %ld libc comparisons\n", compared);
	return check_summary();
}
