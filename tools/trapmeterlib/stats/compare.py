"""`trapmeter compare BASE.json CAND.json`: regression verdicts per metric.

Inputs are results.json files written by `trapmeter run` (one or more boots
each, `--repeat N`), read back and checked by output/resultsfile.py.

Statistics (docs/design.md, "Statistics and verdicts"): the boot is the
unit of replication.  Per boot and case, one figure: the minimum of the
samples' cycles/op (--stat min; p10 or median on request), divided by the
boot's measured exits for cycles/exit.  One permutation test of the boot
labels for all timing metrics of the run together (max-T) gives each a
family-wise p-value; its statistic is the t of each side's undisturbed
boots.  The p-values hold only if the boots of the two sides are
exchangeable when nothing changed: true of the two sides of one
interleaved `ab` session (A B B A ...), not of two blocks of boots taken
apart in time, whose host level drifts by more than the threshold --
their timing rows are "not interleaved" (no timing verdict; exit counts
are still judged).  A timing metric is a regression (improvement) when
p <= alpha and the shift exceeds +t (-t), t = 0.5 % by default; it
prints that shift with the interval of the shifts the same test would
not reject at the same level (bootstats.shift_interval).  A slow mode --
the share of a side's boots outside its band -- is a second family
(MODE_SHARE of alpha; Bonferroni over the two): a row whose share moved
is a "changed mode" regression or improvement.  Unchanged when the
interval at the level 1 - alpha lies inside +-t (two one-sided tests,
stats/equivalence.py); inconclusive otherwise -- always with one boot
per side.  Exit counts are compared as counts allowing for the
background each boot measured (exits_rule); a counter that sees only
background on a case does not judge it ("not judged"); a count that is
not exact is a timing row instead (stats/avgcount.py).
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
from . import avgcount, bootstats, comparable, equivalence, kutratio
from .bootstats import median
from .compare_notes import ab_command_text, audit_note, \
    count_refusal_notes, rule_counts, side_text, timing_notes
from .exitcounts import BACKGROUND_SLACK, EXITS_FLOOR, allowance, exact, \
    exits_rule
from .verdict import (BY_MEANS, BY_MODE, BY_RANKS, DEFAULT_ALPHA,
                      DEFAULT_THRESHOLD, NOT_INTERLEAVED, NOT_JUDGED, REFUSED,
                      VERDICT_ORDER, VERDICTS, WITHHELD, AUDIT_METRIC,
                      COUNT_METRICS, Row, _share,
                      _ratios, decision, set_figure)

OK = exitstatus.OK
REGRESSION = exitstatus.REGRESSION
UNUSABLE = exitstatus.UNUSABLE
NOT_COMPARABLE = exitstatus.NOT_COMPARABLE
DEFAULT_STAT = "min"        # per-boot location (see docs/design.md)
STATS = ("min", "p10", "median")
DEFAULT_SEED = 1
DEFAULT_RESAMPLES = 5000    # random label splits when there are too many
CI_LEVEL = 0.95
RESOLVE_TARGET = math.log(1.01)  # "about N boots a side would resolve 1 %"
MODE_SHARE = 0.2            # of alpha, for the slow-mode family
# Metrics results may carry from other suites: higher is better.
GENERIC_RE = re.compile(r"(^|_)(mib_s|mb_s|gib_s|pps|kpps|mpps|gbps|mbps|packets_per_s)$")


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
        # the runner leaves cycles_per_exit null when the count is noise;
        # a count within the boot's background is no exit of the case
        background = _num(res.get("exits_background_max")) or 0.0
        if loc is not None and exits >= EXITS_FLOOR and \
                exits > BACKGROUND_SLACK * background and \
                _num(res.get("cycles_per_exit")) is not None:
            out["cycles_per_exit"] = (loc / exits, True)
    out.update(kutratio.within_boot_observations(res))
    audit = res.get("audit") if isinstance(res.get("audit"), dict) else {}
    if _num(audit.get("exits_model")) is not None:
        out[AUDIT_METRIC] = (_num(audit["exits_model"]), True)
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
            if _num(res.get("exits_measured")) is not None:
                table[key].setdefault("background", []).append(
                    _num(res.get("exits_background_max")))
    return table, order


def suites_of(doc):
    out = set()
    for results in boot_results(doc):
        out.update(str(r.get("suite")) for r in results
                   if isinstance(r, dict))
    return out


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
                 alpha=DEFAULT_ALPHA, interleaved=None):
    """Rows (sorted by effect size) and warnings.  Refuses (UnusableInput)
    files that measured different suites.  `interleaved`: the files are
    the two sides of one interleaved session (None: as their "session"
    marks say, comparable.interleaved); when they are not, the timing rows
    get no verdict (NOT_INTERLEAVED)."""
    opts = Settings(thresholds, seed, resamples, stat, alpha)
    sb, sc = suites_of(base), suites_of(cand)
    if sb != sc:
        raise UnusableInput("the files measured different suites: base has "
                         "%s, candidate has %s" % (
                             ", ".join(sorted(sb)) or "none",
                             ", ".join(sorted(sc)) or "none"))
    if interleaved is None:
        interleaved = comparable.interleaved(base, cand)
    tb, order = collect(base, stat)
    tc, _ = collect(cand, stat)
    refusals, warnings = comparable.check(base, cand, stat)
    # not interleaved: ab_command_text says so, with the command
    warnings = [w for w in warnings
                if w not in comparable.interleave_warning({}, {})]
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
        row.refused = comparable.refusals_for(refusals, (row.suite, row.case),
                                              row.timing)
    if not interleaved:     # within-boot figures are judged (kutratio.py)
        rows, kut_notes = kutratio.within_boot_rows(rows)
        warnings += kut_notes
        withheld = [r for r in rows if r.timing and not r.refused
                    and r.metric not in kutratio.WITHIN_BOOT]
        if withheld:
            warnings.append(ab_command_text(base, cand, withheld,
                                            DEFAULT_THRESHOLD))
        for row in withheld:
            row.verdict = NOT_INTERLEAVED
    decide_timing(rows, n_base, n_cand, opts)
    for key in order:
        if key in tc:
            _annotate([r for r in rows if (r.suite, r.case) == key],
                      tb[key], tc[key], opts.alpha)
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
    """The warning line of a withheld verdict."""
    where = ("every case" if refusal.cases is None else "%d case(s)"
             % len(refusal.cases))
    kind = "timing and exit-count" if refusal.counts else "timing"
    return "%s verdicts refused for %s: %s" % (kind, where, refusal.reason)


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
        if metric == "exits_per_op":
            row.background = (allowance(eb), allowance(ec))
            rule_counts(row)
            row.averaged = avgcount.is_average(eb["res"], ec["res"])
            if not row.averaged:
                exits_rule(row, [v for _n, v in obs_b],
                           [v for _n, v in obs_c], eb["res"])
                # the count rule's "unchanged" needs exact counts; its
                # change (disjoint ranges over every boot) does not
                row.averaged = row.verdict == "unchanged" and not (
                    exact(obs_b, row.background[0])
                    and exact(obs_c, row.background[1]))
        if metric == AUDIT_METRIC:      # the model's count: no background
            row.background = (0.0, 0.0)
            exits_rule(row, [v for _n, v in obs_b], [v for _n, v in obs_c],
                       eb["res"])
        if row.averaged:        # a timing row of the count (no log of 0)
            row.threshold = avgcount.threshold(opts.thresholds)
            obs_b, obs_c = ([(n, max(v, EXITS_FLOOR)) for n, v in obs]
                            for obs in (obs_b, obs_c))
        if metric not in COUNT_METRICS or row.averaged:
            row.notes, row.verdict = [], "inconclusive"
            _timing_figures(row, obs_b, obs_c)
        rows.append(row)
    return rows


def _cost_log(value, lower):
    return math.log(value) if lower else -math.log(value)


def _timing_figures(row, obs_b, obs_c):
    """Log costs per boot, the test's shift (of the undisturbed means) and,
    for the record, Hodges-Lehmann with its Moses interval."""
    a = [_cost_log(v, row.lower_is_better) for _n, v in obs_b]
    b = [_cost_log(v, row.lower_is_better) for _n, v in obs_c]
    row.logs = (a, b)
    row.boots = ([n for n, _v in obs_b], [n for n, _v in obs_c])
    row.shift = bootstats.hodges_lehmann(a, b)
    row.floor_shift = bootstats.floor_shift(a, b)
    lo, hi, coverage = bootstats.moses_interval(a, b, CI_LEVEL)
    ratio, ends = _ratios(row, row.shift, lo, hi)
    row.hl = {"ratio": ratio, "interval": ends, "coverage": coverage,
              "of": "every boot"}
    if row.floor_shift is not None:
        set_figure(row, row.floor_shift, None, None, None, BY_MEANS)


def decide_timing(rows, n_base, n_cand, opts):
    """The family-wise permutation tests over boots for every timing row
    of the run together -- the shifts (max-T), and where a boot can lie
    outside a band the slow-mode shares (a second max-T family at
    MODE_SHARE of alpha, Bonferroni) -- then each row's verdict."""
    # a refused metric stays out of the family: its shift is the method's
    timing = [r for r in rows if r.timing and r.logs and not r.refused
              and r.verdict != NOT_INTERLEAVED]
    metrics = [bootstats.metric_of(r.boots, r.logs, n_base) for r in timing]
    moded = [bootstats.can_change_mode(m) for m in metrics]
    share = MODE_SHARE if any(moded) else 0.0
    alpha_shift = opts.alpha * (1.0 - share)
    observed = frozenset(range(n_base))
    reach = [bootstats.can_reach(m, observed, n_base, n_cand, alpha_shift)
             for m in metrics]
    ps, tops, mps, _mtops = bootstats.max_t_reachable(
        reach, metrics, moded, n_base, n_cand, random.Random(opts.seed),
        opts.resamples)
    crit = bootstats.critical_t(tops, alpha_shift)
    for row, p, mp, metric, ok in zip(timing, ps, mps, metrics, reach):
        row.alpha = opts.alpha
        row.p = None if p is None else min(1.0, p / (1.0 - share))
        if mp is not None:
            mode_figures(row, bootstats.ModeMetric(metric), mp, observed,
                         share)
        shift, lo, hi = bootstats.shift_interval(
            metric, observed, crit if ok else None)
        if shift is not None:
            set_figure(row, shift, lo, hi,
                       None if lo is None else 1.0 - alpha_shift, BY_MEANS)
        row.verdict = timing_verdict(row, opts.alpha)
        set_resolution(row, metric, observed, crit)
    for row in rows:
        row.file_boots = (n_base, n_cand)
        if row.refused:
            row.verdict = REFUSED


def mode_figures(row, mode, p, observed, share):
    """The slow-mode shares of both sides and the family-wise p of their
    difference (Bonferroni-scaled to alpha, like the shift's)."""
    (k_a, n_a), (k_b, n_b) = mode.shares(observed)
    row.mode = {"base": [k_a, n_a], "candidate": [k_b, n_b]}
    row.p_mode = None if p is None else min(1.0, p / share)


def set_resolution(row, metric, observed, crit):
    """What this run could have flagged: the smallest shift the test
    reaches at its spread and boots (never below t), the spread, and about
    how many boots a side would resolve the target -- 1 %, or t where t
    is above it (the standard error shrinks as one over the root of the
    boots; the critical t kept)."""
    shift = bootstats.resolution(metric, observed, crit)
    if shift is None:
        return
    sd = metric.spread(observed)[0]
    t = math.log(1.0 + row.threshold)
    target = max(RESOLVE_TARGET, t)
    row.resolution = math.exp(max(shift, t)) - 1.0
    row.spread = math.exp(sd) - 1.0
    if shift > target:
        side = (row.n_base + row.n_cand) / 2.0
        row.boots_for_target = int(math.ceil(
            side * (shift / target) ** 2))
        row.target = math.exp(target) - 1.0


def timing_verdict(row, alpha):
    """regression / improvement: family-wise p <= alpha and the shift the
    test measured (of the undisturbed boots' means, in cost) beyond the
    threshold t -- or, that failing, the slow-mode share moved (its own
    family-wise p <= alpha: "changed mode"); unchanged: two one-sided
    tests at alpha / 2 each reject a shift beyond +-t (the interval of
    coverage 1 - alpha inside +-t; stats/equivalence.py), so that ab's
    looks, each at its share of alpha, keep a wrong "unchanged" below
    alpha / 2 over a session; else inconclusive."""
    if row.n_base < 2 or row.n_cand < 2:
        return "inconclusive"
    t = math.log(1.0 + row.threshold)
    cost = row.floor_shift          # log cost, like row.shift
    if row.p is not None and row.p <= alpha and cost is not None \
            and abs(cost) >= t:
        return "regression" if cost > 0 else "improvement"
    if row.p_mode is not None and row.p_mode <= alpha:
        more = _share(row.mode["candidate"]) > _share(row.mode["base"])
        set_figure(row, None, None, None, 1.0 - alpha * MODE_SHARE,
                   BY_MODE)
        return "regression" if more else "improvement"
    if row.p is None:
        return "inconclusive"
    same, (lo, hi, coverage) = equivalence.unchanged(row.logs[0],
                                                     row.logs[1], t, alpha)
    row.equivalence = {"alpha": alpha, "coverage": coverage,
                       "interval": None if lo is None else
                       [math.exp(lo), math.exp(hi)]}
    if same:
        set_figure(row, row.shift, lo, hi, coverage, BY_RANKS)
        return "unchanged"
    return "inconclusive"


def _exits_note(rows):
    """"exits/op a -> b" when the exit count moved: always reported."""
    for row in rows:
        if row.averaged:
            return avgcount.moved_note(row)
        if row.metric == "exits_per_op" and row.verdict in (
                "regression", "improvement"):
            return "exit path changed: %s -> %s exits/op" % (
                side_text(row, "base"), side_text(row, "cand"))
    return None


def _annotate(rows, eb, ec, alpha):
    rb, rc = eb["res"], ec["res"]
    impl = (rb.get("rep_impl"), rc.get("rep_impl"))
    exits_changed = _exits_note(rows) or audit_note(rows, rb, rc)
    for row in rows:
        if exits_changed:
            row.notes.append(exits_changed)
        if impl[0] != impl[1]:
            row.notes.append("REP implementation %s -> %s" % impl)
        row.notes.extend(timing_notes(row, alpha) if row.timing
                         else count_refusal_notes(row))


def summarize(rows):
    counts = {v: 0 for v in VERDICTS}
    for row in rows:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    changed = sorted({r.name for r in rows if any(
        n.startswith("exit path changed") for n in r.notes)})
    return counts, changed


def exit_status(rows):
    """10 when a metric regressed; else 13 when a timing verdict was
    refused (the files were not measured alike) or withheld (the files
    were not interleaved); else 0."""
    if any(r.verdict == "regression" for r in rows):
        return REGRESSION
    return NOT_COMPARABLE if any(r.verdict in (REFUSED, NOT_INTERLEAVED)
                                 for r in rows) else OK
