"""Change points in a history of runs: level shifts over a series of
per-run figures, with a family-wise false-alarm rate.

A family is every series of one host fingerprint (its cases times its
metrics) over the same runs.  A timing metric's per-run figure is a log
value (a ratio is a shift).  At every split t (runs t.. are "after") the
statistic is the two-sample t of the WINDOW runs before and the WINDOW
runs after (at least MIN_SEG on each side, so the newest four runs can
start a change): the difference of their means over the pooled sd's
standard error.  The windows keep a slow drift from reading as a step;
the t's own spread keeps a disturbed run (interference only adds time,
10-50 % here) from reading as one: it widens the window it falls in.

The threshold is the permutation null of the family's largest
statistic: the run order is shuffled RESAMPLES times, the same shuffle
for every metric (a disturbed run is slow in every case at once), and
every split of every metric whose statistic exceeds the (1 - ALPHA)
quantile of those maxima is a change.  With no change anywhere and
exchangeable runs, the chance that any split of any metric of the family
exceeds it is at most ALPHA however the metrics are correlated
(Westfall-Young single-step max-T, as `ab` does over boots).  A drift
or a step mixes into every shuffled window, which widens the shuffles'
t less than it moves their means: the threshold stays, a drift over
more runs than a window is not flagged (measured: docs/design.md,
"History").  The place of a change is refined by the least squares of
one step over its two windows.

Exit counts are counts, not timings: a count change is a split where
the medians of the two windows differ by at least max(COUNT_ABS,
COUNT_REL of the level) and no run of one window lies within the
other's range.

Pure: lists of numbers in, Change records out."""

import math
import random

from .bootstats import hodges_lehmann, median, moses_interval

MIN_SEG = 4             # runs on each side of a split at least
WINDOW = 8              # runs on each side a split is judged on
ALPHA = 0.01            # family-wise false-alarm level of one analysis
RESAMPLES = 199         # shuffles of the run order for the null
SCALE_FLOOR = 1e-4      # log units: a series that never moves
VAR_FLOOR = SCALE_FLOOR ** 2
CLIP = 4.0              # sds above a region's level a run counts at most
MAD_SD = 1.4826         # a normal's sd over its MAD
COUNT_ABS = 0.5         # exits per op: a count change is at least this ...
COUNT_REL = 0.02        # ... and this share of the level
LEVEL = 0.95            # coverage of a shift's interval
SEED = 1


class Change:
    """A change in one series: runs[index] is the first run after it."""

    def __init__(self, key, index, stat, kind, before, after):
        self.key, self.index, self.stat, self.kind = key, index, stat, kind
        self.before, self.after = before, after
        self.shift = self.lo = self.hi = None
        self.coverage = None

    def __repr__(self):
        return "Change(%r, %d, %.2f)" % (self.key, self.index, self.stat)


def scale(values):
    """A robust sd of one value of the series: the MAD of successive
    differences over sqrt(2)."""
    diffs = [abs(b - a) for a, b in zip(values, values[1:])]
    if not diffs:
        return SCALE_FLOOR
    return max(MAD_SD * median(diffs) / math.sqrt(2.0), SCALE_FLOOR)


def windows(n):
    """[(t, lo, hi)]: the splits of n runs and each one's window."""
    return [(t, max(0, t - WINDOW), min(n, t + WINDOW))
            for t in range(MIN_SEG, n - MIN_SEG + 1)]


def split_stats(values):
    """[(t, statistic)] of one series at every split: the two-sample t
    of the windows (difference of means over the pooled sd's standard
    error; prefix sums make each split O(1))."""
    n = len(values)
    head, sq = [0.0], [0.0]
    for v in values:
        head.append(head[-1] + v)
        sq.append(sq[-1] + v * v)
    out = []
    for t, lo, hi in windows(n):
        nb, na = t - lo, hi - t
        sb, sa = head[t] - head[lo], head[hi] - head[t]
        ss = (sq[hi] - sq[lo]) - sb * sb / nb - sa * sa / na
        var = max(ss / (nb + na - 2), VAR_FLOOR)
        out.append((t, (sa / na - sb / nb) /
                    math.sqrt(var * (1.0 / nb + 1.0 / na))))
    return out


def _present(values, order):
    return [values[i] for i in order if values[i] is not None]


def family_max(family, order):
    """The largest |statistic| over every split of every series, the runs
    taken in `order`."""
    top = 0.0
    for values in family.values():
        for _t, stat in split_stats(_present(values, order)):
            top = max(top, abs(stat))
    return top


def null_maxima(family, runs, resamples=RESAMPLES, seed=SEED):
    """The family's largest statistic over `resamples` shuffles."""
    rng = random.Random(seed)
    order = list(range(runs))
    out = []
    for _ in range(resamples):
        rng.shuffle(order)
        out.append(family_max(family, order))
    return out


def critical(maxima, alpha=ALPHA):
    """The value a statistic must exceed: p = (1 + maxima at or above
    it) / (1 + shuffles) <= alpha.  None when the shuffles are too few
    for alpha."""
    allowed = int(math.floor(alpha * (len(maxima) + 1) + 1e-9)) - 1
    if allowed < 0:
        return None
    ordered = sorted(maxima, reverse=True)
    return ordered[allowed] if allowed < len(ordered) else 0.0


def _peaks(stats, crit):
    """Splits above crit, strongest first, none within WINDOW of a
    stronger one."""
    chosen = []
    for t, stat in sorted(stats, key=lambda ts: -abs(ts[1])):
        if abs(stat) <= crit:
            break
        if all(abs(t - c) >= WINDOW for c, _ in chosen):
            chosen.append((t, stat))
    return sorted(chosen)


def locate(vals, t, sd):
    """The split of the runs around t (its two windows) with the least
    squares of a single step (the most likely place of one step), each
    run clipped at CLIP sds above the region's level so that a disturbed
    run weighs no more than a stepped one.  The windows' levels find that
    a change is there; they stay apart for a few splits after it, and
    the fit says where it is."""
    lo, hi = max(0, t - WINDOW), min(len(vals), t + WINDOW)
    top = median(vals[lo:hi]) + CLIP * sd
    region = [min(v, top) for v in vals[lo:hi]]
    n, total = len(region), sum(region)
    best, where, head = -1.0, t, sum(region[:MIN_SEG - 1])
    for cut in range(MIN_SEG, n - MIN_SEG + 1):
        head += region[cut - 1]
        diff = (total - head) / (n - cut) - head / cut
        score = cut * (n - cut) / float(n) * diff * diff
        if score > best + 1e-15:
            best, where = score, lo + cut
    return where


def _positions(values):
    return [i for i, v in enumerate(values) if v is not None]


def describe(change, values):
    """Fill the shift (after against before, log units), its
    distribution-free interval and coverage."""
    change.shift = hodges_lehmann(change.before, change.after)
    change.lo, change.hi, change.coverage = moses_interval(
        change.before, change.after, LEVEL)
    return change


def timing_changes(family, runs, alpha=ALPHA, resamples=RESAMPLES,
                   seed=SEED):
    """(changes, critical value): the level shifts of a family of log
    series, {key: [value or None per run]} over `runs` runs.  Change.index
    is a run index (0-based) of the family."""
    present = {k: _present(v, range(runs)) for k, v in family.items()}
    family = {k: v for k, v in family.items()
              if len(present[k]) >= 2 * MIN_SEG}
    if not family:
        return [], None
    scales = {k: scale(present[k]) for k in family}
    crit = critical(null_maxima(family, runs, resamples, seed), alpha)
    if crit is None:
        return [], None
    out = []
    for key in sorted(family, key=str):
        vals, where = present[key], _positions(family[key])
        for t, stat in _peaks(split_stats(vals), crit):
            t = locate(vals, t, scales[key])
            lo, hi = max(0, t - WINDOW), min(len(vals), t + WINDOW)
            out.append(describe(Change(key, where[t], stat, "level",
                                       vals[lo:t], vals[t:hi]), vals))
    return out, crit


def count_changes(key, values):
    """The count changes of one series of exits per op (None where a run
    has no count)."""
    vals, where = [v for v in values if v is not None], _positions(values)
    found = []
    for t, lo, hi in windows(len(vals)):
        before, after = vals[lo:t], vals[t:hi]
        mb, ma = median(before), median(after)
        apart = abs(ma - mb) >= max(COUNT_ABS, COUNT_REL * abs(mb))
        clear = min(after) > max(before) or max(after) < min(before)
        if apart and clear:
            found.append((t, abs(ma - mb)))
    out = []
    for t, size in _peaks(found, 0.0):
        t = locate(vals, t, float("inf"))
        lo, hi = max(0, t - WINDOW), min(len(vals), t + WINDOW)
        change = Change(key, where[t], size, "count", vals[lo:t], vals[t:hi])
        change.shift = median(vals[t:hi]) - median(vals[lo:t])
        out.append(change)
    return out


def newest(changes, runs):
    """The changes whose after-window reaches the newest run: the newest
    runs start them."""
    return [c for c in changes if c.index >= runs - WINDOW]


class Analysis:
    """The changes of one series (a host's runs): `changes` strongest
    per series first in run order, `critical` the threshold the level
    test used (None when the runs are too few), `runs` their number."""

    def __init__(self, changes, crit, runs):
        self.changes, self.critical, self.runs = changes, crit, runs

    def newest(self):
        return newest(self.changes, self.runs)


def analyse(run_ids, series, kinds, alpha=ALPHA, resamples=RESAMPLES):
    """The changes of a host's series: run_ids in order; series {key:
    {run id: value}}; kinds {key: "timing" | "count"}.  Timing values are
    judged as logs (a ratio is a shift); a value at or below zero is
    left out."""
    position = {r: i for i, r in enumerate(run_ids)}
    timing, counts = {}, []
    for key, by_run in series.items():
        row = [None] * len(run_ids)
        for run, value in by_run.items():
            if run in position and value is not None:
                row[position[run]] = value
        if kinds[key] == "count":
            counts += count_changes(key, row)
        else:
            timing[key] = [math.log(v) if v is not None and v > 0 else None
                           for v in row]
    changes, crit = timing_changes(timing, len(run_ids), alpha, resamples)
    changes += counts
    return Analysis(sorted(changes, key=lambda c: (c.index, str(c.key))),
                    crit, len(run_ids))
