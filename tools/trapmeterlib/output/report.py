"""Turn parsed dumps into the terminal table and results.json.

Pure functions over plain dicts (the guest's JSON records) so that pairing,
aggregation and rendering are testable without QEMU.

Size: the table and results.json share the field lists, pairing and
number formats above; the atomic file writing at the end is the seam
to cut next."""

import copy
import errno
import fcntl
import json
import os
import stat
import tempfile
import zlib

from ..guest import rounds
from ..guest.dump import time_mark
from ..stats import speedup
from ..stats.bootstats import median
from ..stats.exitcheck import (counters_differ,
                               model_mismatch as exit_model_mismatch)
from ..values import figure, resultform
from ..values.exitstatus import status_name
from ..values.numbers import fmt_num, number_or_none
from ..values.records import group_by_case

PAIRED_METHODS = ("rep", "dma")
# results.json schema: 2 since the guest's status is sealed in its dump
# (the status record); 3 since a case measured in rounds (rounds=N) is one
# merged result whose samples are the total and whose "rounds" keeps each
# round's figures (tools/trapmeterlib/guest/rounds.py); 4 since a speed-up
# is stored by the figure rule: "speedup" null where not resolved, with
# "speedup_ci" and "speedup_reason" (stats/speedup.py); compare reads 1-4.
RESULTS_SCHEMA = 4
COLUMNS = [("case", "<"), ("method", "<"), ("bytes", ">"),
           ("cycles/op (median)", ">"), ("control", ">"), ("net", ">"),
           ("cycles/unit", ">"),
           ("REP speed-up", ">"), ("exits (model)", ">"),
           ("cycles/exit (model)", ">"), ("exits (meas.)", ">"),
           ("cycles/exit (meas.)", ">"), ("ns/op", ">")]
# exits_model too: where it is the guest's own average (suite dma's
# bus-master polls) it moves from boot to boot like a measurement.
MEDIAN_FIELDS = ("cycles_per_unit", "ns_median",
                 "exits_measured", "cycles_per_exit", "exits_qmp",
                 "exits_perf", "exits_model", "exits_background_max")
# Shown after "exits (meas.)" when a run counted with both counters.
QMP_COLUMN = ("exits (qmp)", ">")
# after "exits (meas.)" (index 10: the control and net columns come first)
QMP_AT = 11
# Marks a QMP count more than 1 % away from the perf count.
DIFFER_MARK = " ~"
# Marks a measured exit count more than 10 % away from the model.
MISMATCH_MARK = " !"
# Marks the figures of a case whose sampling stopped on its budget
# before it settled (resultform.UNSETTLED).
UNSETTLED_MARK = " u"


def median_cycles(result, key="cycles"):
    cycles = result.get(key)
    return number_or_none(cycles.get("median")) \
        if isinstance(cycles, dict) else None


def net_figure(res):
    """The net median by the figure rule (resultform.apply_rule stored it
    or null and the reason)."""
    net = res.get("cycles_net")
    if not isinstance(net, dict):
        return None
    return figure.cost(number_or_none(net.get("median")),
                       reason=res.get("cycles_net_reason")
                       or resultform.NET_REASON)


def fmt_net(res):
    """The net median; n.r. when the control took as long or longer (on
    a software hypervisor rep movs is emulated per unit, rep ins is not)."""
    fig = net_figure(res)
    return "-" if fig is None else figure.text(fig, fmt_num)


def fmt_per_exit(res):
    """Cycles per measured exit; n.r. where the net is not resolved."""
    if res.get("cycles_per_exit") is None and \
            res.get("cycles_per_exit_reason"):
        return figure.SHORT
    return fmt_num(res.get("cycles_per_exit"))


def fmt_per_exit_model(res):
    """Cycles per modelled exit (its column says "(model)"); n.r. where
    the net it divides is not resolved."""
    if res.get("cycles_per_exit_model_reason"):
        return figure.SHORT
    return fmt_num(res.get("cycles_per_exit_model"))


def fmt_control(res):
    """The control's median; "n/a" when the case says why it has none."""
    if res.get("control_none") and median_cycles(res, "cycles_control") is None:
        return "n/a"
    return fmt_num(median_cycles(res, "cycles_control"))


# At most this many case names after a control_none reason in the notes.
CONTROL_NONE_NAMES = 3


def _names(names):
    shown = ", ".join(names[:CONTROL_NONE_NAMES])
    more = len(names) - CONTROL_NONE_NAMES
    return shown + (" and %d more" % more if more > 0 else "")


def speedup_notes(results):
    """Legend lines of the REP speed-up column: what its intervals are,
    and each reason one is not resolved, with the first cases."""
    figs = [(r, speedup.stored(r)) for r in results]
    figs = [(r, fig) for r, fig in figs if fig is not None]
    over = {(r.get("speedup_boots") or 1) > 1 for r, fig in figs
            if fig.resolved}
    notes = ["  REP speed-up " + (speedup.BOOTS_NOTE if many else
                                  speedup.BOOT_NOTE) for many in sorted(over)]
    reasons = {}
    for res, fig in figs:
        if not fig.resolved:
            reasons.setdefault(fig.reason, []).append(str(res.get("case",
                                                                  "?")))
    for why, names in reasons.items():
        notes.append("  %s in REP speed-up: not resolved, %s: %s"
                     % (figure.SHORT, why, _names(names)))
    return notes


def control_none_notes(results):
    """One note per reason the guest gave for a missing control, with the
    first cases that gave it."""
    cases = {}
    for res in results:
        why = res.get("control_none")
        if isinstance(why, str) and why:
            cases.setdefault(why, []).append(str(res.get("case", "?")))
    return ["  control n/a: %s (%s)" % (why, _names(names))
            for why, names in cases.items()]


def pair_key(result):
    """Results measuring the same transfer with different methods share
    this key, so a REP/DMA result can be compared with its single twin."""
    return tuple(result.get(k) for k in
                 ("suite", "target", "dir", "width", "bytes", "buf_offset"))


def twins(results):
    """{pair_key: the first single-unit row} of one boot's results."""
    singles = {}
    for res in results:
        if res.get("method") == "single":
            singles.setdefault(pair_key(res), res)
    return singles


def boot_speedup(res, twin):
    """One boot's speed-up of a REP or DMA row against its single twin
    (stats/speedup.py: with the interval the samples give)."""
    pooled = rounds.rounds_of(res) == 1 and rounds.rounds_of(twin) == 1
    return speedup.of_boot(res, twin, quantiles=pooled)


def add_speedups(results, over=None):
    """Set the speed-up figure ("speedup", "speedup_ci", "speedup_reason":
    stats/speedup.put) on rep and dma results that have a single twin --
    this boot's, or with `over` ({_case_key: (figure, boots)}) the figure
    over boots and how many boots had the pair ("speedup_boots") -- and
    the measured-exit placeholders later features fill in."""
    singles = twins(results)
    for res in results:
        res.setdefault("exits_measured", None)
        res.setdefault("cycles_per_exit", None)
        twin = singles.get(pair_key(res))
        if res.get("method") not in PAIRED_METHODS or twin is None:
            speedup.put(res, None)
        elif over is not None:
            fig, res["speedup_boots"] = over.get(_case_key(res)) or (
                figure.not_resolved(speedup.NO_MEDIAN), 0)
            speedup.put(res, fig)
        else:
            speedup.put(res, boot_speedup(res, twin))
    return results


def speedups_over_boots(boot_results):
    """{_case_key: (speed-up figure, boots)} over boots: one boot's own
    figure where only one boot has the pair, else the mean of the boots'
    ratios with its interval (stats/speedup.over_boots)."""
    pairs = {}
    for results in boot_results:
        singles = twins(results)
        for res in results:
            twin = singles.get(pair_key(res))
            if res.get("method") in PAIRED_METHODS and twin is not None:
                pairs.setdefault(_case_key(res), []).append((res, twin))
    return {key: (pairs_speedup(got), len(got)) for key, got in pairs.items()}


def pairs_speedup(pairs):
    """The speed-up figure of [(fast row, single twin)], one a boot: that
    boot's own where there is one, else over the boots."""
    if len(pairs) == 1:
        return boot_speedup(*pairs[0])
    return speedup.over_boots([speedup.ratio(t, r) for r, t in pairs])


def _numbers(values):
    """The values that are numbers (JSON null, strings and bools left out)."""
    return [v for v in (number_or_none(x) for x in values) if v is not None]


def _case_key(result):
    return tuple(result.get(k) for k in
                 ("suite", "case", "method", "bytes", "buf_offset"))


def aggregate_results(boot_results):
    """Per case, the median over boots of the per-boot medians."""
    groups, order = group_by_case(boot_results, _case_key)
    merged = []
    for key in order:
        group = groups[key]
        agg = copy.deepcopy(group[0])
        agg["cycles"] = {"median": median(_numbers(median_cycles(r)
                                                   for r in group))}
        if "cycles_control" in agg:
            agg["cycles_control"] = {"median": median(_numbers(
                median_cycles(r, "cycles_control") for r in group))}
        if "cycles_net" in agg:
            agg["cycles_net"] = {"median": median(_numbers(
                resultform.raw_net(r) for r in group))}
        for name in MEDIAN_FIELDS:
            agg[name] = median(_numbers(r.get(name) for r in group))
        agg["unsettled_boots"] = sum(1 for r in group
                                     if resultform.unsettled(r))
        _rule_aggregate(agg)
        agg["boots"] = len(group)
        if agg.get("exits_measured") is not None:
            agg["exits_model_mismatch"] = model_mismatch(agg)
        if agg.get("exits_qmp") is not None and \
                agg.get("exits_perf") is not None:
            agg["exits_counters_differ"] = counters_differ(
                agg["exits_qmp"], agg["exits_perf"], agg.get("ops") or 1,
                agg.get("exits_background_max"))
        merged.append(agg)
    return add_speedups(merged, speedups_over_boots(boot_results))


def _rule_aggregate(agg):
    """The figure rule on a median over boots: the net is the median of
    the boots' measured nets (any sign), then ruled; the cost per
    modelled exit is divided from it, not a median of the boots' own."""
    net = agg.get("cycles_net")
    raw = net.get("median") if isinstance(net, dict) else \
        median_cycles(agg)
    if isinstance(net, dict):
        fig = figure.cost(raw, reason=resultform.NET_REASON)
        agg["cycles_net"] = {"median": fig.value}
        if fig.resolved:
            agg.pop("cycles_net_reason", None)
        else:
            agg["cycles_net_reason"] = fig.reason
    per_exit = resultform.per_exit_model(raw, agg.get("exits_model"))
    agg["cycles_per_exit_model"] = None
    agg.pop("cycles_per_exit_model_reason", None)
    if per_exit is not None:
        figure.put(agg, "cycles_per_exit_model", per_exit)


def aggregate_checks(boot_checks):
    """One entry per check name: ok only if ok in every boot."""
    merged, order = {}, []
    for index, checks in enumerate(boot_checks):
        for chk in checks:
            name = chk.get("name")
            if name not in merged:
                merged[name] = dict(chk, ok=True, detail=chk.get("detail"))
                order.append(name)
            if chk.get("ok") is not True and merged[name]["ok"]:
                merged[name].update(ok=False, detail="boot %d: %s"
                                    % (index, chk.get("detail")))
    return [merged[n] for n in order]


def aggregate_skips(boot_skips):
    seen, out = set(), []
    for skips in boot_skips:
        for skip in skips:
            key = (skip.get("suite"), skip.get("case"), skip.get("reason"))
            if key not in seen:
                seen.add(key)
                out.append(skip)
    return out


# ---------------------------------------------------------------- formatting

def fmt_speedup(res, short=True):
    """The row's speed-up by the figure rule ("" where none applies;
    short=False: a figure not resolved says why)."""
    fig = speedup.stored(res)
    return "" if fig is None else figure.times_text(fig, short=short)


def result_row(res, with_qmp=False, twin_unsettled=False):
    """One row of the every-result table; the figures taken from the
    median of a case that did not settle carry UNSETTLED_MARK (the REP
    speed-up also when its single twin did not: twin_unsettled)."""
    mark = UNSETTLED_MARK if resultform.unsettled(res) else ""
    row = [str(res.get("case", "?")), str(res.get("method", "?")),
           fmt_num(res.get("bytes")), fmt_num(median_cycles(res)) + mark,
           fmt_control(res), fmt_net(res) + mark,
           fmt_num(res.get("cycles_per_unit")) + mark,
           _marked(fmt_speedup(res),
                   UNSETTLED_MARK if twin_unsettled else mark),
           fmt_num(res.get("exits_model")),
           fmt_per_exit_model(res) + mark,
           fmt_measured(res), fmt_per_exit(res) + mark,
           fmt_num(res.get("ns_median")) + time_mark(res) + mark]
    if with_qmp:
        row.insert(QMP_AT, fmt_qmp(res))
    return row


def _marked(text, mark):
    return text + mark if text else text


def unsettled_twins(results):
    """The pair_keys whose single-unit row did not settle: a REP or DMA
    row's speed-up divides that row's median."""
    return {pair_key(r) for r in results
            if r.get("method") == "single" and resultform.unsettled(r)}


def columns(with_qmp):
    cols = list(COLUMNS)
    if with_qmp:
        cols.insert(QMP_AT, QMP_COLUMN)
    return cols


def both_counted(results):
    return any(number_or_none(r.get("exits_qmp")) is not None and
               number_or_none(r.get("exits_perf")) is not None for r in results)


def fmt_qmp(res):
    text = fmt_num(res.get("exits_qmp"))
    return text + DIFFER_MARK if res.get("exits_counters_differ") else text


def fmt_measured(res):
    meas = number_or_none(res.get("exits_measured"))
    # below the empty sync window: nothing to tell from the sync traffic
    below = (meas is not None and meas < 0) or (
        meas is None and res.get("exits_qmp_reason"))
    text = figure.SHORT if below else fmt_num(res.get("exits_measured"))
    return text + MISMATCH_MARK if model_mismatch(res) else text


def model_mismatch(res):
    """Measured exits off the model (stats/exitcheck.model_mismatch;
    after aggregation the flag is recomputed from the medians)."""
    return bool(exit_model_mismatch(res.get("exits_measured"),
                                    res.get("exits_model"),
                                    res.get("exits_background_max")))


def _align(cells, widths, cols=COLUMNS):
    parts = []
    for cell, width, (_name, side) in zip(cells, widths, cols):
        parts.append(cell.ljust(width) if side == "<" else cell.rjust(width))
    return "  ".join(parts).rstrip()


def render_results(results):
    """Result rows grouped per suite, columns aligned across all suites."""
    if not results:
        return ["(no results)"]
    with_qmp = both_counted(results)
    cols = columns(with_qmp)
    twins = unsettled_twins(results)
    rows = [(res.get("suite", "?"), result_row(
        res, with_qmp, res.get("method") in PAIRED_METHODS
        and pair_key(res) in twins)) for res in results]
    widths = [len(name) for name, _side in cols]
    for _suite, cells in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, cells)]
    lines = ["  " + _align([name for name, _s in cols], widths, cols),
             "  " + _align(["-" * w for w in widths], widths, cols)]
    suites = []
    for suite, _cells in rows:
        if suite not in suites:
            suites.append(suite)
    for suite in suites:
        lines.append("[suite %s]" % suite)
        lines.extend("  " + _align(cells, widths, cols)
                     for s, cells in rows if s == suite)
    return lines


def render_checks(checks, skips):
    lines = []
    if checks:
        lines.append("checks:")
        width = max(len(str(c.get("name"))) for c in checks)
        for chk in checks:
            mark = "ok" if chk.get("ok") is True else "FAILED"
            lines.append("  %-6s  %-*s  %s" % (mark, width, chk.get("name"),
                                               chk.get("detail") or ""))
    if skips:
        lines.append("skipped:")
        for skip in skips:
            lines.append("  %s/%s: %s" % (skip.get("suite"), skip.get("case"),
                                          skip.get("reason")))
    return lines


def _cpu_text(cpu):
    if not isinstance(cpu, dict):
        return "?"
    fms = "%s/%s/%s" % (cpu.get("family"), cpu.get("model"),
                        cpu.get("stepping"))
    brand = (cpu.get("brand") or "").strip()
    return "%s %s%s" % (cpu.get("vendor", "?"), fms,
                        (" \"%s\"" % brand) if brand else "")


def _tsc_text(tsc):
    """"tsc SOURCE KHZ kHz", GUESS when it is one, and the PM-timer
    cross-check's difference."""
    text = "tsc %s %s kHz" % (tsc.get("source", "?"), tsc.get("khz", "?"))
    if tsc.get("guess") is True:
        text += " (GUESS)"
    check = tsc.get("check")
    if isinstance(check, dict) and isinstance(check.get("diff_ppm"), int):
        # diff_ppm: the chosen kHz minus the PM timer's, a deviation (said
        # as a size and a direction, as every figure shown is unsigned)
        ppm = check["diff_ppm"]
        text += " (pm-timer %s %s)" % (figure.percent_text(figure.measured(
            abs(ppm) / 1e6)), "higher" if ppm < 0 else "lower") if ppm else \
            " (pm-timer agrees)"
    return text


def render_header(run, info):
    """One line describing where and how the numbers were taken."""
    run = run or {}
    tsc = run.get("tsc") if isinstance(run.get("tsc"), dict) else {}
    accel = info.get("accel") or "?"
    if info.get("kvm_flavour"):
        accel += " (%s)" % info["kvm_flavour"]
    wall = info.get("wall_s")
    parts = ["trapmeter %s" % run.get("version", "?"),
             "accel %s" % accel,
             "boot %s/%s" % (info.get("boot") or "?", run.get("boot", "?")),
             "firmware %s" % run.get("firmware", info.get("firmware") or "?"),
             "cpu %s" % _cpu_text(run.get("cpu")),
             "hypervisor %s" % (run.get("hypervisor") or "none"),
             _tsc_text(tsc),
             "timer overhead %s cycles" % fmt_num(
                 run.get("timer_overhead_cycles")),
             "wall %s" % ("%.1f s" % wall if wall is not None else "?")]
    if info.get("title"):
        parts.insert(1, info["title"])
    return " | ".join(parts)


def render_timing(info):
    """Footer: where the wall time went, per suite (from the runner's
    clock at each suite line)."""
    suites = info.get("suite_s")
    if not suites:
        return None
    parts = ["to first suite %.1f s" % (info.get("boot_s") or 0.0)]
    parts += ["%s %.1f s" % (name, secs) for name, secs in suites]
    return "  time: " + ", ".join(parts)


def render_report(run, info, results, checks, skips):
    """The whole terminal report for one boot (or the --repeat median)."""
    lines = [render_header(run, info), ""]
    lines += render_results(results)
    if any(time_mark(r) for r in results):
        lines.append("  ?: the TSC frequency is a guess, so ns figures are too "
                     "(cycles are exact)")
    if any(resultform.unsettled(r) for r in results):
        lines.append("  u: %s: the case's sampling ended on its time budget "
                     "before its figures settled (a REP speed-up's: its own or "
                     "its single twin's); the summary leaves it out"
                     % resultform.UNSETTLED)
    merged = max((rounds.rounds_of(r) for r in results), default=1)
    if merged > 1:
        lines.append("  cycles/op (median), control: the %s (each from "
                     "its least disturbed round), not the median of the "
                     "pooled samples" % rounds.stat_label("median", merged))
    if any(model_mismatch(r) for r in results):
        lines.append("  ! measured exits differ from the model by more than "
                     "10 % (a finding about the hypervisor, not an error)")
    if any((number_or_none(r.get("exits_measured")) or 0) < 0 or (
            r.get("exits_measured") is None and r.get("exits_qmp_reason"))
           for r in results):
        lines.append("  %s in exits (meas.): not resolved, fewer exits than "
                     "the empty sync window: none distinguishable from the "
                     "sync traffic" % figure.SHORT)
    lines += exit_counter_notes(results)
    if any(r.get("method") == "rep" and isinstance(r.get("cycles_control"),
                                                   dict) for r in results):
        lines.append("  control of a REP row: the same loop and set-up with "
                     "the string instruction at zero units (what it moves, "
                     "the trap's handler moves)")
    lines += control_none_notes(results)
    lines += speedup_notes(results)
    if any(not (net_figure(r) or figure.measured(1)).resolved
           for r in results):
        lines.append("  %s: not resolved: net %s (the control op, the same "
                     "loop and set-up without the trap); no cycles/exit is "
                     "divided from it" % (
                         figure.SHORT, resultform.NET_REASON))
    timing = render_timing(info)
    if timing:
        lines.append(timing)
    notes = sorted({r.get("exits_note") for r in results
                    if r.get("exits_note")})
    if len(notes) == 1 and all(r.get("exits_measured") is None
                               for r in results):
        lines.append("  exits (meas.): " + notes[0])
    extra = render_checks(checks, skips)
    if extra:
        lines += [""] + extra
    return "\n".join(lines) + "\n"


def exit_counter_notes(results):
    """Legend lines: which counter the measured column shows, the ~ mark,
    and the QMP background rate (reported, not subtracted)."""
    lines = []
    if both_counted(results):
        lines.append("  exits (meas.): perf (KVM tracepoints, untimed "
                     "window); exits (qmp): QMP query-stats over the timed "
                     "samples")
    if any(r.get("exits_counters_differ") for r in results):
        lines.append("  ~ the QMP count differs from the perf count by "
                     "more than 1 % (QMP misses exits KVM answers itself "
                     "on some backends)")
    rates = [r.get("exits_background_per_s") for r in results
             if number_or_none(r.get("exits_background_per_s")) is not None]
    if rates:
        lines.append("  QMP 'exits' collects %s/s in an idle spin here "
                     "(not subtracted; per case at most "
                     "exits_background_max per op in results.json)"
                     % fmt_num(median(rates)))
    return lines


def guest_problem_lines(errors, exceptions):
    """The guest's own words for bad-input and exception runs."""
    lines = []
    for err in errors:
        lines.append("guest: error: %s%s" % (
            err.get("message"),
            " (%s)" % err["kind"] if err.get("kind") else ""))
    for exc in exceptions:
        lines.append("guest: exception: vector %s %s error_code=%s rip=%s "
                     "cr2=%s" % (exc.get("vector"), exc.get("name"),
                                 exc.get("error_code"), exc.get("rip"),
                                 exc.get("cr2")))
        lines.extend("guest:   " + text for text in
                     exc.get("console_before") or [])
    return lines


# ---------------------------------------------------------------- results.json

def boot_entry(index, outcome, dump, wall_s, qemu_rc, stderr_text=None):
    """One element of results.json "boots"."""
    entry = {"index": index, "status": outcome.name,
             "exit_code": outcome.code,
             "wall_s": None if wall_s is None else round(wall_s, 3),
             "qemu_exit": qemu_rc, "messages": list(outcome.messages),
             "run": None, "results": [], "checks": [], "skips": [],
             "errors": [], "exceptions": [], "other": []}
    if dump is not None:
        entry.update(run=dump.run, results=add_speedups(dump.results),
                     checks=dump.checks, skips=dump.skips, errors=dump.errors,
                     exceptions=dump.exceptions, other=dump.other,
                     dump=dump.summary(),
                     integrity={"tm_lines": list(dump.tm_texts)})
    if stderr_text:
        entry["qemu_stderr"] = stderr_text[-4000:]
    return entry


def results_document(host, config, boots, code, messages=(), summary=None):
    """The whole results.json object."""
    version = next((b["run"].get("version") for b in boots
                    if isinstance(b.get("run"), dict)), None)
    for boot in boots:
        seal_boot(boot)
    doc = {"schema": RESULTS_SCHEMA, "tool": "trapmeter", "version": version,
           "host": host, "config": config, "boots": boots,
           "status": status_name(code), "exit_code": code}
    if messages:
        doc["messages"] = list(messages)
    if summary is not None:
        doc["summary"] = summary
    return doc


def results_crc32(results):
    """CRC-32 over the canonical JSON of a boot's results (guest fields and
    the runner's additions), so `compare` can spot a hand-edited file."""
    text = json.dumps(results, sort_keys=True, separators=(",", ":"))
    return "%08x" % (zlib.crc32(text.encode("utf-8", "surrogateescape"))
                     & 0xffffffff)


def seal_boot(boot):
    """The boot's results and checks under CRC-32s (compare re-verifies
    the guest's part from the raw lines, these cover the runner's)."""
    integ = boot.get("integrity")
    if isinstance(integ, dict):
        integ["results_crc32"] = results_crc32(boot.get("results") or [])
        integ["checks_crc32"] = results_crc32(boot.get("checks") or [])
    return boot


def open_output(path, mode="wb"):
    """Open an output the user named, never replacing what is there: a
    device (/dev/null, /dev/full) or a FIFO is written directly; a FIFO
    without a reader is an error (ENXIO) instead of a hang; a directory is
    refused."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o666)
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    if "b" in mode:
        return os.fdopen(fd, mode)
    return os.fdopen(fd, mode, encoding="utf-8")


def _special_target(path):
    """The existing non-regular file path names (after symlinks), or
    None.  Such targets are written in place, never renamed over."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
    return None if stat.S_ISREG(mode) else path


def _write_atomic(path, fill, suffix, binary=False):
    """Write through a temp file in the same directory and rename it into
    place, so readers never see a half-written file.  fill(fh) writes
    (text, or bytes when binary).  A symlink stays a symlink (the file it
    names is replaced); a device or FIFO is written directly
    (report.open_output)."""
    try:
        if _special_target(path):
            with open_output(path, "wb" if binary else "w") as fh:
                fill(fh)
            return
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO or socket with no reader")
        raise
    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".trapmeter-", suffix=suffix,
                               dir=directory)
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", encoding="utf-8")) as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text_atomic(path, text):
    """Text outputs (JUnit, Markdown, SVG)."""
    _write_atomic(path, lambda fh: fh.write(text), ".tmp")


def write_bytes_atomic(path, data):
    """Binary outputs (lava-job's fw_cfg blob, its job text as bytes)."""
    _write_atomic(path, lambda fh: fh.write(data), ".tmp", binary=True)


def write_json_atomic(path, doc):
    """results.json and other JSON outputs."""
    def fill(fh):
        json.dump(doc, fh, indent=2, sort_keys=False)
        fh.write("\n")
    _write_atomic(path, fill, ".json.tmp")
