"""The one-screen answer: what `run` prints by default (about 20 lines of at
most 100 columns); output/verdicts.py heads `compare` and `ab` alike.

A run's summary answers a hypervisor developer's questions in order: on
what host and backend; what one exit costs per handler class (QEMU port,
in-kernel port, MMIO to QEMU, ioeventfd, coalesced, a classic exit), in ns
and cycles with its interval over boots or "not resolved" and why; what
REP saves at 4 KiB per port and direction; which exit counts disagree with
the model and what that means; how many checks passed and cases skipped.
Classes no case of which ran collapse into one line naming their suites.
A run whose rows are mostly suite dma answers its user first: each PCI
case's cycles per op by IOMMU mode and translated - pass-through
(guest/dma.py, face_lines).

Every figure comes from the results document (results.json) or from
compare's rows (its --json), never from a run's memory, and every figure
is shown through values/figure.py: measured (± its interval over boots),
model (labelled), or not resolved with its reason.  Pure: no I/O."""

import fnmatch
import math

from ..guest import dma, firmware_suite, ide
from ..stats import speedup
from ..stats.bootstats import median
from ..stats.tdist import t_interval
from ..values import figure, resultform
from ..values.numbers import is_number
from . import report
from .repspeed import (REP_BYTES, REP_LEVEL, REP_RANGE_NOTE,  # noqa: F401
                       boot_speedup, rep_pairs, speedup_text, times)

WIDTH = 100
MAX_FINDING_LINES = 2       # lines of cases per exit-count finding
LEVEL = 0.95                # of an interval over boots


# (label, handler, case globs in order of preference): the case that
# stands for the class is the first result matching a glob, in that order
CLASSES = (
    ("QEMU port", "user", ("pio.user",)),
    ("in-kernel port", "kernel", ("pio.kernel",)),
    ("MMIO to QEMU", "user", ("testdev.out32.single.*", "testdev.*.single.*")),
    ("ioeventfd", "ioeventfd", ("ptd.wildcard.out8.single.*",
                                "ptd.io.wildcard.out8.single.*", "ptd.*single*")),
    ("coalesced", "coalesced", ("vga.out32.single.*", "e1000.out32.single*",
                                "rtc.out8.single.*", "*.single*")),
    ("classic exit", "kernel", ("cpuid",)),
)
# where a class's cases live, for the reason when none ran
CLASS_SUITE = {"QEMU port": "exits", "in-kernel port": "exits",
               "MMIO to QEMU": "mmio", "ioeventfd": "mmio",
               "coalesced": "mmio", "classic exit": "exits"}
REP_SUITE = "pio"


# ---------------------------------------------------------------- numbers

def grouped(value):
    if abs(value) < 10:
        return "{:,.2f}".format(value)
    if abs(value) < 100:
        return "{:,.1f}".format(value)
    return "{:,.0f}".format(value)


def over_boots(values, kind=figure.MEASURED, reason=None, is_cost=True):
    """One figure from per-boot values: the mean, with the 95 % t interval
    (stats/tdist.t_interval) when there are two or more; a model figure (which keeps no interval)
    the median.  A cost goes
    through figure.cost, and one boot whose cost is at or below zero makes
    the whole figure not resolved (a mean over the other boots would be
    an invented figure)."""
    vals = [v for v in values if is_number(v)]
    if not vals:
        return figure.not_resolved(reason or figure.NO_DATA)
    low = sum(1 for v in vals if v <= 0)
    if is_cost and low:
        return figure.not_resolved("%s in %d of %d boots" % (
            figure.BELOW_ZERO, low, len(vals)) if len(vals) > 1
            else figure.BELOW_ZERO)
    if kind == figure.MODEL:
        # no interval to show the boots' spread: the median, which one
        # disturbed boot does not move
        mid = median(vals)
        return figure.cost(mid, kind=kind) if is_cost else figure.model(mid)
    mean, interval = t_interval(vals, LEVEL)
    if kind != figure.MEASURED:
        interval = None
    if is_cost:
        return figure.cost(mean, interval, kind)
    if kind == figure.MODEL:
        return figure.model(mean)
    return figure.measured(mean, interval)


def cell(fig, unit="", number=grouped):
    """A figure as a summary cell: "16,537±250 cycles", "2,829 (model)",
    or "not resolved (reason)"."""
    if not fig.resolved:
        return figure.text(fig, short=False)
    out = figure.text(fig, number=number, label=False)
    if unit:
        out += " " + unit
    return out + (figure.MODEL_LABEL if fig.kind == figure.MODEL else "")


# ---------------------------------------------------------------- documents

def boots_with_results(doc):
    return [b for b in doc.get("boots") or []
            if isinstance(b, dict) and b.get("results")]


def tsc_khz(boot):
    khz = ((boot.get("run") or {}).get("tsc") or {}).get("khz")
    return khz if is_number(khz) and khz > 0 else None


def find_case(doc, handler, globs):
    """The name of the case that stands for a class: the first result of
    the first boot matching a glob, in glob order, with that handler."""
    boots = boots_with_results(doc)
    results = boots[0]["results"] if boots else []
    for glob in globs:
        for res in results:
            if res.get("handler") == handler and fnmatch.fnmatchcase(
                    str(res.get("case")), glob):
                return res.get("suite"), res.get("case")
    return None


def case_results(doc, suite, case):
    """(boot, result) of a case in every boot that has it."""
    out = []
    for boot in boots_with_results(doc):
        for res in boot["results"]:
            if res.get("suite") == suite and res.get("case") == case:
                out.append((boot, res))
                break
    return out


def settled(pairs):
    """(the pairs whose case settled, why none did or None): a boot whose
    sampling stopped on its budget gives no figure to a summary."""
    kept = [(b, r) for b, r in pairs if not resultform.unsettled(r)]
    if kept or not pairs:
        return kept, None
    return kept, _unsettled_in(len(pairs), len(pairs))


def _unsettled_in(count, boots):
    return resultform.UNSETTLED + (" in %d of %d boots" % (count, boots)
                                   if boots > 1 else "")


def exit_cost(pairs):
    """(cycles figure, ns figure, exits figure) of one exit of a case over
    its boots: cycles_per_exit where exits were counted, else
    cycles_per_exit_model (labelled model); ns from each boot's TSC.  The
    boots where the case did not settle are left out (all of them: not
    resolved, resultform.UNSETTLED)."""
    pairs, why = settled(pairs)
    if why:
        gone = figure.not_resolved(why)
        return gone, gone, gone
    measured = [(b, r) for b, r in pairs if is_number(r.get("cycles_per_exit"))]
    if measured:
        key, kind, exits_key, chosen = ("cycles_per_exit", figure.MEASURED,
                                        "exits_measured", measured)
    else:
        key, kind, exits_key, chosen = ("cycles_per_exit_model", figure.MODEL,
                                        "exits_model", pairs)
    cycles = [r.get(key) for _b, r in chosen]
    ns = [r[key] * 1e6 / tsc_khz(b) for b, r in chosen
          if is_number(r.get(key)) and tsc_khz(b)]
    reason = None
    if all(not is_number(v) for v in cycles):
        reason = "no cost per exit in the data (no net figure or no exits)"
    exits = over_boots([r.get(exits_key) for _b, r in chosen], kind,
                       is_cost=False)
    return (over_boots(cycles, kind, reason), over_boots(ns, kind, reason),
            exits)


def class_data(doc):
    """[(label, case or None, cycles, ns, exits, reason)] per handler
    class: the figures of its case, or the reason none ran."""
    out = []
    for label, handler, globs in CLASSES:
        found = find_case(doc, handler, globs)
        if not found:
            out.append((label, None, None, None, None, "no case of it ran; "
                        "it is in suite %s" % CLASS_SUITE[label]))
            continue
        cycles, ns, exits = exit_cost(case_results(doc, *found))
        out.append((label, found[1], cycles, ns, exits, None))
    return out


CLASS_HEAD = "  %-15s %-28s %16s %17s %15s" % ("class", "case", "ns",
                                                 "cycles", "exits/op")


def not_run_lines(doc):
    """One sentence naming the classes (and REP) no case of which ran, by
    the suite they are in, wrapped; [] when every one ran."""
    where = {}
    for label, _case, _c, _n, _e, reason in class_data(doc):
        if reason:
            where.setdefault(CLASS_SUITE[label], []).append(label)
    if not rep_groups(doc):
        where.setdefault(REP_SUITE, []).append("REP speed-up")
    if not where:
        return []
    parts = ["%s (suite %s)" % (", ".join(labels), suite)
             for suite, labels in where.items()]
    cells = ["not run here (no case of it ran):"] + [
        p + ";" for p in parts[:-1]] + parts[-1:]
    lines = wrap(cells, "  ", " ")
    return [lines[0].lstrip()] + lines[1:]


def class_lines(doc):
    """The class table; classes no case of which ran are left to
    not_run_lines (no table at all when none ran)."""
    data = [d for d in class_data(doc) if not d[5]]
    if not data:
        return []
    lines = [CLASS_HEAD]
    for label, case, cycles, ns, exits, _reason in data:
        if not cycles.resolved:
            lines.append("  %-15s %-28s %s" % (label, case, figure.text(
                cycles, short=False)))
        else:
            lines.append("  %-15s %-28s %16s %17s %15s" % (
                label, case, cell(ns), cell(cycles), cell(exits)))
    return lines


# ---------------------------------------------------------------- REP

def rep_groups(doc):
    """[(label, speed-up figure)] of the REP rows at 4 KiB, page-aligned,
    per port, direction and width, in the table's order, by the one rule
    (stats/speedup.py).  One boot: the ratio of the two medians with its
    interval from the boot's own samples (at least REP_LEVEL sure),
    whether or not the guest's stopping rule settled -- the interval says
    how far an unsettled median may be; too few samples for one: not
    resolved, and why.  Several boots: the mean over boots and its 95 %
    interval, every boot's ratio counted."""
    return [(label, fig) for label, fig, _n in rep_figures(doc)]


def rep_figures(doc):
    """rep_groups' [(label, figure, boots its pairs came from)]."""
    order, pairs = [], {}
    for boot in boots_with_results(doc):
        for res, twin in rep_pairs(boot["results"]):
            label = "%s %s%d" % (res.get("target"), res.get("dir"),
                                 8 * (res.get("width") or 1))
            if label not in pairs:
                order.append(label)
                pairs[label] = []
            pairs[label].append((res, twin))
    return [(label, report.pairs_speedup(pairs[label]), len(pairs[label]))
            for label in order]


def rep_lines(doc):
    """REP's line ([] when no REP case ran: not_run_lines names it)."""
    groups = rep_figures(doc)
    head = "REP speed-up at 4 KiB (the single-unit loop's time / REP's):"
    if not groups:
        return []
    cells = ["%s %s" % (label, speedup_text(fig)) for label, fig, _n in groups]
    reasons = {}
    for label, fig, _n in groups:
        if not fig.resolved:
            reasons.setdefault(fig.reason, []).append(label)
    notes = ["  " + (speedup.BOOTS_NOTE if many else speedup.BOOT_NOTE)
             for many in sorted({n > 1 for _l, fig, n in groups
                                 if fig.resolved})]
    for why, labels in reasons.items():
        notes += wrap(["%s: not resolved, %s:" % (figure.SHORT, why)]
                      + [x + "," for x in labels[:-1]] + labels[-1:], "  ", " ")
    return [head] + wrap(cells, "  ", " | ") + notes


def wrap(cells, indent, sep):
    lines, cur = [], indent
    for c in cells:
        piece = c if cur == indent else sep + c
        if len(cur) + len(piece) > WIDTH and cur != indent:
            lines.append(cur)
            cur, piece = indent, c
        cur += piece
    if cur != indent:
        lines.append(cur)
    return lines


# ---------------------------------------------------------------- findings

def meaning(handler, model, got, source):
    """What a measured count away from the model says, in one line."""
    if got < model and handler in ("kernel", "ioeventfd", "coalesced"):
        return ("answered in the kernel, where the %s counter does not see "
                "them (--exit-counter both does)" % source)
    if got < model:
        return "fewer exits than modelled: KVM batched more than its source says"
    return "more exits than modelled: exits the model does not expect"


def findings(doc):
    """([(meaning, [results])], counted) of the rows whose measured exits
    differ from the model by more than 10 %, from the first boot that
    counted exits; counted is False when no boot did."""
    for boot in boots_with_results(doc):
        if not any(is_number(r.get("exits_measured")) for r in boot["results"]):
            continue
        groups = {}
        for r in boot["results"]:
            if r.get("exits_model_mismatch") and is_number(r.get("exits_measured")):
                key = meaning(r.get("handler"), r.get("exits_model") or 0,
                              r["exits_measured"], r.get("exits_source") or "exit")
                groups.setdefault(key, []).append(r)
        return list(groups.items()), True
    return [], False


def finding_cell(res):
    """"pic.in8.single.4096 4,096 -> 20.4": model, then measured."""
    return "%s %s -> %s" % (res.get("case"), figure.text(
        figure.model(res.get("exits_model") or 0), number=grouped, label=False),
        figure.text(figure.measured(res["exits_measured"]), number=grouped))


def finding_wrap(cells):
    """The cells in at most MAX_FINDING_LINES lines; what does not fit is
    counted at the end ("+20 more (--table full)")."""
    for shown in range(len(cells), 0, -1):
        more = "" if shown == len(cells) else \
            "+%d more (--table full)" % (len(cells) - shown)
        lines = wrap(cells[:shown] + ([more] if more else []), "    ", ", ")
        if len(lines) <= MAX_FINDING_LINES:
            return lines
    return ["    %d cases (--table full)" % len(cells)]


def finding_lines(doc):
    groups, counted = findings(doc)
    if not counted:
        return ["exit counts: not resolved (no exits counted: TCG, or "
                "--no-count-exits)"]
    if not groups:
        return ["exit counts: every counted case within 10 % of the model"]
    lines = ["exit counts, model -> measured per op, where they are more than "
             "10 % apart:"]
    for text, rows in groups:
        lines += ["  " + text] + finding_wrap([finding_cell(r) for r in rows])
    return lines


# ---------------------------------------------------------------- the rest

def header_lines(doc):
    host = doc.get("host") or {}
    boots = doc.get("boots") or []
    accel = host.get("accel") or (doc.get("config") or {}).get("accel")
    if host.get("kvm_flavour"):
        accel = "%s (%s)" % (accel, host["kvm_flavour"])
    walls = [b.get("wall_s") for b in boots if is_number(b.get("wall_s"))]
    first = (boots_with_results(doc) or [{}])[0]
    run = first.get("run") or {}
    tsc = run.get("tsc") or {}
    line1 = "trapmeter %s | %s | QEMU %s | %d boot%s, %.1f s | firmware %s" % (
        doc.get("version") or "?", accel or "?", host.get("qemu_version")
        or "?", len(boots), "" if len(boots) == 1 else "s", sum(walls),
        run.get("firmware") or "?")
    line2 = "  host %s, Linux %s | tsc %s kHz (%s)%s" % (
        host.get("host_cpu") or "?", host.get("kernel") or "?",
        tsc.get("khz") or "?", tsc.get("source") or "?",
        " GUESS" if tsc.get("guess") else "")
    return [line1[:WIDTH], line2[:WIDTH]]


def checks_line(doc):
    ok = failed = 0
    skips = {}
    for boot in doc.get("boots") or []:
        for chk in boot.get("checks") or []:
            if chk.get("ok"):
                ok += 1
            else:
                failed += 1
        for skip in boot.get("skips") or []:
            skips.setdefault("%s/%s" % (skip.get("suite"), skip.get("case")),
                             skip.get("reason"))
    text = "checks: %d ok, %d failed | skips: %d" % (ok, failed, len(skips))
    if skips:
        name, why = next(iter(skips.items()))
        why = str(why).split(" (")[0]
        text += " (%s: %s%s)" % (name, why, "; ..." if len(skips) > 1 else "")
    return text[:WIDTH - 3] + "..." if len(text) > WIDTH else text


def ide_lines(doc):
    """Suite ide's regression view (the OVMF story) per device: reading
    4 MiB with rep insw against the inw loop, over boots."""
    views, rows, notes = {}, {}, {}
    for boot in boots_with_results(doc):
        for v in boot.get("other") or []:
            if v.get("type") == "view" and v.get("suite") == "ide":
                key = "%s %s" % (v.get("what"), v.get("device"))
                views.setdefault(key, []).append(v)
                rows.setdefault(key, boot["results"])
    lines = ["IDE PIO, reading 4 MiB (OVMF's regression: 28 s -> 464 s, 16.6x):"]
    for key, got in views.items():
        rep = over_boots([v.get("rep_s") for v in got])
        loop = over_boots([v.get("loop_s") for v in got])
        # the loop/rep ratio is a speed-up: one boot's from its rows'
        # samples, over boots the t interval of the boots' ratios
        ratio = ide.view_speedup(got[0], rows[key]) if len(got) == 1 else \
            speedup.over_boots([v.get("loop_over_rep") for v in got])
        lines.append(("  %-28s rep insw %s, inw loop %s: %s" % (
            key, cell(rep, "s"), cell(loop, "s"),
            figure.times_text(ratio)))[:WIDTH])
        if not ratio.resolved:
            notes.setdefault(ratio.reason, []).append(key)
    for why, keys in notes.items():
        lines += wrap(["%s: not resolved, %s:" % (figure.SHORT, why)]
                      + [k + "," for k in keys[:-1]] + keys[-1:], "  ", " ")
    return lines if views else []


def exit_cost_lines(doc):
    """The classes' heading and table ([] when no class's case ran)."""
    table = class_lines(doc)
    if not table:
        return []
    what = "cost of one exit per handler class"
    if (doc.get("host") or {}).get("accel") == "tcg":
        what = "cost per would-be exit (TCG: no VM exits)"
    boots = len(boots_with_results(doc))
    spread = " (± 95 %% over %d boots)" % boots if boots > 1 else ""
    return [what + spread + ":"] + table


def run_summary(doc, json_path=None):
    """The summary of a run's results document, as lines."""
    lines = header_lines(doc)
    if not boots_with_results(doc):
        lines.append("no results: status %s" % doc.get("status"))
        lines += ["  " + m for m in doc.get("messages") or []]
        return lines
    results = [b["results"] for b in boots_with_results(doc)]
    if dma.mostly_dma(results):
        lines += dma.face_lines(results)
    lines += exit_cost_lines(doc)
    lines += rep_lines(doc)
    lines += not_run_lines(doc)
    lines += ide_lines(doc)
    lines += firmware_suite.summary_lines(doc)
    lines += finding_lines(doc)
    lines.append(checks_line(doc))
    tail = "status %s" % doc.get("status")
    if json_path:
        tail += " | every figure: %s" % json_path
    lines.append(tail + " | the full table: --table full")
    return lines
