"""`trapmeter import-lava LOG...`: lava-run logs or LAVA results exports
to results.json."""

import sys

from ..backends import lava_results, lava_job
from ..output import report
from ..values import exitstatus
from .common import OptionError, check_outputs, say, write_json

NAME = "import-lava"


def add_parser(sub, fmt):
    imp = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        help="turn lava-run logs or LAVA results exports into results.json",
        description="Read lava-run logs (stderr of lava-run, or a job's "
        "log from the server) and/or LAVA results exports (JSON or CSV; "
        "YAML with python3-yaml), one boot per file, and write "
        "results.json for `trapmeter compare`. From a log the guest's own "
        "dump is rebuilt from the serial lines, validated (count, CRC) and "
        "cross-checked against the LAVA test cases.")
    imp.add_argument("logs", metavar="LOG", nargs="+",
                     help="lava-run log or results export")
    imp.add_argument("--json", metavar="FILE", default="results.json",
                     help="results file (default results.json)")


def command(args):
    check_outputs([("LOG", path) for path in args.logs],
                  [("--json", args.json)])
    runs, boots, worst = [], [], exitstatus.OK
    for index, path in enumerate(args.logs):
        run, entry, outcome = load_one(index, path)
        runs.append(run)
        boots.append(entry)
        worst = max(worst, outcome.code)
    host_obj, argv = lava_results.host_from_runs(runs)
    run0 = next((b["run"] for b in boots if b.get("run")), None) or {}
    config = {"accel": host_obj["accel"], "boot": "iso", "firmware":
              run0.get("firmware"), "machine": None,
              "cmdline": run0.get("cmdline"), "qemu_argv": argv,
              "source": "lava", "source_logs": list(args.logs)}
    summary = None
    if len(boots) > 1:
        results = report.aggregate_results([b["results"] for b in boots])
        summary = {"boots": len(boots), "results": results}
    print_table(host_obj, run0, boots, summary)
    doc = report.results_document(host_obj, config, boots, worst, (),
                                  summary)
    write_json(args.json, doc)
    return worst


def load_one(index, path):
    """(run, boot entry, outcome) of one log or export, said on stderr."""
    try:
        run = lava_results.load(path)
    except lava_job.LavaError as exc:
        raise OptionError(str(exc))
    entry, outcome = lava_results.boot_from_run(index, run)
    info = entry["lava"]
    say("%s: %d trapmeter test case(s), %s @tm result(s), job result %s, "
        "status %s" % (path, info["test_cases"],
                       info.get("dump_results", "no"),
                       info["job_result"] or "?", outcome.name))
    for message in outcome.messages:
        say(message)
    return run, entry, outcome


def print_table(host_obj, run0, boots, summary):
    good = [b for b in boots if b["results"]]
    if not good:
        return
    results = summary["results"] if summary else good[0]["results"]
    checks = report.aggregate_checks([b["checks"] for b in boots])
    skips = report.aggregate_skips([b["skips"] for b in boots])
    info = {"accel": host_obj["accel"], "boot": "lava", "firmware": None,
            "wall_s": None, "title": "LAVA, %d log(s)" % len(boots)}
    sys.stdout.write(report.render_report(run0 or None, info, results,
                                          checks, skips))
    sys.stdout.flush()
