"""tests/host/test_docs.py - the project's documents: the README stays a
five-minute read (at most 300 lines of at most 100 columns) and every
docs/*.md it links exists; the design document has the sections the code
points to and its data flow names every stage; nothing cites a DESIGN.md
that is not there."""

import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DESIGN = os.path.join(ROOT, "docs", "design.md")
README = os.path.join(ROOT, "README.md")
README_MAX_LINES = 300
README_MAX_COLUMNS = 100
# The documents the README splits its matter into.
DOCS = ("design.md", "reference.md", "measurements.md", "ci.md")
# What the design's data flow must name: the commands and the host stages.
DATA_FLOW_WORDS = ("ab", "sensitivity", "bootstats", "breakdown", "rounds", "compare")


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def section(text, heading):
    """The body of a "## heading" section, up to the next "## "."""
    start = text.index("\n" + heading + "\n") + len(heading) + 2
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


class Readme(unittest.TestCase):

    def test_short_and_narrow(self):
        lines = read(README).splitlines()
        self.assertLessEqual(len(lines), README_MAX_LINES)
        wide = ["%d (%d columns)" % (num, len(line))
                for num, line in enumerate(lines, 1) if len(line) > README_MAX_COLUMNS]
        self.assertEqual(wide, [], "README lines over %d columns" % README_MAX_COLUMNS)

    def test_docs_links_exist(self):
        links = re.findall(r"docs/[A-Za-z0-9_.-]+\.md", read(README))
        self.assertTrue(links, "the README links no docs/*.md")
        missing = sorted({link for link in links
                          if not os.path.isfile(os.path.join(ROOT, link))})
        self.assertEqual(missing, [])

    def test_the_split_documents_exist(self):
        for name in DOCS:
            self.assertTrue(os.path.isfile(os.path.join(ROOT, "docs", name)), name)

SECTIONS = ("## Layout", "## Data flow", "## The data flow in detail",
            "## The dump (schema 4)", "## The exit model and its sources")


class DesignDocument(unittest.TestCase):

    def test_sections_present(self):
        with open(DESIGN, encoding="utf-8") as fh:
            text = fh.read()
        for heading in SECTIONS:
            self.assertIn("\n" + heading + "\n", text)

    def test_no_placeholder(self):
        self.assertNotIn("filled in as the work goes", read(DESIGN))

    def test_data_flow_names_every_stage(self):
        flow = section(read(DESIGN), "## Data flow")
        for word in DATA_FLOW_WORDS:
            self.assertRegex(flow, r"\b%s\b" % word)

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


class ExitStatusTables(unittest.TestCase):
    """README's "Exit statuses" and reference.md's "Exit status" list
    every status of tools/trapmeterlib/values/exitstatus.py, and no other
    (bisect-step's own for git bisect run apart)."""

    def statuses(self, text, heading):
        rows = [line for line in section(text, heading).splitlines()
                if line.startswith("| ")]
        return {int(n) for row in rows
                for n in re.findall(r"\d+", row.split("|")[1])}

    def test_both_tables_list_every_status(self):
        import sys
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from trapmeterlib.commands import bisect_step
        from trapmeterlib.values import exitstatus
        known = set(exitstatus.NAMES)
        step = set(bisect_step.EXIT.values())
        for path, heading in ((README, "## Exit statuses"),
                              (os.path.join(ROOT, "docs", "reference.md"),
                               "## Exit status")):
            listed = self.statuses(read(path), heading)
            self.assertEqual(sorted(known - listed), [], path)
            self.assertEqual(sorted(listed - known - step), [], path)
            for code in known:
                self.assertIn(str(code), exitstatus.EXIT_TABLE)

