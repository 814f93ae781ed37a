"""`trapmeter history add|check|report|export`: a history of runs per
host (backends/historydb.py, one SQLite file), its change points
(stats/changepoint.py), a dashboard (output/history_html.py) and exports
(output/history_export.py); `add` is commands/history_add.py."""

import argparse
import json
import math
import shlex
import sys

from ..backends import historydb
from ..output import history_export, history_html, history_text
from ..stats import changepoint, changewatch, runlevel
from ..values import exitstatus
from . import bisect as bisect_cmd
from . import history_add
from .common import OptionError, TrapmeterError, say, write_file

NAME = "history"
DEFAULT_DB = "history.db"
BISECT_WORDS = "--repo REPO --build CMD --binary PATH"


def add_parser(sub, fmt):
    his = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        help="a history of runs: add, check for change points, report, "
        "export",
        description="Keep results of runs in one SQLite file (--db), one "
        "series per host fingerprint; find level shifts over the runs "
        "with a family-wise false-alarm level (docs/design.md, "
        "\"History\"); draw them; export them for Otava or Prometheus.")
    verbs = his.add_subparsers(dest="verb", metavar="VERB")
    add = verbs.add_parser("add", formatter_class=fmt,
                           help="add results files (run, ab, import-lava)")
    add.add_argument("files", metavar="FILE", nargs="+",
                     help="results.json of run, ab (--a-json/--b-json) or "
                     "import-lava")
    add.add_argument("--commit", metavar="ID", help="the commit measured")
    add.add_argument("--date", metavar="DATE",
                     help="its date (ISO 8601, e.g. 2026-12-03T09:40Z)")
    add.add_argument("--describe", metavar="DIR",
                     help="take commit, date and `git describe` from the "
                     "checkout DIR")
    add.add_argument("--label", metavar="TEXT", help="a label for the run")
    add.add_argument("--fingerprint-from", metavar="FILE",
                     help="the host fingerprint of another results.json "
                     "of the same host (for an import-lava file, which has "
                     "none)")
    chk = verbs.add_parser("check", formatter_class=fmt,
                           help="find change points; status %d when the "
                           "newest runs start one"
                           % exitstatus.HISTORY_CHANGE)
    chk.add_argument("--bisect", action="store_true",
                     help="run the bisect that names the commit (needs "
                     "--repo, --build and --binary)")
    for flag, what in (("--repo", "the repository of the builds"),
                       ("--build", "bisect --build"),
                       ("--binary", "bisect --binary")):
        chk.add_argument(flag, metavar="X", help=what)
    chk.add_argument("--bisect-args", metavar="WORDS", default="",
                     help="more bisect and run options, one shell word list")
    chk.add_argument("--every-run", action="store_true",
                     help="this check is one of a series, one after each "
                     "new run: test only whether the newest run completes "
                     "a change, at alpha/horizon, so that a series of "
                     "--horizon checks raises a false alarm with at most "
                     "--alpha (default %g)" % changewatch.ALPHA)
    rep = verbs.add_parser("report", formatter_class=fmt,
                           help="one self-contained HTML page (the "
                           "changes of one look and the alarms of checks "
                           "after every run, judged as `check` with the "
                           "same --alpha, --horizon and --cusum-threshold "
                           "judges them)")
    for parser in (chk, rep):
        judge_options(parser)
    rep.add_argument("--html", metavar="OUT", required=True)
    exp = verbs.add_parser("export", formatter_class=fmt,
                           help="CSV (Apache Otava) or OpenMetrics text")
    exp.add_argument("--csv", metavar="OUT")
    exp.add_argument("--openmetrics", metavar="OUT")
    exp.add_argument("--boots-json", metavar="OUT",
                     help="one series' boots as tests/host/"
                     "history_simulation.py --fixture reads them: to "
                     "measure --cusum-threshold on this host's own runs "
                     "(docs/ci.md)")
    for parser in (add, chk, rep, exp):
        parser.add_argument("--db", metavar="PATH", default=DEFAULT_DB,
                            help="the history file (default %s)"
                            % DEFAULT_DB)
        parser.add_argument("--busy-timeout", type=float, metavar="S",
                            default=historydb.BUSY_S,
                            help="wait this long for another writer "
                            "(default %g)" % historydb.BUSY_S)
    for parser in (chk, rep, exp):
        parser.add_argument("--series", metavar="KEY",
                            help="only the series whose key starts so")
        parser.add_argument("--case", metavar="NAME",
                            help="only this case (suite/case or case)")


THRESHOLD_HELP = (
    "the sum at which the CUSUM of the calm runs alarms, in checks after "
    "every run (default %g: the largest CUSUM of a 100-run A/A series "
    "passed it in about 1 %%%% of replays and model series of this "
    "project's build machine's recorded runs; another host measures its "
    "own: `history export --boots-json` of its A/A runs, then "
    "tests/host/history_simulation.py --fixture that file --parts "
    "watch-null, docs/ci.md)"
    % changewatch.THRESHOLD)


def judge_options(parser):
    """The options that decide a change: check's, and report's, whose
    marks are the checks' (one definition, so that a page drawn with the
    options a job checks with shows what its checks raised)."""
    parser.add_argument("--alpha", type=float, default=None,
                        help="family-wise false-alarm level of one series "
                        "(default %g for one look; with --every-run, and "
                        "report's alarms of checks after every run, over "
                        "--horizon checks, default %g)"
                        % (changepoint.ALPHA, changewatch.ALPHA))
    parser.add_argument("--horizon", type=int, metavar="N",
                        default=changewatch.HORIZON,
                        help="checks after every run: the checks alpha is "
                        "spent over (default %d)" % changewatch.HORIZON)
    parser.add_argument("--cusum-threshold", type=float, metavar="S",
                        default=changewatch.THRESHOLD, help=THRESHOLD_HELP)


def command(args):
    if args.verb is None:
        raise OptionError("history needs a verb: add, check, report or "
                          "export (see 'trapmeter history --help')")
    if not args.busy_timeout >= 0:
        raise OptionError("--busy-timeout %s: seconds, at least 0"
                          % args.busy_timeout)
    every = getattr(args, "every_run", False)
    if not 0 < alpha_of(args) < 1:
        raise OptionError("--alpha %s: a level between 0 and 1"
                          % args.alpha)
    if (every or args.verb == "report") and args.horizon < 1:
        raise OptionError("--horizon %d: checks, at least 1"
                          % args.horizon)
    threshold = getattr(args, "cusum_threshold", 1.0)
    if not 0 < threshold < math.inf:
        raise OptionError("--cusum-threshold %s: a sum above 0"
                          % threshold)
    try:
        return {"add": history_add.cmd_add, "check": cmd_check, "report": cmd_report,
                "export": cmd_export}[args.verb](args)
    except historydb.HistoryError as exc:
        code = exitstatus.UNUSABLE if exc.kind == "duplicate" else \
            exitstatus.HISTORY_UNUSABLE
        raise TrapmeterError(code, "history %s: %s" % (exc.kind,
                                                        exc.message))


def alpha_of(args, every=None):
    """--alpha, or the default of the check asked for: the one-look
    check's, or --every-run's (spent over --horizon checks; `every`
    True: report's alarms of the checks after every run)."""
    alpha = getattr(args, "alpha", 0.5)
    if alpha is None:
        if every is None:
            every = getattr(args, "every_run", False)
        alpha = changewatch.ALPHA if every else changepoint.ALPHA
    return alpha


# ---------------------------------------------------------------- read

class Series:
    """One host's runs, figures and changes."""

    def __init__(self, conn, host_id, case, alpha, horizon=None,
                 threshold=None):
        self.alpha = alpha
        self.host = historydb.host(conn, host_id)
        self.runs = historydb.runs_of(conn, host_id)
        figures = historydb.figures_of(conn, host_id)
        if case:
            figures = {k: v for k, v in figures.items()
                       if case in (k[1], "%s/%s" % k[:2])}
        self.figures = figures
        self.measures = measures(figures)
        ids = [r["id"] for r in self.runs]
        self.analysis = changepoint.analyse(
            ids, {k: {r: v[0] for r, v in f["runs"].items()}
                  for k, f in figures.items()},
            {k: f["kind"] for k, f in figures.items()}, alpha)
        self.watch = None if horizon is None else self._watch(
            ids, alpha, horizon, threshold)
        self.alarms = self.alarm_level = None

    def floors(self):
        """{key: [log floor or None per run]} of the timing series."""
        ids, floors = [r["id"] for r in self.runs], {}
        for key, fig in self.figures.items():
            if fig["kind"] == "timing":
                row = [runlevel.floor(fig["runs"][r][3])
                       if r in fig["runs"] else None for r in ids]
                floors[key] = [math.log(v) if v else None for v in row]
        return floors

    def _watch(self, ids, alpha, horizon, threshold):
        """The check after the newest run: floors of the timing series,
        and the count changes the newest runs start."""
        found = changewatch.watch(self.floors(), len(ids), alpha, horizon,
                                  threshold)
        counts = [c for c in self.analysis.newest() if c.kind == "count"]
        found.changes = sorted(found.changes + counts,
                               key=lambda c: (c.index, str(c.key)))
        return found

    def every_run(self, alpha, horizon, threshold):
        """The alarms of a check after each run (--every-run) over the
        whole history, as a job would have raised them."""
        self.alarms = changewatch.replay(self.floors(), len(self.runs),
                                         alpha, horizon, threshold)
        self.alarm_level = (alpha, horizon, threshold)
        return self.alarms

    def newest(self):
        """The changes the newest runs start: of the one-look analysis,
        or of the check after every run."""
        return (self.watch or self.analysis).newest()


def measures(figures):
    """{(suite, case, metric): [measure, ...]} of the cases and metrics
    with more than one measure in a series (each its own series of the
    case), in the order their first runs came."""
    out = {}
    for key, fig in figures.items():
        out.setdefault(key[:3], []).append((min(fig["runs"]), key[3]))
    return {k: [m for _r, m in sorted(v)] for k, v in out.items()
            if len(v) > 1}


def load(args, alpha=changepoint.ALPHA, horizon=None, threshold=None):
    conn = historydb.open_db(args.db, busy_s=args.busy_timeout)
    try:
        ids = [h for h in historydb.hosts(conn)
               if not args.series or historydb.host(conn, h)["key"]
               .startswith(args.series)]
        if not ids:
            raise OptionError("no series %s in %s" % (
                "starting %r" % args.series if args.series else "at all",
                args.db))
        out = [Series(conn, h, args.case, alpha, horizon, threshold)
               for h in ids]
    finally:
        conn.close()
    if args.case and not any(s.figures for s in out):
        raise OptionError("--case %s: no such case in %s" % (args.case,
                                                             args.db))
    return [s for s in out if s.figures]


# ---------------------------------------------------------------- check

def cmd_check(args):
    if args.bisect and not (args.repo and args.build and args.binary):
        raise OptionError("--bisect needs --repo, --build and --binary")
    code = exitstatus.OK
    for ser in load(args, alpha_of(args),
                    args.horizon if args.every_run else None,
                    args.cusum_threshold):
        sys.stdout.write(history_text.check_text(ser))
        newest = ser.newest()
        if not newest:
            continue
        code = exitstatus.HISTORY_CHANGE
        words = bisect_words(ser, newest, args)
        if words is None:
            print("  bisect: not resolved: the runs around the change have "
                  "no commit (history add --commit or --describe)")
            continue
        print("  bisect: tools/trapmeter bisect " + " ".join(
            shlex.quote(w) for w in words))
        if args.bisect:
            status = run_bisect(words)
            say("history: bisect ended with status %d (%s)" % (
                status, exitstatus.status_name(status)))
    return code


def bisect_words(ser, newest, args):
    """The bisect command line between the last run before the newest
    change and the first run after it, or None without commits."""
    first = min(c.index for c in newest)
    good, bad = ser.runs[first - 1], ser.runs[first]
    if not good["commit_id"] or not bad["commit_id"]:
        return None
    cases = sorted({"%s" % c.key[1] for c in newest})
    suites = sorted({c.key[0] for c in newest})
    where = ["--repo", args.repo, "--build", args.build, "--binary",
             args.binary] if args.repo else shlex.split(BISECT_WORDS)
    method = ser.host["fields"]
    accel = method.get("method.accel")
    return (where + ["--good", good["commit_id"], "--bad", bad["commit_id"]]
            + (["--accel", accel] if accel else [])
            + ["--suite", ",".join(suites), "--case", ",".join(cases)]
            + shlex.split(args.bisect_args))


def run_bisect(words):
    """Run `trapmeter bisect WORDS` through bisect's own parser."""
    top = argparse.ArgumentParser(prog="trapmeter", add_help=False)
    sub = top.add_subparsers(dest="command")
    bisect_cmd.add_parser(sub, argparse.RawDescriptionHelpFormatter)
    ns, unknown = top.parse_known_args([bisect_cmd.NAME] + words)
    ns.run_options = unknown
    say("history: running bisect " + " ".join(map(shlex.quote, words)))
    return bisect_cmd.command(ns, [])


# ---------------------------------------------------------------- outputs

def cmd_report(args):
    series = load(args, alpha_of(args, every=False))
    for ser in series:
        ser.every_run(alpha_of(args, every=True), args.horizon,
                      args.cusum_threshold)
    write_file(args.html, history_html.page(series, args.db).encode())
    say("history: wrote %s (%d series)" % (args.html, len(series)))
    return exitstatus.OK


def cmd_export(args):
    if not (args.csv or args.openmetrics or args.boots_json):
        raise OptionError("export needs --csv OUT, --openmetrics OUT or "
                          "--boots-json OUT")
    series = load(args)
    if args.csv:
        ser = one_series(series, "--csv", "Otava reads one test per file")
        keys = kept(ser, "--csv", *history_export.csv_columns(ser),
                    why="Otava reads every cell of a column as a number; "
                    "--openmetrics keeps it")
        write_file(args.csv, history_export.csv_text(ser, keys).encode())
    if args.boots_json:
        ser = one_series(series, "--boots-json", "the simulation models "
                         "one host")
        keys = kept(ser, "--boots-json", *history_export.boots_cases(ser),
                    why="the simulation draws every case of every boot")
        write_file(args.boots_json, (json.dumps(history_export.boots_doc(
            ser, keys), separators=(",", ":")) + "\n").encode())
    if args.openmetrics:
        write_file(args.openmetrics,
                   history_export.openmetrics(series).encode())
    return exitstatus.OK


def one_series(series, flag, why):
    if len(series) > 1:
        raise OptionError("%s writes one series (%s): choose it with "
                          "--series (%s)" % (flag, why, ", ".join(
                              s.host["key"] for s in series)))
    return series[0]


def kept(ser, flag, keys, gaps, why):
    """The keys an export keeps; those left out said by name."""
    for key, have in gaps.items():
        say("history: %s: %s left out: a figure in runs %s of %d only (%s)"
            % (flag, history_export.column(ser, key),
               history_text.run_ranges(have) or "none", len(ser.runs), why))
    if not keys:
        raise OptionError("%s: no case has a figure in every run of series "
                          "%s (%s): choose runs' cases with --case%s"
                          % (flag, ser.host["key"], why, ", or use "
                             "--openmetrics" if flag == "--csv" else ""))
    return keys
