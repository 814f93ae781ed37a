"""`trapmeter bisect-step`: one step of a bisection that `git bisect run`
drives.  Builds the commit checked out in --repo (its HEAD; never in the
user's checkout: in a worktree of its own under --out) with --build,
judges it with a sequential ab against the good build (built once from
--good in another worktree there, or --good-binary), and exits as git
bisect run reads it: 0 good, 1 bad, 125 skip (the build failed, or the
step stayed undecided).  A step that cannot be judged at all (bad
options, KVM unusable, unusable results) exits 128, which makes git stop
the bisection instead of taking it for "bad"."""

import dataclasses
import json
import os
import time

from ..output import report
from ..stats import bisect as search
from ..system import gitbuild, inputfile
from ..values import exitstatus
from . import bisect as bisect_cmd
from . import bisect_out, bisect_plan
from . import run as run_cmd
from .common import (OptionError, TrapmeterError, check_outputs, repo_root,
                     say)

NAME = "bisect-step"
EXIT = {search.GOOD: 0, search.BAD: 1, search.SKIP: 125}
# a --reference or steps.json larger than this is no bisection's
JSON_CAP = 16 << 20
ROW_KEYS = ("suite", "case", "metric", "verdict")


def add_parser(sub, fmt):
    step = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        allow_abbrev=False,
        help="one bisection step for `git bisect run` (0 good, 1 bad, "
        "125 skip)",
        usage="git bisect run %(prog)s (--good REV | --good-binary PATH) "
        "--build CMD --binary PATH [--reference FILE] [--budget S] "
        "[AB OPTIONS...] [RUN OPTIONS...] [-- QEMU ARGS]",
        description="Build the checked-out commit of --repo (HEAD, in a "
        "worktree of its own under --out: uncommitted edits are not "
        "built) with --build and judge it against the good build by a "
        "sequential ab. With "
        "--reference (a `bisect` --json, or an ab/compare --json of good "
        "against bad) only the rows flagged there are judged, with the "
        "threshold at half their shift: bad when one is a regression, good "
        "when all are unchanged. Without it every row of --metrics is "
        "judged at the thresholds given. Exit 0 good, 1 bad, 125 skip "
        "(build failed, undecided within --budget / --max-boots), 128 "
        "cannot judge (git bisect run stops).")
    bisect_cmd.add_bisect_options(step.add_argument)
    add = step.add_argument
    add("--good-binary", metavar="PATH",
        help="the good build, already built (instead of --good)")
    add("--reference", metavar="FILE",
        help="what to judge: the flagged rows of a bisect or ab --json")
    add("--budget", type=float, metavar="SECONDS",
        help="wall time of the step's ab session (its boots)")
    add("--out", metavar="DIR",
        help="the worktrees (good and step), build logs, results, "
        "steps.json (default: trapmeter-bisect-step in the repository's "
        "git directory, outside its work tree)")


def read_json(path, option):
    """The JSON document at `path`, read with a cap; OptionError naming
    the file otherwise."""
    try:
        raw = inputfile.read_text(path, JSON_CAP)
        return json.loads(raw.decode("utf-8"))
    except inputfile.InputError as exc:
        raise OptionError("%s %s" % (option, exc))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise OptionError("%s %s: not JSON (%s)" % (
            option, path, str(exc).splitlines()[0][:120]))


def reference_rows(doc):
    """The verdict rows of a bisect or ab/compare --json document, or
    None when it is neither: a list of rows whose suite, case, metric
    and verdict are strings."""
    if not isinstance(doc, dict):
        return None
    rows = doc.get("rows")
    if doc.get("kind") == "bisect":
        ends = doc.get("endpoints")
        rows = ends.get("rows") if isinstance(ends, dict) else None
    if not isinstance(rows, list) or not all(
            isinstance(r, dict) and all(isinstance(r.get(k), str)
                                        for k in ROW_KEYS) for r in rows):
        return None
    return rows


def reference(plan):
    """(flagged rows, ab focus) from --reference, or (None, None)."""
    if not plan.reference:
        return None, None
    rows = reference_rows(read_json(plan.reference, "--reference"))
    if rows is None:
        raise OptionError("--reference %s: not a bisect or verdicts JSON "
                          "(no list of rows with suite, case, metric and "
                          "verdict)" % plan.reference)
    try:
        flag = search.flagged(rows, set(plan.metric_names))
        thresholds = search.step_thresholds(flag)
    except search.Refused as exc:
        raise OptionError("--reference %s: %s" % (plan.reference,
                                                  exc.message))
    except (TypeError, ValueError) as exc:
        raise OptionError("--reference %s: a flagged row without a usable "
                          "shift (%s)" % (plan.reference, exc))
    return flag, (sorted({c for _, c, _ in flag}), {m for _, _, m in flag},
                  thresholds)


def worktree(top, path, rev):
    """Worktree `path` of the repository on `rev` (gitbuild.worktree_at);
    something there git does not confirm is refused by name."""
    try:
        gitbuild.worktree_at(top, path, rev)
    except gitbuild.NotOwned as exc:
        raise OptionError("bisect-step: %s" % exc)


def good_build(plan, top, good):
    """The good binary: --good-binary, or --good built once in a worktree
    (reused by the following steps)."""
    if plan.good_binary:
        return os.path.abspath(plan.good_binary)
    tree = os.path.join(plan.out, "trees", "good-" + good[:12])
    done = os.path.join(plan.out, "good-%s.built" % good[:12])
    target = os.path.join(tree, plan.binary)
    if os.path.exists(done) and gitbuild.worktree_of(top, tree) and \
            os.path.isfile(target) and gitbuild.inside(tree, target):
        return target
    worktree(top, tree, good)
    built, why = gitbuild.build(tree, plan.build, plan.binary, os.path.join(
        plan.out, "build-good.log"), plan.build_timeout)
    if built is None:
        raise TrapmeterError(exitstatus.BISECT_REFUSED, "the good commit %s "
                             "does not build: %s" % (good[:12], why))
    try:
        with open(done, "w") as fh:
            fh.write(good + "\n")
    except OSError as exc:
        raise OptionError("cannot write %s: %s" % (done, exc.strerror or exc))
    return built


def validate(args):
    """bisect-step's parsed options checked into a BisectPlan (its
    repository and --out not yet resolved)."""
    if bool(args.good) == bool(args.good_binary):
        raise OptionError("bisect-step: give --good REV or --good-binary "
                          "PATH (one of them)")
    return bisect_plan.from_args(args)


def check_paths(plan, head):
    """The inputs (--reference, --good-binary) are none of the step's
    outputs nor inside its worktrees."""
    stem = os.path.join(plan.out, "step-" + head[:12])
    check_outputs([("--reference", plan.reference)],
                  [("OUT/steps.json", os.path.join(plan.out, "steps.json"))]
                  + [("a session output", stem + end) for end in (
                      "-a.json", "-b.json", "-verdicts.json")])
    if plan.good_binary:
        if not os.path.isfile(plan.good_binary):
            raise OptionError("--good-binary %s: no such file"
                              % plan.good_binary)
        if gitbuild.inside(os.path.join(plan.out, "trees"),
                           plan.good_binary):
            raise OptionError("--good-binary %s: inside the step's worktrees "
                              "(a build there removes it)" % plan.good_binary)


def resolve(plan):
    """(plan with its repository's top directory and --out, HEAD, good
    commit or None): both readable commits that do not track --binary."""
    try:
        top = gitbuild.git(plan.repo, "rev-parse", "--show-toplevel")
        head = gitbuild.readable_commit(top, "HEAD", "HEAD")
        good = gitbuild.readable_commit(top, plan.good, "--good") \
            if plan.good else None
        for rev in filter(None, (head, good)):
            if gitbuild.git(top, "ls-tree", "--name-only", rev, "--",
                            plan.binary):
                raise OptionError("bisect-step: --binary %s is a file git "
                                  "tracks in %s: name what --build writes"
                                  % (plan.binary, rev[:12]))
        out = os.path.abspath(plan.out or os.path.join(
            gitbuild.common_dir(top), "trapmeter-bisect-step"))
    except gitbuild.GitError as exc:
        raise OptionError("bisect-step: %s" % exc)
    return dataclasses.replace(plan, repo=top, out=out), head, good


def prepare(args, extra):
    """(plan, top, HEAD, good commit or None, flag, focus): every option,
    the repository, --out and --reference checked before the first
    build."""
    plan, head, good = resolve(validate(args))
    made = bisect_out.prepare_out(plan.out)
    try:
        check_paths(plan, head)
        flag, focus = reference(plan)
        bisect_cmd.ab_config(plan, "step-" + head[:12], "good", "step",
                             plan.budget, extra, focus)
    except OptionError:
        bisect_out.undo_out(plan.out, made)
        raise
    return plan, head, good, flag, focus


def step(args, extra):
    plan, head, good, flag, focus = prepare(args, extra)
    top = plan.repo
    try:
        good_bin = good_build(plan, top, good)
        begin = time.monotonic()
        tree = os.path.join(plan.out, "trees", "step")
        worktree(top, tree, head)
    except gitbuild.GitError as exc:
        raise OptionError("bisect-step: %s" % exc)
    if not plan.no_build:
        run_cmd.ensure_built(repo_root())
    step_bin, why = gitbuild.build(tree, plan.build, plan.binary,
                                   os.path.join(plan.out, "build-%s.log"
                                                % head[:12]),
                                   plan.build_timeout)
    if step_bin is None:
        return record(plan, head, search.SKIP, "build failed: " + why, None,
                      begin)
    sess = bisect_cmd.session(plan, "step-" + head[:12], good_bin, step_bin,
                              plan.budget, extra, focus)
    if flag is None:
        flag = {(r["suite"], r["case"], r["metric"]): r for r in sess["rows"]
                if r["metric"] in plan.metric_names}
    verdict, reason = search.step_verdict(sess["rows"], flag)
    return record(plan, head, verdict, reason, sess, begin)


def earlier_steps(path):
    """The steps OUT/steps.json holds ([] when there is none), or None
    when it is no list of steps (edited by hand?): left as it is."""
    if not os.path.lexists(path):
        return []
    try:
        steps = json.loads(inputfile.read_text(path, JSON_CAP).decode(
            "utf-8"))
    except (inputfile.InputError, ValueError, UnicodeDecodeError,
            RecursionError):
        return None
    if not isinstance(steps, list) or not all(isinstance(s, dict)
                                              for s in steps):
        return None
    return steps


def record(plan, head, verdict, reason, sess, begin):
    """Say the verdict, append it to OUT/steps.json, return its exit
    status: the verdict stands even when steps.json cannot be written
    (a warning says so), so git bisect run is never stopped by it."""
    say("bisect-step: %s is %s (%s)" % (head[:12], verdict, reason))
    path = os.path.join(plan.out, "steps.json")
    steps = earlier_steps(path)
    if steps is None:
        say("bisect-step: warning: %s is not a list of steps (edited?): "
            "left as it is, this step not recorded there" % path)
        return EXIT[verdict]
    steps.append({"commit": head, "verdict": verdict, "reason": reason,
                  "boots": sum(sess["boots"]) + sess["planning_boots"]
                  if sess else 0,
                  "wall_s": round(time.monotonic() - begin, 1),
                  "session": sess["name"] if sess else None})
    try:
        report.write_json_atomic(path, steps)
    except OSError as exc:
        say("bisect-step: warning: cannot write %s: %s (the verdict "
            "stands)" % (path, exc.strerror or exc))
    return EXIT[verdict]


def command(args, extra=()):
    """One step; its exit status is the verdict (cli.main turns every
    failure into 128, which stops git bisect run)."""
    return step(args, extra)
