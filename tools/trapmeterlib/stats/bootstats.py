"""Statistics over boots: the boot is the unit of replication.

Pure functions (no I/O), used by compare.py and abtest.py:

- a per-boot location of a cycle metric: the minimum (default), p10 or the
  median of the boot's samples (of a boot in rounds, p10 and median are
  the lowest of its rounds' figures: guest/rounds.py stat_label);
- a family-wise permutation test over boots (Westfall-Young single-step
  max-T): the boot labels (base / candidate) are permuted jointly for all
  metrics of the run, the largest standardised shift over metrics is taken
  per permutation, and a metric's adjusted p-value is the share of
  permutations whose largest shift reaches that metric's observed one.  It
  holds the false-alarm level for all metrics of a run together, however
  the metrics are correlated, and assumes only that the boots of the two
  sides are exchangeable when nothing changed.  A metric's statistic is a t of
  each side's undisturbed boots (those within 8 % of the side's lower
  quartile: interference only adds time, and it adds 10-50 %);
- the Hodges-Lehmann shift of log values (candidate - base) with its
  distribution-free Moses interval (ranks from the exact Mann-Whitney null);
- the rule that calls a boot "in another mode" than the rest of its side.

All shifts are of natural logarithms: exp(shift) is the cost ratio."""

import functools
import itertools
import math

EXACT_MAX = 20000           # enumerate every split up to this many
SCALE_FLOOR = 1e-4          # log units (0.01 %): boots that agree exactly
BIMODAL_REL = math.log(1.10)  # a boot >10 % from its band's median ...
BIMODAL_MADS = 4.0          # ... and >4 MADs of its band is "another mode"
BAND = math.log(1.08)       # undisturbed: within 8 % of the lower quartile
MIN_SIDE = 3                # boots a side needs for a metric to be tested
TIE = 1e-12


def median(values):
    s = sorted(values)
    n = len(s)
    if not n:
        return None
    mid = n // 2
    return s[mid] if n % 2 else 0.5 * (s[mid - 1] + s[mid])


def mad(values, centre=None):
    if not values:
        return 0.0
    c = median(values) if centre is None else centre
    return median([abs(v - c) for v in values])


def splits(n, n_a, rng, resamples):
    """Label splits: tuples of the indices called "base".  Every split when
    there are at most EXACT_MAX (exact test; the observed one included),
    else the observed split plus `resamples` random ones.  Returns
    (iterable, exact)."""
    if math.comb(n, n_a) <= EXACT_MAX:
        return itertools.combinations(range(n), n_a), True
    first = [tuple(range(n_a))]
    rand = (tuple(sorted(rng.sample(range(n), n_a)))
            for _ in range(resamples))
    return itertools.chain(first, rand), False


def min_p(n_a, n_b):
    """The smallest two-sided p-value an exact permutation test of n_a and
    n_b boots can give (the observed split and, for equal sides, its
    mirror)."""
    total = math.comb(n_a + n_b, n_a)
    return (2.0 if n_a == n_b else 1.0) / total


def split_floor(k_a, k_b, n_a, n_b):
    """The smallest p max_t can give a metric that k_a base and k_b
    candidate boots carry, its labels permuted over all n_a + n_b boots:
    the share of label splits that give its boots the observed labels or
    their mirror (the same |t|).  Exit counts come from a few boots a side
    (ab --count-boots, 3 by default): over 183 + 183 boots a 3 + 3 metric
    cannot go under 2 / 64, about 0.031."""
    n, k = n_a + n_b, k_a + k_b
    if k_a > n_a or k_b > n_b:
        return 1.0
    ways = math.comb(n - k, n_a - k_a)
    if k_a != k_b and n_a >= k_b and n_b >= k_a:
        ways += math.comb(n - k, n_a - k_b)
    elif k_a == k_b:
        ways *= 2
    return min(1.0, ways / math.comb(n, n_a))


def undisturbed(values):
    """A side's undisturbed boots: those at most 8 % above the side's lower
    quartile, and at least its three fastest (MIN_SIDE: a band of two
    boots gives a t of two degrees of freedom, whose tail over the label
    splits -- two boots that happen to agree -- can set the critical
    value of a small session; a 6+6 vhost session with bands of two to
    four boots resolved only 149-397 %).  Measured here (KVM, 96 boots of
    six ab sessions): a disturbance put whole boots or single cases
    10-50 % high, in up to half a side; undisturbed boots of a session
    spread 1.3 % (sd) around their level.  The band keeps every
    undisturbed boot while fewer than three quarters of a side are
    disturbed, and no disturbed one; the lower half of a side would drop
    half the undisturbed boots of a calm side and keep disturbed ones
    when more than half of a side is hit.

    Boots in a fast mode -- more than 8 % below the side's median, and at
    most a quarter of the side (seen on this backend: one boot of each
    side 10-14 % fast on the in-kernel cases) -- are kept but do not set
    the reference.  Two of them in a side of eight would be its lower
    quartile and leave only themselves inside the band, and a label split
    that put both on one side would score a t of about 60: above the
    observed t of a real +12 % shift in every such split (p 0.47 instead
    of 2/12870).  More than a quarter of a side that low is read as the
    undisturbed boots of a side mostly disturbed."""
    s = sorted(values)
    if len(s) <= 2:
        return s
    centre = median(s)
    fast = sum(1 for v in s if v < centre - BAND)
    rest = s[fast:] if 4 * fast <= len(s) else s
    ref = rest[(len(rest) - 1) // 4]
    out = [v for v in s if v <= ref + BAND]
    return out if len(out) >= MIN_SIDE else s[:MIN_SIDE]


def floor_shift(a, b):
    """The shift the test measures: the mean of b's undisturbed boots minus
    a's (log units); None without boots."""
    if not a or not b:
        return None
    ua, ub = undisturbed(a), undisturbed(b)
    return sum(ub) / len(ub) - sum(ua) / len(ua)


def _band_figures(a, b):
    """(shift of the means, pooled sd, standard error of the shift) of two
    sides' undisturbed boots: the pooled variance over n_a + n_b - 2
    degrees of freedom."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    dof = len(a) + len(b) - 2
    ss = sum((v - ma) ** 2 for v in a) + sum((v - mb) ** 2 for v in b)
    sd = math.sqrt(ss / dof)
    return mb - ma, sd, sd * math.sqrt(1.0 / len(a) + 1.0 / len(b))


band_figures = _band_figures    # forecast's drawn splits: the test's figures


class Metric:
    """One metric's log values per boot: {boot index: log value}, boots
    0..n_base-1 being the base side."""

    def __init__(self, values):
        self.items = sorted(values.items())

    def sides(self, base_set):
        a = [v for i, v in self.items if i in base_set]
        b = [v for i, v in self.items if i not in base_set]
        return a, b

    def testable(self, base_set):
        """At least MIN_SIDE boots on each side: a metric only some boots
        carry (cycles_per_exit of a case whose exit count is noise in most
        boots) would otherwise give splits of one or two boots a side, whose
        t has no spread to divide by and would set the family's maximum."""
        a, b = self.sides(base_set)
        return len(a) >= MIN_SIDE and len(b) >= MIN_SIDE

    def figures(self, base_set):
        """(shift of the undisturbed means, pooled sd, standard error of
        the shift), log units; None for fewer than MIN_SIDE boots a
        side."""
        a, b = self.sides(base_set)
        if len(a) < MIN_SIDE or len(b) < MIN_SIDE:
            return None
        return _band_figures(undisturbed(a), undisturbed(b))

    def both(self, base_set):
        """(the shift's statistic, the slow-mode share's), from one pass
        over the sides' bands (max_t_modes)."""
        a, b = self.sides(base_set)
        if len(a) < MIN_SIDE or len(b) < MIN_SIDE:
            return 0.0, 0.0
        ua, ub = undisturbed(a), undisturbed(b)
        figures = _band_figures(ua, ub)
        return (abs(figures[0]) / max(figures[2], SCALE_FLOOR),
                share_z(len(a) - len(ua), len(a), len(b) - len(ub), len(b)))


    def spread(self, base_set):
        """(pooled sd, standard error of the shift) of the two sides'
        undisturbed boots, in log units; None for fewer than MIN_SIDE
        boots a side."""
        figures = self.figures(base_set)
        return None if figures is None else figures[1:]

    def stat(self, base_set):
        """A t statistic of each side's undisturbed boots: the difference of
        their means over the pooled standard error (recomputed for every
        split, so the test is studentised); 0 for a split that leaves a side
        fewer than MIN_SIDE boots.  Interference only adds time, 10-50 % to
        whole boots here: the band leaves those out, so a disturbed boot
        neither hides a shift nor makes one, while the t still tells the
        observed split from one that swaps a boot (docs/design.md)."""
        figures = self.figures(base_set)
        if figures is None:
            return 0.0
        return abs(figures[0]) / max(figures[2], SCALE_FLOOR)


def metric_of(boots, logs, n_base):
    """A Metric of one row: its boot numbers (from 1) and log values per
    side, the candidate's boots after the n_base of the base."""
    return Metric(dict(
        [(n - 1, v) for n, v in zip(boots[0], logs[0])]
        + [(n_base + n - 1, v) for n, v in zip(boots[1], logs[1])]))


def max_t(metrics, n_base, n_cand, rng, resamples):
    """(p-values, tops): family-wise adjusted two-sided p-values, one per
    metric (same order), and the largest statistic of every label split
    (the test's null distribution).  Metrics need not cover every boot (a
    failed boot, a null figure): the labels are permuted over all boots; a
    metric is scored on the boots it has.  The family is the metrics that
    are testable on the observed split; the others get None."""
    observed_set = frozenset(range(n_base))
    family = [m for m in metrics if m.testable(observed_set)]
    if not family:
        return [None] * len(metrics), []
    observed = [m.stat(observed_set) for m in family]
    counts = [0] * len(family)
    tops = []
    it, _exact = splits(n_base + n_cand, n_base, rng, resamples)
    for split in it:
        s = frozenset(split)
        top = max(m.stat(s) for m in family)
        tops.append(top)
        for k, obs in enumerate(observed):
            if top >= obs - TIE * max(1.0, obs):
                counts[k] += 1
    # exact: every split once; random: the observed split plus the draws,
    # so p = (1 + hits) / (1 + resamples) -- never 0
    p = dict(zip(map(id, family), (c / len(tops) for c in counts)))
    return [p.get(id(m)) for m in metrics], tops


def max_t_modes(metrics, modes, n_base, n_cand, rng, resamples):
    """max_t for the shifts of `metrics` and, over the same label splits
    and one pass over each split's bands, for the slow-mode shares of the
    metrics whose `modes` flag is set (ModeMetric; a second family).
    Returns (shift p-values, shift tops, mode p-values, mode tops); the
    mode p-values are None where the flag is not set."""
    observed_set = frozenset(range(n_base))
    family = [k for k, m in enumerate(metrics) if m.testable(observed_set)]
    if not family:
        return [None] * len(metrics), [], [None] * len(metrics), []
    moded = [k for k in family if modes[k]]
    first = {k: metrics[k].both(observed_set) for k in family}
    counts = dict.fromkeys(family, 0)
    mode_counts = dict.fromkeys(moded, 0)
    tops, mode_tops = [], []
    it, _exact = splits(n_base + n_cand, n_base, rng, resamples)
    for split in it:
        s = frozenset(split)
        stats = {k: metrics[k].both(s) for k in family}
        top = max(v[0] for v in stats.values())
        tops.append(top)
        for k in family:
            obs = first[k][0]
            if top >= obs - TIE * max(1.0, obs):
                counts[k] += 1
        if moded:
            mtop = max(stats[k][1] for k in moded)
            mode_tops.append(mtop)
            for k in moded:
                obs = first[k][1]
                if mtop >= obs - TIE * max(1.0, obs):
                    mode_counts[k] += 1
    n = float(len(tops))
    ps = [counts[k] / n if k in counts else None for k in range(len(metrics))]
    mps = [mode_counts[k] / n if k in mode_counts else None
           for k in range(len(metrics))]
    return ps, tops, mps, mode_tops


def can_reach(metric, observed, n_base, n_cand, alpha):
    """Whether the metric's boots can give it p <= alpha at all (its
    split_floor).  One that cannot is left out of the max-T family
    (Tarone: the floor depends on which boots carry the metric, not on
    their values, so leaving it out keeps the family-wise alpha): in it,
    a 3 + 3 boot exit-count metric's t over the label splits set every
    metric's p near its own floor, 0.031, and a +56 % cycles_per_op over
    166/181 boots stayed inconclusive at the last look's 0.0267."""
    a, b = metric.sides(observed)
    return split_floor(len(a), len(b), n_base, n_cand) <= alpha


def max_t_reachable(keep, metrics, modes, *args):
    """max_t_modes over the metrics keep marks; its per-metric lists in
    the order of metrics, None where a metric was left out."""
    ps, tops, mps, mtops = max_t_modes(
        [m for m, k in zip(metrics, keep) if k],
        [m for m, k in zip(modes, keep) if k], *args)
    ps, mps = iter(ps), iter(mps)
    return ([next(ps) if k else None for k in keep], tops,
            [next(mps) if k else None for k in keep], mtops)


def critical_t(tops, alpha):
    """The statistic a metric must exceed for max_t to give it p <= alpha
    over these splits' maxima; None when alpha is below one split's
    share (too few boots to reach it at all)."""
    k = int(math.floor(alpha * len(tops) + 1e-9))
    if k < 1:
        return None
    ordered = sorted(tops, reverse=True)
    crit = ordered[min(k, len(tops) - 1)]
    # the observed split is one of the splits: no statistic can exceed the
    # largest (3+3 boots: the top two are a split and its mirror)
    return None if crit >= ordered[0] * (1 - TIE) else crit


def shift_interval(metric, base_set, crit):
    """(shift, lo, hi) in log units: the shift the test decides on (the
    difference of the undisturbed means) and the shifts it would not
    reject at the level `crit` belongs to -- shift +- crit times the
    standard error it divides by (floor SCALE_FLOOR).  The interval
    excludes 0 exactly when the metric's statistic exceeds crit, that is
    when max_t gives it p <= the level (critical_t): the printed interval
    and the verdict come from one statistic, one set of boots and one
    level.  (None, None, None) for fewer than MIN_SIDE boots a side; the
    ends are None without a critical value."""
    figures = metric.figures(base_set)
    if figures is None:
        return None, None, None
    shift, _sd, se = figures
    if crit is None:
        return shift, None, None
    half = crit * max(se, SCALE_FLOOR)
    return shift, shift - half, shift + half


def outside(values):
    """How many of a side's boots lie outside its undisturbed band (a slow
    mode: above the band's top)."""
    return len(values) - len(undisturbed(values)) if len(values) >= \
        MIN_SIDE else 0


def share_z(k_a, n_a, k_b, n_b):
    """The two-proportion statistic |k_b/n_b - k_a/n_a| over its pooled
    standard error; 0 when the pooled share is 0 or 1.  Its permutation
    distribution over the boot labels, with the boots' outside/inside
    marks fixed, is the hypergeometric law of Fisher's exact test."""
    n = n_a + n_b
    p = (k_a + k_b) / float(n) if n else 0.0
    if p <= 0.0 or p >= 1.0:
        return 0.0
    se = math.sqrt(p * (1.0 - p) * (1.0 / n_a + 1.0 / n_b))
    return abs(k_b / float(n_b) - k_a / float(n_a)) / se


class ModeMetric:
    """A metric's slow mode: the share of each side's boots outside that
    side's undisturbed band (undisturbed), tested like a shift by max_t
    (the statistic share_z, recomputed for every split; the bands are
    each side's, as the shift's test takes them)."""

    def __init__(self, metric):
        self.metric = metric

    def testable(self, base_set):
        return self.metric.testable(base_set)

    def shares(self, base_set):
        """((k_a, n_a), (k_b, n_b)): boots outside the band, of each
        side."""
        a, b = self.metric.sides(base_set)
        return (outside(a), len(a)), (outside(b), len(b))

    def stat(self, base_set):
        if not self.testable(base_set):
            return 0.0
        (k_a, n_a), (k_b, n_b) = self.shares(base_set)
        return share_z(k_a, n_a, k_b, n_b)


def can_change_mode(metric):
    """Whether any split can put a boot outside its side's band: not when
    all the metric's boots lie within BAND of the lowest (a side's band
    reaches at least its lowest boot plus BAND).  Decided from the pooled
    boots alone, so leaving such a metric out of the mode family does not
    depend on the labels."""
    values = [v for _i, v in metric.items]
    return bool(values) and max(values) - min(values) > BAND


def resolution(metric, base_set, crit):
    """The smallest shift (log units) of the undisturbed means that the
    test would flag at this spread and these boots: the critical t times
    the observed standard error.  A true shift this large is flagged about
    half the time.  None without a critical value or a testable side."""
    figures = metric.spread(base_set)
    if crit is None or figures is None:
        return None
    return crit * max(figures[1], SCALE_FLOOR)


def hodges_lehmann(a, b):
    """Median of all pairwise differences b_j - a_i."""
    return median([y - x for x in a for y in b])


def mann_whitney_cdf(n_a, n_b):
    """[P(U <= u) for u in 0..n_a*n_b] under the null, exact: c(m, n, u),
    the arrangements of m and n values with statistic u, obeys
    c(m, n, u) = c(m-1, n, u-n) + c(m, n-1, u)."""
    return list(_mann_whitney_cdf(n_a, n_b))


@functools.lru_cache(maxsize=1024)
def _mann_whitney_cdf(n_a, n_b):
    """mann_whitney_cdf as a tuple, kept: every row of every look of an ab
    session, and every window of a history's checks, asks for the same
    few (n_a, n_b).  The counts c(n_a, n_b, u) are the coefficients of the
    Gaussian binomial [n_a + n_b choose n_b](q) = prod_{i=1..n_b} (1 -
    q^(n_a+i)) / (1 - q^i) (the recurrence's solution): n_b products and
    exact divisions of a polynomial of degree n_a*n_b."""
    size = n_a * n_b + 1
    dist = [1] + [0] * (size - 1)
    for i in range(1, n_b + 1):
        k = n_a + i
        for u in range(size - 1, k - 1, -1):      # times (1 - q^k)
            dist[u] -= dist[u - k]
        for u in range(i, size):                  # over (1 - q^i)
            dist[u] += dist[u - i]
    total = float(sum(dist))
    out, acc = [], 0
    for w in dist:
        acc += w
        out.append(acc / total)
    return tuple(out)


def moses_interval(a, b, level):
    """(lo, hi, coverage) for the shift of b against a: [d(k), d(N+1-k)]
    of the N sorted pairwise differences, with the largest k whose
    coverage 1 - 2 P(U <= k-1) is still at least `level`.  With too few
    boots for `level`: every difference, and its actual coverage."""
    diffs = sorted(y - x for x in a for y in b)
    n = len(diffs)
    if not n:
        return None, None, 0.0
    cdf = _mann_whitney_cdf(len(a), len(b))
    tail = (1.0 - level) / 2.0
    k = 1
    while k < len(cdf) and cdf[k] <= tail and k + 1 <= (n + 1) // 2:
        k += 1
    return diffs[k - 1], diffs[n - k], max(0.0, 1.0 - 2.0 * cdf[k - 1])


def other_mode(values):
    """Indices (into `values`, one side's log figures) of boots that sit in
    another mode: more than 10 % from the level of the side's undisturbed
    boots (their median) and more than 4 MADs of those boots.  Needs 3
    boots.  The level is the band's, not the side's median: with half a
    side in a slow mode the median sits between the modes and its MAD
    spans both, so that side's slow boots would go unnamed while the other
    side's, a third of it, were named -- though the test leaves both
    out."""
    if len(values) < 3:
        return []
    band = undisturbed(values)
    centre = median(band)
    spread = mad(band, centre)
    return [i for i, v in enumerate(values)
            if abs(v - centre) > BIMODAL_REL
            and abs(v - centre) > BIMODAL_MADS * spread]
