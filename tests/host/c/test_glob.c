/*
 * tests/host/c/test_glob.c - unit tests for lib/glob.c: a table of
 * patterns and names, and a worst case for backtracking.
 */
#include "tests/host/c/check.h"
#include "lib/glob.h"

static void test_glob(void)
{
	static const struct { const char *p, *s; bool m; } g[] = {
		{ "", "", true }, { "", "a", false }, { "*", "", true },
		{ "*", "anything", true }, { "a", "a", true }, { "a", "b", false },
		{ "a", "ab", false }, { "ab", "a", false }, { "?", "x", true },
		{ "?", "", false }, { "??", "x", false }, { "a*", "abc", true },
		{ "*c", "abc", true }, { "*b*", "abc", true }, { "*x*", "abc", false },
		{ "a*b*c", "aXbYc", true }, { "a*b*c", "aXbYd", false },
		{ "a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false },
		{ "*a*a*a*a*a*a*", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true },
		{ "pio_*_b", "pio_in_b", true }, { "pio_*_b", "pio_in_w", false },
		{ "[abc]", "b", true }, { "[abc]", "d", false },
		{ "[a-z]x", "qx", true }, { "[a-z]x", "Qx", false },
		{ "[!a]", "a", false }, { "[!a]", "b", true }, { "[^a]", "b", true },
		{ "[!a-c]", "b", false }, { "[!a-c]", "z", true },
		{ "[]]", "]", true }, { "[]a]", "a", true }, { "[!]]", "]", false },
		{ "[a-]", "-", true }, { "[0-9][0-9]", "42", true },
		{ "x[0-9]*", "x7yz", true }, { "[", "[", true }, { "[a", "[a", true },
		{ "[a", "a", false }, { "*[0-9]", "abc9", true }, { "*[0-9]", "abc", false },
		{ "*?", "", false }, { "*?", "a", true }, { "**", "", true },
		{ "a**b", "ab", true }, { "exit_*", "exit_cpuid", true },
		{ "*_w", "pio_in_b", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(g); i++)
		CHECKF(glob_match(g[i].p, g[i].s) == g[i].m,
		       "glob '%s' vs '%s' should be %s", g[i].p, g[i].s,
		       g[i].m ? "true" : "false");
}

static void test_glob_long(void)
{
	static char s[20001], p[64];

	/* worst case for naive recursion: must finish quickly and correctly */
	memset(s, 'a', sizeof(s) - 1);
	strcpy(p, "*a*a*a*a*a*a*a*a*a*a*b");
	CHECK(!glob_match(p, s));
	s[sizeof(s) - 2] = 'b';
	CHECK(glob_match(p, s));
}

int main(void)
{
	RUN(test_glob, "glob: matching table");
	RUN(test_glob_long, "glob: backtracking stays linear-ish");
	return check_summary();
}
