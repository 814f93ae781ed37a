"""tests/host/test_bisect_cmd.py - `trapmeter bisect` and `bisect-step`
without boots: how a binary reaches ab's sides (--binary-as), the step
session's cases, metrics and thresholds, the refusals before any boot, and
bisect-step's exit statuses for git bisect run (a failure must be 128, never
1-127, which git reads as "bad")."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import ab as ab_cmd  # noqa: E402
from trapmeterlib.commands import bisect as bisect_cmd  # noqa: E402
from trapmeterlib.cli import build_parser  # noqa: E402

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
        with tempfile.TemporaryDirectory() as out:
            args = bisect_args(out, "--binary-as", "bios", "--threshold", "1",
                               "--metrics", "cycles_per_op,exits_per_op",
                               "--max-boots", "8", *words)
            cfg = bisect_cmd.ab_config(
                args, "step-01", "/g/bios", "/s/bios", 30.0, [],
                (["pio.user"], {"cycles_per_op"}, {"cycles_per_op": 0.0247}))
        self.assertIsInstance(cfg, ab_cmd.SessionConfig)
        self.assertEqual(cfg.metrics, ["cycles_per_op"])
        self.assertEqual(cfg.thresholds, {"*": 0.01, "cycles_per_op": 0.0247})
        self.assertEqual((cfg.budget, cfg.max_boots), (30.0, 8))
        self.assertEqual(cfg.outputs.json, os.path.join(out, "step-01-verdicts.json"))
        self.assertEqual(cfg.a_json, os.path.join(out, "step-01-a.json"))
        # the bios is a QEMU argument of each side; the focus picks the case
        self.assertEqual(cfg.sides["a"][1], ["-bios", "/g/bios"])
        self.assertEqual(cfg.sides["b"][1], ["-bios", "/s/bios"])
        self.assertEqual(cfg.sides["b"][0][-2:], ["--case", "pio.user"])

    def test_endpoint_session_takes_the_user_options(self):
        with tempfile.TemporaryDirectory() as out:
            args = bisect_args(out, "--seed", "7", "--looks", "3")
            cfg = bisect_cmd.ab_config(args, "endpoints", "/g/qemu",
                                       "/b/qemu", None, ["-m", "512"])
        self.assertEqual((cfg.seed, cfg.looks), (7, 3))
        words = cfg.sides["b"][0]
        self.assertEqual(words[words.index("--qemu") + 1], "/b/qemu")
        self.assertEqual(cfg.sides["a"][1], ["-m", "512"])
        self.assertIn("sentinel list", cfg.case_list)


def bisect_args(out, *words):
    """`trapmeter bisect` options as the CLI parses and validates them."""
    argv = ["bisect", "--good", "g", "--bad", "b", "--build", "true",
            "--binary", "q", "--out", out] + list(words)
    args, unknown = build_parser().parse_known_args(argv)
    args.run_options = unknown
    bisect_cmd.validate(args)
    return args


ROW = {"suite": "pio", "case": "pio.user", "metric": "cycles_per_op",
       "verdict": "regression", "boots": [5, 5], "notes": []}


class Summary(unittest.TestCase):
    """bisect's shift lines go through the figure rule."""

    def test_measured_ratio_with_interval(self):
        line = bisect_cmd.shift_line("good vs bad", dict(
            ROW, ratio=1.05, ci95=[1.04, 1.06], slowdown_undisturbed=1.051))
        self.assertIn("ratio 1.0500 [95 % CI 1.0400, 1.0600]", line)
        self.assertIn("undisturbed boots x1.0510", line)

    def test_missing_and_negative_figures_not_resolved(self):
        line = bisect_cmd.shift_line("good vs bad", dict(
            ROW, ratio=None, ci95=[None, None], slowdown_undisturbed=-0.5,
            notes=["too few boots"]))
        self.assertIn("ratio not resolved (the session gave no ratio "
                      "(too few boots))", line)
        self.assertIn("undisturbed boots not resolved (estimate at or below "
                      "zero)", line)
        self.assertNotIn("-0.5", line)
        self.assertNotIn(" - ", line)

    def test_exit_rows_have_no_interval_and_no_undisturbed(self):
        line = bisect_cmd.shift_line("good vs bad", dict(
            ROW, metric="exits_per_op", ratio=2.0, ci95=[None, None],
            slowdown_undisturbed=None))
        self.assertTrue(line.endswith("ratio 2.0000"), line)


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
