"""Exit counts compared as counts over their measured background
(compare.py calls exits_rule for each exits_per_op row that is not an
average; docs/design.md, "Exit counts are counts over their
background")."""

from ..values.numbers import is_number
from .compare_notes import side_text
from .verdict import BY_COUNT, NOT_JUDGED
from .bootstats import median

EXITS_CHANGED = 0.10        # relative change of exits/op worth reporting
EXITS_FLOOR = 0.5           # exits/op below this count as "no exit"
# a file without a measured background (an older runner): its count may
# hold this share of the model's count, and at least OLD_BACKGROUND exits
# per op, of background (its counts of one-exit cases moved by up to 0.15
# between A/A boots: kvm-base.json's pio.kernel 0.146, -0.002, -0.004)
EXITS_MODEL_SHARE = 0.05
OLD_BACKGROUND = 0.25
# a boot's measured background (a 100 ms spin) against a case's window:
# kvm-run3's pic.in8.single.512, which QMP sees nothing of, read 3.1
# exits/op where its boot's background said 1.8
BACKGROUND_SLACK = 2.0


def _num(value):
    return float(value) if is_number(value) else None


def allowance(entry):
    """The background exits per op a side's count may hold: BACKGROUND_SLACK
    times the largest its counted boots measured (exits_background_max:
    the boot's background rate over a 100 ms spin, times the case's
    window), or for a file without it (an older runner)
    EXITS_MODEL_SHARE of the model's count, at least OLD_BACKGROUND."""
    measured = [v for v in entry.get("background") or () if v is not None]
    if measured:
        return BACKGROUND_SLACK * max(measured)
    model = _num(entry["res"].get("exits_model")) or 0.0
    return max(EXITS_MODEL_SHARE * model, OLD_BACKGROUND)


def exact(obs, background):
    """Is a side's count the same in every counted boot, up to its
    background (a count that moves from boot to boot by more is not
    exact, and is judged as a statistic over boots, avgcount)?"""
    values = [v for _n, v in obs]
    return len(values) < 2 or max(values) - min(values) <= \
        background + EXITS_CHANGED * max(median(values), EXITS_FLOOR)


def exits_rule(row, base, cand, res):
    """Exact exit counts: each boot's count is the case's exits plus at
    most its background (row.background, per side), so a side's own count
    lies in [min - background, max] of its boots.  A side whose counts are
    all within its background sees nothing of the case: when both sides do,
    the counter cannot judge it (NOT_JUDGED: QMP on a port the kernel
    answers).  A change is a pair of disjoint ranges whose medians also
    differ by more than EXITS_CHANGED (a move worth reporting); overlapping
    ranges are unchanged.  No level is spent: a false change needs a
    background beyond the largest its boots measured, on both sides."""
    gb, gc = row.background
    b = max(row.base if row.base is not None else 0.0, EXITS_FLOOR)
    c = max(row.cand if row.cand is not None else 0.0, EXITS_FLOOR)
    row.ratio, row.estimator = c / b, BY_COUNT
    row.lo = row.hi = None
    if max(base) <= gb and max(cand) <= gc:
        row.verdict = NOT_JUDGED
        row.notes.append(
            "not judged: the %s counter sees only background here (base "
            "%s, candidate %s exits/op, within the background of up to "
            "%s and %s per op)%s" % (
                res.get("exits_source") or "exit", side_text(row, "base"),
                side_text(row, "cand"), fmt_count(gb), fmt_count(gc),
                "; perf judges it (run --exit-counter perf or both)"
                if res.get("exits_source") == "qmp" else ""))
        return
    moved = abs(c - b) > EXITS_CHANGED * b
    if moved and min(cand) - gc > max(base):
        row.verdict = "regression"
    elif moved and min(base) - gb > max(cand):
        row.verdict = "improvement"
    else:
        row.verdict = "unchanged"


def fmt_count(value):
    return "%.3g" % value
