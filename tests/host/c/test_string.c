/*
 * tests/host/c/test_string.c - unit tests for lib/string.c, compared
 * against the C library's equivalents.
 */
#include "tests/host/c/check.h"
#include "lib/string.h"

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void test_strlen(void)
{
	CHECK_EQ_U64(kstrlen(""), 0);
	CHECK_EQ_U64(kstrlen("a"), 1);
	CHECK_EQ_U64(kstrlen("hello world"), 11);
}

static void test_strcmp(void)
{
	static const char *const s[] = {
		"", "a", "b", "ab", "abc", "abd", "\x80", "\x7f", "abc\xff",
	};

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		for (size_t j = 0; j < sizeof(s) / sizeof(s[0]); j++) {
			CHECKF(sign(kstrcmp(s[i], s[j])) == sign(strcmp(s[i], s[j])),
			       "kstrcmp(%zu, %zu)", i, j);
			for (size_t n = 0; n < 6; n++)
				CHECKF(sign(kstrncmp(s[i], s[j], n)) ==
				       sign(strncmp(s[i], s[j], n)),
				       "kstrncmp(%zu, %zu, %zu)", i, j, n);
		}
	}
}

static void test_mem(void)
{
	unsigned char a[64], b[64];

	CHECK(kmemset(a, 0xab, sizeof(a)) == a);
	for (size_t i = 0; i < sizeof(a); i++)
		CHECK_EQ_U64(a[i], 0xab);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)(i * 7);
	CHECK(kmemcpy(a + 1, b, 10) == a + 1);
	CHECK(memcmp(a + 1, b, 10) == 0);
	CHECK_EQ_U64(a[0], 0xab);
	CHECK_EQ_U64(a[11], 0xab);
	CHECK(kmemcmp(a + 1, b, 10) == 0);
	CHECK(kmemcmp(a, b, 0) == 0);
	a[5] = 0xff;
	CHECK(sign(kmemcmp(a + 1, b, 10)) == sign(memcmp(a + 1, b, 10)));
	CHECK(kmemcmp(b, a + 1, 10) < 0);
}

/* Every length 0..40 at every offset 0..8 against libc, with the
 * bytes around untouched. */
static void test_mem_words(void)
{
	unsigned char a[64], b[64], want[64];

	for (size_t off = 0; off < 9; off++) {
		for (size_t n = 0; n <= 40; n++) {
			for (size_t i = 0; i < sizeof(b); i++)
				b[i] = (unsigned char)(i * 13 + 1);
			memset(a, 0x11, sizeof(a));
			memset(want, 0x11, sizeof(want));
			memset(want + off, 0xc3, n);
			kmemset(a + off, 0xc3, n);
			CHECKF(memcmp(a, want, sizeof(a)) == 0, "kmemset off %zu n %zu", off, n);
			memcpy(want + off, b + 3, n);
			kmemcpy(a + off, b + 3, n);
			CHECKF(memcmp(a, want, sizeof(a)) == 0, "kmemcpy off %zu n %zu", off, n);
		}
	}
}

int main(void)
{
	RUN(test_strlen, "string: kstrlen");
	RUN(test_strcmp, "string: kstrcmp/kstrncmp vs libc");
	RUN(test_mem, "string: kmemset/kmemcpy/kmemcmp");
	RUN(test_mem_words, "string: kmemset/kmemcpy a word a step, every length and offset");
	return check_summary();
}
