"""tests/host/test_stat_figures.py - the statistics' figures pinned to values
computed by hand, and their error rates by exact small designs (every
relabelling of a fixed set of boots enumerated, so the rate is exact, not
a sample's): the pooled sd and its degrees of freedom, the spread, the
resolution, the Welch interval and its degrees of freedom, the permutation
p with its observed split, the two one-sided tests each at alpha / 2.
Each pin is a one-line mutation the tests before issue 32 let through."""
import itertools
import math
import os
import random
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.stats import (attribution, bootstats, compare,  # noqa: E402
                                equivalence, tdist)

A = [0.00, 0.01, 0.02]      # log figures of three base boots
B = [0.03, 0.04, 0.08]      # ... and three candidate boots


def metric(a, b):
    return bootstats.Metric(dict(enumerate(list(a) + list(b))))


class Pinned(unittest.TestCase):
    def test_pooled_sd_has_n_minus_2_degrees_of_freedom(self):
        # means 0.01 and 0.05; squares 0.0002 + 0.0014 = 0.0016 over
        # 3 + 3 - 2 = 4: sd 0.02; se = 0.02 * sqrt(1/3 + 1/3)
        shift, sd, se = metric(A, B).figures(frozenset(range(3)))
        self.assertAlmostEqual(shift, 0.04, places=12)
        self.assertAlmostEqual(sd, 0.02, places=12)
        self.assertAlmostEqual(se, 0.02 * math.sqrt(2.0 / 3.0), places=12)

    def test_spread_and_resolution(self):
        """resolution = exp(max(crit * se, log(1 + t))) - 1, spread =
        exp(sd) - 1, boots for the target scale as (res / target)^2."""
        m = metric(A, B)
        base = frozenset(range(3))
        se = 0.02 * math.sqrt(2.0 / 3.0)
        self.assertAlmostEqual(bootstats.resolution(m, base, 3.0), 3.0 * se,
                               places=12)
        row = compare.Row("pio", "x", "cycles_per_op", True)
        row.n_base = row.n_cand = 3
        compare.set_resolution(row, m, base, 3.0)
        self.assertAlmostEqual(row.resolution, math.exp(3.0 * se) - 1, places=12)
        self.assertAlmostEqual(row.spread, math.exp(0.02) - 1, places=12)
        self.assertEqual(row.boots_for_target, math.ceil(
            3 * (3.0 * se / math.log(1.01)) ** 2))
        self.assertAlmostEqual(row.target, 0.01)
        # t above 1 %: the boots are for t, and the note says so
        row.threshold = 0.02
        compare.set_resolution(row, m, base, 3.0)
        self.assertAlmostEqual(row.target, 0.02)
        self.assertEqual(row.boots_for_target, math.ceil(
            3 * (3.0 * se / math.log(1.02)) ** 2))

    def test_shift_interval_is_the_test_inverted(self):
        m = metric(A, B)
        se = 0.02 * math.sqrt(2.0 / 3.0)
        shift, lo, hi = bootstats.shift_interval(m, frozenset(range(3)), 2.5)
        self.assertAlmostEqual(lo, 0.04 - 2.5 * se, places=12)
        self.assertAlmostEqual(hi, 0.04 + 2.5 * se, places=12)
        self.assertEqual(bootstats.shift_interval(m, frozenset(range(3)), None),
                         (shift, None, None))

    def test_t_quantiles_are_the_table_values(self):
        for alpha, df, want in ((0.05, 1, 12.7062), (0.05, 8, 2.3060),
                                (0.05, 30, 2.0423), (0.01, 5, 4.0321)):
            self.assertAlmostEqual(tdist.t_quantile(alpha, df), want, places=3)

    def test_welch_interval_and_its_degrees_of_freedom(self):
        """a = 1..4 (variance 5/3), b = 2..12 step 2 (variance 14):
        se^2 = 5/12 + 14/6 = 2.75; Welch-Satterthwaite df = 2.75^2 /
        ((5/12)^2 / 3 + (7/3)^2 / 5) = 6.5947 (a pooled df would be 8)."""
        a, b = [1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
        df = 2.75 ** 2 / ((5.0 / 12) ** 2 / 3 + (7.0 / 3) ** 2 / 5)
        self.assertAlmostEqual(df, 6.5947, places=3)
        delta, (lo, hi) = attribution.diff_interval(a, b, 0.05)
        half = tdist.t_quantile(0.05, df) * math.sqrt(2.75)
        self.assertAlmostEqual(delta, 4.5)
        self.assertAlmostEqual(lo, 4.5 - half, places=9)
        self.assertAlmostEqual(hi, 4.5 + half, places=9)
        self.assertNotAlmostEqual(half, tdist.t_quantile(0.05, 8) * math.sqrt(2.75),
                                  places=3)

    def test_exact_p_counts_the_observed_split(self):
        """3+3 boots fully apart: of the 20 splits the observed one and its
        mirror reach the observed t, p = 2/20 (not 1/19); with random
        splits the observed one is counted too, so p >= 1/(1 + draws)."""
        m = metric(A, [0.5, 0.51, 0.52])
        ps, tops = bootstats.max_t([m], 3, 3, random.Random(1), 100)
        self.assertEqual(len(tops), 20)
        self.assertAlmostEqual(ps[0], 2.0 / 20)
        big = metric([0.001 * i for i in range(10)],
                     [0.5 + 0.001 * i for i in range(10)])
        saved, bootstats.EXACT_MAX = bootstats.EXACT_MAX, 0
        try:
            ps, tops = bootstats.max_t([big], 10, 10, random.Random(1), 99)
        finally:
            bootstats.EXACT_MAX = saved
        self.assertEqual(len(tops), 100)
        self.assertGreaterEqual(ps[0], 1.0 / 100)
        self.assertLess(ps[0], 0.05)


def relabellings(n, n_a):
    """Every way to call n_a of n boots "base": under exchangeability each
    is equally likely, so a rate over them is the procedure's exact rate
    (conditional on the boots)."""
    for split in itertools.combinations(range(n), n_a):
        rest = [i for i in range(n) if i not in split]
        yield list(split), rest


class ExactDesigns(unittest.TestCase):
    def test_family_false_alarms_at_most_alpha(self):
        """Four metrics on 4+4 boots, every one of the 70 relabellings
        judged by max-T (exact): the share with any metric at p <= 0.05
        is at most 0.05.  Per-metric p-values (no family) exceed it."""
        rng = random.Random(8)
        values = [[rng.gauss(0, 0.01) for _ in range(8)] for _ in range(4)]
        alarms = single = total = 0
        for base, cand in relabellings(8, 4):
            order = base + cand
            metrics = [bootstats.Metric({k: v[i] for k, i in enumerate(order)})
                       for v in values]
            ps, _tops = bootstats.max_t(metrics, 4, 4, rng, 100)
            alarms += min(ps) <= 0.05
            one = [bootstats.max_t([m], 4, 4, rng, 100)[0][0] for m in metrics]
            single += min(one) <= 0.05
            total += 1
        self.assertEqual(total, 70)
        self.assertLessEqual(alarms / total, 0.05)
        self.assertGreater(single / total, 0.05)

    def test_mode_family_at_most_alpha(self):
        """The slow-mode test, exactly: 5+5 boots, three of them 20 %
        slow, every relabelling: "changed mode" at p <= 0.2 in at most 20 %
        (three marks on one side of 5+5 have p = 42/252), and it is
        reached."""
        logs = [0.001 * i for i in range(7)] + [0.18, 0.19, 0.2]
        alarms = total = 0
        for base, cand in relabellings(10, 5):
            order = base + cand
            m = bootstats.ModeMetric(bootstats.Metric(
                {k: logs[i] for k, i in enumerate(order)}))
            ps, _tops = bootstats.max_t([m], 5, 5, random.Random(1), 100)
            alarms += ps[0] <= 0.2
            total += 1
        self.assertEqual(total, 252)
        self.assertLessEqual(alarms / total, 0.2)
        self.assertGreater(alarms, 0)

    def test_wrong_unchanged_at_most_half_alpha(self):
        """A true shift of exactly t: every relabelling of 6+6 boots whose
        candidate side carries +t.  Both one-sided tests at alpha / 2 (the
        interval of coverage 1 - alpha inside +-t): "unchanged" in at most
        alpha / 2 of them.  Each test at alpha would allow alpha."""
        t = math.log(1.01)
        rng = random.Random(3)
        for alpha in (0.05, 0.2):
            values = sorted(rng.gauss(0, 0.002) for _ in range(12))
            wrong = total = 0
            for base, cand in relabellings(12, 6):
                a = [values[i] for i in base]
                b = [values[i] + t for i in cand]
                wrong += equivalence.unchanged(a, b, t, alpha)[0]
                total += 1
            self.assertLessEqual(wrong / total, alpha / 2, (alpha, wrong, total))
            self.assertGreater(wrong, 0, alpha)      # the design can fail


if __name__ == "__main__":
    unittest.main()
