"""tests/host/test_bisect_cmd.py - `trapmeter bisect` and `bisect-step`
without boots: how a binary reaches ab's sides (--binary-as), the step
session's cases, metrics and thresholds, the refusals before any boot, and
bisect-step's exit statuses for git bisect run (a failure must be 128, never
1-127, which git reads as "bad")."""
import argparse
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import ab as ab_cmd  # noqa: E402
from trapmeterlib.commands import bisect as bisect_cmd  # noqa: E402

RUNNER = os.path.join(ROOT, "tools", "trapmeter")


def trapmeter(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True,
                          timeout=60)


class Sides(unittest.TestCase):
    def test_binary_as(self):
        self.assertEqual(bisect_cmd.side_args("qemu", "/x/q"), ("/x/q", ""))
        self.assertEqual(bisect_cmd.side_args("bios", "/x/OVMF 1.fd"),
                         (None, "-- -bios '/x/OVMF 1.fd'"))
        self.assertEqual(bisect_cmd.side_args("testpmd", "/x/t"),
                         (None, "--testpmd /x/t"))

    def test_step_session_focus(self):
        words = ["--accel", "kvm", "--case", "a,b,c", "--case=d", "--suite", "pio"]
        self.assertEqual(bisect_cmd.case_words(words, ["b", "c"]),
                         ["--accel", "kvm", "--suite", "pio", "--case", "b,c"])
        args = argparse.Namespace(out="/o", binary_as="bios", threshold=["1"],
                                  run_options=words, metrics="cycles_per_op,exits_per_op")
        ns = bisect_cmd.ab_session_args(
            args, "step-01", "/g/bios", "/s/bios", 30.0,
            (["pio.user"], {"cycles_per_op"}, {"cycles_per_op": 0.0247}))
        self.assertEqual((ns.a_qemu, ns.b_qemu), (None, None))
        self.assertEqual(ns.a_args, "-- -bios /g/bios")
        self.assertEqual(ns.metrics, "cycles_per_op")
        self.assertEqual(ns.threshold, ["1", "cycles_per_op=2.47"])
        self.assertEqual(ns.run_options[-2:], ["--case", "pio.user"])
        self.assertEqual((ns.budget, ns.no_build), (30.0, True))
        # what ab itself makes of the sides: the bios is a QEMU argument
        sides = ab_cmd.side_words(ns, ns.run_options, [])
        self.assertEqual(sides["b"][1], ["-bios", "/s/bios"])


class Refusals(unittest.TestCase):
    def test_bisect_bad_revision_named(self):
        with tempfile.TemporaryDirectory() as repo:
            subprocess.run(["git", "-C", repo, "init", "-q"], check=True)
            proc = trapmeter("bisect", "--repo", repo, "--good", "v1", "--bad",
                             "v2", "--build", "true", "--binary", "b",
                             "--no-build")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("v1: not a commit", proc.stderr)

    def test_binary_outside_checkout_refused(self):
        proc = trapmeter("bisect", "--good", "a", "--bad", "b", "--build",
                         "true", "--binary", "/usr/bin/qemu")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("a path inside the checkout", proc.stderr)

    def test_ab_options_bisect_sets_are_refused(self):
        proc = trapmeter("bisect", "--good", "a", "--bad", "b", "--build",
                         "true", "--binary", "b", "--a-qemu", "x")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("set by bisect itself", proc.stderr)


class StepStatus(unittest.TestCase):
    def test_failures_are_128(self):
        for args in (["--build", "true", "--binary", "x"],       # no --good
                     ["--bogus"],
                     ["--good", "HEAD", "--build", "true", "--binary", "x",
                      "--repo", "/nonexistent-dir"]):
            proc = trapmeter("bisect-step", *args)
            self.assertEqual(proc.returncode, 128, (args, proc.stderr))
            self.assertIn("git bisect run stops", proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)

    def test_build_failure_is_125(self):
        with tempfile.TemporaryDirectory() as repo:
            env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
            for words in (["init", "-q"], ["commit", "-q", "--allow-empty",
                                           "-m", "c0"]):
                subprocess.run(["git", "-C", repo, *words], check=True, env=env)
            proc = trapmeter("bisect-step", "--repo", repo, "--no-build",
                             "--good-binary", "/bin/true", "--build", "exit 3",
                             "--binary", "out/qemu")
        self.assertEqual(proc.returncode, 125, proc.stderr)
        self.assertIn("build failed", proc.stderr)


if __name__ == "__main__":
    unittest.main()
