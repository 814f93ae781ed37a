"""tests/host/test_docs.py - the project's design document exists, has the
sections the code and README point to, and nothing cites a DESIGN.md that
is not there."""

import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESIGN = os.path.join(ROOT, "docs", "design.md")
SECTIONS = ("## Layout", "## Data flow", "## The data flow in detail",
            "## The dump (schema 4)", "## The exit model and its sources")


class DesignDocument(unittest.TestCase):

    def test_sections_present(self):
        with open(DESIGN, encoding="utf-8") as fh:
            text = fh.read()
        for heading in SECTIONS:
            self.assertIn("\n" + heading + "\n", text)

    def test_no_citation_of_a_missing_design_md(self):
        files = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.split()
        bad = []
        for name in files:
            if name.startswith("tests/fixtures/") or name == "tests/host/test_docs.py":
                continue
            try:
                with open(os.path.join(ROOT, name), encoding="utf-8") as fh:
                    text = fh.read()
            except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
                continue
            for num, line in enumerate(text.splitlines(), 1):
                if "DESIGN.md" in line:
                    bad.append("%s:%d" % (name, num))
        self.assertEqual(bad, [], "cite docs/design.md instead")
