"""The paired rounds stats/kutcmp.py judges, and a difference's spread
over them.  commands/kut_boots.py builds the rounds: per round vmexit's figure
per vmexit name ("vmexit"), trapmeter's row per twin name ("trapmeter")
and per case ("cases"), vmexit's loop waits (stats/kutwait.py).  A picker
reads one figure of a round; a difference is taken round by round (the
pairing cancels a round's level) and its spread is (median, low, high, n)
over the rounds: the range, or from 8 rounds the median's 90 % interval
(spread, depth).  A difference keeps the round it came from (Reading), so
two spreads of one row pair round by round (round_by_round)."""

import math

from .bootstats import median

# a spread's ends are the k-th lowest and k-th highest of its n rounds,
# the deepest k whose [x(k), x(n+1-k)] holds the rounds' true median at
# least this often, whatever their distribution (binomial(n, 1/2)): under
# 8 rounds k is 1, the range; more rounds narrow it toward the median
MEDIAN_COVER = 0.90


def median_cover(n, k):
    """How often [x(k), x(n+1-k)] of n rounds holds their median:
    1 - 2 P(Binomial(n, 1/2) <= k - 1)."""
    return 1.0 - 2.0 * sum(math.comb(n, i) for i in range(k)) / 2.0 ** n


def depth(n):
    """k of a spread of n rounds (1: the range)."""
    k = 1
    while 2 * (k + 1) <= n and median_cover(n, k + 1) >= MEDIAN_COVER:
        k += 1
    return k


class Reading(float):
    """A figure of one round, and that round: the round object itself
    (every try of a row reads the same round objects)."""
    round = None


def at(boot, value):
    """value as a Reading of round boot."""
    out = Reading(value)
    out.round = boot
    return out


class Spread(tuple):
    """(median, low, high, n), and the numbers it was taken over."""
    readings = ()


def spread(values):
    """(median, low, high, n) of the numbers among values, low and high
    depth(n) from each end; None if none."""
    nums = sorted(v for v in values if isinstance(v, (int, float)))
    if not nums:
        return None
    k = depth(len(nums))
    out = Spread((median(nums), nums[k - 1], nums[-k], len(nums)))
    out.readings = nums
    return out


def by_round(a, b):
    """[(round, a's figure, b's)] over the rounds both spreads' Readings
    come from, in a's order."""
    theirs = {id(v.round): v for v in getattr(b, "readings", ())
              if isinstance(v, Reading) and v.round is not None}
    return [(v.round, float(v), float(theirs[id(v.round)]))
            for v in getattr(a, "readings", ())
            if isinstance(v, Reading) and id(v.round) in theirs]


def round_by_round(a, b):
    """The spread of a - b over the rounds both spreads' Readings come
    from, or None under two such rounds."""
    out = [x - y for _, x, y in by_round(a, b)]
    return spread(out) if len(out) >= 2 else None


def boots_text(n):
    """"n boots", and where the ends are not the range, how deep."""
    k = depth(n)
    if k == 1:
        return "%d boot%s" % (n, "" if n == 1 else "s")
    return "%d boots, %s from each end" % (n, ordinal(k))


def ordinal(k):
    """1st, 2nd, 3rd, 4th, ... 11th, 21st."""
    if k % 100 in (11, 12, 13):
        return "%dth" % k
    return "%d%s" % (k, {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th"))


def overlap(a, b):
    """Whether two spreads' [low, high] ranges meet."""
    return a is not None and b is not None and a[1] <= b[2] and b[1] <= a[2]


def diffs(boots, name, ref, pick):
    """[pick(name) - pick(ref)] of the rounds where both are numbers."""
    out = []
    for boot in boots:
        x, y = pick(boot, name), pick(boot, ref)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            out.append(at(boot, x - y))
    return out


def pick_vm(boot, name):
    """vmexit's figure of name in a round."""
    return boot["vmexit"].get(name)


def pick_tm(key):
    """A picker of key of trapmeter's twin row of a vmexit name."""
    def pick(boot, name):
        row = boot["trapmeter"].get(name)
        return row.get(key) if row else None
    return pick


def pick_twin(boots, name, key):
    """A per-boot picker of trapmeter's twin of `name` (key of its row)."""
    def pick(boot, _n):
        row = boot["trapmeter"].get(name)
        return row.get(key) if row else None
    return pick


def pick_case(case, key):
    """A per-boot picker of key of trapmeter's row of case."""
    def pick(boot, _n):
        row = boot["cases"].get(case)
        return row.get(key) if row else None
    return pick


def twin_case(boots, name):
    """The trapmeter case that stands beside vmexit's name, or None."""
    return next((b["trapmeter"][name].get("case") for b in boots
                 if b["trapmeter"].get(name)), None)


def loop_of(boots, name):
    """The loop trapmeter's twin of name runs in, or None."""
    return next((b["trapmeter"][name].get("loop") for b in boots
                 if b["trapmeter"].get(name)), None)


def pair(boots, a, b):
    """a(boot) - b(boot) over boots where both are numbers."""
    out = []
    for boot in boots:
        x, y = a(boot, None), b(boot, None)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            out.append(at(boot, x - y))
    return spread(out)


def row_gross(boots, name, ref):
    """trapmeter's gross difference name - ref over the rounds."""
    return spread(diffs(boots, name, ref, pick_tm("gross")))


def fmt_level(sp):
    """A spread of levels as "m (lo-hi, n boots)"."""
    return "%.0f (%.0f-%.0f, %s)" % (sp[:3] + (boots_text(sp[3]),))


def fmt_range(sp):
    """A spread of differences as "+m (+lo..+hi, n boots)"."""
    if sp is None:
        return "not resolved"
    if sp[3] == 1:
        return "%+.0f (1 boot)" % sp[0]
    return "%+.0f (%+.0f..%+.0f, %s)" % (sp[:3] + (boots_text(sp[3]),))
