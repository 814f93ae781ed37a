/*
 * lib/stats.h - order statistics, mean and standard deviation of u64
 * samples using integer arithmetic only.
 */
#ifndef LIB_STATS_H
#define LIB_STATS_H

#include "lib/types.h"

struct stats {
	u32 n;
	u64 min, p10, median, p90, p99, max, mean, stddev;
};

/* Sort ascending in place, no recursion: insertion sort up to 64 values
 * (one pass when sorted, so re-sorting a sorted run with a few values
 * appended is cheap), heapsort, O(n log n), above. */
void stats_sort(u64 *v, u32 n);

/*
 * Percentile of sorted data, pct_x10 in tenths of a percent (500 is the
 * median, values above 1000 are clamped).  Linear interpolation between
 * the closest ranks (numpy's default "linear" method), rounded to the
 * nearest integer with halves rounded up.  n == 0 gives 0.
 */
u64 stats_percentile(const u64 *sorted, u32 n, u32 pct_x10);

/*
 * Sort v in place and fill *out.  mean is rounded to nearest (halves up);
 * stddev is the sample standard deviation (n - 1 denominator, 0 when
 * n < 2) rounded to nearest.  Both are exact whenever the sample range
 * (max - min) is below about 2^(62 - log2(n)/2), i.e. for any realistic
 * timing data; beyond that the stddev is computed on values scaled down
 * by a power of two.  n == 0 gives all zeros.
 */
void stats_compute(u64 *v, u32 n, struct stats *out);

/* stats_compute without mean and stddev (left 0): the order statistics
 * only, for figures whose mean nobody reads (a case's control). */
void stats_order(u64 *v, u32 n, struct stats *out);

/* floor(sqrt(x)). */
u64 stats_isqrt128(unsigned __int128 x);

#endif
