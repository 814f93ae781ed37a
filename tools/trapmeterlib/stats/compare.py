"""`trapmeter compare BASE.json CAND.json`: regression verdicts per metric.

Inputs are results.json files written by `trapmeter run` (one or more boots
each, `--repeat N`).  Each file is re-verified before use: the raw @tm lines
kept per boot must match the count and CRC-32 of the guest's end line, the
result records must be the ones those lines carry, and the CRC of the
results (with the runner's additions) must match the seal written with
them; a cut or hand-edited file is refused.

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
counts: a move beyond 10 % is an exit-path change with any boot count.
Files not measured alike (stats/comparable.py: samples per case, rounds,
statistic, clock, accelerator) get no timing verdict for the cases the
difference touches ("refused", exit status 13)."""

import copy
import json
import math
import random
import re
import statistics

from ..output import report
from ..system import inputfile
from . import bootstats, comparable, equivalence
from ..guest import resultform
from ..guest.dump import DumpParser, clean_text

OK = 0
REGRESSION = 10
UNUSABLE = 11
NOT_COMPARABLE = 13         # system/exitstatus.NOT_COMPARABLE

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
MAX_ABS = 1e300             # larger numbers are refused as corrupt
MAX_BOOTS = 1000
KNOWN_SCHEMAS = (1, 2, 3)  # 2: status sealed in the dump; 3: rounds merged
# Metrics results may carry from other suites: higher is better.
GENERIC_RE = re.compile(r"(^|_)(mib_s|mb_s|gib_s|pps|kpps|mpps|gbps|mbps|packets_per_s)$")
# Fields that identify what a result measured; any change = hand edit.
VERDICTS = ("regression", "improvement", "unchanged", "inconclusive")
REFUSED = "refused"         # a timing verdict withheld: not measured alike


class InputError(Exception):
    """A results file compare cannot use (exit status 11)."""


# ---------------------------------------------------------------- loading

def _reject_constant(name):
    raise InputError("non-finite number %s" % name)


def _check_numbers(obj, where, depth=0):
    """Refuse NaN/inf, absurdly large numbers and absurd nesting."""
    if depth > 64:
        raise InputError("%s: nesting too deep" % where)
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, (int, float)):
        if isinstance(obj, float) and not math.isfinite(obj):
            raise InputError("%s: non-finite number" % where)
        if abs(obj) > MAX_ABS:
            raise InputError("%s: number out of range" % where)
        return
    if isinstance(obj, dict):
        for key, value in obj.items():
            _check_numbers(value, "%s.%s" % (where, key), depth + 1)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            _check_numbers(value, "%s[%d]" % (where, i), depth + 1)


def read_results(path):
    """Load and fully verify one results.json; returns the document."""
    try:
        raw = inputfile.read_text(path)
    except inputfile.InputError as exc:
        raise InputError(str(exc))
    try:
        doc = json.loads(raw.decode("utf-8"),
                         parse_constant=_reject_constant)
    except InputError as exc:
        raise InputError("%s: %s" % (path, exc))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError("%s: not a JSON results file (%s); truncated?"
                         % (path, str(exc).splitlines()[0][:120]))
    try:
        _check_numbers(doc, "results")
        doc = clean_host_strings(doc)
        verify_document(doc)
    except InputError as exc:
        raise InputError("%s: %s" % (path, exc))
    except RecursionError:
        raise InputError("%s: nesting too deep" % path)
    return doc


def clean_host_strings(value, key=None):
    """Every string of the file made safe for a terminal by the one gate
    guest text passes (dump.clean_text), but the raw @tm lines, which the
    replay checks byte for byte: a string the runner wrote is clean
    already, so only a hand-edited one changes."""
    if key == "tm_lines":
        return value
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k:
                clean_host_strings(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_host_strings(v) for v in value]
    return value


def verify_document(doc):
    if not isinstance(doc, dict) or doc.get("tool") != "trapmeter":
        raise InputError("not a trapmeter results.json (no \"tool\": "
                         "\"trapmeter\")")
    schema = doc.get("schema")
    if schema not in KNOWN_SCHEMAS or isinstance(schema, bool):
        raise InputError("results schema %r is not one this compare knows "
                         "(%s)" % (schema, ", ".join(map(str, KNOWN_SCHEMAS))))
    boots = doc.get("boots")
    if not isinstance(boots, list) or not boots:
        raise InputError("no boots in the file")
    if len(boots) > MAX_BOOTS:
        raise InputError("%d boots: more than %d" % (len(boots), MAX_BOOTS))
    usable = 0
    for index, boot in enumerate(boots):
        if not isinstance(boot, dict):
            raise InputError("boot %d is not an object" % index)
        if verify_boot(boot, index):
            usable += 1
    if not usable:
        raise InputError("no boot with results (every boot failed)")


def verify_boot(boot, index):
    """Re-verify one boot; False when it has no results to compare (a
    failed boot), InputError when it was cut or edited."""
    results = boot.get("results")
    if not isinstance(results, list):
        raise InputError("boot %d: \"results\" is not a list" % index)
    integ = boot.get("integrity")
    if not results and integ is None:
        return False
    if not isinstance(integ, dict) or not isinstance(
            integ.get("tm_lines"), list):
        raise InputError("boot %d: no integrity record (raw @tm lines); "
                         "written by an older runner? re-run it" % index)
    dump = boot.get("dump")
    end = dump.get("end") if isinstance(dump, dict) else None
    if not isinstance(end, dict):
        raise InputError("boot %d: the guest's end line is missing: the "
                         "dump was cut" % index)
    guest = _replay(integ["tm_lines"], end, index)
    _match_results(results, guest.results, index)
    _match_checks(boot.get("checks"), guest.checks, index)
    seal = integ.get("results_crc32")
    if seal != report.results_crc32(results):
        raise InputError("boot %d: results do not match their CRC seal "
                         "(%r): the file was edited after the run"
                         % (index, seal))
    seal = integ.get("checks_crc32")
    if seal is not None and seal != report.results_crc32(boot["checks"]):
        raise InputError("boot %d: checks do not match their CRC seal "
                         "(%r): the file was edited after the run"
                         % (index, seal))
    for res in results:         # what every reader of the file then sees
        resultform.apply_rule(res)
    return bool(results)


def _match_checks(checks, guest, index):
    """The guest's checks, as its lines hold them, come first in the
    boot's checks (the runner may add its own after them, sealed by
    checks_crc32)."""
    if not isinstance(checks, list) or len(checks) < len(guest):
        raise InputError("boot %d: the boot's checks lack some of the "
                         "guest's %d: edited" % (index, len(guest)))
    for i, (mine, theirs) in enumerate(zip(checks, guest)):
        if not isinstance(mine, dict) or any(
                mine.get(key) != value for key, value in theirs.items()):
            raise InputError("boot %d: check %d (%s) differs from the "
                             "guest's line: edited" % (index, i,
                                                       theirs.get("name")))


def _replay(lines, end, index):
    """Feed the stored @tm lines through the dump parser: count and CRC
    must match the end line.  Returns the guest's dump (its results and
    checks)."""
    parser = DumpParser()
    parser.feed_line(b"trapmeter ? START")
    for i, text in enumerate(lines):
        if not isinstance(text, str):
            raise InputError("boot %d: raw line %d is not text" % (index, i))
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise InputError("boot %d: raw line %d has bad characters"
                             % (index, i))
        if b"\n" in data or b"\r" in data:
            raise InputError("boot %d: raw line %d spans lines" % (index, i))
        parser.feed_line(b"@tm " + data)
    dump = parser.dump
    lines_expected, crc = end.get("lines"), end.get("crc32")
    if lines_expected != dump.tm_count:
        raise InputError("boot %d: end line counts %r @tm lines but %d are "
                         "stored: truncated or edited" % (index,
                                                          lines_expected,
                                                          dump.tm_count))
    if crc != dump.crc_hex:
        raise InputError("boot %d: CRC-32 of the stored @tm lines is %s but "
                         "the guest's end line says %r: edited or garbled"
                         % (index, dump.crc_hex, crc))
    sealed = dump.sealed.get("status") if dump.sealed else None
    if sealed is not None and end.get("status") != sealed:
        raise InputError("boot %d: end line says status %r but the sealed "
                         "status record says %r: edited" % (
                             index, end.get("status"), sealed))
    return dump


def _match_results(results, guest, index):
    if len(results) != len(guest):
        raise InputError("boot %d: %d results stored but the guest's lines "
                         "hold %d: edited" % (index, len(results),
                                              len(guest)))
    for i, (mine, theirs) in enumerate(zip(results, guest)):
        if not isinstance(mine, dict):
            raise InputError("boot %d: result %d is not an object"
                             % (index, i))
        # an earlier runner stored its figures before the figure rule:
        # ruled alike, they must be the guest's (the seal covers the rest)
        ruled = resultform.apply_rule(copy.deepcopy(mine))
        for key, value in theirs.items():
            if ruled.get(key) != value:
                raise InputError("boot %d: result %d (%s) field %r differs "
                                 "from the guest's line: edited"
                                 % (index, i, theirs.get("case"), key))


# ---------------------------------------------------------------- samples

def _num(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


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


def _median(values):
    return statistics.median(values) if values else None


# ---------------------------------------------------------------- compare

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

    @property
    def name(self):
        return "%s/%s" % (self.suite, self.case)

    @property
    def timing(self):
        return self.metric != "exits_per_op"

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
                "equivalence": self.equivalence}


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
    """Rows (sorted by effect size) and warnings.  Refuses (InputError)
    files that measured different suites."""
    opts = Settings(thresholds, seed, resamples, stat, alpha)
    sb, sc = suites_of(base), suites_of(cand)
    if sb != sc:
        raise InputError("the files measured different suites: base has "
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


# the order rows are shown in: decided verdicts first, then inconclusive,
# then the rows no verdict can reach with these boots (undecidable)
VERDICT_ORDER = {"regression": 0, "improvement": 1, "unchanged": 2,
                 "inconclusive": 3}


def undecidable(row):
    """Why no verdict can be reached on this timing row with these boots
    (fewer than MIN_SIDE boots of a side carry its figure), or None."""
    if not row.timing or min(row.n_base, row.n_cand) >= bootstats.MIN_SIDE:
        return None
    base, cand = row.file_boots
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


def folded(rows):
    """(rows to show one by one, [line per reason]): the undecidable rows
    of files with boots enough (a figure only some boots carry) fold into
    one line per reason, naming their cases; where the files themselves
    have too few boots every row stays, last."""
    shown, why = [], {}
    for row in rows:
        reason = undecidable(row)
        if reason is None or min(row.file_boots) < bootstats.MIN_SIDE:
            shown.append(row)
        else:
            why.setdefault(reason, []).append(row)
    lines = []
    for reason, group in why.items():
        names = sorted({r.name for r in group})
        metrics = sorted({r.metric for r in group})
        lines.append("not decidable: %d row(s), %s: %s%s" % (
            len(group), reason, ", ".join(metrics) + " of " if metrics else "",
            ", ".join(names[:6]) + (" and %d more" % (len(names) - 6)
                                    if len(names) > 6 else "")))
    return shown, lines


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
        row.base = _median([v for _n, v in obs_b])
        row.cand = _median([v for _n, v in obs_c])
        if metric == "exits_per_op":
            exits_verdict(row, eb["res"].get("exits_model"))
        else:
            _timing_figures(row, obs_b, obs_c)
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
        if row.metric == "exits_per_op" and row.verdict != "unchanged":
            return "exit path changed: %s -> %s exits/op" % (
                report.fmt_num(row.base), report.fmt_num(row.cand))
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
            row.notes.extend(timing_notes(row))


def timing_notes(row):
    notes = ["timing verdict refused: %s" % comparable.short(r)
             for r in row.refused]
    if row.verdict == "regression":
        notes.append("%.3fx slower" % row.slowdown)
    elif row.verdict == "improvement":
        notes.append("%.3fx faster" % (1.0 / row.slowdown))
    if row.n_base < 2 and row.n_cand < 2:
        notes.append(_one_boot_note(row))
    elif row.verdict == "inconclusive" and row.logs:
        a, b = row.logs
        floor = bootstats.min_p(len(a), len(b))
        if floor > DEFAULT_ALPHA and min(b) > max(a):
            notes.append("every candidate boot slower (%d/%d boots cannot "
                         "reach p<=%g)" % (len(a), len(b), DEFAULT_ALPHA))
        elif floor > DEFAULT_ALPHA and max(b) < min(a):
            notes.append("every candidate boot faster (%d/%d boots cannot "
                         "reach p<=%g)" % (len(a), len(b), DEFAULT_ALPHA))
    note = test_note(row)
    if note:
        notes.append(note)
    if row.verdict == "inconclusive":
        notes.extend(resolution_note(row))
    notes.extend(mode_notes(row))
    return notes


def resolution_note(row):
    """"resolves 2.9 % (spread 3.5 %; ~210 boots a side for 1 %)": the
    smallest change this run's test could flag at its spread and boots."""
    if row.resolution is None:
        return []
    more = ("; ~%d boots a side for 1 %%" % row.boots_for_target
            if row.boots_for_target else "")
    return ["resolves %.1f %% (spread %.1f %%%s)"
            % (100 * row.resolution, 100 * row.spread, more)]


def _one_boot_note(row):
    """One boot per side, or (ab's --count-boots, a figure some boots
    lack) one boot per side that carries this figure among many."""
    total = row.file_boots
    if max(total) < 2:
        return "inconclusive (one boot per side)"
    return ("inconclusive (one boot per side has this figure, of %d+%d; "
            "cycles_per_exit needs counted exits)" % total
            if row.metric == "cycles_per_exit" else
            "inconclusive (one boot per side has this figure, of %d+%d)"
            % total)


def mode_notes(row):
    """Name the boots whose figure sits in another mode than the rest of
    their side, and say whether the test used them (it uses each side's
    undisturbed boots: bootstats.undisturbed).  The Hodges-Lehmann ratio
    and its interval keep every boot."""
    out = []
    if not row.logs:
        return out
    for label, vals, numbers in (("base", row.logs[0], row.boots[0]),
                                 ("candidate", row.logs[1], row.boots[1])):
        odd = bootstats.other_mode(vals)
        band = bootstats.undisturbed(vals)
        top, centre = max(band), bootstats.median(band)
        for kind, picked in (("in the test", [i for i in odd
                                              if vals[i] <= top]),
                             ("left out of the test", [i for i in odd
                                                       if vals[i] > top])):
            if picked:
                out.append("bimodal: %s boot %s (%s; %s)" % (
                    label, ", ".join(str(numbers[i]) for i in picked),
                    ", ".join("%+.0f %%" % (100 * (math.exp(
                        vals[i] - centre) - 1)) for i in picked), kind))
    return out


def test_note(row):
    """"test: 9/11 undisturbed boots, +2.4 %": what the test compared."""
    if not row.logs or row.floor_shift is None or row.p is None:
        return None
    a, b = row.logs
    return "test: %d/%d undisturbed boots, %+.1f %%" % (
        len(bootstats.undisturbed(a)), len(bootstats.undisturbed(b)),
        100 * (math.exp(row.floor_shift) - 1))


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


# ---------------------------------------------------------------- output

TABLE_HEAD = ("verdict", "case", "metric", "base", "candidate", "ratio",
              "95% CI", "p (run)", "notes")


def fmt_p(value):
    return "-" if value is None else "%.3g" % value


def candidate_failures(warnings):
    """The candidate's failed data checks, as compare_docs named them."""
    return [w for w in warnings if w.startswith("candidate boot ")
            and " data check " in w]


def fmt_ratio(value):
    return "-" if value is None else "%.3f" % value


def row_cells(row):
    ci = "-" if row.lo is None else "%s..%s" % (fmt_ratio(row.lo),
                                                fmt_ratio(row.hi))
    return [row.verdict, row.name, row.metric, report.fmt_num(row.base),
            report.fmt_num(row.cand), fmt_ratio(row.ratio), ci,
            fmt_p(row.p), "; ".join(row.notes)]


def render_table(rows, warnings, base_path, cand_path):
    counts, changed = summarize(rows)
    lines = ["trapmeter compare: base %s vs candidate %s" % (base_path,
                                                             cand_path)]
    lines += ["warning: " + w for w in warnings]
    rows, folds = folded(rows)
    cells = [list(TABLE_HEAD)] + [row_cells(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(TABLE_HEAD)
                                                           - 1)]
    for i, c in enumerate(cells):
        parts = [c[j].ljust(widths[j]) if j < 3 else c[j].rjust(widths[j])
                 for j in range(len(widths))]
        lines.append("  " + "  ".join(parts) + "  " + c[-1])
        if i == 0:
            lines.append("  " + "  ".join("-" * w for w in widths) + "  -----")
    lines += ["  " + line for line in folds]
    lines.append(summary_line(counts, changed, candidate_failures(warnings)))
    return "\n".join(lines) + "\n"


def summary_line(counts, changed, failed=()):
    text = ", ".join("%s %d" % (v, counts[v]) for v in VERDICTS)
    if counts.get(REFUSED):
        text += ", refused %d (not measured alike)" % counts[REFUSED]
    if failed:
        names = sorted({w.split(" data check ")[1].split(" FAILED")[0]
                        for w in failed})
        text += "; candidate FAILED data checks: %s" % ", ".join(names)
    if changed:
        text += "; exit counts changed in %d case(s): %s" % (
            len(changed), ", ".join(changed[:8]) + (
                " ..." if len(changed) > 8 else ""))
    return "summary: " + text


def render_markdown(rows, warnings, base_path, cand_path):
    counts, changed = summarize(rows)
    out = ["## trapmeter compare", "",
           "Base `%s`, candidate `%s`." % (base_path, cand_path), "",
           "**%s**" % summary_line(counts, changed, candidate_failures(
               warnings))[len("summary: "):], ""]
    out += ["> warning: %s" % w for w in warnings]
    if warnings:
        out.append("")
    rows, folds = folded(rows)
    out.append("| " + " | ".join(TABLE_HEAD) + " |")
    out.append("|" + "|".join(["---"] * 3 + ["---:"] * 5 + ["---"]) + "|")
    for row in rows:
        cells = row_cells(row)
        cells[0] = "**%s**" % cells[0] if row.verdict == "regression" \
            else cells[0]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells)
                   + " |")
    if folds:
        out += [""] + ["- %s" % line for line in folds]
    return "\n".join(out) + "\n"


def junit_cases(rows, warnings=()):
    """One testcase per metric (regressions fail) and one failing testcase
    per failed data check of the candidate."""
    from ..output.junit import Case
    cases = [Case("trapmeter.compare.checks", w.split(": ")[0], w, text=w)
             for w in candidate_failures(warnings)]
    for row in rows:
        detail = ("base %s, candidate %s, ratio %s, 95%% CI %s..%s, "
                  "p (run) %s, threshold %g%%, boots %d/%d%s" % (
                      report.fmt_num(row.base), report.fmt_num(row.cand),
                      fmt_ratio(row.ratio), fmt_ratio(row.lo),
                      fmt_ratio(row.hi), fmt_p(row.p), row.threshold * 100,
                      row.n_base, row.n_cand, ("; " + "; ".join(row.notes))
                      if row.notes else ""))
        failure = ("regression: %s %s %s" % (row.name, row.metric, detail)
                   if row.verdict == "regression" else None)
        cases.append(Case("trapmeter.compare.%s" % row.suite,
                          "%s %s" % (row.case, row.metric), failure,
                          text="%s: %s" % (row.verdict, detail)))
    return cases
