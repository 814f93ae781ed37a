"""tests/host/test_forecast.py - what an ab session can resolve, forecast
from its first boots (tools/trapmeterlib/stats/forecast.py, issue 32 item
8): the figures pinned to hand-computed values, the spread free of the
labels, and the calibration -- on sessions drawn from the model pool of
tests/host/ab_simulation.py, a true shift of the forecast resolution is
flagged in about half of the sessions and twice it in 90 % or more,
judged by exact binomial bounds."""
import copy
import math
import os
import random
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)

from trapmeterlib.stats import abtest, forecast  # noqa: E402
from tests.host import ab_simulation as sim  # noqa: E402

KEY = ("pio", "fwcfg.in8.single.512", "cycles_per_op")


def doc(boots):
    return {"schema": 1, "tool": "trapmeter", "host": {}, "boots": boots}


def boot(cycles, case=KEY[1]):
    return {"results": [{"suite": "pio", "case": case, "handler": "user",
                         "cycles": {"min": cycles}}]}


class Figures(unittest.TestCase):
    def test_band_spread_by_hand(self):
        # logs 0, 0.01, 0.02, 0.5: the last is 65 % above the lower
        # quartile, out of the band; sd of 0, 0.01, 0.02 is 0.01
        sd, share, mean = forecast.band_spread([0.0, 0.01, 0.02, 0.5])
        self.assertAlmostEqual(sd, 0.01)
        self.assertAlmostEqual(share, 0.75)
        self.assertAlmostEqual(mean, 0.01)

    def test_resolution_by_hand(self):
        fc = forecast.Forecast({}, 0.05)
        fc.spreads = {KEY: (0.02, 1.0)}
        fc.crit_z = 1.959963984540054       # two-sided 5 %
        # 50 boots a side: t(98) at 5 % two-sided is 1.98447; shift =
        # 1.98447 * 0.02 * sqrt(2 / 50) = 0.0079379
        self.assertAlmostEqual(fc.shift(KEY, 50), 0.0079379, places=6)
        self.assertAlmostEqual(fc.resolution(KEY, 50, 0.005),
                               math.exp(0.0079379) - 1, places=6)
        # never below the threshold, as compare's "resolves"
        self.assertAlmostEqual(fc.resolution(KEY, 5000, 0.005), 0.005)
        # half the band: the boots that count are halved
        fc.spreads = {KEY: (0.02, 0.5)}
        self.assertAlmostEqual(fc.shift(KEY, 100), 0.0079379, places=6)

    def test_boots_for_a_target(self):
        fc = forecast.Forecast({}, 0.05)
        fc.spreads = {KEY: (0.02, 1.0)}
        fc.crit_z = 1.959963984540054
        n = fc.boots_for(KEY, 0.01)
        self.assertLessEqual(fc.shift(KEY, n), math.log(1.01))
        self.assertGreater(fc.shift(KEY, n - max(1, n // 8) - 1),
                           math.log(1.01))
        self.assertIsNone(fc.boots_for(("x", "y", "z"), 0.01))

    def test_labels_do_not_matter(self):
        rng = random.Random(3)
        boots = [boot(1000 * math.exp(rng.gauss(0, 0.02))) for _ in range(8)]
        one = forecast.Forecast(forecast.timing_logs([doc(boots[:4]),
                                                      doc(boots[4:])]), 0.03)
        two = forecast.Forecast(forecast.timing_logs([doc(boots[1::2]),
                                                      doc(boots[::2])]), 0.03)
        self.assertEqual(one.spreads, two.spreads)
        self.assertEqual(one.crit_z, two.crit_z)

    def test_correlated_metrics_need_less_than_bonferroni(self):
        # ten metrics that move together are one metric: the critical z
        # stays near the single metric's; ten independent ones need more
        rng = random.Random(5)
        shared = [rng.gauss(0, 1) for _ in range(40)]
        same = {("s", "c%d" % m, "cycles_per_op"): {
            b: 0.01 * shared[b] for b in range(40)} for m in range(10)}
        apart = {("s", "c%d" % m, "cycles_per_op"): {
            b: 0.01 * rng.gauss(0, 1) for b in range(40)} for m in range(10)}
        z_same = forecast.critical_z(same, 0.05, random.Random(1))
        z_apart = forecast.critical_z(apart, 0.05, random.Random(1))
        self.assertLess(z_same, 2.2)
        self.assertGreater(z_apart, 2.5)

    def test_lines_say_what_will_not_be_resolved(self):
        fc = forecast.Forecast({}, 0.05)
        fc.spreads = {KEY: (0.02, 1.0)}
        fc.crit_z = 2.5
        text = forecast.lines(fc, [KEY], 3, 20, 0.005, target=0.01)
        self.assertIn("resolves about 1.7 %", text[0])
        self.assertIn("threshold 0.5 % is below the forecast on 1 of 1",
                      text[1])
        self.assertIn("--resolution 1.0 % is not reached", text[2])
        text = forecast.lines(fc, [KEY], 3, 200, 0.005, target=0.01)
        self.assertIn("is reached at about", text[2])


def shift_case(key, factor):
    def shift(b):
        out = copy.deepcopy(b)
        for res in out["results"]:
            if (res["suite"], res["case"]) == key[:2]:
                for k in ("min", "p10", "median"):
                    res["cycles"][k] *= factor
        return out
    return shift


def calibration(pool, sessions, max_boots, seed):
    """(flagged at the forecast resolution, flagged at twice it) over
    `sessions` sessions: each session's deck is drawn first, its first
    FIRST_ROUNDS rounds give the forecast for the end (max_boots / 2 a
    side), and the same deck is run with side B's KEY shifted by it."""
    rng = random.Random(seed)
    level = 0.05 * abtest.spending(abtest.DEFAULT_LOOKS)[-1]
    hits = [0, 0]
    name = ("%s/%s" % KEY[:2], KEY[2])
    with sim.random_splits():
        for s in range(sessions):
            state = rng.getstate()
            deck = random.Random()
            deck.setstate(state)
            first = deck.sample(pool, max_boots)[-2 * forecast.FIRST_ROUNDS:]
            fc = forecast.Forecast(forecast.timing_logs([doc(first)]), level,
                                   seed=s)
            shift = fc.shift(KEY, max_boots // 2)
            for i, mult in enumerate((1, 2)):
                rng.setstate(state)
                frozen = abtest.session_verdicts(
                    pool, rng, max_boots, abtest.DEFAULT_LOOKS, 0.05,
                    ("cycles_per_op",), 300,
                    shift_case(KEY, math.exp(mult * max(
                        shift, math.log(1.005)))), {"*": 0.005})
                hits[i] += frozen.get(name, ("", 0))[0] == "regression"
    return hits


class Calibrated(unittest.TestCase):
    def test_half_at_the_forecast_and_most_at_twice_it(self):
        params = sim.fit(sim.recorded_pool())
        pool = sim.only_cases(sim.model_pool(params), (
            KEY[1], "debugcon.out8.single.512", "pic.in8.single.512"))
        n = 40
        at_r, at_2r = calibration(pool, n, 36, seed=11)
        # about half: a rate of 0.3..0.7 is not ruled out at 99 %
        self.assertGreaterEqual(abtest.binomial_upper(at_r, n), 0.3, at_r)
        self.assertLessEqual(abtest.binomial_lower(at_r, n), 0.7, at_r)
        # twice it: 90 % is not ruled out at 99 %
        self.assertGreaterEqual(abtest.binomial_upper(at_2r, n), 0.9, at_2r)


def main(sessions, max_boots=36, seed=11):
    """The calibration figures of docs/design.md (item 8):
    python3 tests/host/test_forecast.py --sessions 200"""
    params = sim.fit(sim.recorded_pool())
    pool = sim.only_cases(sim.model_pool(params), (
        KEY[1], "debugcon.out8.single.512", "pic.in8.single.512"))
    at_r, at_2r = calibration(pool, sessions, max_boots, seed)
    for what, k in (("at the forecast resolution", at_r),
                    ("at twice it", at_2r)):
        print("%s: flagged in %d of %d sessions (%.0f %%; 99 %% bounds "
              "%.0f-%.0f %%)" % (what, k, sessions, 100.0 * k / sessions,
                                 100 * abtest.binomial_lower(k, sessions),
                                 100 * abtest.binomial_upper(k, sessions)))


if __name__ == "__main__":
    if "--sessions" in sys.argv:
        main(int(sys.argv[sys.argv.index("--sessions") + 1]))
    else:
        unittest.main()
