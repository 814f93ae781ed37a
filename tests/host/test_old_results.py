"""tests/host/test_old_results.py - results files of an older runner by the
figure rule: compare's exit rows never show a count below zero (kvm-base.json
and kvm-rep-off.json carry some, from QMP windows with fewer exits than the
empty sync window): not resolved, with the reason, while the verdict still
takes them as below the floor (stats/compare_notes.py rule_counts); suite
ide's model figures stored as `exits_per_sector`/`data_exits_per_sector`
read as `..._model` (values/resultform.py apply_rule)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.values import resultform  # noqa: E402
from trapmeterlib.output import resultsfile  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures")
TOOL = os.path.join(ROOT, "tools", "trapmeter")
OLD_IDE = os.path.join(FIX, "tcg-ide-old-names.json")


def compare(*files):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "v.json")
        proc = subprocess.run([TOOL, "compare", *files, "--json", out],
                              capture_output=True, text=True, timeout=120)
        with open(out) as fh:
            return proc, json.load(fh)


class NegativeExits(unittest.TestCase):
    def test_the_fixture_holds_negative_counts(self):
        with open(os.path.join(FIX, "kvm-base.json")) as fh:
            raw = json.load(fh)
        counts = [r.get("exits_measured") for b in raw["boots"]
                  for r in b["results"]]
        self.assertTrue(any(isinstance(c, float) and c < 0 for c in counts))

    def test_compare_shows_none_below_zero(self):
        proc, doc = compare(os.path.join(FIX, "kvm-base.json"),
                            os.path.join(FIX, "kvm-rep-off.json"))
        self.assertNotIn("Traceback", proc.stderr)
        for row in doc["rows"]:
            for key in ("base", "candidate"):
                value = row[key]
                self.assertFalse(isinstance(value, (int, float)) and value < 0,
                                 (row["case"], row["metric"], key, value))
        pic = [r for r in doc["rows"] if r["case"] == "pic.in8.single.512"
               and r["metric"] == "exits_per_op"][0]
        self.assertIsNone(pic["base"])
        self.assertEqual(pic["base_reason"], resultform.COUNT_BELOW)
        self.assertEqual(pic["candidate_reason"], resultform.COUNT_BELOW)
        table = [ln for ln in proc.stdout.splitlines() if "exits_per_op" in ln]
        self.assertFalse([ln for ln in table if " -0." in ln or " -1." in ln
                          or " -2." in ln], table)
        self.assertTrue([ln for ln in table if "pic.in8.single.512" in ln
                         and "n.r." in ln], table)

    def test_a_count_below_zero_still_flags_an_exit_path_change(self):
        proc, doc = compare(os.path.join(FIX, "kvm-base.json"),
                            os.path.join(FIX, "kvm-irqchip-off.json"))
        pic = [r for r in doc["rows"] if r["case"] == "pic.in8.single.512"
               and r["metric"] == "exits_per_op"][0]
        self.assertEqual(pic["verdict"], "regression")
        self.assertIsNone(pic["base"])
        self.assertIn("exit path changed: n.r. -> ", " ".join(pic["notes"]))


class OldIdeNames(unittest.TestCase):
    def test_fixture_has_the_old_names(self):
        with open(OLD_IDE) as fh:
            res = json.load(fh)["boots"][0]["results"][0]
        self.assertIn("exits_per_sector", res)
        self.assertNotIn("exits_per_sector_model", res)

    def test_read_under_the_model_names(self):
        doc = resultsfile.read_results(OLD_IDE)
        for res in doc["boots"][0]["results"]:
            self.assertNotIn("exits_per_sector", res)
            self.assertNotIn("data_exits_per_sector", res)
            self.assertGreater(res["exits_per_sector_model"],
                               res["data_exits_per_sector_model"])

    def test_compare_reads_it(self):
        proc, doc = compare(OLD_IDE, OLD_IDE)
        # one file twice is not an interleaved session: timing withheld
        self.assertEqual(proc.returncode, 13, proc.stderr)
        self.assertTrue(doc["rows"])

    def test_new_names_are_kept(self):
        rec = {"suite": "ide", "exits_per_sector_model": 2.0,
               "exits_per_sector": 9.0}
        self.assertEqual(resultform.apply_rule(dict(rec)), rec)


if __name__ == "__main__":
    unittest.main()
