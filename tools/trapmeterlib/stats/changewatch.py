"""A history checked after every run (`history check --every-run`): does
the newest run complete a change?  A check's exact tests spend a level
from a budget and its CUSUM alarms at a threshold measured on this
host's runs, so the false alarms of a whole series of checks are held,
not those of one look.

The unit is a run's floor: the lowest of its boots' figures (log cycles
per op).  The noise of this host is one-sided -- other jobs only add
time, and a boot is either calm or raised by 15-35 % (recorded:
tests/fixtures/kvm-history-aa.json) -- so the lowest boot is the run's
best estimate of what the build costs, and a run is raised as a whole
only when every boot was.

At a check of n runs, on each timing series:

  lowest floor, rise and drop (exact)   for each after-window of K runs
        (K in AFTER, the newest K runs) against up to BEFORE runs
        before it (at least MIN_BEFORE): the after-window's lowest floor
        lies above r - 1 of the N runs of both windows -- with
        exchangeable runs the chance of that or more is
        C(N - r + 1, K) / C(N, K) -- or L of its floors lie below every
        floor before it, C(K, L) / C(N, L).  Each is judged at
        alpha / horizon / tests (Bonferroni): with exchangeable runs one
        check alarms with at most alpha / horizon, any of `horizon`
        checks with at most alpha, whatever the dependence of the checks.
  calm runs' CUSUM, rise and drop (measured)   the newest SPAN runs
        against the calm runs of up to BEFORE runs before them (at least
        MIN_REF; calm: no more than TRIM above their lower quartile).
        Each newest run more than TRIM above that quartile is raised and
        skipped (neither evidence nor a reset); each other run scores
        the normal quantile of its mid-rank among the reference's calm
        runs (bounded by the reference's size, whatever the tails of
        this host's noise), and one-sided CUSUMs S = max(0, S + z - K_REF)
        and S = max(0, S - z - K_REF) alarm at THRESHOLD.  K_REF = 1 is
        half of +1 % per QEMU exit in pio.user's calm sds (0.5 %).
        A z-score in place of the rank and one CUSUM over the QEMU-exit
        cases' combined scores were tried and not kept (docs/design.md,
        "History"); tests/host/history_simulation.py keeps them and
        passes them to watch() as its `sums`.

The lowest floor finds a step beyond TRIM (the after-window then has no
calm run): raised runs after the step do not hide it, but raised runs
BEFORE it outrank a step smaller than the raising until the calm runs
outnumber them.  The CUSUM leaves the raised runs out on both sides and
adds the evidence of every calm run as it comes, with no window length
to wait for: on 43 recorded runs +1 % per QEMU exit was found within 40
runs in 35 and 38 of 40 series (replay, model; median 19-20 runs), where
the calm runs' ranks (an exact Mann-Whitney test per window, the method
before, kept in calm_p() for the simulation to compare) found 24 and 32
(27 and 33 at alpha 5 %): more steps found, not sooner.

The CUSUM's threshold is not exact: its per-check false-alarm rate
depends on how this host's runs come, so THRESHOLD is set from replays
and a model of the recorded runs: about the 99th percentile of the
largest CUSUM of a 100-run A/A series, with every check's every series
and side (tests/host/history_simulation.py --parts watch-null); the
whole method is measured on two sets of seeds (--parts watch: 1.0-2.0 %
of 100-run A/A series alarmed, 99 % upper bounds 2.9-4.3 %; 6, set on
27 runs, gave 5.3 % on 43: docs/design.md, "History").
ALPHA is 2 %, not 5 %: a host whose busy spells last several runs is
not exchangeable (5 % gave a model 2.5 % of 100-run A/A series with an
alarm from the exact tests alone, 99 % upper bound 6.4 %).

Pure: lists of numbers in, Change records out."""

import bisect
import math
from statistics import NormalDist

from .bootstats import mann_whitney_cdf
from .changepoint import Change, describe

AFTER = (5, 8, 12, 16, 24, 32)   # after-windows tested at every check
BEFORE = 40                      # runs before an after-window at most
MIN_BEFORE = 8                   # ... and at least
ALPHA = 0.02                     # false alarms over HORIZON checks
HORIZON = 100                    # checks alpha is spent over
TRIM = math.log(1.02)            # a floor this far above the windows'
                                 # lower quartile is a raised run
FLOOR, CALM = "lowest floor", "calm runs' ranks"   # exact tests
CUSUM = "calm runs' CUSUM"
K_REF = 1.0             # CUSUM: normal scores a calm run gives up
THRESHOLD = 7.0         # CUSUM: the sum that alarms (measured, not exact)
SPAN = max(AFTER)       # CUSUM: newest runs summed at most
MIN_REF = 12            # CUSUM: runs its reference is read from at least
NORMAL = NormalDist()


def rise_p(before, after):
    """P(the after-window's floor ranks this high or higher) with
    exchangeable runs."""
    n, k = len(before) + len(after), len(after)
    rank = 1 + sum(1 for v in before if v < min(after))
    return math.comb(n - rank + 1, k) / math.comb(n, k)


def drop_p(before, after):
    """P(this many after-runs or more below every run before) with
    exchangeable runs."""
    n, low = len(before) + len(after), min(before)
    count = sum(1 for v in after if v < low)
    return math.comb(len(after), count) / math.comb(n, count)


def calm(before, after):
    """The runs of both windows no more than TRIM above their pooled
    lower quartile: the runs other jobs did not raise.  The cut depends
    on the pooled runs only, not on which window a run is in."""
    pooled = sorted(before + after)
    top = pooled[len(pooled) // 4] + TRIM
    return [v for v in before if v <= top], [v for v in after if v <= top]


def calm_p(before, after, side):
    """P(this many or more (before, after) pairs of calm runs with the
    after-run above -- rise -- or below -- drop) with exchangeable runs:
    the Mann-Whitney count of the calm runs.  Given which runs are calm
    (a function of the pooled runs), the calm runs' windows are a random
    split of them, so the exact null is Mann-Whitney's; a tie counts for
    neither side (conservative)."""
    lows, lowa = calm(before, after)
    m, n = len(lows), len(lowa)
    if not m or not n:
        return 1.0
    if side == "rise":
        u = sum(1 for a in lowa for b in lows if a > b)
    else:
        u = sum(1 for a in lowa for b in lows if a < b)
    return mann_whitney_cdf(m, n)[m * n - u]      # P(U >= u), symmetric


TESTS = {("rise", FLOOR): rise_p, ("drop", FLOOR): drop_p}
CALM_TESTS = {("rise", CALM): lambda b, a: calm_p(b, a, "rise"),
              ("drop", CALM): lambda b, a: calm_p(b, a, "drop")}


def normal_score(calm, v):
    """The normal score of v's mid-rank among the sorted calm runs:
    bounded by the reference's size, whatever the tails."""
    lo, hi = bisect.bisect_left(calm, v), bisect.bisect_right(calm, v)
    return NORMAL.inv_cdf((lo + 0.5 * (hi - lo) + 0.5) / (len(calm) + 1))


def run_scores(row, start, score=normal_score, least=MIN_REF):
    """{run: score} of one series' runs from `start` on that are not
    raised (`score`, of a run among the calm runs of up to BEFORE runs
    before `start`; a run more than TRIM above their lower quartile is
    raised); {} when fewer than `least` of those runs have a floor.
    row: [log floor or None per run]."""
    ref = sorted(v for v in row[max(0, start - BEFORE):start]
                 if v is not None)
    if len(ref) < least:
        return {}
    top = ref[len(ref) // 4] + TRIM
    calm = [v for v in ref if v <= top]
    return {i: score(calm, row[i]) for i in range(start, len(row))
            if row[i] is not None and row[i] <= top}


def sides(scores, start, k):
    """[(statistic, side, first run summed)]: one-sided CUSUMs, reference
    k, of {run: score} (a run without a score neither evidence nor a
    reset)."""
    sums = {"rise": [0.0, start], "drop": [0.0, start]}
    for i in sorted(scores):
        z = scores[i]
        for side, step in (("rise", z - k), ("drop", -z - k)):
            if sums[side][0] <= 0:
                sums[side][1] = i
            sums[side][0] = max(0.0, sums[side][0] + step)
    return [(s, side, first) for side, (s, first) in sums.items()]


def cusum(vals, k=K_REF, score=normal_score, least=MIN_REF):
    """[(statistic, side, first run summed)] of the newest run: one-sided
    CUSUMs (reference k) of the normal scores (`score`) of the newest
    SPAN runs' floors among the calm runs of up to BEFORE runs before
    them (at least `least`); a run more than TRIM above the reference's
    lower quartile is raised and skipped, neither evidence nor reset.
    (k, score and least are the simulation's to compare.)"""
    n = len(vals)
    start = max(least, n - SPAN)
    if start >= n:
        return []
    return sides(run_scores(vals, start, score, least), start, k)


def cusums(rows, threshold, series=cusum):
    """{key: (statistic, side, first run summed, test)} of the series
    whose CUSUM (`series` of its floors) reaches `threshold` at the
    newest run: its larger side, the run a run index of the family.
    rows: {key: [log floor or None per run]}, the series tested."""
    out = {}
    for key, row in rows.items():
        where = [i for i, v in enumerate(row) if v is not None]
        sums = [c for c in series([row[i] for i in where])
                if c[0] >= threshold]
        if sums:
            stat, side, first = max(sums)
            out[key] = (stat, side, where[first], CUSUM)
    return out


class Watch:
    """One check's outcome: `changes` (newest, at most one per series),
    `level` the level of each test, `tests` their number, `runs`, the
    `horizon` alpha is spent over and the CUSUM's `threshold`."""

    def __init__(self, changes, level, tests, runs, horizon,
                 threshold=THRESHOLD):
        self.changes, self.level, self.tests = changes, level, tests
        self.runs, self.horizon, self.threshold = runs, horizon, threshold

    def newest(self):
        return self.changes


def windows(n):
    """[(K, first before-run, first after-run)] a check of n runs tests."""
    return [(k, max(0, n - k - BEFORE), n - k) for k in AFTER
            if n - k >= MIN_BEFORE]


def series_tests(vals):
    """[(p, side, K, split, test)] of one series of floors at its newest
    run."""
    out = []
    for k, lo, t in windows(len(vals)):
        before, after = vals[lo:t], vals[t:]
        for (side, test), fn in sorted(TESTS.items()):
            out.append((fn(before, after), side, k, t, test))
    return out


def place(vals, side, k, t, test=FLOOR):
    """The first run after a change a test found at split t: the split
    from t - k on whose after-window (to the newest run) the same test
    finds least likely -- an earlier split takes in unchanged runs, a
    later one fewer changed ones.  (A least-squares step is pulled off
    its place by the runs other jobs raised.)"""
    test = TESTS[(side, test)]
    best = None
    for split in range(max(MIN_BEFORE, t - k), len(vals) - 1):
        p = test(vals[max(0, split - BEFORE):split], vals[split:])
        if best is None or p < best[0]:
            best = (p, split)
    return best[1] if best else t


def _cusum_change(key, vals, where, stat, side, run, test):
    """The change a CUSUM found: from `run`, the first run it summed (or
    the series' first floor after it)."""
    first = bisect.bisect_left(where, run)
    change = Change(key, where[first], stat, "level",
                    vals[max(0, first - BEFORE):first], vals[first:])
    change.p, change.side, change.window = None, side, len(vals) - first
    change.test = test
    return describe(change, vals)


def _change(key, vals, where, p, side, k, t, test):
    """The change a test found, placed (place()) and described like a
    one-look change: the shift of the floors after over those before."""
    at = place(vals, side, k, t, test)
    change = Change(key, where[at], -math.log10(max(p, 1e-300)),
                    "level", vals[max(0, at - BEFORE):at], vals[at:])
    change.p, change.side, change.window = p, side, k
    change.test = test
    return describe(change, vals)


def watch(family, runs, alpha=ALPHA, horizon=HORIZON, threshold=None,
          sums=cusums):
    """The changes the newest run completes in a family of floors,
    {key: [log floor or None per run]} over `runs` runs: the exact
    tests', else the CUSUM's alarming at `threshold` (THRESHOLD when
    None).  A series without a floor in the newest run is not tested at
    this check.  sums: the CUSUM step, (rows of the series tested,
    threshold) -> {key: (statistic, side, first run summed, test)}:
    cusums(), or a design the simulation compares."""
    threshold = THRESHOLD if threshold is None else threshold
    tested = {}
    for key, row in family.items():
        if row and row[-1] is not None:
            where = [i for i, v in enumerate(row) if v is not None]
            vals = [row[i] for i in where]
            tested[key] = (vals, where, series_tests(vals))
    count = sum(len(t[2]) for t in tested.values())
    level = alpha / horizon / count if count else None
    alarms = sums({k: family[k] for k in tested}, threshold)
    changes = []
    for key in sorted(tested, key=str):
        vals, where, tests = tested[key]
        hits = [t for t in tests if t[0] <= level]
        if hits:
            changes.append(_change(key, vals, where, *min(hits)))
        elif key in alarms:
            changes.append(_cusum_change(key, vals, where, *alarms[key]))
    return Watch(changes, level, count, runs, horizon, threshold)


class Alarm:
    """A change the checks after every run raised: `change` as the first
    check that alarmed placed it, `first` that check (the runs it had),
    `checks` every check that alarmed on it (same series, side and
    place)."""

    def __init__(self, change, first):
        self.change, self.first, self.checks = change, first, [first]


def first_alarm(family, first, last, alpha=ALPHA, horizon=HORIZON,
                threshold=None, sums=cusums):
    """(n, changes) of the first check, after run n in first..last, that
    alarms -- a job that stops at its first alarm -- or (None, [])."""
    for n in range(first, last + 1):
        found = watch({k: v[:n] for k, v in family.items()}, n, alpha,
                      horizon, threshold, sums)
        if found.changes:
            return n, found.changes
    return None, []


def replay(family, runs, alpha=ALPHA, horizon=HORIZON, threshold=None,
           sums=cusums):
    """The alarms a job checking after each of `runs` runs would have
    raised, in the order raised: [Alarm].  A change seen again by later
    checks is one alarm with those checks listed."""
    alarms, seen = [], {}
    for n in range(1, runs + 1):
        found = watch({k: v[:n] for k, v in family.items()}, n, alpha,
                      horizon, threshold, sums)
        for change in found.changes:
            mark = (str(change.key), change.side, change.index)
            if mark in seen:
                seen[mark].checks.append(n)
                continue
            seen[mark] = Alarm(change, n)
            alarms.append(seen[mark])
    return alarms


# Boots a run, measured (docs/design.md, "History", "Boots a run"): the
# median number of runs after a +1 % step per QEMU exit until a check
# after every run flags it, replays and model of this host's recorded
# runs, by the boots each run has.  docs/ci.md's job runs RECIPE_BOOTS.
RECIPE_BOOTS = 9
STEP_DELAY = {3: "17-23", 5: "12-16", 9: "9-11", 15: "8-10.5"}
STEP_DELAY_BY = ("tests/host/history_simulation.py --parts watch-step "
                 "--steps 1 --boots B")


def boots_note(boots):
    """One line for a series whose newest run has fewer boots than the
    recipe's: how soon +1 % per QEMU exit was found with its boots and
    with the recipe's (measured), or None."""
    if boots is None or boots >= RECIPE_BOOTS:
        return None
    have = max((b for b in STEP_DELAY if b <= boots), default=None)
    return ("the newest run has %d boots: +1 %% per QEMU exit was found "
            "%s runs after the step (median) with %s a run, %s with %d "
            "(docs/ci.md's --repeat %d; measured: %s)" % (
                boots, STEP_DELAY[have] if have else "not measured",
                have if have else "fewer than %d" % min(STEP_DELAY),
                STEP_DELAY[RECIPE_BOOTS], RECIPE_BOOTS, RECIPE_BOOTS,
                STEP_DELAY_BY))
