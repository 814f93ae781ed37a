"""tests/host/test_ab_looks.py - every boot of an ab session is looked at
(issue 32 item 4): the looks not yet taken are re-planned after every round
from the running wall time (abtest.replan), and the session ends at its
last look.  Replayed on the timing of the documented 300 s session
(docs/design.md, "The sentinel list": 45+45 boots in 298 s, whose last
look came at 34 boots a side when the looks were planned once from round
1's wall time)."""
import io
import os
import sys
import types
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import ab_report, ab_rounds  # noqa: E402
from trapmeterlib.guest import plan  # noqa: E402
from trapmeterlib.output import progress  # noqa: E402
from trapmeterlib.stats import abtest, compare, forecast  # noqa: E402

# the documented session's timing: the planning boot and round 1 slower
# (cold caches, the counted boots), then about 3.2 s a boot
PLAN_S, FIRST_S, BOOT_S, LOOK_S = 5.0, 4.0, 3.2, 0.8


class TimedSession:
    """What ab's rounds_until_decided drives: boots whose wall times come
    from `walls` (one per boot, the planning boot first) on a clock only
    they and the looks advance; every look's rows are inconclusive."""

    def __init__(self, budget, walls, looks=4, max_boots=1000):
        self.cfg = types.SimpleNamespace(budget=budget, max_boots=max_boots,
                                         looks=looks, alpha=0.05,
                                         resolution=None,
                                         metrics=["cycles_per_op"])
        self.forecast = None
        self.seq = abtest.Sequential(abtest.look_schedule(max_boots, looks),
                                     0.05, looks, ["cycles_per_op"])
        self.next_wall = iter(walls)
        self.clock, self.walls, self.look_s = 0.0, [], 0.0
        self.n = {"a": 0, "b": 0}
        self.looked_at = []
        self.title = "ab"
        self.status = progress.Progress(io.StringIO(), terminal=False)

    def _boot(self):
        wall = next(self.next_wall)
        self.clock += wall
        self.walls.append(wall)

    def make_plan(self):
        self._boot()

    def run_boot(self, name, _number):
        self._boot()
        self.n[name] += 1

    def boots(self, name):
        return self.n[name]

    def elapsed(self):
        return self.clock

    def compare(self, level):
        self.looked_at.append((min(self.n.values()), level))
        self.clock += LOOK_S
        row = compare.Row("s", "c", "cycles_per_op", True)
        row.verdict = "inconclusive"
        return [row], []


def documented_walls(boots=400):
    return [PLAN_S, FIRST_S, FIRST_S] + [BOOT_S] * boots


def run(session, replan=True):
    with mock.patch.object(ab_rounds, "say"), \
            mock.patch.object(ab_report, "say"):
        if replan:
            ab_rounds.rounds_until_decided(session)
        else:
            once = OncePlanned(session)
            with mock.patch.object(ab_rounds, "fit_looks_to_budget", once):
                ab_rounds.rounds_until_decided(session)
    return session


class OncePlanned:
    """The rule before: the looks planned once, after round 1."""

    def __init__(self, session):
        self.done = False

    def __call__(self, session, done):
        if self.done:
            return
        self.done = True
        args = session.cfg
        pair = 2.0 * sum(session.walls) / len(session.walls)
        boots = abtest.boots_within_budget(
            args.max_boots, done, args.budget - session.elapsed(), pair)
        session.seq.schedule = abtest.look_schedule(boots, args.looks,
                                                    args.alpha)


def never_compared(session):
    last = max(n for n, _level in session.looked_at)
    return min(session.n.values()) - last


class EveryBootLookedAt(unittest.TestCase):
    def test_documented_session_replayed(self):
        # the rule before: looks planned once from round 1, the last at
        # 34 boots a side of the 45 the budget ran (11 never compared)
        before = run(TimedSession(300.0, documented_walls()), replan=False)
        self.assertEqual(before.seq.schedule[-1], 34)
        session = run(TimedSession(300.0, documented_walls()))
        self.assertEqual(never_compared(session), 0)
        self.assertGreaterEqual(min(session.n.values()), 44)
        self.assertLessEqual(session.clock, 300.0)
        levels = [level for _n, level in session.looked_at]
        self.assertEqual(len(levels), 4)
        self.assertAlmostEqual(sum(levels), 0.05)

    def test_rounds_that_slow_down_still_end_at_a_look(self):
        # boots twice as slow after round 10: the end moves earlier
        walls = [PLAN_S, FIRST_S, FIRST_S] + [BOOT_S] * 18 + [6.4] * 200
        session = run(TimedSession(300.0, walls))
        self.assertEqual(never_compared(session), 0)
        self.assertAlmostEqual(sum(l for _n, l in session.looked_at), 0.05)

    def test_rounds_that_speed_up_get_looks_over_all_boots(self):
        walls = [PLAN_S, 6.0, 6.0] + [6.0] * 10 + [1.0] * 400
        session = run(TimedSession(300.0, walls))
        self.assertEqual(never_compared(session), 0)
        self.assertGreater(min(session.n.values()), 60)

    def test_alpha_is_never_overspent(self):
        for boot_s in (0.7, 1.62, 3.3, 9.0, 22.0):
            session = run(TimedSession(300.0, [PLAN_S] + [boot_s] * 900))
            self.assertLessEqual(sum(l for _n, l in session.looked_at),
                                 0.05 + 1e-12)
            self.assertEqual(never_compared(session), 0, boot_s)

    def test_the_session_ends_when_alpha_is_spent(self):
        # a schedule whose last point comes before --max-boots: no boot
        # after the look that spent the last of alpha
        session = TimedSession(None, [1.0] * 100, looks=2, max_boots=40)
        session.seq.schedule = [3, 5]
        run(session)
        self.assertEqual(session.n, {"a": 5, "b": 5})
        self.assertEqual(never_compared(session), 0)


class ResolutionMode(unittest.TestCase):
    """ab --resolution R: the session ends (its last look) where the
    forecast reaches R on every selected metric, or at the budget."""

    def session(self, target, sd):
        session = TimedSession(300.0, documented_walls())
        session.cfg.resolution = target
        fc = forecast.Forecast({}, 0.0267)
        fc.spreads = {("pio", "a", "cycles_per_op"): (sd, 1.0),
                      ("pio", "b", "cycles_per_op"): (sd / 2, 1.0),
                      ("pio", "a", "cycles_per_exit"): (10 * sd, 1.0)}
        fc.crit = 2.5
        session.forecast = fc
        return session, fc

    def test_ends_where_the_resolution_is_reached(self):
        session, fc = self.session(0.02, 0.02)
        need = fc.boots_for(("pio", "a", "cycles_per_op"), 0.02)
        self.assertLess(need, 30)
        run(session)
        self.assertEqual(min(session.n.values()), need)
        self.assertEqual(never_compared(session), 0)
        self.assertAlmostEqual(sum(l for _n, l in session.looked_at), 0.05)

    def test_the_budget_ends_it_when_the_resolution_is_out_of_reach(self):
        session, _fc = self.session(0.005, 0.02)
        run(session)
        self.assertGreaterEqual(min(session.n.values()), 44)
        self.assertEqual(never_compared(session), 0)


class FlaggedSession(TimedSession):
    """Every look flags one metric and leaves another undecided."""

    def compare(self, level):
        rows = super().compare(level)[0]
        flagged = compare.Row("s", "d", "cycles_per_op", True)
        flagged.verdict = "regression"
        return rows + [flagged], []


class StopAtFlag(unittest.TestCase):
    """A session inside bisect stops as soon as a selected metric is
    flagged; the others need not be decided."""

    def test_stops_at_the_first_look_that_flags(self):
        session = FlaggedSession(None, [1.0] * 100, max_boots=40)
        session.cfg.stop_at_regression = True
        run(session)
        first = session.seq.schedule[0]
        self.assertEqual(session.n, {"a": first, "b": first})

    def test_without_it_the_session_waits_for_the_rest(self):
        session = FlaggedSession(None, [1.0] * 100, max_boots=40)
        run(session)
        self.assertEqual(session.n, {"a": 20, "b": 20})


class LongCases(unittest.TestCase):
    """ab's plan: a case whose samples each outlast the host's quiet
    windows gets one a round, not the planning boot's count."""

    def test_a_long_case_gets_one_sample_a_round(self):
        # fwcfg.in8.single.4096 here: 8 samples of about 176 ms
        self.assertEqual(plan.raise_samples(8, 176.0, rounds=4), 4)
        self.assertEqual(plan.raise_samples(16, 60.0, rounds=4), 4)
        # a window's worth when that is more than one a round
        self.assertEqual(plan.raise_samples(16, 20.0, rounds=4), 12)
        # short cases keep the floor, and without rounds nothing changes
        self.assertEqual(plan.raise_samples(5, 0.05, rounds=4),
                         plan.MIN_SAMPLES)
        self.assertEqual(plan.raise_samples(8, 176.0), 8)
        self.assertEqual(plan.raise_samples(40, 1000.0), 40)


class Replan(unittest.TestCase):
    def test_first_plan_is_the_schedule(self):
        self.assertEqual(abtest.replan([], 1, 45),
                         abtest.look_schedule(90))

    def test_looks_left_spread_to_the_new_end(self):
        self.assertEqual(abtest.replan([6, 15], 16, 45), [6, 15, 30, 45])
        self.assertEqual(abtest.replan([6, 15, 25, 34], 35, 45),
                         [6, 15, 25, 34])

    def test_a_passed_point_is_taken_now(self):
        self.assertEqual(abtest.replan([6], 20, 21), [6, 20, 21])
        self.assertEqual(abtest.replan([6], 20, 12), [6, 20])


if __name__ == "__main__":
    unittest.main()
