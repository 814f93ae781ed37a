#!/usr/bin/env python3
"""tests/host/test_kut_lifted.py - the rounds a not-resolved row's nearest
try was taken past its bound by (stats/kutlifted.py), and the row that
names them (stats/kutcmp.py _too_wide)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                "tools"))

from tests.host.test_kut import boots  # noqa: E402
from trapmeterlib.stats import kutcmp, kutlifted  # noqa: E402
from trapmeterlib.stats.kutrounds import at, spread  # noqa: E402


def readings(rounds, values):
    """A spread whose Readings come from rounds, one value each."""
    return spread([at(b, v) for b, v in zip(rounds, values)])


class PastRounds(unittest.TestCase):
    ROUNDS = [{} for _ in range(5)]

    def text(self, alt, vm, limit=10):
        return kutlifted.text(self.ROUNDS, readings(self.ROUNDS, alt),
                              readings(self.ROUNDS, vm), limit)

    def test_each_round_past_gives_both_sides_from_their_medians(self):
        # round 4: trapmeter's try lifted 60; round 5: vmexit's difference
        # 60 under its median; both leave +60, past ±10
        text = self.text([100, 101, 100, 160, 100], [100, 100, 100, 100, 40])
        self.assertEqual(text, "; past ±10 in rounds 4 (+60; trapmeter's "
                         "try +60, vmexit's difference +0), 5 (+60; "
                         "trapmeter's try +0, vmexit's difference -60) of "
                         "5, each side from its median")

    def test_most_rounds_past_on_one_side_are_said_so(self):
        text = self.text([130, 131, 129, 130, 100], [100, 100, 101, 99, 100])
        self.assertIn("; past ±10 in rounds 1 (+30; ", text)
        self.assertTrue(text.endswith(
            "of 5, each side from its median: 4 of the try's 5 rounds past "
            "on one side"), text)
        # as many past on either side: not said
        text = self.text([130, 131, 70, 69, 100], [100, 100, 100, 100, 100])
        self.assertNotIn("one side", text)

    def test_a_try_over_some_rounds_numbers_them_among_all(self):
        # a try over the quiet rounds 2, 4 and 5 of five: round 4 past,
        # named by its place in the session; one of three is no offset
        some = [self.ROUNDS[i] for i in (1, 3, 4)]
        text = kutlifted.text(self.ROUNDS, readings(some, [100, 130, 100]),
                              readings(some, [100, 100, 100]), 10)
        self.assertEqual(text, "; past ±10 in round 4 (+30; trapmeter's "
                         "try +30, vmexit's difference +0) of 5, each side "
                         "from its median")
        # two of the try's three on one side: most of its rounds
        text = kutlifted.text(self.ROUNDS, readings(some, [130, 130, 100]),
                              readings(some, [100, 100, 100]), 10)
        self.assertTrue(text.endswith("2 of the try's 3 rounds past on one "
                                      "side"), text)

    def test_nothing_past_or_nothing_paired_says_nothing(self):
        self.assertEqual(self.text([100, 105, 95, 100, 101],
                                   [100] * 5), "")
        self.assertEqual(kutlifted.text(self.ROUNDS, "no readings",
                                        readings(self.ROUNDS, [1] * 5), 0),
                         "")
        # rounds of another session pair with none of these
        other = [{} for _ in range(5)]
        self.assertEqual(kutlifted.text(self.ROUNDS, readings(
            other, [200] * 5), readings(self.ROUNDS, [1] * 5), 0), "")


class NamedUnderTheRow(unittest.TestCase):
    def test_a_not_resolved_row_names_its_rounds_past_the_bound(self):
        # cpuid.insn - inb.elcr +12, +27, +20, +21 against vmexit's +20,
        # +21, +20, +21: -8, +6, 0, 0 round by round, past ±6 in round 1
        b = boots({"cpuid": [120, 121, 120, 121],
                   "inl_from_kernel": [100, 100, 100, 100]},
                  {"cpuid": [10, 11, 10, 10],
                   "inl_from_kernel": [15, 15, 16, 15]},
                  extra={"cpuid.insn": [82, 97, 90, 91],
                         "inb.elcr": [70, 70, 70, 70]})
        row = kutcmp.diff_row(b, "cpuid", "inl_from_kernel")
        self.assertEqual(row["verdict"], "not resolved", row)
        self.assertIn("the median's interval, narrower than the range); "
                      "past ±6 in round 1 (-8; trapmeter's try -8, "
                      "vmexit's difference +0) of 4, each side from its "
                      "median; beyond the spread", row["cause"])


if __name__ == "__main__":
    unittest.main()
