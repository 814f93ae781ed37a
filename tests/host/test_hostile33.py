"""tests/host/test_hostile33.py - hostile input, round three (issue 33),
outside bisect: each probe that failed is a test here, red on the code
before its fix.

- --budget: inf, nan, 1e308, 0 and below refused when the options are
  parsed (ab, sensitivity), and by the check every ab session goes
  through (bisect's too), never int() of an infinite share later.
- A case whose sampling stopped on its budget (`"stop": "budget"`) is
  marked "unsettled (stopped on budget)" in every table that shows its
  figures and left out of the summary's exit costs and REP speed-ups."""

import copy
import json
import math
import os
import sys
import unittest

from tests.host.test_hostile import ROOT, Cli

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.commands import ab as ab_cmd  # noqa: E402
from trapmeterlib.commands import common  # noqa: E402
from trapmeterlib.guest import resultform  # noqa: E402
from trapmeterlib.output import html, report, summary  # noqa: E402

RUN3 = os.path.join(ROOT, "tests", "fixtures", "kvm-run3.json")
UNSETTLED_CASE = "fwcfg.in8.single.1"     # boot 0: 7 samples, stop budget

ABSURD_BUDGETS = {"ab": ("inf", "1e308", "nan", "0"),
                  "sensitivity": ("inf", "1e308")}


class Budget(Cli):

    def test_ab_and_sensitivity_refuse_it_before_a_boot(self):
        fake = self.good_fake()
        for command, budgets in ABSURD_BUDGETS.items():
            for budget in budgets:
                proc = self.cli(command, "--no-build", "--accel", "tcg",
                                "--qemu", fake, "--budget", budget)
                self.assertEqual(proc.returncode, 2, (command, budget, proc.stderr))
                self.assertIn("--budget", proc.stderr)
                self.assertNotIn("boot", proc.stderr.replace("--help", ""))

    def test_the_session_check_refuses_it(self):
        """ab_cmd.SessionConfig.check: what bisect's sessions go through."""
        for budget in (math.inf, 1e308, math.nan, 0.0, -5.0):
            cfg = ab_cmd.SessionConfig(
                sides={}, a_json=self.path("a.json"), b_json=self.path("b.json"),
                thresholds={}, metrics=["cycles_per_op"], budget=budget)
            with self.assertRaises(common.OptionError) as ctx:
                cfg.check()
            self.assertIn("--budget", ctx.exception.message)

    def test_a_sane_budget_passes(self):
        self.assertEqual(common.check_budget(600), 600.0)
        self.assertEqual(common.budget_seconds("1.5"), 1.5)
        self.assertIsNone(common.check_budget(None))



def run3():
    with open(RUN3) as fh:
        return json.load(fh)


def row_of(lines, case):
    return next(line for line in lines if line.split()[:1] == [case])


class Unsettled(unittest.TestCase):

    def test_the_every_result_table_marks_it(self):
        boot = run3()["boots"][0]
        res = next(r for r in boot["results"] if r["case"] == UNSETTLED_CASE)
        self.assertEqual(res["stop"], "budget")
        text = report.render_report(boot["run"], {}, boot["results"], [], [])
        lines = text.splitlines()
        row = row_of(lines, UNSETTLED_CASE)
        self.assertIn("1511274" + report.UNSETTLED_MARK, row)
        self.assertIn("709214" + report.UNSETTLED_MARK, row)
        self.assertNotIn(report.UNSETTLED_MARK.strip(),
                         row_of(lines, "fwcfg.in8.single.16").split())
        # the REP row beside it divides its median: its speed-up is marked
        self.assertIn("13.2x" + report.UNSETTLED_MARK,
                      row_of(lines, "fwcfg.in8.rep.1"))
        self.assertIn("u: " + resultform.UNSETTLED, text)

    def test_the_median_over_boots_marks_it(self):
        doc = run3()
        agg = report.aggregate_results([b["results"] for b in doc["boots"]])
        one = next(r for r in agg if r["case"] == UNSETTLED_CASE)
        self.assertEqual(one["unsettled_boots"], 1)
        row = report.result_row(one)
        self.assertTrue(row[3].endswith(report.UNSETTLED_MARK), row)

    def test_the_html_table_says_so(self):
        body = html.results_table(run3())
        row = next(line for line in body.splitlines()
                   if ">%s<" % UNSETTLED_CASE in line)
        self.assertIn(resultform.UNSETTLED, row)

    def test_the_summary_leaves_it_out(self):
        doc = run3()
        settled = summary.class_data(doc)
        self.assertTrue(settled[0][2].resolved)          # QEMU port, pio.user
        for boot in doc["boots"][1:]:
            for res in boot["results"]:
                if res["case"] == "pio.user":
                    res["stop"] = "budget"
        label, case, cycles, _ns, _exits, _why = summary.class_data(doc)[0]
        self.assertEqual(case, "pio.user")
        self.assertTrue(cycles.resolved)                  # boot 0's alone
        self.assertIsNone(cycles.interval)
        for res in doc["boots"][0]["results"]:
            if res["case"] == "pio.user":
                res["stop"] = "budget"
        cycles = summary.class_data(doc)[0][2]
        self.assertEqual(cycles.reason, resultform.UNSETTLED + " in 3 of 3 boots")
        self.assertIn("not resolved (%s" % resultform.UNSETTLED,
                      "\n".join(summary.class_lines(doc)))

    def test_rep_speedups_leave_it_out(self):
        doc = run3()
        groups = dict(summary.rep_groups(doc))
        # fwcfg.in8.single.4096 stopped on its budget in every boot
        self.assertFalse(groups["fwcfg in8"].resolved)
        self.assertIn(resultform.UNSETTLED, groups["fwcfg in8"].reason)
        self.assertTrue(groups["pic out8"].resolved)
        settle = copy.deepcopy(doc)
        for boot in settle["boots"]:
            for res in boot["results"]:
                res["stop"] = "stable"
        self.assertTrue(dict(summary.rep_groups(settle))["fwcfg in8"].resolved)
        text = "\n".join(summary.rep_lines(doc))
        self.assertIn("fwcfg in8 n.r.", text)
        self.assertIn(resultform.UNSETTLED, text)
        self.assertNotIn("n.r.x", text)


if __name__ == "__main__":
    unittest.main()
