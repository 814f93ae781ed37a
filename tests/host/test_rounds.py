"""tests/host/test_rounds.py - merging a boot's rounds of a case into one
result (tools/trapmeterlib/guest/rounds.py, fed by the dump parser), the plan's
split over rounds, and the runner's plan check that follows it."""
import json
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import dump, plan, rounds  # noqa: E402
from trapmeterlib.output import report  # noqa: E402

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

    def test_the_median_is_named_for_what_it_is(self):
        """After rounds "median" is the lowest of the rounds' medians (125,
        round 1), not the pooled samples' (which lies between 125 and
        140): every place that names it to a user says so."""
        self.assertEqual(self.a["cycles"]["median"],
                         min(p["median"] for p in self.a["rounds"]))
        self.assertEqual(rounds.rounds_of(self.a), 3)
        self.assertEqual(rounds.stat_label("median", 3),
                         "lowest of 3 rounds' median")
        self.assertEqual(rounds.stat_label("min", 3), "min")     # exact
        self.assertEqual(rounds.stat_label("median", 1), "median")
        text = report.render_report(RUN, {}, [self.a], [], [])
        self.assertIn("the lowest of 3 rounds' median (each from its least "
                      "disturbed round), not the median of the pooled "
                      "samples", text)
        one = parse([line("a", None, R0["cycles"])])
        self.assertNotIn("pooled", report.render_report(RUN, {}, one, [], []))

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


RUN4 = dict(RUN, schema=4)


def short(rec, **drop):
    """R1/R2 as the schema-4 guest sends them after round 0: a "round"
    record with short keys and what round 0 already said left out."""
    out = {"type": "round", "case": rec["case"], "ops": rec["ops"],
           "ms": rec["case_ms"], "c": rec["cycles"]}
    if rec.get("stop") != "plan":
        out["n"] = rec["samples"]
        if rec["iters"] != 1:
            out["i"] = rec["iters"]
        if rec["stop"] != "stable":
            out["stop"] = rec["stop"]
    if rec["ops"] == rec["samples"] * rec["iters"]:
        del out["ops"]
    if "cycles_control" in rec:
        out["k"] = rec["cycles_control"]
    for key in drop:
        out.pop(key, None)
    return out


def suite(name="pio", rnd=None):
    rec = {"type": "suite", "suite": name}
    if rnd is not None:
        rec["round"] = rnd
    return rec


def case(name, suite_name="pio"):
    return {"type": "case", "suite": suite_name, "case": name}


def parse4(records, cut=False):
    """A schema-4 dump of these records; the Dump (cut: no end)."""
    text = b"trapmeter t START\n@tm " + json.dumps(RUN4).encode() + b"\n"
    for rec in records:
        text += b"@tm " + json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    parser = dump.DumpParser()
    parser.feed(text)
    return parser.finish() if cut else parser.dump


B0 = line("b", 0, [5] * 8, samples=3)
B1 = line("b", 1, [4] * 8, samples=3)


class RoundRecords(unittest.TestCase):
    """Schema 4: rounds after the first as short "round" records."""

    def test_same_merge_as_full_lines(self):
        """Adaptive rounds (every count sent): the merged results equal
        those of the schema-3 lines the records stand for."""
        a = [dict(r, stop=stop) for r, stop in
             ((R0, "stable"), (R1, "budget"), (R2, "stable"))]
        b = [dict(B0, stop="stable"), dict(B1, stop="stable", iters=1, ops=3)]
        full = parse([case("a"), a[0], case("b"), b[0], suite(rnd=1),
                      case("a"), a[1], case("b"), b[1], suite(rnd=2),
                      case("a"), a[2]])
        recs = [short(a[1]), short(b[1]), short(a[2])]
        self.assertEqual([sorted(r) for r in recs[:2]], [
            ["c", "case", "i", "k", "ms", "n", "stop", "type"],
            ["c", "case", "ms", "n", "type"]])
        got = parse4([suite(), case("a"), a[0], case("b"), b[0], suite(rnd=1),
                      recs[0], recs[1], suite(rnd=2), recs[2]]).results
        self.assertEqual(got, full)
        self.assertEqual(got[0]["samples"], 24)
        self.assertEqual(got[0]["cycles"]["min"], 90)
        self.assertEqual(got[0]["stop"], "budget/stable")

    def test_planned_rounds_take_counts_from_round_0(self):
        p1 = line("a", 1, R1["cycles"], R1["cycles_control"], ops=25)
        rec = short(p1)
        self.assertEqual(sorted(rec), ["c", "case", "k", "ms", "ops", "type"])
        res = parse4([suite(), case("a"), R0, suite(rnd=1), rec]).results[0]
        self.assertEqual([(p["samples"], p["iters"], p["stop"], p["ops"])
                          for p in res["rounds"]],
                         [(8, 3, "plan", 24), (8, 3, "plan", 25)])
        self.assertEqual(res["ops_total"], 49)
        self.assertEqual(res["stop"], "plan")

    def test_adaptive_defaults(self):
        r0 = line("a", 0, R0["cycles"], samples=5, iters=1, stop="stable")
        rec = {"type": "round", "case": "a", "n": 7, "ms": 2.0,
               "c": R1["cycles"]}
        res = parse4([suite(), case("a"), r0, suite(rnd=1), rec]).results[0]
        self.assertEqual(res["rounds"][1], {
            "round": 1, "samples": 7, "iters": 1, "ops": 7, "stop": "stable",
            "min": 90, "p10": 120, "median": 125})
        self.assertEqual(res["stop"], "stable")
        self.assertNotIn("cycles_control", res)     # round 1 sent none
        self.assertEqual(res["exits_model"], 4)     # round 0's

    def refused(self, records, words):
        d = parse4(records, cut=True)
        probs = " ".join(d.problems)
        self.assertIn(words, probs)
        return d

    def test_bad_round_records_are_named(self):
        head = [suite(), case("a"), R0, suite(rnd=1)]
        self.refused(head + [dict(short(R1), extra=1)], "unknown field extra")
        self.refused(head + [dict(short(R1), case="zz")],
                     "pio/zz, which has no round-0 result")
        self.refused([suite(), case("a"), R0, short(R1)], "outside a later round")
        self.refused(head + [dict(short(R1), c=[1, 2])], "cycles must be an array")
        self.refused(head + [dict(short(R1), ms="x")], "ms must be a number")
        adaptive = line("a", 0, R0["cycles"], stop="stable")
        self.refused([suite(), case("a"), adaptive, suite(rnd=1),
                      {"type": "round", "case": "a", "ms": 1, "c": R1["cycles"]}],
                     "without n")

    def test_running_case_from_round_0_order(self):
        head = [suite(), case("a"), R0, case("b"), B0, suite("exits"),
                case("x", "exits"), line("x", 0, [7] * 8, suite="exits")]
        self.assertEqual(parse4(head).last_case, "exits/x")
        self.assertEqual(parse4(head + [suite(rnd=1)]).last_case, "pio/a")
        self.assertEqual(parse4(head + [suite(rnd=1), short(R1)]).last_case,
                         "pio/b")
        self.assertEqual(parse4(head + [suite(rnd=1), short(R1), short(B1)]
                                ).last_case, "pio/b")    # the last one ran
        self.assertEqual(parse4(head + [suite(rnd=1), short(R1), short(B1),
                                        suite("exits", 1)]).last_case, "exits/x")
        # a case that ran once after the last round (exits' extended ones)
        later = head + [suite("exits", 1), case("y", "exits")]
        self.assertEqual(parse4(later).last_case, "exits/y")
        self.assertEqual(parse4(later + [suite(rnd=2)]).last_case, "pio/a")

    def test_a_case_left_out_does_not_shift_the_rest(self):
        head = [suite(), case("a"), R0, case("b"), B0, case("c"),
                line("c", 0, [6] * 8), suite(rnd=1)]
        d = parse4(head + [short(B1)])           # a left out: b, then c
        self.assertEqual(d.last_case, "pio/c")
        self.assertEqual(len(d.results[1]["rounds"]), 2)

    def test_cut_dump_names_the_inferred_case(self):
        d = parse4([suite(), case("a"), R0, case("b"), B0, suite(rnd=1),
                    short(R1)], cut=True)
        self.assertIn("last case started: pio/b", " ".join(d.problems))

    def test_recorded_rounds4_dump(self):
        """A real TCG boot of 4 rounds (tests/fixtures/README.md)."""
        with open(os.path.join(FIXTURES, "serial-tcg-rounds4.log"), "rb") as fh:
            raw = fh.read()
        d = dump.parse_dump(raw)
        self.assertTrue(d.valid, d.problems)
        self.assertEqual(d.run["schema"], 4)
        self.assertEqual(len(d.results), 10)
        for res in d.results:
            self.assertEqual([p["round"] for p in res["rounds"]], [0, 1, 2, 3])
            self.assertEqual(res["samples"], sum(p["samples"] for p in res["rounds"]))
        self.assertEqual(raw.count(b'"type":"case"'), 10)
        # cut after each round record: the next case of round 0's order
        order = [r["suite"] + "/" + r["case"] for r in d.results]
        lines = raw.split(b"\n")
        seen = 0
        for k, text in enumerate(lines):
            if not text.startswith(b'@tm {"type":"round"'):
                continue
            cut = dump.parse_dump(b"\n".join(lines[:k + 1]) + b"\n")
            name = cut.records[-1]["suite"] + "/" + cut.records[-1]["case"]
            place = order.index(name)
            want = order[place + 1] if place + 1 < len(order) and \
                order[place + 1].split("/")[0] == name.split("/")[0] else name
            self.assertEqual(cut.last_case, want, k)
            self.assertFalse(cut.valid)
            seen += 1
        self.assertEqual(seen, 30)


if __name__ == "__main__":
    unittest.main()
