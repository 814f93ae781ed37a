"""Where a median lies, from the order statistics a result carries, and
the interval of a ratio of two medians (a REP speed-up) that follows.

The guest sends a case's minimum, p10, median, p90 and maximum, not its
samples (kernel/bench.c; lib/stats.c computes percentiles the numpy way,
linear between the ranks (n - 1) p and the next).  Whatever the samples'
distribution, the population median M lies below the k-th smallest of n
independent samples with probability P(Bin(n, 1/2) <= k - 1), and above
the k-th largest with the same probability.  So the minimum and maximum
of n samples bracket M but for 2 * 2^-n; a p10 that falls between ranks
lo + 1 and lo + 2 is at most the (lo + 2)-th smallest, and brackets M
with that rank's probability.

A ratio of two medians M1 / M2 lies in [L1 / U2, U1 / L2] whenever each
median lies in its bracket [L, U]; it misses only when one of the four
ends does, so the miss is at most the sum of the four ends' misses (no
assumption that the two sides are independent).  ratio_interval takes,
of the brackets each side offers, the narrowest pair whose summed miss
is at most 1 - level; with too few samples there is none.

What the interval does not cover: samples that are not independent (a
disturbance that lasts through all of one side's samples and none of the
other's moves the ratio and its interval together; boots, not samples,
answer that: `--repeat`).  After rounds (guest/rounds.py) only the
minimum and maximum are order statistics of the pooled samples: pass
quantiles=False.

Pure: no I/O."""

import math

# lib/stats.c stats_percentile's argument for p10 and p90 (per mille)
P10_X10, P90_X10 = 100, 900


def below(n, k):
    """P(Bin(n, 1/2) <= k - 1): the chance that the k-th smallest of n
    independent samples lies above the population median (and, by
    symmetry, the k-th largest below it)."""
    if k <= 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(k, n + 1))) / 2.0 ** n


def low_rank(n, pct_x10):
    """The rank k (1-based) whose sample the guest's percentile at
    pct_x10 per mille is at most: the rank itself where (n - 1) p falls on
    one, else the next rank up."""
    pos = (n - 1) * pct_x10
    return pos // 1000 + (1 if pos % 1000 == 0 else 2)


def brackets(stats, n, quantiles=True):
    """[(lo, hi, miss_lo, miss_hi)] for the population median from a
    result's statistics (a dict with min, max and, with quantiles, p10
    and p90) over n samples: miss_lo is the chance that lo lies above
    the median, miss_hi that hi lies below it.  [] without the figures."""
    if not isinstance(n, int) or n < 1 or not isinstance(stats, dict):
        return []
    out = []
    pairs = [("min", "max", 1)]
    if quantiles:
        pairs.append(("p10", "p90", low_rank(n, P10_X10)))
    for lo_key, hi_key, k in pairs:
        lo, hi = stats.get(lo_key), stats.get(hi_key)
        if _positive(lo) and _positive(hi) and lo <= hi and k <= n:
            miss = below(n, k)
            out.append((lo, hi, miss, miss))
    return out


def ratio_interval(num, num_n, den, den_n, level, quantiles=True):
    """(lo, hi, confidence) of median(num) / median(den) from both sides'
    statistics and sample counts, the narrowest whose confidence is at
    least `level`; None when the samples cannot give one that sure."""
    best = None
    for nlo, nhi, nmiss_lo, nmiss_hi in brackets(num, num_n, quantiles):
        for dlo, dhi, dmiss_lo, dmiss_hi in brackets(den, den_n, quantiles):
            sure = 1.0 - (nmiss_lo + nmiss_hi + dmiss_lo + dmiss_hi)
            if sure < level:
                continue
            lo, hi = nlo / dhi, nhi / dlo
            if best is None or hi / lo < best[1] / best[0]:
                best = (lo, hi, sure)
    return best


def samples_needed(level):
    """The fewest samples a side needs, both sides alike, for a ratio
    interval at `level` from the minima and maxima: 4 * 2^-n <= 1 -
    level."""
    n = 1
    while 4 * 0.5 ** n > 1.0 - level:
        n += 1
    return n


def _positive(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) and value > 0
