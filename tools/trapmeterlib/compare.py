"""`trapmeter compare BASE.json CAND.json`: regression verdicts per metric.

Inputs are results.json files written by `trapmeter run` (one or more boots
each, `--repeat N`).  Each file is re-verified before use: the raw @tm lines
kept per boot must match the count and CRC-32 of the guest's end line, the
result records must be the ones those lines carry, and the CRC of the
results (with the runner's additions) must match the seal written with
them; a cut or hand-edited file is refused.

Statistics, per case and metric: the point estimate is the ratio of the
medians over boots (candidate / base).  Its 95 % confidence interval is a
seeded bootstrap: each replicate resamples the boots of each side with
replacement and, for cycle-based metrics, replaces each chosen boot's
median by a draw of the median of `samples` values from that boot's
distribution (the guest's min/p10/median/p90/p99/max, linearly
interpolated; the sample median's quantile is Beta(k, n+1-k)).  So both the
spread between boots and the sampling error inside a boot widen the
interval.  Verdict against a threshold t (default 5 %), in "cost" terms
(for higher-is-better metrics such as MiB/s the ratio is inverted):
regression when the whole CI lies above 1+t, improvement when it lies below
1/(1+t), unchanged when it lies within both, inconclusive otherwise."""

import bisect
import json
import math
import random
import re
import statistics

from . import report
from .dump import DumpParser

OK = 0
REGRESSION = 10
UNUSABLE = 11

DEFAULT_THRESHOLD = 0.05
DEFAULT_SEED = 1
DEFAULT_RESAMPLES = 2000
CI_LEVEL = 0.95
EXITS_CHANGED = 0.10        # relative change of exits/op worth reporting
EXITS_FLOOR = 0.5           # exits/op below this count as "no exit"
MAX_ABS = 1e300             # larger numbers are refused as corrupt
MAX_BOOTS = 1000
KNOWN_SCHEMAS = (1, 2)     # 2: status sealed in the dump; same results
QUANTILE_KEYS = (("min", 0.0), ("p10", 0.1), ("median", 0.5), ("p90", 0.9),
                 ("p99", 0.99), ("max", 1.0))
# Metrics results may carry from other suites: higher is better.
GENERIC_RE = re.compile(r"(^|_)(mib_s|mb_s|gib_s|pps|kpps|mpps|gbps|mbps|packets_per_s)$")
# Fields that identify what a result measured; any change = hand edit.
VERDICTS = ("regression", "improvement", "unchanged", "inconclusive")


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
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise InputError("%s: cannot read: %s" % (path, exc.strerror or exc))
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
        verify_document(doc)
    except InputError as exc:
        raise InputError("%s: %s" % (path, exc))
    except RecursionError:
        raise InputError("%s: nesting too deep" % path)
    return doc


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
    _match_results(results, guest, index)
    seal = integ.get("results_crc32")
    if seal != report.results_crc32(results):
        raise InputError("boot %d: results do not match their CRC seal "
                         "(%r): the file was edited after the run"
                         % (index, seal))
    return bool(results)


def _replay(lines, end, index):
    """Feed the stored @tm lines through the dump parser: count and CRC
    must match the end line.  Returns the guest's result records."""
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
    return dump.results


def _match_results(results, guest, index):
    if len(results) != len(guest):
        raise InputError("boot %d: %d results stored but the guest's lines "
                         "hold %d: edited" % (index, len(results),
                                              len(guest)))
    for i, (mine, theirs) in enumerate(zip(results, guest)):
        if not isinstance(mine, dict):
            raise InputError("boot %d: result %d is not an object"
                             % (index, i))
        for key, value in theirs.items():
            if mine.get(key) != value:
                raise InputError("boot %d: result %d (%s) field %r differs "
                                 "from the guest's line: edited"
                                 % (index, i, theirs.get("case"), key))


# ---------------------------------------------------------------- samples

def _num(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


class Obs:
    """One boot's figure for a metric: a value, and optionally the
    distribution of the samples its median came from."""

    def __init__(self, value, quantiles=None, n=1):
        self.value = value
        self.quantiles = quantiles      # [(p, v)] ascending, or None
        self.ps = [p for p, _v in quantiles] if quantiles else None
        self.n = n

    def draw(self, rng):
        if not self.quantiles or self.n < 2:
            return self.value
        return _interp(self.quantiles, median_quantile(rng, self.n),
                       self.ps)


BETA_POOL = 4096


def median_quantile(rng, n):
    """The quantile at which the median of n samples falls: Beta(k,
    n+1-k), k = (n+1)//2.  Drawn from a pool per n (filled from the same
    seeded generator), because betavariate is slow in Python.  The pools
    live on the generator itself: a cache keyed by id(rng) could hand a
    new generator the pool of a dead one that had the same id, and the
    seeded bootstrap would no longer repeat."""
    pools = rng.__dict__.setdefault("_tm_beta_pools", {})
    pool = pools.get(n)
    if pool is None:
        k = (n + 1) // 2
        pool = [rng.betavariate(k, n + 1 - k) for _ in range(BETA_POOL)]
        pools[n] = pool
    return pool[int(rng.random() * BETA_POOL)]


def _interp(points, u, ps=None):
    if ps is None:
        ps = [p for p, _v in points]
    i = bisect.bisect_left(ps, u)
    if i <= 0:
        return points[0][1]
    if i >= len(points):
        return points[-1][1]
    (p0, v0), (p1, v1) = points[i - 1], points[i]
    return v0 + (v1 - v0) * ((u - p0) / (p1 - p0) if p1 > p0 else 0.0)


def cycle_quantiles(res, scale=1.0):
    cycles = res.get("cycles")
    if not isinstance(cycles, dict):
        return None
    points = []
    for key, p in QUANTILE_KEYS:
        v = _num(cycles.get(key))
        if v is not None:
            points.append((p, v * scale))
    if len(points) < 2 or any(b[1] < a[1] for a, b in zip(points,
                                                          points[1:])):
        return None
    return points


def observations(res):
    """{metric: (Obs, lower_is_better)} for one result of one boot."""
    out = {}
    median = _num((res.get("cycles") or {}).get("median")) \
        if isinstance(res.get("cycles"), dict) else None
    samples = res.get("samples")
    n = samples if isinstance(samples, int) and not isinstance(
        samples, bool) and samples > 0 else 1
    if median is not None:
        out["cycles_per_op"] = (Obs(median, cycle_quantiles(res), n), True)
    exits = _num(res.get("exits_measured"))
    if exits is not None:
        out["exits_per_op"] = (Obs(exits), True)
        # the runner leaves cycles_per_exit null when the count is noise
        if median is not None and exits >= EXITS_FLOOR and \
                _num(res.get("cycles_per_exit")) is not None:
            out["cycles_per_exit"] = (Obs(median / exits, cycle_quantiles(
                res, 1.0 / exits), n), True)
    for key, value in res.items():
        if GENERIC_RE.search(key) and _num(value) is not None:
            out[key] = (Obs(_num(value)), False)
    return out


def _median(values):
    return statistics.median(values) if values else None


def bootstrap_ci(base, cand, rng, resamples, floor=None):
    """(point ratio, lo, hi) of median(cand) / median(base)."""
    def med(obs_list, draw):
        if draw:
            m = len(obs_list)
            picks = [obs_list[int(rng.random() * m)] for _ in obs_list]
            vals = [o.draw(rng) for o in picks]
        else:
            vals = [o.value for o in obs_list]
        v = statistics.median(vals)
        return max(v, floor) if floor is not None else v

    b0, c0 = med(base, False), med(cand, False)
    point = _ratio(c0, b0)
    if point is None:
        return None, None, None
    ratios = []
    for _ in range(resamples):
        r = _ratio(med(cand, True), med(base, True))
        if r is not None:
            ratios.append(r)
    if len(ratios) < resamples // 2:
        return point, None, None
    ratios.sort()
    tail = (1.0 - CI_LEVEL) / 2
    lo = ratios[int(tail * (len(ratios) - 1))]
    hi = ratios[int(math.ceil((1 - tail) * (len(ratios) - 1)))]
    return point, lo, hi


def _ratio(num, den):
    if num is None or den is None or den <= 0 or num < 0:
        return None
    return num / den


def verdict(lo, hi, threshold, lower_is_better):
    """Verdict from the CI of cand/base; for higher-is-better metrics the
    CI is inverted first (a drop in MiB/s is a cost increase)."""
    if lo is None or hi is None:
        return "inconclusive"
    if not lower_is_better:
        lo, hi = (1.0 / hi if hi > 0 else math.inf,
                  1.0 / lo if lo > 0 else math.inf)
    up, down = 1.0 + threshold, 1.0 / (1.0 + threshold)
    if lo > up:
        return "regression"
    if hi < down:
        return "improvement"
    if lo >= down and hi <= up:
        return "unchanged"
    return "inconclusive"


# ---------------------------------------------------------------- compare

def boot_results(doc):
    """[(results list)] of the boots that produced results."""
    return [b["results"] for b in doc["boots"]
            if isinstance(b, dict) and b.get("results")]


def _key(res):
    return (str(res.get("suite")), str(res.get("case")))


def collect(doc):
    """{(suite, case): {"res": first result, metric: [Obs per boot]}}."""
    table, order = {}, []
    for results in boot_results(doc):
        for res in results:
            if not isinstance(res, dict):
                continue
            key = _key(res)
            if key not in table:
                table[key] = {"res": res, "metrics": {}, "boots": []}
                order.append(key)
            entry = table[key]
            entry["boots"].append(res)
            for metric, (obs, lower) in observations(res).items():
                entry["metrics"].setdefault(metric, ([], lower))[0].append(
                    obs)
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
        self.n_base = self.n_cand = 0
        self.verdict = "inconclusive"
        self.notes = []
        self.threshold = DEFAULT_THRESHOLD

    @property
    def name(self):
        return "%s/%s" % (self.suite, self.case)

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
                "ci95": [self.lo, self.hi], "boots": [self.n_base,
                                                      self.n_cand],
                "threshold": self.threshold, "verdict": self.verdict,
                "lower_is_better": self.lower_is_better,
                "notes": list(self.notes)}


def compare_docs(base, cand, thresholds=None, seed=DEFAULT_SEED,
                 resamples=DEFAULT_RESAMPLES):
    """Rows (sorted by effect size) and warnings.  Refuses (InputError)
    files that measured different suites."""
    thresholds = thresholds or {}
    sb, sc = suites_of(base), suites_of(cand)
    if sb != sc:
        raise InputError("the files measured different suites: base has "
                         "%s, candidate has %s" % (
                             ", ".join(sorted(sb)) or "none",
                             ", ".join(sorted(sc)) or "none"))
    tb, order = collect(base)
    tc, _ = collect(cand)
    warnings = _config_warnings(base, cand)
    only_b = [k for k in order if k not in tc]
    only_c = [k for k in tc if k not in tb]
    for label, keys in (("base", only_b), ("candidate", only_c)):
        if keys:
            warnings.append("%d case(s) only in the %s file, not compared: "
                            "%s" % (len(keys), label, ", ".join(
                                "%s/%s" % k for k in keys[:6])
                                + (" ..." if len(keys) > 6 else "")))
    rng = random.Random(seed)
    rows = []
    for key in order:
        if key in tc:
            rows.extend(_case_rows(key, tb[key], tc[key], thresholds, rng,
                                   resamples))
    rows.sort(key=lambda r: (-r.effect, r.name, r.metric))
    return rows, warnings


def _config_warnings(base, cand):
    out = []
    for field in ("accel", "kvm_flavour"):
        vb = (base.get("host") or {}).get(field) if isinstance(
            base.get("host"), dict) else None
        vc = (cand.get("host") or {}).get(field) if isinstance(
            cand.get("host"), dict) else None
        if vb != vc:
            out.append("host %s differs: base %s, candidate %s"
                       % (field, vb, vc))
    return out


def _case_rows(key, eb, ec, thresholds, rng, resamples):
    rows = []
    exits_changed = None
    for metric, (obs_b, lower) in eb["metrics"].items():
        if metric not in ec["metrics"]:
            continue
        obs_c = ec["metrics"][metric][0]
        row = Row(key[0], key[1], metric, lower)
        row.threshold = thresholds.get(metric, thresholds.get(
            "*", DEFAULT_THRESHOLD))
        row.n_base, row.n_cand = len(obs_b), len(obs_c)
        row.base = _median([o.value for o in obs_b])
        row.cand = _median([o.value for o in obs_c])
        floor = EXITS_FLOOR if metric == "exits_per_op" else None
        row.ratio, row.lo, row.hi = bootstrap_ci(obs_b, obs_c, rng,
                                                 resamples, floor)
        row.verdict = verdict(row.lo, row.hi, row.threshold, lower)
        if metric == "exits_per_op":
            exits_changed = _exits_note(row)
        rows.append(row)
    _annotate(rows, eb, ec, exits_changed)
    return rows


def _exits_note(row):
    """"exits/op a -> b" when the exit count moved: always reported."""
    b = max(row.base or 0.0, EXITS_FLOOR)
    c = max(row.cand or 0.0, EXITS_FLOOR)
    if abs(c - b) > EXITS_CHANGED * b:
        return "exit path changed: %s -> %s exits/op" % (
            report.fmt_num(row.base), report.fmt_num(row.cand))
    return None


def _annotate(rows, eb, ec, exits_changed):
    rb, rc = eb["res"], ec["res"]
    impl = (rb.get("rep_impl"), rc.get("rep_impl"))
    for row in rows:
        if exits_changed:
            row.notes.append(exits_changed)
        if impl[0] != impl[1]:
            row.notes.append("REP implementation %s -> %s" % impl)
        if row.metric == "exits_per_op":
            pass        # the exit-path note says it
        elif row.verdict == "regression" and row.slowdown:
            row.notes.append("%.2fx slower" % row.slowdown)
        elif row.verdict == "improvement" and row.slowdown:
            row.notes.append("%.2fx faster" % (1.0 / row.slowdown))
        if row.n_base < 2 and row.n_cand < 2 and row.metric not in (
                "cycles_per_op", "cycles_per_exit"):
            row.notes.append("1 boot per side: no spread (use --repeat)")


def summarize(rows):
    counts = {v: 0 for v in VERDICTS}
    for row in rows:
        counts[row.verdict] += 1
    changed = sorted({r.name for r in rows if any(
        n.startswith("exit path changed") for n in r.notes)})
    return counts, changed


def exit_status(rows):
    return REGRESSION if any(r.verdict == "regression" for r in rows) else OK


# ---------------------------------------------------------------- output

TABLE_HEAD = ("verdict", "case", "metric", "base", "candidate", "ratio",
              "95% CI", "notes")


def fmt_ratio(value):
    return "-" if value is None else "%.3f" % value


def row_cells(row):
    ci = "-" if row.lo is None else "%s..%s" % (fmt_ratio(row.lo),
                                                fmt_ratio(row.hi))
    return [row.verdict, row.name, row.metric, report.fmt_num(row.base),
            report.fmt_num(row.cand), fmt_ratio(row.ratio), ci,
            "; ".join(row.notes)]


def render_table(rows, warnings, base_path, cand_path):
    counts, changed = summarize(rows)
    lines = ["trapmeter compare: base %s vs candidate %s" % (base_path,
                                                             cand_path)]
    lines += ["warning: " + w for w in warnings]
    cells = [list(TABLE_HEAD)] + [row_cells(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(TABLE_HEAD)
                                                           - 1)]
    for i, c in enumerate(cells):
        parts = [c[j].ljust(widths[j]) if j < 3 else c[j].rjust(widths[j])
                 for j in range(len(widths))]
        lines.append("  " + "  ".join(parts) + "  " + c[-1])
        if i == 0:
            lines.append("  " + "  ".join("-" * w for w in widths) + "  -----")
    lines.append(summary_line(counts, changed))
    return "\n".join(lines) + "\n"


def summary_line(counts, changed):
    text = ", ".join("%s %d" % (v, counts[v]) for v in VERDICTS)
    if changed:
        text += "; exit counts changed in %d case(s): %s" % (
            len(changed), ", ".join(changed[:8]) + (
                " ..." if len(changed) > 8 else ""))
    return "summary: " + text


def render_markdown(rows, warnings, base_path, cand_path):
    counts, changed = summarize(rows)
    out = ["## trapmeter compare", "",
           "Base `%s`, candidate `%s`." % (base_path, cand_path), "",
           "**%s**" % summary_line(counts, changed)[len("summary: "):], ""]
    out += ["> warning: %s" % w for w in warnings]
    if warnings:
        out.append("")
    out.append("| " + " | ".join(TABLE_HEAD) + " |")
    out.append("|" + "|".join(["---"] * 3 + ["---:"] * 4 + ["---"]) + "|")
    for row in rows:
        cells = row_cells(row)
        cells[0] = "**%s**" % cells[0] if row.verdict == "regression" \
            else cells[0]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells)
                   + " |")
    return "\n".join(out) + "\n"


def junit_cases(rows):
    from .junit import Case
    cases = []
    for row in rows:
        detail = ("base %s, candidate %s, ratio %s, 95%% CI %s..%s, "
                  "threshold %g%%, boots %d/%d%s" % (
                      report.fmt_num(row.base), report.fmt_num(row.cand),
                      fmt_ratio(row.ratio), fmt_ratio(row.lo),
                      fmt_ratio(row.hi), row.threshold * 100, row.n_base,
                      row.n_cand, ("; " + "; ".join(row.notes))
                      if row.notes else ""))
        failure = ("regression: %s %s %s" % (row.name, row.metric, detail)
                   if row.verdict == "regression" else None)
        cases.append(Case("trapmeter.compare.%s" % row.suite,
                          "%s %s" % (row.case, row.metric), failure,
                          text="%s: %s" % (row.verdict, detail)))
    return cases
