"""Two judgments of measured exit counts, pure, beside the counting
(counters/exitcount.py) and the table (output/report.py) that both give
them: two counters that differ, and a count off the exit model.

Below MIN_EXITS_FOR_COST exits per op a cycles/exit figure means nothing
(counters/exitcount.py); against a model of no exits, that many measured
is a mismatch."""

from ..values.numbers import number_or_none

MIN_EXITS_FOR_COST = 0.5
MODEL_TOLERANCE = 0.10
# The two counters "differ" beyond this relative gap, and beyond this many
# exits per op and per timed window (QMP's count is whole exits over the
# window: over 15 ops one exit is 0.07 per op), so that near-zero counts
# and short windows do not flag.
COUNTERS_TOLERANCE = 0.01
COUNTERS_FLOOR = 0.05
COUNTERS_WINDOW_FLOOR = 2
ROUNDING = 0.0005               # half the last decimal of a per-op figure


def counters_differ(qmp_per_op, perf_per_op, ops, background_per_op=None):
    """More than COUNTERS_TOLERANCE apart, and more than the floors.  QMP's
    window also collects background exits perf's does not: an excess of QMP
    up to the reported background bound is explained, a shortfall never."""
    gap = qmp_per_op - perf_per_op
    if gap > 0:
        gap = max(0.0, gap - (background_per_op or 0))
    gap = abs(gap)
    # per-op figures carry 3 decimals: times ops, whole exits gain up to
    # ROUNDING * ops (2 missing exits in 11 ops read as 2.002)
    return bool(gap > COUNTERS_FLOOR
                and gap * ops > COUNTERS_WINDOW_FLOOR + ROUNDING * ops
                and gap > COUNTERS_TOLERANCE * max(abs(qmp_per_op),
                                                   abs(perf_per_op)))


def model_mismatch(per_op, model, background_per_op=None):
    """Measured exits per op more than MODEL_TOLERANCE off the model, or
    None when either is missing.  Above the model the background the
    window may hold (exits_background_max, per op) is allowed too: an op
    of a third of a millisecond takes about one idle exit of QMP's count
    with it, which says nothing about the exit path."""
    per_op, model = number_or_none(per_op), number_or_none(model)
    if per_op is None or model is None:
        return None
    if model <= 0:
        return per_op >= MIN_EXITS_FOR_COST
    background = number_or_none(background_per_op) or 0
    above = MODEL_TOLERANCE * model + max(background, 0)
    return bool(per_op - model > above or
                model - per_op > MODEL_TOLERANCE * model)
