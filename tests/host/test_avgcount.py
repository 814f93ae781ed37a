"""tests/host/test_avgcount.py - exits per op of a case whose model is an
average (exits_model_exact false: suite dma's bus-master cases) compared
like a timing metric over boots (tools/trapmeterlib/stats/avgcount.py),
exact counts by the count rule as before.

The docs are synthetic: per boot the averaged count is drawn uniformly
from 14..22 exits per op (a status poll count that depends on time), the
exact count is 1, the cycles a fixed level times a 1 % wobble."""
import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.stats import abtest, avgcount, compare  # noqa: E402

AVG, EXACT = "bm.read.4096", "fwdma.read.16"
LOW, HIGH = 14.0, 22.0


def result(case, cycles, exits, exact):
    r = {"suite": "dma", "case": case, "exits_model": 16,
         "cycles": {"min": cycles, "p10": cycles, "median": cycles}}
    if exits is not None:
        r["exits_measured"] = exits
    if not exact:
        r["exits_model_exact"] = False
    return r


def doc(boots, rng, scale=1.0, exact_exits=1.0, counted=None):
    """A results doc of `boots` boots; `counted`: only the first N count
    exits (ab --count-boots N)."""
    out = []
    for i in range(boots):
        count = counted is None or i < counted
        polls = rng.uniform(LOW, HIGH) * scale
        out.append({"results": [
            result(AVG, 9e5 * (1 + 0.01 * rng.random()), polls if count else None, False),
            result(EXACT, 28e3 * (1 + 0.01 * rng.random()),
                   exact_exits if count else None, True)]})
    return abtest.pool_doc(out)


def old_count_rule(base, cand, model):
    """The rule exact counts had before issue 32: a move of the median
    beyond 10 % of it and beyond 5 % of the model, with no test."""
    b, c = max(base, 0.5), max(cand, 0.5)
    return abs(c - b) > max(0.10 * b, 0.05 * model)


def exits_row(base, cand, case=AVG):
    rows, _w = compare.compare_docs(base, cand, interleaved=True)
    return next(r for r in rows if r.case == case and r.metric == "exits_per_op")


class AveragedCount(unittest.TestCase):
    def test_a_a_false_alarms_within_alpha(self):
        """100 A/A comparisons of 4 boots a side.  Bound: were the rate
        alpha = 5 %, 13 or more alarms would come with probability 0.0015
        (binomial tail); the count rule on the same draws flags most of
        them (medians of 14..22 differ by more than 10 % often)."""
        rng = random.Random(25)
        alarms = count_rule = 0
        for _ in range(100):
            base, cand = doc(4, rng), doc(4, rng)
            row = exits_row(base, cand)
            self.assertTrue(row.averaged and row.timing)
            alarms += row.verdict in ("regression", "improvement")
            count_rule += old_count_rule(row.base, row.cand, 16)
        self.assertLessEqual(alarms, 12)
        self.assertGreater(count_rule, 20)

    def test_a_true_move_is_found_with_its_interval(self):
        rng = random.Random(7)
        row = exits_row(doc(6, rng), doc(6, rng, scale=1.6))
        self.assertEqual(row.verdict, "regression")
        self.assertTrue(1.0 < row.lo <= row.ratio <= row.hi)
        self.assertTrue(any("average exits/op moved" in n for n in row.notes))
        self.assertEqual(row.threshold, avgcount.EXITS_CHANGED)

    def test_too_few_counted_boots_say_so_and_ab_does_not_wait(self):
        rng = random.Random(3)
        rows, _w = compare.compare_docs(doc(6, rng, counted=1),
                                        doc(6, rng, counted=1), interleaved=True)
        row = next(r for r in rows if r.case == AVG and r.metric == "exits_per_op")
        self.assertEqual(row.verdict, "inconclusive")
        self.assertIn("--count-boots 3", compare.undecidable(row))
        seq = abtest.Sequential([3], compare.DEFAULT_ALPHA, 1, ["exits_per_op"])
        self.assertNotIn((row.name, "exits_per_op"), seq.undecided(rows))
        self.assertTrue(abtest.stuck(row))

    def test_too_few_on_one_side_is_enough_to_say_so(self):
        """The fewer side decides: 1 counted boot against 6 is too few."""
        rng = random.Random(4)
        for base, cand in ((doc(6, rng, counted=1), doc(6, rng)),
                           (doc(6, rng), doc(6, rng, counted=1))):
            row = exits_row(base, cand)
            self.assertEqual(row.verdict, "inconclusive")
            self.assertIn("1+6" if row.n_base == 1 else "6+1",
                          avgcount.too_few(row))

    def test_its_threshold_key_is_exits_per_op(self):
        rng = random.Random(5)
        base, cand = doc(6, rng), doc(6, rng)
        for given, want in (({"exits_per_op": 0.25}, 0.25),
                            ({"cycles_per_op": 0.25}, avgcount.EXITS_CHANGED),
                            ({}, avgcount.EXITS_CHANGED)):
            rows, _w = compare.compare_docs(base, cand, given)
            row = next(r for r in rows if r.case == AVG
                       and r.metric == "exits_per_op")
            self.assertEqual(row.threshold, want, given)
            self.assertEqual(avgcount.threshold(given), want)


class ExactCount(unittest.TestCase):
    def test_an_exact_count_keeps_the_count_rule(self):
        """One boot a side: the exact count's move from 1 to 2 is an exit
        path change, as before."""
        rng = random.Random(5)
        row = exits_row(doc(1, rng), doc(1, rng, exact_exits=2.0), case=EXACT)
        self.assertFalse(row.averaged or row.timing)
        self.assertEqual(row.verdict, "regression")
        self.assertTrue(any(n.startswith("exit path changed") for n in row.notes))

    def test_the_flag_is_read_from_either_side(self):
        self.assertTrue(avgcount.is_average({}, {"exits_model_exact": False}))
        self.assertFalse(avgcount.is_average({"exits_model_exact": True}, {}))
        self.assertFalse(avgcount.is_average({"exits_model_exact": 0}, None))


if __name__ == "__main__":
    unittest.main()
