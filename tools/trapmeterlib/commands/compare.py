"""`trapmeter compare BASE.json CAND.json`: regression verdicts of a
candidate against a base (the statistics live in trapmeterlib/stats/compare.py)."""

import sys

from ..output import (breakdown_text, compare_plot, comparison, html, junit,
                      report, resultsfile, verdicts)
from ..stats import attribution, compare, kutratio
from ..system import envdiff
from ..values import exitstatus
from ..values.errors import UnusableInput
from .common import OptionError, TrapmeterError, check_outputs, say

NAME = "compare"


def add_parser(sub, fmt):
    cmp_ = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        help="regression verdicts: candidate results.json against a base",
        description="Compare two results.json files (each one or more "
        "boots, run --repeat N) metric by metric. The boot is the unit: "
        "per boot the minimum of a case's samples; the shift candidate/base "
        "is the Hodges-Lehmann estimate over boots with a distribution-free "
        "95%% interval, and one permutation test of the boot labels over all "
        "metrics of the run gives family-wise p-values. Verdicts: "
        "regression, improvement, unchanged, inconclusive (always with one "
        "boot per side). Files not measured alike (samples per case, rounds, "
        "statistic, TSC rate, accel) get no timing verdict for the cases "
        "concerned (refused); other differences, and files that are not "
        "the two sides of one ab session, are named. Exit status 0: no "
        "regression; 10: regression; 11: unusable input; 13: timing "
        "verdicts refused.")
    add = cmp_.add_argument
    add("base", metavar="BASE.json")
    add("candidate", metavar="CAND.json")
    add_verdict_options(add)


def add_verdict_options(add):
    """The options of a verdict, shared by compare, ab and sensitivity."""
    add("--threshold", metavar="[METRIC=]PCT", action="append", default=[],
        help="threshold t in percent (default %g): a significant change "
        "must exceed it, an interval inside +-t is 'unchanged'; "
        "METRIC=PCT for one metric (cycles_per_op, cycles_per_exit, "
        "exits_per_op, mib_s, pps, ...); repeatable"
        % (compare.DEFAULT_THRESHOLD * 100))
    add("--alpha", type=float, default=compare.DEFAULT_ALPHA,
        help="false-alarm level for all metrics of the run together "
        "(default %g)" % compare.DEFAULT_ALPHA)
    add("--stat", choices=compare.STATS, default=compare.DEFAULT_STAT,
        help="per-boot figure of a case: the minimum (default), p10 or "
        "median of its samples (of a boot in rounds: the lowest of its "
        "rounds' p10 or medians, each from its least disturbed round; the "
        "minimum is exact)")
    add("--seed", type=int, default=compare.DEFAULT_SEED,
        help="seed of the random label splits (default %d)"
        % compare.DEFAULT_SEED)
    add("--resamples", type=int, default=compare.DEFAULT_RESAMPLES,
        help="random label splits when there are more than %d (default "
        "%d)" % (compare.bootstats.EXACT_MAX, compare.DEFAULT_RESAMPLES))
    add("--junit", metavar="FILE", help="JUnit XML, one testcase per metric")
    add("--markdown", metavar="FILE", help="Markdown summary for CI")
    add("--plot", metavar="FILE.svg", help="REP vs single cycles per unit "
        "over transfer size, base vs candidate")
    add("--plot-engine", choices=("auto", "gnuplot", "python"),
        default="auto", help="gnuplot when installed (auto) or the plain "
        "Python SVG writer")
    add("--json", metavar="FILE", help="verdicts as JSON")
    add("--html", metavar="FILE", help="a self-contained HTML report: the "
        "summary, a per-boot strip plot of every flagged metric, the "
        "verdict table")
    add("--allow-env-diff", metavar="FIELD", action="append", default=[],
        help="judge although the sides' host fingerprints differ in FIELD "
        "(a name as printed, e.g. vulnerabilities.retbleed, or a group: "
        "vulnerabilities, cpu, kvm; comma list, repeatable), which changes "
        "trap costs by itself: a warning instead of status 14")


def env_check(base, cand, args, on_purpose=(), labels=("base",
                                                          "candidate")):
    """The host fingerprint lines to add to the warnings; a cost-changing
    difference not allowed is refused (status 14)."""
    lines, refused = envdiff.check(base, cand, envdiff.parse_allowed(
        getattr(args, "allow_env_diff", [])), on_purpose, labels)
    if refused:
        for line in lines:
            say(line)
        raise TrapmeterError(exitstatus.ENV_DIFFERS,
                             envdiff.refusal_message(refused))
    return lines


def check_verdict_options(args):
    """Thresholds as fractions; bad values and missing output directories
    are bad input."""
    thresholds = parse_thresholds(args.threshold)
    try:
        envdiff.parse_allowed(getattr(args, "allow_env_diff", []))
    except ValueError as exc:
        raise OptionError(str(exc))
    if args.resamples < 100 or args.resamples > 1000000:
        raise OptionError("--resamples must be 100..1000000")
    if not 0 < args.alpha < 0.5:
        raise OptionError("--alpha must be between 0 and 0.5 (got %g)"
                          % args.alpha)
    for opt in ("junit", "markdown", "plot", "json", "html"):
        path = getattr(args, opt)
        if path and not junit.exists_dir(path):
            raise OptionError("--%s %s: directory does not exist"
                              % (opt, path))
    return thresholds


NAMED_METRICS = ("cycles_per_op", "exits_per_op", "cycles_per_exit",
                 kutratio.REL_METRIC)


def check_metric(metric, option):
    """A metric compare can produce (compare.observations), else bad
    input naming the known ones."""
    if metric in NAMED_METRICS or compare.GENERIC_RE.search(metric):
        return
    raise OptionError("%s: unknown metric %r (known: %s, or a throughput "
                      "field such as mib_s or pps)"
                      % (option, metric, ", ".join(NAMED_METRICS)))


def parse_thresholds(items):
    """["10", "cycles_per_op=20"] -> {"*": 0.10, "cycles_per_op": 0.20}."""
    out = {}
    for item in items:
        metric, eq, pct = item.rpartition("=")
        if eq and not metric:
            raise OptionError("--threshold %r: a metric name before '=' "
                              "(or only the PERCENT)" % item)
        if metric:
            check_metric(metric, "--threshold %s" % item)
        try:
            value = float(pct)
        except ValueError:
            value = -1.0
        if not 0 < value < 1000 or value != value:
            raise OptionError("--threshold %r: expected [METRIC=]PERCENT with "
                              "0 < PERCENT < 1000" % item)
        out[metric or "*"] = value / 100.0
    return out


VERDICT_OUTPUTS = ("json", "markdown", "junit", "plot", "html")


def verdict_outputs(args):
    """[(option, path)] of the verdict's outputs, for check_outputs."""
    return [("--" + opt, getattr(args, opt)) for opt in VERDICT_OUTPUTS]


def command(args):
    check_outputs([("BASE.json", args.base), ("CAND.json", args.candidate)],
                  verdict_outputs(args))
    thresholds = check_verdict_options(args)
    base, cand, rows, warnings = compare_files(args, thresholds)
    title = "trapmeter compare: base %s vs candidate %s" % (args.base,
                                                           args.candidate)
    print_verdicts(title, rows, warnings, (base, cand),
                   (args.base, args.candidate))
    write_compare_outputs(args, rows, warnings, base, cand, args.base,
                          args.candidate)
    write_html(args, title, rows, warnings, base, cand, ("base", "candidate"))
    return compare.exit_status(rows)


def side_boots(base, cand):
    return (len(compare.boot_results(base)), len(compare.boot_results(cand)))


def print_verdicts(title, rows, warnings, docs, paths):
    """The summary (output/verdicts.py), then compare's table and the
    breakdown's attribution."""
    head = verdicts.compare_summary([r.as_dict() for r in rows], title,
                                    side_boots(*docs))
    sys.stdout.write("\n".join(head) + "\n\n")
    sys.stdout.write(comparison.render_table(rows, warnings, *paths))
    sys.stdout.write(attribution_text(*docs))
    sys.stdout.flush()


def write_html(args, title, rows, warnings, base, cand, labels, extra=()):
    if not args.html:
        return
    try:
        report.write_text_atomic(args.html, html.compare_report(
            rows, warnings, title, labels, side_boots(base, cand), extra))
    except OSError as exc:
        raise OptionError("cannot write --html %s: %s"
                          % (args.html, exc.strerror or exc))
    say("report written to %s" % args.html)


def compare_files(args, thresholds):
    """(base doc, candidate doc, rows, warnings); unusable input is 11."""
    try:
        base = resultsfile.read_results(args.base)
        cand = resultsfile.read_results(args.candidate)
        if not {base.get("schema"), cand.get("schema")} <= set(
                resultsfile.KNOWN_SCHEMAS):
            raise UnusableInput("different schemas: base %r, "
                                     "candidate %r" % (base.get("schema"),
                                                       cand.get("schema")))
        env = env_check(base, cand, args)
        rows, warnings = compare.compare_docs(base, cand, thresholds,
                                              args.seed, args.resamples,
                                              args.stat, args.alpha)
        warnings = env + warnings
    except UnusableInput as exc:
        raise TrapmeterError(exitstatus.UNUSABLE, "unusable input: %s" % exc)
    if not rows:
        raise TrapmeterError(exitstatus.UNUSABLE, "unusable input: no case is "
                             "in both files")
    return base, cand, rows, warnings


def attribution_text(base, cand):
    """The cost breakdown's attribution lines (attribution.py), or ''."""
    lines = breakdown_text.render_attribution(attribution.attribution(base, cand))
    return "\n".join(lines) + "\n" if lines else ""


def write_compare_outputs(outputs, rows, warnings, base, cand, base_path,
                          cand_path):
    """The files `outputs` names (its json, markdown, junit, plot and
    plot_engine: compare's options or ab's Outputs)."""
    args = outputs
    try:
        if args.junit:
            junit.write(args.junit, junit.to_xml(
                "trapmeter compare", comparison.junit_cases(rows, warnings)))
        if args.markdown:
            report.write_text_atomic(args.markdown, comparison.render_markdown(
                rows, warnings, base_path, cand_path))
        if args.json:
            report.write_json_atomic(args.json, comparison.json_document(
                rows, warnings, base_path, cand_path,
                attribution.attribution(base, cand)))
        if args.plot:
            engine = compare_plot.write_plot(args.plot, compare.boot_results(base),
                                     compare.boot_results(cand),
                                     args.plot_engine)
            say("plot written to %s (%s)" % (args.plot, engine))
    except compare_plot.PlotError as exc:
        say("warning: no plot: %s" % exc)
    except OSError as exc:
        raise OptionError("cannot write output: %s" % (exc.strerror or exc))
