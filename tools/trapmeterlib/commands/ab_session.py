"""The boots of one ab session, both sides (Session): the planning boot
whose sample plan every boot then runs, each boot of a side's plan through
the library runner (session/runner.py) in this process, its results
document verified as compare reads a file, the side's file written after
every boot, and the host check once both sides have booted."""

import dataclasses
import json
import os
import time

from ..guest import plan
from ..output import progress as progress_line, report, resultsfile
from ..session import runner
from ..session.record import RunRecord
from ..stats import abtest, attribution, breakdown, compare
from ..system import privdir
from ..values import exitstatus
from ..values.errors import UnusableInput
from . import ab_report, ab_sides
from . import compare as compare_cmd
from .common import (PROG, SUITE_FITS, OptionError, TrapmeterError, say)

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
        # side -> its run plan (side_plan)
        self.plans = dict(getattr(cfg, "plans", None) or {})
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
        """Side `name`'s run plan (cfg.plans, or built once from its
        words: ab_sides.side_plan)."""
        if name not in self.plans:
            words, qemu_args = self.sides[name]
            self.plans[name] = ab_sides.side_plan(name, words, qemu_args,
                                                  self.cfg.rounds)
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
        self.status.update(ab_report.status_text(self, "side %s %s" % (name.upper(),
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

    def keep_sides(self):
        """At the end: each side's breakdown over all its boots, and its
        file written once more."""
        for name in ("a", "b"):
            add_breakdowns(self.docs[name], whole=True)
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


def env_check(session):
    """At the first boot of both sides: their host fingerprints, less the QEMU
    fields when the sides were given different QEMUs on purpose; a
    cost-changing difference ends the session (status 14)."""
    a, b = (ab_sides.side_binary(session.sides[n][0]) for n in "ab")
    on_purpose = ("qemu",) if a != b else ()
    session.env_lines = compare_cmd.env_check(
        session.docs["a"], session.docs["b"], session.cfg, on_purpose,
        ("side A", "side B"))
    for line in session.env_lines:
        say(line)
