"""`trapmeter compare BASE.json CAND.json`: regression verdicts per metric.

Inputs are results.json files written by `trapmeter run` (one or more boots
each, `--repeat N`), read back and checked by output/resultsfile.py.

Statistics (docs/design.md, "Statistics and verdicts"): the boot is the
unit of replication.  Per boot and case, one figure: the minimum of the
samples' cycles/op (--stat min; p10 or median on request), divided by the
boot's measured exits for cycles/exit.  Per metric, the shift of the log
figures (candidate - base) is the Hodges-Lehmann estimate with a
distribution-free (Moses) interval; one permutation test of the boot
labels for all timing metrics of the run together (max-T) gives each a
family-wise p-value.  A timing metric is a regression (improvement) when
p <= alpha (default 0.05) and the shift exceeds +t (-t), t = 0.5 % by
default; unchanged when the interval at the level 1 - alpha (95 %) lies
inside +-t (two one-sided tests, stats/equivalence.py); inconclusive
otherwise -- always with one boot per side.  Exit counts are compared as
counts: a move beyond 10 % is an exit-path change with any boot count;
a count the guest marks as an average (exits_model_exact false) is a
timing row instead (stats/avgcount.py).
Files not measured alike (stats/comparable.py: samples per case, rounds,
statistic, clock, accelerator) get no timing verdict for the cases the
difference touches ("refused", exit status 13).

The rows' notes are compare_notes.py's; output/comparison.py renders them.
"""
import math
import random
import re

from ..values import exitstatus
from ..values.errors import UnusableInput
from ..values.numbers import is_number
from . import avgcount, bootstats, comparable, equivalence
from .bootstats import median
from .compare_notes import rule_counts, side_text, timing_notes

OK = exitstatus.OK
REGRESSION = exitstatus.REGRESSION
UNUSABLE = exitstatus.UNUSABLE
NOT_COMPARABLE = exitstatus.NOT_COMPARABLE
DEFAULT_THRESHOLD = 0.005   # t: 0.5 %, so that +1 % can be flagged
DEFAULT_ALPHA = 0.05        # false alarms, for all metrics of a run together
DEFAULT_STAT = "min"        # per-boot location (see docs/design.md)
STATS = ("min", "p10", "median")
DEFAULT_SEED = 1
DEFAULT_RESAMPLES = 5000    # random label splits when there are too many
CI_LEVEL = 0.95
RESOLVE_TARGET = math.log(1.01)  # "about N boots a side would resolve 1 %"
EXITS_CHANGED = 0.10        # relative change of exits/op worth reporting
EXITS_FLOOR = 0.5           # exits/op below this count as "no exit"
EXITS_MODEL_SHARE = 0.05    # ... and beyond 5 % of the model's count
# Metrics results may carry from other suites: higher is better.
GENERIC_RE = re.compile(r"(^|_)(mib_s|mb_s|gib_s|pps|kpps|mpps|gbps|mbps|packets_per_s)$")
VERDICTS = ("regression", "improvement", "unchanged", "inconclusive")
REFUSED = "refused"         # a timing verdict withheld: not measured alike
# the order rows are shown in: decided verdicts first, then inconclusive,
# then the rows no verdict can reach with these boots (undecidable)
VERDICT_ORDER = {"regression": 0, "improvement": 1, "unchanged": 2,
                 "inconclusive": 3}


def _num(value):
    return float(value) if is_number(value) else None


def location(res, stat):
    """The boot's figure for one case: the `stat` (min, p10, median) of
    its samples' cycles/op.  Interference only adds time, so the minimum
    is the figure least moved by it (docs/design.md)."""
    cycles = res.get("cycles")
    if not isinstance(cycles, dict):
        return None
    value = _num(cycles.get(stat))
    return value if value is not None and value > 0 else None


def observations(res, stat=DEFAULT_STAT):
    """{metric: (value, lower_is_better)} for one result of one boot."""
    out = {}
    loc = location(res, stat)
    if loc is not None:
        out["cycles_per_op"] = (loc, True)
    exits = _num(res.get("exits_measured"))
    if exits is not None:
        out["exits_per_op"] = (exits, True)
        # the runner leaves cycles_per_exit null when the count is noise
        if loc is not None and exits >= EXITS_FLOOR and \
                _num(res.get("cycles_per_exit")) is not None:
            out["cycles_per_exit"] = (loc / exits, True)
    for key, value in res.items():
        if GENERIC_RE.search(key) and _num(value) is not None \
                and _num(value) > 0:
            out[key] = (_num(value), False)
    return out

def boot_results(doc):
    """[(results list)] of the boots that produced results."""
    return [b["results"] for b in doc["boots"]
            if isinstance(b, dict) and b.get("results")]


def _key(res):
    return (str(res.get("suite")), str(res.get("case")))


def collect(doc, stat=DEFAULT_STAT):
    """{(suite, case): {"res": first result, "metrics": {metric:
    ([(boot number, value)], lower_is_better)}}} and the case order.  Boot
    numbers count the boots with results, from 1."""
    table, order = {}, []
    for number, results in enumerate(boot_results(doc), 1):
        for res in results:
            if not isinstance(res, dict):
                continue
            key = _key(res)
            if key not in table:
                table[key] = {"res": res, "metrics": {}}
                order.append(key)
            metrics = table[key]["metrics"]
            for metric, (value, lower) in observations(res, stat).items():
                metrics.setdefault(metric, ([], lower))[0].append(
                    (number, value))
    return table, order


def suites_of(doc):
    out = set()
    for results in boot_results(doc):
        out.update(str(r.get("suite")) for r in results
                   if isinstance(r, dict))
    return out


class Row:
    """One (case, metric) comparison."""

    def __init__(self, suite, case, metric, lower_is_better):
        self.suite, self.case, self.metric = suite, case, metric
        self.lower_is_better = lower_is_better
        self.base = self.cand = None
        self.ratio = self.lo = self.hi = None
        self.coverage = None
        self.p = None
        self.n_base = self.n_cand = 0
        self.file_boots = (0, 0)    # boots with results in each file
        self.verdict = "inconclusive"
        self.notes = []
        self.threshold = DEFAULT_THRESHOLD
        self.shift = None           # log cost shift (candidate - base)
        self.floor_shift = None     # ... of the undisturbed boots' means
        self.logs = None            # ([base log costs], [cand log costs])
        self.boots = None           # ([base boot numbers], [cand ...])
        self.decided_at = None      # ab: {"boots_per_side", "seconds"}
        self.resolution = None      # smallest shift the test could flag
        self.spread = None          # sd of the undisturbed boots (factor)
        self.boots_for_target = None    # about, to resolve RESOLVE_TARGET
        self.refused = []           # why the timing verdict is withheld
        self.equivalence = None     # the interval "unchanged" was judged by
        self.reasons = {}           # side ("base", "cand") -> not resolved why
        self.averaged = False       # exits_per_op of an average count

    @property
    def name(self):
        return "%s/%s" % (self.suite, self.case)

    @property
    def timing(self):
        return self.metric != "exits_per_op" or self.averaged

    @property
    def effect(self):
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
                "ci95": [self.lo, self.hi], "ci_coverage": self.coverage,
                "slowdown_undisturbed": None if self.floor_shift is None
                else math.exp(self.floor_shift),
                "p_familywise": self.p,
                "boots": [self.n_base, self.n_cand],
                "threshold": self.threshold, "verdict": self.verdict,
                "lower_is_better": self.lower_is_better,
                "notes": list(self.notes), "decided_at": self.decided_at,
                "resolution": self.resolution, "spread": self.spread,
                "boots_for_1pct": self.boots_for_target,
                "refused": list(self.refused),
                "equivalence": self.equivalence,
                "averaged_count": self.averaged,
                **{("candidate" if side == "cand" else side) + "_reason": why
                   for side, why in self.reasons.items()}}


class Settings:
    """What a comparison is run with (compare's options; ab spends alpha
    over its looks)."""

    def __init__(self, thresholds=None, seed=DEFAULT_SEED,
                 resamples=DEFAULT_RESAMPLES, stat=DEFAULT_STAT,
                 alpha=DEFAULT_ALPHA):
        self.thresholds = thresholds or {}
        self.seed, self.resamples = seed, resamples
        self.stat, self.alpha = stat, alpha

    def threshold(self, metric):
        return self.thresholds.get(metric, self.thresholds.get(
            "*", DEFAULT_THRESHOLD))


def compare_docs(base, cand, thresholds=None, seed=DEFAULT_SEED,
                 resamples=DEFAULT_RESAMPLES, stat=DEFAULT_STAT,
                 alpha=DEFAULT_ALPHA):
    """Rows (sorted by effect size) and warnings.  Refuses (UnusableInput)
    files that measured different suites."""
    opts = Settings(thresholds, seed, resamples, stat, alpha)
    sb, sc = suites_of(base), suites_of(cand)
    if sb != sc:
        raise UnusableInput("the files measured different suites: base has "
                         "%s, candidate has %s" % (
                             ", ".join(sorted(sb)) or "none",
                             ", ".join(sorted(sc)) or "none"))
    tb, order = collect(base, stat)
    tc, _ = collect(cand, stat)
    refusals, warnings = comparable.check(base, cand, stat)
    warnings = [refusal_text(r) for r in refusals] + warnings \
        + _boot_warnings(base, cand)
    only_b = [k for k in order if k not in tc]
    only_c = [k for k in tc if k not in tb]
    for label, keys in (("base", only_b), ("candidate", only_c)):
        if keys:
            warnings.append("%d case(s) only in the %s file, not compared: "
                            "%s" % (len(keys), label, ", ".join(
                                "%s/%s" % k for k in keys[:6])
                                + (" ..." if len(keys) > 6 else "")))
    rows = []
    for key in order:
        if key in tc:
            rows.extend(_case_rows(key, tb[key], tc[key], opts))
    n_base, n_cand = len(boot_results(base)), len(boot_results(cand))
    for row in rows:
        if row.timing:
            row.refused = comparable.refusals_for(refusals,
                                                  (row.suite, row.case))
    decide_timing(rows, n_base, n_cand, opts)
    for key in order:
        if key in tc:
            _annotate([r for r in rows if (r.suite, r.case) == key],
                      tb[key], tc[key])
    return order_rows(rows), warnings


def undecidable(row):
    """Why no verdict can be reached on this timing row with these boots
    (fewer than MIN_SIDE boots of a side carry its figure), or None."""
    if not row.timing or min(row.n_base, row.n_cand) >= bootstats.MIN_SIDE:
        return None
    base, cand = row.file_boots
    if row.averaged:
        return avgcount.too_few(row)
    if row.metric == "cycles_per_exit" and max(base, cand) >= 2:
        return ("fewer than %d boots a side have this figure, of %d+%d "
                "(cycles_per_exit is only in boots that counted exits, "
                "above the counters' noise floor)"
                % (bootstats.MIN_SIDE, base, cand))
    return ("fewer than %d boots a side have this figure (%d+%d): the "
            "test needs %d" % (bootstats.MIN_SIDE, row.n_base, row.n_cand,
                               bootstats.MIN_SIDE))


def order_rows(rows):
    """Rows by what matters: regressions, improvements, unchanged,
    inconclusive, then the undecidable ones; by effect size within."""
    rows.sort(key=lambda r: (4 if undecidable(r) else VERDICT_ORDER.get(
        r.verdict, 3), -r.effect, r.name, r.metric))
    return rows


def refusal_text(refusal):
    """The warning line of a withheld timing verdict."""
    where = ("every case" if refusal.cases is None else "%d case(s)"
             % len(refusal.cases))
    return "timing verdicts refused for %s: %s" % (where, refusal.reason)


def _boot_warnings(base, cand):
    """Different boot counts, boots without results, and every failed data
    check, named (a candidate that read wrong data is not "faster")."""
    out = []
    counts = []
    for label, doc in (("base", base), ("candidate", cand)):
        boots = [b for b in doc["boots"] if isinstance(b, dict)]
        used = len(boot_results(doc))
        counts.append(used)
        if used < len(boots):
            out.append("%s: %d of %d boots have no results (failed boots "
                       "are left out)" % (label, len(boots) - used,
                                          len(boots)))
        out.extend(failed_checks(doc, label))
    if counts[0] != counts[1]:
        out.append("the sides have different boot counts: base %d, "
                   "candidate %d" % tuple(counts))
    return out


def failed_checks(doc, label):
    """["candidate boot 2: data check fwcfg.cases FAILED: detail"]."""
    out = []
    for number, boot in enumerate(doc["boots"], 1):
        checks = boot.get("checks") if isinstance(boot, dict) else None
        for check in checks if isinstance(checks, list) else ():
            if isinstance(check, dict) and check.get("ok") is False:
                out.append("%s boot %d: data check %s FAILED: %s"
                           % (label, number, check.get("name"),
                              check.get("detail", "")))
    return out


def _case_rows(key, eb, ec, opts):
    rows = []
    for metric, (obs_b, lower) in eb["metrics"].items():
        if metric not in ec["metrics"]:
            continue
        obs_c = ec["metrics"][metric][0]
        row = Row(key[0], key[1], metric, lower)
        row.threshold = opts.threshold(metric)
        row.n_base, row.n_cand = len(obs_b), len(obs_c)
        row.base = median([v for _n, v in obs_b])
        row.cand = median([v for _n, v in obs_c])
        row.averaged = metric == "exits_per_op" and \
            avgcount.is_average(eb["res"], ec["res"])
        if row.averaged:        # a timing row of the count (no log of 0)
            row.threshold = avgcount.threshold(opts.thresholds)
            obs_b, obs_c = ([(n, max(v, EXITS_FLOOR)) for n, v in obs]
                            for obs in (obs_b, obs_c))
        if metric == "exits_per_op" and not row.averaged:
            exits_verdict(row, eb["res"].get("exits_model"))
        else:
            _timing_figures(row, obs_b, obs_c)
        if metric == "exits_per_op":
            rule_counts(row)
        rows.append(row)
    return rows


def exits_verdict(row, model):
    """Exit counts are counts: a move of the median beyond EXITS_CHANGED of
    it (below EXITS_FLOOR counts as "no exit") and beyond EXITS_MODEL_SHARE
    of the model's count (the counters' background noise, per op, is a few
    exits on a case of hundreds) is an exit-path change, whatever the
    number of boots."""
    b = max(row.base or 0.0, EXITS_FLOOR)
    c = max(row.cand or 0.0, EXITS_FLOOR)
    row.ratio = c / b
    row.lo = row.hi = None
    model = _num(model) or 0.0
    tolerance = max(EXITS_CHANGED * b, EXITS_MODEL_SHARE * model)
    if c - b > tolerance:
        row.verdict = "regression"
    elif b - c > tolerance:
        row.verdict = "improvement"
    else:
        row.verdict = "unchanged"


def _cost_log(value, lower):
    return math.log(value) if lower else -math.log(value)


def _timing_figures(row, obs_b, obs_c):
    """Shift (Hodges-Lehmann) and its Moses interval, in log cost."""
    a = [_cost_log(v, row.lower_is_better) for _n, v in obs_b]
    b = [_cost_log(v, row.lower_is_better) for _n, v in obs_c]
    row.logs = (a, b)
    row.boots = ([n for n, _v in obs_b], [n for n, _v in obs_c])
    row.shift = bootstats.hodges_lehmann(a, b)
    row.floor_shift = bootstats.floor_shift(a, b)
    lo, hi, row.coverage = bootstats.moses_interval(a, b, CI_LEVEL)
    sign = 1.0 if row.lower_is_better else -1.0
    row.ratio = math.exp(sign * row.shift)
    ends = sorted((math.exp(sign * lo), math.exp(sign * hi)))
    row.lo, row.hi = ends


def decide_timing(rows, n_base, n_cand, opts):
    """The family-wise permutation test over boots for every timing row of
    the run together, then each row's verdict."""
    # a refused metric stays out of the family: its shift is the method's
    timing = [r for r in rows if r.timing and r.logs and not r.refused]
    metrics = [bootstats.Metric(dict(
        [(n - 1, v) for n, v in zip(r.boots[0], r.logs[0])]
        + [(n_base + n - 1, v) for n, v in zip(r.boots[1], r.logs[1])]))
        for r in timing]
    rng = random.Random(opts.seed)
    ps, tops = bootstats.max_t(metrics, n_base, n_cand, rng, opts.resamples)
    crit = bootstats.critical_t(tops, opts.alpha)
    observed = frozenset(range(n_base))
    for row, p, metric in zip(timing, ps, metrics):
        row.p = p
        row.verdict = timing_verdict(row, opts.alpha)
        set_resolution(row, metric, observed, crit)
    for row in rows:
        row.file_boots = (n_base, n_cand)
        if row.refused:
            row.verdict = REFUSED


def set_resolution(row, metric, observed, crit):
    """What this run could have flagged: the smallest shift the test
    reaches at its spread and boots (never below t), the spread, and about
    how many boots a side would resolve 1 % (the standard error shrinks as
    one over the root of the boots; the critical t kept)."""
    shift = bootstats.resolution(metric, observed, crit)
    if shift is None:
        return
    sd = metric.spread(observed)[0]
    t = math.log(1.0 + row.threshold)
    row.resolution = math.exp(max(shift, t)) - 1.0
    row.spread = math.exp(sd) - 1.0
    if shift > RESOLVE_TARGET:
        side = (row.n_base + row.n_cand) / 2.0
        row.boots_for_target = int(math.ceil(
            side * (shift / RESOLVE_TARGET) ** 2))


def timing_verdict(row, alpha):
    """regression / improvement: family-wise p <= alpha and the shift the
    test measured (of the undisturbed boots' means, in cost) beyond the
    threshold t; unchanged: two one-sided tests at alpha / 2 each reject
    a shift beyond +-t (the interval of coverage 1 - alpha inside +-t;
    stats/equivalence.py), so that ab's looks, each at its share of
    alpha, keep a wrong "unchanged" below alpha / 2 over a session; else
    inconclusive."""
    if row.n_base < 2 or row.n_cand < 2 or row.p is None:
        return "inconclusive"
    t = math.log(1.0 + row.threshold)
    cost = row.floor_shift          # log cost, like row.shift
    if row.p <= alpha and cost is not None and cost >= t:
        return "regression"
    if row.p <= alpha and cost is not None and cost <= -t:
        return "improvement"
    same, (lo, hi, coverage) = equivalence.unchanged(row.logs[0],
                                                     row.logs[1], t, alpha)
    row.equivalence = {"alpha": alpha, "coverage": coverage,
                       "interval": None if lo is None else
                       [math.exp(lo), math.exp(hi)]}
    return "unchanged" if same else "inconclusive"


def _exits_note(rows):
    """"exits/op a -> b" when the exit count moved: always reported."""
    for row in rows:
        if row.averaged:
            return avgcount.moved_note(row)
        if row.metric == "exits_per_op" and row.verdict != "unchanged":
            return "exit path changed: %s -> %s exits/op" % (
                side_text(row, "base"), side_text(row, "cand"))
    return None


def _annotate(rows, eb, ec):
    rb, rc = eb["res"], ec["res"]
    impl = (rb.get("rep_impl"), rc.get("rep_impl"))
    exits_changed = _exits_note(rows)
    for row in rows:
        if exits_changed:
            row.notes.append(exits_changed)
        if impl[0] != impl[1]:
            row.notes.append("REP implementation %s -> %s" % impl)
        if row.timing:
            row.notes.extend(timing_notes(row, DEFAULT_ALPHA))


def summarize(rows):
    counts = {v: 0 for v in VERDICTS}
    for row in rows:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    changed = sorted({r.name for r in rows if any(
        n.startswith("exit path changed") for n in r.notes)})
    return counts, changed


def exit_status(rows):
    """10 when a metric regressed; else 13 when a timing verdict was
    refused (the files were not measured alike); else 0."""
    if any(r.verdict == "regression" for r in rows):
        return REGRESSION
    return NOT_COMPARABLE if any(r.verdict == REFUSED for r in rows) else OK
