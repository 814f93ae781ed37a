"""The fixed sample plan (`trapmeter run --plan FILE.json`).

FILE.json is an earlier results.json.  Its first boot with results gives,
per case, the suite, the case name, `iters` (operations per sample) and
`samples`; the runner writes them to fw_cfg `opt/trapmeter/plan`, one line
"SUITE CASE ITERS SAMPLES" per case (kernel/plan.h), and the guest runs
exactly the listed cases with exactly those figures: no batch sizing, no
adaptive stopping.  Every result then carries "plan": "fixed".  Two builds
timed with one plan take identical samples, which is what an A/B verdict
needs.

`trapmeter ab` makes its plan from a planning boot with every case's
samples raised to at least MIN_SAMPLES (`raised`): the guest's adaptive
sampling stops a case after as few as 5 samples once its low statistics
settle, and a boot's minimum over 5 samples moved 2.0 % (sd) between
undisturbed boots here against 1.3 % over 31 (docs/design.md)."""

import json
import os

from ..system import inputfile
from ..values.errors import InputError
from . import rounds

FWCFG_PLAN = "opt/trapmeter/plan"
PLAN_FILE = "plan.txt"
# Limits the guest enforces too (kernel/plan.h).
MAX_ENTRIES = 512
MAX_ITERS = 1000000
MAX_SAMPLES = 10000
SUITE_LEN = 16
CASE_LEN = 48
# ab's floor of samples per case, unless a case's samples would then take
# longer than WINDOW_MS (its first boot's samples are never cut)
MIN_SAMPLES = 31
WINDOW_MS = 250.0


class PlanError(InputError):
    """A --plan file that cannot be used; the message names the problem."""


def _read(path):
    try:
        return json.loads(inputfile.read_text(path).decode("utf-8"))
    except inputfile.InputError as exc:
        raise PlanError("--plan: %s" % exc)
    except (ValueError, RecursionError) as exc:
        raise PlanError("--plan %s: not a results.json (invalid JSON: %s)"
                        % (path, exc))


def _count(res, key, top, where):
    value = res.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or \
            not 1 <= value <= top:
        raise PlanError("%s: '%s' must be an integer 1..%d (got %r)"
                        % (where, key, top, value))
    return value


def _name(res, key, cap, where):
    value = res.get(key)
    if not isinstance(value, str) or not value or len(value) >= cap or \
            any(not "!" <= c <= "~" for c in value):
        raise PlanError("%s: '%s' must be a printable word shorter than %d "
                        "characters (got %r)" % (where, key, cap, value))
    return value


def entry(res, where):
    """(suite, case, iters, samples) of one result record."""
    if not isinstance(res, dict):
        raise PlanError("%s: not an object" % where)
    return (_name(res, "suite", SUITE_LEN, where),
            _name(res, "case", CASE_LEN, where),
            _count(res, "iters", MAX_ITERS, where),
            _count(res, "samples", MAX_SAMPLES, where))


def _first_results(doc, path):
    boots = doc.get("boots") if isinstance(doc, dict) else None
    if not isinstance(boots, list):
        raise PlanError("--plan %s: not a results.json (no 'boots' list)"
                        % path)
    for index, boot in enumerate(boots):
        results = boot.get("results") if isinstance(boot, dict) else None
        if isinstance(results, list) and results:
            return index, results
    raise PlanError("--plan %s: no boot has results to plan" % path)


def from_document(doc, path="FILE"):
    """The plan entries of a parsed results.json (pure)."""
    index, results = _first_results(doc, path)
    entries, seen = [], set()
    for number, res in enumerate(results):
        where = "--plan %s: boot %d result %d" % (path, index, number)
        item = entry(res, where)
        if item[:2] in seen:
            raise PlanError("%s: case %s/%s is listed twice"
                            % (where, item[0], item[1]))
        seen.add(item[:2])
        entries.append(item)
    if len(entries) > MAX_ENTRIES:
        raise PlanError("--plan %s: %d cases, more than the guest's %d"
                        % (path, len(entries), MAX_ENTRIES))
    return entries


def load(path):
    return from_document(_read(path), path)


def text(entries):
    return "".join("%s %s %d %d\n" % e for e in entries)


def suites(entries):
    """The plan's suites in first-seen order (the runner's suite= word)."""
    out = []
    for suite, _case, _iters, _samples in entries:
        if suite not in out:
            out.append(suite)
    return out


def qemu_args(entries, tmpdir):
    """Write the plan file and return the -fw_cfg option that carries it."""
    path = os.path.join(tmpdir, PLAN_FILE)
    with open(path, "w", encoding="ascii") as fh:
        fh.write(text(entries))
    return ["-fw_cfg", "name=%s,file=%s" % (FWCFG_PLAN,
                                            path.replace(",", ",,"))]


def _taken(res):
    """(iters, samples) a result took: with rounds, every round's iters
    (one value when they agree) and the total."""
    parts = res.get("rounds")
    if isinstance(parts, list) and parts:
        iters = {p.get("iters") for p in parts if isinstance(p, dict)}
        return (iters.pop() if len(iters) == 1 else sorted(iters, key=str),
                res.get("samples"))
    return res.get("iters"), res.get("samples")


def deviations(entries, results):
    """Planned cases whose result did not take exactly the planned iters
    and samples (the guest honours the plan; this is the runner's check).
    A case in R rounds takes ceil(samples / R) per round (rounds.py)."""
    planned = {(s, c): (i, n) for s, c, i, n in entries}
    out = []
    for res in results:
        want = planned.get((res.get("suite"), res.get("case")))
        if not want:
            continue
        parts = res.get("rounds")
        count = len(parts) if isinstance(parts, list) and parts else 1
        want = (want[0], rounds.planned_total(want[1], count))
        got = _taken(res)
        if got != want:
            out.append("%s: planned iters %d samples %d, got %r %r"
                       % (res.get("case"), want[0], want[1], got[0], got[1]))
    return out


def sample_ms(res, khz):
    """Milliseconds one sample of a result took (median cycles per op times
    ops per sample), or None when the record does not say."""
    cycles = res.get("cycles") if isinstance(res, dict) else None
    median = cycles.get("median") if isinstance(cycles, dict) else None
    iters = res.get("iters") if isinstance(res, dict) else None
    if not isinstance(median, (int, float)) or isinstance(median, bool) or \
            not isinstance(iters, int) or not khz or khz <= 0:
        return None
    return float(median) * iters / khz


def raise_samples(samples, ms, floor=MIN_SAMPLES, window_ms=WINDOW_MS,
                  rounds=None):
    """A case's planned samples: at least `floor`, fewer when that many
    would take longer than window_ms, never fewer than it took -- except,
    given the boot's `rounds`, a long case (the samples it took last longer
    than window_ms): it gets the window's samples, at least one a round.
    Its samples are long enough that the host interrupts every one of them
    (a 4096-unit loop: 200-500 ms a sample under KVM on PVM), so the
    boot's minimum over more of them sits no lower, and the time goes to
    more boots instead (docs/design.md, "Where the per-boot spread comes
    from")."""
    if ms is None or ms <= 0:
        want = floor
    else:
        want = min(floor, int(window_ms / ms))
        if rounds and samples * ms > window_ms:
            return min(MAX_SAMPLES, max(rounds, want))
    return min(MAX_SAMPLES, max(samples, want))


def raised(doc, path="FILE", floor=MIN_SAMPLES, window_ms=WINDOW_MS,
           rounds=None):
    """The plan entries of a results.json's first boot with results, each
    case's samples raised by raise_samples (pure)."""
    index, results = _first_results(doc, path)
    boot = doc["boots"][index]
    run = boot.get("run") if isinstance(boot.get("run"), dict) else {}
    tsc = run.get("tsc") if isinstance(run.get("tsc"), dict) else {}
    khz = tsc.get("khz") if isinstance(tsc.get("khz"), (int, float)) else None
    out = []
    for suite, case, iters, samples in from_document(doc, path):
        res = next(r for r in results if r.get("suite") == suite
                   and r.get("case") == case)
        out.append((suite, case, iters,
                    raise_samples(samples, sample_ms(res, khz), floor,
                                  window_ms, rounds)))
    return out


def document(entries):
    """A results-shaped document that `run --plan` reads: one boot whose
    results carry only the plan's fields."""
    return {"tool": "trapmeter", "kind": "plan", "boots": [{"results": [
        {"suite": s, "case": c, "iters": i, "samples": n}
        for s, c, i, n in entries]}]}
