"""tests/host/test_results_reader.py - the results-file reader
(tools/trapmeterlib/output/resultsfile.py) is shared by compare, ab,
bisect, history add, kut and sensitivity: a file it refuses is named in
its message, and the message names no command but the one that runs
(`history add` once said "this compare knows")."""
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "tools", "trapmeter")
RUN1 = os.path.join(ROOT, "tests", "fixtures", "kvm-history-run1.json")
UNUSABLE = 11


def schema_99(doc):
    doc["schema"] = 99


def viommu_sweep(doc):
    doc["boots"][0]["viommu"] = "none"
    doc["boots"][1]["viommu"] = "4k"


class HistoryAddNamesItself(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def bad_file(self, change):
        with open(RUN1, encoding="utf-8") as fh:
            doc = json.load(fh)
        change(doc)
        path = os.path.join(self.dir, change.__name__ + ".json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
        return path

    def test_a_refused_file_names_no_other_command(self):
        for change in (schema_99, viommu_sweep):
            path = self.bad_file(change)
            proc = subprocess.run(
                [RUNNER, "history", "add", "--db",
                 os.path.join(self.dir, "h.db"), "--commit", "abc123", path],
                capture_output=True, text=True, timeout=120)
            with self.subTest(change.__name__):
                self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
                self.assertIn(path, proc.stderr)
                self.assertNotIn("compare", proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
