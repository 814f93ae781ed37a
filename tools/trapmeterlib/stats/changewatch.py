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
MIN_BEFORE), two exact one-sided tests on each timing series:

  rise  the after-window's lowest floor lies above r - 1 of the N runs
        of both windows; with exchangeable runs the chance of that or
        more is C(N - r + 1, K) / C(N, K);
  drop  L of the after-window's floors lie below every floor before it;
        the chance that the L lowest of N are all after-runs is
        C(K, L) / C(N, L).

Both need no shuffles and hold whatever the distribution of a run's
floor.  A rise is judged by the after-window's calm floor, so raised
runs after a step do not hide it; raised runs BEFORE the step are what
limits power: a step smaller than the raising is found only once every
raised run before the window is outnumbered (measured:
tests/host/history_simulation.py --parts watch-step, docs/design.md
"History").

Every test of a check (2 sides x |AFTER| x timing series) gets
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

from .changepoint import Change, describe

AFTER = (5, 8, 12, 16, 24, 32)   # after-windows tested at every check
BEFORE = 40                      # runs before an after-window at most
MIN_BEFORE = 8                   # ... and at least
ALPHA = 0.02                     # false alarms over HORIZON checks
HORIZON = 100                    # checks alpha is spent over


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
    """[(p, side, K, split)] of one series of floors at its newest run."""
    out = []
    for k, lo, t in windows(len(vals)):
        before, after = vals[lo:t], vals[t:]
        out.append((rise_p(before, after), "rise", k, t))
        out.append((drop_p(before, after), "drop", k, t))
    return out


def place(vals, side, k, t):
    """The first run after a change a test found at split t: the split
    from t - k on whose after-window (to the newest run) the same test
    finds least likely -- an earlier split takes in unchanged runs, a
    later one fewer changed ones.  (A least-squares step is pulled off
    its place by the runs other jobs raised.)"""
    test = rise_p if side == "rise" else drop_p
    best = None
    for split in range(max(MIN_BEFORE, t - k), len(vals) - 1):
        p = test(vals[max(0, split - BEFORE):split], vals[split:])
        if best is None or p < best[0]:
            best = (p, split)
    return best[1] if best else t


def _change(key, vals, where, p, side, k, t):
    """The change a test found, placed (place()) and described like a
    one-look change: the shift of the floors after over those before."""
    at = place(vals, side, k, t)
    change = Change(key, where[at], -math.log10(max(p, 1e-300)),
                    "level", vals[max(0, at - BEFORE):at], vals[at:])
    change.p, change.side, change.window = p, side, k
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
