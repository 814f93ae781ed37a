"""`trapmeter import-kut LOG...`: kvm-unit-tests x86/vmexit logs to
results.json (suite "kut", one boot per log), for `compare` and `ab`."""

import sys

from ..backends import kut_log
from ..output import kut_table, report
from ..system import inputfile
from ..values import exitstatus
from ..values.exitstatus import decide_from_dump
from .common import OptionError, check_outputs, say, write_json

NAME = "import-kut"


def add_parser(sub, fmt):
    imp = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        help="turn kvm-unit-tests vmexit logs into results.json",
        description="Read the serial output of kvm-unit-tests' "
        "x86/vmexit.flat (from `./x86/run x86/vmexit.flat -append ...` or "
        "logs/vmexit_*.log of `./run_tests.sh -g vmexit`), one boot per "
        "file, and write results.json with vmexit's figures as suite "
        "\"kut\" (cases named as vmexit names them), so `trapmeter compare` "
        "judges two sets of vmexit logs with trapmeter's statistics. A file "
        "with no vmexit line is refused by name (exit status 2).")
    imp.add_argument("logs", metavar="LOG", nargs="+", help="vmexit log")
    imp.add_argument("--json", metavar="FILE", default="results.json",
                     help="results file (default results.json)")


def load_log(path):
    """The KutLog of one file; OptionError naming a file that is not one."""
    try:
        raw = inputfile.read_text(path)
    except inputfile.InputError as exc:
        raise OptionError(str(exc))
    if len(raw) > kut_log.MAX_LOG_BYTES:
        raise OptionError("%s: %d bytes: larger than any vmexit log (%d)"
                          % (path, len(raw), kut_log.MAX_LOG_BYTES))
    try:
        return kut_log.parse(path, raw.decode("utf-8", "replace"))
    except kut_log.KutLogError as exc:
        raise OptionError(str(exc))


def boots_from_logs(logs):
    """(boot entries, worst status) of parsed KutLogs."""
    boots, worst = [], exitstatus.OK
    for index, log in enumerate(logs):
        dump = kut_log.to_dump(log)
        outcome = decide_from_dump(dump)
        outcome.messages.extend(log.bad[:5])
        entry = report.boot_entry(index, outcome, dump, None, None)
        entry["kut_log"] = log.path
        boots.append(entry)
        worst = max(worst, outcome.code)
    return boots, worst


def command(args):
    check_outputs([("LOG", path) for path in args.logs],
                  [("--json", args.json)])
    logs = [load_log(path) for path in args.logs]
    for log in logs:
        say("%s: %d vmexit figure(s), %d skipped%s" % (
            log.path, len(log.figures), len(log.skipped),
            ", %d bad line(s)" % len(log.bad) if log.bad else ""))
    boots, worst = boots_from_logs(logs)
    host_obj = {"qemu_version": None, "accel": None, "kvm_flavour": None,
                "host_cpu": None, "kernel": None, "hostname_hash": None}
    config = {"accel": None, "boot": None, "firmware": None, "machine": None,
              "cmdline": None, "qemu_argv": None, "source": "kvm-unit-tests",
              "source_logs": list(args.logs)}
    summary = None
    if len(boots) > 1:
        summary = {"boots": len(boots), "results": report.aggregate_results(
            [b["results"] for b in boots])}
    sys.stdout.write(kut_table.render_vmexit(boots))
    sys.stdout.flush()
    write_json(args.json, report.results_document(host_obj, config, boots,
                                                  worst, (), summary))
    return worst
