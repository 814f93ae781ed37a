"""tests/host/test_bisect_confirm.py - bisect that confirms (issue 32 item
6), with a fake session runner (no builds, no boots): the named first bad
commit is tested against its parent (and the endpoints again where no
step was bad), a failed confirmation says so, the printed bound comes from
the levels, and the contradiction check fires on a re-test."""
import os
import random
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import bisect_confirm  # noqa: E402
from trapmeterlib.output import bisect_text  # noqa: E402
from trapmeterlib.stats import abtest  # noqa: E402
from trapmeterlib.stats import bisect as search  # noqa: E402

KEY = ("exits", "pio.user", "cycles_per_op")
ALPHA = 0.05


def rows(verdict):
    return [{"suite": KEY[0], "case": KEY[1], "metric": KEY[2],
             "verdict": verdict}]


class Line:
    """Commits c00..cNN with a step at `step` (None: no step at all, the
    endpoint session's flag a phantom): a commit's cost is 1 before the
    step and 1.02 from it on; a session flags a regression exactly when
    B costs more than A (a perfect test, so that what is checked is the
    procedure around it)."""

    def __init__(self, n, step):
        self.commits = ["c%02d%s" % (i, "0" * 38) for i in range(n)]
        self.step = step
        self.names = []
        self.focus = {}

    def cost(self, commit):
        i = self.commits.index(commit)
        return 1.02 if self.step is not None and i >= self.step else 1.0

    def verdict(self, a, b):
        return "regression" if self.cost(b) > self.cost(a) else "unchanged"

    def run_session(self, _args, name, a_bin, b_bin, _budget, _extra,
                    focus):
        self.names.append(name)
        self.focus[name] = focus
        return {"name": name, "rows": rows(self.verdict(
            os.path.basename(a_bin), os.path.basename(b_bin)))}

    def work(self):
        work = types.SimpleNamespace(
            plan=types.SimpleNamespace(alpha=ALPHA), extra=(),
            flag={KEY: rows("regression")[0]}, focus=([KEY[1]], {KEY[2]}, {}),
            good_bin="/b/" + self.commits[0], sessions=[])
        work.budget_left = lambda: None
        work.build = lambda _tree, rev, _label: ("/b/" + rev, None)
        return work

    def judge(self, commit, _share):
        verdict = search.BAD if self.verdict(self.commits[0], commit) == \
            "regression" else search.GOOD
        return verdict, {"reason": "fake", "boots": 6, "wall_s": 1.0}

    def bisect(self):
        """(state, steps, confirmation, printed summary)."""
        state = search.Search(self.commits)
        steps = search.run(state, self.judge, reserve=1)
        work = self.work()
        conf = bisect_confirm.confirm(work, state, steps, self.run_session)
        doc = {"result": dict(state.result(), subject="subject"),
               "flagged": [], "steps": steps, "budget_exhausted": False,
               "commits": [{"commit": c} for c in self.commits],
               "boots": 0, "wall_s": 0.0, "budget_s": None,
               "confirmation": conf}
        return state, steps, conf, bisect_text.summary(doc)


class Confirmation(unittest.TestCase):
    def test_a_delay_step_is_named_confirmed_and_bounded(self):
        line = Line(20, 11)
        _state, steps, conf, text = line.bisect()
        self.assertEqual(conf["commit"], line.commits[11])
        self.assertEqual(conf["status"], search.CONFIRMED)
        self.assertEqual(conf["parent"], line.commits[10])
        self.assertIn("first bad commit %s" % line.commits[11][:12], text)
        self.assertIn("confirmation (%s against its parent %s): confirmed"
                      % (line.commits[11][:12], line.commits[10][:12]), text)
        # the bound: the confirmation's alpha, the search's beside it
        bad = sum(s["verdict"] == search.BAD for s in steps)
        good = sum(s["verdict"] == search.GOOD for s in steps)
        self.assertAlmostEqual(conf["search_bound"],
                               ALPHA + bad * ALPHA + good * ALPHA / 2)
        self.assertAlmostEqual(conf["wrong_answer_bound"], ALPHA)
        self.assertIn("a wrong answer: at most 5.0 %", text)
        self.assertEqual(conf["contradictions"], [])
        # no endpoints again: the search saw a bad step
        self.assertNotIn("confirm-endpoints", line.names)

    def test_a_phantom_endpoint_fails_its_confirmation(self):
        line = Line(17, None)
        state, steps, conf, text = line.bisect()
        self.assertTrue(all(s["verdict"] == search.GOOD for s in steps))
        self.assertEqual(conf["commit"], line.commits[-1])
        self.assertEqual(conf["endpoints_again"]["status"], search.FAILED)
        self.assertEqual(conf["status"], search.FAILED)
        self.assertIn("the confirmation failed", text.splitlines()[0])
        # the parent session never ran: the line does not say it did
        self.assertFalse(conf["against_parent"])
        self.assertIn("confirmation (good against bad again; %s against "
                      "its parent not run): FAILED" % line.commits[-1][:12],
                      text)
        self.assertNotIn("a wrong answer: at most", text)
        self.assertIn("a wrong answer: not bounded -- the answer is "
                      "contradicted by its confirmation", text)
        self.assertEqual(line.names, ["confirm-endpoints"])
        # judged like a step: the flagged rows at the steps' thresholds
        self.assertEqual(line.focus["confirm-endpoints"], line.work().focus)
        # the re-test of the bad endpoint contradicts the answer
        self.assertIn(line.commits[-1], state.contradictions())
        self.assertIn("contradict the answer", text)

    def test_a_step_at_the_bad_endpoint_is_confirmed_after_the_ends(self):
        line = Line(16, 15)
        _state, _steps, conf, _text = line.bisect()
        self.assertEqual(conf["endpoints_again"]["status"], search.CONFIRMED)
        self.assertEqual(conf["status"], search.CONFIRMED)
        self.assertEqual(line.names, ["confirm-endpoints",
                                      "confirm-%s" % line.commits[15][:12]])

    def test_a_wrong_answer_fails_against_its_parent(self):
        # a false "bad" at c13 (the step is at c14): the search names c13,
        # whose confirmation against c12 shows no change
        line = Line(16, 14)
        real = line.judge
        line.judge = lambda c, s: (search.BAD, {"reason": "false alarm",
                                                "boots": 6, "wall_s": 1.0}) \
            if c == line.commits[13] else real(c, s)
        state, _steps, conf, text = line.bisect()
        self.assertEqual(conf["commit"], line.commits[13])
        self.assertEqual(conf["status"], search.FAILED)
        self.assertIn(line.commits[13], state.contradictions())
        self.assertIn("FAILED: the confirmation failed", text)

    def test_no_answer_no_confirmation(self):
        line = Line(8, 4)
        state = search.Search(line.commits)
        steps = search.run(state, lambda c, s: (search.SKIP, {
            "reason": "fake", "boots": 0, "wall_s": 0.0}))
        self.assertIsNone(bisect_confirm.confirm(
            line.work(), state, steps, line.run_session))


class NoisyLine(Line):
    """Line with fallible sessions: a step without the change is judged
    bad at FALSE_BAD (above the 2.6-5 % the issue measured), a step with
    it good at MISS; a confirming session flags a regression where there
    is none at ALPHA (its false-alarm level) and misses one at MISS."""

    FALSE_BAD, MISS = 0.10, 0.20

    def __init__(self, n, step, rng):
        super().__init__(n, step)
        self.rng = rng

    def verdict(self, a, b):
        if self.cost(b) > self.cost(a):
            return "unchanged" if self.rng.random() < self.MISS \
                else "regression"
        return "regression" if self.rng.random() < ALPHA else "unchanged"

    def judge(self, commit, _share):
        if self.cost(commit) > self.cost(self.commits[0]):
            bad = self.rng.random() >= self.MISS
        else:
            bad = self.rng.random() < self.FALSE_BAD
        return (search.BAD if bad else search.GOOD), {
            "reason": "fake", "boots": 6, "wall_s": 1.0}


class WrongAnswerRate(unittest.TestCase):
    """The printed bound holds over simulated bisections: a confirmed
    answer that is not the step (or, with a phantom endpoint, any
    confirmed answer) comes at most at the confirmation's alpha.  RUNS
    bisections of 17 commits; the exact 99 % upper bound of the rate must
    be at most the bound printed (5 %).  Without the confirmation the
    search alone names a wrong commit in about half of them here (942
    of 2000; confirmed wrong: 46)."""

    RUNS = 2000

    def rates(self, step):
        """(wrong answers named, wrong answers confirmed, printed bound)
        over RUNS bisections."""
        rng = random.Random(32 + (step or 0))
        named = confirmed = 0
        bounds = set()
        for _ in range(self.RUNS):
            line = NoisyLine(17, step, rng)
            state, _steps, conf, _text = line.bisect()
            if conf is None:
                continue
            wrong = step is None or conf["commit"] != line.commits[step]
            named += wrong
            if conf["status"] == search.CONFIRMED:
                confirmed += wrong
                bounds.add(conf["wrong_answer_bound"])
        return named, confirmed, bounds

    def test_a_wrong_commit_is_confirmed_at_most_at_alpha(self):
        named, confirmed, bounds = self.rates(11)
        self.assertEqual(bounds, {ALPHA})
        self.assertGreater(named, self.RUNS * ALPHA)    # the search errs
        self.assertLessEqual(abtest.binomial_upper(confirmed, self.RUNS),
                             ALPHA, (named, confirmed))

    def test_a_phantom_is_confirmed_at_most_at_alpha(self):
        named, confirmed, _bounds = self.rates(None)
        self.assertEqual(named, self.RUNS)
        self.assertLessEqual(abtest.binomial_upper(confirmed, self.RUNS),
                             ALPHA, confirmed)


class Pure(unittest.TestCase):
    def test_contradictions_fire_on_a_retest(self):
        state = search.Search(list("abcdefgh"))
        for i, v in ((4, search.BAD), (2, search.GOOD), (3, search.GOOD)):
            state.record(i, v)
        self.assertEqual(state.contradictions(), [])
        state.retest(4, search.GOOD)
        self.assertEqual(state.contradictions(), ["e"])
        state.retest(3, search.BAD)
        self.assertEqual(state.contradictions(), ["d", "e"])

    def test_verdicts_of_the_confirmation(self):
        flag = {KEY: None}
        self.assertEqual(search.confirm_verdict(rows("regression"), flag)[0],
                         search.CONFIRMED)
        self.assertEqual(search.confirm_verdict(rows("unchanged"), flag)[0],
                         search.FAILED)
        self.assertEqual(search.confirm_verdict(rows("inconclusive"),
                                                flag)[0], search.UNDECIDED)
        self.assertEqual(search.confirm_verdict([], flag)[0],
                         search.UNDECIDED)
        self.assertEqual(search.endpoints_again(rows("inconclusive"),
                                                flag)[0], search.FAILED)

    def test_bounds_by_hand(self):
        steps = [{"verdict": v} for v in (search.BAD, search.GOOD,
                                          search.SKIP, search.GOOD)]
        # 0.05 + 0.05 + 0.025 + 0 + 0.025
        self.assertAlmostEqual(search.search_bound(steps, 0.05, [0.05] * 4),
                               0.15)
        self.assertAlmostEqual(search.wrong_answer_bound(
            0.15, 0.05, search.CONFIRMED), 0.05)
        self.assertAlmostEqual(search.wrong_answer_bound(
            0.15, 0.05, search.FAILED), 0.15)
        self.assertEqual(search.search_bound(steps * 20, 0.05,
                                             [0.05] * 80), 1.0)

    def test_share_reserves_the_confirmation(self):
        state = search.Search(list("abcdefghijklmnopq"))
        self.assertEqual(state.steps_left(), 4)
        self.assertAlmostEqual(search.share(100.0, state, 1), 20.0)
        self.assertAlmostEqual(search.share(100.0, state), 25.0)


if __name__ == "__main__":
    unittest.main()
