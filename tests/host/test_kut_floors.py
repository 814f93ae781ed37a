#!/usr/bin/env python3
"""tests/host/test_kut_floors.py - a try judged by lower quartiles,
unpaired (tools/trapmeterlib/stats/kutfloors.py), where vmexit's case or
its reference alone was lifted in some rounds: the quartiles' ranks, the
row they explain and the one they do not, and how often a remainder
lying on the bound comes out within it (simulated, binomial bound)."""
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "tools"))

from trapmeterlib.stats import kutcmp, kutfloors  # noqa: E402
from trapmeterlib.stats.abtest import binomial_upper  # noqa: E402
from trapmeterlib.stats.kutrounds import at, spread  # noqa: E402

REF = "inl_from_kernel"
# vmexit's mov_dr over 16 rounds: 70 in most, six rounds lifted alone;
# its reference 20, lifted alone in six others: the paired differences'
# median interval (5th from each end) reaches into the lifts
VM_CASE = [70, 71, 70, 100, 70, 105, 71, 70, 98, 70, 71, 110, 70, 104, 71,
           99]
VM_REF = [20, 33, 35, 20, 21, 20, 32, 20, 20, 38, 20, 20, 31, 20, 36, 20]
# trapmeter's mean per op, the statistic try's side: 50 in every round
TM_MEAN = [50, 51, 50, 50, 49, 50, 50, 51, 50, 50, 50, 49, 50, 51, 50, 50]


def rounds(tm_mean=TM_MEAN):
    """16 rounds of mov_dr in the shape kut --from hands kutcmp."""
    out = []
    for i, mean in enumerate(tm_mean):
        tm = {"mov_dr": {"case": "mov_dr.tm", "gross": 30, "mean": mean},
              REF: {"case": REF + ".tm", "gross": 20, "mean": 0}}
        out.append({"vmexit": {"mov_dr": VM_CASE[i], REF: VM_REF[i]},
                    "trapmeter": tm, "cases": {}})
    return out


class Ranks(unittest.TestCase):
    def test_each_tail_is_within_TAIL_and_the_ranks_are_the_tightest(self):
        self.assertEqual(kutfloors.FEWEST, 15)
        self.assertIsNone(kutfloors.ranks(14))
        for n in range(15, 61):
            r, s = kutfloors.ranks(n)
            below, above = kutfloors._cdf(n, r - 1), \
                1.0 - kutfloors._cdf(n, s - 1)
            self.assertLessEqual(below, kutfloors.TAIL, n)
            self.assertLessEqual(above, kutfloors.TAIL, n)
            self.assertGreater(kutfloors._cdf(n, r), kutfloors.TAIL, n)
            self.assertGreater(1.0 - kutfloors._cdf(n, s - 2),
                               kutfloors.TAIL, n)

    def test_three_tails_are_the_rule_s_false_explanations(self):
        self.assertAlmostEqual(3 * kutfloors.TAIL,
                               kutcmp.FALSE_EXPLAINED_ALPHA)


class OneLoopLifted(unittest.TestCase):
    def test_quartiles_explain_what_the_pairing_cannot(self):
        row = kutcmp.diff_row(rounds(), "mov_dr", REF)
        self.assertEqual(row["verdict"], "explained", row)
        self.assertIn("statistic", row["cause"])
        self.assertIn("by lower quartiles over the rounds, unpaired", row[
            "cause"])
        self.assertIn("+0 (-2..+0, lower quartiles of 16 rounds), within "
                      "±", row["cause"])

    def test_without_quartiles_the_row_is_not_explained(self):
        kutcmp.FLOORS = False
        try:
            row = kutcmp.diff_row(rounds(), "mov_dr", REF)
        finally:
            kutcmp.FLOORS = True
        self.assertNotEqual(row["verdict"], "explained", row)

    def test_a_try_off_vmexit_s_floors_explains_nothing(self):
        row = kutcmp.diff_row(rounds([m + 12 for m in TM_MEAN]), "mov_dr",
                              REF)
        self.assertNotEqual(row["verdict"], "explained", row)
        self.assertIn("by lower quartiles over the rounds, unpaired, the "
                      "nearest is statistic: +12 (+10..+12, lower quartiles "
                      "of 16 rounds), reaching past", row["cause"])

    def test_under_fifteen_rounds_there_are_no_quartiles(self):
        b = rounds()[:14]
        alt = spread([at(x, 50) for x in b])
        self.assertIsNone(kutfloors.left(alt, b, "mov_dr", REF))


class OnTheBound(unittest.TestCase):
    """A remainder whose lower quartile lies right on the bound: every
    figure its level plus one-sided noise of one law (most rounds a
    little, a few lifted far), so the three quartiles' offsets cancel and
    the true remainder is the bound.  How often the interval comes out
    within it is the rule's false explanation there: at most
    FALSE_EXPLAINED_ALPHA at the 99 % binomial bound."""
    TRIALS, BOUND = 1500, 10.0

    def noisy(self, rng, level):
        lift = rng.expovariate(1 / 40.0) if rng.random() < 0.25 else 0.0
        return level + rng.expovariate(1 / 3.0) + lift

    def within(self, rng, n, sign):
        b = [{"vmexit": {"x": self.noisy(rng, 100.0),
                         REF: self.noisy(rng, 20.0)}} for _ in range(n)]
        alt = spread([at(r, self.noisy(rng, 80.0 + sign * self.BOUND))
                      for r in b])
        got = kutfloors.left(alt, b, "x", REF)
        return -self.BOUND <= got[1] and got[2] <= self.BOUND

    def test_a_remainder_on_the_bound_is_rarely_within_it(self):
        rng = random.Random(20261206)
        for n in (15, 24, 48):
            for sign in (1, -1):
                hits = sum(self.within(rng, n, sign)
                           for _ in range(self.TRIALS))
                self.assertLessEqual(
                    binomial_upper(hits, self.TRIALS, 0.99),
                    kutcmp.FALSE_EXPLAINED_ALPHA, (n, sign, hits))


if __name__ == "__main__":
    unittest.main()
