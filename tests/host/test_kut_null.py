#!/usr/bin/env python3
"""tests/host/test_kut_null.py - the false-explanation rate `trapmeter kut`
prints under its table (stats/kutcmp.py FALSE_EXPLAINED) recounted: the
label-shuffle null of tests/host/kut_null.py, kutcmp's rule alone, over the
ninety-seven sessions it was measured on
(tests/fixtures/kut-null-sessions.json.gz, kut_null.py's reduced file).
A change to the width rule or to the tries that moves the count turns
this red: measure again with kut_null.py and write the new figure (and
docs/measurements.md) beside the change.  The
count is one of pairs that share their tries, so its binomial bound is the
one kut_null.py and the table state, not a clustered one."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from tests.host import kut_null  # noqa: E402
from trapmeterlib.commands import kut  # noqa: E402
from trapmeterlib.output import kut_table  # noqa: E402
from trapmeterlib.stats import kutcmp, kutlooks  # noqa: E402
from trapmeterlib.stats.abtest import binomial_upper  # noqa: E402

# the bound the rate is held under, stricter than the 95 % printed
CONFIDENCE = 0.99
SESSIONS = ["kut10/s%d.json" % i for i in range(1, 7)] + \
    ["kut9/s%d.json" % i for i in range(1, 4)] + \
    ["kut13/s%d.json" % i for i in range(2, 7)] + \
    ["kut14/sq%d.json" % i for i in range(1, 5)] + \
    ["kut15/r16.json", "kut15/p8.json", "kut15/q8.json"] + \
    ["kut16/a8.json", "kut16/b16.json", "kut16/c8.json"] + \
    ["kut17/e8.json", "kut17/f16.json"] + \
    ["kut18/%s.json" % s for s in ("g8", "h8", "i8", "j8")] + \
    ["kut19/k%d.json" % i for i in range(1, 4)] + \
    ["kut20/l16.json", "kut20/m16.json", "kut20/n16.json", "kut21/p30.json",
     "kut22/s30.json", "kut23/s12.json", "kut24/s20.json",
     "kut25/p12.json", "kut25/x10.json", "kut25/y12.json",
     "kut26/z16.json", "kut26/f12.json", "kut27/n24.json", "kut28/f24.json",
     "kut29/g24.json", "kut30/h30.json", "kut31/i30.json",
     "kut32/j30.json", "kut33/k33.json", "kut33/k33again.json",
     "kut33/l20.json", "kut34/m34.json", "kut34/m34again.json",
     "kut35/n35.json", "kut35/n35again.json", "kut36/p36.json",
     "kut36/p36again.json", "kut36/p37.json", "kut36/p37again.json",
     "kut36/p38.json", "kut36/p38again.json", "kut37/p39.json",
     "kut37/p39again.json", "kut37/p39again2.json", "kut37/p40.json",
     "kut37/p40again.json", "kut37/p40again2.json", "kut38/p41.json",
     "kut38/p41again.json", "kut38/p41again2.json", "kut38/p42.json",
     "kut38/p42again.json", "kut38/p42again2.json", "kut39/p43.json",
     "kut39/p43again.json", "kut39/p43again2.json", "kut39/p44.json",
     "kut39/p44again.json", "kut39/p44again2.json", "kut41/p46.json",
     "kut41/p46again.json", "kut41/p46again2.json", "kut41/p47.json",
     "kut41/p47again.json", "kut41/p47again2.json", "kut42/p48.json",
     "kut42/p48again.json", "kut42/p48again2.json", "kut42/p49.json",
     "kut42/p49again.json", "kut42/p49again2.json", "kut42/p50.json",
     "kut42/p50again.json", "kut42/p50again2.json"]


class FalseExplained(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sessions = kut_null.load([kut_null.KUT_NULL_FIXTURE])
        tally = kut_null.tally_of(cls.sessions,
                                  {"kutcmp": kutcmp.allowed_width})
        cls.count = tuple(tally["null"]["kutcmp"]["all"])
        cls.wide = tally["null"]["kutcmp"]

    def test_the_fixture_is_the_sessions_the_table_names(self):
        self.assertEqual([s["name"] for s in self.sessions], SESSIONS)
        judged = kut_null.judged_sessions(self.sessions)
        blocks = sum("[" in s["name"] for s in judged)
        self.assertTrue(kut_table.NULL_SESSIONS.startswith(
            "%d kut sessions" % (len(judged) - blocks)),
            kut_table.NULL_SESSIONS)
        self.assertIn("their %d blocks of %d rounds" % (
            blocks, kutcmp.rounds_to_explain()), kut_table.NULL_SESSIONS)

    def test_only_sessions_that_can_explain_are_judged_and_cut(self):
        made = [{"name": "s%d" % n, "flavour": None, "boots": list(range(n))}
                for n in (3, 4, 5, 8, 16)]
        got = [(s["name"], s["boots"][0], len(s["boots"]))
               for s in kut_null.judged_sessions(made)]
        self.assertEqual(got, [
            ("s5", 0, 5), ("s8", 0, 8), ("s8[1-5]", 0, 5),
            ("s16", 0, 16), ("s16[1-5]", 0, 5), ("s16[6-10]", 5, 5),
            ("s16[11-15]", 10, 5)])

    def test_the_printed_count_is_the_recounted_one(self):
        self.assertEqual(self.count, kutcmp.FALSE_EXPLAINED,
                         "kut_null.py over %s counts %d of %d false "
                         "explanations; kutcmp.FALSE_EXPLAINED says %d of "
                         "%d" % ((kut_null.KUT_NULL_FIXTURE,) + self.count +
                                 kutcmp.FALSE_EXPLAINED))

    def test_each_spread_s_count_is_the_recounted_one(self):
        # kut states a session's rate at its rounds' spread (the range,
        # or from 8 rounds the median's interval) and sums those over
        # --again's sessions (kutlooks.union_false)
        got = {b: tuple(self.wide.get(b, [0, 0])) for b in kut_null.DBINS}
        self.assertEqual(got, kutlooks.FALSE_BY_SPREAD)
        self.assertEqual(sum(k for k, _ in got.values()), self.count[0])

    def test_its_upper_bound_is_under_the_stated_alpha(self):
        k, n = self.count
        self.assertGreater(n, 1000)     # enough pairs to bound anything
        upper = binomial_upper(k, n, CONFIDENCE)
        self.assertLess(upper, kutcmp.FALSE_EXPLAINED_ALPHA,
                        "%d of %d: one-sided %g %% bound %.2f %%" % (
                            k, n, 100 * CONFIDENCE, 100 * upper))

    def test_again_holds_its_two_looks_under_the_alpha(self):
        # kut --again: a pair judged on one half of a session's rounds and,
        # not resolved there, on the other; either look's false
        # explanations under the alpha, and at most twice what the union
        # bound gives the first look's
        tally = kut_null.looks(self.sessions, boots=(
            1, kut.AGAIN_VMEXIT_BOOTS))
        first, either = tally["false"]
        pairs = tally["pairs"]
        self.assertGreater(pairs, 1000)
        upper = binomial_upper(either, pairs, CONFIDENCE)
        self.assertLess(upper, kutcmp.FALSE_EXPLAINED_ALPHA,
                        "%d of %d: one-sided %g %% bound %.2f %%" % (
                            either, pairs, 100 * CONFIDENCE, 100 * upper))
        self.assertLessEqual(either, 2 * first)

    def test_more_looks_stay_within_the_union_bound(self):
        # four looks of 5 rounds (docs/measurements.md, thirty-first
        # session): by each look's end, false explanations within the
        # union bound of that many looks at one session's stated rate
        # (kutlooks.union_false), and all four under the alpha
        tally = kut_null.looks(self.sessions, 4, [5] * 4)
        self.assertGreater(tally["pairs"], 1000)
        for i, k in enumerate(tally["false"]):
            self.assertLessEqual(k, kutlooks.union_false([5] * (i + 1)) *
                                 tally["pairs"])
        upper = binomial_upper(tally["false"][-1], tally["pairs"],
                               CONFIDENCE)
        self.assertLess(upper, kutcmp.FALSE_EXPLAINED_ALPHA)
        self.assertEqual(sorted(tally["open"], reverse=True),
                         tally["open"])

    def test_agains_further_sessions_stay_within_the_union_bound(self):
        # kut --again N as the tool runs it, on sessions long enough: a
        # first look, then up to kutlooks.MOST_LOOKS - 1 more of two
        # vmexit boots a round (replayed: two recorded rounds each, the
        # lowest window), each on the rows the ones before left open; by
        # each look's end false explanations within the union bound of
        # the sessions so far, each at its rounds' stated rate, and the
        # last under the alpha; a further look leaves fewer rows open
        self.assertEqual(kutlooks.LOOKS_CONFIDENCE, CONFIDENCE)
        rounds = kutlooks.session_rounds(kutcmp.DEFAULT_ROUNDS,
                                         kutlooks.MOST_LOOKS - 1)
        # the last look of one boot a round: no recorded session is long
        # enough for two there too (5 + 8 x 2 + 5 x 2 rounds)
        tally = kut_null.looks(self.sessions, len(rounds), rounds,
                               boots=(1, kut.AGAIN_VMEXIT_BOOTS, 1))
        self.assertGreater(tally["pairs"], 1000)
        for i, k in enumerate(tally["false"]):
            self.assertLessEqual(k, kutlooks.union_false(rounds[:i + 1]) *
                                 tally["pairs"])
        self.assertLess(binomial_upper(tally["false"][-1], tally["pairs"],
                                       CONFIDENCE),
                        kutcmp.FALSE_EXPLAINED_ALPHA)
        self.assertLess(tally["open"][-1], tally["open"][-2])
        self.assertLess(binomial_upper(tally["unexplained"][-1],
                                       tally["rows"], CONFIDENCE),
                        kutcmp.PARTING_ALPHA)

    def test_agains_lowest_window_resolves_more_under_the_alpha(self):
        # --again's look with vmexit's lowest of two boots a round, replayed
        # (its rounds two recorded ones each): fewer rows left open than
        # the same look of one boot a round, both looks' false
        # explanations under the alpha (docs/measurements.md, "vmexit's
        # lowest window")
        long = [s for s in self.sessions if len(s["boots"]) >= 15]
        low = kut_null.looks(long, 2, [5, 5], boots=(1, 2))
        one = kut_null.looks(long, 2, [5, 5], boots=(1, 1))
        self.assertEqual(low["rows"], one["rows"])
        self.assertGreater(low["pairs"], 1000)
        upper = binomial_upper(low["false"][-1], low["pairs"], CONFIDENCE)
        self.assertLess(upper, kutcmp.FALSE_EXPLAINED_ALPHA)
        self.assertLess(low["open"][-1], one["open"][-1])
        # the lowest window parts no more real rows than one boot does
        # (in the first look it did: ipi_halt, inl_from_pmtimer), and
        # "unexplained" stays rare among the rows (99 % bound)
        self.assertLessEqual(low["unexplained"][-1], one["unexplained"][-1])
        self.assertLess(binomial_upper(low["unexplained"][-1], low["rows"],
                                       CONFIDENCE), kutcmp.PARTING_ALPHA)

    def test_the_lowest_round_is_taken_name_by_name(self):
        def rnd(figs, waits):
            return {"vmexit": figs, "vmexit_wait": waits, "trapmeter": {},
                    "cases": {"x": len(figs)}}
        sess = {"name": "s", "flavour": None, "boots": [
            rnd({"a": 10, "b": 30}, {"a": 0.1, "b": 0.3}),
            rnd({"a": 20, "b": 5, "c": 1}, {"a": 0.2, "b": 0.5}),
            rnd({"a": 1}, {}), rnd({"a": 2}, {}), rnd({"a": 3}, {})]}
        one, two = kut_null.lowest_rounds([sess], 2)[0]["boots"]
        self.assertEqual(one["vmexit"], {"a": 10, "b": 5, "c": 1})
        self.assertEqual(one["vmexit_wait"], {"a": 0.1, "b": 0.5})
        self.assertEqual(one["cases"], {"x": 2})     # trapmeter's: the first
        self.assertEqual(two["vmexit"], {"a": 1})
        self.assertEqual(kut_null.lowest_rounds([sess], 3), [])
        self.assertEqual(kut_null.lowest_rounds([sess], 2, lowest=False)[0][
            "boots"][1]["vmexit"], {"a": 1})

    def assert_each_class_within_alpha(self, labels, least):
        """Each class of pairs (kut_null.py's tables) holds over `least`
        pairs and its false explanations under the alpha (99 % bound)."""
        for label in labels:
            k, n = self.wide[label]
            self.assertGreater(n, least, label)
            upper = binomial_upper(k, n, CONFIDENCE)
            self.assertLess(upper, kutcmp.FALSE_EXPLAINED_ALPHA,
                            "%s: %d of %d, one-sided %g %% bound %.2f %%" % (
                                label, k, n, 100 * CONFIDENCE, 100 * upper))

    def test_it_holds_however_wide_vmexits_range(self):
        # a rule may not buy real rows with rows it explains far more
        # often by accident: a narrow try meeting a wide vmexit range
        # (vmexit's range or a quarter of the gap made 34 of 299 there,
        # 11.4 %, against 2.8 % over all)
        self.assert_each_class_within_alpha(
            [label for label, _lo, _hi in kut_null.WBINS], 200)

    def test_it_holds_however_far_the_shuffled_figure_lies(self):
        # pairs whose A lies a quarter of the gap to a whole gap from B
        # are the nearest the rule judges (nearer ones are its claim
        # itself): 518 of 12665 (4.1 %, 99 % bound 4.5 %) on the whole
        # fixture, and the classes a looser rule failed when held out
        # (mgap/4: 5.2 % on the 27 sessions after kut18/g8.json)
        self.assert_each_class_within_alpha(
            [label for label, lo, _hi in kut_null.BINS if lo > 0], 1000)

    def test_it_holds_over_the_medians_interval_too(self):
        # sessions of 8 rounds or more spread each figure over the
        # median's interval, narrower than the range (kutrounds.depth):
        # the rule's rate is held there on its own
        self.assert_each_class_within_alpha(kut_null.DBINS, 300)

    def test_the_table_states_the_alpha(self):
        text = kut_table.explained_rule()
        self.assertIn("under %d %%" % round(
            100 * kutcmp.FALSE_EXPLAINED_ALPHA), text)
        self.assertIn("%d pairs" % kutcmp.FALSE_EXPLAINED[1], text)
        self.assertNotIn("on the bound", text)
        self.assertIn("on the bound itself is called within it 6.2 % "
                      "(model) of the time over 4 rounds (rounds "
                      "exchangeable), over the 5 % held: no try explains a "
                      "row over so few (--boots 5)",
                      kut_table.explained_rule(4))
        self.assertNotIn("no try explains", kut_table.explained_rule(5))

    def test_reducing_the_fixture_again_gives_its_bytes(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "again.json.gz")
            kut_null.reduce_to(out, kut_null.load(
                [kut_null.KUT_NULL_FIXTURE]))
            with open(out, "rb") as a, \
                    open(kut_null.KUT_NULL_FIXTURE, "rb") as b:
                self.assertEqual(a.read(), b.read())
            with self.assertRaises(SystemExit):     # one session twice
                kut_null.load([out, kut_null.KUT_NULL_FIXTURE])


if __name__ == "__main__":
    unittest.main()
