"""tests/boot/test_rounds.py - `run --rounds 2` under TCG: the guest passes
twice over the pio and exits cases (a result line per case in round 0,
then a short "round" record per case and later round, with no case
lines: dump schema 4), the host merges them into one result per case
whose samples are the plan's total split over the rounds
(ceil(samples / 2) each), whose minimum is the lowest round's, and whose
exit model and data checks are those of a one-round boot."""
import json
import os
import re
import tempfile
import unittest

from tests.boot.common import need_build, run

CASES = "fwcfg.in8.single.512,fwcfg.in8.rep.512,debugcon.out8.rep.512,pio.user,cpuid"
ROUNDS = 2


def result_lines(serial):
    """The guest's lines of a case's rounds, as {case, round, min}: round
    0's result lines, and the short "round" records after it (dump schema
    4), whose round the suite line before them names."""
    out, rnd = [], None
    for line in serial.splitlines():
        if not line.startswith("@tm "):
            continue
        rec = json.loads(line[4:])
        if rec["type"] == "suite":
            rnd = rec.get("round")
        elif rec["type"] == "result":
            out.append({"case": rec["case"], "round": rec.get("round"),
                        "min": rec["cycles"][0]})
        elif rec["type"] == "round":
            out.append({"case": rec["case"], "round": rnd, "min": rec["c"][0]})
    return out


class Rounds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.tmp = tempfile.TemporaryDirectory(prefix="tm-rounds-")
        cls.one = run("--accel", "tcg", "--suite", "pio,exits",
                      "--case", CASES)
        doc = cls.one.results
        # odd totals, so the split's rounding up is visible
        cls.planned = {}
        for k, res in enumerate(doc["boots"][0]["results"]):
            res["iters"], res["samples"] = 2 + k, 5 + 2 * k
            cls.planned[res["case"]] = (res["iters"], res["samples"])
        cls.plan = os.path.join(cls.tmp.name, "plan.json")
        with open(cls.plan, "w") as fh:
            json.dump(doc, fh)
        cls.b = run("--accel", "tcg", "--plan", cls.plan, "--rounds", str(ROUNDS))
        cls.adaptive = run("--accel", "tcg", "--suite", "pio,exits",
                           "--case", CASES, "--rounds", str(ROUNDS))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_status_ok_and_checks_pass(self):
        for b in (self.one, self.b, self.adaptive):
            self.assertEqual(b.status, 0, b.describe())
            self.assertTrue(b.boot["checks"], b.describe())
            for check in b.boot["checks"]:
                self.assertTrue(check["ok"], check)

    def test_guest_sends_one_line_per_case_and_round(self):
        lines = result_lines(self.b.serial)
        self.assertEqual(len(lines), ROUNDS * len(self.planned))
        for case in self.planned:
            rounds = [l["round"] for l in lines if l["case"] == case]
            self.assertEqual(rounds, list(range(ROUNDS)), case)
        self.assertNotIn('"round"', "".join(
            l for l in self.one.serial.splitlines() if '"type":"result"' in l))
        # rounds after the first: no case lines, no suite in the records
        for b in (self.b, self.adaptive):
            lines = b.serial.splitlines()
            self.assertEqual(sum('"type":"case"' in l for l in lines),
                             len(self.planned))
            rounds = [l for l in lines if l.startswith('@tm {"type":"round"')]
            self.assertEqual(len(rounds), (ROUNDS - 1) * len(self.planned))
            self.assertFalse([l for l in rounds if '"suite"' in l])
            self.assertEqual(b.boot["run"]["schema"], 4)

    def test_one_merged_result_per_case_with_the_planned_total(self):
        results = self.b.boot["results"]
        self.assertEqual(sorted(r["case"] for r in results), sorted(self.planned))
        for res in results:
            iters, samples = self.planned[res["case"]]
            per_round = -(-samples // ROUNDS)
            self.assertEqual(res["samples"], ROUNDS * per_round, res["case"])
            self.assertEqual([p["samples"] for p in res["rounds"]],
                             [per_round] * ROUNDS, res["case"])
            self.assertEqual({p["iters"] for p in res["rounds"]}, {iters})
            self.assertEqual(res["stop"], "plan")
            self.assertNotIn("round", res)
        self.assertNotIn("plan not followed", self.b.stderr)

    def test_minimum_is_the_lowest_round(self):
        lines = result_lines(self.b.serial)
        self.assertTrue(self.b.boot["results"], "no results to check")
        for res in self.b.boot["results"]:
            mins = [l["min"] for l in lines if l["case"] == res["case"]]
            self.assertEqual(res["cycles"]["min"], min(mins), res["case"])
            self.assertEqual([p["min"] for p in res["rounds"]], mins)
            self.assertEqual(res["rounds"][res["fastest_round"]]["min"], min(mins))

    def test_exit_models_are_those_of_one_round(self):
        one = {r["case"]: r["exits_model"] for r in self.one.boot["results"]}
        self.assertTrue(one, "no results to check")
        for b in (self.b, self.adaptive):
            got = {r["case"]: r["exits_model"] for r in b.boot["results"]}
            self.assertEqual(got, one)

    def test_adaptive_rounds_share_the_sample_cap(self):
        # samples cap 63 -> at most 32 per round; every round ran
        self.assertTrue(self.adaptive.boot["results"], "no results to check")
        for res in self.adaptive.boot["results"]:
            self.assertEqual(len(res["rounds"]), ROUNDS, res["case"])
            self.assertEqual(res["samples"], sum(p["samples"] for p in res["rounds"]))
            for part in res["rounds"]:
                self.assertLessEqual(part["samples"], 32, res["case"])

    def test_run_line_names_the_rounds(self):
        self.assertEqual(self.b.boot["run"]["rounds"], ROUNDS)
        self.assertTrue(re.search(r"rounds=2\b", self.b.boot["run"]["cmdline"]))


if __name__ == "__main__":
    unittest.main()
