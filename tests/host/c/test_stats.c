/*
 * tests/host/c/test_stats.c - unit tests for lib/stats.c: hand-computed
 * values plus comparisons against qsort and a brute-force long double
 * reference (floating point is fine here, only kernel code avoids it).
 */
#include "tests/host/c/check.h"
#include "lib/stats.h"

typedef unsigned __int128 u128;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static long double ld_sqrt(long double x)
{
	long double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		long double next = (r + x / r) / 2;

		if (next >= r)
			break;
		r = next;
	}
	return r;
}

/*
 * Round to nearest, halves up; *tie set when x is too close to a .5
 * boundary for long double rounding errors to be ruled out.
 */
static uint64_t ld_round(long double x, bool *tie)
{
	long double f = x - (long double)(uint64_t)x;

	if (f > 0.5L - 1e-4L && f < 0.5L + 1e-4L)
		*tie = true;
	return (uint64_t)(x + 0.5L);
}

static void fill(uint64_t *v, uint32_t n, int pattern)
{
	for (uint32_t i = 0; i < n; i++) {
		switch (pattern) {
		case 0: v[i] = rng(); break;
		case 1: v[i] = i; break;
		case 2: v[i] = n - i; break;
		case 3: v[i] = 42; break;
		case 4: v[i] = rng() % 5; break;
		case 5: v[i] = (rng() & 1) ? UINT64_MAX : 0; break;
		default: v[i] = 1000 + rng() % 300 + ((rng() % 50) ? 0 : rng() % 100000); break;
		}
	}
}

static void test_sort(void)
{
	static const uint32_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 16, 17, 63, 64, 65, 100, 1000,
					  100000 };
	uint64_t *v = malloc(100000 * sizeof(*v)), *w = malloc(100000 * sizeof(*w));

	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (int pat = 0; pat < 8; pat++) {
			uint32_t n = sizes[s];

			fill(v, n, pat);
			if (pat == 7) {		/* a checkpoint's sorted run, new samples after */
				qsort(v, n - n / 3, sizeof(*v), cmp_u64);
			}
			if (n)
				memcpy(w, v, n * sizeof(*v));
			stats_sort(v, n);
			if (n)
				qsort(w, n, sizeof(*w), cmp_u64);
			CHECKF(!n || memcmp(v, w, n * sizeof(*v)) == 0,
			       "n=%u pattern=%d not sorted like qsort", n, pat);
		}
	}
	free(v);
	free(w);
}

static void test_percentile_hand(void)
{
	uint64_t ten[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	uint64_t four[4] = { 1, 2, 3, 4 };
	uint64_t two[2] = { 10, 20 };
	uint64_t odd[2] = { 0, 3 };
	uint64_t one[1] = { 77 };
	uint64_t big[2] = { UINT64_MAX - 10, UINT64_MAX };

	CHECK_EQ_U64(stats_percentile(ten, 10, 100), 2);	/* 1.9 */
	CHECK_EQ_U64(stats_percentile(ten, 10, 500), 6);	/* 5.5 */
	CHECK_EQ_U64(stats_percentile(ten, 10, 900), 9);	/* 9.1 */
	CHECK_EQ_U64(stats_percentile(ten, 10, 990), 10);	/* 9.91 */
	CHECK_EQ_U64(stats_percentile(ten, 10, 0), 1);
	CHECK_EQ_U64(stats_percentile(ten, 10, 1000), 10);
	CHECK_EQ_U64(stats_percentile(ten, 10, 5000), 10);	/* clamped */
	CHECK_EQ_U64(stats_percentile(ten, 10, 250), 3);	/* 3.25 */
	CHECK_EQ_U64(stats_percentile(four, 4, 500), 3);	/* 2.5 */
	CHECK_EQ_U64(stats_percentile(four, 4, 100), 1);	/* 1.3 */
	CHECK_EQ_U64(stats_percentile(two, 2, 500), 15);
	CHECK_EQ_U64(stats_percentile(two, 2, 990), 20);	/* 19.9 */
	CHECK_EQ_U64(stats_percentile(two, 2, 10), 10);		/* 10.1 */
	CHECK_EQ_U64(stats_percentile(odd, 2, 500), 2);		/* 1.5 */
	CHECK_EQ_U64(stats_percentile(one, 1, 990), 77);
	CHECK_EQ_U64(stats_percentile(NULL, 0, 500), 0);
	CHECK_EQ_U64(stats_percentile(big, 2, 500), UINT64_MAX - 5);
	CHECK_EQ_U64(stats_percentile(big, 2, 999), UINT64_MAX);	/* 9.98 */
}

/* numpy 'linear': v[lo] + (v[lo+1] - v[lo]) * frac, rank (n-1)*p/100 */
static void test_percentile_ref(void)
{
	static const uint32_t pcts[] = { 0, 1, 100, 250, 500, 750, 900, 990, 999, 1000 };
	static uint64_t v[5000];

	for (int iter = 0; iter < 300; iter++) {
		uint32_t n = 1 + (uint32_t)(rng() % ARRAY_SIZE(v));

		for (uint32_t i = 0; i < n; i++)
			v[i] = rng() >> (24 + rng() % 40);
		qsort(v, n, sizeof(v[0]), cmp_u64);
		for (size_t p = 0; p < ARRAY_SIZE(pcts); p++) {
			uint64_t rank = (uint64_t)(n - 1) * pcts[p];
			uint32_t lo = (uint32_t)(rank / 1000);
			uint32_t hi = lo + 1 < n ? lo + 1 : lo;
			long double frac = (long double)(rank % 1000) / 1000.0L;
			long double add = (long double)(v[hi] - v[lo]) * frac;
			bool tie = false;
			uint64_t w = v[lo] + ld_round(add, &tie);

			if (tie)
				continue;
			CHECKF(stats_percentile(v, n, pcts[p]) == w,
			       "n=%u pct=%u got %" PRIu64 " want %" PRIu64, n,
			       pcts[p], stats_percentile(v, n, pcts[p]), w);
		}
	}
}

static void test_compute_hand(void)
{
	uint64_t a[8] = { 9, 2, 4, 4, 5, 7, 4, 5 };
	uint64_t b[4] = { 3, 0, 0, 0 };
	uint64_t c[2] = { 2, 1 };
	uint64_t d[1] = { 5 };
	uint64_t e[3] = { 10, 10, 10 };
	uint64_t f[4] = { 4, 3, 2, 1 };
	struct stats s;

	stats_compute(a, 8, &s);
	CHECK_EQ_U64(s.n, 8);
	CHECK_EQ_U64(s.min, 2);
	CHECK_EQ_U64(s.max, 9);
	CHECK_EQ_U64(s.mean, 5);
	CHECK_EQ_U64(s.stddev, 2);		/* sqrt(32/7) = 2.138 */
	CHECK_EQ_U64(s.median, 5);		/* 4.5 rounds up */
	CHECK_EQ_U64(s.p10, 3);			/* 2 + 0.7 * 2 = 3.4 */
	CHECK_EQ_U64(s.p90, 8);			/* 7 + 0.3 * 2 = 7.6 */
	CHECK_EQ_U64(s.p99, 9);			/* 7 + 0.93 * 2 = 8.86 */
	CHECK(a[0] == 2 && a[7] == 9);		/* sorted in place */

	stats_compute(b, 4, &s);
	CHECK_EQ_U64(s.mean, 1);		/* 0.75 */
	CHECK_EQ_U64(s.stddev, 2);		/* exactly 1.5, rounds up */
	stats_compute(c, 2, &s);
	CHECK_EQ_U64(s.mean, 2);		/* 1.5 */
	CHECK_EQ_U64(s.stddev, 1);		/* 0.707 */
	stats_compute(d, 1, &s);
	CHECK(s.n == 1 && s.min == 5 && s.max == 5 && s.mean == 5 &&
	      s.median == 5 && s.p99 == 5 && s.stddev == 0);
	stats_compute(e, 3, &s);
	CHECK(s.mean == 10 && s.stddev == 0);
	stats_compute(f, 4, &s);
	CHECK_EQ_U64(s.mean, 3);		/* 2.5 */
	CHECK_EQ_U64(s.stddev, 1);		/* 1.29 */

	/* just below a .5 boundary: sqrt(0.2) = 0.447, sqrt(6.2) = 2.49, 5.495 */
	{
		uint64_t g[5] = { 0, 0, 0, 0, 1 };
		uint64_t h[5] = { 5, 0, 4, 0, 0 };
		uint64_t k[5] = { 0, 12, 0, 7, 0 };

		stats_compute(g, 5, &s);
		CHECK_EQ_U64(s.stddev, 0);
		stats_compute(h, 5, &s);
		CHECK_EQ_U64(s.stddev, 2);
		stats_compute(k, 5, &s);
		CHECK_EQ_U64(s.stddev, 5);
	}

	memset(&s, 0xff, sizeof(s));
	stats_compute(NULL, 0, &s);
	CHECK(s.n == 0 && s.min == 0 && s.p10 == 0 && s.median == 0 &&
	      s.p90 == 0 && s.p99 == 0 && s.max == 0 && s.mean == 0 &&
	      s.stddev == 0);
}

/*
 * Two-pass long double mean and sample stddev; the mean is returned as
 * *base (the minimum) + *mean so large values keep their precision.
 */
static void ref_moments(const uint64_t *v, uint32_t n, uint64_t *basep,
			long double *mean, long double *sd)
{
	uint64_t base = v[0];
	long double m = 0, ss = 0;

	for (uint32_t i = 1; i < n; i++)
		base = v[i] < base ? v[i] : base;
	*basep = base;
	for (uint32_t i = 0; i < n; i++)
		m += (long double)(v[i] - base);
	m /= n;
	for (uint32_t i = 0; i < n; i++) {
		long double d = (long double)(v[i] - base) - m;

		ss += d * d;
	}
	*mean = m;
	*sd = n > 1 ? ld_sqrt(ss / (n - 1)) : 0;
}

static void test_compute_ref(void)
{
	static uint64_t v[20000];
	long double mean, sd;
	struct stats s;
	int skipped = 0;

	for (int iter = 0; iter < 400; iter++) {
		uint32_t n = 1 + (uint32_t)(rng() % ARRAY_SIZE(v));
		/* spread below 2^44; every 4th round sits just below 2^64 */
		uint64_t base = (iter % 4 == 3) ? (UINT64_MAX - (1ull << 50)) : 0;
		uint64_t min;
		bool tie = false;

		for (uint32_t i = 0; i < n; i++)
			v[i] = base + 1000 + rng() % (1 + (rng() >> (20 + iter % 40)));
		ref_moments(v, n, &min, &mean, &sd);
		stats_compute(v, n, &s);
		uint64_t want_mean = min + ld_round(mean, &tie);
		uint64_t want_sd = ld_round(sd, &tie);
		if (tie) {
			skipped++;
			continue;
		}
		CHECKF(s.mean == want_mean, "n=%u mean got %" PRIu64 " want %" PRIu64,
		       n, s.mean, want_mean);
		CHECKF(s.stddev == want_sd, "n=%u sd got %" PRIu64 " want %" PRIu64,
		       n, s.stddev, want_sd);
		CHECK(s.min == v[0] && s.max == v[n - 1]);
		CHECK_EQ_U64(s.median, stats_percentile(v, n, 500));
	}
	CHECK(skipped < 10);
}

/* Ranges too large for exact integer sums: relative error must be tiny. */
static void test_compute_huge(void)
{
	uint64_t two[2] = { 0, UINT64_MAX };
	static uint64_t v[100000];
	long double mean, sd;
	uint64_t min;
	struct stats s;

	stats_compute(two, 2, &s);
	CHECK_EQ_U64(s.mean, 1ull << 63);	/* 2^63 - 0.5 rounds up */
	ref_moments(two, 2, &min, &mean, &sd);
	{
		long double rel = ((long double)s.stddev - sd) / sd;

		CHECKF(rel < 1e-12L && rel > -1e-12L, "sd %" PRIu64 " vs %.3Lf",
		       s.stddev, sd);
	}
	for (uint32_t i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = rng();
	ref_moments(v, ARRAY_SIZE(v), &min, &mean, &sd);
	stats_compute(v, ARRAY_SIZE(v), &s);
	{
		long double rel = ((long double)s.stddev - sd) / sd;
		long double mrel = ((long double)(s.mean - min) - mean) / mean;

		CHECKF(rel < 1e-12L && rel > -1e-12L, "sd %" PRIu64 " vs %.3Lf",
		       s.stddev, sd);
		CHECKF(mrel < 1e-15L && mrel > -1e-15L, "mean %" PRIu64 " vs %.3Lf",
		       s.mean, mean);
	}
}

static bool isqrt_ok(u128 x, uint64_t r)
{
	u128 lo = (u128)r * r;
	u128 next = (u128)r + 1;

	if (lo > x)
		return false;
	if (r == UINT64_MAX)
		return true;	/* (r + 1)^2 == 2^128 > any x */
	return next * next > x;
}

static void test_isqrt(void)
{
	u128 max = ~(u128)0;
	u128 m64 = (u128)UINT64_MAX;

	CHECK_EQ_U64(stats_isqrt128(0), 0);
	CHECK_EQ_U64(stats_isqrt128(1), 1);
	CHECK_EQ_U64(stats_isqrt128(2), 1);
	CHECK_EQ_U64(stats_isqrt128(3), 1);
	CHECK_EQ_U64(stats_isqrt128(4), 2);
	CHECK_EQ_U64(stats_isqrt128(99), 9);
	CHECK_EQ_U64(stats_isqrt128(100), 10);
	CHECK_EQ_U64(stats_isqrt128(max), UINT64_MAX);
	CHECK_EQ_U64(stats_isqrt128(m64 * m64), UINT64_MAX);
	CHECK_EQ_U64(stats_isqrt128(m64 * m64 - 1), UINT64_MAX - 1);
	CHECK_EQ_U64(stats_isqrt128((u128)1 << 126), 1ull << 63);
	CHECK_EQ_U64(stats_isqrt128(((u128)1 << 126) - 1), (1ull << 63) - 1);
	CHECK_EQ_U64(stats_isqrt128(m64), 0xffffffffull);		/* 64-bit path's top */
	CHECK_EQ_U64(stats_isqrt128(m64 + 1), 1ull << 32);		/* 128-bit path's bottom */
	CHECK_EQ_U64(stats_isqrt128(m64 + 2), 1ull << 32);
	CHECK_EQ_U64(stats_isqrt128((u128)0xfffffffeull * 0xfffffffeull), 0xfffffffeull);
	for (int i = 0; i < 100000; i++) {
		u128 x = ((u128)rng() << 64 | rng()) >> (rng() % 128);
		uint64_t r = stats_isqrt128(x);

		if (!CHECKF(isqrt_ok(x, r), "isqrt(%016" PRIx64 "%016" PRIx64 ") = %" PRIu64,
			    (uint64_t)(x >> 64), (uint64_t)x, r))
			break;
	}
	for (uint64_t r = 0; r < 3000; r++) {
		CHECK_EQ_U64(stats_isqrt128((u128)r * r), r);
		if (r)
			CHECK_EQ_U64(stats_isqrt128((u128)r * r - 1), r - 1);
	}
}

/* The order statistics alone: the same as stats_compute's, no mean or
 * stddev. */
static void test_order_only(void)
{
	uint64_t v[40], w[40];
	struct stats a, b;

	for (uint32_t n = 0; n <= 40; n++) {
		fill(v, n, 6);
		if (n)
			memcpy(w, v, n * sizeof(*v));
		stats_compute(v, n, &a);
		stats_order(w, n, &b);
		a.mean = a.stddev = 0;
		CHECKF(memcmp(&a, &b, sizeof(a)) == 0, "n=%u: order statistics differ", n);
		CHECKF(!n || memcmp(v, w, n * sizeof(*v)) == 0, "n=%u: not sorted alike", n);
	}
}

int main(void)
{
	RUN(test_sort, "stats: insertion sort and heapsort vs qsort (sizes 0..100000, patterns)");
	RUN(test_order_only, "stats: order statistics without mean and stddev");
	RUN(test_percentile_hand, "stats: percentiles, hand-computed");
	RUN(test_percentile_ref, "stats: percentiles vs long double reference");
	RUN(test_compute_hand, "stats: mean/stddev/percentiles, hand-computed");
	RUN(test_compute_ref, "stats: mean/stddev vs long double reference");
	RUN(test_compute_huge, "stats: full-range values stay accurate");
	RUN(test_isqrt, "stats: isqrt128 bounds and extremes");
	return check_summary();
}
