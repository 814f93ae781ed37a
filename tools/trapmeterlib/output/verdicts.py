"""A comparison's one-screen head (compare's and ab's): the verdict
counts, the flagged metrics with their shift and interval, and the
detection limit the session reached, from compare's rows (its --json),
every figure through values/figure.py.  Pure: no I/O."""

import math

from ..stats.compare import BY_MODE, NOT_INTERLEAVED, NOT_JUDGED, REFUSED
from ..stats.verdict import COUNT_METRICS
from ..values import figure
from ..values.numbers import is_number
from .summary import WIDTH, grouped

MAX_FLAGGED = 8             # flagged metrics shown before the table

VERDICTS = ("regression", "improvement", "unchanged", "inconclusive")
WITHHELD = (NOT_INTERLEAVED, NOT_JUDGED, REFUSED)   # shown when present


def _count(row, side):
    """One side's exits per op, or "n.r. (reason)": a count below zero or
    missing is never shown as a number (the figure rule)."""
    value = row.get(side)
    if is_number(value) and value >= 0:
        return figure.text(figure.measured(value), number=grouped)
    return figure.text(figure.not_resolved(
        row.get(side + "_reason") or "no count"), short=False)


def shift_text(row):
    """"+1.8 % [+1.1..+2.4]" of the shift a row's verdict was decided on
    and its interval at the test's level, "changed mode 8 % -> 58 % of
    boots slow", or the exit path change."""
    if row.get("metric") in COUNT_METRICS and not row.get("averaged_count"):
        return "exits %s -> %s per op" % (_count(row, "base"),
                                          _count(row, "candidate"))
    mode = row.get("mode")
    if row.get("estimator") == BY_MODE and mode:
        return "changed mode %s -> %s of boots slow" % tuple(
            figure.percent_text(figure.measured(k / n), places=0)
            for k, n in (mode["base"], mode["candidate"]))
    ratio = row.get("ratio")
    if not is_number(ratio):
        return figure.text(figure.not_resolved("no ratio"), short=False)
    ci = row.get("interval") or [None, None]
    ends = [ci[0] - 1.0, ci[1] - 1.0] if is_number(ci[0]) and \
        is_number(ci[1]) else None
    out = figure.percent_text(figure.measured(ratio - 1.0, ends), signed=True)
    return "average exits " + out if row.get("averaged_count") else out


def flagged_line(row):
    p = row.get("p_mode") if row.get("estimator") == BY_MODE \
        else row.get("p_familywise")
    return "  %-11s %-33s %-15s %s%s" % (
        row.get("verdict"), "%s/%s" % (row.get("suite"), row.get("case")),
        row.get("metric"), shift_text(row),
        "  p %.3g" % p if is_number(p) else "")


def limit_line(rows):
    """The detection limit the comparison reached: the resolution of its
    inconclusive timing rows."""
    res = sorted(r["resolution"] for r in rows
                 if r.get("verdict") == "inconclusive"
                 and is_number(r.get("resolution")))
    if not res:
        if any(r.get("verdict") == "inconclusive" for r in rows):
            return ("detection limit: not resolved (no inconclusive row has "
                    "the boots for a resolution)")
        return "detection limit: every metric decided"
    mid = res[len(res) // 2]
    if round(100 * res[0], 1) == round(100 * res[-1], 1):
        return ("detection limit: the inconclusive timing rows resolve "
                "%.1f %%" % (100 * res[0]))
    return ("detection limit: the inconclusive timing rows resolve "
            "%.1f-%.1f %% (median %.1f %%)" % (100 * res[0], 100 * res[-1],
                                               100 * mid))


def compare_summary(rows, title, boots=None):
    """Lines heading compare's and ab's table; rows are compare's JSON rows
    (Row.as_dict())."""
    counts = {v: 0 for v in VERDICTS}
    for r in rows:
        counts[r.get("verdict")] = counts.get(r.get("verdict"), 0) + 1
    lines = [title if len(title) <= WIDTH else title[:WIDTH - 3] + "..."]
    sides = " (%d+%d boots)" % tuple(boots) if boots else ""
    lines.append("verdicts%s: " % sides + ", ".join(
        "%d %s" % (counts[v], v) for v in VERDICTS
        + tuple(v for v in WITHHELD if counts.get(v))))
    flagged = [r for r in rows if r.get("verdict") in ("regression",
                                                       "improvement")]
    flagged.sort(key=lambda r: -abs(math.log(r["ratio"]))
                 if is_number(r.get("ratio")) and r["ratio"] > 0 else 0)
    if flagged:
        lines.append("flagged, largest shift first (the test's shift "
                     "[interval at its level], p over the run):")
        lines += [flagged_line(r)[:WIDTH] for r in flagged[:MAX_FLAGGED]]
        if len(flagged) > MAX_FLAGGED:
            lines.append("  ... %d more in the table" % (len(flagged)
                                                          - MAX_FLAGGED))
    else:
        lines.append("flagged: none")
    lines.append(limit_line(rows))
    return lines
