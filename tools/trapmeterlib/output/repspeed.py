"""A REP speed-up as the summary shows it: the single-unit loop's median
over the REP row's, same port, direction, width and size, by the one
rule of stats/speedup.py (one boot: with the interval its samples give,
whether or not the guest's stopping rule settled either row;
docs/design.md, "A REP speed-up when the rule did not settle"), shown
by values/figure.times_text.  Pure: no I/O."""

from ..stats import speedup
from ..values import figure
from . import report

REP_BYTES = 4096
REP_LEVEL = speedup.LEVEL
times = figure.times
boot_speedup = report.boot_speedup


def rep_pairs(results):
    """(REP row, its single-unit twin) at 4 KiB, page-aligned, where both
    have a median to divide."""
    singles = report.twins(results)
    for res in results:
        if res.get("method") != "rep" or res.get("bytes") != REP_BYTES \
                or res.get("buf_offset"):
            continue
        twin = singles.get(report.pair_key(res))
        if twin is not None and speedup.ratio(twin, res) is not None:
            yield res, twin


REP_RANGE_NOTE = "  " + speedup.BOOT_NOTE


def speedup_text(fig, short=True):
    """"114x (99-123)", or n.r. (short=False: with the reason):
    values/figure.times_text."""
    return figure.times_text(fig, short=short)
