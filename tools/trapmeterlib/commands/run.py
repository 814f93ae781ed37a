"""`trapmeter run`: build the kernel, boot it under QEMU (--repeat times),
collect and validate the COM1 dump, print the table and write
results.json, even on failure.

Size: the one command that drives every part of a boot (build, QEMU,
counters, testpmd, the table and each output); each step is a short
function here, and moving them out would make library modules read
run's options."""

import argparse
import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import time

from ..backends import testpmd
from ..counters import exitcount, perfcount, schedwait
from ..guest import (firmware_suite, ide, mmio, plan, qemu, rounds, suites,
                     viommu, virtio)
from ..output import (breakdown_text, html, junit, logfile, progress, report,
                      summary)
from ..stats import breakdown
from ..system import (children, envdiff, fingerprint, hostinfo, kvmlock,
                      pinning, priority, privdir, sigdefer)
from ..values import exitstatus
from ..values.exitstatus import Outcome, decide_boot
from . import viommu_sweep
from .common import (PROG, SUITE_FITS, OptionError, Parser, TrapmeterError,
                     check_outputs, check_words, guarded, has_report,
                     repo_root, report_outcome, say, split_extra)

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


def validate_run_options(args):
    args.log = logfile.resolve(args.log)
    check_outputs([("--plan", args.plan)], [("--json", args.json),
                                            ("--log", args.log),
                                            ("--junit", args.junit),
                                            ("--html", args.html)])
    try:
        args.ide_disk_bytes = ide.parse_size(args.ide_disk_size)
    except ide.IdeOptionError as exc:
        raise OptionError(str(exc))
    if args.rounds is not None and not 1 <= args.rounds <= rounds.MAX_ROUNDS:
        raise OptionError("--rounds must be 1..%d (got %d)"
                          % (rounds.MAX_ROUNDS, args.rounds))
    if args.repeat < 1:
        raise OptionError("--repeat must be at least 1 (got %d)" % args.repeat)
    if args.timeout is not None and not args.timeout > 0:
        raise OptionError("--timeout must be a positive number of seconds")
    if not 0 <= args.lock_timeout < float("inf"):
        raise OptionError("--lock-timeout must be a finite number of seconds "
                          "at or above 0")
    try:
        args.pin_cpus = pinning.parse(args.pin_cpu, pinning.allowed_cpus())
    except pinning.PinError as exc:
        raise OptionError(str(exc))
    try:
        args.nice = priority.parse(args.nice)
    except priority.PriorityError as exc:
        raise OptionError(str(exc))
    check_words(args)
    args.plan_entries = None
    if args.plan:
        try:
            args.plan_entries = plan.load(args.plan)
        except plan.PlanError as exc:
            raise OptionError(str(exc))
        if not args.suite:
            args.suite = ",".join(plan.suites(args.plan_entries))
    problem = firmware_suite.problem(args.suite, args.boot, args.firmware)
    if problem:
        raise OptionError(problem)
    if args.firmware == "ovmf":
        args.firmware = "uefi"          # one name inside: the guest's
    if args.firmware == "qboot" and args.boot != "direct":
        raise OptionError("--firmware qboot needs --boot direct (qboot "
                          "boots no CD)")
    if args.firmware == "uefi" and args.boot == "direct":
        raise OptionError("--firmware uefi needs --boot iso (direct -kernel "
                          "boot under OVMF is unsupported)")
    if args.firmware == "uefi":
        for path in (qemu.OVMF_CODE, qemu.OVMF_VARS):
            if not os.path.isfile(path):
                raise OptionError("OVMF firmware file %s not found (install "
                                  "the 'ovmf' package)" % path)
    problem = virtio.validate(args) or viommu.problem(args.viommu,
                                                      args.machine)
    if problem:
        raise OptionError(problem)
    for opt in ("json", "html"):
        path = getattr(args, opt)
        where = os.path.dirname(os.path.abspath(path)) if path else None
        if where and not os.path.isdir(where):
            raise OptionError("--%s %s: directory %s does not exist"
                              % (opt, path, where))


# ---------------------------------------------------------------- host steps

def build_targets(args):
    """The make targets a run needs: the ELF, and the ISO only when it
    boots from it or suite ide attaches it as the CD (a newcomer's first
    `make run` then needs no GRUB, xorriso or mtools)."""
    words = ["suite=" + args.suite] if args.suite else []
    cd = ide.suite_selected(words) and not args.no_ide_cd
    return ("elf", "iso") if args.boot == "iso" or cd else ("elf",)


def ensure_built(root, targets=("all",)):
    """`make -q TARGETS`; if out of date `make TARGETS` (its output to
    stderr)."""
    targets = ["-j%d" % (os.cpu_count() or 1)] + list(targets)
    try:
        quiet = children.run(["make", "-q"] + targets, cwd=root,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    except OSError as exc:
        raise TrapmeterError(exitstatus.QEMU_ERROR, "cannot run make: %s"
                             % (exc.strerror or exc))
    if quiet.returncode == 0:
        return
    what = " ".join(["make"] + targets)
    say("kernel out of date: building (%s)" % what)
    done = children.run(["make"] + targets, cwd=root, stdout=sys.stderr)
    if done.returncode != 0:
        raise TrapmeterError(exitstatus.QEMU_ERROR, "build failed: '%s' "
                             "exited with status %d" % (what, done.returncode))


def choose_accel(requested):
    """(accel, kvm flavour or None, reason)."""
    if requested == "tcg":
        return "tcg", None, "TCG requested with --accel tcg"
    usable, why = hostinfo.kvm_usable()
    if usable:
        return "kvm", hostinfo.kvm_flavour(), why
    if requested == "kvm":
        raise TrapmeterError(exitstatus.QEMU_ERROR, "--accel kvm: KVM is not "
                             "usable: %s" % why)
    return "tcg", None, "KVM not usable (%s); using TCG" % why


def resolve_qemu(path):
    """Absolute QEMU path; a missing binary is a QEMU start failure."""
    found = shutil.which(path)
    if found is None:
        raise TrapmeterError(exitstatus.QEMU_ERROR, "QEMU binary not found: %s"
                             % path)
    return found


# ---------------------------------------------------------------- run

class RunSession:
    """State of one `trapmeter run`, so results.json can be written from
    whatever point the run stopped at."""

    def __init__(self, args, extra):
        self.args = args
        self.extra = extra
        self.host = hostinfo.host_info(None, None, None)
        self.config = {"accel": args.accel, "boot": args.boot,
                       "firmware": args.firmware, "machine": args.machine,
                       "cmdline": None, "qemu_argv": None,
                       "repeat": args.repeat,
                       "kernel_irqchip": args.kernel_irqchip,
                       "count_exits": None}
        self.boots = []
        self.booted = False         # a QEMU was started: results.json due
        self.summary = None
        self.doc = None             # the results document last written
        self.count_exits = False
        self.perf_events = []
        self.ide = None
        self.suite_state = {}       # suite name -> what prepare made for it
        self.output_errors = []     # outputs that could not be written
        self.backend = None             # testpmd.Testpmd with vhost-user
        self.status = progress.Progress()
        # a terminal without -v: one status line; else a line per suite
        # (and per case with -v)
        self.status_line = self.status.terminal and not args.verbose
        self.boot_label = ""        # "boot 2/3" with --repeat
        self.started = time.monotonic()
        self.suite_marks = []       # (suite, seconds since QEMU started)
        self.breakdown = BreakdownMemo()
        self.cpus = None            # fingerprint.CpuSampler of the boot
        self.waits = None           # schedwait.WaitSampler of the boot

    def write_json(self, code, messages=()):
        doc = report.results_document(self.host, self.config, self.boots,
                                      code, messages, self.summary)
        add_breakdown(doc, self.breakdown)
        self.doc = doc
        try:
            report.write_json_atomic(self.args.json, doc)
        except OSError as exc:
            say("error: cannot write %s: %s" % (self.args.json, exc))
            return False
        return True

    def on_record(self, rec, elapsed):
        """Progress on stderr: on a terminal one status line (boot, time,
        the case running); else a line per suite, and per case with -v."""
        kind = rec.get("type")
        if self.cpus is not None and kind in ("suite", "case"):
            self.cpus.sample(elapsed)
        if self.waits is not None:
            self.waits.sample(rec, elapsed)
        if kind == "suite":
            self.suite_marks.append((str(rec.get("suite")), elapsed))
        if self.status_line and kind in ("suite", "case"):
            self.status.update(progress.status_text(
                NAME, self.boot_label, progress.elapsed_text(
                    time.monotonic() - self.started),
                "%s: %s" % (rec.get("suite"), rec.get("case") or "start")))
        elif kind == "suite":
            print("[%5.1fs] suite %s" % (elapsed, rec.get("suite")),
                  file=sys.stderr, flush=True)
        elif kind == "case" and self.args.verbose:
            print("[%5.1fs] %s: %s" % (elapsed, rec.get("suite"),
                                       rec.get("case")),
                  file=sys.stderr, flush=True)


def prepare(session):
    """Everything before the first boot; returns the RunConfig."""
    args = session.args
    validate_run_options(args)
    root = repo_root()
    if not args.no_build:
        ensure_built(root, build_targets(args))
    qemu_bin = resolve_qemu(args.qemu)
    accel, flavour, why = choose_accel(args.accel)
    say("accel %s%s: %s" % (accel, " (%s)" % flavour if flavour else "", why))
    if accel == "kvm" and flavour in hostinfo.SOFTWARE_FLAVOURS:
        say("warning: KVM flavour is %s: absolute cycle counts are not "
            "representative of hardware-virtualised (VT-x/AMD-V) hosts; "
            "ratios and exit counts are" % flavour)
    if args.kernel_irqchip != "on":
        say({"off": "kernel-irqchip=off: the PIC/ELCR ports are handled by "
             "QEMU", "split": "kernel-irqchip=split: the local APIC is in "
             "KVM, the PIC, ELCR and I/O APIC in QEMU"}[args.kernel_irqchip]
            if accel == "kvm" else "--kernel-irqchip applies to KVM only; "
            "ignored under TCG")
    user = " ".join(args.cmdline).split()
    problem = qemu.words_problem(user, {
        "suite": args.suite is not None, "case": args.case is not None,
        "quick": args.quick, "rounds": args.rounds is not None})
    if problem:
        raise OptionError(problem)
    session.config["firmware"] = args.firmware
    count = decide_count_exits(args, accel)
    session.config["exit_counter"], session.perf_events = (
        decide_perf(args) if count else (None, []))
    words, notes = qemu.kernel_words(args.suite, args.case, args.quick,
                                     " ".join(user),
                                     flavour if accel == "kvm" else None)
    if args.firmware == "auto":
        args.firmware = qemu.auto_firmware(
            args.boot, words,
            pci_devices=bool(mmio.wanted(words, args.mmio_devices)))
        session.config["firmware"] = args.firmware
    if args.rounds is not None:
        words.append("rounds=%d" % args.rounds)
    if count:
        words.append("sync=on")
    words = qemu.runner_table_off(words)
    problem = qemu.cmdline_problem(words)
    if problem:
        raise OptionError(problem)
    for note in notes:
        say(note)
    cfg = qemu.RunConfig(repo_root=root, accel=accel, boot=args.boot,
                         firmware=args.firmware, machine=args.machine,
                         words=words, extra=session.extra, qemu=qemu_bin,
                         kernel_irqchip=args.kernel_irqchip,
                         smp=qemu.smp_for(words, args.smp))
    if cfg.smp > 1:
        say("-smp %d: a second vCPU for the ipi case" % cfg.smp)
    session.config["smp"] = cfg.smp
    session.config["pin_cpus"] = list(args.pin_cpus or [])
    session.config["nice"] = args.nice
    if args.pin_cpus:
        say("QEMU pinned to host CPU %s" % pinning.describe(args.pin_cpus))
    session.count_exits = count
    session.config["count_exits"] = count
    session.config["plan"] = args.plan
    vconf = virtio.settings(args)
    cfg.extra = (viommu.device_args(args.viommu[0])
                 + mmio.device_args(words, args.mmio_devices)
                 + list(session.extra))     # run_boots adds the NICs
    session.config["viommu"] = args.viommu[0]
    session.config["virtio"] = vconf
    session.host = hostinfo.host_info(qemu_bin, accel, flavour)
    session.host["fingerprint"] = fingerprint.collect(
        qemu_bin, version=session.host.get("qemu_version"))
    for seen in envdiff.noise(session.host["fingerprint"]):
        say("warning: noisy host: " + seen)
    session.config.update(accel=accel, accel_requested=args.accel,
                          cmdline=cfg.cmdline)
    image = cfg.iso if cfg.boot == "iso" else cfg.elf
    if not os.path.exists(image):
        say("warning: %s does not exist (run make?)"
            % os.path.relpath(image, root))
    return cfg


def decide_count_exits(args, accel):
    """Count exits under KVM unless --no-count-exits; under TCG say once
    that there are none."""
    if accel != "kvm":
        if args.count_exits:
            say("--count-exits: " + exitcount.TCG_NOTE)
        return False
    if virtio.vhost_user(virtio.settings(args)):
        if args.count_exits:
            raise OptionError(virtio.VHOST_NO_SYNC)
        say("--virtio-backend vhost-user: not counting exits (" +
            virtio.VHOST_NO_SYNC_WHY + ")")
        return False
    return args.count_exits is not False


def decide_perf(args):
    """(counter in use, tracepoints perf records): without perf, its
    tracepoints or the permission, QMP alone, said once."""
    if args.exit_counter == "qmp":
        return "qmp", []
    events, why = perfcount.available()
    if not events:
        say("--exit-counter %s: %s; counting with QMP alone"
            % (args.exit_counter, why))
        return "qmp", []
    return args.exit_counter, events


def main(argv):
    """`trapmeter run ARGV...` (argv starts with "run") in this process
    without the CLI: what ab's forked boots run.  Each failure is one
    "trapmeter: ..." line and its exit status (common.guarded), as the
    CLI gives it."""
    def call():
        words, extra = split_extra(list(argv))
        top = Parser(prog=PROG)
        add_parser(top.add_subparsers(dest="command", metavar="COMMAND"),
                   argparse.RawDescriptionHelpFormatter)
        args, unknown = top.parse_known_args(words)
        if unknown:
            top.parse_args(words)           # names the unknown option
        return command(args, extra)
    return guarded(call)[0]


def command(args, extra):
    session = RunSession(args, extra)
    lock = None
    try:
        if viommu_sweep.wanted(args):
            code = viommu_sweep.run(session, prepare, run_in_tmpdir, lock_log)
        elif args.virtio_matrix:
            problem = virtio.validate(args)
            if problem:
                raise OptionError(problem)
            code = virtio.run_matrix(session, prepare, run_boots, say)
        else:
            cfg = prepare(session)
            lock = lock_log(args.log)
            for gone in privdir.remove_stale() + privdir.remove_stale(
                    testpmd.runtime_base()):
                say("removed %s, left by a dead run" % gone)
            code = run_in_tmpdir(session, cfg)
    except TrapmeterError as exc:
        finish_early(session, exc.code, exc.message)
        raise
    except KeyboardInterrupt:
        finish_early(session, exitstatus.INTERRUPTED, "interrupted")
        raise
    finally:
        if lock is not None:
            lock.release()
    with sigdefer.deferred(say):
        if not session.write_json(code) and code == exitstatus.OK:
            code = exitstatus.BAD_INPUT
        if session.output_errors and code == exitstatus.OK:
            code = exitstatus.BAD_INPUT
        if args.junit:
            write_run_junit(args.junit, session)
    if not args.virtio_matrix:
        print_summary(session)
    if args.html:
        write_run_html(args.html, session)
    return code


def run_in_tmpdir(session, cfg):
    """run_boots in a private temporary directory, removed after."""
    tmpdir = privdir.make()
    try:
        with session.status:
            return run_boots(session, cfg, tmpdir)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def print_summary(session):
    """The one-screen summary (--table summary), from the results
    document just written."""
    if session.args.table != "summary" or session.doc is None:
        return
    lines = summary.run_summary(session.doc, session.args.json)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def write_run_html(path, session):
    if session.doc is None:
        return
    try:
        report.write_text_atomic(path, html.run_report(session.doc,
                                                       session.args.json))
    except OSError as exc:
        raise OptionError("cannot write --html %s: %s"
                          % (path, exc.strerror or exc))
    say("report written to %s" % path)


def finish_early(session, code, message):
    """A run stopped by an error or a signal writes the boots it completed
    (and says so); before the first QEMU starts there is nothing to write,
    and an existing --json stays as it was."""
    if not session.booted:
        return
    written = session.write_json(code, [message])
    if session.args.junit:
        try:
            write_run_junit(session.args.junit, session)
        except OptionError as exc:
            say("error: " + exc.message)
    if code == exitstatus.INTERRUPTED and written:
        say("interrupted: %d completed boot(s) written to %s"
            % (len(session.boots), session.args.json))


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


def write_run_junit(path, session):
    try:
        junit.write(path, junit.run_suite(session.boots, session.config))
    except OSError as exc:
        raise OptionError("cannot write --junit %s: %s"
                          % (path, exc.strerror or exc))


def run_boots(session, cfg, tmpdir):
    """Boot --repeat times with the NICs' backend (testpmd for vhost-user)
    running throughout; it is stopped however the boots end."""
    vconf = session.config.get("virtio")
    vdir = os.path.join(tmpdir, "vhost")
    extra = cfg.extra
    cfg.extra = virtio.device_args(vconf, vdir) + list(extra)
    try:
        with kvm_lock(session, cfg):
            if virtio.vhost_user(vconf):
                start_backend(session, vconf, vdir, session.args.pin_cpus)
            return _run_boots(session, cfg, tmpdir)
    finally:
        cfg.extra = extra
        if session.backend is not None:
            session.backend.stop()
            session.backend = None


def start_backend(session, vconf, vdir, pinned=()):
    """testpmd with two vhost-user ports, ready before QEMU starts; its
    polling lcores keep off the CPUs QEMU is pinned to where they can."""
    backend = testpmd.Testpmd(vconf["testpmd"], vconf["testpmd_args"], vdir,
                              say, avoid=pinned)
    session.backend = backend
    try:
        backend.start()
    except testpmd.TestpmdError as exc:
        raise TrapmeterError(exc.code, exc.message)
    session.config["testpmd_argv"] = backend.argv


def _run_boots(session, cfg, tmpdir):
    """Boot --repeat times; the worst status wins, 2-7 stop early."""
    args = session.args
    try:
        qemu.prepare_tmpdir(cfg, tmpdir)
        if ide.suite_selected(cfg.words):
            session.ide = session.suite_state["ide"] = ide.prepare(
                cfg, tmpdir, args.ide_disk_bytes, args.ide_readonly,
                not args.no_ide_cd)
    except ide.IdeOptionError as exc:
        raise OptionError(str(exc))
    except OSError as exc:
        raise TrapmeterError(exitstatus.QEMU_ERROR, "cannot prepare QEMU's files "
                             "in %s: %s" % (tmpdir, exc.strerror or exc))
    if session.count_exits and session.config["exit_counter"] != "perf":
        cfg.qmp_path = exitcount.qmp.socket_path(tmpdir)
    if ide.suite_selected(cfg.words):
        cfg.extra = session.ide.qemu_args + list(cfg.extra)
    if args.plan_entries:
        cfg.extra = plan.qemu_args(args.plan_entries, tmpdir) + list(cfg.extra)
    argv = qemu.build_argv(cfg, tmpdir)
    session.config["qemu_argv"] = argv
    if args.verbose:
        say("qemu: " + " ".join(shlex.quote(a) for a in argv))
    timeout = args.timeout or qemu.DEFAULT_TIMEOUT[cfg.accel]
    worst, dumps = exitstatus.OK, []
    for index in range(args.repeat):
        if args.repeat > 1:
            session.boot_label = "boot %d/%d" % (index + 1, args.repeat)
            if not session.status_line:
                say(session.boot_label)
        outcome, dump, wall = one_boot(session, cfg, argv, tmpdir, index,
                                       timeout)
        dumps.append(dump)
        if args.repeat == 1 and args.table == "full":
            print_boot_report(session, cfg, dump, wall)
        worst = max(worst, outcome.code)
        if outcome.code >= exitstatus.BAD_INPUT:
            if index + 1 < args.repeat:
                say("stopping after boot %d/%d (status %s)"
                    % (index + 1, args.repeat, outcome.name))
            break
    if args.repeat > 1 and args.table == "full":
        print_repeat_report(session, cfg, [d for d in dumps if d])
    return worst


@contextlib.contextmanager
def kvm_lock(session, cfg, command="trapmeter run"):
    """Under KVM, the host's KVM lock for these boots and their backend
    (an ab session's forked boot finds it held already); results.json
    keeps the wait and any other QEMU seen running."""
    args = session.args
    if cfg.accel != "kvm":
        yield
        return
    lock = contextlib.nullcontext(kvmlock.skipped()) if args.no_lock \
        else kvmlock.held(command, args.lock_timeout, say)
    with lock as record:        # kvmlock.LockTimeout: status 17
        session.host["kvm_lock"] = record
        for other in record["other_qemu"]:
            say("warning: another QEMU runs on this host (pid %d, %s): it "
                "takes time from this measurement" % (other["pid"],
                                                      other["comm"]))
        yield


def one_boot(session, cfg, argv, tmpdir, index, timeout):
    """Run QEMU once, decide its status, record it and say why."""
    args = session.args
    stderr_path = os.path.join(tmpdir, "qemu-stderr-%d.txt" % index)
    lpath = logfile.boot_path(args.log, index, args.repeat)
    try:
        log = logfile.AtomicLog(lpath) if lpath else None
    except OSError as exc:
        raise OptionError("cannot write --log %s: %s" % (lpath, exc.strerror))
    counter = None
    session.suite_marks = []
    if session.count_exits:
        if cfg.qmp_path:
            _remove_quietly(cfg.qmp_path)
        perf = perfcount.PerfCounter(tmpdir, session.perf_events, say) \
            if session.perf_events else None
        counter = exitcount.ExitCounter(cfg.qmp_path, say, perf)
    before = backend_stats(session, "before boot %d" % (index + 1))
    session.booted = True
    load = boot_load(session)
    try:
        boot = qemu.run_boot(argv, timeout, stderr_path, log,
                             session.on_record,
                             counter.on_sync if counter else None,
                             args.pin_cpus, args.nice)
    except qemu.QemuStartError as exc:
        outcome = Outcome(exitstatus.QEMU_ERROR, [str(exc)])
        session.boots.append(report.boot_entry(index, outcome, None, None,
                                               None))
        report_outcome(outcome, None, "")
        return outcome, None, None
    finally:
        log_error = log.close() if log else None
        if counter:
            counter.close()
    if log_error and not boot.log_error:
        boot.log_error = log_error
    if boot.log_error:
        session.output_errors.append(lpath)
        say("error: cannot write --log %s: %s (logging stopped; the run "
            "went on and its results are kept)" % (lpath, boot.log_error))
    count_boot_exits(counter, cfg, boot.dump)
    for suite in suites.SUITES:
        suite.annotate(boot.dump, session.config)
    outcome = decide_boot(boot.dump, boot.rc, boot.timed_out, timeout,
                          boot.fatal)
    for suite in suites.SUITES:
        failure = suite.after_boot(session.suite_state.get(suite.name),
                                   boot.dump)
        if failure and outcome.code == exitstatus.OK:
            outcome = Outcome(exitstatus.CHECK_FAILED, [failure])
    outcome = backend_after_boot(session, before, boot.dump, outcome, index)
    session.boots.append(report.boot_entry(index, outcome, boot.dump,
                                           boot.wall_s, boot.rc,
                                           boot.stderr_text))
    for suite in suites.SUITES:
        session.boots[-1].update(suite.boot_fields(boot.dump, session.config))
    session.boots[-1].update(suite_times(session.suite_marks, boot.wall_s))
    session.boots[-1].update(host_load=load, qemu_cpus=session.cpus.result())
    session.waits.finish()
    session.boots[-1].update(vcpu_wait=session.waits.result())
    check_cmdline(boot.dump, cfg)
    if firmware_problem(boot.dump.run, cfg.firmware):
        say("warning: " + firmware_problem(boot.dump.run, cfg.firmware))
    for problem in plan.deviations(args.plan_entries or [], boot.dump.results):
        say("warning: plan not followed: " + problem)
    report_outcome(outcome, boot.dump, boot.stderr_text, args.verbose)
    if args.repeat > 1:
        say("boot %d/%d: %s (%.1f s)" % (index + 1, args.repeat,
                                         outcome.name, boot.wall_s))
    return outcome, boot.dump, boot.wall_s


def boot_load(session):
    """The load as the boot starts (warned when other processes run), and
    a fresh sampler of the CPUs QEMU runs on."""
    backend = session.backend.proc.pid if session.backend is not None \
        and session.backend.proc is not None else None
    load = fingerprint.load_at_start(own=[os.getppid(), backend])
    busy = envdiff.noise(None, load)
    for seen in busy:
        say("warning: noisy host: " + seen)
    session.cpus = fingerprint.CpuSampler(skip=[backend] if backend else ())
    session.waits = schedwait.WaitSampler(root_pid=os.getpid(),
                                          skip=[backend] if backend else ())
    return load


def backend_stats(session, when):
    """testpmd's port counters (None without a backend); a dead testpmd
    is a backend error."""
    if session.backend is None:
        return None
    try:
        session.backend.check_alive(when)
        return session.backend.stats()
    except testpmd.TestpmdError as exc:
        raise TrapmeterError(exc.code, exc.message)


def backend_after_boot(session, before, dump, outcome, index):
    """Cross-check testpmd's counters with the guest's; testpmd dying
    during the boot is the boot's status (backend-error)."""
    if session.backend is None:
        return outcome
    try:
        session.backend.check_alive("during boot %d" % (index + 1))
        after = session.backend.stats()
    except testpmd.TestpmdError as exc:
        return Outcome(exitstatus.BACKEND_ERROR, [exc.message] + outcome.messages)
    if dump is None or not dump.started:
        return outcome
    check = testpmd.boot_check(before, after, dump)
    if not check["ok"]:
        check["testpmd_log_tail"] = session.backend.log_text()[-3000:]
    dump.checks.append(check)
    if not check["ok"] and outcome.code == exitstatus.OK:
        return Outcome(exitstatus.CHECK_FAILED, ["vhost.testpmd_stats failed: "
                                             + check["detail"]])
    return outcome


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def count_boot_exits(counter, cfg, dump):
    """Fill measured exits into the boot's results (null with a reason when
    not counted)."""
    if counter is not None:
        counter.apply(dump.results, dump.run)
    elif cfg.accel == "kvm":
        exitcount.mark_uncounted(dump.results, "--no-count-exits")
    else:
        exitcount.mark_uncounted(dump.results, exitcount.TCG_NOTE)


def check_cmdline(dump, cfg):
    """Warn if the guest did not see the words we passed."""
    run = dump.run or {}
    seen = run.get("cmdline")
    if isinstance(seen, str) and seen.split() != cfg.words:
        say("warning: guest saw cmdline %r (source %s) but runner passed %r"
            % (seen, run.get("cmdline_source"), cfg.cmdline))


def firmware_problem(run, booted):
    """The guest names its firmware itself (platform/firmware.c: SMBIOS BIOS
    vendor); a sentence when that is not the firmware the runner booted,
    else None."""
    seen = run.get("firmware") if isinstance(run, dict) else None
    if not isinstance(seen, str) or seen == booted:
        return None
    vendor = run.get("firmware_vendor") or "none read"
    return ("guest names its firmware %r (SMBIOS BIOS vendor: %s) but the "
            "runner booted %r" % (seen, vendor, booted))


def suite_times(marks, wall):
    """{"boot_s": QEMU start to the first suite line, "suite_s": [[suite,
    seconds to the next suite line or QEMU's exit]]}; a suite run in
    rounds (a suite line per round) gets the sum, at its first place."""
    if not marks or wall is None:
        return {}
    ends = [t for _name, t in marks[1:]] + [wall]
    totals = {}
    for (name, start), end in zip(marks, ends):
        totals[name] = totals.get(name, 0.0) + end - start
    return {"boot_s": round(marks[0][1], 3),
            "suite_s": [[name, round(total, 3)]
                        for name, total in totals.items()]}


def header_info(session, cfg, wall, title=None):
    last = session.boots[-1] if session.boots and title is None else {}
    return {"accel": cfg.accel, "kvm_flavour": (session.host or {}).get(
        "kvm_flavour"), "boot": cfg.boot, "firmware": cfg.firmware,
        "wall_s": wall, "title": title, "boot_s": last.get("boot_s"),
        "suite_s": last.get("suite_s")}


class BreakdownMemo:
    """breakdown.breakdown, computed once per set of result lists: the
    table and results.json show the same fit (a third of a second of the
    runner's time for the default run)."""

    def __init__(self):
        self._memo = {}

    def __call__(self, results_per_boot):
        key = tuple(id(r) for r in results_per_boot)
        hit = self._memo.get(key)
        if hit is not None and all(a is b for a, b in
                                   zip(hit[0], results_per_boot)):
            return hit[1]
        entries = breakdown.breakdown(results_per_boot, SUITE_FITS)
        self._memo[key] = (list(results_per_boot), entries)
        return entries


def add_breakdown(doc, compute=None):
    """Where the time goes: per boot its own fit, across boots intervals
    and the fit of the boots' lower envelope."""
    compute = compute or (lambda lists: breakdown.breakdown(lists,
                                                            SUITE_FITS))
    results = []
    for boot in doc["boots"]:
        if breakdown.applies(boot.get("results") or [], SUITE_FITS):
            boot["breakdown"] = compute([boot["results"]])
            results.append(boot["results"])
    if len(results) > 1:
        doc["breakdown"] = compute(results)


def breakdown_report(session, results_per_boot):
    pvm = (session.host or {}).get("kvm_flavour") == "pvm"
    entries = session.breakdown(results_per_boot)
    lines = breakdown_text.format_table(entries, software_backend=pvm)
    return "\n".join(lines) + "\n" if lines else ""


def print_boot_report(session, cfg, dump, wall):
    if not has_report(dump):
        return
    session.status.close()
    text = report.render_report(dump.run, header_info(session, cfg, wall),
                                dump.results, dump.checks, dump.skips)
    text += suites.rendered(dump)
    if breakdown.applies(dump.results, SUITE_FITS):
        text += breakdown_report(session, [dump.results])
    sys.stdout.write(text)
    sys.stdout.flush()


def print_repeat_report(session, cfg, dumps):
    """Median over boots of per-boot medians, per case."""
    dumps = [d for d in dumps if has_report(d)]
    if not dumps:
        return
    session.status.close()
    results = report.aggregate_results([d.results for d in dumps])
    checks = report.aggregate_checks([d.checks for d in dumps])
    skips = report.aggregate_skips([d.skips for d in dumps])
    session.summary = {"boots": len(dumps), "results": results}
    walls = [b["wall_s"] for b in session.boots if b.get("wall_s")]
    wall = sum(walls) if walls else None
    title = "median over %d boots" % len(dumps)
    run = next((d.run for d in dumps if d.run), None)
    text = report.render_report(run, header_info(session, cfg, wall, title),
                                results, checks, skips)
    boot_results = [d.results for d in dumps]
    # suite dma's differences of cases are over boots (guest/dma.py)
    text += suites.rendered_boots(boot_results)
    if all(breakdown.applies(d.results, SUITE_FITS) for d in dumps):
        text += breakdown_report(session, boot_results)
    sys.stdout.write(text)
    sys.stdout.flush()
