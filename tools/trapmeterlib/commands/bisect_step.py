"""`trapmeter bisect-step`: one step of a bisection that `git bisect run`
drives.  Builds the commit checked out in --repo with --build, judges it
with a sequential ab against the good build (built once from --good in a
worktree kept in the repository's git directory, or --good-binary), and
exits as git bisect run reads it: 0 good, 1 bad, 125 skip (the build
failed, or the step stayed undecided).  A step that cannot be judged at
all (bad options, KVM unusable, unusable results) exits 128, which makes
git stop the bisection instead of taking it for "bad"."""

import json
import os
import time

from ..output import report
from ..stats import bisect as search
from ..system import exitstatus, gitbuild
from . import bisect as bisect_cmd
from .common import OptionError, TrapmeterError, repo_root, say

NAME = "bisect-step"
EXIT = {search.GOOD: 0, search.BAD: 1, search.SKIP: 125}


def add_parser(sub, fmt):
    step = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        allow_abbrev=False,
        help="one bisection step for `git bisect run` (0 good, 1 bad, "
        "125 skip)",
        usage="git bisect run %(prog)s (--good REV | --good-binary PATH) "
        "--build CMD --binary PATH [--reference FILE] [--budget S] "
        "[AB OPTIONS...] [RUN OPTIONS...] [-- QEMU ARGS]",
        description="Build the checked-out commit of --repo with --build "
        "and judge it against the good build by a sequential ab. With "
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
        help="the good worktree, build logs, results (default: "
        "trapmeter-bisect-step in the repository's git directory)")


def reference(args):
    """(flagged rows, ab focus) from --reference, or (None, None)."""
    if not args.reference:
        return None, None
    try:
        with open(args.reference) as fh:
            doc = json.load(fh)
        rows = doc["endpoints"]["rows"] if doc.get("kind") == "bisect" \
            else doc["rows"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OptionError("--reference %s: not a bisect or verdicts JSON "
                          "(%s)" % (args.reference, exc))
    try:
        flag = search.flagged(rows, set(args.metric_names))
    except search.Refused as exc:
        raise OptionError("--reference %s: %s" % (args.reference,
                                                  exc.message))
    return flag, (sorted({c for _, c, _ in flag}), {m for _, _, m in flag},
                  search.step_thresholds(flag))


def good_build(args, top):
    """The good binary: --good-binary, or --good built once in a worktree
    (reused by the following steps)."""
    if args.good_binary:
        return os.path.abspath(args.good_binary)
    good = gitbuild.commit_of(top, args.good)
    tree = os.path.join(args.out, "good-" + good[:12])
    done = os.path.join(args.out, "good-%s.built" % good[:12])
    target = os.path.join(tree, args.binary)
    if os.path.exists(done) and os.path.isfile(target):
        return target
    gitbuild.add_worktree(top, tree, good)
    built, why = gitbuild.build(tree, args.build, args.binary, os.path.join(
        args.out, "build-good.log"), args.build_timeout)
    if built is None:
        raise TrapmeterError(exitstatus.BISECT_REFUSED, "the good commit %s "
                             "does not build: %s" % (good[:12], why))
    with open(done, "w") as fh:
        fh.write(good + "\n")
    return built


def validate(args):
    if bool(args.good) == bool(args.good_binary):
        raise OptionError("bisect-step: give --good REV or --good-binary "
                          "PATH (one of them)")
    if args.budget is not None and not args.budget > 0:
        raise OptionError("--budget must be a positive number of seconds")
    bisect_cmd.validate_common(args)


def step(args, extra):
    validate(args)
    try:
        top = gitbuild.git(args.repo, "rev-parse", "--show-toplevel")
        head = gitbuild.commit_of(top, "HEAD")
        args.out = os.path.abspath(args.out or os.path.join(
            gitbuild.common_dir(top), "trapmeter-bisect-step"))
        os.makedirs(args.out, exist_ok=True)
        flag, focus = reference(args)
        good_bin = good_build(args, top)
    except gitbuild.GitError as exc:
        raise OptionError("bisect-step: %s" % exc)
    if not args.no_build:
        bisect_cmd.ab_cmd.run_cmd.ensure_built(repo_root())
    begin = time.monotonic()
    step_bin, why = gitbuild.build(top, args.build, args.binary,
                                   os.path.join(args.out, "build-%s.log"
                                                % head[:12]),
                                   args.build_timeout)
    if step_bin is None:
        return record(args, head, search.SKIP, "build failed: " + why, None,
                      begin)
    sess = bisect_cmd.session(args, "step-" + head[:12], good_bin, step_bin,
                              args.budget, extra, focus)
    if flag is None:
        flag = {(r["suite"], r["case"], r["metric"]): r for r in sess["rows"]
                if r["metric"] in args.metric_names}
    verdict, reason = search.step_verdict(sess["rows"], flag)
    return record(args, head, verdict, reason, sess, begin)


def record(args, head, verdict, reason, sess, begin):
    """Say the verdict, append it to OUT/steps.json, return its exit
    status."""
    say("bisect-step: %s is %s (%s)" % (head[:12], verdict, reason))
    path = os.path.join(args.out, "steps.json")
    try:
        with open(path) as fh:
            steps = json.load(fh)
    except (OSError, ValueError):
        steps = []
    steps.append({"commit": head, "verdict": verdict, "reason": reason,
                  "boots": sum(sess["boots"]) + sess["planning_boots"]
                  if sess else 0,
                  "wall_s": round(time.monotonic() - begin, 1),
                  "session": sess["name"] if sess else None})
    report.write_json_atomic(path, steps)
    return EXIT[verdict]


def command(args, extra=()):
    """One step; its exit status is the verdict (cli.main turns every
    failure into 128, which stops git bisect run)."""
    return step(args, extra)
