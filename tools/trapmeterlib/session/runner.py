"""The library runner: Runner boots one RunPlan (session/plan.py) and
returns each boot's result; it owns everything a boot needs beside the
guest: make, the accelerator choice, QEMU's files in a private temporary
directory, the host's KVM lock, the exit counters, the backend (testpmd
for vhost-user NICs) and QEMU itself.  What a boot found goes into a
RunRecord (session/record.py), the results.json being built; the
commands loop over plans through run_plan: `run` and `--repeat`, the
virtio matrix, the viommu sweep, and ab's boots (with its sessions,
sensitivity's and bisect's).

It prints nothing itself but through its Console: the "trapmeter: ..."
lines, the raw lines (guest problems, QEMU's stderr) and the status line,
so ab can keep a boot's words and show them only when the boot fails.

Size: one boot's steps (the host load, counters, backend checks, suite
hooks and the cross-checks of what the guest saw) are short functions
here, each used once per boot; splitting them off would pass the runner's
state through a second module."""

import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

from ..backends import testpmd
from ..counters import exitcount, perfcount, schedwait
from ..guest import ide, mmio, plan as sample_plan, qemu, suites, viommu, \
    virtio
from ..output import console as out_console, logfile, progress, report
from ..system import (children, envdiff, fingerprint, hostinfo, kvmlock,
                      pinning, privdir)
from ..values import exitstatus
from ..values.errors import OptionError, TrapmeterError
from ..values.exitstatus import Outcome, decide_boot
from .plan import user_words


@dataclass
class Console:
    """Where a run's words go: say ("trapmeter: ..."), tell (a raw line),
    the status line (progress.Progress) and whether -v is on."""
    say: Callable = out_console.say
    tell: Callable = out_console.tell
    status: Any = field(default_factory=progress.Progress)
    verbose: bool = False
    title: str = "run"
    started: float = field(default_factory=time.monotonic)

    @property
    def status_line(self):
        """A terminal without -v: one status line; else a line per suite
        (and per case with -v)."""
        return self.status.terminal and not self.verbose


@dataclass
class BootResult:
    """One boot: its status, the guest's dump (None when QEMU did not
    start) and QEMU's wall time."""
    outcome: Outcome
    dump: Any = None
    wall_s: Optional[float] = None


# ---------------------------------------------------------------- host steps

def build_targets(plan):
    """The make targets a run needs: the ELF, and the ISO only when it
    boots from it or suite ide attaches it as the CD (a newcomer's first
    `make run` then needs no GRUB, xorriso or mtools)."""
    words = ["suite=" + plan.suite] if plan.suite else []
    cd = ide.suite_selected(words) and not plan.no_ide_cd
    return ("elf", "iso") if plan.boot == "iso" or cd else ("elf",)


def ensure_built(root, targets=("all",), say=out_console.say):
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


def repo_root():
    """The repository root, derived from this file
    (tools/trapmeterlib/session/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.dirname(os.path.dirname(os.path.dirname(here)))


# ---------------------------------------------------------------- the runner

class Runner:
    """The boots of one plan into `record`; prepare() once, then boots()
    as a `with` block around boot(index) for each boot."""

    def __init__(self, plan, record, con=None):
        self.plan, self.record = plan, record
        self.con = con or Console(verbose=plan.verbose)
        self.cfg = None             # qemu.RunConfig, after prepare()
        self.argv = None            # QEMU's command line, inside boots()
        self.tmpdir = None
        self.count_exits = False
        self.perf_events = []
        self.suite_state = {}       # suite name -> what was prepared for it
        self.backend = None         # testpmd.Testpmd with vhost-user
        self.boot_label = ""        # "boot 2/3" with --repeat
        self.suite_marks = []       # (suite, seconds since QEMU started)
        self.cpus = None            # fingerprint.CpuSampler of the boot
        self.waits = None           # schedwait.WaitSampler of the boot

    # ------------------------------------------------ before the first boot

    def prepare(self, root=None):
        """Build, choose the accelerator and QEMU, resolve the kernel words
        and QEMU's configuration; the record's config and host filled."""
        plan, say, config = self.plan, self.con.say, self.record.config
        root = root or repo_root()
        if not plan.no_build:
            ensure_built(root, build_targets(plan), say)
        qemu_bin = resolve_qemu(plan.qemu)
        accel, flavour, why = choose_accel(plan.accel)
        say("accel %s%s: %s" % (accel, " (%s)" % flavour if flavour else "",
                                why))
        _say_accel_notes(plan, accel, flavour, say)
        config["firmware"] = plan.firmware
        count = self._decide_count_exits(accel)
        config["exit_counter"], self.perf_events = (
            self._decide_perf() if count else (None, []))
        words, notes = qemu.kernel_words(plan.suite, plan.case, plan.quick,
                                         " ".join(user_words(plan)),
                                         flavour if accel == "kvm" else None)
        firmware = plan.firmware
        if firmware == "auto":
            firmware = qemu.auto_firmware(
                plan.boot, words,
                pci_devices=bool(mmio.wanted(words, plan.mmio_devices)))
            config["firmware"] = firmware
        words = self._runner_words(words, count)
        for note in notes:
            say(note)
        cfg = qemu.RunConfig(repo_root=root, accel=accel, boot=plan.boot,
                             firmware=firmware, machine=plan.machine,
                             words=words, qemu=qemu_bin,
                             kernel_irqchip=plan.kernel_irqchip,
                             smp=qemu.smp_for(words, plan.smp))
        cfg.extra = (viommu.device_args(plan.viommu[0])
                     + mmio.device_args(words, plan.mmio_devices)
                     + list(plan.extra))    # boots() adds the NICs
        self.cfg, self.count_exits = cfg, count
        self._record_config(cfg, count)
        self._record_host(qemu_bin, accel, flavour)
        image = cfg.iso if cfg.boot == "iso" else cfg.elf
        if not os.path.exists(image):
            say("warning: %s does not exist (run make?)"
                % os.path.relpath(image, root))
        return cfg

    def _runner_words(self, words, count):
        if self.plan.rounds is not None:
            words.append("rounds=%d" % self.plan.rounds)
        if count:
            words.append("sync=on")
        words = qemu.runner_table_off(words)
        problem = qemu.cmdline_problem(words)
        if problem:
            raise OptionError(problem)
        return words

    def _record_config(self, cfg, count):
        plan, config, say = self.plan, self.record.config, self.con.say
        if cfg.smp > 1:
            say("-smp %d: a second vCPU for the cases that need one (%s)"
                % (cfg.smp, ", ".join(qemu.SMP_CASES)))
        config["smp"] = cfg.smp
        config["pin_cpus"] = list(plan.pin_cpus or [])
        config["nice"] = plan.nice
        if plan.pin_cpus:
            say("QEMU pinned to host CPU %s" % pinning.describe(plan.pin_cpus))
        config["count_exits"] = count
        config["plan"] = plan.plan
        config["viommu"] = plan.viommu[0]
        config["virtio"] = virtio.settings(plan)
        config.update(accel=cfg.accel, accel_requested=plan.accel,
                      cmdline=cfg.cmdline)

    def _record_host(self, qemu_bin, accel, flavour):
        host = hostinfo.host_info(qemu_bin, accel, flavour)
        host["fingerprint"] = fingerprint.collect(
            qemu_bin, version=host.get("qemu_version"))
        for seen in envdiff.noise(host["fingerprint"]):
            self.con.say("warning: noisy host: " + seen)
        self.record.host = host

    def _decide_count_exits(self, accel):
        """Count exits under KVM unless --no-count-exits; under TCG say once
        that there are none."""
        plan, say = self.plan, self.con.say
        if accel != "kvm":
            if plan.count_exits:
                say("--count-exits: " + exitcount.TCG_NOTE)
            return False
        if virtio.vhost_user(virtio.settings(plan)):
            if plan.count_exits:
                raise OptionError(virtio.VHOST_NO_SYNC)
            say("--virtio-backend vhost-user: not counting exits (" +
                virtio.VHOST_NO_SYNC_WHY + ")")
            return False
        return plan.count_exits is not False

    def _decide_perf(self):
        """(counter in use, tracepoints perf records): without perf, its
        tracepoints or the permission, QMP alone, said once."""
        if self.plan.exit_counter == "qmp":
            return "qmp", []
        events, why = perfcount.available()
        if not events:
            self.con.say("--exit-counter %s: %s; counting with QMP alone"
                         % (self.plan.exit_counter, why))
            return "qmp", []
        return self.plan.exit_counter, events

    # ------------------------------------------------ around the boots

    @contextlib.contextmanager
    def boots(self):
        """A private temporary directory with QEMU's files, the host's KVM
        lock, the NICs' backend and QEMU's command line, for the plan's
        boots; everything is removed or stopped however they end."""
        self.tmpdir = privdir.make()
        try:
            with self.con.status, self._kvm_lock():
                vconf = self.record.config.get("virtio")
                vdir = os.path.join(self.tmpdir, "vhost")
                if virtio.vhost_user(vconf):
                    self._start_backend(vconf, vdir)
                self.argv = self._argv(virtio.device_args(vconf, vdir))
                yield self
        finally:
            if self.backend is not None:
                self.backend.stop()
                self.backend = None
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    @contextlib.contextmanager
    def _kvm_lock(self):
        """Under KVM, the host's KVM lock for these boots and their backend
        (an ab session holds it already); results.json keeps the wait and
        any other QEMU seen running."""
        if self.cfg.accel != "kvm":
            yield
            return
        lock = contextlib.nullcontext(kvmlock.skipped()) if self.plan.no_lock \
            else kvmlock.held("trapmeter run", self.plan.lock_timeout,
                              self.con.say)
        with lock as held:          # kvmlock.LockTimeout: status 17
            self.record.host["kvm_lock"] = held
            for other in held["other_qemu"]:
                self.con.say("warning: another QEMU runs on this host (pid "
                             "%d, %s): it takes time from this measurement"
                             % (other["pid"], other["comm"]))
            yield

    def _start_backend(self, vconf, vdir):
        """testpmd with two vhost-user ports, ready before QEMU starts; its
        polling lcores keep off the CPUs QEMU is pinned to where they can."""
        self.backend = testpmd.Testpmd(vconf["testpmd"], vconf["testpmd_args"],
                                       vdir, self.con.say,
                                       avoid=self.plan.pin_cpus or ())
        try:
            self.backend.start()
        except testpmd.TestpmdError as exc:
            raise TrapmeterError(exc.code, exc.message)
        self.record.config["testpmd_argv"] = self.backend.argv

    def _argv(self, nics):
        """QEMU's command line: the files it reads prepared in the private
        directory (suite ide's disks, the sample plan, the QMP socket)."""
        plan, tmpdir = self.plan, self.tmpdir
        cfg = replace(self.cfg, extra=nics + list(self.cfg.extra))
        try:
            qemu.prepare_tmpdir(cfg, tmpdir)
            if ide.suite_selected(cfg.words):
                self.suite_state["ide"] = ide.prepare(
                    cfg, tmpdir, plan.ide_disk_bytes, plan.ide_readonly,
                    not plan.no_ide_cd)
        except ide.IdeOptionError as exc:
            raise OptionError(str(exc))
        except OSError as exc:
            # the file it names is the fault (a missing build/trapmeter.iso
            # for suite ide's CD), not the private directory
            raise TrapmeterError(exitstatus.QEMU_ERROR, "cannot prepare "
                                 "QEMU's files in %s: %s%s"
                                 % (tmpdir, exc.strerror or exc,
                                    ": %s" % exc.filename if exc.filename
                                    else ""))
        if self.count_exits and self.record.config["exit_counter"] != "perf":
            cfg.qmp_path = exitcount.qmp.socket_path(tmpdir)
        if "ide" in self.suite_state:
            cfg.extra = self.suite_state["ide"].qemu_args + list(cfg.extra)
        if plan.plan_entries:
            cfg.extra = sample_plan.qemu_args(plan.plan_entries, tmpdir) \
                + list(cfg.extra)
        self.cfg = cfg
        argv = qemu.build_argv(cfg, tmpdir)
        self.record.config["qemu_argv"] = argv
        if self.con.verbose:
            self.con.say("qemu: " + " ".join(shlex.quote(a) for a in argv))
        return argv

    # ------------------------------------------------ one boot

    def boot(self, index):
        """Run QEMU once, decide its status, record it and say why."""
        plan, record, say = self.plan, self.record, self.con.say
        timeout = plan.timeout or qemu.DEFAULT_TIMEOUT[self.cfg.accel]
        lpath = logfile.boot_path(plan.log, index, plan.repeat)
        try:
            log = logfile.AtomicLog(lpath) if lpath else None
        except OSError as exc:
            raise OptionError("cannot write --log %s: %s" % (lpath,
                                                              exc.strerror))
        counter = self._counter()
        self.suite_marks = []
        before = self._backend_stats("before boot %d" % (index + 1))
        record.booted = True
        load = self._boot_load()
        stderr_path = os.path.join(self.tmpdir, "qemu-stderr-%d.txt" % index)
        try:
            boot = qemu.run_boot(self.argv, timeout, stderr_path, log,
                                 self._on_record,
                                 counter.on_sync if counter else None,
                                 plan.pin_cpus, plan.nice)
        except qemu.QemuStartError as exc:
            outcome = Outcome(exitstatus.QEMU_ERROR, [str(exc)])
            record.boots.append(report.boot_entry(index, outcome, None, None,
                                                  None))
            self._report(outcome, None, "")
            return BootResult(outcome)
        finally:
            log_error = log.close() if log else None
            if counter:
                counter.close()
        self._log_error(boot, log_error, lpath)
        outcome = self._judge(boot, counter, timeout, before, index)
        entry = report.boot_entry(index, outcome, boot.dump, boot.wall_s,
                                  boot.rc, boot.stderr_text)
        for suite in suites.SUITES:
            entry.update(suite.boot_fields(boot.dump, record.config))
        entry.update(suite_times(self.suite_marks, boot.wall_s))
        entry.update(host_load=load, qemu_cpus=self.cpus.result())
        self.waits.finish()
        entry.update(vcpu_wait=self.waits.result())
        record.boots.append(entry)
        self._cross_checks(boot.dump)
        self._report(outcome, boot.dump, boot.stderr_text)
        if plan.repeat > 1:
            say("boot %d/%d: %s (%.1f s)" % (index + 1, plan.repeat,
                                             outcome.name, boot.wall_s))
        return BootResult(outcome, boot.dump, boot.wall_s)

    def _counter(self):
        """The boot's exit counter (QMP, with perf beside it), or None."""
        if not self.count_exits:
            return None
        if self.cfg.qmp_path:
            _remove_quietly(self.cfg.qmp_path)
        perf = perfcount.PerfCounter(self.tmpdir, self.perf_events,
                                     self.con.say) \
            if self.perf_events else None
        return exitcount.ExitCounter(self.cfg.qmp_path, self.con.say, perf)

    def _log_error(self, boot, log_error, lpath):
        if log_error and not boot.log_error:
            boot.log_error = log_error
        if boot.log_error:
            self.record.output_errors.append(lpath)
            self.con.say("error: cannot write --log %s: %s (logging stopped; "
                         "the run went on and its results are kept)"
                         % (lpath, boot.log_error))

    def _judge(self, boot, counter, timeout, before, index):
        """The boot's status: the guest's and QEMU's, the suites' own
        checks, the backend's counters."""
        count_boot_exits(counter, self.cfg, boot.dump)
        for suite in suites.SUITES:
            suite.annotate(boot.dump, self.record.config)
        outcome = decide_boot(boot.dump, boot.rc, boot.timed_out, timeout,
                              boot.fatal)
        for suite in suites.SUITES:
            failure = suite.after_boot(self.suite_state.get(suite.name),
                                       boot.dump)
            if failure and outcome.code == exitstatus.OK:
                outcome = Outcome(exitstatus.CHECK_FAILED, [failure])
        return self._backend_after_boot(before, boot.dump, outcome, index)

    def _cross_checks(self, dump):
        """Warnings when the guest saw other words, another firmware or
        another sample plan than the runner gave it."""
        say = self.con.say
        check_cmdline(dump, self.cfg, say)
        problem = firmware_problem(dump.run, self.cfg.firmware)
        if problem:
            say("warning: " + problem)
        for problem in sample_plan.deviations(self.plan.plan_entries or [],
                                              dump.results):
            say("warning: plan not followed: " + problem)

    def _report(self, outcome, dump, stderr_text):
        out_console.report_outcome(outcome, dump, stderr_text,
                                   self.con.verbose, self.con.say,
                                   self.con.tell)

    def _boot_load(self):
        """The load as the boot starts (warned when other processes run),
        and a fresh sampler of the CPUs QEMU runs on."""
        backend = self.backend.proc.pid if self.backend is not None \
            and self.backend.proc is not None else None
        load = fingerprint.load_at_start(own=[os.getppid(), backend])
        for seen in envdiff.noise(None, load):
            self.con.say("warning: noisy host: " + seen)
        self.cpus = fingerprint.CpuSampler(skip=[backend] if backend else ())
        self.waits = schedwait.WaitSampler(root_pid=os.getpid(),
                                           skip=[backend] if backend else ())
        return load

    def _backend_stats(self, when):
        """testpmd's port counters (None without a backend); a dead testpmd
        is a backend error."""
        if self.backend is None:
            return None
        try:
            self.backend.check_alive(when)
            return self.backend.stats()
        except testpmd.TestpmdError as exc:
            raise TrapmeterError(exc.code, exc.message)

    def _backend_after_boot(self, before, dump, outcome, index):
        """Cross-check testpmd's counters with the guest's; testpmd dying
        during the boot is the boot's status (backend-error)."""
        if self.backend is None:
            return outcome
        try:
            self.backend.check_alive("during boot %d" % (index + 1))
            after = self.backend.stats()
        except testpmd.TestpmdError as exc:
            return Outcome(exitstatus.BACKEND_ERROR,
                           [exc.message] + outcome.messages)
        if dump is None or not dump.started:
            return outcome
        check = testpmd.boot_check(before, after, dump)
        if not check["ok"]:
            check["testpmd_log_tail"] = self.backend.log_text()[-3000:]
        dump.checks.append(check)
        if not check["ok"] and outcome.code == exitstatus.OK:
            return Outcome(exitstatus.CHECK_FAILED,
                           ["vhost.testpmd_stats failed: " + check["detail"]])
        return outcome

    def _on_record(self, rec, elapsed):
        """Progress on stderr: on a terminal one status line (boot, time,
        the case running); else a line per suite, and per case with -v."""
        con, kind = self.con, rec.get("type")
        if self.cpus is not None and kind in ("suite", "case"):
            self.cpus.sample(elapsed)
        if self.waits is not None:
            self.waits.sample(rec, elapsed)
        if kind == "suite":
            self.suite_marks.append((str(rec.get("suite")), elapsed))
        if con.status_line and kind in ("suite", "case"):
            con.status.update(progress.status_text(
                con.title, self.boot_label, progress.elapsed_text(
                    time.monotonic() - con.started),
                "%s: %s" % (rec.get("suite"), rec.get("case") or "start")))
        elif kind == "suite":
            con.tell("[%5.1fs] suite %s" % (elapsed, rec.get("suite")))
        elif kind == "case" and con.verbose:
            con.tell("[%5.1fs] %s: %s" % (elapsed, rec.get("suite"),
                                          rec.get("case")))


def run_plan(plan, record, con=None, on_boot=None):
    """Boot `plan` --repeat times into `record` through one Runner; the
    worst status wins and a status of 2-7 stops the boots early.
    on_boot(runner, index, result), when given, sees each boot.  Returns
    (worst status, the boots' dumps)."""
    runner = Runner(plan, record, con)
    runner.prepare()
    worst, dumps = exitstatus.OK, []
    with runner.boots():
        for index in range(plan.repeat):
            if plan.repeat > 1:
                runner.boot_label = "boot %d/%d" % (index + 1, plan.repeat)
                if not runner.con.status_line:
                    runner.con.say(runner.boot_label)
            result = runner.boot(index)
            dumps.append(result.dump)
            if on_boot is not None:
                on_boot(runner, index, result)
            worst = max(worst, result.outcome.code)
            if result.outcome.code >= exitstatus.BAD_INPUT:
                if index + 1 < plan.repeat:
                    runner.con.say("stopping after boot %d/%d (status %s)"
                                   % (index + 1, plan.repeat,
                                      result.outcome.name))
                break
    return worst, dumps


def _say_accel_notes(plan, accel, flavour, say):
    if accel == "kvm" and flavour in hostinfo.SOFTWARE_FLAVOURS:
        say("warning: KVM flavour is %s: absolute cycle counts are not "
            "representative of hardware-virtualised (VT-x/AMD-V) hosts; "
            "ratios and exit counts are" % flavour)
    if plan.kernel_irqchip != "on":
        say({"off": "kernel-irqchip=off: the PIC/ELCR ports are handled by "
             "QEMU", "split": "kernel-irqchip=split: the local APIC is in "
             "KVM, the PIC, ELCR and I/O APIC in QEMU"}[plan.kernel_irqchip]
            if accel == "kvm" else "--kernel-irqchip applies to KVM only; "
            "ignored under TCG")


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


def check_cmdline(dump, cfg, say):
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
