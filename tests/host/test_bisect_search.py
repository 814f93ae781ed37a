"""tests/host/test_bisect_search.py - the search of `trapmeter bisect`
(tools/trapmeterlib/stats/bisect.py) driven by simulated step verdicts:
no builds, no boots.  A simulated history of 16 commits changes at one of
them; steps may be skipped (build failure), never decide, or the
endpoints may be wrong."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.stats import bisect  # noqa: E402

COMMITS = ["c%02d" % i for i in range(17)]     # c00 good ... c16 bad


class World:
    """Step verdicts of a history whose change lands at `change`; commits in
    `skips` fail to build; `never` never decide (they use their share)."""

    def __init__(self, change, skips=(), never=(), step_s=10.0):
        self.change, self.skips, self.never = change, set(skips), set(never)
        self.step_s = step_s
        self.spent = 0.0
        self.judged = []

    def judge(self, commit, share):
        self.judged.append(commit)
        index = COMMITS.index(commit)
        if commit in self.skips:
            return bisect.SKIP, {"reason": "build failed", "boots": 0}
        if commit in self.never:
            self.spent += share if share is not None else self.step_s
            return bisect.SKIP, {"reason": "undecided", "boots": 8}
        self.spent += self.step_s
        return (bisect.BAD if index >= self.change else bisect.GOOD), {
            "reason": "simulated", "boots": 4}


def search(world, budget=None):
    s = bisect.Search(COMMITS)
    left = (lambda: None) if budget is None else (lambda: budget - world.spent)
    steps = bisect.run(s, world.judge, left)
    return s.result(), steps


class Search(unittest.TestCase):
    def test_every_change_point_found_in_log2_steps(self):
        for change in range(1, 17):
            result, steps = search(World(change))
            self.assertEqual(result["first_bad"], COMMITS[change], change)
            self.assertEqual(result["not_separated"], [])
            self.assertLessEqual(len(steps), 4, (change, steps))

    def test_skipped_neighbour_is_not_separated(self):
        # c08 fails to build and the change is at c08: c07 good and c09
        # bad leave c08 and c09 unseparated
        result, steps = search(World(8, skips={"c08"}))
        self.assertIsNone(result["first_bad"])
        self.assertEqual(result["not_separated"], ["c08", "c09"])
        self.assertIn("c08", [s["commit"] for s in steps])
        self.assertEqual(result["last_good"], "c07")

    def test_skip_away_from_change_costs_a_step_only(self):
        result, steps = search(World(11, skips={"c08"}))
        self.assertEqual(result["first_bad"], "c11")
        self.assertLessEqual(len(steps), 6)

    def test_build_failure_is_a_skip_with_its_reason(self):
        _, steps = search(World(3, skips={"c08"}))
        first = steps[0]
        self.assertEqual((first["commit"], first["verdict"], first["reason"]),
                         ("c08", bisect.SKIP, "build failed"))

    def test_step_that_never_decides_spends_only_its_share(self):
        world = World(5, never={"c08"}, step_s=10.0)
        result, steps = search(world, budget=100.0)
        never = [s for s in steps if s["commit"] == "c08"]
        self.assertEqual(len(never), 1)
        self.assertEqual(never[0]["verdict"], bisect.SKIP)
        # its share: the budget over the ~4 steps the range needed
        self.assertLessEqual(world.spent, 100.0 + 1e-9)
        self.assertEqual(result["first_bad"], "c05")

    def test_budget_spent_leaves_the_range_unseparated(self):
        world = World(5, never=set(COMMITS[1:16]))
        result, steps = search(world, budget=40.0)
        self.assertIsNone(result["first_bad"])
        self.assertGreater(len(result["not_separated"]), 1)
        self.assertLessEqual(world.spent, 40.0 + 1e-9)

    def test_non_monotone_verdicts_are_named(self):
        s = bisect.Search(COMMITS)
        s.record(8, bisect.BAD)
        s.record(12, bisect.GOOD)
        self.assertEqual(s.contradictions(), ["c12"])

    def test_next_is_the_middle(self):
        s = bisect.Search(COMMITS)
        self.assertEqual(s.next(), 8)
        s.record(8, bisect.GOOD)
        self.assertEqual(s.next(), 12)

    def test_tie_break_is_the_earlier_commit(self):
        # an even range has two middles: the earlier one is judged, as the
        # docstring says (a change near the good end is found sooner)
        s = bisect.Search(COMMITS[:4])
        self.assertEqual(s.next(), 1)
        s = bisect.Search(COMMITS)
        s.record(8, bisect.BAD)
        s.record(4, bisect.GOOD)
        s.record(6, bisect.SKIP)
        self.assertEqual(s.next(), 5)       # 5 and 7 tie around 6
        s.record(5, bisect.SKIP)
        self.assertEqual(s.next(), 7)


def row(case, metric, verdict, slowdown=None):
    return {"suite": "pio", "case": case, "metric": metric, "verdict": verdict,
            "slowdown_undisturbed": slowdown, "ratio": slowdown,
            "lower_is_better": True}


class Endpoints(unittest.TestCase):
    def test_nothing_flagged_is_refused(self):
        rows = [row("a", "cycles_per_op", "unchanged"),
                row("b", "cycles_per_op", "inconclusive")]
        with self.assertRaises(bisect.Refused) as cm:
            bisect.flagged(rows)
        self.assertEqual(cm.exception.reason, "nothing-flagged")

    def test_wrong_good_endpoint_is_refused(self):
        rows = [row("a", "cycles_per_op", "improvement", 0.95),
                row("b", "cycles_per_op", "unchanged")]
        with self.assertRaises(bisect.Refused) as cm:
            bisect.flagged(rows)
        self.assertEqual(cm.exception.reason, "good-judged-worse")

    def test_regressions_are_what_the_steps_judge(self):
        rows = [row("a", "cycles_per_op", "regression", 1.05),
                row("a", "exits_per_op", "unchanged"),
                row("b", "cycles_per_op", "regression", 1.20)]
        flag = bisect.flagged(rows, metrics={"cycles_per_op"})
        self.assertEqual(set(flag), {("pio", "a", "cycles_per_op"),
                                     ("pio", "b", "cycles_per_op")})
        # half of the smaller shift, on the log scale
        t = bisect.step_thresholds(flag)["cycles_per_op"]
        self.assertAlmostEqual(t, 1.05 ** 0.5 - 1, places=6)

    def test_step_verdicts(self):
        flag = bisect.flagged([row("a", "cycles_per_op", "regression", 1.05)])
        self.assertEqual(bisect.step_verdict(
            [row("a", "cycles_per_op", "regression", 1.05)], flag)[0], bisect.BAD)
        self.assertEqual(bisect.step_verdict(
            [row("a", "cycles_per_op", "unchanged", 1.0)], flag)[0], bisect.GOOD)
        self.assertEqual(bisect.step_verdict(
            [row("a", "cycles_per_op", "inconclusive", 1.02)], flag)[0], bisect.SKIP)
        self.assertEqual(bisect.step_verdict([], flag)[0], bisect.SKIP)

    def test_step_measuring_some_flagged_rows_is_not_good(self):
        # a step whose session measured only one of the two flagged rows
        # (the other case failed, or was not run) cannot be called good:
        # the missing row may carry the change
        flag = bisect.flagged([row("a", "cycles_per_op", "regression", 1.05),
                               row("b", "cycles_per_op", "regression", 1.08)])
        verdict, reason = bisect.step_verdict(
            [row("a", "cycles_per_op", "unchanged", 1.0)], flag)
        self.assertEqual(verdict, bisect.SKIP, reason)
        verdict, _ = bisect.step_verdict(
            [row("a", "cycles_per_op", "unchanged", 1.0),
             row("b", "cycles_per_op", "unchanged", 1.0)], flag)
        self.assertEqual(verdict, bisect.GOOD)


if __name__ == "__main__":
    unittest.main()
