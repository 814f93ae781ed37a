"""Command line: `trapmeter run` boots the guest, `trapmeter parse` checks
an existing serial log. Every expected failure becomes one
"trapmeter: ..." line and a documented exit status, never a traceback."""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback

from . import compare, exitcount, host, ide, junit, lava, plot, qemu, report, status, virtio
from .dump import parse_dump
from .status import Outcome, decide_boot, decide_from_dump

PROG = "trapmeter"
STDERR_TAIL = 20


class TrapmeterError(Exception):
    """An expected failure with its exit status."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class OptionError(TrapmeterError):
    def __init__(self, message):
        super().__init__(status.BAD_INPUT, message)


class Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line instead of usage + exit."""

    def error(self, message):
        raise OptionError("%s (see '%s --help')" % (message, self.prog))


def repo_root():
    """The repository root, derived from this file (tools/trapmeterlib/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.dirname(os.path.dirname(here))


def say(message, stream=None):
    print("%s: %s" % (PROG, message), file=stream or sys.stderr, flush=True)


# ---------------------------------------------------------------- arguments

def build_parser():
    fmt = argparse.RawDescriptionHelpFormatter
    top = Parser(prog=PROG, formatter_class=fmt, epilog=status.EXIT_TABLE,
                 description="Measure VM trap costs (REP string port I/O vs "
                 "single-unit port I/O) by booting the trapmeter guest "
                 "kernel under QEMU.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    add_run_parser(sub, fmt)
    par = sub.add_parser("parse", formatter_class=fmt,
                         epilog=status.EXIT_TABLE,
                         help="validate an existing serial log and print "
                         "the table",
                         description="Parse and validate a COM1 log of a "
                         "trapmeter boot (e.g. from your own QEMU) and print "
                         "the table.")
    par.add_argument("log", metavar="LOG", help="serial log file")
    par.add_argument("--json", metavar="FILE",
                     help="also write results JSON to FILE")
    add_lava_parsers(sub, fmt)
    add_compare_parser(sub, fmt)
    return top


def add_lava_parsers(sub, fmt):
    job = sub.add_parser(
        "lava-job", formatter_class=fmt,
        help="write a LAVA job definition (device type qemu)",
        description="Write a LAVA job for the 'qemu' device type: deploy the "
        "ISO (and the fw_cfg test blob) to tmpfs, boot it with QEMU and turn "
        "every TM_LAVA line of the guest into a LAVA test case (results: "
        "median cycles per op; checks, skips, errors, exceptions and the "
        "final status as pass/fail/skip).")
    add = job.add_argument
    add("--iso-url", metavar="URL", default=None,
        help="http(s)://, ftp:// or file:// URL of trapmeter.iso (default: "
        "file:// URL of this tree's build/trapmeter.iso)")
    add("--blob-url", metavar="URL", help="URL of the fw_cfg test blob "
        "(write it with --write-blob); without it the fw_cfg data check "
        "is skipped")
    add("--write-blob", metavar="FILE", help="also write the fw_cfg test "
        "blob to FILE, for hosting next to the ISO")
    add("--scratch-url", metavar="URL", help="raw disk image for the ide "
        "suite's scratch disk")
    grp = job.add_mutually_exclusive_group()
    grp.add_argument("--kvm", dest="kvm", action="store_true", default=True,
                     help="KVM worker: the template adds -cpu host "
                     "-enable-kvm (default)")
    grp.add_argument("--no-kvm", dest="kvm", action="store_false",
                     help="TCG (context no_kvm: true, -cpu max)")
    add("--cpu", metavar="MODEL", help="extra -cpu MODEL (last -cpu wins), "
        "e.g. host,-arch-capabilities on a PVM host")
    add("--suite", metavar="LIST", help="kernel word suite=LIST")
    add("--case", metavar="GLOBS", help="kernel word case=GLOBS")
    add("--quick", action="store_true", help="kernel word quick")
    add("--cmdline", metavar="WORDS", default="",
        help="extra kernel words (lava=on is always added)")
    add("--extra-option", metavar="OPT", action="append", default=[],
        help="append OPT to the QEMU command line (repeatable)")
    add("--timeout-min", metavar="N", type=int,
        default=lava.DEFAULT_TEST_MINUTES,
        help="test action timeout in minutes (default %d)"
        % lava.DEFAULT_TEST_MINUTES)
    add("--name", metavar="TEXT", help="job_name")
    add("-o", "--output", metavar="FILE", help="write the job to FILE "
        "(default stdout)")
    imp = sub.add_parser(
        "import-lava", formatter_class=fmt, epilog=status.EXIT_TABLE,
        help="turn lava-run logs or LAVA results exports into results.json",
        description="Read lava-run logs (stderr of lava-run, or a job's "
        "log from the server) and/or LAVA results exports (JSON or CSV; "
        "YAML with python3-yaml), one boot per file, and write "
        "results.json for `trapmeter compare`. From a log the guest's own "
        "dump is rebuilt from the serial lines, validated (count, CRC) and "
        "cross-checked against the LAVA test cases.")
    imp.add_argument("logs", metavar="LOG", nargs="+",
                     help="lava-run log or results export")
    imp.add_argument("--json", metavar="FILE", default="results.json",
                     help="results file (default results.json)")


def add_compare_parser(sub, fmt):
    cmp_ = sub.add_parser(
        "compare", formatter_class=fmt, epilog=status.EXIT_TABLE,
        help="regression verdicts: candidate results.json against a base",
        description="Compare two results.json files (each one or more "
        "boots, run --repeat N) metric by metric: ratio of medians "
        "(candidate/base) with a seeded bootstrap 95%% CI, and a verdict "
        "(regression, improvement, unchanged, inconclusive) against a "
        "threshold. Exit status 0: no regression; 10: regression; 11: "
        "unusable input.")
    add = cmp_.add_argument
    add("base", metavar="BASE.json")
    add("candidate", metavar="CAND.json")
    add("--threshold", metavar="[METRIC=]PCT", action="append", default=[],
        help="verdict threshold in percent (default 5); METRIC=PCT for one "
        "metric (cycles_per_op, cycles_per_exit, exits_per_op, mib_s, pps, "
        "...); repeatable")
    add("--seed", type=int, default=compare.DEFAULT_SEED,
        help="bootstrap seed (default %d)" % compare.DEFAULT_SEED)
    add("--resamples", type=int, default=compare.DEFAULT_RESAMPLES,
        help="bootstrap resamples (default %d)" % compare.DEFAULT_RESAMPLES)
    add("--junit", metavar="FILE", help="JUnit XML, one testcase per metric")
    add("--markdown", metavar="FILE", help="Markdown summary for CI")
    add("--plot", metavar="FILE.svg", help="REP vs single cycles per unit "
        "over transfer size, base vs candidate")
    add("--plot-engine", choices=("auto", "gnuplot", "python"),
        default="auto", help="gnuplot when installed (auto) or the plain "
        "Python SVG writer")
    add("--json", metavar="FILE", help="verdicts as JSON")


def add_run_parser(sub, fmt):
    run = sub.add_parser(
        "run", formatter_class=fmt, epilog=status.EXIT_TABLE,
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
    add("--firmware", choices=("bios", "uefi"), default="bios",
        help="bios (SeaBIOS) or uefi (OVMF, needs --boot iso)")
    add("--machine", choices=("pc", "q35"), default="pc",
        help="QEMU machine type (default pc)")
    add("--suite", metavar="LIST", help="kernel word suite=LIST")
    add("--case", metavar="GLOBS", help="kernel word case=GLOBS")
    add("--cmdline", metavar="WORDS", default="",
        help="extra kernel words appended raw, e.g. \"samples=7 foo=1\"")
    add("--repeat", metavar="N", type=int, default=1,
        help="boot N times; table shows median over boots (default 1)")
    add("--timeout", metavar="S", type=float,
        help="wall-clock seconds per boot (default 300 TCG, 1800 KVM)")
    add("--json", metavar="FILE", default="results.json",
        help="results file (default results.json in the current directory;"
        " written even on failure)")
    add("--log", metavar="FILE", help="save the raw serial output to FILE "
        "(with --repeat: FILE.bootI per boot)")
    add("--quick", action="store_true", help="kernel word quick")
    add("--qemu", metavar="PATH", default="qemu-system-x86_64",
        help="QEMU binary (default qemu-system-x86_64)")
    add("--no-build", action="store_true", help="do not run make")
    add("--count-exits", dest="count_exits", action="store_true",
        default=None, help="measure VM exits per op from QMP query-stats "
        "(default on under KVM; adds kernel word sync=on)")
    add("--no-count-exits", dest="count_exits", action="store_false",
        help="do not count exits (no QMP, no sync points)")
    add("--kernel-irqchip", choices=("on", "off"), default="on",
        help="KVM: -accel kvm,kernel-irqchip=on|off (off: PIC/ELCR ports "
        "become QEMU round trips; default on)")
    add("--junit", metavar="FILE", help="also write JUnit XML: one "
        "testcase per check, skip and boot status")
    add("-v", "--verbose", action="store_true",
        help="show every case, the QEMU command line and QEMU's stderr")
    virtio.add_options(add)
    add("--ide-disk-size", metavar="SIZE", default="16M",
        help="suite ide: scratch disk attached as ATA dev0 (default 16M; "
        "0: no disk)")
    add("--ide-readonly", action="store_true",
        help="suite ide: mark no region writable (disk attached with "
        "snapshot=on; write cases skip)")
    add("--no-ide-cd", action="store_true",
        help="suite ide: do not attach the ISO as the ATAPI CD-ROM")


def split_extra(argv):
    """Everything after the first "--" goes to QEMU untouched."""
    if "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1:]
    return argv, []


def validate_run_options(args):
    try:
        args.ide_disk_bytes = ide.parse_size(args.ide_disk_size)
    except ide.IdeOptionError as exc:
        raise OptionError(str(exc))
    if args.repeat < 1:
        raise OptionError("--repeat must be at least 1 (got %d)" % args.repeat)
    if args.timeout is not None and not args.timeout > 0:
        raise OptionError("--timeout must be a positive number of seconds")
    for name in ("suite", "case"):
        value = getattr(args, name)
        if value is not None and (not value or any(c.isspace()
                                                   for c in value)):
            raise OptionError("--%s must be a non-empty word without spaces "
                              "(got %r)" % (name, value))
    if args.firmware == "uefi" and args.boot == "direct":
        raise OptionError("--firmware uefi needs --boot iso (direct -kernel "
                          "boot under OVMF is unsupported)")
    if args.firmware == "uefi":
        for path in (qemu.OVMF_CODE, qemu.OVMF_VARS):
            if not os.path.isfile(path):
                raise OptionError("OVMF firmware file %s not found (install "
                                  "the 'ovmf' package)" % path)
    problem = virtio.validate(args)
    if problem:
        raise OptionError(problem)
    json_dir = os.path.dirname(os.path.abspath(args.json))
    if not os.path.isdir(json_dir):
        raise OptionError("--json %s: directory %s does not exist"
                          % (args.json, json_dir))


# ---------------------------------------------------------------- host steps

def ensure_built(root):
    """`make -q all`; if out of date `make all` (its output to stderr)."""
    try:
        quiet = subprocess.run(["make", "-q", "all"], cwd=root,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise TrapmeterError(status.QEMU_ERROR, "cannot run make: %s"
                             % (exc.strerror or exc))
    if quiet.returncode == 0:
        return
    say("kernel out of date: building (make all)")
    done = subprocess.run(["make", "all"], cwd=root, stdout=sys.stderr,
                          check=False)
    if done.returncode != 0:
        raise TrapmeterError(status.QEMU_ERROR, "build failed: 'make all' "
                             "exited with status %d" % done.returncode)


def choose_accel(requested):
    """(accel, kvm flavour or None, reason)."""
    if requested == "tcg":
        return "tcg", None, "TCG requested with --accel tcg"
    usable, why = host.kvm_usable()
    if usable:
        return "kvm", host.kvm_flavour(), why
    if requested == "kvm":
        raise TrapmeterError(status.QEMU_ERROR, "--accel kvm: KVM is not "
                             "usable: %s" % why)
    return "tcg", None, "KVM not usable (%s); using TCG" % why


def resolve_qemu(path):
    """Absolute QEMU path; a missing binary is a QEMU start failure."""
    found = shutil.which(path)
    if found is None:
        raise TrapmeterError(status.QEMU_ERROR, "QEMU binary not found: %s"
                             % path)
    return found


def log_path(base, index, repeat):
    if base is None or repeat == 1:
        return base
    stem, ext = os.path.splitext(base)
    return "%s.boot%d%s" % (stem, index, ext)


# ---------------------------------------------------------------- run

class RunSession:
    """State of one `trapmeter run`, so results.json can be written from
    whatever point the run stopped at."""

    def __init__(self, args, extra):
        self.args = args
        self.extra = extra
        self.host = host.host_info(None, None, None)
        self.config = {"accel": args.accel, "boot": args.boot,
                       "firmware": args.firmware, "machine": args.machine,
                       "cmdline": None, "qemu_argv": None,
                       "repeat": args.repeat,
                       "kernel_irqchip": args.kernel_irqchip,
                       "count_exits": None}
        self.boots = []
        self.summary = None
        self.count_exits = False
        self.ide = None
        self.detailed = args.verbose or sys.stderr.isatty()

    def write_json(self, code, messages=()):
        doc = report.results_document(self.host, self.config, self.boots,
                                      code, messages, self.summary)
        try:
            report.write_json_atomic(self.args.json, doc)
        except OSError as exc:
            say("error: cannot write %s: %s" % (self.args.json, exc))
            return False
        return True

    def on_record(self, rec, elapsed):
        """Progress on stderr: every case on a tty or with -v, else one
        line per suite."""
        kind = rec.get("type")
        if kind == "suite":
            print("[%5.1fs] suite %s" % (elapsed, rec.get("suite")),
                  file=sys.stderr, flush=True)
        elif kind == "case" and self.detailed:
            print("[%5.1fs] %s: %s" % (elapsed, rec.get("suite"),
                                       rec.get("case")),
                  file=sys.stderr, flush=True)


def prepare(session):
    """Everything before the first boot; returns the RunConfig."""
    args = session.args
    validate_run_options(args)
    root = repo_root()
    if not args.no_build:
        ensure_built(root)
    qemu_bin = resolve_qemu(args.qemu)
    accel, flavour, why = choose_accel(args.accel)
    say("accel %s%s: %s" % (accel, " (%s)" % flavour if flavour else "", why))
    if accel == "kvm" and flavour in host.SOFTWARE_FLAVOURS:
        say("warning: KVM flavour is %s: absolute cycle counts are not "
            "representative of hardware-virtualised (VT-x/AMD-V) hosts; "
            "ratios and exit counts are" % flavour)
    if args.kernel_irqchip == "off":
        say("kernel-irqchip=off: the PIC/ELCR ports are handled by QEMU"
            if accel == "kvm" else "--kernel-irqchip applies to KVM only; "
            "ignored under TCG")
    count = decide_count_exits(args, accel)
    words, notes = qemu.kernel_words(args.suite, args.case, args.quick,
                                     args.cmdline,
                                     flavour if accel == "kvm" else None)
    if count:
        words.append("sync=on")
    for note in notes:
        say(note)
    cfg = qemu.RunConfig(repo_root=root, accel=accel, boot=args.boot,
                         firmware=args.firmware, machine=args.machine,
                         words=words, extra=session.extra, qemu=qemu_bin,
                         kernel_irqchip=args.kernel_irqchip)
    session.count_exits = count
    session.config["count_exits"] = count
    vconf = virtio.settings(args)
    cfg.extra = virtio.device_args(vconf) + list(session.extra)
    session.config["virtio"] = vconf
    session.host = host.host_info(qemu_bin, accel, flavour)
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
    return args.count_exits is not False


def run_command(args, extra):
    session = RunSession(args, extra)
    try:
        if args.virtio_matrix:
            problem = virtio.validate(args)
            if problem:
                raise OptionError(problem)
            code = virtio.run_matrix(session, prepare, run_boots, say)
        else:
            cfg = prepare(session)
            tmpdir = tempfile.mkdtemp(prefix="trapmeter-")
            try:
                code = run_boots(session, cfg, tmpdir)
            finally:
                shutil.rmtree(tmpdir, ignore_errors=True)
    except TrapmeterError as exc:
        session.write_json(exc.code, [exc.message])
        raise
    except KeyboardInterrupt:
        session.write_json(status.INTERRUPTED, ["interrupted"])
        raise
    if not session.write_json(code) and code == status.OK:
        code = status.BAD_INPUT
    if args.junit:
        write_run_junit(args.junit, session)
    return code


def write_run_junit(path, session):
    try:
        junit.write(path, junit.run_suite(session.boots, session.config))
    except OSError as exc:
        raise OptionError("cannot write --junit %s: %s"
                          % (path, exc.strerror or exc))


def run_boots(session, cfg, tmpdir):
    """Boot --repeat times; the worst status wins, 2-6 stop early."""
    args = session.args
    qemu.prepare_tmpdir(cfg, tmpdir)
    if session.count_exits:
        cfg.qmp_path = exitcount.qmp.socket_path(tmpdir)
    if ide.suite_selected(cfg.words):
        try:
            session.ide = ide.prepare(cfg, tmpdir, args.ide_disk_bytes,
                                      args.ide_readonly, not args.no_ide_cd)
        except ide.IdeOptionError as exc:
            raise OptionError(str(exc))
        cfg.extra = session.ide.qemu_args + list(cfg.extra)
    argv = qemu.build_argv(cfg, tmpdir)
    session.config["qemu_argv"] = argv
    if args.verbose:
        say("qemu: " + " ".join(_shell_quote(a) for a in argv))
    timeout = args.timeout or qemu.DEFAULT_TIMEOUT[cfg.accel]
    worst, dumps = status.OK, []
    for index in range(args.repeat):
        if args.repeat > 1:
            say("boot %d/%d" % (index + 1, args.repeat))
        outcome, dump, wall = one_boot(session, cfg, argv, tmpdir, index,
                                       timeout)
        dumps.append(dump)
        if args.repeat == 1:
            print_boot_report(session, cfg, dump, wall)
        worst = max(worst, outcome.code)
        if outcome.code >= status.BAD_INPUT:
            if index + 1 < args.repeat:
                say("stopping after boot %d/%d (status %s)"
                    % (index + 1, args.repeat, outcome.name))
            break
    if args.repeat > 1:
        print_repeat_report(session, cfg, [d for d in dumps if d])
    return worst


def one_boot(session, cfg, argv, tmpdir, index, timeout):
    """Run QEMU once, decide its status, record it and say why."""
    args = session.args
    stderr_path = os.path.join(tmpdir, "qemu-stderr-%d.txt" % index)
    lpath = log_path(args.log, index, args.repeat)
    try:
        log = open(lpath, "wb") if lpath else None
    except OSError as exc:
        raise OptionError("cannot write --log %s: %s" % (lpath, exc.strerror))
    counter = None
    if cfg.qmp_path:
        _remove_quietly(cfg.qmp_path)
        counter = exitcount.ExitCounter(cfg.qmp_path, say)
    try:
        boot = qemu.run_boot(argv, timeout, stderr_path, log,
                             session.on_record,
                             counter.on_sync if counter else None)
    except qemu.QemuStartError as exc:
        outcome = Outcome(status.QEMU_ERROR, [str(exc)])
        session.boots.append(report.boot_entry(index, outcome, None, None,
                                               None))
        report_outcome(outcome, None, "")
        return outcome, None, None
    finally:
        if log:
            log.close()
        if counter:
            counter.close()
    count_boot_exits(counter, cfg, boot.dump)
    outcome = decide_boot(boot.dump, boot.rc, boot.timed_out, timeout,
                          boot.fatal)
    virtio.annotate(boot.dump, session.config.get("virtio"))
    ide_failure = ide.after_boot(session.ide, boot.dump)
    if ide_failure and outcome.code == status.OK:
        outcome = Outcome(status.CHECK_FAILED, [ide_failure])
    session.boots.append(report.boot_entry(index, outcome, boot.dump,
                                           boot.wall_s, boot.rc,
                                           boot.stderr_text))
    session.boots[-1].update(virtio.boot_fields(
        boot.dump, session.config.get("virtio")))
    check_cmdline(boot.dump, cfg)
    report_outcome(outcome, boot.dump, boot.stderr_text, args.verbose)
    if args.repeat > 1:
        say("boot %d/%d: %s (%.1f s)" % (index + 1, args.repeat,
                                         outcome.name, boot.wall_s))
    return outcome, boot.dump, boot.wall_s


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def count_boot_exits(counter, cfg, dump):
    """Fill measured exits into the boot's results (null with a reason when
    not counted)."""
    if counter is not None:
        counter.apply(dump.results)
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


def report_outcome(outcome, dump, stderr_text, verbose=False):
    """Print guest errors/exceptions, status messages and QEMU's stderr."""
    if dump is not None:
        for line in report.guest_problem_lines(dump.errors, dump.exceptions):
            print(line, file=sys.stderr)
        for warning in dump.warnings:
            say("warning: " + warning)
    for message in outcome.messages:
        say(message)
    if stderr_text.strip() and (outcome.show_stderr or verbose):
        lines = stderr_text.rstrip("\n").splitlines()[-STDERR_TAIL:]
        for line in lines:
            print("qemu: " + line, file=sys.stderr)
    sys.stderr.flush()


def header_info(session, cfg, wall, title=None):
    return {"accel": cfg.accel, "kvm_flavour": (session.host or {}).get(
        "kvm_flavour"), "boot": cfg.boot, "firmware": cfg.firmware,
        "wall_s": wall, "title": title}


def has_report(dump):
    """A bad-input or early failure dump has nothing worth a table."""
    return dump is not None and dump.started and bool(
        dump.run or dump.results or dump.checks or dump.skips)


def print_boot_report(session, cfg, dump, wall):
    if not has_report(dump):
        return
    text = report.render_report(dump.run, header_info(session, cfg, wall),
                                dump.results, dump.checks, dump.skips)
    sizes = virtio.render_sizes(dump.results)
    if sizes:
        text += "\n" + "\n".join(sizes) + "\n"
    text += ide.render(dump)
    sys.stdout.write(text)
    sys.stdout.flush()


def print_repeat_report(session, cfg, dumps):
    """Median over boots of per-boot medians, per case."""
    dumps = [d for d in dumps if has_report(d)]
    if not dumps:
        return
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
    sys.stdout.write(text)
    sys.stdout.flush()


def _shell_quote(arg):
    safe = all(c.isalnum() or c in "-_=,./:@+" for c in arg)
    return arg if arg and safe else "'" + arg.replace("'", "'\\''") + "'"


# ---------------------------------------------------------------- parse

def parse_command(args):
    try:
        with open(args.log, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise OptionError("cannot read %s: %s" % (args.log,
                                                  exc.strerror or exc))
    dump = parse_dump(data)
    outcome = decide_from_dump(dump)
    report.add_speedups(dump.results)
    info = {"accel": None, "boot": None, "firmware": None, "wall_s": None,
            "title": "log " + os.path.basename(args.log)}
    if has_report(dump):
        sys.stdout.write(report.render_report(dump.run, info, dump.results,
                                              dump.checks, dump.skips))
        sys.stdout.write(ide.render(dump))
        sys.stdout.flush()
    report_outcome(outcome, dump, "")
    if args.json:
        write_parse_json(args, dump, outcome)
    return outcome.code


def write_parse_json(args, dump, outcome):
    host_obj = {"qemu_version": None, "accel": None, "kvm_flavour": None,
                "host_cpu": None, "kernel": None, "hostname_hash": None}
    run = dump.run or {}
    config = {"accel": None, "boot": None, "firmware": run.get("firmware"),
              "machine": None, "cmdline": run.get("cmdline"),
              "qemu_argv": None, "source_log": args.log}
    boot = report.boot_entry(0, outcome, dump, None, None)
    doc = report.results_document(host_obj, config, [boot], outcome.code,
                                  outcome.messages)
    try:
        report.write_json_atomic(args.json, doc)
    except OSError as exc:
        raise OptionError("cannot write %s: %s" % (args.json, exc))


# ---------------------------------------------------------------- LAVA

def lava_job_command(args):
    for name in ("suite", "case"):
        value = getattr(args, name)
        if value is not None and (not value or any(c.isspace()
                                                   for c in value)):
            raise OptionError("--%s must be a non-empty word without spaces "
                              "(got %r)" % (name, value))
    iso_url = args.iso_url or "file://" + os.path.join(repo_root(),
                                                        qemu.ISO_REL)
    try:
        job = lava.build_job(iso_url, kvm=args.kvm, suite=args.suite,
                             case=args.case, quick=args.quick,
                             cmdline=args.cmdline, blob_url=args.blob_url,
                             cpu=args.cpu, test_minutes=args.timeout_min,
                             job_name=args.name, extra=args.extra_option,
                             urls={"scratch_url": args.scratch_url})
    except lava.LavaError as exc:
        raise OptionError(str(exc))
    text = lava.job_yaml(job)
    if args.write_blob:
        _write_file(args.write_blob, qemu.make_blob())
    if args.output:
        _write_file(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return status.OK


def _write_file(path, data):
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise OptionError("cannot write %s: %s" % (path, exc.strerror or exc))


def import_lava_command(args):
    runs, boots, worst = [], [], status.OK
    for index, path in enumerate(args.logs):
        try:
            run = lava.load(path)
        except lava.LavaError as exc:
            raise OptionError(str(exc))
        entry, outcome = lava.boot_from_run(index, run)
        runs.append(run)
        boots.append(entry)
        worst = max(worst, outcome.code)
        info = entry["lava"]
        say("%s: %d trapmeter test case(s), %s @tm result(s), job result %s, "
            "status %s" % (path, info["test_cases"],
                           info.get("dump_results", "no"),
                           info["job_result"] or "?", outcome.name))
        for message in outcome.messages:
            say(message)
    host_obj, argv = lava.host_from_runs(runs)
    run0 = next((b["run"] for b in boots if b.get("run")), None) or {}
    config = {"accel": host_obj["accel"], "boot": "iso", "firmware":
              run0.get("firmware"), "machine": None,
              "cmdline": run0.get("cmdline"), "qemu_argv": argv,
              "source": "lava", "source_logs": list(args.logs)}
    summary = None
    if len(boots) > 1:
        results = report.aggregate_results([b["results"] for b in boots])
        summary = {"boots": len(boots), "results": results}
    good = [b for b in boots if b["results"]]
    if good:
        results = summary["results"] if summary else good[0]["results"]
        checks = report.aggregate_checks([b["checks"] for b in boots])
        skips = report.aggregate_skips([b["skips"] for b in boots])
        info = {"accel": host_obj["accel"], "boot": "lava", "firmware": None,
                "wall_s": None, "title": "LAVA, %d log(s)" % len(boots)}
        sys.stdout.write(report.render_report(run0 or None, info, results,
                                              checks, skips))
        sys.stdout.flush()
    doc = report.results_document(host_obj, config, boots, worst, (),
                                  summary)
    try:
        report.write_json_atomic(args.json, doc)
    except OSError as exc:
        raise OptionError("cannot write %s: %s" % (args.json, exc))
    return worst


# ---------------------------------------------------------------- compare

def parse_thresholds(items):
    """["10", "cycles_per_op=20"] -> {"*": 0.10, "cycles_per_op": 0.20}."""
    out = {}
    for item in items:
        metric, _, pct = item.rpartition("=")
        try:
            value = float(pct)
        except ValueError:
            value = -1.0
        if not 0 < value < 1000 or value != value:
            raise OptionError("--threshold %r: expected [METRIC=]PERCENT with "
                              "0 < PERCENT < 1000" % item)
        out[metric or "*"] = value / 100.0
    return out


def compare_command(args):
    thresholds = parse_thresholds(args.threshold)
    if args.resamples < 100 or args.resamples > 1000000:
        raise OptionError("--resamples must be 100..1000000")
    for opt in ("junit", "markdown", "plot", "json"):
        path = getattr(args, opt)
        if path and not junit.exists_dir(path):
            raise OptionError("--%s %s: directory does not exist"
                              % (opt, path))
    try:
        base = compare.read_results(args.base)
        cand = compare.read_results(args.candidate)
        if base.get("schema") != cand.get("schema"):
            raise compare.InputError("different schemas: base %r, "
                                     "candidate %r" % (base.get("schema"),
                                                       cand.get("schema")))
        rows, warnings = compare.compare_docs(base, cand, thresholds,
                                              args.seed, args.resamples)
    except compare.InputError as exc:
        raise TrapmeterError(status.UNUSABLE, "unusable input: %s" % exc)
    if not rows:
        raise TrapmeterError(status.UNUSABLE, "unusable input: no case is "
                             "in both files")
    sys.stdout.write(compare.render_table(rows, warnings, args.base,
                                          args.candidate))
    sys.stdout.flush()
    write_compare_outputs(args, rows, warnings, base, cand)
    return compare.exit_status(rows)


def write_compare_outputs(args, rows, warnings, base, cand):
    try:
        if args.junit:
            junit.write(args.junit, junit.to_xml(
                "trapmeter compare", compare.junit_cases(rows)))
        if args.markdown:
            report.write_text_atomic(args.markdown, compare.render_markdown(
                rows, warnings, args.base, args.candidate))
        if args.json:
            report.write_json_atomic(args.json, {
                "tool": "trapmeter", "kind": "compare", "base": args.base,
                "candidate": args.candidate, "warnings": warnings,
                "rows": [r.as_dict() for r in rows]})
        if args.plot:
            engine = plot.write_plot(args.plot, compare.boot_results(base),
                                     compare.boot_results(cand),
                                     args.plot_engine)
            say("plot written to %s (%s)" % (args.plot, engine))
    except plot.PlotError as exc:
        say("warning: no plot: %s" % exc)
    except OSError as exc:
        raise OptionError("cannot write output: %s" % (exc.strerror or exc))


# ---------------------------------------------------------------- main

def _raise_interrupt(_signum, _frame):
    raise KeyboardInterrupt


def dispatch(argv):
    argv, extra = split_extra(list(argv))
    args = build_parser().parse_args(argv)
    if args.command == "run":
        return run_command(args, extra)
    if extra:
        raise OptionError("'--' QEMU arguments are only accepted by 'run'")
    if args.command == "parse":
        return parse_command(args)
    if args.command == "lava-job":
        return lava_job_command(args)
    if args.command == "import-lava":
        return import_lava_command(args)
    if args.command == "compare":
        return compare_command(args)
    raise OptionError("a command is required: run, parse, compare, lava-job "
                      "or import-lava (see '%s --help')" % PROG)


def main(argv=None):
    """Entry point: map every failure to one line and an exit status."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        return dispatch(sys.argv[1:] if argv is None else argv)
    except TrapmeterError as exc:
        say(("error: " if exc.code in (status.BAD_INPUT, status.QEMU_ERROR,
                                       status.UNUSABLE)
             else "") + exc.message)
        return exc.code
    except KeyboardInterrupt:
        say("interrupted")
        return status.INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except Exception as exc:  # pylint: disable=broad-except
        if os.environ.get("TRAPMETER_DEBUG"):
            traceback.print_exc()
        say("internal error: %s: %s" % (type(exc).__name__, exc))
        return status.INTERNAL


def _silence_stdout():
    """After a closed pipe (e.g. `| head`), stop Python's exit-time flush
    from raising again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
