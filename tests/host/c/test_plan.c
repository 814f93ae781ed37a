/*
 * tests/host/c/test_plan.c - the fixed sample plan's parser (kernel/plan.c).
 */
#include "tests/host/c/check.h"
#include "kernel/plan.h"

static struct plan p;
static char err[160];

static int parse(const char *text)
{
	return plan_parse(text, strlen(text), &p, err, sizeof(err));
}

static void test_good(void)
{
	struct plan_entry *e;

	CHECK_EQ_S64(parse("pio fwcfg.in8.rep.4096 3 12\n\nexits cpuid 80 5"), 0);
	CHECK_EQ_U64(p.n, 2);
	e = plan_find(&p, "pio", "fwcfg.in8.rep.4096");
	CHECK(e && e->iters == 3 && e->samples == 12 && !e->used);
	e = plan_find(&p, "exits", "cpuid");
	CHECK(e && e->iters == 80 && e->samples == 5);
	CHECK(!plan_find(&p, "pio", "cpuid"));
	CHECK_EQ_S64(parse(""), 0);
	CHECK_EQ_U64(p.n, 0);
	CHECK_EQ_S64(parse("pio a 1000000 10000\n"), 0);
}

static void test_bad(void)
{
	static const char *const bad[] = {
		"pio a 0 5\n",              /* iters 0 */
		"pio a 1000001 5\n",        /* iters over the cap */
		"pio a 3 10001\n",          /* samples over the cap */
		"pio a 3\n",                /* a field missing */
		"pio a 3 5 9\n",            /* a field too many */
		"pio  a 3 5\n",             /* empty field */
		"pio a x3 5\n",             /* not a number */
		"pio a -3 5\n",
		"pio a 3 5\r\n",            /* CR is not part of a number */
		"p\x01o a 3 5\n",           /* control character in a name */
		"pio aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 3 5\n",
		"pio a 99999999999 5\n",
	};
	u32 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECKF(parse(bad[i]) == -EINVAL, "accepted %s", bad[i]);
		CHECK_CONTAINS(err, "plan line 1");
	}
	CHECK_EQ_S64(parse("pio a 1 1\npio a 2 2\n"), -EINVAL);
	CHECK_CONTAINS(err, "plan line 2: case a listed twice");
}

static void test_round_split(void)
{
	CHECK_EQ_U64(plan_round_samples(31, 1), 31);
	CHECK_EQ_U64(plan_round_samples(31, 4), 8);
	CHECK_EQ_U64(plan_round_samples(32, 4), 8);
	CHECK_EQ_U64(plan_round_samples(33, 4), 9);
	CHECK_EQ_U64(plan_round_samples(2, 4), 1);
	CHECK_EQ_U64(plan_round_samples(10000, 16), 625);
	CHECK_EQ_U64(plan_round_samples(7, 0), 7);
}

int main(void)
{
	RUN(test_good, "plan: lines parsed, entries found by suite and case");
	RUN(test_round_split, "plan: a case's samples split over rounds, rounded up");
	RUN(test_bad, "plan: every malformed line is an error naming it");
	return check_summary();
}
