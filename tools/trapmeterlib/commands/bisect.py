"""`trapmeter bisect`: the first commit between a good and a bad build
that carries a measured change.  First an ab session good against bad
names what changed (the regressions it flags: refused when there are
none, or when good is the worse one); then a first-parent search
(stats/bisect.py) builds each step with the user's command in a worktree
(system/gitbuild.py) and judges it with a sequential ab against the good
build, on the flagged cases and metrics only, within its share of
--budget."""

import dataclasses
import json
import os
import shlex
import sys
import time

from ..output import resultsfile
from ..output.bisect_text import summary
from ..stats import bisect as search
from ..stats import compare
from ..system import gitbuild
from ..values import exitstatus
from ..values.errors import UnusableInput
from . import ab as ab_cmd
from . import ab_rounds, ab_sides, bisect_confirm, bisect_plan
from . import compare as compare_cmd
from . import run as run_cmd
from .ab_config import Outputs, SessionConfig
from .bisect_out import (DEFAULT_OUT_SUFFIX, check_json, clear_trees,
                         default_out, prepare_out, undo_out)
from .common import OptionError, TrapmeterError, repo_root, say, write_json

NAME = "bisect"
BINARY_AS = ("qemu", "bios", "testpmd")
OWN_AB_OPTIONS = bisect_plan.OWN_AB_OPTIONS
OWN_OUTPUTS = bisect_plan.OWN_OUTPUTS


def add_parser(sub, fmt):
    bis = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        allow_abbrev=False,
        help="the first commit that carries a measured change",
        usage="%(prog)s --repo DIR --good REV --bad REV --build CMD "
        "--binary PATH [--binary-as qemu|bios|testpmd] [--budget S] "
        "[--out DIR] [AB OPTIONS...] [RUN OPTIONS...] [-- QEMU ARGS]",
        description="Build --good and --bad with --build (a shell line run "
        "in a worktree of --repo) and run ab between them: the regressions "
        "it flags are what the search looks for (refused, status 15, when "
        "nothing is flagged or good is judged worse). Then walk bad's "
        "first-parent line between them: each step is built and judged "
        "by a sequential ab against the good build, on the flagged cases "
        "and metrics, with the threshold at half the flagged shift; it "
        "stops when decided, or at its share of --budget (a skip, like a "
        "failed build). Prints the first bad commit, the commits it "
        "could not separate, the shift, boots and time; --json has every "
        "step.")
    add_bisect_options(bis.add_argument)
    add = bis.add_argument
    add("--bad", metavar="REV", required=True,
        help="a commit that carries the change")
    add("--out", metavar="DIR",
        help="worktrees, build logs and every session's results (default "
        "REPO%s: beside the repository --repo names, outside it); an "
        "existing DIR is taken only when empty or an earlier bisect's"
        % DEFAULT_OUT_SUFFIX)
    add("--json", metavar="FILE",
        help="the bisect result (default OUT/bisect.json)")
    add("--budget", type=float, metavar="SECONDS",
        help="wall time for the endpoint session and every step (builds "
        "included); each step gets what is left over the steps still "
        "needed")


def add_bisect_options(add):
    """Options bisect and bisect-step share."""
    add("--repo", metavar="DIR", default=".",
        help="the git repository of the binary (default .)")
    add("--good", metavar="REV", help="a commit without the change")
    add("--build", metavar="CMD", required=True,
        help="shell line that builds a checkout (run in its top directory)")
    add("--binary", metavar="PATH", required=True,
        help="what --build produces, relative to the checkout (no '..'; "
        "not a file git tracks)")
    add("--binary-as", choices=BINARY_AS, default="qemu",
        help="how ab's sides take the binary: qemu (--qemu: a QEMU or a "
        "wrapper script, default), bios (QEMU -bios: a firmware image), "
        "testpmd (--testpmd, with --virtio-backend vhost-user)")
    add("--build-timeout", type=float, metavar="SECONDS",
        default=gitbuild.DEFAULT_BUILD_TIMEOUT,
        help="a build that takes longer is a failed build (default %d)"
        % gitbuild.DEFAULT_BUILD_TIMEOUT)
    _add_ab_options(add)


def _add_ab_options(add):
    """ab's options and its verdict options, less those bisect sets
    itself for each session."""
    def keep(*names, **kw):
        if names[0] not in OWN_AB_OPTIONS + OWN_OUTPUTS:
            add(*names, **kw)
    ab_cmd.add_ab_options(keep)
    compare_cmd.add_verdict_options(keep)


# ---------------------------------------------------------------- sessions

def side_args(binary_as, path):
    """(--X-qemu value, --X-args text) that give one ab side `path`."""
    if binary_as == "qemu":
        return path, ""
    if binary_as == "bios":
        return None, "-- -bios " + shlex.quote(path)
    return None, "--testpmd " + shlex.quote(path)


def case_words(run_words, cases):
    """The run options with --case replaced by the cases given."""
    out, skip = [], False
    for word in run_words:
        if skip:
            skip = False
        elif word == "--case":
            skip = True
        elif not word.startswith("--case="):
            out.append(word)
    return out + (["--case", ",".join(cases)] if cases else [])


def session(plan, name, good_bin, step_bin, budget, extra, focus=None):
    """One ab session of `plan` (a BisectPlan), A = good, B = the other
    build: {"name", "status", "rows", "boots", "wall_s", "a_json",
    "b_json"}.  `focus`: (cases, metrics, thresholds) of a step session."""
    cfg = ab_config(plan, name, good_bin, step_bin, budget, extra, focus)
    begin = time.monotonic()
    say("bisect: session %s (A %s, B %s%s)" % (
        name, good_bin, step_bin, "" if budget is None else
        ", %.0f s" % budget))
    code = ab_rounds.run_session(cfg)
    try:
        rows = report_rows(cfg.outputs.json)
        boots = [len(compare.boot_results(resultsfile.read_results(p)))
                 for p in (cfg.a_json, cfg.b_json)]
    except (OSError, ValueError, KeyError, TypeError,
            UnusableInput) as exc:
        raise TrapmeterError(exitstatus.UNUSABLE, "bisect: session %s left "
                             "no usable results: %s" % (name, exc))
    # + the session's planning boot (side A, not compared)
    return {"name": name, "status": code, "rows": rows, "boots": boots,
            "planning_boots": 1,
            "wall_s": round(time.monotonic() - begin, 1),
            "a_json": cfg.a_json, "b_json": cfg.b_json,
            "verdicts": cfg.outputs.json}


def ab_config(plan, name, good_bin, step_bin, budget, extra, focus=None):
    """The ab session (a checked SessionConfig) of good_bin (A)
    against step_bin (B) with the user's ab and run options (`plan`, a
    BisectPlan); results and verdicts in --out under the session's name.
    A step session (`focus`) runs the flagged cases and metrics only, at
    their step thresholds."""
    stem = os.path.join(plan.out, name)
    (a_qemu, a_args), (b_qemu, b_args) = (side_args(plan.binary_as, good_bin),
                                          side_args(plan.binary_as, step_bin))
    words = list(plan.run_options)
    metrics = list(plan.metric_names)
    thresholds = dict(plan.thresholds)
    if focus:
        cases, focus_metrics, steps = focus
        words, metrics = case_words(words, cases), sorted(focus_metrics)
        thresholds = dict(thresholds, **steps)
    shared, which = ab_sides.case_list(words)
    return SessionConfig(
        sides=ab_sides.make_sides(shared, extra, (a_args, b_args),
                                (a_qemu, b_qemu)),
        a_json=stem + "-a.json", b_json=stem + "-b.json",
        thresholds=thresholds, metrics=metrics,
        max_boots=plan.max_boots, budget=budget, looks=plan.looks,
        alpha=plan.alpha, rounds=plan.rounds, min_samples=plan.min_samples,
        stop_at_regression=True,
        count_boots=plan.count_boots, seed=plan.seed,
        resamples=plan.resamples, stat=plan.stat, verbose=plan.verbose,
        outputs=Outputs(json=stem + "-verdicts.json"),
        case_list=which, title="bisect " + name,
        allow_env_diff=list(plan.allow_env_diff)).check()


def report_rows(path):
    """The verdict rows a session wrote (ValueError when they are none)."""
    with open(path) as fh:
        rows = json.load(fh)["rows"]
    if not isinstance(rows, list):
        raise ValueError("%s: no list of rows" % path)
    return rows


# ---------------------------------------------------------------- steps

class Bisect:
    """One bisection of `plan` (a BisectPlan): its worktrees, the flagged
    rows, the steps."""

    def __init__(self, plan, extra, line):
        self.plan, self.extra, self.line = plan, extra, line
        self.begin = time.monotonic()
        self.trees = os.path.join(os.path.abspath(plan.out), "trees")
        self.flag = None
        self.focus = None
        self.sessions = []
        self.good_bin = None
        self.judged = 0             # steps so far (they name the files)

    def elapsed(self):
        return time.monotonic() - self.begin

    def budget_left(self):
        if self.plan.budget is None:
            return None
        return self.plan.budget - self.elapsed()

    def build(self, tree, rev, label):
        """Binary of `rev` built in worktree `tree` (created by this
        bisection, or moved once git confirms it is one of --repo), or
        (None, why)."""
        path = os.path.join(self.trees, tree)
        try:
            gitbuild.worktree_at(self.plan.repo, path, rev)
        except gitbuild.NotOwned as exc:
            raise OptionError("bisect: %s" % exc)
        except gitbuild.GitError as exc:
            return None, "checkout failed: %s" % exc
        log = os.path.join(self.plan.out, "build-%s.log" % label)
        say("bisect: building %s (%s)" % (rev[:12], label))
        return gitbuild.build(path, self.plan.build, self.plan.binary, log,
                              self.plan.build_timeout)

    def endpoints(self):
        """Build both ends and judge good against bad: the flagged rows."""
        good, bad = self.line[0][0], self.line[-1][0]
        self.good_bin, why = self.build("good", good, "good")
        if self.good_bin is None:
            refuse("build-failed", "the good commit %s does not build: %s"
                   % (good[:12], why))
        bad_bin, why = self.build("step", bad, "bad")
        if bad_bin is None:
            refuse("build-failed", "the bad commit %s does not build: %s"
                   % (bad[:12], why))
        steps = len(self.line) - 2
        need = search.Search([c for c, _ in self.line]).steps_left()
        # two shares: a change the endpoints miss loses the whole search,
        # a step that runs out is one skip
        share = None if self.plan.budget is None else \
            self.budget_left() * 2.0 / (2 + need)
        say("bisect: %d commits between good and bad, about %d steps"
            % (steps, need))
        sess = session(self.plan, "endpoints", self.good_bin, bad_bin,
                       share, self.extra)
        self.sessions.append(sess)
        try:
            self.flag = search.flagged(sess["rows"], set(
                self.plan.metric_names))
        except search.Refused as exc:
            self.write_refusal(sess, exc)
            refuse(exc.reason, exc.message + (
                "; the session ended undecided (more --budget or "
                "--max-boots?)" if exc.reason == "nothing-flagged" and any(
                    r["verdict"] == "inconclusive" for r in sess["rows"])
                else ""))
        cases = sorted({case for _, case, _ in self.flag})
        metrics = {m for _, _, m in self.flag}
        self.focus = (cases, metrics, search.step_thresholds(self.flag))
        return sess

    def write_refusal(self, sess, exc):
        """bisect.json of a refused bisection: the endpoint rows and why."""
        write_json(self.plan.json, {
                "tool": "trapmeter", "kind": "bisect", "refused": exc.reason,
                "message": exc.message, "good": self.line[0][0],
                "bad": self.line[-1][0],
                "endpoints": {k: sess[k] for k in (
                    "rows", "boots", "planning_boots", "wall_s", "status")},
                "wall_s": round(self.elapsed(), 1)})

    def judge(self, commit, share):
        """One step: build, then a sequential ab against good."""
        begin = time.monotonic()
        self.judged += 1
        index = self.judged
        step_bin, why = self.build("step", commit, "step-%02d-%s"
                                   % (index, commit[:12]))
        if step_bin is None:
            return search.SKIP, {"reason": "build failed: " + why,
                                 "boots": 0, "wall_s": round(
                                     time.monotonic() - begin, 1)}
        budget = None if share is None else max(
            1.0, share - (time.monotonic() - begin))
        try:
            sess = session(self.plan, "step-%02d-%s" % (index, commit[:12]),
                           self.good_bin, step_bin, budget, self.extra,
                           self.focus)
        except TrapmeterError as exc:
            if exc.code == exitstatus.ENV_DIFFERS:
                raise
            return search.SKIP, {"reason": "session failed: " + exc.message,
                                 "boots": 0, "wall_s": round(
                                     time.monotonic() - begin, 1)}
        self.sessions.append(sess)
        verdict, reason = search.step_verdict(sess["rows"], self.flag)
        say("bisect: %s is %s (%s)" % (commit[:12], verdict, reason))
        return verdict, {"reason": reason,
                         "boots": sum(sess["boots"]) + sess["planning_boots"],
                         "wall_s": round(time.monotonic() - begin, 1),
                         "session": sess["name"],
                         "rows": flagged_rows(sess["rows"], self.flag)}


def refuse(reason, message):
    raise TrapmeterError(exitstatus.BISECT_REFUSED, "bisect refused (%s): %s"
                         % (reason, message))


def flagged_rows(rows, flag):
    """The rows of the flagged (suite, case, metric), short."""
    keep = ("suite", "case", "metric", "verdict", "ratio", "interval",
            "interval_level", "estimator", "mode", "ci95",
            "slowdown_undisturbed", "boots", "threshold", "decided_at")
    return [{k: r.get(k) for k in keep} for r in rows
            if (r["suite"], r["case"], r["metric"]) in flag]


# ---------------------------------------------------------------- command

def validate(args):
    """bisect's parsed options checked into a BisectPlan (its repository,
    --out and --json not yet resolved)."""
    if args.good is None:
        raise OptionError("bisect: --good REV is required")
    return bisect_plan.from_args(args)


def resolve(plan):
    """(repository top directory, [(hash, subject)] good .. bad): both
    ends readable commits that do not track --binary."""
    try:
        top = gitbuild.git(plan.repo, "rev-parse", "--show-toplevel")
        good = gitbuild.readable_commit(top, plan.good, "--good")
        bad = gitbuild.readable_commit(top, plan.bad, "--bad")
        for rev in (good, bad):
            if gitbuild.git(top, "ls-tree", "--name-only", rev, "--",
                            plan.binary):
                raise OptionError(
                    "bisect: --binary %s is a file git tracks in %s: name "
                    "what --build writes" % (plan.binary, rev[:12]))
        return top, gitbuild.first_parent_line(top, good, bad)
    except gitbuild.GitError as exc:
        raise OptionError("bisect: %s" % exc)


def prepare(args, extra):
    """(plan, line): everything checked before the first build: the
    repository and its commits, --out, --json, and the sessions' ab and
    run options."""
    plan = validate(args)
    top, line = resolve(plan)
    out = os.path.abspath(plan.out or default_out(top))
    plan = dataclasses.replace(plan, repo=top, out=out,
                               json=plan.json or os.path.join(
                                   out, "bisect.json"))
    made = prepare_out(plan.out)
    try:
        check_json("--json", plan.json, plan.out)
        # the sessions' options, as a step would use them
        ab_config(plan, "endpoints", "good", "bad", plan.budget, extra)
        clear_trees(plan.repo, os.path.join(plan.out, "trees"))
    except gitbuild.GitError as exc:
        undo_out(plan.out, made)
        raise OptionError("bisect: %s" % exc)
    except OptionError:
        undo_out(plan.out, made)
        raise
    return plan, line


def command(args, extra=()):
    plan, line = prepare(args, extra)
    if not plan.no_build:
        run_cmd.ensure_built(repo_root())
    work = Bisect(plan, extra, line)
    try:
        endpoints = work.endpoints()
        state = search.Search([c for c, _ in line])
        steps = search.run(state, work.judge, work.budget_left,
                           bisect_confirm.RESERVED_STEPS)
        confirmation = bisect_confirm.confirm(work, state, steps, session)
    finally:
        for tree in ("good", "step"):
            why = gitbuild.remove_worktree(plan.repo, os.path.join(
                work.trees, tree))
            if why:
                say("bisect: warning: " + why)
    doc = result_document(work, endpoints, state, steps)
    doc["confirmation"] = confirmation
    sys.stdout.write(summary(doc))
    write_json(plan.json, doc)
    if not doc["result"]["first_bad"]:
        return exitstatus.BISECT_UNRESOLVED
    return exitstatus.OK if confirmation["status"] == search.CONFIRMED \
        else exitstatus.BISECT_UNCONFIRMED


def result_document(work, endpoints, state, steps):
    subjects = dict(work.line)
    result = state.result()
    boots = sum(sum(s["boots"]) + s["planning_boots"]
                for s in work.sessions)
    return {"tool": "trapmeter", "kind": "bisect", "repo": work.plan.repo,
            "good": work.line[0][0], "bad": work.line[-1][0],
            "build": work.plan.build, "binary": work.plan.binary,
            "binary_as": work.plan.binary_as,
            "commits": [{"commit": c, "subject": s} for c, s in work.line],
            "endpoints": {k: endpoints[k] for k in
                          ("rows", "boots", "planning_boots", "wall_s",
                           "status")},
            "flagged": flagged_rows(endpoints["rows"], work.flag),
            "step_thresholds": work.focus[2],
            "steps": [dict(s, subject=subjects.get(s["commit"]))
                      for s in steps],
            "result": dict(result, subject=subjects.get(
                result["first_bad_candidate"])),
            "budget_exhausted": bool(state.untested()),
            "boots": boots, "wall_s": round(work.elapsed(), 1),
            "budget_s": work.plan.budget}
