"""A comparison's row and what its verdict rests on (stats/compare.py
builds and decides the rows; output/ renders them).

A row's printed figure -- ratio, lo, hi at level, estimator -- is the one
its verdict was decided on (decision(row)): the shift test's difference of
the undisturbed means with the interval of the shifts it would not reject
at its level, the equivalence test's Hodges-Lehmann shift with the Moses
interval it judged, the slow-mode shares, or the exit counts."""
import math

DEFAULT_THRESHOLD = 0.005   # t: 0.5 %, so that +1 % can be flagged
DEFAULT_ALPHA = 0.05        # false alarms, for all metrics of a run together
VERDICTS = ("regression", "improvement", "unchanged", "inconclusive")
# Counts are judged as counts: the exits measured per op, and the exits
# suite firmware's audit predicts from the instructions the firmware ran
# (guest/firmware_suite.py; deterministic, so two TCG runs compare too).
AUDIT_METRIC = "audit_exits_per_op"
COUNT_METRICS = ("exits_per_op", AUDIT_METRIC)
REFUSED = "refused"         # a timing verdict withheld: not measured alike
NOT_INTERLEAVED = "not interleaved"     # ... files not of one ab session
NOT_JUDGED = "not judged"   # an exit count its counter sees only background of
WITHHELD = (REFUSED, NOT_INTERLEAVED, NOT_JUDGED)   # no verdict to wait for
# the order rows are shown in: decided verdicts first, then inconclusive,
# then the rows no verdict can reach with these boots (undecidable)
VERDICT_ORDER = {"regression": 0, "improvement": 1, "unchanged": 2,
                 "inconclusive": 3, NOT_JUDGED: 5, NOT_INTERLEAVED: 5,
                 REFUSED: 5}
# what the printed shift and interval are of (Row.estimator)
BY_MEANS = "undisturbed means"      # the test's: shift of the band means
BY_RANKS = "Hodges-Lehmann"         # the equivalence test's (unchanged)
BY_MODE = "share outside the band"  # the slow-mode test's
BY_COUNT = "exit count"             # the count rule's


class Row:
    """One (case, metric) comparison.  ratio, lo, hi and level are the
    figure the verdict was decided on (decision()): the test's shift and
    the interval of the shifts it would not reject at its level."""

    def __init__(self, suite, case, metric, lower_is_better):
        self.suite, self.case, self.metric = suite, case, metric
        self.lower_is_better = lower_is_better
        self.base = self.cand = None
        self.ratio = self.lo = self.hi = None
        self.level = None           # the interval's coverage
        self.estimator = None       # what ratio is of (BY_*)
        self.hl = None              # Hodges-Lehmann over every boot (record)
        self.mode = None            # {"base": [k, n], "candidate": [k, n]}
        self.p = None               # family-wise, of the shift
        self.p_mode = None          # family-wise, of the slow-mode share
        self.alpha = DEFAULT_ALPHA  # the level the row was tested at
        self.n_base = self.n_cand = 0
        self.file_boots = (0, 0)    # boots with results in each file
        self.verdict = "inconclusive"
        self.notes = []
        self.threshold = DEFAULT_THRESHOLD
        self.shift = None           # log cost shift (candidate - base), HL
        self.floor_shift = None     # ... of the undisturbed boots' means
        self.logs = None            # ([base log costs], [cand log costs])
        self.boots = None           # ([base boot numbers], [cand ...])
        self.decided_at = None      # ab: {"boots_per_side", "seconds"}
        self.resolution = None      # smallest shift the test could flag
        self.spread = None          # sd of the undisturbed boots (factor)
        self.boots_for_target = None    # about, to resolve RESOLVE_TARGET
        self.target = None          # ... that target (1 %, or t above it)
        self.refused = []           # why the timing verdict is withheld
        self.equivalence = None     # the interval "unchanged" was judged by
        self.reasons = {}           # side ("base", "cand") -> not resolved why
        self.averaged = False       # exits_per_op of an average count
        self.background = None      # (base, cand) background exits per op

    @property
    def name(self):
        return "%s/%s" % (self.suite, self.case)

    @property
    def timing(self):
        return self.metric not in COUNT_METRICS or self.averaged

    @property
    def effect(self):
        if self.estimator == BY_MODE and self.mode:
            return abs(_share(self.mode["candidate"])
                       - _share(self.mode["base"]))
        if not self.ratio or self.ratio <= 0:
            return 0.0
        return abs(math.log(self.ratio))

    @property
    def slowdown(self):
        """Cost factor: >1 means the candidate is worse."""
        if not self.ratio:
            return None
        return self.ratio if self.lower_is_better else 1.0 / self.ratio

    def as_dict(self):
        return {"suite": self.suite, "case": self.case,
                "metric": self.metric, "base": self.base,
                "candidate": self.cand, "ratio": self.ratio,
                "interval": [self.lo, self.hi], "interval_level": self.level,
                "estimator": self.estimator,
                "hodges_lehmann": self.hl,
                "mode": self.mode,
                "slowdown_undisturbed": None if self.floor_shift is None
                else math.exp(self.floor_shift),
                "p_familywise": self.p, "p_mode": self.p_mode,
                "alpha": self.alpha,
                "boots": [self.n_base, self.n_cand],
                "threshold": self.threshold, "verdict": self.verdict,
                "lower_is_better": self.lower_is_better,
                "notes": list(self.notes), "decided_at": self.decided_at,
                "resolution": self.resolution, "spread": self.spread,
                "boots_for_target": self.boots_for_target,
                "target": self.target,
                "refused": list(self.refused),
                "equivalence": self.equivalence,
                "averaged_count": self.averaged,
                "background": None if self.background is None
                else list(self.background),
                **{("candidate" if side == "cand" else side) + "_reason": why
                   for side, why in self.reasons.items()}}


def _share(pair):
    return pair[0] / float(pair[1]) if pair and pair[1] else 0.0


def decision(row):
    """What a row's verdict rests on, in one place (ab's looks, bisect and
    sensitivity read it): {"verdict", "ratio" (candidate / base of the
    figure the test decided on), "interval" [lo, hi] at "level" (the same
    statistic, boots and level), "estimator" (BY_*), "p", "mode"}."""
    return {"verdict": row.verdict, "ratio": row.ratio,
            "interval": [row.lo, row.hi], "level": row.level,
            "estimator": row.estimator,
            "p": row.p_mode if row.estimator == BY_MODE else row.p,
            "mode": row.mode}


def _ratios(row, shift, lo, hi):
    """A cost-log shift and its ends as candidate / base of the metric."""
    sign = 1.0 if row.lower_is_better else -1.0
    if shift is None:
        return None, [None, None]
    if lo is None or hi is None:
        return math.exp(sign * shift), [None, None]
    return math.exp(sign * shift), sorted((math.exp(sign * lo),
                                           math.exp(sign * hi)))


def set_figure(row, shift, lo, hi, level, estimator):
    """The row's printed figure: what its verdict was decided on."""
    row.ratio, (row.lo, row.hi) = _ratios(row, shift, lo, hi)
    row.level, row.estimator = level, estimator
