"""A `kut` session's boots as stats/kutcmp.py's rounds: per round,
vmexit's figures and trapmeter's twin rows by vmexit name, with vmexit's
vCPU waits and KVM's counts; from a live session's boots
(kutcmp_boots) or from its results.json (file_boots, `kut --from`), and
what a saved session says of its place among --again's (saved_look,
saved_rounds) and of its vmexit boots (vmexit_boots)."""

from ..backends import kut_counted, kut_log, kut_vmexit
from ..output import report
from ..output.summary import tsc_khz
from ..stats import kutcmp, kutlooks, kutsession
from ..values.resultform import raw_net

SUITE = kut_log.SUITE
# vmexit's pci-mem/pci-io line of pci-testdev's first test (no eventfd),
# the twin of trapmeter's ptd.nofd / ptd.io.nofd cases
PCI_FIRST = kutsession.FIRST_PCI


def file_boots(doc):
    """A session's results document as stats/kutcmp.py's rounds."""
    rounds = {}
    for boot in doc["boots"]:
        rnd = boot.get("kut_round", boot.get("index"))
        vm = [(r.get("case"), r.get("kut_name"), report.median_cycles(r))
              for r in boot.get("results") or [] if r.get("suite") == SUITE]
        tm = [r for r in boot.get("results") or [] if r.get("suite") != SUITE]
        rounds.setdefault(rnd, []).append((tm, vm))
    saved = (doc.get("kut") or {}).get("vcpu_wait")
    waits, spans = round_waits(saved), round_entries(saved)
    khz = next((tsc_khz(b) for b in doc["boots"] if tsc_khz(b)), None)
    order = sorted(rounds, key=str)
    return kut_counted.attach([paired(rounds[r], waits.get(r), spans.get(
        r), khz) for r in order], order, (doc.get("kut") or {}).get(
            "vmexit_counted"))


def replay_names(boots, cases, info):
    """The rows `kut --from` shows: those of --cases, else the ones the
    session itself showed (the --cases it ran with), else every name a
    tool has a figure for."""
    wanted = [w for w in (cases or "").split(",") if w] or [
        r.get("kut_name") for r in info.get("levels") or ()
        if isinstance(r, dict)]
    return shown_names(boots, wanted)


def shown_names(boots, wanted):
    """The names with a row: those wanted (None: every one) and the
    reference every difference is to, where a tool has a figure."""
    keep = wanted and set(wanted) | {kutcmp.REFERENCE}
    return [n for n in kut_log.VMEXIT_NAMES
            if (not keep or n in keep) and any(
                n in b["vmexit"] or n in b["trapmeter"] for b in boots)]


def absent_names(wanted, shown, left_out):
    """The vmexit names asked for (wanted; None: every one) that have no
    row (neither tool has a figure) and were not left out of vmexit's
    boots: each is named under the table, not dropped."""
    return [n for n in kut_log.VMEXIT_NAMES
            if (wanted is None or n in wanted) and n not in shown and
            n not in left_out]


def replay_wanted(doc, cases):
    """The names a replayed session asked for: --cases, else the session's
    own (doc["kut"]["wanted"], None for every one), else, in a file written
    before it was kept, the names vmexit was booted with and skipped (a
    row both tools skipped has vmexit's skip record)."""
    if cases:
        return [c for c in cases.split(",") if c]
    info = doc.get("kut") or {}
    if "wanted" in info:
        return info["wanted"]
    return sorted(kutcmp.skipped_vmexit(doc["boots"]))


def kutcmp_boots(pairs, waits=(), counted=()):
    """Per round: vmexit's figures and trapmeter's by vmexit name (both
    vCPU groups of a round together), with vmexit's vCPU waits and KVM's
    counts."""
    rounds = {}
    khz = next((tsc_khz(p[2]) for p in pairs if tsc_khz(p[2])), None)
    for rnd, _smp, tm_boot, log in pairs:
        vm = [(case, name, cycles) for case, name, cycles, _parts in
              (log.figures if log else ())]
        rounds.setdefault(rnd, []).append((tm_boot.get("results") or [], vm))
    by_round, spans = round_waits(waits), round_entries(waits)
    order = sorted(rounds)
    return kut_counted.attach([paired(rounds[r], by_round.get(r), spans.get(
        r), khz) for r in order], order, counted)


def round_waits(waits):
    """{round: {vmexit case: share}} of doc["kut"]["vcpu_wait"] (an older
    file has none: {})."""
    out = {}
    for entry in waits or []:
        if not isinstance(entry, dict) or not isinstance(
                entry.get("cases"), dict):
            continue
        cell = out.setdefault(entry.get("round"), {})
        for case, got in entry["cases"].items():
            share = got.get("share") if isinstance(got, dict) else None
            if isinstance(share, (int, float)) and 0 <= share <= 1:
                cell[case] = share
    return out


def round_entries(waits):
    """{round: {vmexit case: its saved wait entry}} of
    doc["kut"]["vcpu_wait"] (kut_vmexit.span_waits' dicts)."""
    out = {}
    for entry in waits or []:
        if isinstance(entry, dict) and isinstance(entry.get("cases"), dict):
            out.setdefault(entry.get("round"), {}).update(
                (k, v) for k, v in entry["cases"].items()
                if isinstance(v, dict))
    return out


def paired(groups, waits=None, spans=None, khz=None):
    """One round for stats/kutcmp.py from its (trapmeter results, vmexit
    (case, name, cycles)) groups, vmexit's {case: vCPU wait share} of its
    window and {case: saved wait entry} (its last loop's span, read with
    the TSC's rate khz: kut_vmexit.span_reading)."""
    boot = {"vmexit": {}, "trapmeter": {}, "cases": {}, "vmexit_wait": {},
            "vmexit_span": {}}
    for tm_results, vm in groups:
        for case, name, cycles in vm:
            if case == name or case.endswith(PCI_FIRST):
                if name not in boot["vmexit"] and case in (waits or {}):
                    boot["vmexit_wait"][name] = waits[case]
                span = kut_vmexit.span_reading((spans or {}).get(case),
                                               cycles, khz)
                if name not in boot["vmexit"] and span:
                    boot["vmexit_span"][name] = span
                boot["vmexit"].setdefault(name, cycles)
        for res in tm_results:
            row = twin_row(res)
            boot["cases"][res.get("case")] = row
            key = twin_key(res)
            if key and key not in boot["trapmeter"]:
                boot["trapmeter"][key] = row
    return boot


def twin_key(res):
    """The vmexit name a trapmeter result stands beside."""
    return res.get("kut_name") or None


def twin_row(res):
    """A trapmeter result per unit, as vmexit counts (its pci cases write
    once an iteration; trapmeter's ptd cases write 64 or 512 times)."""
    control = res.get("cycles_control")
    units = res.get("units") if isinstance(res.get("units"), int) and \
        res.get("units") > 0 else 1
    gross = report.median_cycles(res)
    ctl = control.get("median") if isinstance(control, dict) else None
    net = raw_net(res) if isinstance(control, dict) else None
    mean = (res.get("cycles") or {}).get("mean") if isinstance(
        res.get("cycles"), dict) else None
    late = res.get("deadline_late")
    irqs, ops = res.get("interrupts"), res.get("ops")
    return {"case": res.get("case"), "units": units, "loop": res.get("loop"),
            "control_case": res.get("control_case"),
            "irq_rate": irqs / ops if isinstance(irqs, int) and isinstance(
                ops, int) and ops > 0 else None,
            "late": late.get("median") if isinstance(late, dict) else None,
            "irq_split": kutsession.irq_split(res),
            "gross": None if gross is None else gross / units,
            "control": None if ctl is None else ctl / units,
            "net": None if net is None else net / units,
            "mean": mean / units if isinstance(mean, (int, float)) else None}


def merged_boots(pairs):
    """Each round's trapmeter boots with that round's vmexit figures
    added as suite kut (kut_log.merge_boot)."""
    out = []
    for rnd, _smp, tm_boot, log in pairs:
        boot = kut_log.merge_boot(tm_boot, log) if log else tm_boot
        boot["index"] = len(out)
        boot["kut_round"] = rnd
        out.append(boot)
    return out


def saved_look(info):
    """Which session of `kut --again` a saved one was (1: the first, or
    a file that does not say so readably)."""
    look = info.get("look")
    return look if type(look) is int and 1 <= look <= kutlooks.MOST_LOOKS \
        else 1


def saved_rounds(info):
    """The rounds of each session up to a saved one (None where the file
    does not say so readably: each as its own)."""
    rounds = info.get("looks_rounds")
    if isinstance(rounds, list) and len(rounds) == saved_look(info) and \
            all(type(r) is int and 1 <= r <= 30 for r in rounds):
        return rounds
    return None


def vmexit_boots(info):
    """How many vmexit boots a saved session's rounds took (1 in a file
    written before --vmexit-boots)."""
    saved = info.get("vmexit_boots")
    kept = [len(w["boots"]) for w in saved if isinstance(w, dict) and
            isinstance(w.get("boots"), list)] if isinstance(saved, list) \
        else []
    return max(kept + [1])
