"""tests/host/test_hostile33.py - hostile input, round three (issue 33),
outside bisect: each probe that failed is a test here, red on the code
before its fix.

- --budget: inf, nan, 1e308, 0 and below refused when the options are
  parsed (ab, sensitivity), and by the check every ab session goes
  through (bisect's too), never int() of an infinite share later."""

import math
import os
import sys
import unittest

from tests.host.test_hostile import ROOT, Cli

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.commands import ab as ab_cmd  # noqa: E402
from trapmeterlib.commands import common  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
