"""tests/host/test_sensitivity_limit.py - `sensitivity` labelled by what
moved (issue 32 item 7): each level by the measured B/A shift of the
cases the delay touches, alpha split over the sessions, and the printed
limit the smallest measured shift flagged, with its interval."""
import os
import sys
import math
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import sensitivity as sens  # noqa: E402
from trapmeterlib.stats import verdict  # noqa: E402


def row(case, word, factor=None, ci=None, level=0.99):
    """A row as compare writes it (verdict.Row.as_dict): its figure the
    shift of the undisturbed means with the test's interval at `level`
    (`ci`), and a Moses "ci95" over every boot that differs from it (a
    stale figure the limit must not print)."""
    r = verdict.Row("pio", case, "cycles_per_op", True)
    r.verdict, r.decided_at = word, {"seconds": 30}
    if factor is not None:
        r.floor_shift = math.log(factor)
        lo, hi = [math.log(e) for e in ci] if ci else (None, None)
        verdict.set_figure(r, r.floor_shift, lo, hi, ci and level,
                           verdict.BY_MEANS)
    d = r.as_dict()
    d["ci95"] = [0.5, 2.0]
    return d


def sessions():
    aa = {"name": "aa", "delay_ns": 0, "alpha": 0.05 / 3, "rows": [
        row("q1", "inconclusive", 1.001, [0.99, 1.01]),
        row("q2", "inconclusive", 0.999, [0.99, 1.01]),
        row("k", "unchanged", 1.0, [0.998, 1.002])]}
    # the "1 %" level moved the QEMU cases by +2.5 and +3.9 %
    d1 = {"name": "d1", "delay_ns": 95, "alpha": 0.05 / 3, "rows": [
        row("q1", "regression", 1.025, [1.012, 1.039]),
        row("q2", "regression", 1.039, [1.02, 1.06]),
        row("k", "unchanged", 1.001, [0.998, 1.003])]}
    d2 = {"name": "d2", "delay_ns": 190, "alpha": 0.05 / 3, "rows": [
        row("q1", "regression", 1.052, [1.03, 1.07]),
        row("q2", "regression", 1.062, [1.04, 1.08]),
        row("k", "unchanged", 1.0, [0.998, 1.002])]}
    for sess in (aa, d1, d2):
        sess.update(boots=[20, 20], wall_s=100, shim=[])
    return [aa, d1, d2]


def table(sess):
    out = sens.case_table(sess, [1, 2])
    for name, handler in (("pio/q1", "user"), ("pio/q2", "user"),
                          ("pio/k", "kernel")):
        out[name]["handler"] = handler
    return out


class MeasuredLabels(unittest.TestCase):
    def test_levels_are_labelled_by_the_shift_they_made(self):
        sess = sessions()
        text = sens.render(table(sess), sess, [1, 2], (1.0, 1.0))
        head = [l for l in text.splitlines() if l.strip().startswith("case")]
        # median of +2.5 and +3.9: +3.2 %, not the nominal 1 %
        self.assertIn("1%=+3.2%", head[0])
        self.assertIn("2%=+5.7%", head[0])

    def test_limit_is_the_smallest_measured_shift_flagged(self):
        sess = sessions()
        t = table(sess)
        self.assertAlmostEqual(t["pio/q1"]["smallest_measured"]["shift"],
                               0.025)
        line = sens.limit_line(t)
        self.assertIn("+2.5 % [+1.2..+3.9, 99 % interval] (at 1 %)", line)
        self.assertIn("pio/q1", line)

    def test_the_interval_is_the_verdicts_at_its_level(self):
        # the decided interval at the look's level, never the row's ci95
        sess = sessions()
        sess[1]["rows"][0] = row("q1", "regression", 1.025, [1.004, 1.047],
                                 level=0.9975)
        line = sens.limit_line(table(sess))
        self.assertIn("+2.5 % [+0.4..+4.7, 99.8 % interval] (at 1 %)", line)
        self.assertNotIn("-50", line)

    def test_a_slow_mode_sets_no_shift(self):
        # flagged by the share of boots outside the band: no shift decided
        sess = sessions()
        moded = row("q1", "regression", 1.003)
        moded.update(estimator=verdict.BY_MODE, ratio=None,
                     interval=[None, None], interval_level=0.99)
        sess[1]["rows"][0] = moded
        t = table(sess)
        self.assertEqual(t["pio/q1"]["smallest_measured"]["level"], 2)
        self.assertIn("+3.9 %", sens.limit_line(t))

    def test_a_row_stored_without_its_decision(self):
        # an older row (no estimator): the shift, its interval not resolved
        sess = sessions()
        for r in sess[1]["rows"]:
            for key in ("estimator", "interval", "interval_level"):
                r.pop(key)
        line = sens.limit_line(table(sess))
        self.assertIn("+2.5 % [interval not resolved", line)

    def test_an_in_kernel_case_never_sets_the_limit(self):
        sess = sessions()
        sess[1]["rows"][2] = row("k", "regression", 1.004, [1.001, 1.006])
        self.assertIn("pio/q1", sens.limit_line(table(sess)))

    def test_nothing_flagged_is_not_resolved(self):
        sess = sessions()[:1]
        line = sens.limit_line(table(sess + [dict(sessions()[0], name="d1"),
                                             dict(sessions()[0],
                                                  name="d2")]))
        self.assertIn("not resolved", line)

    def test_alpha_is_split_over_the_sessions(self):
        args = types.SimpleNamespace(alpha=0.05, levels="0.5,1,2,5,10")
        self.assertAlmostEqual(sens.session_alpha(args), 0.05 / 6)


if __name__ == "__main__":
    unittest.main()
