"""`trapmeter parse LOG`: validate an existing serial log and print the
table."""

import os
import sys

from ..guest import suites
from ..guest.dump import parse_chunks
from ..output import report
from ..system import inputfile
from ..values import exitstatus
from ..values.exitstatus import decide_from_dump
from .common import (OptionError, check_outputs, has_report, report_outcome,
                     write_json)

NAME = "parse"


def add_parser(sub, fmt):
    par = sub.add_parser(NAME, formatter_class=fmt,
                         epilog=exitstatus.EXIT_TABLE,
                         help="validate an existing serial log and print "
                         "the table",
                         description="Parse and validate a COM1 log of a "
                         "trapmeter boot (e.g. from your own QEMU) and print "
                         "the table.")
    par.add_argument("log", metavar="LOG", help="serial log file")
    par.add_argument("--json", metavar="FILE",
                     help="also write results JSON to FILE")


def command(args):
    check_outputs([("LOG", args.log)], [("--json", args.json)])
    try:
        dump = parse_chunks(inputfile.chunks(args.log))
    except inputfile.InputError as exc:
        raise OptionError(str(exc))
    outcome = decide_from_dump(dump)
    report.add_speedups(dump.results)
    info = {"accel": None, "boot": None, "firmware": None, "wall_s": None,
            "title": "log " + os.path.basename(args.log)}
    if has_report(dump):
        sys.stdout.write(report.render_report(dump.run, info, dump.results,
                                              dump.checks, dump.skips))
        sys.stdout.write(suites.rendered(dump))
        sys.stdout.flush()
    report_outcome(outcome, dump, "")
    if args.json:
        write_parse_json(args, dump, outcome)
    return outcome.code


def write_parse_json(args, dump, outcome):
    host_obj = {"qemu_version": None, "accel": None, "kvm_flavour": None,
                "host_cpu": None, "kernel": None, "hostname_hash": None}
    run = dump.run or {}
    config = {"accel": None, "boot": None, "firmware": run.get("firmware"),
              "machine": None, "cmdline": run.get("cmdline"),
              "qemu_argv": None, "source_log": args.log}
    boot = report.boot_entry(0, outcome, dump, None, None)
    doc = report.results_document(host_obj, config, [boot], outcome.code,
                                  outcome.messages)
    write_json(args.json, doc)
