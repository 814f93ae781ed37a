"""tests/boot/test_hardening.py - issue 12's guest-side checks, under TCG
with direct boot (each boot well under a few seconds):

- a case= glob that matches nothing is bad input, naming the glob;
- a command line the guest would cut is refused by the guest itself;
- the REP cases execute string instructions, and none under rep=off (the
  guest counts what it ran: string_instrs);
- the TSC frequency's source is a trusted one, named in the table header,
  and cross-checked against the ACPI PM timer over >= 50 ms;
- the run's status is sealed in a counted record (schema 2);
- SIGKILL of the runner takes the real QEMU with it.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests.boot.common import ROOT, RUNNER, need_build, pid_gone, run

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.guest import qemu  # noqa: E402
from trapmeterlib.output import report  # noqa: E402

QUICK = ("--accel", "tcg", "--quick")
REP_CASES = "port80.out16.*.512,acpi.tmr.in32.*.512,fwcfg.in8.*.4096"


class CaseGlobs(unittest.TestCase):

    def setUp(self):
        need_build(self, "build/trapmeter.elf")

    def test_glob_matching_nothing_is_bad_input(self):
        b = run(*QUICK, "--suite", "pio", "--case", "fwcfg.in9.*")
        self.assertEqual(b.status, 2, b.describe())
        self.assertIn("case=fwcfg.in9.* matches no case of the selected "
                      "suites (close: fwcfg.in", b.stderr)
        self.assertIn("bad-input", b.serial)

    def test_one_bad_glob_among_good_ones(self):
        b = run(*QUICK, "--suite", "exits", "--case", "cpuid,nosuch*",
                "--cmdline", "samples=3")
        self.assertEqual(b.status, 2, b.describe())
        self.assertIn("case=nosuch* matches no case", b.stderr)
        self.assertEqual([r["case"] for r in b.boot["results"]], ["cpuid"])

    def test_matching_globs_are_fine(self):
        b = run(*QUICK, "--suite", "exits", "--case", "cpu?d",
                "--cmdline", "samples=3")
        self.assertEqual(b.status, 0, b.describe())

    def test_the_most_globs_in_the_longest_line_are_kept_whole(self):
        # `kut` narrows a boot to many rows' twins: 32 globs, the line
        # near the guest's 511 bytes, and the run record carries it whole
        globs = ",".join(["cpuid", "pio.kernel"] + ["cpu?d*" + "*" * (k % 14)
                                                     for k in range(30)])
        b = run(*QUICK, "--suite", "exits", "--case", globs,
                "--cmdline", "samples=3 budget_ms=10 verbose=off rep=on")
        self.assertEqual(b.status, 0, b.describe())
        line = b.boot["run"]["cmdline"]
        self.assertGreater(len(line), 480, line)
        self.assertIn("case=" + globs + " ", line)
        cases = {r["case"] for r in b.boot["results"]}
        self.assertEqual(cases & {"cpuid", "pio.kernel"},
                         {"cpuid", "pio.kernel"})


class CutCommandLine(unittest.TestCase):
    """The runner refuses long lines (tests/host/test_hostile.py); a line
    that reaches the guest some other way is refused there."""

    def test_guest_refuses_a_line_it_would_cut(self):
        need_build(self, "build/trapmeter.elf")
        words = ["suite=exits"] + ["samples=%d" % (10 + i % 90)
                                   for i in range(100)] + ["bogus=1"]
        self.assertIsNotNone(qemu.cmdline_problem(words))
        with tempfile.TemporaryDirectory(prefix="tm-cut-") as tmp:
            cfg = qemu.RunConfig(repo_root=ROOT, accel="tcg", words=words)
            qemu.prepare_tmpdir(cfg, tmp)
            argv = qemu.build_argv(cfg, tmp)
            boot = qemu.run_boot(argv, 60, os.path.join(tmp, "err.txt"))
        self.assertEqual(boot.dump.end_status, "bad-input")
        message = boot.dump.errors[0]["message"]
        self.assertIn("command line longer than 511 bytes (fw_cfg)", message)
        self.assertNotIn("bogus", message)


class RepExecuted(unittest.TestCase):
    """What the guest executed: every REP case ran at least one string
    instruction per operation; rep=off and single cases ran none."""

    def setUp(self):
        need_build(self, "build/trapmeter.elf")

    def boot(self, *extra):
        b = run(*QUICK, "--suite", "pio", "--case", REP_CASES,
                "--cmdline", " ".join(("samples=3",) + extra))
        self.assertEqual(b.status, 0, b.describe())
        return b.boot["results"]

    def test_rep_cases_execute_string_instructions(self):
        results = self.boot()
        reps = [r for r in results if r["method"] == "rep"]
        self.assertEqual(len(reps), 3, [r["case"] for r in results])
        for r in results:
            if r["method"] == "rep":
                self.assertEqual(r["rep_impl"], "rep")
                self.assertGreaterEqual(r["string_instrs"],
                                        r["samples"] * r["iters"], r["case"])
            elif r["method"] == "single":
                self.assertEqual(r["string_instrs"], 0, r["case"])

    def test_rep_off_executes_none(self):
        results = self.boot("rep=off")
        reps = [r for r in results if r["method"] == "rep"]
        self.assertEqual(len(reps), 3)
        for r in reps:
            self.assertEqual(r["rep_impl"], "loop")
            self.assertEqual(r["string_instrs"], 0, r["case"])


class TscSource(unittest.TestCase):

    def test_trusted_source_named_and_cross_checked(self):
        need_build(self, "build/trapmeter.elf")
        b = run(*QUICK, "--suite", "exits", "--case", "cpuid",
                "--cmdline", "samples=3")
        self.assertEqual(b.status, 0, b.describe())
        run_line = next(json.loads(l[4:]) for l in b.serial.splitlines()
                        if l.startswith('@tm {"type":"run"'))
        tsc = run_line["tsc"]
        self.assertIn(tsc["source"], ("cpuid15", "hv-leaf", "kvmclock", "pit"))
        self.assertIs(tsc["guess"], False)
        check = tsc["check"]
        self.assertEqual(check["source"], "acpi-pm")
        self.assertGreaterEqual(check["ms"], 50)
        self.assertGreater(check["khz"], 0)
        # the two figures describe the same TSC (a loaded host moves the
        # PIT's by tens of percent, never by a factor)
        self.assertLess(abs(check["diff_ppm"]), 500000)
        self.assertIn("tsc %s %d kHz (pm-timer " % (tsc["source"], tsc["khz"]),
                      b.stdout)


class SealedStatus(unittest.TestCase):

    def test_failed_check_is_sealed_and_exits_1(self):
        need_build(self, "build/trapmeter.elf")
        b = run(*QUICK, "--suite", "exits", "--case", "cpuid",
                "--cmdline", "samples=3 fail_check=on")
        self.assertEqual(b.status, 1, b.describe())
        lines = [l for l in b.serial.splitlines() if l.startswith("@tm ")]
        status = json.loads(lines[-2][4:])
        end = json.loads(lines[-1][4:])
        self.assertEqual((status["type"], status["status"],
                          status["checks_failed"]), ("status", "check-failed", 1))
        self.assertEqual((end["type"], end["status"], end["lines"]),
                         ("end", "check-failed", len(lines) - 1))
        self.assertEqual(b.results["schema"], report.RESULTS_SCHEMA)


class KilledRunner(unittest.TestCase):

    def test_sigkill_takes_qemu_along(self):
        need_build(self, "build/trapmeter.elf")
        with tempfile.TemporaryDirectory(prefix="tm-kill-") as tmp:
            runner = subprocess.Popen(
                [RUNNER, "run", "--no-build", "--accel", "tcg", "--suite",
                 "pio", "--cmdline", "budget_ms=600000 samples=10000",
                 "--json", os.path.join(tmp, "r.json")],
                cwd=ROOT, env=dict(os.environ, TMPDIR=tmp),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                qemu_pid = self.wait_for_child(runner.pid)
                # inside the first (long, silent) case: QEMU writes nothing
                # for minutes, so no SIGPIPE would end it either
                time.sleep(2)
            finally:
                runner.send_signal(signal.SIGKILL)
                runner.wait()
            gone = pid_gone(qemu_pid, 3)
            if not gone:
                os.kill(qemu_pid, signal.SIGKILL)
            self.assertTrue(gone, "QEMU outlived the runner")

    @staticmethod
    def wait_for_child(pid, within_s=20):
        end = time.monotonic() + within_s
        while time.monotonic() < end:
            try:
                with open("/proc/%d/task/%d/children" % (pid, pid)) as fh:
                    kids = fh.read().split()
            except FileNotFoundError:
                kids = []
            for kid in kids:        # not `qemu --version` of host_info()
                try:
                    with open("/proc/%s/cmdline" % kid, "rb") as fh:
                        if b"-nodefaults" in fh.read():
                            return int(kid)
                except FileNotFoundError:
                    pass
            time.sleep(0.05)
        raise AssertionError("the runner started no QEMU")
