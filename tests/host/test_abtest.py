"""tests/host/test_abtest.py - ab's sequential rule (tools/trapmeterlib/
abtest.py) on recorded boots: the alternation, the look schedule, and by
simulation that early stopping keeps the false-alarm level (both sides drawn
from one pool of real boots: nothing changed)."""
import copy
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib import abtest, bootstats, compare  # noqa: E402


def pool():
    boots = []
    for name in ("kvm-base.json", "kvm-aa.json"):
        doc = compare.read_results(os.path.join(ROOT, "tests", "fixtures", name))
        boots += copy.deepcopy(doc["boots"])
    return boots


class Schedule(unittest.TestCase):
    def test_alternation(self):
        self.assertEqual([abtest.order(r) for r in range(4)],
                         [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a")])

    def test_looks_start_where_alpha_per_look_is_reachable(self):
        points = abtest.look_schedule(24, 4, 0.05)
        self.assertLessEqual(len(points), 4)
        self.assertEqual(points[-1], 12)
        self.assertLessEqual(bootstats.min_p(points[0], points[0]), 0.05 / 4)
        self.assertGreater(bootstats.min_p(points[0] - 1, points[0] - 1), 0.05 / 4)

    def test_frozen_verdict_survives_later_looks(self):
        seq = abtest.Sequential([5, 6], 0.05, 2, ["cycles_per_op"])
        row = compare.Row("s", "c", "cycles_per_op", True)
        row.verdict = "regression"
        self.assertEqual(seq.look([row], 5), [])
        later = compare.Row("s", "c", "cycles_per_op", True)
        later.verdict = "inconclusive"
        seq.final_rows([later])
        self.assertEqual(later.verdict, "regression")
        self.assertIn("decided regression at 5 boots per side", later.notes)


class Simulation(unittest.TestCase):
    def test_aa_false_alarms_stay_below_alpha(self):
        """40 simulated sessions of up to 12 boots on the recorded A/A pool
        (the figure in docs/design.md comes from more sessions)."""
        bad, sessions, _per = abtest.simulate(pool(), 40, 1, 12, 2, 0.05,
                                              resamples=300)
        self.assertLessEqual(bad, 5, (bad, sessions))   # 2 expected at 0.05


if __name__ == "__main__":
    unittest.main()


class Cli(unittest.TestCase):
    def run_cli(self, *args):
        import subprocess
        return subprocess.run([os.path.join(ROOT, "tools", "trapmeter"), *args],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)

    def test_bad_side_option_is_bad_input_before_any_boot(self):
        proc = self.run_cli("ab", "--no-build", "--b-args=--no-such-option")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("side B options", proc.stderr)
        proc = self.run_cli("ab", "--no-build", "--a-args", "--repeat 3")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("set by ab itself", proc.stderr)

    def test_sensitivity_refuses_tcg_with_status_12(self):
        proc = self.run_cli("sensitivity", "--no-build", "--accel", "tcg")
        self.assertEqual(proc.returncode, 12, proc.stderr)
        self.assertIn("TCG never calls KVM_RUN", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
