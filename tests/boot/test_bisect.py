"""tests/boot/test_bisect.py - `trapmeter bisect` and `git bisect run
trapmeter bisect-step` under KVM on a 4-commit repository made by the
test (tests/boot/bisect_repo.py): commit 1 of 3 adds half of an exit to
QEMU to every exit to QEMU through the delay shim; bisect must name it
and confirm it, and git bisect run must end at it (about a minute).
The step is large so that every session decides at its first looks:
at 20 % of an exit the endpoint session took 37 boots a side and the
whole bisect 131 boots, 120 s; at half of one, 6 a side and 39 boots,
36 s (load 5-8).  The small steps are tests/acceptance/test_kvm_bisect.py's
(10 % of an exit, 17 commits).

What is asserted is a status, a named commit and what the result
records, never a time: under host load a session takes more boots and
a wall-time margin fails where the answer is right.  Bounds:
every session holds ab's family-wise alpha 0.05, so the in-kernel
control pio.kernel is flagged by chance in at most 5 % of runs, and a
wrong commit passes its confirmation in at most 5 %; the rate of a
wrong confirmed answer over simulated runs is tested on the host
(tests/host/test_bisect_confirm.py).  (The 17-commit versions with a
broken build, A/A endpoints and a phantom endpoint are
tests/acceptance/test_kvm_bisect.py.)  Skipped where KVM cannot create
a VM or the shim is not built."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.boot import bisect_repo
from tests.boot.common import ROOT, RUNNER, need_build, need_kvm

COMMITS, CHANGE, SHARE = 3, 1, 0.50
BUDGET = 240
CASES = ("--suite", "exits", "--case", "pio.*", "--cmdline", "controls=off")


def bisect(repo, out, budget, good, bad, *more):
    return subprocess.run(
        [RUNNER, "bisect", "--no-build", "--repo", repo, "--good", good,
         "--bad", bad, "--build", bisect_repo.BUILD,
         "--binary", bisect_repo.BINARY, "--budget", str(budget), "--out",
         out, "--accel", "kvm", *more],
        capture_output=True, text=True, timeout=budget * 3, cwd=ROOT)


def git_bisect_run(repo, hashes, reference, step_budget, cases=CASES):
    """`git bisect run tools/trapmeter bisect-step ...` between the first
    and last commit; returns git's output."""
    bisect_repo.git(repo, "bisect", "start", hashes[-1], hashes[0])
    try:
        proc = subprocess.run(
            ["git", "-C", repo, "bisect", "run", RUNNER, "bisect-step",
             "--no-build", "--repo", repo, "--good", hashes[0], "--build",
             bisect_repo.BUILD, "--binary", bisect_repo.BINARY,
             "--reference", reference, "--budget", str(step_budget),
             "--accel", "kvm", *cases],
            capture_output=True, text=True, timeout=1200)
    finally:
        subprocess.run(["git", "-C", repo, "bisect", "reset"],
                       capture_output=True)
    return proc


class KvmBisect(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf", "build/kvm_delay.so")
        cls.dir = tempfile.mkdtemp(prefix="tm-bisect-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.exit_ns = bisect_repo.exit_ns()
        cls.repo = os.path.join(cls.dir, "repo")
        cls.hashes = bisect_repo.make(cls.repo, COMMITS, CHANGE,
                                      int(cls.exit_ns * SHARE))
        cls.out = os.path.join(cls.dir, "out")
        cls.proc = bisect(cls.repo, cls.out, BUDGET, cls.hashes[0],
                          cls.hashes[-1], *CASES)
        with open(os.path.join(cls.out, "bisect.json")) as fh:
            cls.doc = json.load(fh)

    def describe(self):
        return self.proc.stdout[-3000:] + self.proc.stderr[-3000:]

    def test_names_the_commit(self):
        self.assertEqual(self.proc.returncode, 0, self.describe())
        self.assertEqual(self.doc["result"]["first_bad"], self.hashes[CHANGE])
        self.assertIn("first bad commit %s" % self.hashes[CHANGE][:12],
                      self.proc.stdout)
        self.assertEqual(self.doc["budget_s"], BUDGET)
        self.assertFalse(self.doc["budget_exhausted"], self.describe())

    def test_steps_and_shift_recorded(self):
        steps = self.doc["steps"]
        self.assertGreaterEqual(len(steps), 1)
        for step in steps:
            self.assertIn(step["verdict"], ("good", "bad", "skip"))
            self.assertIn("boots", step)
        ends = self.doc["endpoints"]
        self.assertEqual(self.doc["boots"], sum(s["boots"] for s in steps)
                         + sum(ends["boots"]) + ends["planning_boots"]
                         + self.doc["confirmation"]["boots"])
        self.assertEqual(self.doc["confirmation"]["status"], "confirmed")
        user = [r for r in self.doc["flagged"] if r["case"] == "pio.user"]
        self.assertTrue(user, self.doc["flagged"])
        for row in self.doc["flagged"]:
            self.assertNotEqual(row["case"], "pio.kernel")  # KVM answers it
            self.assertGreater(row["slowdown_undisturbed"], 1.0)

    def test_results_carry_the_fingerprint(self):
        with open(os.path.join(self.out, "endpoints-b.json")) as fh:
            doc = json.load(fh)
        fp = doc["host"]["fingerprint"]
        self.assertEqual(fp["qemu"]["kind"], "script")     # the wrapper
        self.assertIn("vulnerabilities", fp)
        self.assertIn("running_others", doc["boots"][0]["host_load"])
        self.assertTrue(doc["boots"][0]["qemu_cpus"]["cpus"])

    def test_git_bisect_run_ends_at_the_commit(self):
        proc = git_bisect_run(self.repo, self.hashes,
                              os.path.join(self.out, "bisect.json"), 60)
        self.assertIn("%s is the first bad commit" % self.hashes[CHANGE],
                      proc.stdout, proc.stdout[-3000:] + proc.stderr[-3000:])


class TcgBisect(unittest.TestCase):
    """The whole pipeline without KVM: 5 commits, from commit 3 on QEMU
    traces every fw_cfg read (several times slower), commit 1 does not
    build; about a minute."""

    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        qemu = shutil.which("qemu-system-x86_64")
        if not qemu or "fw_cfg_read" not in subprocess.run(
                [qemu, "-trace", "help"], capture_output=True,
                text=True).stdout:
            raise unittest.SkipTest("QEMU has no fw_cfg_read trace event")
        cls.dir = tempfile.mkdtemp(prefix="tm-bisect-tcg-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.repo = os.path.join(cls.dir, "repo")
        cls.hashes = bisect_repo.make(cls.repo, 5, 3, 1, broken={1},
                                      template=bisect_repo.TRACE_BUILD_SH)
        cls.out = os.path.join(cls.dir, "out")
        cls.proc = subprocess.run(
            [RUNNER, "bisect", "--no-build", "--repo", cls.repo, "--good",
             cls.hashes[0], "--bad", cls.hashes[-1], "--build",
             bisect_repo.BUILD, "--binary", bisect_repo.BINARY, "--budget",
             "90", "--out", cls.out, "--accel", "tcg", "--suite", "pio",
             "--case", "fwcfg.in8.single.512"],
            capture_output=True, text=True, timeout=400, cwd=ROOT)

    def test_names_the_commit(self):
        with open(os.path.join(self.out, "bisect.json")) as fh:
            doc = json.load(fh)
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout[-3000:]
                         + self.proc.stderr[-3000:])
        self.assertEqual(doc["result"]["first_bad"], self.hashes[3])
        verdicts = {s["commit"]: s["verdict"] for s in doc["steps"]}
        self.assertEqual(verdicts.get(self.hashes[2]), "good")
        if self.hashes[1] in verdicts:
            self.assertEqual(verdicts[self.hashes[1]], "skip")

    def test_nothing_flagged_refused(self):
        # good against itself: the A/A session flags nothing
        proc = subprocess.run(
            [RUNNER, "bisect", "--no-build", "--repo", self.repo, "--good",
             self.hashes[0], "--bad", self.hashes[2], "--build",
             bisect_repo.BUILD, "--binary", bisect_repo.BINARY,
             "--max-boots", "6", "--out", os.path.join(self.dir, "aa"),
             "--accel", "tcg", "--suite", "pio", "--case",
             "fwcfg.in8.single.512"],
            capture_output=True, text=True, timeout=300, cwd=ROOT)
        self.assertEqual(proc.returncode, 15, proc.stderr[-2000:])
        self.assertIn("nothing-flagged", proc.stderr)


if __name__ == "__main__":
    unittest.main()
