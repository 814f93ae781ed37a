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
        fc.crit = 2.0
        # 50 boots a side: shift = 1.2 (MARGIN) * 2 * 0.02 * sqrt(2 / 50)
        # = 0.0096
        self.assertAlmostEqual(fc.shift(KEY, 50), 0.0096)
        self.assertAlmostEqual(fc.resolution(KEY, 50, 0.005),
                               math.exp(0.0096) - 1)
        # never below the threshold, as compare's "resolves"
        self.assertAlmostEqual(fc.resolution(KEY, 5000, 0.005), 0.005)
        # half the band: the boots that count are halved
        fc.spreads = {KEY: (0.02, 0.5)}
        self.assertAlmostEqual(fc.shift(KEY, 100), 0.0096)

    def test_split_t_by_hand(self):
        # side A 0, 0.01, 0.02 (mean 0.01), side B 0.03, 0.04, 0.05 (mean
        # 0.04): pooled sd 0.01, se 0.01 * sqrt(2/3), t = 0.03 / se
        cell = {i: 0.01 * i for i in range(6)}
        t = forecast.split_t([cell], [0, 1, 2, 3, 4, 5], 3)
        self.assertAlmostEqual(t, 0.03 / (0.01 * math.sqrt(2.0 / 3)))
        # a boot drawn twice counts twice; a side under MIN_SIDE boots of
        # the metric scores nothing
        self.assertEqual(forecast.split_t([{0: 0.0, 1: 1.0}],
                                          [0, 0, 1, 1], 2), 0.0)

    def test_boots_for_a_target(self):
        fc = forecast.Forecast({}, 0.05)
        fc.spreads = {KEY: (0.02, 1.0)}
        fc.crit = 2.0
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
        self.assertEqual(one.crit, two.crit)

    def test_correlated_metrics_need_less_than_independent_ones(self):
        # ten metrics that move together are one metric: the critical t
        # stays near the single metric's; ten independent ones need more
        rng = random.Random(5)
        shared = [rng.gauss(0, 1) for _ in range(40)]
        same = {("s", "c%d" % m, "cycles_per_op"): {
            b: 0.01 * shared[b] for b in range(40)} for m in range(10)}
        apart = {("s", "c%d" % m, "cycles_per_op"): {
            b: 0.01 * rng.gauss(0, 1) for b in range(40)} for m in range(10)}
        t_same = forecast.critical_t(same, 0.05, 20, random.Random(1))
        t_apart = forecast.critical_t(apart, 0.05, 20, random.Random(1))
        self.assertLess(t_same, 2.4)
        self.assertGreater(t_apart, 2.7)

    def test_a_slow_mode_raises_the_familys_critical_t(self):
        # one metric with two thirds of its boots 20-80 % high (the
        # QEMU-port loops of the recorded 'before' session: 25-44 % of
        # boots in the band): a split side whose lower quartile lands in
        # the slow mode takes slow boots into its band, so its t has a
        # heavy tail, which the family's critical value (shared by every
        # metric) must carry
        rng = random.Random(7)
        calm = {("s", "c%d" % m, "cycles_per_op"): {
            b: 0.01 * rng.gauss(0, 1) for b in range(24)} for m in range(3)}
        moded = dict(calm)
        moded[("s", "slow", "cycles_per_op")] = {
            b: 0.01 * rng.gauss(0, 1) + (math.log(1.2 + 0.6 * rng.random())
                                         if b % 3 else 0.0)
            for b in range(24)}
        t_calm = forecast.critical_t(calm, 0.0267, 24, random.Random(1))
        t_moded = forecast.critical_t(moded, 0.0267, 24, random.Random(1))
        self.assertGreater(t_moded, 1.2 * t_calm)

    def test_lines_say_what_will_not_be_resolved(self):
        fc = forecast.Forecast({}, 0.05)
        fc.spreads = {KEY: (0.02, 1.0)}
        fc.crit = 2.5
        text = forecast.lines(fc, [KEY], 3, 20, 0.005, target=0.01)
        self.assertIn("resolves about 1.9 %", text[0])
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


# ------------------------------------------------ replays of recorded sessions

# Recorded interleaved ab sessions and which of their rows are A/A: every
# row of an A/A session, the in-kernel rows (handler not "user") of a
# session whose side B had a delay per exit to QEMU.  The results files of
# two sessions of 12+12 boots, and the sessions of 25-36 boots a side of
# tests/fixtures/kvm-spread-sessions.json (tests/host/spread_sessions.py).
RECORDED = (("kvm-ab-aa-a.json", "kvm-ab-aa-b.json", "all"),
            ("kvm-ab-d1-a.json", "kvm-ab-d1-b.json", "kernel"))
ROTATIONS = 3       # windows of the session's rounds that start a replay


def recorded_sessions():
    """[(name, [boots of A, boots of B], which rows are A/A)], both sides
    cut to the same number of boots."""
    from trapmeterlib.output import resultsfile
    from trapmeterlib.stats import compare
    from tests.host import spread_sessions
    out = []
    for a, b, rows in RECORDED:
        docs = [resultsfile.read_results(os.path.join(sim.FIX, n))
                for n in (a, b)]
        out.append((a[:-7], [[{"results": r} for r in
                              compare.boot_results(d)] for d in docs], rows))
    for sess in spread_sessions.load():
        if sess["aa_rows"] != "none":
            out.append((sess["name"], [[{"results": [
                dict(r, cycles=dict(r["cycles"])) for r in boot["results"]]}
                for boot in sess[s]] for s in "ab"], sess["aa_rows"]))
    for _name, sides, _rows in out:
        n = min(len(s) for s in sides)
        sides[:] = [s[:n] for s in sides]
    return out


def aa_keys(boots, rows):
    """The timing keys of a recorded session that are A/A in it."""
    return sorted({(res["suite"], res["case"], "cycles_per_op")
                   for res in boots[0]["results"]
                   if rows == "all" or res.get("handler") != "user"})


def rotated(sides, rotation):
    return [s[rotation:] + s[:rotation] for s in sides]


def replay_forecast(a, b):
    """The forecast ab says after FIRST_ROUNDS rounds of the session a/b,
    for its end (all its boots)."""
    level = 0.05 * abtest.spending(abtest.DEFAULT_LOOKS)[-1]
    first = a[:forecast.FIRST_ROUNDS] + b[:forecast.FIRST_ROUNDS]
    return forecast.Forecast(forecast.timing_logs([doc(first)]), level,
                             n_end=len(a))


def replay_flags(a, b, key, factor, resamples):
    """True when ab's looks over the recorded session a/b flag `key` a
    regression with side B's figures of it times `factor`."""
    b = [shift_case(key, factor)(x) for x in b]
    rows, _seq = abtest.replay(doc(a), doc(b), resamples=resamples)
    return any(r.name == "%s/%s" % key[:2] and r.metric == key[2]
               and r.verdict == "regression" for r in rows)


def replay_trials(sessions, rotations=ROTATIONS, every_key=True):
    """The trials: (session, orientation, rotation, key) -- each A/A key
    (or, with every_key False, one key per window, in turn) of every
    recorded session, both orientations, `rotations` windows of its
    rounds: real boots in the order the host gave them."""
    out = []
    for name, sides, rows in sessions:
        keys = aa_keys(sides[0], rows)
        n = len(sides[0])
        for o, pair in enumerate((sides, sides[::-1])):
            for r in range(rotations):
                a, b = rotated(pair, r * n // rotations)
                chosen = keys if every_key else \
                    [keys[(o * rotations + r) % len(keys)]]
                out += [(name, a, b, key) for key in chosen]
    return out


def replay_calibration(trials, resamples=400):
    """(flagged at the forecast resolution, flagged at twice it, trials
    with a forecast): each trial's session replayed through ab's looks
    with side B's key made dearer by 1x and 2x the forecast ab printed
    after its first rounds (never below the threshold)."""
    hits, done = [0, 0], 0
    with sim.random_splits():
        for _name, a, b, key in trials:
            shift = replay_forecast(a, b).shift(key, len(a))
            if shift is None:
                continue
            done += 1
            for i, mult in enumerate((1, 2)):
                hits[i] += replay_flags(a, b, key, math.exp(
                    mult * max(shift, math.log(1.005))), resamples)
    return hits[0], hits[1], done


class CalibratedOnReplays(unittest.TestCase):
    """The forecast on the host's own boots: one A/A key per window of
    every recorded session.  The trials share boots (windows of one
    session overlap), so the binomial bounds are those of independent
    trials -- an indication, not an exact level; the full figures
    (every key) are docs/design.md's: python3 tests/host/test_forecast.py
    --replays."""

    def test_half_at_the_forecast_and_most_at_twice_it(self):
        trials = replay_trials(recorded_sessions(), every_key=False)
        at_r, at_2r, n = replay_calibration(trials, resamples=200)
        self.assertGreaterEqual(n, 24)
        self.assertGreaterEqual(abtest.binomial_upper(at_r, n), 0.3, at_r)
        self.assertLessEqual(abtest.binomial_lower(at_r, n), 0.7, at_r)
        self.assertGreaterEqual(abtest.binomial_upper(at_2r, n), 0.9, at_2r)
        # the replays are deterministic (fixed boots, seeded splits): the
        # rates themselves, 19 and 28 of 30 when MARGIN was set (the bare
        # forecast: 17 and 23)
        self.assertGreaterEqual(at_2r, 0.9 * n, (at_r, at_2r, n))
        self.assertLessEqual(at_r, 0.7 * n, (at_r, at_2r, n))


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


def main_replays():
    """The replay figures of docs/design.md (item 8), every A/A key:
    python3 tests/host/test_forecast.py --replays"""
    trials = replay_trials(recorded_sessions())
    at_r, at_2r, n = replay_calibration(trials)
    for what, k in (("at the forecast resolution", at_r),
                    ("at twice it", at_2r)):
        print("replays, %s: flagged in %d of %d trials (%.0f %%; 99 %% "
              "bounds %.0f-%.0f %%, as if independent)" % (
                  what, k, n, 100.0 * k / n,
                  100 * abtest.binomial_lower(k, n),
                  100 * abtest.binomial_upper(k, n)))


if __name__ == "__main__":
    if "--replays" in sys.argv:
        main_replays()
    elif "--sessions" in sys.argv:
        main(int(sys.argv[sys.argv.index("--sessions") + 1]))
    else:
        unittest.main()
