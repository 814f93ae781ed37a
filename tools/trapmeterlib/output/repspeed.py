"""A REP speed-up as the summary shows it: the single-unit loop's median
over the REP row's, same port, direction, width and size, and -- from one
boot -- the interval its samples give (stats/medianci.py), whether or not
the guest's stopping rule settled either row (docs/design.md, "A REP
speed-up when the rule did not settle").  Pure: no I/O."""

from ..guest import rounds
from ..stats import medianci
from ..values import figure
from ..values.numbers import is_number
from . import report

REP_BYTES = 4096
# of a REP speed-up's interval from one boot's samples: 6 samples a side
# reach it from their minima and maxima (stats/medianci.py); the guest's
# floor under a budget stop is 6 (kernel/bench.c BENCH_MIN_SAMPLES)
REP_LEVEL = 0.90


def times(value):
    return ("%.0f" if value >= 100 else "%.1f") % value


def rep_pairs(results):
    """(REP row, its single-unit twin) at 4 KiB, page-aligned, where the
    REP row has a speed-up."""
    singles = {report.pair_key(r): r for r in results
               if r.get("method") == "single"}
    for res in results:
        if res.get("method") != "rep" or res.get("bytes") != REP_BYTES \
                or res.get("buf_offset") or not is_number(res.get("speedup")):
            continue
        twin = singles.get(report.pair_key(res))
        if twin is not None:
            yield res, twin


def boot_speedup(rep, single):
    """One boot's speed-up: single median / REP median, with the interval
    its samples give at REP_LEVEL, or not resolved (too few samples)."""
    pooled = rounds.rounds_of(rep) == 1 and rounds.rounds_of(single) == 1
    got = medianci.ratio_interval(single.get("cycles"), single.get("samples"),
                                  rep.get("cycles"), rep.get("samples"),
                                  REP_LEVEL, quantiles=pooled)
    if got is None:
        return figure.not_resolved(
            "too few samples for a %d %% interval (%d a side; \"samples\" "
            "in results.json)" % (round(100 * REP_LEVEL),
                                  medianci.samples_needed(REP_LEVEL)))
    lo, hi, _sure = got
    return figure.measured(rep["speedup"], [lo, hi])


REP_RANGE_NOTE = ("  (a-b): where the ratio of medians lies, at least %d %% "
                  "sure, from this boot's samples" % round(100 * REP_LEVEL))


def asymmetric(fig):
    lo, hi = fig.interval
    return abs((lo + hi) / 2.0 - fig.value) > 1e-9 * max(1.0, abs(fig.value))


def speedup_text(fig, short=True):
    """"403x", "5.6±7.6x" (over boots), "114x (99-123)" (one boot's
    samples), or n.r. (short=False: with the reason)."""
    if not fig.resolved:
        return figure.text(fig, short=short)
    if fig.interval and asymmetric(fig):
        return "%sx (%s-%s)" % (times(fig.value), times(fig.interval[0]),
                                times(fig.interval[1]))
    return figure.text(fig, number=times) + "x"
