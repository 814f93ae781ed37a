"""Like with like: what makes two results files comparable.

A timing verdict compares per-boot figures (the minimum of a case's
samples, over its rounds).  Some differences between the two files change
what that figure *means*, and a verdict across them measures the
difference of method, not of the system: the samples per case (the
minimum of 5 samples sits higher than the minimum of 63), the iterations
per sample under a fixed plan, the rounds, the statistic a file carries,
the clock the cycles count (TSC rate), the accelerator (TCG emulates every
instruction).  Those refuse the timing verdict of the cases they touch.
Other differences change the system measured -- often on purpose (QEMU
binary, version and command line, firmware, boot method, host kernel, CPU
model, kernel command line, case list) -- and are named as warnings.  Two
files that were not boots of one interleaved `ab` session are blocks taken
apart in time, on a host whose level drifts by more than the threshold:
a warning says so.

Pure: check() reads two documents' config, host, run records and results
and returns (refusals, warnings); the host fingerprint's refusals
(system/envdiff.py) can join the same list as Refusal(field, reason)."""

import re

from . import opsize, primed
from .refusal import Refusal, refusals_for, short  # noqa: F401 (callers)

TSC_TOLERANCE = 0.02        # TSC rates this far apart: another clock
# sources that state the rate; a PIT calibration measures it, and moves by
# 20 % between TCG boots on a loaded host
TSC_DECLARED = ("cpuid15", "hv-leaf", "kvmclock")
# the source of a rate the guest measured against the PIT (arch/x86/tsc.c)
TSC_CALIBRATED = "pit"
# kernel command-line keys checked elsewhere (plan, rounds, case list) or
# set per boot by the runner (sync: on in the boots that count exits)
OWN_WORDS = ("samples", "budget_ms", "quick", "rounds", "case", "suite",
             "sync")
ARGV_SKIP = ("opt/trapmeter/cmdline", "-append")
# a path's directories (and the fixtures' REPO/, TMPDIR/): a run's
# temporary directory and the checkout's place are not its configuration
PATH_RE = re.compile(r"(?<![^\s,:=])(?:REPO|TMPDIR)?(?:/[^/\s,:=]+)*/"
                     r"(?=[^/\s,:=])")
LABELS = ("base", "candidate")


# ---------------------------------------------------------------- reading

def _dict(value):
    return value if isinstance(value, dict) else {}


def _boots(doc):
    return [b for b in doc.get("boots") or () if isinstance(b, dict)
            and isinstance(b.get("results"), list) and b["results"]]


def _runs(doc):
    return [_dict(b.get("run")) for b in _boots(doc)]


def cases_of(doc):
    """{(suite, case): [result of each boot that has it]}."""
    out = {}
    for boot in _boots(doc):
        for res in boot["results"]:
            if isinstance(res, dict):
                key = (str(res.get("suite")), str(res.get("case")))
                out.setdefault(key, []).append(res)
    return out


def _words(text):
    """{"key": "value"} of a kernel command line ("quick" -> "on")."""
    out = {}
    for word in str(text or "").split():
        key, _, value = word.partition("=")
        out[key] = value if _ else "on"
    return out


def _one(values):
    """The value every item agrees on, None when unknown or mixed."""
    seen = {repr(v): v for v in values if v is not None}
    return next(iter(seen.values())) if len(seen) == 1 else None


# ---------------------------------------------------------------- refusals

def _span(values):
    lo, hi = min(values), max(values)
    return "%d" % lo if lo == hi else "%d-%d" % (lo, hi)


def _plan_of(results):
    """("fixed", samples set, iters set) when every boot ran a plan
    (stop "plan"); ("adaptive", samples set, None) when the guest says how
    each stopped; ("unknown", ...) for results of a guest that did not
    (its samples= count, which the boots' counts show)."""
    samples = {r.get("samples") for r in results
               if isinstance(r.get("samples"), int)}
    if results and all(r.get("stop") == "plan" for r in results):
        return "fixed", samples, {r.get("iters") for r in results}
    if any("stop" in r for r in results):
        return "adaptive", samples, None
    return "unknown", samples, None


def _adaptive_rule(doc):
    """What bounds an adaptive case's samples: the guest's samples cap,
    time budget and --quick, as every boot's run record says."""
    runs = _runs(doc)
    return tuple(_one([r.get(k) for r in runs])
                 for k in ("samples", "budget_ms", "quick"))


def _describe(plan):
    kind, samples, iters = plan
    text = "%s samples" % _span(samples) if samples else "samples unknown"
    if kind == "fixed":
        return "a fixed plan of %s x %s iterations" % (
            text, "/".join(str(i) for i in sorted(iters, key=str)))
    return "adaptive stopping (%s)" % text if kind == "adaptive" else text


def _plan_differs(pb, pc, rules):
    """Fixed plans by their samples and iterations; adaptive stopping by
    its rule (a boot's count is the rule's outcome: one boot per file
    stopping at 8 and at 12 ran the same plan)."""
    if pb[0] != pc[0]:
        return True
    if pb[0] == "fixed":
        return pb[1] != pc[1] or pb[2] != pc[2]
    if pb[0] == "unknown" and len(pb[1]) == 1 and len(pc[1]) == 1:
        return rules[0] != rules[1] or pb[1] != pc[1]
    return rules[0] != rules[1]


def _merge(plans):
    """One description of the plans of several cases."""
    kinds = {p[0] for p in plans}
    samples = set().union(*(p[1] for p in plans))
    iters = set().union(*(p[2] or () for p in plans))
    if kinds == {"fixed"}:
        return _describe(("fixed", samples, iters))
    return " or ".join(sorted(_describe((k, samples, iters or None))
                              for k in kinds))


def plan_refusals(cb, cc, rules):
    """The cases whose sample plans differ: one Refusal for them all."""
    touched, plans = [], ([], [])
    for key in sorted(set(cb) & set(cc)):
        pb, pc = _plan_of(cb[key]), _plan_of(cc[key])
        if _plan_differs(pb, pc, rules):
            touched.append(key)
            plans[0].append(pb)
            plans[1].append(pc)
    if not touched:
        return []
    return [Refusal("plan", "samples per case differ (base ran %s, "
                    "candidate %s): the minimum of more samples sits lower"
                    % (_merge(plans[0]), _merge(plans[1])), touched)]


def _round_count(run):
    value = _words(run.get("cmdline")).get("rounds", "1")
    return int(value) if value.isdigit() else None


def _rounds(doc):
    """The set of rounds its boots ran (kernel word rounds=N, default 1);
    None when a boot's is unknown."""
    values = {_round_count(r) for r in _runs(doc)}
    return values if values and None not in values else None


def rounds_refusal(base, cand):
    rb, rc = _rounds(base), _rounds(cand)
    if rb is None or rc is None or rb == rc:
        return []
    return [Refusal("rounds", "rounds differ (base %s, candidate %s): a "
                    "boot's figure is its fastest round" % (
                        "/".join(map(str, sorted(rb))),
                        "/".join(map(str, sorted(rc)))))]


def _has_stat(results, stat):
    return all(isinstance(_dict(r.get("cycles")).get(stat), (int, float))
               for r in results)


def statistic_refusals(cb, cc, stat):
    """Cases one file carries the statistic of and the other does not (a
    LAVA export holds the median only)."""
    out = []
    for label, mine, theirs in (("base", cb, cc), ("candidate", cc, cb)):
        keys = [k for k in sorted(set(mine) & set(theirs))
                if not _has_stat(mine[k], stat)
                and _has_stat(theirs[k], stat)]
        if keys:
            out.append(Refusal("statistic", "the %s file has no %s of "
                               "these cases' samples (--stat median "
                               "compares what both carry)" % (label, stat),
                               keys))
    return out


def _tsc(doc):
    """The TSC rate (kHz) every boot agrees on within TSC_TOLERANCE, None
    when unknown, guessed, calibrated (PIT) or mixed."""
    rates = []
    for run in _runs(doc):
        tsc = _dict(run.get("tsc"))
        if tsc.get("guess") or tsc.get("source") not in TSC_DECLARED or \
                not isinstance(tsc.get("khz"), (int, float)):
            return None
        rates.append(float(tsc["khz"]))
    if not rates or max(rates) > min(rates) * (1 + TSC_TOLERANCE):
        return None
    return sum(rates) / len(rates)


def _calibration_error(tsc):
    """A PIT-calibrated boot's error, as a fraction of its rate: how far
    its own cross-check against the ACPI PM timer put it ("check"
    "diff_ppm"; one-sided, from the host's interference), at least
    TSC_TOLERANCE (the error a boot without a check is allowed)."""
    ppm = _dict(tsc.get("check")).get("diff_ppm")
    err = abs(ppm) / 1e6 if isinstance(ppm, (int, float)) else 0.0
    return max(TSC_TOLERANCE, err)


def _calibrated(doc):
    """(lo, hi): the TSC rates (kHz) every PIT-calibrated boot of `doc`
    allows -- each boot's rate within its calibration's error -- when at
    least one boot was calibrated and none guessed; a declared boot
    allows its rate alone.  None when no boot was calibrated, a rate is
    unknown or guessed, or the boots allow no common rate (not one
    clock)."""
    lo, hi, pit = 0.0, float("inf"), False
    for run in _runs(doc):
        tsc = _dict(run.get("tsc"))
        khz = tsc.get("khz")
        if tsc.get("guess") or not isinstance(khz, (int, float)) or \
                khz <= 0 or tsc.get("source") not in TSC_DECLARED + (
                    TSC_CALIBRATED,):
            return None
        err = _calibration_error(tsc) \
            if tsc["source"] == TSC_CALIBRATED else 0.0
        pit = pit or tsc["source"] == TSC_CALIBRATED
        lo, hi = max(lo, khz * (1 - err)), min(hi, khz * (1 + err))
    return (lo, hi) if pit and lo <= hi else None


def calibration_refusals(base, cand):
    """A side whose TSC rate the PIT calibrated (not declared by CPUID, a
    hypervisor leaf or kvmclock): refused by name when the two sides'
    rates disagree beyond their calibrations' error (no rate both allow).
    A calibration that moved 20 % between TCG boots, with its cross-check
    saying so, is not refused; two files whose boots each agree on a rate
    and those rates lie apart are."""
    cb, cc = _calibrated(base), _calibrated(cand)
    if not (cb or cc):
        return []
    if not (cb and cc):
        # one side declared, the other calibrated: the declared rate
        # allows itself alone
        rates = [_tsc(doc) for doc in (base, cand)]
        cb = cb or (rates[0] and (rates[0], rates[0]))
        cc = cc or (rates[1] and (rates[1], rates[1]))
        if not (cb and cc):
            return []
    if cb[0] <= cc[1] and cc[0] <= cb[1]:
        return []
    return [Refusal("tsc-calibration", "TSC rates calibrated by the PIT "
                    "disagree beyond the calibration's error (base %.0f-%.0f "
                    "kHz, candidate %.0f-%.0f kHz allowed): not one clock, a "
                    "cycle may be another length of time" % (cb + cc))]


def clock_refusals(base, cand):
    out = []
    ab, ac = _field(base, "accel"), _field(cand, "accel")
    if ab and ac and ab != ac:
        out.append(Refusal("accel", "accel differs (base %s, candidate %s): "
                           "TCG emulates every instruction, its cycles are "
                           "not a trap's cost" % (ab, ac)))
    tb, tc = _tsc(base), _tsc(cand)
    if tb and tc and abs(tb - tc) > TSC_TOLERANCE * min(tb, tc):
        out.append(Refusal("tsc", "TSC rates differ (base %.0f kHz, "
                           "candidate %.0f kHz): a cycle is another length "
                           "of time" % (tb, tc)))
    return out + calibration_refusals(base, cand)


# ---------------------------------------------------------------- warnings

def _field(doc, name):
    """A configuration field from config, else host."""
    value = _dict(doc.get("config")).get(name)
    return value if value is not None else _dict(doc.get("host")).get(name)


def _guest_cpu(doc):
    cpus = {repr(_dict(r.get("cpu"))): _dict(r.get("cpu")) for r in
            _runs(doc) if r.get("cpu")}
    if len(cpus) != 1:
        return None
    cpu = next(iter(cpus.values()))
    return "%s %s/%s/%s %s" % (cpu.get("vendor"), cpu.get("family"),
                               cpu.get("model"), cpu.get("stepping"),
                               cpu.get("brand"))


def _boot_method(doc):
    runs = _runs(doc)
    loader = _one(["%s/%s" % (r.get("boot"), r.get("loader")) for r in runs])
    return "%s (%s)" % (_field(doc, "boot"), loader) if loader else \
        _field(doc, "boot")


def _niceness(doc):
    """QEMU's niceness (run --nice, ab's default -20): it decides how long
    the vCPU thread waits for a host CPU, the largest source of per-boot
    spread on a shared host (docs/design.md).  A run without --nice, or
    from before the field, left QEMU at its runner's niceness."""
    if not isinstance(doc.get("config"), dict):
        return None
    nice = doc["config"].get("nice")
    return "inherited" if nice is None else str(nice)


SIMPLE = (("boot method", _boot_method),
          ("firmware", lambda d: _field(d, "firmware")),
          ("machine", lambda d: _field(d, "machine")),
          ("QEMU niceness", _niceness),
          ("KVM flavour", lambda d: _dict(d.get("host")).get("kvm_flavour")
           if _field(d, "accel") == "kvm" else "(not KVM)"),
          ("CPU model", _guest_cpu),
          ("host CPU", lambda d: _dict(d.get("host")).get("host_cpu")),
          ("QEMU version", lambda d: _dict(d.get("host")).get("qemu_version")),
          ("host kernel", lambda d: _dict(d.get("host")).get("kernel")))
# left to the host fingerprint (system/envdiff.py) when both files have one
FINGERPRINTED = ("host CPU", "host kernel", "QEMU version")


def _fingerprinted(base, cand):
    return all(isinstance(_dict(d.get("host")).get("fingerprint"), dict)
               for d in (base, cand))


def simple_warnings(base, cand):
    out, unknown = [], []
    skip = FINGERPRINTED if _fingerprinted(base, cand) else ()
    for name, get in SIMPLE:
        if name in skip:
            continue
        vb, vc = get(base), get(cand)
        if vb is None and vc is None:
            continue
        if vb is None or vc is None:
            unknown.append(name)
        elif vb != vc:
            out.append("%s differs: base %s, candidate %s" % (name, vb, vc))
    if unknown:
        out.append("not checked, one file does not record it: %s"
                   % ", ".join(unknown))
    return out


def _argv(doc):
    """QEMU's command line with the runner's per-run paths cut to their
    file names and the kernel command line left out (checked on its
    own)."""
    argv = _dict(doc.get("config")).get("qemu_argv")
    if not isinstance(argv, list):
        return None
    words, skip_next = [], False
    for word in argv[1:]:
        word = str(word)
        if skip_next or any(s in word for s in ARGV_SKIP):
            skip_next = word == "-append"
            continue
        words.append(PATH_RE.sub("", word))
    return [PATH_RE.sub("", str(argv[0]))] + words if argv else words


def _diff_words(wb, wc, limit=4):
    only_b = [w for w in wb if w not in wc]
    only_c = [w for w in wc if w not in wb]
    parts = []
    for label, words in (("base", only_b), ("candidate", only_c)):
        if words:
            parts.append("only in %s: %s%s" % (label, " ".join(
                words[:limit]), " ..." if len(words) > limit else ""))
    return "; ".join(parts) or "same words, another order"


def command_line_warnings(base, cand):
    out = []
    ab, ac = _argv(base), _argv(cand)
    if ab is not None and ac is not None and ab != ac:
        out.append("QEMU command line differs (%s)" % _diff_words(ab, ac))
    kb = {k: v for k, v in _words(_field(base, "cmdline")).items()
          if k not in OWN_WORDS}
    kc = {k: v for k, v in _words(_field(cand, "cmdline")).items()
          if k not in OWN_WORDS}
    if kb != kc:
        out.append("kernel command line differs (%s)" % _diff_words(
            ["%s=%s" % i for i in sorted(kb.items())],
            ["%s=%s" % i for i in sorted(kc.items())]))
    return out


def case_list_warning(cb, cc):
    if set(cb) == set(cc):
        return []
    return ["case lists differ (%d cases in base, %d in candidate, %d in "
            "both): a boot's other cases change its state and length"
            % (len(cb), len(cc), len(set(cb) & set(cc)))]


def adaptive_warning(cb, cc):
    """Adaptive stopping on both sides: each boot's minimum is over its
    own number of samples."""
    spans = [sorted({r.get("samples") for rs in c.values() for r in rs
                     if isinstance(r.get("samples"), int)})
             for c in (cb, cc)]
    plans = [{_plan_of(rs)[0] for rs in c.values()} for c in (cb, cc)]
    if not all(p <= {"adaptive", "unknown"} for p in plans):
        return []
    counts = {len({r.get("samples") for r in rs}) for c in (cb, cc)
              for rs in c.values()}
    if counts <= {1}:
        return []
    return ["samples per case vary from boot to boot (adaptive stopping: "
            "base %s, candidate %s): each boot's minimum is over its own "
            "number of samples; `trapmeter ab` runs one plan on both sides"
            % tuple(_span(s) if s else "?" for s in spans)]


def session_of(doc):
    session = doc.get("session")
    return session if isinstance(session, dict) else None


def interleaved(base, cand):
    """True when the files are the two sides of one `ab` session."""
    sb, sc = session_of(base), session_of(cand)
    return bool(sb and sc and sb.get("kind") == "ab"
                and sb.get("id") is not None and sb.get("id") == sc.get("id")
                and sb.get("side") != sc.get("side"))


def interleave_warning(base, cand):
    if interleaved(base, cand):
        return []
    return ["the files were not interleaved (not the two sides of one "
            "`trapmeter ab` session): their boots are blocks taken apart in "
            "time, and a host's level drifts between blocks by more than "
            "the 0.5 % threshold; `trapmeter ab` alternates A B B A"]


# ---------------------------------------------------------------- entry

def check(base, cand, stat="min"):
    """(refusals, warnings) for comparing `cand` against `base`."""
    cb, cc = cases_of(base), cases_of(cand)
    rules = (_adaptive_rule(base), _adaptive_rule(cand))
    refusals = (plan_refusals(cb, cc, rules) + opsize.refusals(cb, cc)
                + primed.refusals(cb, cc)
                + rounds_refusal(base, cand)
                + statistic_refusals(cb, cc, stat)
                + clock_refusals(base, cand))
    warnings = (interleave_warning(base, cand) + simple_warnings(base, cand)
                + command_line_warnings(base, cand)
                + case_list_warning(cb, cc) + adaptive_warning(cb, cc))
    return refusals, warnings
