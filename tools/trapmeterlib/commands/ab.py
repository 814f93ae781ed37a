"""`trapmeter ab`: boot two run configurations alternately (A B B A ...),
re-evaluate after each round and stop when every selected metric is
decided (the sequential method lives in trapmeterlib/stats/abtest.py, the
statistics in trapmeterlib/stats/compare.py).

This module is the command: its options and the session they describe.
The parts: ab_sides.py (each side's run words and plan, the sentinel
list, QEMU's niceness), ab_config.py (SessionConfig, which sensitivity and
bisect build too), ab_session.py (the boots), ab_rounds.py (the rounds,
the looks, the KVM lock) and ab_report.py (what it prints)."""

from ..guest import plan, rounds
from ..stats import abtest
from ..values import exitstatus
from . import ab_rounds, ab_sides
from . import compare as compare_cmd
from . import run as run_cmd
from .ab_config import DEFAULT_COUNT_BOOTS, Outputs, SessionConfig
from .common import budget_seconds, repo_root

NAME = "ab"


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
        "shorter on this project's hosts)." % (", ".join(ab_sides.SENTINEL_CASES),
                                                ab_sides.AB_NICE))
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


def config_from_args(args, extra=()):
    """The session `trapmeter ab` options describe, checked."""
    thresholds = compare_cmd.check_verdict_options(args)
    shared, which = ab_sides.case_list(
        list(getattr(args, "run_options", [])),
        " ".join((args.a_args or "", args.b_args or "")))
    sides = ab_sides.make_sides(shared, extra, (args.a_args, args.b_args),
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


def build_once(args):
    if not args.no_build:
        run_cmd.ensure_built(repo_root())


def command(args, extra=()):
    cfg = config_from_args(args, extra)
    build_once(args)
    return ab_rounds.run_session(cfg)
