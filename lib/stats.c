/*
 * lib/stats.c - integer-only sample statistics: insertion sort or
 * heapsort, numpy-style linear percentiles, rounded mean and sample
 * standard deviation.  Sums use unsigned __int128 so no intermediate ever
 * overflows; 128-bit quotients come from stats_div32() below, never from
 * libgcc (whose __udivti3 uses SSE registers and the red zone).
 *
 * Under a software hypervisor every guest instruction costs about a
 * microsecond, and the bench framework sorts a case's samples at every
 * stability checkpoint (a sorted run and a few new samples after it), so
 * the common paths are kept short: a sorted or nearly sorted array costs
 * one pass, quotients and square roots that fit 64 bits use 64-bit
 * arithmetic.
 */
#include "lib/stats.h"

typedef unsigned __int128 u128;

/* Up to this many samples insertion sort: one pass over sorted data, and
 * the few samples added after a checkpoint's sort move into place. */
#define STATS_INSERTION_MAX 64

/* x / d for a 32-bit divisor, one 32-bit limb at a time with u64 math
 * (one division when x fits 64 bits). */
static u128 stats_div32(u128 x, u32 d, u32 *rem)
{
	u128 q = 0;
	u64 r = 0;

	if (!(u64)(x >> 64)) {
		if (rem)
			*rem = (u32)((u64)x % d);
		return (u64)x / d;
	}

	for (int shift = 96; shift >= 0; shift -= 32) {
		u64 cur = (r << 32) | (u32)(x >> shift);	/* r < d < 2^32 */

		q = (q << 32) | (cur / d);
		r = cur % d;
	}
	if (rem)
		*rem = (u32)r;
	return q;
}

/* Restore the max-heap property below node i of heap v[0..n). */
static void stats_sift_down(u64 *v, u32 i, u32 n)
{
	u64 top = v[i];

	for (;;) {
		u32 child;

		if (i >= n / 2)		/* leaf: 2i + 1 >= n, no overflow */
			break;
		child = 2 * i + 1;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[child] <= top)
			break;
		v[i] = v[child];
		i = child;
	}
	v[i] = top;
}

static void stats_insertion_sort(u64 *v, u32 n)
{
	u32 i, j;

	for (i = 1; i < n; i++) {
		u64 x = v[i];

		if (x >= v[i - 1])
			continue;
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

void stats_sort(u64 *v, u32 n)
{
	u32 i;

	if (n < 2)
		return;
	if (n <= STATS_INSERTION_MAX) {
		stats_insertion_sort(v, n);
		return;
	}
	for (i = n / 2; i-- > 0;)
		stats_sift_down(v, i, n);
	for (i = n - 1; i > 0; i--) {
		u64 t = v[0];

		v[0] = v[i];
		v[i] = t;
		stats_sift_down(v, 0, i);
	}
}

u64 stats_percentile(const u64 *sorted, u32 n, u32 pct_x10)
{
	u64 pos, lo, rem, diff;

	if (!n)
		return 0;
	if (pct_x10 > 1000)
		pct_x10 = 1000;
	pos = (u64)(n - 1) * pct_x10;	/* rank (n - 1) * p scaled by 1000 */
	lo = pos / 1000;
	rem = pos % 1000;
	if (!rem || lo + 1 >= n)
		return sorted[lo];
	diff = sorted[lo + 1] - sorted[lo];
	return sorted[lo] + (u64)stats_div32((u128)diff * rem + 500, 1000, NULL);
}

static unsigned stats_bitlen(u64 x)
{
	return x ? 64 - (unsigned)__builtin_clzll(x) : 0;
}

/* floor(sqrt(x)) for x < 2^64, digit by digit from x's top bit pair. */
static u64 stats_isqrt64(u64 x)
{
	u64 res = 0, bit;

	if (!x)
		return 0;
	bit = 1ull << ((stats_bitlen(x) - 1) & ~1u);
	while (bit) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return res;
}

u64 stats_isqrt128(u128 x)
{
	u128 res = 0, bit = (u128)1 << 126;

	if (!(u64)(x >> 64))
		return stats_isqrt64((u64)x);
	bit = (u128)1 << ((64 + stats_bitlen((u64)(x >> 64)) - 1) & ~1u);
	while (bit) {
		if (x >= res + bit) {
			x -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	return (u64)res;
}

/*
 * Smallest right shift of the samples that keeps 4 * sum of squared
 * deviations below 2^128: n * (range + 1)^2 * 4 must fit.
 */
static unsigned stats_scale_shift(u64 range, u32 n)
{
	unsigned s = 0;

	while (stats_bitlen(n) + 2 * (stats_bitlen(range >> s) + 1) + 2 > 128)
		s++;
	return s;
}

/*
 * Sample stddev of v[i] >> s, times 2^s, rounded to nearest.  With
 * S = sum = n*a + b and E = sum (x - a)^2, the sum of squared deviations
 * from the true mean is E - b^2/n, so
 *   floor(4 * var) = (4E - ceil(4b^2 / n)) / (n - 1)
 * and round(sqrt(var)) = (isqrt(floor(4 * var)) + 1) / 2.
 */
static u64 stats_stddev(const u64 *v, u32 n, unsigned s)
{
	u128 sum = 0, e = 0, four_b2, r;
	u64 a;
	u32 b, i;

	for (i = 0; i < n; i++)
		sum += v[i] >> s;
	a = (u64)stats_div32(sum, n, &b);
	for (i = 0; i < n; i++) {
		u64 x = v[i] >> s;
		u64 d = x >= a ? x - a : a - x;

		e += (u128)d * d;
	}
	four_b2 = 4 * (u128)b * b;
	r = stats_div32(four_b2 + n - 1, n, NULL);	/* ceil(4b^2 / n) */
	r = stats_isqrt128(stats_div32(4 * e - r, n - 1, NULL));
	r = ((r << s) + 1) >> 1;
	return r > (u64)-1 ? (u64)-1 : (u64)r;
}

static u64 stats_mean(const u64 *v, u32 n)
{
	u128 sum = 0;
	u64 mean;
	u32 b;

	for (u32 i = 0; i < n; i++)
		sum += v[i];
	mean = (u64)stats_div32(sum, n, &b);
	return mean + ((u64)b * 2 >= n ? 1 : 0);
}

void stats_order(u64 *v, u32 n, struct stats *out)
{
	*out = (struct stats){ .n = n };
	if (!n)
		return;
	stats_sort(v, n);
	out->min = v[0];
	out->max = v[n - 1];
	out->p10 = stats_percentile(v, n, 100);
	out->median = stats_percentile(v, n, 500);
	out->p90 = stats_percentile(v, n, 900);
	out->p99 = stats_percentile(v, n, 990);
}

void stats_compute(u64 *v, u32 n, struct stats *out)
{
	stats_order(v, n, out);
	if (!n)
		return;
	out->mean = stats_mean(v, n);
	if (n >= 2)
		out->stddev = stats_stddev(v, n,
					   stats_scale_shift(out->max - out->min, n));
}
