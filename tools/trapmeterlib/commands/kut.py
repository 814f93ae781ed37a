"""`trapmeter kut --kut-dir D`: kvm-unit-tests' x86/vmexit beside
trapmeter's twin cases, boot by boot, on this host.

Each round boots trapmeter (suite exits and the pci-testdev twins, each
case naming its vmexit twin in kut_name) and vmexit.flat under the same
QEMU binary, accelerator, CPU model and machine; rounds alternate the
order (A B, B A, ...).  Cases that need a second vCPU (ipi, ipi_halt,
ple_round_robin) take a second pair of boots with -smp 2 in each tool.
The trapmeter boots are `trapmeter run` in a child process (each boot its
own process, as `run` is); the whole session holds the host's KVM lock.
results.json holds the trapmeter boots with vmexit's figures of the same
round as suite "kut" (backends/kut_log.py), so `compare` and `ab` judge
vmexit figures as they judge ours."""

import copy
import json
import os
import subprocess
import sys
import tempfile
import time

from ..backends import kut_counted, kut_log, kut_lowest, kut_vmexit
from ..output import kut_table, report, resultsfile
from ..output.summary import tsc_khz
from ..stats import kutcmp, kutfloors, kutlooks, kutrounds
from ..system import children, kvmlock
from ..values import exitstatus
from ..values.errors import TrapmeterError, UnusableInput
from .common import OptionError, check_outputs, say, write_json
from . import kut_twins
from .kut_boots import (absent_names, file_boots, kutcmp_boots, merged_boots,
                        replay_names, replay_wanted, saved_look, saved_rounds,
                        shown_names, vmexit_boots)

NAME = "kut"
DEFAULT_BOOTS = kutcmp.DEFAULT_ROUNDS
COVER_TEXT = kut_table.pct0(kutrounds.MEDIAN_COVER)
# vmexit's boots a round, each case's lowest window taken
# (backends/kut_lowest.py): one in the first look, where the lowest of
# two would part rows that agree (a case whose own exits vary, ipi_halt,
# inl_from_pmtimer, sits lower than trapmeter's median says); two in
# --again's, on rows no look resolved, where they resolve more without
# parting any (docs/measurements.md, "vmexit's lowest window")
DEFAULT_VMEXIT_BOOTS = 1
AGAIN_VMEXIT_BOOTS = 2
BOOT_TIMEOUT_S = {"kvm": 900.0, "tcg": 600.0}
# a vmexit case doubles its loop until it spans 2^30 cycles: about a
# second per case here even under load; a boot is stopped after this
VMEXIT_BASE_S = 30.0
VMEXIT_PER_CASE_S = 15.0


def add_parser(sub, fmt):
    kut = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        help="kvm-unit-tests' vmexit beside trapmeter, boot by boot",
        description="Boot kvm-unit-tests' x86/vmexit.flat (from --kut-dir, "
        "a tree built with ./configure && make) and trapmeter's twin cases "
        "under the same QEMU, accelerator, CPU model and machine, "
        "interleaved boot by boot, and print one table: per vmexit case "
        "vmexit's figure (median over boots, with the range; from 8 boots "
        "the median's " + COVER_TEXT + " interval), trapmeter's "
        "gross cycles per op, its control and its net; then each tool's "
        "difference to inl_from_kernel, where its own loop cancels, and "
        "whether the two tools agree (their intervals meet), with "
        "the cause where trapmeter measures one.")
    kut.add_argument("--kut-dir", metavar="DIR",
                     help="kvm-unit-tests tree with x86/vmexit.flat built")
    kut.add_argument("--from", metavar="FILE", dest="from_file",
                     help="print the table of an earlier session's "
                     "results.json instead of booting")
    kut.add_argument("--coverage", action="store_true",
                     help="with --from: list each vmexit name's trapmeter "
                     "cases in the file, measured or skipped with the "
                     "guest's reason (e.g. of `run --suite all --smp 2`)")
    kut.add_argument("--accel", choices=("kvm", "tcg"), default="kvm",
                     help="accelerator of both tools (default kvm)")
    kut.add_argument("--boots", metavar="N", type=int, default=DEFAULT_BOOTS,
                     help="rounds: boots of each tool (default %d; more "
                     "narrow each interval toward the median; from %d a "
                     "try is also judged by lower quartiles)"
                     % (DEFAULT_BOOTS, kutfloors.FEWEST))
    kut.add_argument("--vmexit-boots", metavar="N", type=int,
                     default=DEFAULT_VMEXIT_BOOTS,
                     help="vmexit boots a round (default %d; --again's "
                     "look at least %d): each case's figure of the round "
                     "is the lowest of its N windows, the one the host's "
                     "other work lifted least"
                     % (DEFAULT_VMEXIT_BOOTS, AGAIN_VMEXIT_BOOTS))
    kut.add_argument("--cases", metavar="NAMES",
                     help="comma list of vmexit names (default every one); "
                     "vmexit also runs " + kutcmp.REFERENCE + ", which "
                     "every difference is to, and the cases the rows' tries "
                     "read (" + "; ".join(
                         [kutcmp.PER_INSN] + ["%s for %s" % (b, a) for a, b in
                                              kutcmp.BACK_TO_BACK.items()]) +
                     ")")
    kut.add_argument("--qemu", metavar="PATH", default="qemu-system-x86_64",
                     help="QEMU binary of both tools")
    kut.add_argument("--timeout", metavar="S", type=float,
                     help="wall-clock seconds per boot (default 900 KVM, "
                     "600 TCG)")
    kut.add_argument("--json", metavar="FILE", default="results.json",
                     help="results file (default results.json)")
    kut.add_argument("--log-dir", metavar="DIR",
                     help="keep each vmexit boot's serial output there "
                     "(vmexit-rR-smpN.log: `import-kut` reads them)")
    kut.add_argument("--again", metavar="N", nargs="?", type=int,
                     const=1, default=0,
                     help="then judge the rows not resolved or unexplained "
                     "again, on rounds of their own (--cases of those rows; "
                     "results beside --json's, NAME-again.json, "
                     "NAME-again2.json), up to N times (default 1, at most "
                     "%d): a row's verdict is the last session's that "
                     "judged it, a wrong one at most as likely as the "
                     "sessions' chances summed (a union bound)"
                     % (kutlooks.MOST_LOOKS - 1))
    kut.add_argument("--no-lock", action="store_true",
                     help="KVM: do not take the host's KVM lock")


def check_args(args):
    if args.log_dir and not os.path.isdir(args.log_dir):
        raise OptionError("--log-dir %s: not a directory" % args.log_dir)
    if not 1 <= args.boots <= 30:
        raise OptionError("--boots must be 1..30 (got %d)" % args.boots)
    if not 0 <= args.again < kutlooks.MOST_LOOKS:
        raise OptionError("--again must be 0..%d (got %d): kut runs at "
                          "most %d sessions, the union bound of whose "
                          "verdicts it states"
                          % (kutlooks.MOST_LOOKS - 1, args.again,
                             kutlooks.MOST_LOOKS))
    rounds = kutlooks.session_rounds(args.boots, args.again)
    if not kutlooks.union_within_alpha(rounds):
        pct = kut_table.model_pct
        raise OptionError("--again %d with --boots %d: %d sessions of %s "
                          "rounds, any one's verdict taken, would explain "
                          "falsely up to %s (held under %s) and call tools "
                          "that agree unexplained up to %s (held under %s), "
                          "by union bounds; take fewer --again or other "
                          "--boots" % (
                              args.again, args.boots, len(rounds),
                              ", ".join(str(r) for r in rounds),
                              pct(kutlooks.union_false(rounds),
                                  kutcmp.FALSE_EXPLAINED_ALPHA),
                              kut_table.pct0(kutcmp.FALSE_EXPLAINED_ALPHA),
                              pct(kutlooks.union_parting(rounds),
                                  kutcmp.PARTING_ALPHA),
                              kut_table.pct0(kutcmp.PARTING_ALPHA)))
    if not 1 <= args.vmexit_boots <= 5:
        raise OptionError("--vmexit-boots must be 1..5 (got %d)"
                          % args.vmexit_boots)
    wanted = None
    if args.cases:
        wanted = [w for w in args.cases.split(",") if w]
        bad = [w for w in wanted if w not in kut_log.VMEXIT_NAMES]
        if bad or not wanted:
            raise OptionError("--cases: %s not vmexit case name(s); vmexit "
                              "names: %s" % (", ".join(bad) or "no name",
                                             ", ".join(kut_log.VMEXIT_NAMES)))
    timeout = args.timeout or BOOT_TIMEOUT_S[args.accel]
    if not 0 < timeout < 86400:
        raise OptionError("--timeout must be 0 < S < 86400")
    try:
        flat = kut_vmexit.flat_path(args.kut_dir)
    except kut_vmexit.KutDirError as exc:
        raise OptionError(str(exc))
    return wanted, timeout, flat


def command(args):
    if args.from_file:
        return replay(args)
    if not args.kut_dir:
        raise OptionError("--kut-dir DIR (a kvm-unit-tests build) or --from "
                          "FILE (an earlier session) is required")
    wanted, timeout, flat = check_args(args)
    check_outputs([], [("--json", args.json)] + [
        ("--again", again_path(args.json, k))
        for k in range(1, args.again + 1)])
    lock = None
    if args.accel == "kvm" and not args.no_lock:
        try:
            lock = kvmlock.acquire("trapmeter kut", say=say)
        except kvmlock.LockTimeout as exc:
            raise TrapmeterError(exitstatus.LOCK_BUSY, str(exc)) from None
    rounds = kutlooks.session_rounds(args.boots, args.again)
    session = run_session(Session(args, wanted, timeout, flat), lock,
                          args.json)
    worst = session.worst
    again_args = copy.copy(args)
    again_args.vmexit_boots = max(args.vmexit_boots, AGAIN_VMEXIT_BOOTS)
    for k in range(1, args.again + 1):
        again = kutlooks.rows_again(session.diffs)
        if not again:
            break
        again_args.boots = rounds[k]
        sys.stdout.write("\n%s\n\n" % again_text(again, again_args, k,
                                                   rounds[:k + 1]))
        session = run_session(Session(again_args, again, timeout, flat,
                                      look=k + 1, looks_rounds=rounds),
                              lock, again_path(args.json, k))
        worst = max(worst, session.worst)
    return worst


def run_session(session, lock, path):
    """The rounds of session, its table printed and its results at path."""
    with tempfile.TemporaryDirectory(prefix="trapmeter-kut-") as tmp:
        session.tmp = tmp
        started = time.monotonic()
        for rnd in range(session.args.boots):
            session.round(rnd)
            say(rounds_done_text(rnd + 1, session.args.boots,
                                 time.monotonic() - started))
    session.finish(lock, path)
    return session


def again_path(path, k=1):
    """--again's k-th results file beside --json's: results-again.json,
    results-again2.json, ..."""
    stem, ext = os.path.splitext(path)
    return stem + "-again" + (str(k) if k > 1 else "") + (ext or ".json")


def again_text(names, args, k, rounds):
    """The line before --again's k-th session, rounds those of the
    sessions to it."""
    return ("--again: the %d row(s) not resolved or unexplained (%s), "
            "judged again on %d round(s) of their own, %d vmexit boots a "
            "round (each case's lowest window), results in %s (%s):" % (
                len(names), ", ".join(names), args.boots, args.vmexit_boots,
                again_path(args.json, k), kut_table.union_text(rounds)))


def rounds_done_text(done, total, elapsed_s):
    """"round 3 of 24 done, 540 s; about 3780 s left (model: these rounds'
    mean)": a session of an hour says when it will end (the elapsed time
    measured, what is left extrapolated from it; noise moves it)."""
    text = "round %d of %d done, %.0f s" % (done, total, elapsed_s)
    if done < total:
        text += "; about %.0f s left (model: these rounds' mean)" % (
            elapsed_s / done * (total - done))
    return text


class Session:
    """The rounds of one `trapmeter kut` and what they measured."""

    def __init__(self, args, wanted, timeout, flat, tmp=None, look=1,
                 looks_rounds=None):
        self.args, self.wanted, self.timeout = args, wanted, timeout
        # vmexit runs the names asked and those their rows read
        self.run = wanted and wanted + kutcmp.read_with(wanted)
        self.flat, self.tmp = flat, tmp
        self.diffs = []             # the rows judged (finish)
        self.look = look            # 2, 3: --again's sessions
        # the rounds of each session up to this one
        self.looks_rounds = (looks_rounds or [args.boots] * look)[:look]
        self.pairs = []             # (trapmeter boot, KutLog or None)
        self.waits = []             # vmexit's vCPU wait per round and case
        self.counted = []           # KVM's counters per round and case
        self.windows = []           # every vmexit boot's figures per round
        self.left_out = {}          # vmexit name -> why not run
        self.host = self.config = self.tsc_khz = None
        self.worst = exitstatus.OK
        smp2 = [n for n in kut_vmexit.SMP2 if not self.run or n in self.run]
        self.groups = [1] + ([2] if smp2 else [])

    def round(self, rnd):
        """A round's boots: with one vmexit boot, A B on even rounds, B A
        on odd; with N, vmexit's on either side of trapmeter's (the
        first round: all after it, as vmexit's boots copy its machine).
        vmexit's figure of the round is each case's lowest (kut_lowest)."""
        n = self.args.vmexit_boots
        before = 0 if rnd == 0 else (n // 2 if n > 1 else rnd % 2)
        for smp in self.groups:
            vm = [self.vmexit_boot(rnd, smp, i) for i in range(before)]
            tm_boot = self.trapmeter_boot(rnd, smp)
            vm += [self.vmexit_boot(rnd, smp, i) for i in range(before, n)]
            log, waits, counted, _chosen = kut_lowest.lowest(vm)
            self.waits.append({"round": rnd, "smp": smp, "cases": waits})
            self.counted.append(dict(counted, round=rnd, smp=smp))
            self.windows.append({"round": rnd, "smp": smp,
                                 "boots": kut_lowest.figures(vm)})
            self.pairs.append((rnd, smp, tm_boot, log))

    def trapmeter_boot(self, rnd, smp):
        path = os.path.join(self.tmp, "tm-%d-%d.json" % (rnd, smp))
        argv = kut_twins.argv(self.args, smp, self.timeout, path,
                              self.wanted)
        say("round %d of %d: trapmeter, -smp %d" % (rnd + 1, self.args.boots,
                                                    smp))
        done = self._run(argv, self.timeout + 60)
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as exc:
            raise TrapmeterError(exitstatus.QEMU_ERROR, "trapmeter's boot "
                                 "(round %d) wrote no results (%s): %s"
                                 % (rnd + 1, exc, _tail(done.stderr)))
        self.worst = max(self.worst, doc.get("exit_code") or 0)
        if self.host is None:
            self.host, self.config = doc.get("host"), doc.get("config")
        if self.tsc_khz is None:
            self.tsc_khz = tsc_khz(doc["boots"][0])
        return doc["boots"][0]

    def vmexit_boot(self, rnd, smp, index=0):
        """(KutLog or None, {case: wait entry}, KVM's counts) of one
        vmexit boot."""
        flavour = (self.host or {}).get("kvm_flavour")
        names, left = kut_vmexit.names_for(smp, flavour, self.run)
        self.left_out.update(left)
        names = [n for n in names if n not in self.left_out]
        if not names:
            return None, {}, {}
        argv = kut_vmexit.argv(self.args.qemu, kut_vmexit.same_machine(
            self.config.get("qemu_argv")), smp, self.flat, names)
        limit = min(self.timeout, VMEXIT_BASE_S + VMEXIT_PER_CASE_S * len(names))
        say("round %d of %d: vmexit%s, -smp %d, %d case(s)" % (
            rnd + 1, self.args.boots, " boot %d of %d" % (
                index + 1, self.args.vmexit_boots)
            if self.args.vmexit_boots > 1 else "", smp, len(names)))
        out, err, timed_out, samples, ticks, counted = self._run_bounded(
            argv, limit, smp)
        text = out.decode("utf-8", "replace")
        self.keep_log(rnd, smp, index, text)
        waits = kut_vmexit.span_waits(samples, ticks, self.tsc_khz, smp)
        try:
            log = kut_log.parse("vmexit round %d -smp %d" % (rnd + 1, smp),
                                text)
        except kut_log.KutLogError as exc:
            self.worst = max(self.worst, exitstatus.GARBLED)
            say("warning: %s; QEMU said: %s" % (exc, _tail(err)))
            log = None
        if timed_out:
            self.hung(names, log, limit)
        return log, waits, counted

    def hung(self, names, log, limit):
        """vmexit stopped answering: the first asked case without a line
        is left out of later rounds, by name."""
        done = set(log.skipped + [f[1] for f in log.figures]) if log else set()
        stuck = next((n for n in names if n not in done), None)
        if stuck:
            self.left_out[stuck] = ("did not return within %.0f s of its "
                                    "boot here (the boot was stopped)" % limit)
            say("warning: vmexit's %s %s" % (stuck, self.left_out[stuck]))

    def _run_bounded(self, argv, limit, vcpus=1):
        """(stdout, stderr, timed out, samples, ticks, counted) of a QEMU
        stopped at the limit: what it printed until then is kept; samples
        are (elapsed s, line, QEMU's thread times) at each line, ticks
        (elapsed s, its `vcpus` vCPU threads' times) between them
        (kut_vmexit.span_waits), counted {"cases": KVM's counters per
        iteration (kut_counted.per_iteration)[, "error"]}."""
        with tempfile.TemporaryFile() as errf, \
                tempfile.TemporaryDirectory(prefix="trapmeter-kut-") as tmp:
            sock = os.path.join(tmp, "qmp.sock")
            try:
                proc = children.spawn(argv + kut_counted.qemu_args(sock),
                                      stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=errf)
            except OSError as exc:
                raise TrapmeterError(exitstatus.QEMU_ERROR, "cannot run %s: "
                                     "%s" % (argv[0], exc.strerror or exc)) \
                    from None
            stats = kut_counted.StatsReader(sock, lambda: proc.poll() is None)
            reader = kut_vmexit.LineSampler(proc, on_line=stats,
                                            vcpus=vcpus)
            timed_out = False
            try:
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                children.stop(proc, 0.5)
            reader.join()
            proc.stdout.close()     # read to its end by the sampler
            stats.close()
            errf.seek(0)
            counted = kut_counted.per_boot(reader.counted, stats.error,
                                           self.tsc_khz)
            return reader.text(), errf.read(), timed_out, reader.samples, \
                reader.ticks, counted

    def keep_log(self, rnd, smp, index, text):
        if not self.args.log_dir:
            return
        path = os.path.join(self.args.log_dir, "vmexit-r%d-smp%d%s.log"
                            % (rnd + 1, smp, "-b%d" % (index + 1)
                               if index else ""))
        try:
            report.write_text_atomic(path, text)
        except OSError as exc:
            raise OptionError("cannot write %s: %s" % (path, exc.strerror))

    def _run(self, argv, timeout):
        try:
            return children.run(argv, timeout=timeout, capture_output=True)
        except subprocess.TimeoutExpired:
            raise TrapmeterError(exitstatus.TIMEOUT, "%s did not end within "
                                 "%.0f s" % (os.path.basename(argv[0]),
                                             timeout)) from None
        except OSError as exc:
            raise TrapmeterError(exitstatus.QEMU_ERROR, "cannot run %s: %s"
                                 % (argv[0], exc.strerror or exc)) from None

    def finish(self, lock, path):
        boots = kutcmp_boots(self.pairs, self.waits, self.counted)
        names = shown_names(boots, self.wanted)
        out_boots = merged_boots(self.pairs)
        levels, diffs = kutcmp.rows(boots, names,
                                    **kutcmp.backend(self.host))
        kutcmp.name_causes(diffs, out_boots)
        self.diffs = diffs
        absent = kutcmp.unmeasured(absent_names(
            self.wanted, names, self.left_out), out_boots)
        sys.stdout.write(kut_table.render_side_by_side(
            levels, diffs, self.left_out, self.host, self.args.accel, absent,
            self.args.kut_dir, self.look, self.args.vmexit_boots,
            self.looks_rounds))
        sys.stdout.write(kut_table.render_counted(self.counted, names))
        sys.stdout.flush()
        config = dict(self.config or {}, source="trapmeter kut",
                      kut_dir=self.args.kut_dir)
        host = dict(self.host or {})
        if lock is not None:
            host["kvm_lock"] = lock
        doc = report.results_document(host, config, out_boots, self.worst)
        doc["kut"] = {"levels": levels, "differences": diffs,
                      "left_out": self.left_out, "unmeasured": absent,
                      "wanted": self.wanted, "look": self.look,
                      "looks_rounds": self.looks_rounds,
                      "vcpu_wait": self.waits,
                      "vmexit_counted": self.counted,
                      "vmexit_boots": self.windows}
        write_json(path, doc)
        return self.worst


def replay(args):
    """`kut --from FILE`: the table of a session's results.json."""
    try:
        doc = resultsfile.read_results(args.from_file)
    except UnusableInput as exc:
        raise TrapmeterError(exitstatus.UNUSABLE, str(exc)) from None
    boots = file_boots(doc)
    info = doc.get("kut") or {}
    names = replay_names(boots, args.cases, info)
    levels, diffs = kutcmp.rows(boots, names,
                                **kutcmp.backend(doc.get("host")))
    kutcmp.name_causes(diffs, doc["boots"])
    left_out = info.get("left_out") or {}
    absent = kutcmp.unmeasured(absent_names(replay_wanted(
        doc, args.cases), names, left_out), doc["boots"])
    sys.stdout.write(kut_table.render_side_by_side(
        levels, diffs, left_out, doc.get("host"),
        (doc.get("config") or {}).get("accel") or "?", absent,
        (doc.get("config") or {}).get("kut_dir"), saved_look(info),
        vmexit_boots(info), saved_rounds(info)))
    sys.stdout.write(kut_table.render_counted(info.get("vmexit_counted"),
                                              names))
    if args.coverage:
        sys.stdout.write("\n" + kut_table.render_coverage(kut_table.coverage(
            doc, kut_log.VMEXIT_NAMES), kut_log.VMEXIT_NAMES))
    return exitstatus.OK


def _tail(data, limit=300):
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) \
        else str(data or "")
    return " ".join(text.split())[-limit:] or "(nothing on stderr)"
