"""tests/boot/test_plan.py - `run --plan FILE.json` under TCG: the guest
runs exactly the planned cases with exactly the planned iters and samples
(no adaptive stopping, no batch sizing), and a bad plan file is a named
bad-input error."""
import json
import os
import tempfile
import unittest

from tests.boot.common import need_build, run

CASES = "fwcfg.in8.single.4096,fwcfg.in8.rep.4096,debugcon.out8.rep.512,cpuid"


class FixedPlan(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.tmp = tempfile.TemporaryDirectory(prefix="tm-plan-")
        first = run("--accel", "tcg", "--quick", "--suite", "pio,exits",
                    "--case", CASES)
        cls.first = first
        doc = first.results
        # odd figures no adaptive run would pick, so honouring is visible
        cls.want = {}
        for k, res in enumerate(doc["boots"][0]["results"]):
            res["iters"], res["samples"] = 3 + k, 4 + 2 * k
            cls.want[res["case"]] = (res["iters"], res["samples"])
        cls.plan = os.path.join(cls.tmp.name, "plan.json")
        with open(cls.plan, "w") as fh:
            json.dump(doc, fh)
        cls.b = run("--accel", "tcg", "--plan", cls.plan)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_first_run_is_adaptive(self):
        self.assertEqual(self.first.status, 0, self.first.describe())
        for res in self.first.boot["results"]:
            self.assertEqual(res["plan"], "adaptive")
            self.assertIn(res["stop"], ("stable", "budget", "max"))

    def test_planned_iters_and_samples(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        got = {r["case"]: (r["iters"], r["samples"]) for r in self.b.boot["results"]}
        self.assertEqual(got, self.want)
        for res in self.b.boot["results"]:
            self.assertEqual(res["plan"], "fixed")
            self.assertEqual(res["stop"], "plan")
            self.assertEqual(res["ops"], res["iters"] * res["samples"])
        self.assertEqual(self.b.results["config"]["plan"], self.plan)

    def test_bad_plan_files(self):
        bad = {"not json": "{", "no boots": "{}",
               "iters 0": json.dumps({"boots": [{"results": [
                   {"suite": "pio", "case": "x", "iters": 0, "samples": 3}]}]})}
        for what, text in bad.items():
            path = os.path.join(self.tmp.name, "bad.json")
            with open(path, "w") as fh:
                fh.write(text)
            b = run("--accel", "tcg", "--plan", path)
            self.assertEqual(b.status, 2, what + "\n" + b.describe())
            self.assertIn("--plan", b.stderr, what)
        b = run("--accel", "tcg", "--plan", os.path.join(self.tmp.name, "missing.json"))
        self.assertEqual(b.status, 2)
        self.assertIn("cannot read", b.stderr)


if __name__ == "__main__":
    unittest.main()
