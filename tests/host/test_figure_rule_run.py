#!/usr/bin/env python3
"""The figure rule (tools/trapmeterlib/values/figure.py) over whole real
runs: the results.json of a recorded `make run` under KVM and what the
runner prints for it hold no figure below zero, no "ok" beside a figure
not resolved, and every model figure sits under a "(model)" label.  Runs
recorded before the rule, read through compare (which rules what it
reads), print and store their costs by it too."""

import json
import os
import re
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import ide, mmio  # noqa: E402
from trapmeterlib.output import breakdown_text, report, resultsfile  # noqa: E402
from trapmeterlib.stats import breakdown, compare  # noqa: E402
from trapmeterlib.session import record as run_record  # noqa: E402
from trapmeterlib.values import figure  # noqa: E402
from trapmeterlib.commands.common import SUITE_FITS  # noqa: E402


def runner_breakdown(lists):
    """The breakdown as the runner computes it: with the suites' fits."""
    return breakdown.breakdown(lists, SUITE_FITS)


def runner_applies(results):
    return breakdown.applies(results, SUITE_FITS)

FIX = os.path.join(ROOT, "tests", "fixtures")
MAKE_RUN = "kvm-make-run.json"      # recorded with the rule (fixtures README)
BEFORE = ("kvm-base.json", "kvm-aa.json", "kvm-rep-off.json",
          "kvm-irqchip-off.json")   # recorded before it
# signed by nature, not a figure of a cost or a count: the chosen TSC kHz
# minus the PM timer's, in ppm (the console says it as a size and a side)
SIGNED = {"diff_ppm"}
# what a cost is, in results.json: cycles, the breakdown's totals,
# components and fit terms
COST_PATH = re.compile(r"\.(cycles\w*|measured|components|per_\w+|fixed|"
                       r"rep_fixed|rep_unit|first_unit)(\.|\[|$)")
MINUS = re.compile(r"(?<![\w.\-])-\d")


def negatives(obj, costs_only=False, path=""):
    """Paths of numbers below zero in a JSON value (SIGNED keys apart);
    costs_only: of costs only (COST_PATH)."""
    if isinstance(obj, dict):
        return [p for k, v in obj.items() if k not in SIGNED
                for p in negatives(v, costs_only, path + "." + k)]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj)
                for p in negatives(v, costs_only, "%s[%d]" % (path, i))]
    if isinstance(obj, bool) or not isinstance(obj, (int, float)):
        return []
    return [path] if obj < 0 and (not costs_only or COST_PATH.search(path)) \
        else []


def console(doc):
    """What `run` prints for the doc's boots: each boot's report and
    breakdown, and with more than one boot the median over boots and the
    breakdown across them."""
    host = doc.get("host") or {}
    pvm = host.get("kvm_flavour") == "pvm"
    info = {"accel": host.get("accel"), "kvm_flavour": host.get("kvm_flavour")}
    lists = compare.boot_results(doc)
    text = ""
    for boot in doc["boots"]:
        if not boot.get("results"):
            continue
        text += report.render_report(boot["run"], info, boot["results"],
                                     boot["checks"], boot["skips"])
        text += ide.render(types.SimpleNamespace(results=boot["results"],
                                                 other=boot.get("other") or []))
        text += "\n".join(breakdown_text.format_table(
            runner_breakdown([boot["results"]]), pvm)) + "\n"
    if len(lists) > 1:
        text += report.render_report(doc["boots"][0]["run"], info,
                                     report.aggregate_results(lists), [], [])
        text += "\n".join(breakdown_text.format_table(runner_breakdown(lists),
                                                 pvm)) + "\n"
    return text


def minus_lines(text):
    return [line for line in text.splitlines() if MINUS.search(line)]


def ok_beside_not_resolved(text):
    """Breakdown rows that say "ok" and n.r. at once."""
    return [line for line in text.splitlines() if figure.SHORT in line
            and re.search(r"\bok\b", line)]


class RecordedMakeRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        path = os.path.join(FIX, MAKE_RUN)
        with open(path) as fh:
            cls.stored = json.load(fh)
        cls.doc = resultsfile.read_results(path)
        run_record.add_breakdown(cls.doc)
        cls.text = console(cls.doc)

    def test_results_json_as_written_has_no_figure_below_zero(self):
        self.assertEqual(negatives(self.stored), [])

    def test_read_and_refitted_it_has_none_either(self):
        self.assertEqual(negatives(self.doc), [])

    def test_what_run_prints_has_no_figure_below_zero(self):
        self.assertEqual(minus_lines(self.text), [])
        # the rule acted: this run has figures it cannot resolve
        self.assertIn(figure.SHORT, self.text)
        self.assertIn("where the time goes", self.text)

    def test_no_ok_beside_a_figure_not_resolved(self):
        self.assertEqual(ok_beside_not_resolved(self.text), [])

    def test_every_figure_not_resolved_says_why(self):
        entries = [e for b in self.doc["boots"] for e in b.get("breakdown") or []]
        self.assertTrue(entries)
        for entry in entries + (self.doc.get("breakdown") or []):
            if entry["measured"] is None:
                self.assertTrue(entry.get("measured_reason"), entry["class"])
            for name, comp in (entry.get("components") or {}).items():
                if comp["cycles"] is None:
                    self.assertTrue(comp.get("reason"), (entry["class"], name))
        for boot in self.doc["boots"]:
            for res in boot["results"]:
                net = res.get("cycles_net") or {}
                if None in net.values():
                    self.assertTrue(res.get("cycles_net_reason"), res["case"])


class RecordedBeforeTheRule(unittest.TestCase):
    def test_their_costs_read_and_print_by_the_rule(self):
        for name in BEFORE:
            doc = resultsfile.read_results(os.path.join(FIX, name))
            run_record.add_breakdown(doc)
            self.assertEqual(negatives(doc, costs_only=True), [], name)
            text = console(doc)
            self.assertEqual(minus_lines(text), [], name)
            self.assertEqual(ok_beside_not_resolved(text), [], name)


class ModelLabels(unittest.TestCase):
    """Every column that shows a model figure says "(model)"."""

    MARK = {"exits_model": 271828, "cycles_per_exit_model": 3141.5,
            "exits_per_sector_model": 161.8}

    SHOWN = ("271828", "3142", "161.80")    # the marks as the tables print them

    def columns_of(self, header, cells):
        return {header[i] for i, cell in enumerate(cells)
                if cell.strip().rstrip(" !~u") in self.SHOWN}

    def test_the_results_table(self):
        doc = resultsfile.read_results(os.path.join(FIX, MAKE_RUN))
        for res in doc["boots"][0]["results"]:
            res = dict(res, **{k: v for k, v in self.MARK.items()
                               if k != "exits_per_sector_model"})
            res.pop("cycles_per_exit_model_reason", None)
            for with_qmp in (False, True):
                header = [name for name, _ in report.columns(with_qmp)]
                shown = self.columns_of(header, report.result_row(res, with_qmp))
                self.assertEqual(len(shown), 2, res["case"])
                self.assertTrue(all("(model)" in h for h in shown), shown)

    def test_the_ide_table(self):
        row = dict(self.MARK, suite="ide", case="disk.seq.in16.rep",
                   device="ata0.0", xfer="rep insw", cycles_per_sector=1.0,
                   mib_s=2.0)
        lines = ide.render(types.SimpleNamespace(results=[row], other=[]))
        head, cells = [l for l in lines.splitlines() if l.strip()][1:3]
        # columns by the header's names (two spaces apart)
        names = re.split(r"\s{2,}", head.strip())
        values = re.split(r"\s{2,}", cells.strip())
        shown = self.columns_of(names, values)
        self.assertEqual(len(shown), 2, (names, values))
        self.assertTrue(all("(model)" in h for h in shown), shown)

    def test_the_handler_class_table(self):
        row = {"case": "ptd.mmio.wr8", "handler": "user", "exits_model": 271828,
               "exits_to_qemu_model": 271828, "exits_measured": 1.0,
               "cycles": {"median": 5.0}}
        lines = [l for l in mmio.render([row]).splitlines() if l.strip()][1:3]
        names = re.split(r"\s{2,}", lines[0].strip())
        values = re.split(r"\s{2,}", lines[1].strip())
        shown = self.columns_of(names, values)
        self.assertEqual(len(shown), 2, (names, values))
        self.assertTrue(all("(model)" in h for h in shown), shown)


if __name__ == "__main__":
    unittest.main()
