"""tests/boot/test_ab.py - `trapmeter ab` end to end under TCG: a planning
boot, then A B B A with one sample plan on both sides (samples raised to
the floor), both results files, compare's outputs, progress on stderr."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.boot.common import ROOT, RUNNER, need_build

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.commands import ab as ab_cmd  # noqa: E402


class AbUnderTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.dir = tempfile.mkdtemp(prefix="tm-ab-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.paths = {k: os.path.join(cls.dir, k + ".json") for k in "abv"}
        cls.html = os.path.join(cls.dir, "ab.html")
        cls.proc = subprocess.run(
            [RUNNER, "ab", "--no-build", "--accel", "tcg", "--suite", "pio",
             "--case", "fwcfg.in8.single.512,pic.in8.single.512",
             "--max-boots", "4", "--looks", "1", "--min-samples", "9",
             "--a-json", cls.paths["a"], "--b-json", cls.paths["b"],
             "--json", cls.paths["v"], "--html", cls.html],
            capture_output=True, text=True, timeout=600, cwd=ROOT)

    def test_status_and_progress(self):
        # 2+2 boots can never reach alpha: no timing verdict, status 0
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr[-3000:])
        self.assertIn("planning boot (side A, not compared)", self.proc.stderr)
        self.assertIn("round 2: 2+2 boots", self.proc.stderr)

    def test_summary_heads_the_table_and_the_report_is_written(self):
        head = self.proc.stdout.splitlines()[:4]
        self.assertTrue(head[0].startswith("trapmeter ab: A "), head)
        self.assertTrue(head[1].startswith("verdicts (2+2 boots): "), head)
        with open(self.html) as fh:
            text = fh.read()
        for ident in ("summary", "table-verdicts", "table-looks", "fig-strip"):
            self.assertIn('id="%s"' % ident, text)
        # 2+2 boots flag nothing: the strip plot's place says so
        self.assertIn("figure not drawn: no metric was flagged", text)

    def test_every_boot_ran_the_raised_plan(self):
        for side in "ab":
            with open(self.paths[side]) as fh:
                doc = json.load(fh)
            self.assertEqual(len(doc["boots"]), 2)
            for boot in doc["boots"]:
                for res in boot["results"]:
                    self.assertEqual(res.get("plan"), "fixed", res["case"])
                    self.assertGreaterEqual(res["samples"], 9, res["case"])
        with open(self.paths["v"]) as fh:
            verdicts = json.load(fh)
        self.assertTrue(any("planning boot of side A" in w
                            for w in verdicts["warnings"]), verdicts["warnings"])
        self.assertTrue(any("exits counted, where run counts them, in %d "
                            "boot(s) of each side" % ab_cmd.DEFAULT_COUNT_BOOTS
                            in w for w in verdicts["warnings"]),
                        verdicts["warnings"])
        # the two files are the sides of one session, measured alike
        self.assertFalse([w for w in verdicts["warnings"] if "interleaved" in w
                          or "refused" in w], verdicts["warnings"])

    def test_files_name_their_session(self):
        sessions = []
        for side in "ab":
            with open(self.paths[side]) as fh:
                sessions.append(json.load(fh)["session"])
        self.assertEqual([s["side"] for s in sessions], ["a", "b"])
        self.assertEqual(sessions[0]["id"], sessions[1]["id"])
        self.assertEqual(sessions[0]["kind"], "ab")


if __name__ == "__main__":
    unittest.main()
