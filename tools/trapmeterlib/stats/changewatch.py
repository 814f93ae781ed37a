"""A history checked after every run (`history check --every-run`): does
the newest run complete a change?  Each check is one test at a level
spent from a budget, so the false alarms of a whole series of checks are
bounded, not those of one look.

The unit is a run's floor: the lowest of its boots' figures (log cycles
per op).  The noise of this host is one-sided -- other jobs only add
time, and a boot is either calm or raised by 15-35 % (recorded:
tests/fixtures/kvm-history-aa.json) -- so the lowest boot is the run's
best estimate of what the build costs, and a run is raised as a whole
only when every boot was.

At a check of n runs, for each after-window of K runs (K in AFTER, the
newest K runs) against up to BEFORE runs before it (at least
MIN_BEFORE), four exact one-sided tests on each timing series:

  rise, lowest floor   the after-window's lowest floor lies above r - 1
        of the N runs of both windows; with exchangeable runs the
        chance of that or more is C(N - r + 1, K) / C(N, K);
  drop, lowest floor   L of the after-window's floors lie below every
        floor before it; the chance that the L lowest of N are all
        after-runs is C(K, L) / C(N, L);
  rise and drop, calm runs' ranks   the runs no more than TRIM (2 %)
        above the windows' pooled lower quartile are the calm ones; the
        Mann-Whitney count of calm (before, after) pairs with the
        after-run above (rise) or below (drop), judged by its exact
        distribution for the calm runs of each window (calm(): which
        runs are calm depends on the pooled runs only, so the calm runs'
        windows are a random split of them).

None needs shuffles; each holds whatever the distribution of a run's
floor.  The lowest floor is read from the after-window's calm floor, so
raised runs after a step do not hide it, but raised runs BEFORE the step
outrank a step smaller than the raising until the calm runs outnumber
them.  The calm runs' ranks leave the raised runs out on both sides and
use every calm run: a step of 2 calm sds (+1 % per QEMU exit on this
host) is found 16 runs after it (median), where the lowest floor alone
needs 24-28;
a step beyond TRIM leaves the after-window without calm runs, and the
lowest floor finds it (measured: tests/host/history_simulation.py
--parts watch-step, docs/design.md "History").

Every test of a check (4 x |AFTER| x timing series) gets
alpha / horizon / tests (Bonferroni): with exchangeable runs the chance
that one check alarms is at most alpha / horizon, and that any of
`horizon` checks alarms at most alpha, whatever the dependence between
checks (the union bound).  A series checked for longer spends alpha per
`horizon` checks: the false-alarm rate per check stays alpha / horizon.
ALPHA is 2 %, not 5 %: a host whose busy spells last several runs is not
exchangeable, and in a model of this host (tests/host/history_simulation.py)
5 % gave 2.5 % of 100-run A/A series an alarm, 99 % upper bound 6.4 %.

Pure: lists of numbers in, Change records out."""

import math

from .bootstats import mann_whitney_cdf
from .changepoint import Change, describe

AFTER = (5, 8, 12, 16, 24, 32)   # after-windows tested at every check
BEFORE = 40                      # runs before an after-window at most
MIN_BEFORE = 8                   # ... and at least
ALPHA = 0.02                     # false alarms over HORIZON checks
HORIZON = 100                    # checks alpha is spent over
TRIM = math.log(1.02)            # a floor this far above the windows'
                                 # lower quartile is a raised run
FLOOR, CALM = "lowest floor", "calm runs' ranks"   # the two tests


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


TESTS = {("rise", FLOOR): rise_p, ("drop", FLOOR): drop_p,
         ("rise", CALM): lambda b, a: calm_p(b, a, "rise"),
         ("drop", CALM): lambda b, a: calm_p(b, a, "drop")}


class Watch:
    """One check's outcome: `changes` (newest, at most one per series),
    `level` the level of each test, `tests` their number, `runs`, and
    the `horizon` alpha is spent over."""

    def __init__(self, changes, level, tests, runs, horizon):
        self.changes, self.level, self.tests = changes, level, tests
        self.runs, self.horizon = runs, horizon

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


def _change(key, vals, where, p, side, k, t, test):
    """The change a test found, placed (place()) and described like a
    one-look change: the shift of the floors after over those before."""
    at = place(vals, side, k, t, test)
    change = Change(key, where[at], -math.log10(max(p, 1e-300)),
                    "level", vals[max(0, at - BEFORE):at], vals[at:])
    change.p, change.side, change.window = p, side, k
    change.test = test
    return describe(change, vals)


def watch(family, runs, alpha=ALPHA, horizon=HORIZON):
    """The changes the newest run completes in a family of floors,
    {key: [log floor or None per run]} over `runs` runs.  A series
    without a floor in the newest run is not tested at this check."""
    tested = {}
    for key, row in family.items():
        if row and row[-1] is not None:
            where = [i for i, v in enumerate(row) if v is not None]
            vals = [row[i] for i in where]
            tested[key] = (vals, where, series_tests(vals))
    count = sum(len(t[2]) for t in tested.values())
    level = alpha / horizon / count if count else None
    changes = []
    for key in sorted(tested, key=str):
        vals, where, tests = tested[key]
        hits = [t for t in tests if t[0] <= level]
        if hits:
            changes.append(_change(key, vals, where, *min(hits)))
    return Watch(changes, level, count, runs, horizon)


class Alarm:
    """A change the checks after every run raised: `change` as the first
    check that alarmed placed it, `first` that check (the runs it had),
    `checks` every check that alarmed on it (same series, side and
    place)."""

    def __init__(self, change, first):
        self.change, self.first, self.checks = change, first, [first]


def first_alarm(family, first, last, alpha=ALPHA, horizon=HORIZON):
    """(n, changes) of the first check, after run n in first..last, that
    alarms -- a job that stops at its first alarm -- or (None, [])."""
    for n in range(first, last + 1):
        found = watch({k: v[:n] for k, v in family.items()}, n, alpha,
                      horizon)
        if found.changes:
            return n, found.changes
    return None, []


def replay(family, runs, alpha=ALPHA, horizon=HORIZON):
    """The alarms a job checking after each of `runs` runs would have
    raised, in the order raised: [Alarm].  A change seen again by later
    checks is one alarm with those checks listed."""
    alarms, seen = [], {}
    for n in range(1, runs + 1):
        found = watch({k: v[:n] for k, v in family.items()}, n, alpha,
                      horizon)
        for change in found.changes:
            mark = (str(change.key), change.side, change.index)
            if mark in seen:
                seen[mark].checks.append(n)
                continue
            seen[mark] = Alarm(change, n)
            alarms.append(seen[mark])
    return alarms
