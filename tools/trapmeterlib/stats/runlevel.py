"""One run of a history as figures: what `history add` stores of a
results document, and the key that says which series it belongs to.

A run's figure for a case and metric is the median over its boots of
the per-boot figure `compare` judges (stats/compare.observations: the
minimum of the boot's samples for cycles per op, the measured exits per
op), with the 95 % t-interval of the boots (stats/tdist) when it has two
or more.  The series key is the host fingerprint's cost fields (the
ones that refuse a verdict when they differ, system/envdiff.COST_FIELDS)
and the method fields that refuse a timing verdict (stats/comparable:
accelerator, machine, irqchip, samples, time budget, quick, rounds):
runs that differ in one of them are never one series.  Nor are runs
whose TSC rates differ (tsc_rate(): a cycle per op is a TSC cycle, and
compare refuses a timing verdict across rates); the store matches a
rate to a series within TSC_KEY_TOLERANCE (backends/historydb.py).

Within a series, a case's figure is keyed by what one op measured too
(measure()): the bytes one op moved (stats/opsize: suite ide cuts its
long transfers to the case budget, so a slower boot moves 2 MiB where
the one before moved 4 MiB).  The verdicts refuse on it; in a history
another size is another series of the case, never a step in one.  The
other per-case field compare refuses on, a fixed plan's samples
(stats/comparable.plan_refusals), is not a measure here: an `ab`
session's plan takes each case's samples from its planning boot's
adaptive stop, as a `run`'s boots take theirs, so two sessions differ
in it as two runs do; the rule that sets them (samples cap, budget,
quick, rounds) is in the series key.

Pure: a verified results document in, plain values out."""

import hashlib
import json

from ..system import envdiff
from ..values.errors import UnusableInput
from . import compare, opsize
from .comparable import TSC_DECLARED, cases_of
from .bootstats import median
from .tdist import t_interval

LEVEL = 0.95
TIMING, COUNT = "timing", "count"
# compare's per-boot metrics a history keeps, and how each is judged
METRICS = {"cycles_per_op": TIMING, "exits_per_op": COUNT}
METHOD_WORDS = ("samples", "budget_ms", "quick", "rounds")
KEY_CHARS = 12
# declared TSC rates this far apart are one clock: in 154 KVM runs (528
# boots) recorded on this project's build machine kvmclock declared
# 2596142 kHz every time; other sessions' hosts with the same CPU model
# string declared 2445406 and 2299998 kHz (tests/fixtures/kvm-*.json).
# A tenth of the +1 % a history is asked to find, far inside compare's
# 2 % (stats/comparable.TSC_TOLERANCE), which refuses a verdict.
TSC_KEY_TOLERANCE = 0.001


class NoFingerprint(UnusableInput):
    """A results document without a host fingerprint."""


def kind_of(metric):
    """timing (judged on log values) or count (exits per op)."""
    return METRICS.get(metric, TIMING)


def cost_fields(fp):
    """{field: value} of the fingerprint fields that change trap costs."""
    return {k: v for k, v in envdiff.flatten(fp).items()
            if envdiff.within(k, envdiff.COST_FIELDS)}


# the hypervisor signature the guest reads from CPUID 0x40000000
HYPERVISORS = {"KVMKVMKVM": "kvm", "TCGTCGTCGTCG": "tcg"}


def guest_accel(doc):
    """The accelerator a file without one in its config (an import-lava
    file: LAVA's template picks it) ran under, as its boots' guest saw it
    (CPUID's hypervisor signature), when every boot agrees; else None."""
    seen = {HYPERVISORS.get(str(b["run"].get("hypervisor")))
            for b in doc.get("boots") or ()
            if isinstance(b, dict) and isinstance(b.get("run"), dict)}
    return seen.pop() if len(seen) == 1 else None


def method(doc):
    """The fields of how the run measured that refuse a timing verdict
    when they differ."""
    config = doc.get("config") if isinstance(doc.get("config"), dict) \
        else {}
    words = {}
    for boot in doc.get("boots") or ():
        run = boot.get("run") if isinstance(boot, dict) else None
        if isinstance(run, dict):
            words = {k: run.get(k) for k in ("samples", "budget_ms",
                                             "quick")}
            cmd = str(run.get("cmdline") or "").split()
            rounds = [w.split("=", 1)[1] for w in cmd
                      if w.startswith("rounds=")]
            words["rounds"] = rounds[0] if rounds else "1"
            break
    out = {"accel": config.get("accel") or guest_accel(doc),
           "machine": config.get("machine"),
           "kernel_irqchip": config.get("kernel_irqchip")}
    out.update({"run." + k: words.get(k) for k in METHOD_WORDS})
    return out


def series_key(doc):
    """(key, {field: value}): the series a run belongs to."""
    fp = envdiff.fingerprint_of(doc)
    if fp is None:
        raise NoFingerprint("no host fingerprint (host.fingerprint): the "
                            "file was written before results.json carried "
                            "one, or by an import that has none "
                            "(--fingerprint-from FILE gives one)")
    fields = cost_fields(fp)
    fields.update({"method." + k: v for k, v in method(doc).items()})
    return hashed(fields), fields


def hashed(fields):
    """The key of a series' fields."""
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_CHARS]


class NoTscRate(UnusableInput):
    """A results document whose boots state no TSC rate, or state
    declared rates that disagree (two clocks in one run)."""


def tsc_rate(doc):
    """(kHz, source) of the TSC that counted a run's cycles: "declared"
    when every boot's rate was stated (CPUID 0x15, a hypervisor leaf,
    kvmclock: stats/comparable.TSC_DECLARED) -- their median, the boots
    agreeing within TSC_KEY_TOLERANCE -- else "calibrated" (a boot's
    rate measured against the PIT or guessed: TCG's calibration moves by
    20 % between boots, so its median is shown, not keyed on).  A cycle
    per op is a TSC cycle: runs whose rates differ measured in different
    units, and compare refuses a timing verdict between them."""
    rates, declared = [], True
    for boot in doc.get("boots") or ():
        run = boot.get("run") if isinstance(boot, dict) else None
        tsc = run.get("tsc") if isinstance(run, dict) else None
        if not isinstance(boot, dict) or not boot.get("results"):
            continue
        khz = tsc.get("khz") if isinstance(tsc, dict) else None
        if not isinstance(khz, (int, float)) or isinstance(khz, bool) or \
                not khz > 0:
            raise NoTscRate("boot %s states no TSC rate (run.tsc.khz): its "
                            "cycles per op have no clock to be keyed by"
                            % boot.get("index", "?"))
        rates.append(float(khz))
        declared = declared and not tsc.get("guess") and \
            tsc.get("source") in TSC_DECLARED
    if not rates:
        raise NoTscRate("no boot states a TSC rate (run.tsc.khz)")
    if declared and not same_clock(min(rates), max(rates)):
        raise NoTscRate("its boots declare different TSC rates (%.0f to "
                        "%.0f kHz): two clocks in one run" % (
                            min(rates), max(rates)))
    return median(rates), ("declared" if declared else "calibrated")


def same_clock(khz_a, khz_b):
    """Two declared TSC rates within TSC_KEY_TOLERANCE of each other."""
    return abs(khz_a - khz_b) <= TSC_KEY_TOLERANCE * min(khz_a, khz_b)


def subject(doc):
    """{qemu_version, qemu_build, kernel, firmware} of a run: what it
    measured, beside the commit the user names."""
    fp = envdiff.fingerprint_of(doc) or {}
    qemu = fp.get("qemu") if isinstance(fp.get("qemu"), dict) else {}
    host = doc.get("host") if isinstance(doc.get("host"), dict) else {}
    config = doc.get("config") if isinstance(doc.get("config"), dict) \
        else {}
    build = qemu.get("build_id") or qemu.get("sha256")
    kernel = (fp.get("kernel") or {}).get("release") \
        if isinstance(fp.get("kernel"), dict) else None
    return {"qemu_version": qemu.get("version") or host.get("qemu_version"),
            "qemu_build": build, "kernel": kernel or host.get("kernel"),
            "firmware": config.get("firmware")}


def floor(boots):
    """A run's floor: the lowest of its boots' figures (noise only adds
    time), None without a positive one."""
    values = [v for v in boots or () if v is not None and v > 0]
    return min(values) if values else None


def _span(values):
    return "-".join(str(v) for v in sorted(set(values)))


def measure(results):
    """(measure, why mixed) of one case over a run's boots: the measure
    is "bytes=N", the bytes one op moved (None when no boot says), and
    `why mixed` names the sizes when the boots moved different ones
    (their median would mix two measurements), else None."""
    sizes = opsize.sizes(results)
    if len(sizes) > 1:
        return None, "bytes per op %s" % _span(sizes)
    return ("bytes=%d" % next(iter(sizes)) if sizes else None), None


def measure_pairs(text):
    """[(field, value)] of a measure text ("bytes=4096")."""
    return [tuple(p.split("=", 1)) for p in (text or "").split(",")
            if "=" in p]


def mixed_cases(doc):
    """{(suite, case): why} of the cases whose boots measured different
    things: run_figures() leaves them out."""
    out = {}
    for key, results in cases_of(doc).items():
        why = measure(results)[1]
        if why:
            out[key] = why
    return out


def run_figures(doc):
    """[{suite, case, metric, kind, value, lo, hi, boots, measure}] of
    one run: per case and kept metric, the median over boots, the boots'
    t-interval (lo, hi None with fewer than two boots) and what one op
    measured (measure()).  A case whose boots measured different things
    (mixed_cases()) is left out."""
    table, order = compare.collect(doc)
    results = cases_of(doc)
    out = []
    for key in order:
        what, mixed = measure(results.get(key, []))
        if mixed:
            continue
        for metric, (points, _lower) in sorted(table[key]["metrics"].items()):
            if metric not in METRICS:
                continue
            values = [v for _n, v in points]
            _mean, ci = t_interval(values, LEVEL)
            out.append({"suite": key[0], "case": key[1], "metric": metric,
                        "kind": kind_of(metric), "value": median(values),
                        "lo": ci[0] if ci else None,
                        "hi": ci[1] if ci else None, "boots": values,
                        "measure": what})
    return out


UNRECORDED = "unrecorded"


def resolve(measure, known):
    """The measure a stored figure is keyed by: its own; when it has
    none (a results file that says nothing, or a figure stored before
    the history kept measures), the one its case and metric has in every
    other run of the series (as `compare` accepts an unsaid size), "" when
    no run says, UNRECORDED when runs say several."""
    if measure is not None:
        return measure
    if len(known) > 1:
        return UNRECORDED
    return next(iter(known)) if known else ""


def measure_text(measure):
    """"4194304 bytes per op"; what UNRECORDED means; "" for ""."""
    if measure == UNRECORDED:
        return "what an op measured not recorded (older history, or a " \
            "file that does not say)"
    words = {"bytes": "%s bytes per op"}
    return ", ".join(words.get(k, k + " %s") % v
                     for k, v in measure_pairs(measure))
