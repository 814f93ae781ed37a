"""tests/host/test_sensitivity_limit.py - `sensitivity` labelled by what
moved (issue 32 item 7): each level by the measured B/A shift of the
cases the delay touches, alpha split over the sessions, and the printed
limit the smallest measured shift flagged, with its interval."""
import os
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import sensitivity as sens  # noqa: E402


def row(case, verdict, factor=None, ci=None):
    return {"suite": "pio", "case": case, "metric": "cycles_per_op",
            "verdict": verdict, "decided_at": {"seconds": 30},
            "slowdown_undisturbed": factor, "interval": ci,
            "lower_is_better": True}


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
        self.assertIn("+2.5 % [+1.2..+3.9] (at 1 %)", line)
        self.assertIn("pio/q1", line)

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
