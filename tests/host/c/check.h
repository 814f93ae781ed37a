/*
 * tests/host/c/check.h - minimal assertion framework for the host unit
 * tests of the pure kernel library files.
 *
 * Build: `make host-tests`; the Makefile's HOST_DEPS_<name> lists the
 * files each tests/host/test_<name>.c links.
 *
 * Usage: write `static void test_foo(void)` functions using the CHECK
 * macros, and call RUN(test_foo, "module: what") for each from main(),
 * then `return check_summary();`.  Each RUN prints "ok - name" or
 * "not ok - name" followed by "#   file:line: message" details; the
 * binary exits nonzero if anything failed.
 */
#ifndef TESTS_HOST_CHECK_H
#define TESTS_HOST_CHECK_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_MAX_REPORTS 20	/* detail lines printed per test function */

static int check_cur_failures;
static int check_failed_tests;
static int check_total_tests;

__attribute__((format(printf, 4, 5), unused))
static bool check_fail(bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	if (check_cur_failures++ < CHECK_MAX_REPORTS) {
		printf("#   %s:%d: ", file, line);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	return false;
}

/* Each macro evaluates to true when the check passed. */
#define CHECK(cond) \
	check_fail(!!(cond), __FILE__, __LINE__, "CHECK(%s) failed", #cond)

#define CHECKF(cond, ...) \
	check_fail(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define CHECK_EQ_U64(a, b) __extension__({ \
	uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b); \
	check_fail(check_a_ == check_b_, __FILE__, __LINE__, \
		   "%s == %s: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64 \
		   " (0x%" PRIx64 ")", #a, #b, check_a_, check_a_, check_b_, \
		   check_b_); })

#define CHECK_EQ_S64(a, b) __extension__({ \
	int64_t check_a_ = (int64_t)(a), check_b_ = (int64_t)(b); \
	check_fail(check_a_ == check_b_, __FILE__, __LINE__, \
		   "%s == %s: got %" PRId64 ", want %" PRId64, #a, #b, \
		   check_a_, check_b_); })

#define CHECK_STR(a, b) __extension__({ \
	const char *check_a_ = (a), *check_b_ = (b); \
	check_fail(check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0, \
		   __FILE__, __LINE__, "%s == %s: got \"%s\", want \"%s\"", \
		   #a, #b, check_a_ ? check_a_ : "(NULL)", \
		   check_b_ ? check_b_ : "(NULL)"); })

#define CHECK_CONTAINS(hay, needle) __extension__({ \
	const char *check_h_ = (hay), *check_n_ = (needle); \
	check_fail(check_h_ && strstr(check_h_, check_n_) != NULL, \
		   __FILE__, __LINE__, "\"%s\" does not contain \"%s\"", \
		   check_h_ ? check_h_ : "(NULL)", check_n_); })

__attribute__((unused))
static void check_run(void (*fn)(void), const char *name)
{
	check_cur_failures = 0;
	fn();
	check_total_tests++;
	if (check_cur_failures) {
		check_failed_tests++;
		printf("not ok - %s (%d failed checks)\n", name, check_cur_failures);
	} else {
		printf("ok - %s\n", name);
	}
	fflush(stdout);
}

#define RUN(fn, name) check_run(fn, name)

__attribute__((unused))
static int check_summary(void)
{
	printf("# %d/%d tests passed\n", check_total_tests - check_failed_tests,
	       check_total_tests);
	return check_failed_tests ? 1 : 0;
}

#endif
