"""Suite firmware's host side (kernel/suites/firmware.c): which image it
boots, what it needs from the runner, its audit records joined to the
results, its table and the summary's firmware line.

The suite runs inside UEFI, before the firmware is left: build/
trapmeter-fw.iso (boot/boot.asm with multiboot2 header tags 7 and 9) on
OVMF.  Each case is single-stepped once (the audit: a "fwaudit" record
naming the port instructions the firmware executed and the VM exits that
trace takes by the exit model), then timed.  A FIFO case's "path" says
whether the firmware batched the units (rep) or trapped per unit
(single): the edk2 regression that turned a Windows install over IDE from
28 s into 464 s was that path changing."""

import os
import textwrap

from ..stats import speedup
from ..stats.verdict import AUDIT_METRIC   # compare's, for the audit
from ..values import figure
from ..values.texttable import aligned

WIDTH = 100                 # the summary's (output/summary.py)

SUITE = "firmware"
FW_ISO_REL = os.path.join("build", "trapmeter-fw.iso")
AUDIT_TYPE = "fwaudit"
ENV_TYPE = "firmware"
AUDIT_KEY = "audit"
# the audit fields a result carries (the rest of the record is its key)
AUDIT_FIELDS = ("status", "path", "calls", "insns", "traps", "io", "units",
                "bytes", "max_rep", "ports", "n_ports", "cpuid", "msr", "hlt",
                "exits_model", "cut", "budget_traps", "complete",
                "data_checked")
FIRMWARES = ("uefi", "ovmf")
SELFTEST = "audit.selftest"


def chosen_suites(words):
    """The last suite= word's list, or None."""
    chosen = None
    for word in words:
        if word.startswith("suite="):
            chosen = word[len("suite="):].split(",")
    return chosen


def selected(words):
    """True when the kernel words ask for suite firmware."""
    return SUITE in (chosen_suites(words) or [])


def iso_rel(words):
    """The ISO a boot takes: suite firmware's own image when it is asked."""
    return FW_ISO_REL if selected(words) else os.path.join(
        "build", "trapmeter.iso")


def problem(suite, boot, firmware):
    """Why the options cannot run suite firmware (None when they can, or
    when it is not asked).  suite is --suite's value."""
    chosen = (suite or "").split(",")
    if SUITE not in chosen:
        return None
    if chosen != [SUITE]:
        return ("--suite firmware runs alone (its image, build/trapmeter-fw"
                ".iso, stays inside UEFI and ends there): run the other "
                "suites in another run")
    if boot != "iso" or firmware not in FIRMWARES:
        return ("--suite firmware needs --boot iso --firmware ovmf (it calls "
                "OVMF's boot services from inside UEFI; under TCG here: "
                "--accel tcg)")
    return None


# ---------------------------------------------------------------- records

def audits(dump):
    """{case: fwaudit record} of one boot's dump."""
    return {r.get("case"): r for r in (dump.other if dump else [])
            if isinstance(r, dict) and r.get("type") == AUDIT_TYPE
            and r.get("suite") == SUITE}


def annotate(dump):
    """Give each firmware result its audit (results.json keeps it): the
    path, the port instructions and the exits the trace predicts."""
    found = audits(dump)
    for res in (dump.results if dump else []):
        if res.get("suite") != SUITE:
            continue
        rec = found.get(res.get("case"))
        if rec is not None:
            res[AUDIT_KEY] = {k: rec.get(k) for k in AUDIT_FIELDS}


def io_text(audit):
    """"1 rep insb (4,096)" or "4,096 inb": the port instructions."""
    io = audit.get("io") if isinstance(audit, dict) else None
    if not isinstance(io, dict) or not io:
        return "no port I/O"
    parts = []
    for kind, count in io.items():
        text = "%s %s" % (_count(count), kind)
        if kind.startswith("rep ") and audit.get("max_rep"):
            text += " (%s)" % _count(audit["max_rep"])
        parts.append(text)
    return ", ".join(parts)


def _count(value):
    return "{:,}".format(value) if isinstance(value, int) else "?"


def _exits_text(res, short=True):
    """Counted exits per op under KVM, else not resolved with the reason."""
    got = res.get("exits_measured")
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        return figure.text(figure.measured(got), number=lambda v:
                           "{:,.0f}".format(v))
    note = str(res.get("exits_note") or "not counted")
    if note.startswith("TCG"):
        note = "TCG: no VM exits"
    return figure.text(figure.not_resolved(note), short=short)


# ---------------------------------------------------------------- table

def render(dump):
    """The audit table of --table full: per case its path, instructions,
    port instructions, exits by the model and counted, cycles a unit."""
    rows = [r for r in (dump.results if dump else [])
            if r.get("suite") == SUITE]
    found = audits(dump)
    if not rows and not found:
        return ""
    head = ("case", "path", "insns", "port instructions", "exits (model)",
            "exits (counted)", "cycles/unit", "FIFO/plain")
    table = [head]
    for case, rec in found.items():
        res = next((r for r in rows if r.get("case") == case), {})
        speed = speedup.stored(res)
        table.append((case, rec.get("path", "?") + ("" if rec.get(
            "complete") else " CUT" if rec.get("cut") else " (incomplete)"),
            _count(rec.get("insns")), io_text(rec),
            _count(rec.get("exits_model")), _exits_text(res) if res else "-",
            "%.0f" % res["cycles_per_unit"] if isinstance(
                res.get("cycles_per_unit"), (int, float)) else "-",
            "" if speed is None else figure.times_text(speed)))
    lines = ["", "firmware audit (single-stepped once; exits by the model "
             "from the trace):"] + aligned(table, left=4)
    env = next((r for r in dump.other if r.get("type") == ENV_TYPE
                and r.get("suite") == SUITE), None)
    if env:
        lines.append("firmware: %s rev %s; CpuIo2 %s, root bridge %s, IDE "
                     "disk %s, CD %s" % (
                         env.get("vendor"), env.get("revision"),
                         *("yes" if env.get(k) else "no" for k in (
                             "cpu_io2", "root_bridge_io", "block_io_disk",
                             "block_io_cd"))))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- summary

def path_key(case):
    """"cpuio.fwcfg.in8.fifo.4096" -> ("cpuio.fwcfg.in8", "fifo", 4096);
    None for names of another shape."""
    parts = str(case).split(".")
    if len(parts) < 5 or parts[-2] not in ("fifo", "plain"):
        return None
    try:
        size = int(parts[-1])
    except ValueError:
        return None
    return ".".join(parts[:-2]), parts[-2], size


def path_rows(results):
    """{path: {"fifo": result, "plain": result}} at each path's largest
    size that has both (what decided 28 s against 464 s)."""
    by = {}
    for res in results:
        key = path_key(res.get("case")) if res.get("suite") == SUITE else None
        if key and isinstance(res.get(AUDIT_KEY), dict):
            by.setdefault(key[0], {}).setdefault(key[2], {})[key[1]] = res
    out = {}
    for path, sizes in by.items():
        both = [s for s, pair in sizes.items() if len(pair) == 2]
        if both:
            out[path] = dict(sizes[max(both)], size=max(both))
    return out


def data_by_port(res):
    """False when the port instructions moved less than the case's data:
    the firmware's driver moved it by DMA (bus master), not PIO."""
    audit = res[AUDIT_KEY]
    moved, size = audit.get("bytes"), res.get("bytes")
    return not (isinstance(moved, int) and isinstance(size, int)
                and moved < size)


def compact_io(audit):
    """"1 rep insb", "4,096 inb", "2 rep insw + 1,029 single": the port
    instructions in a few words."""
    io = audit.get("io") if isinstance(audit.get("io"), dict) else {}
    reps = ["%s %s" % (_count(n), k) for k, n in io.items()
            if k.startswith("rep ")]
    singles = {k: n for k, n in io.items() if not k.startswith("rep ")
               and isinstance(n, int)}
    total = sum(singles.values())
    if not reps:
        if len(singles) == 1:
            return "%s %s" % (_count(total), next(iter(singles)))
        return "%s port insns" % _count(total) if total else "no port I/O"
    return " + ".join(reps) + (" + %s single" % _count(total) if total else "")


def shape(res):
    """"1 rep insb -> 6", "4,096 inb -> 4,096", "DMA: 664 port insns ->
    664": the port instructions, then the exits by the model."""
    audit = res[AUDIT_KEY]
    return "%s%s -> %s" % ("" if data_by_port(res) else "DMA: ",
                                 compact_io(audit),
                                 _count(audit.get("exits_model")))


def _size(size):
    return "%d KiB" % (size // 1024) if size >= 1024 and not size % 1024 \
        else "%d B" % size


def counted_text(results):
    """One phrase for the counted exits of the firmware rows."""
    for res in results:
        if res.get("suite") == SUITE and isinstance(res.get(AUDIT_KEY), dict):
            return _exits_text(res, short=False)
    return figure.text(figure.not_resolved("no firmware row"), short=False)


def summary_lines(doc):
    """The summary's firmware lines, one per path: whether the firmware's
    FIFO width batches (rep) or traps per unit against the plain width of
    the same count, exits by the model from the audit, the speed-up; the
    Block I/O reads' paths; the counted exits once.  [] when suite firmware
    gave no audited result."""
    boots = [b for b in doc.get("boots") or [] if isinstance(b, dict)
             and b.get("results")]
    if not boots:
        return []
    results = boots[0]["results"]
    rows = path_rows(results)
    blocks = {}
    for res in results:         # each device's largest read
        name = str(res.get("case"))
        if res.get("suite") == SUITE and name.startswith("blockio.") and \
                isinstance(res.get(AUDIT_KEY), dict):
            old = blocks.get(name.rsplit(".", 1)[0])
            if old is None or (res.get("bytes") or 0) > (old.get("bytes") or 0):
                blocks[name.rsplit(".", 1)[0]] = res
    if not rows and not blocks:
        return []
    lines = ["firmware I/O paths: port insns -> exits by the model from the "
             "audit's trace, FIFO width", "  against the plain width, speed-"
             "up (counted exits: %s):" % counted_text(results)]
    speeds = {}
    for path, pair in rows.items():
        speed = speeds[path] = speedup.stored(pair["fifo"]) or \
            figure.not_resolved("no single-unit twin")
        lines.append(("  %-24s %6s FIFO %s | plain %s | %s" % (
            path, _size(pair["size"]), shape(pair["fifo"]),
            shape(pair["plain"]), figure.times_text(speed)))[:WIDTH])
    for name, res in blocks.items():
        lines.append(("  %-24s %6s %s" % (
            name, _size(res.get("bytes") or 0), shape(res)))[:WIDTH])
    return lines + speedup_notes(speeds)


def speedup_notes(speeds):
    """What the speed-ups of {path: figure} show: the interval's meaning
    where one is shown, each reason a speed-up is not resolved."""
    notes = []
    if any(f.resolved for f in speeds.values()):
        notes.append("  speed-up " + speedup.BOOT_NOTE)
    reasons = {}
    for path, fig in speeds.items():
        if not fig.resolved:
            reasons.setdefault(fig.reason, []).append(path)
    for why, paths in reasons.items():
        notes += textwrap.wrap("%s: not resolved, %s: %s" % (
            figure.SHORT, why, ", ".join(paths)), WIDTH,
            initial_indent="  ", subsequent_indent="    ")
    return notes
