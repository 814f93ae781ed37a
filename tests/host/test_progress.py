"""tests/host/test_progress.py - the status line of long work
(output/progress.py): on a terminal one line rewritten in place, messages
above it; elsewhere plain lines and no control characters; ab's status
text names boots a side, elapsed / budget, decided metrics and the
resolution so far.  The real terminal is in tests/boot/test_progress.py."""
import io
import os
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "tools"))
from trapmeterlib.stats import abtest, compare  # noqa: E402
from trapmeterlib.commands import ab_report  # noqa: E402
from trapmeterlib.commands import common  # noqa: E402
from trapmeterlib.output import progress  # noqa: E402


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class NotATerminal(unittest.TestCase):
    def test_updates_are_silent_unless_plain(self):
        out = io.StringIO()
        bar = progress.Progress(out, terminal=False)
        bar.update("boot 1/3")
        bar.update("round 1: 1+1 boots", plain=True)
        bar.line("trapmeter: a message")
        bar.close()
        self.assertEqual(out.getvalue(),
                         "round 1: 1+1 boots\ntrapmeter: a message\n")

    def test_no_control_characters(self):
        out = io.StringIO()
        with progress.Progress(out, terminal=False) as bar:
            for i in range(5):
                bar.update("step %d" % i, plain=True)
        self.assertNotIn("\r", out.getvalue())
        self.assertNotIn("\x1b", out.getvalue())


class OnATerminal(unittest.TestCase):
    def test_one_line_rewritten_in_place(self):
        out, clock = io.StringIO(), Clock()
        bar = progress.Progress(out, terminal=True, clock=clock)
        bar.update("a", force=True)
        clock.now += 1
        bar.update("b")
        bar.close()
        self.assertEqual(out.getvalue(), progress.ERASE + "a" + progress.ERASE
                         + "b" + progress.ERASE)
        self.assertNotIn("\n", out.getvalue())

    def test_redraws_are_rate_limited(self):
        out, clock = io.StringIO(), Clock()
        bar = progress.Progress(out, terminal=True, clock=clock)
        for i in range(100):
            bar.update("case %d" % i)      # the clock does not move
        self.assertEqual(out.getvalue().count(progress.ERASE), 1)

    def test_a_message_goes_above_the_status(self):
        out = io.StringIO()
        bar = progress.Progress(out, terminal=True)
        bar.update("status", force=True)
        bar.line("trapmeter: hello")
        self.assertTrue(out.getvalue().endswith(
            progress.ERASE + "trapmeter: hello\n" + progress.ERASE + "status"))

    def test_say_goes_through_the_active_status(self):
        out = io.StringIO()
        with progress.Progress(out, terminal=True) as bar:
            bar.update("status", force=True)
            common.say("budget: no time for another round")
        self.assertIn(progress.ERASE + "trapmeter: budget: no time for "
                      "another round\n" + progress.ERASE + "status",
                      out.getvalue())
        self.assertIsNone(progress.active())

    def test_cut_to_the_terminal(self):
        out = io.StringIO()
        bar = progress.Progress(out, terminal=True)
        bar.width = lambda: 30
        bar.update("x" * 200, force=True)
        self.assertEqual(out.getvalue(), progress.ERASE + "x" * 30)


class AbStatus(unittest.TestCase):
    def session(self, budget=300.0):
        seq = abtest.Sequential([3, 5], 0.05, 2, ["cycles_per_op"])
        return types.SimpleNamespace(
            title="ab", seq=seq, cfg=types.SimpleNamespace(budget=budget),
            boots=lambda name: 5 if name == "a" else 4,
            elapsed=lambda: 63.4)

    def row(self, case, verdict, resolution=None):
        row = compare.Row("pio", case, "cycles_per_op", True)
        row.verdict, row.resolution = verdict, resolution
        return row

    def test_before_a_look(self):
        text = ab_report.status_text(self.session(), "side B boot 5")
        self.assertEqual(text, "ab | A 5 B 4 boots | 63/300 s | side B boot 5")

    def test_after_a_look(self):
        session = self.session(None)
        session.seq.look([self.row("x", "regression"),
                          self.row("y", "inconclusive", 0.021),
                          self.row("z", "inconclusive", 0.043)], 3, 60.0)
        text = ab_report.status_text(session)
        self.assertEqual(text, "ab | A 5 B 4 boots | 63 s | 1/3 decided | "
                         "resolves 2.1-4.3 %")


if __name__ == "__main__":
    unittest.main()
