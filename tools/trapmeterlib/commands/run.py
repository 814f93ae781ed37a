"""`trapmeter run`: its options, and the glue that turns them into one
checked plan (session/plan.py), boots it through the library runner
(session/runner.py) --repeat times, or loops over the plans of the virtio
matrix (virtio_matrix.py) and the viommu sweep (viommu_sweep.py), then
prints the table and writes results.json, even on failure."""

import argparse
import sys

from ..backends import testpmd
from ..counters import exitcount
from ..guest import qemu, rounds, suites, viommu
from ..output import breakdown_text, html, junit, logfile, report, summary
from ..session.plan import build_plan
from ..session.record import SUITE_FITS, RunRecord
from ..session.runner import Console, run_plan
from ..session.runner import ensure_built  # noqa: F401 (ab, bisect, sensitivity)
from ..stats import breakdown
from ..system import kvmlock, pinning, privdir, sigdefer
from ..values import exitstatus
from . import viommu_sweep, virtio_matrix
from .common import (PROG, OptionError, Parser, TrapmeterError, has_report,
                     say)

NAME = "run"
TABLES = ("summary", "full", "none")


# ---------------------------------------------------------------- arguments

def add_parser(sub, fmt):
    run = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        help="build, boot under QEMU, collect and report",
        usage="%(prog)s [options] [-- EXTRA QEMU ARGS]",
        description="Build the kernel (make), boot it under QEMU, collect "
        "the COM1 dump, validate it, print a table and write results JSON. "
        "Arguments after '--' are appended to the QEMU command line.")
    add = run.add_argument
    add("--accel", choices=("auto", "kvm", "tcg"), default="auto",
        help="accelerator (default auto: KVM if a VM can be created)")
    add("--boot", choices=("iso", "direct"), default="direct",
        help="direct: -kernel build/trapmeter.elf; iso: -cdrom "
        "build/trapmeter.iso (default direct)")
    add("--firmware", choices=("auto", "bios", "qboot", "uefi", "ovmf"),
        default="auto", help="bios (SeaBIOS), qboot (fast, direct boot "
        "only), uefi or ovmf (OVMF, needs --boot iso; suite firmware runs "
        "in it); default auto: qboot for a direct boot when installed and "
        "virtio is not selected, else bios")
    add("--machine", choices=("pc", "q35"), default="pc",
        help="QEMU machine type (default pc)")
    add("--suite", metavar="LIST", help="kernel word suite=LIST")
    add("--case", metavar="GLOBS", help="kernel word case=GLOBS")
    add("--cmdline", metavar="WORDS", action="append", default=[],
        help="extra kernel words, e.g. \"samples=7 foo=1\" (repeatable: "
        "the words add up); each word once, and none a runner option sets "
        "(suite=, case=, quick, rounds=: use the option; sync=: the "
        "runner's)")
    add("--repeat", metavar="N", type=int, default=1,
        help="boot N times; table shows median over boots (default 1)")
    add("--timeout", metavar="S", type=float,
        help="wall-clock seconds per boot (default 300 TCG, 1800 KVM)")
    add("--json", metavar="FILE", default="results.json",
        help="results file (default results.json in the current directory;"
        " written even on failure)")
    add("--log", metavar="FILE", help="save the raw serial output to FILE "
        "(with --repeat: FILE.bootI per boot; a directory DIR: "
        "DIR/%s); written when the boot ends, the old FILE kept if it "
        "cannot be; one run at a time per FILE" % logfile.LOG_IN_DIR)
    add("--quick", action="store_true", help="kernel word quick")
    add("--rounds", metavar="N", type=int, help="kernel word rounds=N "
        "(1..%d): suites pio and exits pass N times over their cases, each "
        "taking 1/N of its samples per pass; a case's rounds are merged "
        "into one result (minimum over rounds; default 1)"
        % rounds.MAX_ROUNDS)
    add("--plan", metavar="FILE.json", help="fixed sample plan: run the "
        "cases of FILE.json (an earlier results.json, its first boot) with "
        "exactly their iters and samples; no adaptive sampling")
    add("--qemu", metavar="PATH", default="qemu-system-x86_64",
        help="QEMU binary (default qemu-system-x86_64)")
    add("--no-build", action="store_true", help="do not run make")
    add("--count-exits", dest="count_exits", action="store_true",
        default=None, help="measure VM exits per op from QMP query-stats "
        "(default on under KVM; adds kernel word sync=on)")
    add("--no-count-exits", dest="count_exits", action="store_false",
        help="do not count exits (no QMP, no sync points)")
    add("--exit-counter", choices=exitcount.COUNTERS, default="qmp",
        help="qmp: QMP query-stats over the timed samples; perf: the "
        "host's KVM tracepoints (linux-perf, root) over one untimed sample "
        "per case; both (default qmp)")
    add("--kernel-irqchip", choices=("on", "off", "split"), default="on",
        help="KVM: -accel kvm,kernel-irqchip=on|off|split (off: PIC/ELCR "
        "ports become QEMU round trips; split: the local APIC stays in "
        "KVM, PIC and I/O APIC move to QEMU; default on)")
    add("--smp", choices=qemu.SMP_CHOICES, default="auto",
        help="vCPUs: 1, 2, or auto (default): 2 only when --case selects "
        "suite exits' ipi case (it needs an application processor)")
    add("--pin-cpu", metavar="CPUS", default="none",
        help="run every QEMU thread on these host CPUs: " +
        pinning.CHOICES_HELP + " (default none)")
    add("--nice", metavar="N", type=int, help="run QEMU at scheduling "
        "niceness N (-20..19; below the runner's own needs root or "
        "CAP_SYS_NICE): a shared host preempts the guest's timed loops "
        "less (docs/design.md, \"Where the per-boot spread comes from "
        "here\"; default: the runner's own)")
    add("--no-lock", action="store_true", help="KVM: do not take the "
        "host's KVM lock (one KVM measurement at a time on a host; see "
        "docs/design.md, \"One measurement at a time\")")
    add("--lock-timeout", metavar="S", type=float,
        default=kvmlock.DEFAULT_TIMEOUT_S, help="KVM: seconds to wait for "
        "the host's KVM lock before giving up with status 17 (default "
        "%(default).0f)")
    add("--junit", metavar="FILE", help="also write JUnit XML: one "
        "testcase per check, skip and boot status")
    add("--table", choices=TABLES, default="summary",
        help="console output: summary (default: one screen, every figure "
        "from results.json), full (every case, the breakdown, the suites' "
        "own tables) or none")
    add("--html", metavar="FILE", help="also write a self-contained HTML "
        "report (figures drawn by gnuplot; tables without it)")
    add("-v", "--verbose", action="store_true",
        help="show every case, the QEMU command line and QEMU's stderr")
    for suite in suites.SUITES:
        suite.add_options(add)
    viommu.add_options(add)
    add("--ide-disk-size", metavar="SIZE", default="16M",
        help="suite ide: scratch disk attached as ATA dev0 (default 16M; "
        "0: no disk)")
    add("--ide-readonly", action="store_true",
        help="suite ide: mark no region writable (disk attached with "
        "snapshot=on; write cases skip)")
    add("--no-ide-cd", action="store_true",
        help="suite ide: do not attach the ISO as the ATAPI CD-ROM")


def plan_from_words(words, extra=(), say=say, **overrides):
    """The checked plan of `run`'s option words (ab's sides), with some
    values replaced (`overrides`, as build_plan takes them)."""
    top = Parser(prog="%s run" % PROG)
    add_parser(top.add_subparsers(dest="command"),
               argparse.RawDescriptionHelpFormatter)
    return build_plan(top.parse_args(["run"] + list(words)), extra, say,
                      **overrides)


def command(args, extra):
    plan = build_plan(args, extra, say)
    record, con = RunRecord(plan), Console(verbose=plan.verbose)
    lock = None
    try:
        if plan.sweep:
            code = viommu_sweep.run(plan, record, con, lock_log)
        elif plan.virtio_matrix:
            code = virtio_matrix.run(plan, record, con)
        else:
            lock = lock_log(plan.log)
            for gone in privdir.remove_stale() + privdir.remove_stale(
                    testpmd.runtime_base()):
                say("removed %s, left by a dead run" % gone)
            code = run_boots(plan, record, con)
    except TrapmeterError as exc:
        finish_early(plan, record, exc.code, exc.message)
        raise
    except KeyboardInterrupt:
        finish_early(plan, record, exitstatus.INTERRUPTED, "interrupted")
        raise
    finally:
        if lock is not None:
            lock.release()
    with sigdefer.deferred(say):
        if not record.write_json(plan.json, code, say=say) \
                and code == exitstatus.OK:
            code = exitstatus.BAD_INPUT
        if record.output_errors and code == exitstatus.OK:
            code = exitstatus.BAD_INPUT
        if plan.junit:
            write_run_junit(plan.junit, record)
    if not plan.virtio_matrix:
        print_summary(plan, record)
    if plan.html:
        write_run_html(plan, record)
    return code


def run_boots(plan, record, con):
    """The plan's boots; with --table full the table of each (one boot)
    or of all (--repeat)."""
    full, seen = plan.table == "full", {}

    def shown(runner, _index, result):
        seen["cfg"] = runner.cfg
        if plan.repeat == 1 and full:
            print_boot_report(record, runner, result.dump, result.wall_s)

    code, dumps = run_plan(plan, record, con, shown)
    if plan.repeat > 1 and full:
        print_repeat_report(record, con, seen["cfg"], [d for d in dumps if d])
    return code


def print_summary(plan, record):
    """The one-screen summary (--table summary), from the results
    document just written."""
    if plan.table != "summary" or record.doc is None:
        return
    lines = summary.run_summary(record.doc, plan.json)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def write_run_html(plan, record):
    if record.doc is None:
        return
    try:
        report.write_text_atomic(plan.html, html.run_report(record.doc,
                                                            plan.json))
    except OSError as exc:
        raise OptionError("cannot write --html %s: %s"
                          % (plan.html, exc.strerror or exc))
    say("report written to %s" % plan.html)


def finish_early(plan, record, code, message):
    """A run stopped by an error or a signal writes the boots it completed
    (and says so); before the first QEMU starts there is nothing to write,
    and an existing --json stays as it was."""
    if not record.booted:
        return
    written = record.write_json(plan.json, code, [message], say=say)
    if plan.junit:
        try:
            write_run_junit(plan.junit, record)
        except OptionError as exc:
            say("error: " + exc.message)
    if code == exitstatus.INTERRUPTED and written:
        say("interrupted: %d completed boot(s) written to %s"
            % (len(record.boots), plan.json))


def lock_log(path):
    """The --log lock, held for the whole run (logfile.Lock), or None."""
    if not path:
        return None
    try:
        return logfile.Lock(path)
    except logfile.LockBusy as exc:
        raise OptionError("--log %s: %s; give this run another --log"
                          % (path, exc))
    except OSError as exc:
        raise OptionError("cannot write --log %s: %s"
                          % (path, exc.strerror or exc))


def write_run_junit(path, record):
    try:
        junit.write(path, junit.run_suite(record.boots, record.config))
    except OSError as exc:
        raise OptionError("cannot write --junit %s: %s"
                          % (path, exc.strerror or exc))


# ---------------------------------------------------------------- tables

def header_info(record, cfg, wall, title=None):
    last = record.boots[-1] if record.boots and title is None else {}
    return {"accel": cfg.accel, "kvm_flavour": (record.host or {}).get(
        "kvm_flavour"), "boot": cfg.boot, "firmware": cfg.firmware,
        "wall_s": wall, "title": title, "boot_s": last.get("boot_s"),
        "suite_s": last.get("suite_s")}


def breakdown_report(record, results_per_boot):
    pvm = (record.host or {}).get("kvm_flavour") == "pvm"
    entries = record.breakdown(results_per_boot)
    lines = breakdown_text.format_table(entries, software_backend=pvm)
    return "\n".join(lines) + "\n" if lines else ""


def print_boot_report(record, runner, dump, wall):
    if not has_report(dump):
        return
    runner.con.status.close()
    text = report.render_report(dump.run, header_info(record, runner.cfg,
                                                      wall),
                                dump.results, dump.checks, dump.skips)
    text += suites.rendered(dump)
    if breakdown.applies(dump.results, SUITE_FITS):
        text += breakdown_report(record, [dump.results])
    sys.stdout.write(text)
    sys.stdout.flush()


def print_repeat_report(record, con, cfg, dumps):
    """Median over boots of per-boot medians, per case."""
    dumps = [d for d in dumps if has_report(d)]
    if not dumps:
        return
    con.status.close()
    results = report.aggregate_results([d.results for d in dumps])
    checks = report.aggregate_checks([d.checks for d in dumps])
    skips = report.aggregate_skips([d.skips for d in dumps])
    record.summary = {"boots": len(dumps), "results": results}
    walls = [b["wall_s"] for b in record.boots if b.get("wall_s")]
    wall = sum(walls) if walls else None
    title = "median over %d boots" % len(dumps)
    run = next((d.run for d in dumps if d.run), None)
    text = report.render_report(run, header_info(record, cfg, wall, title),
                                results, checks, skips)
    boot_results = [d.results for d in dumps]
    # suite dma's differences of cases are over boots (guest/dma.py)
    text += suites.rendered_boots(boot_results)
    if all(breakdown.applies(d.results, SUITE_FITS) for d in dumps):
        text += breakdown_report(record, boot_results)
    sys.stdout.write(text)
    sys.stdout.flush()
