"""tests/host/test_rounds.py - merging a boot's rounds of a case into one
result (tools/trapmeterlib/rounds.py, fed by the dump parser), the plan's
split over rounds, and the runner's plan check that follows it."""
import json
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib import dump, plan, rounds  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
KHZ = 2000000
RUN = {"type": "run", "schema": 3, "version": "t", "tsc": {"khz": KHZ}}


def line(case, rnd, cycles, control=None, samples=8, iters=3, ops=None,
         sync=None, stop="plan", suite="pio"):
    """A schema-3 result line of one round (cycles: min p10 median p90 p99
    max mean stddev)."""
    rec = {"type": "result", "suite": suite, "case": case, "target": "t",
           "port": "0x80", "handler": "user", "dir": "out", "width": 1,
           "method": "single", "bytes": 4, "buf_offset": 0}
    if rnd is not None:
        rec["round"] = rnd
    rec.update(samples=samples, iters=iters, stop=stop, cycles=list(cycles))
    if control is not None:
        rec["cycles_control"] = list(control)
    rec.update(exits_model=4, ops=ops if ops is not None else samples * iters,
               case_ms=1.5)
    if sync is not None:
        rec["sync"] = list(sync)
    return rec


def parse(records):
    text = b"trapmeter t START\n@tm " + json.dumps(RUN).encode() + b"\n"
    for rec in records:
        text += b"@tm " + json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    parser = dump.DumpParser()
    parser.feed(text)
    return parser.dump.results


R0 = line("a", 0, [100, 110, 130, 150, 160, 170, 130, 20], [10, 11, 12, 14, 15],
          ops=24, sync=[1, 2, 3, 0, 0, 0, 5000, 0])
R1 = line("a", 1, [90, 120, 125, 200, 260, 300, 140, 40], [12, 13, 14, 15, 16],
          samples=10, ops=30)
R2 = line("a", 2, [95, 105, 140, 145, 150, 155, 135, 10], [9, 12, 13, 14, 15],
          samples=6, ops=18)


class Split(unittest.TestCase):
    def test_round_share_is_ceil(self):
        self.assertEqual(rounds.round_samples(31, 4), 8)
        self.assertEqual(rounds.round_samples(32, 4), 8)
        self.assertEqual(rounds.round_samples(33, 4), 9)
        self.assertEqual(rounds.round_samples(5, 1), 5)
        self.assertEqual(rounds.round_samples(2, 4), 1)
        self.assertEqual(rounds.planned_total(31, 4), 32)
        self.assertEqual(rounds.planned_total(31, 1), 31)

    def test_deviations_know_the_split(self):
        entries = [("pio", "a", 3, 23)]
        merged = parse([R0, R1, R2])        # 24 samples = 3 * ceil(23 / 3)
        self.assertEqual(plan.deviations(entries, merged), [])
        self.assertEqual(len(plan.deviations([("pio", "a", 3, 25)], merged)), 1)
        self.assertEqual(len(plan.deviations([("pio", "a", 4, 23)], merged)), 1)
        single = parse([line("a", None, R0["cycles"], samples=23)])
        self.assertEqual(plan.deviations(entries, single), [])


class Merge(unittest.TestCase):
    def setUp(self):
        self.results = parse([R0, line("b", 0, [5] * 8, samples=3),
                              R1, line("b", 1, [4] * 8, samples=3), R2])
        self.a = self.results[0]

    def test_one_result_per_case_in_first_seen_order(self):
        self.assertEqual([r["case"] for r in self.results], ["a", "b"])
        self.assertNotIn("round", self.a)

    def test_counts_sum(self):
        self.assertEqual(self.a["samples"], 24)
        self.assertEqual(self.a["case_ms"], 4.5)
        self.assertEqual(self.a["ops_total"], 72)
        self.assertEqual(self.results[1]["samples"], 6)

    def test_min_max_exact_quantiles_lowest_round(self):
        c = self.a["cycles"]
        self.assertEqual((c["min"], c["max"]), (90, 300))
        self.assertEqual((c["p10"], c["median"], c["p90"], c["p99"]),
                         (105, 125, 145, 150))
        ctl = self.a["cycles_control"]
        self.assertEqual((ctl["min"], ctl["p10"], ctl["median"], ctl["max"]),
                         (9, 11, 12, 16))
        self.assertEqual(self.a["cycles_net"], {"min": 81, "p10": 94, "median": 113})
        self.assertEqual(self.a["fastest_round"], 1)

    def test_mean_and_stddev_over_all_samples(self):
        # 8 samples mean 130 sd 20, 10 mean 140 sd 40, 6 mean 135 sd 10
        n, means, sds = (8, 10, 6), (130, 140, 135), (20, 40, 10)
        mean = sum(k * m for k, m in zip(n, means)) / 24
        sq = sum((k - 1) * s * s + k * (m - mean) ** 2 for k, m, s in zip(n, means, sds))
        self.assertEqual(self.a["cycles"]["mean"], round(mean))
        self.assertEqual(self.a["cycles"]["stddev"], round((sq / 23) ** 0.5))

    def test_counted_round_carries_the_exit_window(self):
        self.assertEqual(self.a["ops"], 24)          # round 0's window
        self.assertEqual(self.a["sync"]["window_cycles"], 5000)
        self.assertEqual(self.results[1]["ops"], 18)  # no sync: every op

    def test_rounds_stay_visible(self):
        self.assertEqual([(p["round"], p["samples"], p["min"], p["median"])
                          for p in self.a["rounds"]],
                         [(0, 8, 100, 130), (1, 10, 90, 125), (2, 6, 95, 140)])
        self.assertEqual(self.a["rounds"][0]["control_min"], 10)

    def test_derived_figures_follow_the_merge(self):
        self.assertEqual(self.a["cycles_per_unit"], 31.25)    # 125 / 4 units
        self.assertEqual(self.a["cycles_per_exit_model"], 28.3)  # 113 / 4
        self.assertEqual(self.a["plan"], "fixed")

    def test_mixed_stops_are_named(self):
        res = parse([R0, dict(R1, stop="budget")])[0]
        self.assertEqual(res["stop"], "budget/plan")

    def test_a_result_without_round_is_untouched(self):
        res = parse([line("a", None, R0["cycles"])])
        self.assertNotIn("rounds", res[0])
        self.assertEqual(res[0]["cycles"]["min"], 100)

    def test_fixture_dumps_read_as_before(self):
        with open(os.path.join(FIXTURES, "serial-tcg-ok.log"), "rb") as fh:
            d = dump.parse_dump(fh.read())
        self.assertTrue(d.results)
        self.assertFalse(any("rounds" in r for r in d.results))
        self.assertEqual(len(d.results), sum(1 for r in d.records
                                             if r.get("type") == "result"))


if __name__ == "__main__":
    unittest.main()
