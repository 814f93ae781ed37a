"""tests/host/test_bisect_cmd.py - `trapmeter bisect` and `bisect-step`
without boots: how a binary reaches ab's sides (--binary-as), the step
session's cases, metrics and thresholds, the refusals before any build or
boot, bisect-step's exit statuses for git bisect run (a failure must be
128, never 1-127, which git reads as "bad"), and that neither ever touches
what it does not own (the user's checkout, files outside the worktrees),
on scratch git repositories whose builds fail (so nothing boots)."""
import argparse
import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import ab_config, ab_rounds  # noqa: E402
from trapmeterlib.commands import bisect as bisect_cmd  # noqa: E402
from trapmeterlib.commands import bisect_out  # noqa: E402
from trapmeterlib.output import bisect_text  # noqa: E402
from trapmeterlib.commands.common import (  # noqa: E402
    OptionError, TrapmeterError)
from trapmeterlib.cli import build_parser  # noqa: E402
from tests.host import incli  # noqa: E402

RUNNER = os.path.join(ROOT, "tools", "trapmeter")
GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")


def spawn(*args, cwd=None):
    """tools/trapmeter as a process: for what only the process shows (its
    exit status as git bisect run reads it); the rest run in this process
    (trapmeter(), tests/host/incli.py)."""
    return subprocess.run([RUNNER, *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def trapmeter(*args, cwd=None):
    """`trapmeter ARGS` run by cli.main in this process."""
    return incli.run(args, cwd=cwd)


def git(repo, *words):
    return subprocess.run(["git", "-C", repo, *words], check=True,
                          env=GIT_ENV, capture_output=True,
                          text=True).stdout.strip()


# the scratch repositories made once (made_repo): {kind: (path, hashes)}
MADE = {}


def tearDownModule():
    for path, _hashes in MADE.values():
        shutil.rmtree(os.path.dirname(path), True)


def made_repo(path, kind="repo"):
    """At `path`, a copy of the scratch repository (scratch_repo) or, for
    kind "user", of a clone of it; made once, copied for each test (a
    copy keeps its commits' hashes).  Returns the hashes."""
    if kind not in MADE:
        if "repo" not in MADE:
            top = tempfile.mkdtemp(prefix="tm-bisect-made-")
            MADE["repo"] = (os.path.join(top, "repo"), scratch_repo(
                os.path.join(top, "repo")))
        origin, hashes = MADE["repo"]
        user = os.path.join(os.path.dirname(origin), "user")
        git(os.path.dirname(origin), "clone", "-q", origin, user)
        MADE["user"] = (user, hashes)
    source, hashes = MADE[kind]
    shutil.copytree(source, path, symlinks=True)
    return list(hashes)


def scratch_repo(path, commits=3):
    """A repository of `commits` commits (a tracked build.sh and src/f,
    out/ ignored); their hashes, oldest first."""
    os.makedirs(os.path.join(path, "src"))
    git(path, "init", "-q")
    with open(os.path.join(path, "build.sh"), "w") as fh:
        fh.write("mkdir -p out && cp src/f out/qemu\n")
    with open(os.path.join(path, ".gitignore"), "w") as fh:
        fh.write("out/\n")
    hashes = []
    for i in range(commits):
        with open(os.path.join(path, "src", "f"), "w") as fh:
            fh.write("%d\n" % i)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "c%d" % i)
        hashes.append(git(path, "rev-parse", "HEAD"))
    return hashes


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
        self.assertIsInstance(cfg, ab_config.SessionConfig)
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


class SessionResults(unittest.TestCase):
    """A session that leaves no usable results (a full disk, a killed
    side) is a named error, which a step turns into a skip."""

    def test_missing_results_named(self):
        with tempfile.TemporaryDirectory() as out:
            args = bisect_args(out)
            real = ab_rounds.run_session
            ab_rounds.run_session = lambda cfg: 0      # writes nothing
            try:
                with self.assertRaises(TrapmeterError) as cm:
                    bisect_cmd.session(args, "step-01", "/g/q", "/s/q", None,
                                       [])
                work = bisect_cmd.Bisect(args, [], [("g", ""), ("b", "")])
                work.build = lambda tree, rev, label: ("/s/q", None)
                work.good_bin, work.focus = "/g/q", None
                verdict, detail = work.judge("c1", None)
            finally:
                ab_rounds.run_session = real
        self.assertEqual(cm.exception.code, 11)
        self.assertIn("session step-01 left no usable results",
                      cm.exception.message)
        self.assertEqual(verdict, "skip")
        self.assertIn("session failed", detail["reason"])


def bisect_args(out, *words):
    """The plan of `trapmeter bisect` options as the CLI parses them."""
    argv = ["bisect", "--good", "g", "--bad", "b", "--build", "true",
            "--binary", "q", "--out", out] + list(words)
    args, unknown = build_parser().parse_known_args(argv)
    return bisect_cmd.validate(argparse.Namespace(
        **dict(vars(args), run_options=unknown)))


ROW = {"suite": "pio", "case": "pio.user", "metric": "cycles_per_op",
       "verdict": "regression", "boots": [5, 5], "notes": []}


class Summary(unittest.TestCase):
    """bisect's shift lines go through the figure rule."""

    def test_measured_ratio_with_interval(self):
        line = bisect_text.shift_line("good vs bad", dict(
            ROW, ratio=1.05, ci95=[1.04, 1.06], slowdown_undisturbed=1.051))
        self.assertIn("ratio 1.0500 [interval at 95 % 1.0400, 1.0600]", line)
        self.assertIn("undisturbed boots x1.0510", line)

    def test_the_decided_shift_with_its_level(self):
        # a row as compare writes it now: the test's shift is the ratio,
        # its interval at the test's level; no second figure beside it
        line = bisect_text.shift_line("good vs bad", dict(
            ROW, ratio=1.051, interval=[1.03, 1.07], interval_level=0.9933,
            estimator="undisturbed means", slowdown_undisturbed=1.051))
        self.assertIn("ratio 1.0510 [interval at 99.3 % 1.0300, 1.0700]", line)
        self.assertNotIn("undisturbed boots", line)

    def test_missing_and_negative_figures_not_resolved(self):
        line = bisect_text.shift_line("good vs bad", dict(
            ROW, ratio=None, ci95=[None, None], slowdown_undisturbed=-0.5,
            notes=["too few boots"]))
        self.assertIn("ratio not resolved (the session gave no ratio "
                      "(too few boots))", line)
        self.assertIn("undisturbed boots not resolved (estimate at or below "
                      "zero)", line)
        self.assertNotIn("-0.5", line)
        self.assertNotIn(" - ", line)

    def test_exit_rows_have_no_interval_and_no_undisturbed(self):
        line = bisect_text.shift_line("good vs bad", dict(
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
        for run, args in (
                (trapmeter, ["--build", "true", "--binary", "x"]),  # no --good
                (spawn, ["--bogus"]),
                (trapmeter, ["--good", "HEAD", "--build", "true", "--binary",
                             "x", "--repo", "/nonexistent-dir"])):
            proc = run("bisect-step", *args)
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
            proc = spawn("bisect-step", "--repo", repo, "--no-build",
                         "--good-binary", "/bin/true", "--build", "exit 3",
                         "--binary", "out/qemu")
        self.assertEqual(proc.returncode, 125, proc.stderr)
        self.assertIn("build failed", proc.stderr)


@unittest.skipUnless(shutil.which("git"), "git not installed")
class NeverTouches(unittest.TestCase):
    """issue 33's data-destroying probes: bisect and bisect-step never
    check out, build in or delete from anything but worktrees git
    confirms as their own."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tm-bisect-own-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.origin = os.path.join(self.dir, "origin")
        self.hashes = made_repo(self.origin)
        # the user's own checkout, with an uncommitted edit
        self.user = os.path.join(self.dir, "user")
        made_repo(self.user, "user")
        self.branch = git(self.user, "symbolic-ref", "HEAD")
        with open(os.path.join(self.user, "src", "f"), "a") as fh:
            fh.write("edit\n")

    def assert_checkout_untouched(self):
        self.assertEqual(git(self.user, "symbolic-ref", "HEAD"), self.branch)
        self.assertEqual(git(self.user, "rev-parse", "HEAD"), self.hashes[-1])
        with open(os.path.join(self.user, "src", "f")) as fh:
            self.assertEqual(fh.read(), "2\nedit\n")
        self.assertEqual(git(self.user, "status", "--porcelain",
                             "--untracked-files=no"), "M src/f")

    def bisect(self, *more):
        return trapmeter("bisect", "--no-build", "--repo", ".", "--good",
                         self.hashes[0], "--bad", self.hashes[-1], "--build",
                         "exit 1", "--binary", "out/qemu", *more,
                         cwd=self.user)

    def test_leftover_plain_tree_in_default_place(self):
        # the probe: a plain bisect/trees/good (no .git) in the
        # checkout; the old default --out was ./bisect
        os.makedirs(os.path.join(self.user, "bisect", "trees", "good"))
        proc = self.bisect()
        self.assert_checkout_untouched()
        self.assertEqual(proc.returncode, 15, proc.stderr)
        self.assertIn("does not build", proc.stderr)
        # the default --out is beside the repository, not in it
        self.assertTrue(os.path.isdir(self.user + "-bisect"))
        self.assertFalse(os.path.exists(os.path.join(self.user, "bisect",
                                                     "build-good.log")))

    def test_leftover_plain_tree_in_out_refused_by_name(self):
        stale = os.path.join(self.user, "bisect", "trees", "good")
        os.makedirs(stale)
        with open(os.path.join(self.user, "bisect",
                               bisect_out.OUT_MARK), "w") as fh:
            fh.write("\n")
        proc = self.bisect("--out", "bisect")
        self.assert_checkout_untouched()
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("%s exists but git does not know it as a worktree"
                      % os.path.realpath(stale), proc.stderr)
        self.assertTrue(os.path.isdir(stale))       # not ours: left alone

    def test_stale_worktree_of_ours_is_replaced(self):
        out = os.path.join(self.dir, "out")
        os.makedirs(os.path.join(out, "trees"))
        open(os.path.join(out, bisect_out.OUT_MARK), "w").close()
        stale = os.path.join(out, "trees", "step")
        git(self.user, "worktree", "add", "-q", "--detach", stale,
            self.hashes[1])
        with open(os.path.join(stale, "leftover"), "w") as fh:
            fh.write("x\n")
        proc = self.bisect("--out", out)
        self.assertEqual(proc.returncode, 15, proc.stderr)
        self.assertFalse(os.path.exists(stale))
        self.assertNotIn(os.path.realpath(stale),
                         git(self.user, "worktree", "list"))
        self.assert_checkout_untouched()

    def test_binary_climbing_out_deletes_nothing(self):
        out = os.path.join(self.dir, "a", "out")
        victim = os.path.join(self.dir, "a", "victim")
        os.makedirs(os.path.dirname(victim))
        with open(victim, "w") as fh:
            fh.write("keep\n")
        for binary in ("src/../../../../victim", "src/../../victim", "",
                       ".", "out/", "/tmp/x", "src/./f"):
            proc = self.bisect("--binary", binary, "--out", out)
            self.assertEqual(proc.returncode, 2, (binary, proc.stderr))
            self.assertIn("--binary", proc.stderr)
            self.assertTrue(os.path.isfile(victim), binary)
        self.assert_checkout_untouched()

    def test_tracked_binary_refused(self):
        proc = self.bisect("--binary", "build.sh", "--out",
                           os.path.join(self.dir, "out"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("is a file git tracks", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out")))

    def test_step_never_deletes_a_tracked_file(self):
        proc = trapmeter("bisect-step", "--no-build", "--repo", self.user,
                         "--good-binary", "/bin/true", "--build", "true",
                         "--binary", "build.sh")
        self.assertEqual(proc.returncode, 128, proc.stderr)
        self.assertIn("is a file git tracks", proc.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.user, "build.sh")))
        self.assert_checkout_untouched()

    def test_step_builds_in_a_worktree_of_its_own(self):
        marker = os.path.join(self.dir, "where")
        proc = trapmeter("bisect-step", "--no-build", "--repo", self.user,
                         "--good-binary", "/bin/true", "--build",
                         "pwd > %s; exit 3" % marker, "--binary", "out/qemu")
        self.assertEqual(proc.returncode, 125, proc.stderr)
        with open(marker) as fh:
            where = fh.read().strip()
        self.assertNotEqual(os.path.realpath(where),
                            os.path.realpath(self.user))
        self.assertEqual(git(where, "rev-parse", "--show-toplevel"), where)
        self.assertIn(os.path.realpath(where),
                      git(self.user, "worktree", "list"))
        self.assert_checkout_untouched()


@unittest.skipUnless(shutil.which("git"), "git not installed")
class CheckedFirst(unittest.TestCase):
    """Every option and output of bisect and bisect-step is checked
    before the first build: the build writes a marker that must not
    appear."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tm-bisect-first-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.repo = os.path.join(self.dir, "repo")
        self.hashes = made_repo(self.repo)
        self.built = os.path.join(self.dir, "built")
        self.out = os.path.join(self.dir, "out")

    def bisect(self, *more, good=None):
        return trapmeter("bisect", "--no-build", "--repo", self.repo,
                         "--good", good or self.hashes[0], "--bad",
                         self.hashes[-1], "--build", "touch %s; exit 1"
                         % self.built, "--binary", "out/qemu", *more)

    def assert_refused(self, proc, text, code=2):
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertIn(text, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertNotIn("internal error", proc.stderr)
        self.assertFalse(os.path.exists(self.built), proc.stderr)

    def test_out_is_a_file(self):
        open(self.out, "w").close()
        self.assert_refused(self.bisect("--out", self.out),
                            "not a directory")

    def test_out_not_ours(self):
        os.makedirs(self.out)
        open(os.path.join(self.out, "mine"), "w").close()
        self.assert_refused(self.bisect("--out", self.out),
                            "not empty and no earlier bisection's")

    def test_json_onto_a_session_file(self):
        os.makedirs(os.path.join(self.out, "trees", "good"))
        open(os.path.join(self.out, bisect_out.OUT_MARK), "w").close()
        for name in ("endpoints-a.json", "step-01-x-verdicts.json",
                     "build-good.log", "trees/good/x.json"):
            self.assert_refused(self.bisect(
                "--out", self.out, "--json", os.path.join(self.out, name)),
                "--json")

    def test_json_a_directory_or_nowhere(self):
        self.assert_refused(self.bisect("--out", self.out, "--json",
                                        self.dir), "is a directory")
        self.assert_refused(self.bisect(
            "--out", self.out, "--json", os.path.join(self.dir, "no", "j")),
            "directory does not exist")

    def test_run_and_ab_options(self):
        self.assert_refused(self.bisect("--out", self.out, "--cace", "x"),
                            "--cace")
        self.assert_refused(self.bisect("--out", self.out, "--max-boots",
                                        "1"), "--max-boots")
        for budget in ("inf", "nan", "1e308", "-1"):
            self.assert_refused(self.bisect("--out", self.out, "--budget",
                                            budget), "--budget")
        self.assert_refused(self.bisect("--out", self.out,
                                        "--build-timeout", "inf"),
                            "--build-timeout")
        # a refusal leaves no --out behind
        self.assertFalse(os.path.exists(self.out))

    def test_corrupt_endpoint_commit(self):
        tree = git(self.repo, "rev-parse", self.hashes[0] + "^{tree}")
        os.unlink(os.path.join(self.repo, ".git", "objects", tree[:2],
                               tree[2:]))
        self.assert_refused(self.bisect("--out", self.out),
                            "git cannot read its tree")

    def test_unwritable_out(self):
        # root writes through a read-only mode, so the failure is made:
        # a full or read-only disk fails the probe write before a build
        real = os.fsync

        def full(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fsync = full
        try:
            with self.assertRaises(OptionError) as cm:
                bisect_out.prepare_out(self.out)
        finally:
            os.fsync = real
        self.assertIn("cannot write there: No space left on device",
                      cm.exception.message)
        self.assertEqual(os.listdir(self.out), [])

    def step(self, *more):
        return trapmeter("bisect-step", "--no-build", "--repo", self.repo,
                         "--good-binary", "/bin/true", "--build",
                         "touch %s; exit 3" % self.built, "--binary",
                         "out/qemu", "--out", self.out, *more)

    def test_step_reference_malformed(self):
        ref = os.path.join(self.dir, "ref.json")
        for text in ("[1, 2]", '{"rows": 5}', '{"rows": [1]}',
                     '{"rows": [{"suite": 1}]}', '{"kind": "bisect"}',
                     '{"kind": "bisect", "endpoints": []}', "nul\0",
                     "{", '{"rows": [{"suite": "s", "case": "c", "metric": '
                     '"cycles_per_op", "verdict": "regression", '
                     '"slowdown_undisturbed": "x"}]}'):
            with open(ref, "w") as fh:
                fh.write(text)
            proc = self.step("--reference", ref)
            self.assert_refused(proc, "--reference", code=128)
        proc = self.step("--reference", "/dev/zero")
        self.assert_refused(proc, "--reference /dev/zero", code=128)
        self.assertFalse(os.path.exists(self.out))

    def test_step_reference_is_no_output(self):
        os.makedirs(self.out)
        self.assertEqual(self.step().returncode, 125)     # marks OUT
        os.unlink(self.built)
        proc = self.step("--reference", os.path.join(self.out, "steps.json"))
        self.assert_refused(proc, "refusing to overwrite", code=128)

    def test_edited_steps_json_keeps_the_skip(self):
        self.assertEqual(self.step().returncode, 125)
        for text in ('{"a": 1}', "[1]", "{"):
            with open(os.path.join(self.out, "steps.json"), "w") as fh:
                fh.write(text)
            proc = self.step()
            self.assertEqual(proc.returncode, 125, (text, proc.stderr))
            self.assertIn("not a list of steps", proc.stderr)
            with open(os.path.join(self.out, "steps.json")) as fh:
                self.assertEqual(fh.read(), text)
        os.unlink(os.path.join(self.out, "steps.json"))
        self.assertEqual(self.step().returncode, 125)
        with open(os.path.join(self.out, "steps.json")) as fh:
            steps = json.load(fh)
        self.assertEqual([s["verdict"] for s in steps], ["skip"])


if __name__ == "__main__":
    unittest.main()
