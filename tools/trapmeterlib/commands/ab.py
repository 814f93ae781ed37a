"""`trapmeter ab`: boot two run configurations alternately (A B B A ...),
re-evaluate after each round and stop when every selected metric is
decided (the sequential method lives in trapmeterlib/stats/abtest.py, the
statistics in trapmeterlib/stats/compare.py).

Size: the options, the session's config (SessionConfig, which sensitivity
builds too) and the session itself; the rounds and looks are the seam to
cut next."""

import argparse
import contextlib
import dataclasses
import json
import os
import shlex
import time
from dataclasses import dataclass, field
from typing import Optional

from ..guest import plan, rounds
from ..output import html, progress as progress_line, report, resultsfile
from ..stats import abtest, attribution, breakdown, compare, forecast
from ..session import runner
from ..session.record import RunRecord
from ..system import kvmlock, priority, privdir
from ..values import exitstatus
from ..values.errors import UnusableInput
from . import compare as compare_cmd
from . import run as run_cmd
from .common import (PROG, SUITE_FITS, OptionError, Parser, TrapmeterError,
                     budget_seconds, check_budget, check_outputs,
                     probe_writable, repo_root, say)

NAME = "ab"
DEFAULT_COUNT_BOOTS = 3     # boots per side that count exits (1, 2, 4)
# QEMU's niceness, and its autogroup's, in every boot of a session where
# this process may set it (run --nice; docs/design.md, "Where the per-boot
# spread comes from here": the vCPU thread's wait for a CPU is the spread)
AB_NICE = -20
# run options ab sets itself, per boot
OWN_RUN_OPTIONS = ("--repeat", "--json", "--log", "--junit", "--plan",
                   "--no-build", "--rounds")
# The sentinel list: what ab and sensitivity run when no --case or --suite
# is given, one or two cases per handler class and direction, 512-byte
# loops (they resolve more per second than 4096-byte ones); the choice and
# its measurement: docs/design.md, "The sentinel list".
SENTINEL_SUITES = "pio,exits"
SENTINEL_CASES = ("fwcfg.in8.single.512", "fwcfg.in8.rep.512",
                  "debugcon.out8.single.512", "debugcon.out8.rep.512",
                  "pic.in8.single.512", "pic.out8.single.512",
                  "cpuid", "pio.kernel", "pio.user")
# ... as the kernel word case= takes them (at most 8 globs): exactly the
# cases above (tests/host/test_abtest.py checks both against the case list)
SENTINEL_GLOBS = ("fwcfg.in8.[sr]*.512", "debugcon.out8.*.512",
                  "pic.*8.single.512", "pio.*", "cpuid")
# run options that choose the cases (--quick: its smaller sweep has no
# 512-byte fw_cfg rows)
SELECTING = ("--case", "--suite", "--quick")


def add_parser(sub, fmt):
    ab = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        allow_abbrev=False,
        help="interleaved A/B runs that stop when decided",
        usage="%(prog)s [RUN OPTIONS...] [--a-qemu PATH] [--b-qemu PATH] "
        "[--a-args \"RUN OPTIONS\"] [--b-args \"RUN OPTIONS\"] "
        "[--max-boots N] [--budget S] [--json FILE] [--junit FILE] "
        "[--markdown FILE] [--plot FILE.svg] [-- QEMU ARGS FOR BOTH]",
        description="Boot configuration A and B alternately (A B B A A B "
        "...) with every other run option shared, and the same sample plan "
        "on both sides (run --plan). After each round "
        "the rounds so far are compared; at the looks (a capped number, "
        "spread over the boots the budget reaches, look k = 1..K spending "
        "alpha*2^(k-1)/(2^K-1), the last all that is left) decided metrics are "
        "frozen, and the "
        "session stops when every selected metric is a regression, an "
        "improvement or unchanged, or --max-boots / --budget runs out. "
        "Without --case or --suite the session runs the sentinel list (%s; "
        "docs/design.md), and the verdict says which list ran. QEMU runs "
        "at run --nice %d (its scheduling group too) where this process "
        "may and no side sets --nice: on a shared host the vCPU thread "
        "otherwise waits for a CPU inside the timed loops. "
        "Unknown options are run options for both sides; for a verdict on "
        "cycles per op and exits alone, --cmdline controls=off skips the "
        "control ops (no net figures or breakdown; boots about a fifth "
        "shorter on this project's hosts)." % (", ".join(SENTINEL_CASES),
                                                AB_NICE))
    add_ab_options(ab.add_argument)
    compare_cmd.add_verdict_options(ab.add_argument)


def add_ab_options(add):
    add("--a-qemu", metavar="PATH", help="QEMU binary of side A")
    add("--b-qemu", metavar="PATH", help="QEMU binary of side B")
    add("--a-args", metavar="\"RUN OPTIONS\"", default="",
        help="run options of side A only (shell words; after a '--' in "
        "them: QEMU arguments of side A)")
    add("--b-args", metavar="\"RUN OPTIONS\"", default="",
        help="run options of side B only")
    add("--max-boots", type=int,
        help="boots of both sides together (default %d, or with --budget "
        "%d: the budget ends the session)"
        % (abtest.DEFAULT_MAX_BOOTS, abtest.BUDGET_MAX_BOOTS))
    add("--budget", type=budget_seconds, metavar="SECONDS",
        help="stop before a round that would end after this many seconds "
        "(at most 30 days)")
    add("--resolution", type=float, metavar="PCT",
        help="end the session (its last look) where the forecast from its "
        "first boots says every selected timing metric resolves PCT %% "
        "or less, or where --budget / --max-boots end it first")
    add("--looks", type=int, default=abtest.DEFAULT_LOOKS,
        help="looks K at which verdicts may be decided (default %d; look "
        "k = 1..K tests at alpha*2^(k-1)/(2^K-1), a last look at all the alpha not "
        "yet spent)" % abtest.DEFAULT_LOOKS)
    add("--metrics", default="cycles_per_op,exits_per_op",
        help="metrics that must be decided before the session stops "
        "(default cycles_per_op,exits_per_op; every metric is reported)")
    add("--a-json", metavar="FILE", default="ab-a.json",
        help="results of side A, all its boots (default ab-a.json)")
    add("--b-json", metavar="FILE", default="ab-b.json",
        help="results of side B (default ab-b.json)")
    add("--min-samples", type=int, default=plan.MIN_SAMPLES, metavar="N",
        help="samples per case in the session's plan: at least N (default "
        "%d), fewer only where N samples of a case would take over %.0f ms"
        % (plan.MIN_SAMPLES, plan.WINDOW_MS))
    add_rounds_option(add)
    add_count_boots_option(add)
    add("--no-build", action="store_true", help="do not run make")
    add("-v", "--verbose", action="store_true",
        help="show each run's stderr")


def add_count_boots_option(add):
    add("--count-boots", type=int, default=DEFAULT_COUNT_BOOTS, metavar="N",
        help="boots per side that count exits, when run counts them (KVM): "
        "boots 1, 2, 4, 8, ... of each side up to N of them, spread over "
        "the session; the others run with --no-count-exits. A count is "
        "judged allowing for its background in each boot, and one that "
        "moves between boots (an average, exits_model_exact false, or "
        "beyond its background) needs N >= 3 for a verdict; counting "
        "costs each boot its QMP handshakes and longer result lines "
        "(default %d; 0: none)" % DEFAULT_COUNT_BOOTS)


def add_rounds_option(add):
    add("--rounds", type=int, default=rounds.DEFAULT_ROUNDS, metavar="N",
        help="every boot of both sides runs the plan in N rounds (run "
        "--rounds; the plan's samples are the total, split over the "
        "rounds; default %d)" % rounds.DEFAULT_ROUNDS)


# ---------------------------------------------------------------- options

def split_side(text, what):
    """Shell words of --a-args/--b-args: (run options, QEMU args)."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise OptionError("%s %r: %s" % (what, text, exc))
    if "--" in words:
        cut = words.index("--")
        return words[:cut], words[cut + 1:]
    return words, []


def check_run_options(words, what):
    """Parse them as `run` would, so a typo fails before the first boot."""
    for word in words:
        if word.split("=")[0] in OWN_RUN_OPTIONS:
            raise OptionError("%s: %s is set by ab itself" % (what, word))
    top = Parser(prog="%s run" % PROG)
    run_cmd.add_parser(top.add_subparsers(dest="command"),
                       argparse.RawDescriptionHelpFormatter)
    try:
        top.parse_args(["run"] + words)
    except OptionError as exc:
        raise OptionError("%s: %s" % (what, exc.message))


def selects_cases(words):
    """Do these run words choose cases (--case or --suite)?"""
    return any(w.split("=")[0] in SELECTING for w in words)


def with_priority(shared, sides):
    """The shared run words with `--nice AB_NICE` first, unless a side's
    or the shared words set --nice, or this process may not lower it."""
    if "--nice" in " ".join(shared) + " " + sides:
        return shared
    if not priority.permitted(AB_NICE):
        return shared
    return ["--nice", str(AB_NICE)] + shared


def priority_line(cfg):
    """What the verdict says about QEMU's niceness in the session."""
    said = {name: words[words.index("--nice") + 1]
            for name, (words, _q) in cfg.sides.items() if "--nice" in words}
    if not said:
        return ("ab: QEMU ran at the runner's own niceness (%d): this "
                "process may not lower it (root or CAP_SYS_NICE), so the "
                "host's other work preempts the guest's loops (run --nice)"
                % priority.current())
    return ("ab: QEMU ran at niceness %s, its session's scheduling group "
            "too (run --nice; ab's default %d where allowed: on a shared "
            "host the vCPU thread otherwise waits for a CPU in its timed "
            "loops)" % ("/".join("%s %s" % (n.upper(), v) for n, v in
                                 sorted(said.items())), AB_NICE))


def case_list(args, shared):
    """(shared run words, which list runs): the sentinel list when no
    side's words choose cases (SELECTING), else theirs."""
    sides = " ".join((getattr(args, "a_args", "") or "",
                      getattr(args, "b_args", "") or ""))
    if selects_cases(shared) or any(sel in sides for sel in SELECTING):
        return shared, "the cases --case/--suite/--quick selected"
    words = ["--suite", SENTINEL_SUITES, "--case", ",".join(SENTINEL_GLOBS)]
    return words + shared, ("the sentinel list (%d cases, one or two per "
                            "handler class and direction: %s; --case or "
                            "--suite runs others)" % (
                                len(SENTINEL_CASES),
                                ", ".join(SENTINEL_CASES)))


def make_sides(shared, extra, args=("", ""), qemus=(None, None)):
    """{"a": (run words, qemu args), "b": ...}, validated: `shared` run
    words of both sides, `extra` QEMU arguments of both, then per side
    its own run words (shell words, QEMU arguments after a '--') and
    QEMU binary; QEMU at AB_NICE where allowed (with_priority)."""
    shared = with_priority(list(shared), " ".join(args))
    sides = {}
    for name, text, binary in zip(("a", "b"), args, qemus):
        words, qemu_args = split_side(text, "--%s-args" % name)
        if binary:
            words = ["--qemu", binary] + words
        check_run_options(shared + words, "side %s options" % name.upper())
        sides[name] = (shared + words, list(extra) + qemu_args)
    return sides


@dataclass
class Outputs:
    """Where a session's verdicts go beside the table (compare's outputs)."""
    json: Optional[str] = None
    markdown: Optional[str] = None
    junit: Optional[str] = None
    plot: Optional[str] = None
    plot_engine: str = "auto"
    html: Optional[str] = None


@dataclass
class SessionConfig:
    """One ab session: both sides' words, where their results go, when it
    stops and how it judges.  check() refuses bad values before a boot."""
    sides: dict                     # make_sides
    a_json: str
    b_json: str
    thresholds: dict                # compare_cmd.check_verdict_options
    metrics: list
    max_boots: Optional[int] = None  # None: abtest's default for the budget
    budget: Optional[float] = None
    resolution: Optional[float] = None  # --resolution, relative
    # bisect: stop at the first look that flags a selected metric a
    # regression (the others need not be decided)
    stop_at_regression: bool = False
    looks: int = abtest.DEFAULT_LOOKS
    alpha: float = compare.DEFAULT_ALPHA
    rounds: int = rounds.DEFAULT_ROUNDS
    min_samples: int = plan.MIN_SAMPLES
    count_boots: int = DEFAULT_COUNT_BOOTS
    seed: int = compare.DEFAULT_SEED
    resamples: int = compare.DEFAULT_RESAMPLES
    stat: str = compare.DEFAULT_STAT
    verbose: bool = False
    outputs: Outputs = field(default_factory=Outputs)
    case_list: str = "the cases --case/--suite/--quick selected"
    allow_env_diff: list = field(default_factory=list)  # compare's option
    title: str = NAME               # the status line's

    def check(self):
        self.max_boots = abtest.max_boots(self.max_boots, self.budget)
        if self.max_boots < 2 or self.max_boots > resultsfile.MAX_BOOTS:
            raise OptionError("--max-boots must be 2..%d"
                              % resultsfile.MAX_BOOTS)
        self.budget = check_budget(self.budget)
        if self.resolution is not None and not 0 < self.resolution < 1:
            raise OptionError("--resolution must be a percentage in (0, 100)")
        if not 1 <= self.looks <= 50:
            raise OptionError("--looks must be 1..50")
        for option, path in (("--a-json", self.a_json),
                             ("--b-json", self.b_json)):
            if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                raise OptionError("%s: directory does not exist" % path)
            probe_writable(option, path)
        check_outputs([], [("--a-json", self.a_json),
                           ("--b-json", self.b_json)]
                      + compare_cmd.verdict_outputs(self.outputs))
        if not 1 <= self.rounds <= rounds.MAX_ROUNDS:
            raise OptionError("--rounds must be 1..%d" % rounds.MAX_ROUNDS)
        if not 3 <= self.min_samples <= plan.MAX_SAMPLES:
            raise OptionError("--min-samples must be 3..%d" % plan.MAX_SAMPLES)
        if self.count_boots < 0:
            raise OptionError("--count-boots must be 0 or more")
        if not self.metrics:
            raise OptionError("--metrics: name at least one metric")
        for metric in self.metrics:
            compare_cmd.check_metric(metric, "--metrics")
        return self


def config_from_args(args, extra=()):
    """The session `trapmeter ab` options describe, checked."""
    thresholds = compare_cmd.check_verdict_options(args)
    shared, which = case_list(args, list(getattr(args, "run_options", [])))
    sides = make_sides(shared, extra, (args.a_args, args.b_args),
                       (args.a_qemu, args.b_qemu))
    return SessionConfig(
        sides=sides, a_json=args.a_json, b_json=args.b_json,
        thresholds=thresholds,
        metrics=[m for m in args.metrics.split(",") if m],
        max_boots=args.max_boots, budget=args.budget, looks=args.looks,
        resolution=None if args.resolution is None
        else args.resolution / 100.0,
        alpha=args.alpha, rounds=args.rounds, min_samples=args.min_samples,
        count_boots=args.count_boots, seed=args.seed,
        resamples=args.resamples, stat=args.stat, verbose=args.verbose,
        outputs=Outputs(args.json, args.markdown, args.junit, args.plot,
                        args.plot_engine, args.html),
        case_list=which,
        allow_env_diff=getattr(args, "allow_env_diff", [])).check()


# ---------------------------------------------------------------- session

BREAKDOWN_EXITS = "exits per op of the side's counted boot (--count-boots)"


def add_breakdowns(doc, whole=False):
    """Every boot of a side carries its breakdown once one boot counted
    exits (attribution.boots_with_exits): a boot that did not count them
    takes the counted boot's exits per op (`breakdown_exits` says so).
    whole: also the side's breakdown over all its boots (`breakdown`)."""
    lists = attribution.boots_with_exits(doc)
    if not lists:
        return
    for boot in doc["boots"]:
        if boot.get("results") and "breakdown" not in boot:
            boot["breakdown"] = breakdown.breakdown([boot["results"]],
                                                     SUITE_FITS)
            boot["breakdown_exits"] = BREAKDOWN_EXITS
    if whole and len(lists) > 1:
        doc["breakdown"] = breakdown.breakdown(lists, SUITE_FITS)




class Session:
    """The boots of one ab session, both sides."""

    def __init__(self, cfg, after_boot=None):
        self.cfg, self.sides = cfg, cfg.sides
        self.thresholds = cfg.thresholds
        self.after_boot = after_boot
        self.docs = {"a": None, "b": None}
        self.paths = {"a": cfg.a_json, "b": cfg.b_json}
        self.written = {}           # side -> boots in its file so far
        self.walls = []
        self.look_s = 0.0           # seconds the last look's compare took
        self.started = time.monotonic()
        self.plan = None            # the session's plan (run --plan)
        self.plan_entries = []
        self.plans = {}             # side -> its run plan (side_plan)
        self.tmp = privdir.fresh("ab", say)
        self.env_lines = []         # host fingerprint differences
        # names the two files as sides of one interleaved session, so that
        # compare can tell them from blocks of boots taken apart in time
        self.session_id = os.urandom(8).hex()
        schedule = abtest.look_schedule(cfg.max_boots, cfg.looks, cfg.alpha)
        self.seq = abtest.Sequential(schedule, cfg.alpha, cfg.looks,
                                     cfg.metrics)
        self.status = progress_line.Progress()
        self.title = cfg.title
        self.forecast = None        # stats/forecast.py, after the first rounds
        self.forecast_lines = []

    def boots(self, name):
        doc = self.docs[name]
        return len(compare.boot_results(doc)) if doc else 0

    def elapsed(self):
        return time.monotonic() - self.started

    def side_plan(self, name):
        """Side `name`'s run plan (its run words checked as `run` checks
        them), built once: ab sets the options OWN_RUN_OPTIONS name."""
        if name not in self.plans:
            words, qemu_args = self.sides[name]
            one = run_cmd.plan_from_words(
                words, qemu_args, say=lambda _text: None, json=None,
                log=None, junit=None, html=None, repeat=1, no_build=True,
                rounds=self.cfg.rounds, table="none")
            if one.sweep or one.virtio_matrix:
                raise OptionError("side %s options: ab boots one "
                                  "configuration a side (no --viommu sweep "
                                  "or --virtio-matrix)" % name.upper())
            self.plans[name] = one
        return self.plans[name]

    def boot_plan(self, name, counted=True):
        """The plan of one boot of side `name`; `counted`: this boot may
        count exits (the side's first --count-boots), else it runs as
        --no-count-exits whatever the side's words say."""
        one = self.side_plan(name)
        if not counted:
            one = dataclasses.replace(one, count_exits=False)
        if self.plan:
            one = one.with_sample_plan(self.plan, self.plan_entries)
        return one

    def boot(self, name, label, counted=True):
        """One boot of side `name` through the library runner, in this
        process; its words are kept and shown (their tail) only when the
        boot fails, or as they come with -v.  Returns its results
        document, verified as compare verifies a file."""
        begin = time.monotonic()
        self.status.update(status_text(self, "side %s %s" % (name.upper(),
                                                              label)))
        one = self.boot_plan(name, counted)
        kept = []
        con = runner.Console(verbose=self.cfg.verbose,
                             status=progress_line.Progress(terminal=False))
        if not self.cfg.verbose:
            con.say = lambda text: kept.append("%s: %s" % (PROG, text))
            con.tell = kept.append
        record = RunRecord(one)
        try:
            code, _dumps = runner.run_plan(one, record, con)
            message = None
        except TrapmeterError as exc:
            code, message = exc.code, exc.message
            kept.append("%s: %s" % (PROG, message))
        self.walls.append(time.monotonic() - begin)
        if code >= exitstatus.BAD_INPUT or not record.booted:
            raise TrapmeterError(code or exitstatus.INTERNAL,
                                 "side %s %s failed (status %d)%s"
                                 % (name.upper(), label, code,
                                    "".join("\n  " + t for t in kept[-6:])))
        return self.read(record.document(code, [message] if message else []),
                         "side %s %s" % (name.upper(), label))

    def make_plan(self):
        """A planning boot of side A, not compared: its cases, iterations
        and samples (raised to --min-samples) are the plan of every boot
        of the session, both sides."""
        doc = self.boot("a", "planning boot")
        if self.after_boot:
            self.after_boot("a", doc)
        try:
            entries = plan.raised(doc, "planning boot", self.cfg.min_samples,
                                  rounds=self.cfg.rounds)
        except plan.PlanError as exc:
            raise TrapmeterError(exitstatus.UNUSABLE, "planning boot: %s" % exc)
        path = os.path.join(self.tmp, "plan.json")
        report.write_json_atomic(path, plan.document(entries))
        self.plan, self.plan_entries = path, plan.load(path)
        say("planning boot (side A, not compared): %d cases, %s samples"
            % (len(entries), "/".join(sorted({str(e[3]) for e in entries},
                                             key=int))))

    def run_boot(self, name, number):
        """One boot of side `name`; it joins the side."""
        doc = self.boot(name, "boot %d" % number,
                        abtest.counts_exits(number, self.cfg.count_boots))
        self.add(name, doc)

    def read(self, doc, label):
        """A boot's results document as compare reads it back from a file
        (resultsfile.parse_results: numbers, strings, every record's CRC
        and replay)."""
        try:
            return resultsfile.parse_results(
                json.dumps(doc, indent=None).encode("utf-8"), label)
        except UnusableInput as exc:
            raise TrapmeterError(exitstatus.UNUSABLE, "unusable boot: %s" % exc)

    def add(self, name, doc):
        if self.after_boot:
            self.after_boot(name, doc)
        if self.docs[name] is None:
            doc["session"] = {"kind": "ab", "id": self.session_id,
                              "side": name, "order": "A B B A ..."}
            self.docs[name] = doc
            if self.docs["a"] and self.docs["b"]:
                env_check(self)
        else:
            merged = self.docs[name]
            for boot in doc["boots"]:
                boot["index"] = len(merged["boots"])
                merged["boots"].append(boot)
            merged["exit_code"] = max(merged.get("exit_code", 0),
                                      doc.get("exit_code", 0))
            merged["status"] = exitstatus.status_name(merged["exit_code"])
        add_breakdowns(self.docs[name])
        self.write(name)

    def write(self, name):
        """Side `name`'s results so far to its --a-json/--b-json file; a
        file that cannot be written is a named error (2)."""
        try:
            report.write_json_atomic(self.paths[name], self.docs[name])
        except OSError as exc:
            raise OptionError("cannot write --%s-json %s: %s (side %s's %d "
                              "boots are not kept)" % (
                                  name, self.paths[name], exc.strerror or exc,
                                  name.upper(), self.boots(name))) from None
        self.written[name] = self.boots(name)

    def partial_lines(self):
        """What an interrupted session leaves: each side's file and its
        boots so far."""
        return ["side %s: %d boot(s) so far in %s (partial: no verdict)"
                % (name.upper(), boots, self.paths[name])
                for name, boots in sorted(self.written.items())]

    def compare(self, alpha):
        return compare.compare_docs(
            self.docs["a"], self.docs["b"], self.thresholds, self.cfg.seed,
            self.cfg.resamples, self.cfg.stat, alpha)


def resolution_so_far(rows):
    """The smallest shift the last look could flag, over its undecided
    timing rows: "resolves 1.2-4.3 %", or "" before any look."""
    vals = sorted(r.resolution for r in rows or ()
                  if r.timing and r.verdict == "inconclusive"
                  and r.resolution is not None)
    if not vals:
        return ""
    lo, hi = 100 * vals[0], 100 * vals[-1]
    if round(lo, 1) == round(hi, 1):
        return "resolves %.1f %%" % lo
    return "resolves %.1f-%.1f %%" % (lo, hi)


def status_text(session, doing=""):
    """The status line: boots a side, elapsed / budget, metrics decided,
    resolution so far, what runs now."""
    seq = session.seq
    decided = ""
    if seq.taken:
        total = len(seq.frozen) + len(seq.undecided(seq.last_rows))
        decided = "%d/%d decided" % (len(seq.frozen), total)
    return progress_line.status_text(
        session.title, "A %d B %d boots" % (session.boots("a"),
                                           session.boots("b")),
        progress_line.elapsed_text(session.elapsed(), session.cfg.budget),
        decided, resolution_so_far(seq.last_rows), doing)


def progress(session, round_index, undecided, looked):
    """After a round: the status line on a terminal, a plain line in a
    log."""
    session.status.update(status_text(session), force=True)
    if session.status.terminal:
        return
    left = ""
    if session.cfg.budget:
        left = ", %.0f s of budget left" % max(
            0.0, session.cfg.budget - session.elapsed())
    n = session.boots("a")
    text = "round %d: %d+%d boots, %.0f s%s" % (
        round_index + 1, n, session.boots("b"), session.elapsed(), left)
    if looked:
        text += "; look %d/%d (alpha %.4g): %d decided, %d undecided" % (
            session.seq.taken, session.seq.looks, session.seq.level,
            len(session.seq.frozen), len(undecided))
        flagged = sorted("%s %s %s" % (v[0], k[0], k[1]) for k, v in
                         session.seq.frozen.items()
                         if v[0] in ("regression", "improvement"))
        if flagged:
            text += "; " + ", ".join(flagged)
        if undecided:
            text += "; undecided: " + ", ".join(
                "%s %s" % k for k in undecided[:4]) + (
                " ..." if len(undecided) > 4 else "")
    say(text)


def out_of_time(session, look_next=False):
    """No time for another round: its two boots (the mean boot so far),
    and the comparison a look then runs (as long as the last look's:
    on the default case list a look takes seconds), would end after
    --budget."""
    if session.cfg.budget is None or not session.walls:
        return False
    pair = 2.0 * sum(session.walls) / len(session.walls)
    if look_next:
        pair += session.look_s
    return session.elapsed() + pair > session.cfg.budget


def side_binary(words):
    """The --qemu a side's run words give (the last one wins), or None."""
    found = None
    for i, word in enumerate(words):
        if word == "--qemu" and i + 1 < len(words):
            found = words[i + 1]
        elif word.startswith("--qemu="):
            found = word.split("=", 1)[1]
    return found


def env_check(session):
    """At the first boot of both sides: their host fingerprints, less the QEMU
    fields when the sides were given different QEMUs on purpose; a
    cost-changing difference ends the session (status 14)."""
    a, b = (side_binary(session.sides[n][0]) for n in "ab")
    on_purpose = ("qemu",) if a != b else ()
    session.env_lines = compare_cmd.env_check(
        session.docs["a"], session.docs["b"], session.cfg, on_purpose,
        ("side A", "side B"))
    for line in session.env_lines:
        say(line)


def next_is_look(session):
    n = min(session.boots("a"), session.boots("b")) + 1
    return session.seq.is_look(n)


def make_forecast(session):
    """The session's forecast (stats/forecast.py) from its boots so far,
    both sides pooled, at the level of a last look that follows all the
    others."""
    cfg = session.cfg
    logs = forecast.timing_logs([session.docs["a"], session.docs["b"]],
                                cfg.stat)
    level = cfg.alpha * abtest.spending(cfg.looks)[-1]
    session.forecast = forecast.Forecast(logs, level, cfg.seed,
                                         n_end=session.seq.schedule[-1])


def forecast_keys(session):
    return forecast.selected(session.forecast, session.cfg.metrics)


def resolution_end(session):
    """Boots per side at which the forecast reaches --resolution on every
    selected timing metric, or None (no --resolution, no forecast yet)."""
    cfg, fc = session.cfg, getattr(session, "forecast", None)
    if fc is None or cfg.resolution is None:
        return None
    need = [fc.boots_for(k, cfg.resolution, cfg.max_boots // 2)
            for k in forecast_keys(session)]
    need = [n for n in need if n is not None]
    return max(need) if need else None


def say_forecast(session, n):
    """The forecast's lines, once, when the first rounds are done."""
    cfg = session.cfg
    threshold = min([cfg.thresholds.get(m, cfg.thresholds.get(
        "*", compare.DEFAULT_THRESHOLD)) for m in cfg.metrics])
    session.forecast_lines = forecast.lines(
        session.forecast, forecast_keys(session), n,
        session.seq.schedule[-1], threshold, cfg.resolution,
        cfg.max_boots // 2)
    for line in session.forecast_lines:
        say(line)


def fit_looks_to_budget(session, done):
    """After every round: the looks not yet taken spread over the boots
    --budget can still reach at the running wall time of a round (and the
    looks' own time), the last at the end (abtest.replan), so that no boot
    the session runs goes without a look.  Said when the end moves."""
    args = session.cfg
    end = resolution_end(session)
    if (args.budget is None and end is None) or not session.walls:
        return
    pair = 2.0 * sum(session.walls) / len(session.walls)
    seq = session.seq
    left_s = None if args.budget is None else args.budget \
        - session.elapsed() - session.look_s * max(0, seq.looks - seq.taken)
    reach = abtest.boots_within_budget(args.max_boots, done, left_s,
                                       pair) // 2
    if end is not None:
        reach = min(reach, end)
    seq.schedule = abtest.replan(sorted(seq.look_seconds), done, reach,
                                 args.looks, args.alpha)
    said = getattr(session, "said_end", None)
    end = seq.schedule[-1]
    if said is None or abs(end - said) >= max(2, said // 10):
        session.said_end = end
        say("%s: looks at %s boots per side%s" % (
            "budget: about %d boots per side fit in %.0f s" % (
                end, args.budget) if args.budget else "--resolution",
            "/".join(map(str, seq.schedule)), "" if said is None else
            " (re-planned from the running wall time)"))


def flagged_now(session):
    """With stop_at_regression: the selected metrics frozen regression so
    far (empty otherwise)."""
    if not getattr(session.cfg, "stop_at_regression", False):
        return []
    return [k for k, (v, _n) in session.seq.frozen.items()
            if v == "regression" and k[1] in session.seq.metrics]


def rounds_until_decided(session):
    """Rounds until decided or out of boots/time; returns the final rows
    and warnings."""
    rows = warnings = None
    n_rounds = session.cfg.max_boots // 2
    session.make_plan()
    for r in range(n_rounds):
        if r and out_of_time(session, next_is_look(session)):
            say("budget: no time for another round")
            break
        for name in abtest.order(r):
            session.run_boot(name, session.boots(name) + 1)
        n = min(session.boots("a"), session.boots("b"))
        first = n == forecast.FIRST_ROUNDS and isinstance(session, Session)
        if first:
            make_forecast(session)
        fit_looks_to_budget(session, n)
        if first:
            say_forecast(session, n)
        looked = session.seq.is_look(n)
        undecided = None
        if looked:
            # no round left after this one (budget, --max-boots): this
            # look is the last and may spend all alpha not yet spent
            last = r + 1 >= n_rounds or out_of_time(session,
                                                   next_is_look(session))
            level = session.seq.next_level(n, final=last)
            begin = session.elapsed()
            rows, warnings = session.compare(level)
            session.look_s = session.elapsed() - begin
            undecided = session.seq.look(rows, n,
                                         round(session.elapsed(), 1), level)
            if isinstance(session, Session) and session.forecast \
                    and session.cfg.resolution is not None:
                make_forecast(session)      # more boots: a closer end
        progress(session, r, undecided or [], looked)
        if looked and not undecided:
            say("every selected metric is decided")
            return session.seq.final_rows(rows), warnings
        if looked and flagged_now(session):
            say("a selected metric is a regression: the session stops "
                "(the others need not be decided)")
            return session.seq.final_rows(rows), warnings
        if looked and session.seq.spent >= session.cfg.alpha * (1 - 1e-9):
            # all of alpha is spent: a boot after this look could never
            # be compared, so the session ends here
            say("last look taken: the session ends at %d boots per side"
                % n)
            break
    n = min(session.boots("a"), session.boots("b"))
    if session.seq.needs_last_look(n):
        # stopped between looks: the boots so far get one last look, at
        # all the alpha not yet spent
        level = session.seq.next_level(n, final=True)
        rows, warnings = session.compare(level)
        session.seq.look(rows, n, round(session.elapsed(), 1), level)
    return session.seq.final_rows(session.seq.last_rows), warnings


def finish(session, rows, warnings):
    """Table on stdout, compare's outputs, compare's exit status."""
    args = session.cfg
    warnings = session.env_lines + list(warnings) + [
        "ab: %d looks (planned at %s boots per side), alpha %s at them "
        "(%g over the session); %d+%d boots in %.0f s" % (
            session.seq.taken, "/".join(map(str, session.seq.schedule)),
            "/".join("%.3g" % v for v in session.seq.levels), args.alpha,
            session.boots("a"), session.boots("b"), session.elapsed()),
        "ab: every boot ran one plan (%d cases, samples raised to at least "
        "%d where a case's samples take under %.0f ms) from a planning boot "
        "of side A that is not compared" % (
            len(session.plan_entries), args.min_samples, plan.WINDOW_MS),
        "ab: exits counted, where run counts them, in %d boot(s) of each "
        "side, boots 1, 2, 4, ... (--count-boots); cycles_per_exit comes "
        "from those, and every boot's breakdown takes their exits"
        % args.count_boots,
        "ab: case list: %s" % args.case_list, priority_line(args)] + [
        "ab: " + line for line in session.forecast_lines]
    for name in ("a", "b"):
        add_breakdowns(session.docs[name], whole=True)
        session.write(name)
    docs = (session.docs["a"], session.docs["b"])
    title = "trapmeter ab: A %s vs B %s" % (args.a_json, args.b_json)
    compare_cmd.print_verdicts(title, rows, warnings, docs,
                               (args.a_json, args.b_json))
    compare_cmd.write_compare_outputs(args.outputs, rows, warnings, *docs,
                                      args.a_json, args.b_json)
    compare_cmd.write_html(args.outputs, title, rows, warnings, *docs,
                           ("A", "B"), extra=[session_html(session)])
    return compare.exit_status(rows)


def session_html(session):
    """The session's looks for the HTML report: boots a side, time and
    level at each."""
    seq = session.seq
    rows = [[i + 1, n, "-" if seq.look_seconds.get(n) is None else
             "%.0f" % seq.look_seconds[n], "%.3g" % level]
            for i, (n, level) in enumerate(zip(sorted(seq.look_seconds),
                                               seq.levels))]
    return html.section("The session's looks", html.table(
        "table-looks", ["look", "boots a side", "seconds", "alpha"], rows))


def run_session(cfg, after_boot=None):
    """One ab session of `cfg` (a checked SessionConfig), the kernel built
    already: the boots, the table and outputs; compare's exit status.
    after_boot(side, doc), when given, sees each boot's results first."""
    with kvm_lock(cfg.sides):
        session = Session(cfg, after_boot)
        try:
            with session.status:
                rows, warnings = rounds_until_decided(session)
            return finish(session, rows, warnings)
        except KeyboardInterrupt:
            session.status.close()
            for line in session.partial_lines():
                say("interrupted: " + line)
            raise
        finally:
            session.status.close()
            privdir.remove(session.tmp)


def _option_value(words, name):
    """The value of run option `name` in shell words (last one wins)."""
    value = None
    for i, word in enumerate(words):
        if word.startswith(name + "="):
            value = word.split("=", 1)[1]
        elif word == name and i + 1 < len(words):
            value = words[i + 1]
    return value


@contextlib.contextmanager
def kvm_lock(sides):
    """Each boot's runner would take the host's KVM lock for that boot
    only: the session takes it for all of them, so no other measurement
    runs between two of its boots (a runner finds it held by this process
    and keeps it).  Not for TCG sides or --no-lock."""
    words = [w for run_words, _ in sides.values() for w in run_words]
    try:
        timeout = float(_option_value(words, "--lock-timeout")
                        or kvmlock.DEFAULT_TIMEOUT_S)
    except ValueError:
        raise OptionError("--lock-timeout: not a number of seconds") from None
    if "--no-lock" in words or all(
            _option_value(run_words, "--accel") == "tcg"
            for run_words, _ in sides.values()):
        yield
        return
    with kvmlock.held("trapmeter ab (or bisect, sensitivity)", timeout, say):
        yield                   # kvmlock.LockTimeout: status 17


def build_once(args):
    if not args.no_build:
        run_cmd.ensure_built(repo_root())


def command(args, extra=()):
    cfg = config_from_args(args, extra)
    build_once(args)
    return run_session(cfg)
