"""tests/host/test_medianci.py - a median's bracket from the statistics a
result carries, and the interval of a REP speed-up (a ratio of two
medians) from one boot's samples (stats/medianci.py; output/summary.py
rep_groups with one boot).

The coverage test draws samples with one-sided noise (a floor plus an
exponential tail, whose median is known), gives them the guest's
statistics (lib/stats.c: numpy-style linear percentiles) and counts how
often the interval misses the true ratio: at most a binomial upper bound
over the trials for the level claimed, not one seed's count."""
import copy
import json
import math
import os
import random
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.output import report, summary  # noqa: E402
from trapmeterlib.stats import medianci  # noqa: E402

RUN3 = os.path.join(ROOT, "tests", "fixtures", "kvm-run3.json")
TRIALS = 3000
# each count of misses may exceed its bound by chance this often (about
# twenty bounds are checked: a false alarm in well under 1 % of runs)
FALSE_ALARM = 1e-4


def most_misses(trials, p, alarm=FALSE_ALARM):
    """The smallest count c with P(Bin(trials, p) > c) <= alarm: what a
    miss rate of p leaves at most."""
    if p <= 0:
        return 0
    pmf, cdf = (1.0 - p) ** trials, 0.0
    for c in range(trials + 1):
        cdf += pmf
        if cdf >= 1.0 - alarm:
            return c
        pmf *= (trials - c) / (c + 1.0) * p / (1.0 - p)
    return trials


def percentile(sorted_vals, pct_x10):
    """lib/stats.c stats_percentile, in floats."""
    n = len(sorted_vals)
    pos = (n - 1) * pct_x10
    lo, rem = divmod(pos, 1000)
    if not rem or lo + 1 >= n:
        return sorted_vals[lo]
    return sorted_vals[lo] + (sorted_vals[lo + 1] - sorted_vals[lo]) * rem / 1000.0


def guest_stats(samples):
    s = sorted(samples)
    return {"min": s[0], "p10": percentile(s, 100),
            "median": percentile(s, 500), "p90": percentile(s, 900),
            "max": s[-1]}


def draw(rng, base, scale, n):
    """n samples of base * (1 + Exp(1) * scale): one-sided noise whose
    median is base * (1 + ln 2 * scale)."""
    return [base * (1.0 + rng.expovariate(1.0) * scale) for _ in range(n)]


def true_median(base, scale):
    return base * (1.0 + math.log(2.0) * scale)


class Brackets(unittest.TestCase):

    def test_rank_of_p10(self):
        # (n - 1) * 0.1 on a rank: that rank; between ranks: the next one
        self.assertEqual(medianci.low_rank(11, medianci.P10_X10), 2)
        self.assertEqual(medianci.low_rank(5, medianci.P10_X10), 2)
        self.assertEqual(medianci.low_rank(27, medianci.P10_X10), 4)
        self.assertEqual(medianci.low_rank(1, medianci.P10_X10), 1)

    def test_below(self):
        self.assertAlmostEqual(medianci.below(5, 1), 1 / 32.0)
        self.assertAlmostEqual(medianci.below(6, 2), 7 / 64.0)
        self.assertEqual(medianci.below(4, 0), 0.0)

    def test_min_max_of_n(self):
        stats = {"min": 10, "p10": 11, "median": 12, "p90": 13, "max": 14}
        got = medianci.brackets(stats, 5)
        self.assertEqual(got[0], (10, 14, 1 / 32.0, 1 / 32.0))
        # p10 of 5 lies between ranks 1 and 2: rank 2's miss, 6 / 32
        self.assertEqual(got[1], (11, 13, 6 / 32.0, 6 / 32.0))
        self.assertEqual(len(medianci.brackets(stats, 5, quantiles=False)), 1)
        self.assertEqual(medianci.brackets({"min": 0, "max": 3}, 5), [])
        self.assertEqual(medianci.brackets(stats, 0), [])

    def test_six_a_side_reach_ninety(self):
        one = {"min": 100, "p10": 101, "median": 105, "p90": 110, "max": 120}
        two = {"min": 10, "p10": 10, "median": 11, "p90": 12, "max": 13}
        self.assertIsNone(medianci.ratio_interval(one, 5, two, 5, 0.90))
        lo, hi, sure = medianci.ratio_interval(one, 6, two, 6, 0.90)
        self.assertAlmostEqual(lo, 100 / 13.0)
        self.assertAlmostEqual(hi, 120 / 10.0)
        self.assertAlmostEqual(sure, 1 - 4 / 64.0)
        self.assertIsNotNone(medianci.ratio_interval(one, 6, two, 5, 0.90))
        self.assertEqual(medianci.samples_needed(0.90), 6)
        # many samples a side: p10..p90 is sure enough, and narrower
        lo, hi, _sure = medianci.ratio_interval(one, 40, two, 40, 0.90)
        self.assertAlmostEqual(lo, 101 / 12.0)
        self.assertAlmostEqual(hi, 110 / 10.0)


class Coverage(unittest.TestCase):

    def coverage(self, n_num, n_den, level, seed):
        rng = random.Random(seed)
        truth = true_median(4.0e7, 0.2) / true_median(3.0e5, 0.6)
        misses = shown = 0
        for _ in range(TRIALS):
            num = guest_stats(draw(rng, 4.0e7, 0.2, n_num))
            den = guest_stats(draw(rng, 3.0e5, 0.6, n_den))
            got = medianci.ratio_interval(num, n_num, den, n_den, level)
            self.assertIsNotNone(got)
            shown += 1
            misses += not got[0] <= truth <= got[1]
        return misses, shown

    def test_each_end_misses_at_most_what_it_claims(self):
        """Every bracket a result offers (minimum/maximum, p10/p90), at
        the sample counts the guest takes: the trials whose low end lies
        above the true median stay under the binomial upper bound of its
        claimed miss (most_misses), and so for the high end."""
        truth = true_median(1.0, 0.5)
        for n in (5, 6, 8, 12, 27):
            rng = random.Random(n)
            claimed, above, below = {}, {}, {}
            for _ in range(TRIALS):
                got = medianci.brackets(guest_stats(draw(rng, 1.0, 0.5, n)), n)
                for i, (lo, hi, miss_lo, miss_hi) in enumerate(got):
                    claimed[i] = (miss_lo, miss_hi)
                    above[i] = above.get(i, 0) + (lo > truth)
                    below[i] = below.get(i, 0) + (hi < truth)
            for i, (miss_lo, miss_hi) in claimed.items():
                for seen, miss in ((above[i], miss_lo), (below[i], miss_hi)):
                    self.assertLessEqual(seen, most_misses(TRIALS, miss),
                                         (n, i, seen, miss))

    def test_misses_at_most_what_the_level_allows(self):
        """At 90 %, 6 and 6 samples, 6 and 5, 40 and 8: the trials that
        miss the true ratio stay under what a 10 % miss rate leaves
        (most_misses), on several seeds."""
        for seed, (n_num, n_den) in enumerate(((6, 6), (6, 5), (40, 8))):
            misses, shown = self.coverage(n_num, n_den, 0.90, seed)
            self.assertLessEqual(misses, most_misses(shown, 0.10),
                                 (n_num, n_den, misses, shown))


class OneBoot(unittest.TestCase):
    """kvm-run3.json's boot 0 alone: its fwcfg.in8.single.4096 stopped on
    its budget."""

    def boot0(self):
        with open(RUN3) as fh:
            doc = json.load(fh)
        doc["boots"] = doc["boots"][:1]
        return doc

    def pair(self, doc, target="fwcfg"):
        results = doc["boots"][0]["results"]
        return next((r, t) for r, t in summary.rep_pairs(results)
                    if r["target"] == target)

    def test_an_unsettled_row_shows_its_interval(self):
        doc = self.boot0()
        rep, single = self.pair(doc)
        self.assertEqual(single["stop"], "budget")
        single["samples"], rep["samples"] = 6, 6
        fig = dict(summary.rep_groups(doc))["fwcfg in8"]
        self.assertTrue(fig.resolved)
        self.assertAlmostEqual(fig.value, report.median_cycles(single)
                               / report.median_cycles(rep))
        self.assertAlmostEqual(fig.interval[0], single["cycles"]["min"]
                               / rep["cycles"]["max"])
        self.assertAlmostEqual(fig.interval[1], single["cycles"]["max"]
                               / rep["cycles"]["min"])
        text = "\n".join(summary.rep_lines(doc))
        self.assertRegex(text, r"fwcfg in8 [\d.]+x \([\d.]+-[\d.]+\)")
        self.assertIn(summary.REP_RANGE_NOTE, text)

    def test_too_few_samples_is_not_resolved(self):
        doc = self.boot0()
        rep, single = self.pair(doc)
        single["samples"], rep["samples"] = 5, 5
        fig = dict(summary.rep_groups(doc))["fwcfg in8"]
        self.assertFalse(fig.resolved)
        self.assertIn("too few samples for a 90 % interval", fig.reason)
        text = "\n".join(summary.rep_lines(doc))
        self.assertIn("fwcfg in8 n.r.", text)
        self.assertIn("too few samples", text)

    def test_rounds_use_the_extremes_only(self):
        """After rounds a p10 is no order statistic of the pooled
        samples: with 40 samples a side the interval is min/max's."""
        doc = self.boot0()
        rep, single = self.pair(doc)
        single["samples"], rep["samples"] = 40, 40
        narrow = dict(summary.rep_groups(copy.deepcopy(doc)))["fwcfg in8"]
        single["rounds"] = [{"round": 0}, {"round": 1}]
        wide = dict(summary.rep_groups(doc))["fwcfg in8"]
        self.assertAlmostEqual(wide.interval[0], single["cycles"]["min"]
                               / rep["cycles"]["max"])
        self.assertLess(wide.interval[0], narrow.interval[0])


if __name__ == "__main__":
    unittest.main()
