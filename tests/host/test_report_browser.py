"""tests/host/test_report_browser.py - each kind of HTML report (run,
compare, ab, sensitivity) loaded in headless Chromium (Debian `chromium`,
driven over its DevTools pipe: tests/host/browser.py) from recorded
results in tests/fixtures/, so no KVM is needed: the DOM holds every
figure (an inline SVG) and table the report promises, the page logs no
console error and asks for nothing outside the file, and a screenshot of
the whole page is kept in build/test-reports/ (TRAPMETER_TEST_OUT=DIR
elsewhere) for a person to look at.  Without gnuplot the report says so
and keeps every table.  Skipped, with the reason, without Chromium or
gnuplot (tools/deps test installs both)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.host import browser

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.commands import sensitivity as sens_cmd  # noqa: E402
from trapmeterlib.output import html, resultsfile  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "trapmeter")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
OUT = os.environ.get("TRAPMETER_TEST_OUT") or os.path.join(ROOT, "build",
                                                           "test-reports")
RUN_TABLES = ("table-classes", "table-rep", "table-breakdown",
              "table-findings", "table-checks", "table-results")
VERDICT_TABLES = ("table-verdicts",)


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as fh:
        return json.load(fh)


def need_tools(test):
    if not browser.available():
        raise unittest.SkipTest("chromium is not installed (apt-get install "
                                "chromium; tools/deps test does)")
    if not shutil.which("gnuplot"):
        raise unittest.SkipTest("gnuplot is not installed (apt-get install "
                                "gnuplot-nox; tools/deps test does)")


class ReportInChromium:
    """What every kind of report must show in a browser; a subclass makes
    the report (make()) and names its figures and tables."""
    kind = None
    figures = ()            # id prefixes of figures that must be drawn
    tables = ()

    @classmethod
    def setUpClass(cls):
        need_tools(cls)
        cls.tmp = tempfile.mkdtemp(prefix="tm-report-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.path = os.path.join(cls.tmp, cls.kind + ".html")
        cls.make(cls.path)
        os.makedirs(OUT, exist_ok=True)
        with browser.Page(cls.path) as page:
            cls.dom = page.dom()
            cls.errors = page.errors()
            cls.requests = page.requests()
            cls.shot = page.screenshot(os.path.join(OUT, cls.kind + ".png"))

    def test_every_figure_is_drawn(self):
        for prefix in self.figures:
            ids = re.findall(r'<figure id="(%s[^"]*)"' % re.escape(prefix),
                             self.dom)
            self.assertTrue(ids, "no figure %s*" % prefix)
            for fid in ids:
                body = self.dom.split('<figure id="%s"' % fid, 1)[1].split(
                    "</figure>", 1)[0]
                self.assertIn("<svg", body, fid)
                self.assertNotIn("no-plot", body, fid)

    def test_every_table_is_there(self):
        for tid in self.tables + ("summary",):
            self.assertRegex(self.dom, r'<(table|pre) id="%s"' % tid)
        for tid in self.tables:
            body = self.dom.split('<table id="%s"' % tid, 1)[1].split(
                "</table>", 1)[0]
            self.assertIn("<td", body, "%s has no rows" % tid)

    def test_no_console_error(self):
        self.assertEqual(self.errors, [])

    def test_self_contained(self):
        self.assertEqual(self.requests, [])
        self.assertNotIn("<script", self.dom)
        self.assertNotIn("<link", self.dom)
        self.assertEqual(re.findall(r'(?:src|href)="(?!#)[^"]*"', self.dom), [])

    def test_screenshot_kept(self):
        with open(self.shot, "rb") as fh:
            self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(self.shot), 10000)


class RunReport(ReportInChromium, unittest.TestCase):
    kind = "run"
    figures = ("fig-rep-", "fig-breakdown")
    tables = RUN_TABLES

    @classmethod
    def make(cls, path):
        with open(path, "w") as fh:
            fh.write(html.run_report(fixture("kvm-run3.json"), "kvm-run3.json"))


class RunReportNotResolved(ReportInChromium, unittest.TestCase):
    """A KVM run on a PVM host whose breakdown has components that are
    not resolved (vm_exit in every class, kvm_pio where the backend cannot
    separate it): the figure draws what is resolved, the table says "not
    resolved" and why."""
    kind = "run-notresolved"
    figures = ("fig-rep-", "fig-breakdown")
    tables = RUN_TABLES
    name = "kvm-pvm-notresolved.json"

    @classmethod
    def make(cls, path):
        doc = fixture(cls.name)
        comps = [c for e in doc["boots"][0]["breakdown"]
                 for c in (e.get("components") or {}).values()]
        assert any(c["kind"] == "not_resolved" for c in comps), cls.name
        with open(path, "w") as fh:
            fh.write(html.run_report(doc, cls.name))

    def test_not_resolved_says_so_and_why(self):
        body = self.dom.split('<table id="table-breakdown"', 1)[1].split(
            "</table>", 1)[0]
        self.assertIn("not resolved (estimate at or below zero)", body)


class RunReportSpeedups(ReportInChromium, unittest.TestCase):
    """A run's speed-ups as the browser shows them (a file of schema 3
    read as compare reads it, which gives them their intervals): every
    REP speed-up cell of the per-port table and of the every-result
    table is a figure with its interval or "not resolved (why)"."""
    kind = "run-speedups"
    figures = ("fig-rep-",)
    tables = ("table-rep", "table-results")
    name = "kvm-make-run.json"
    COLUMNS = {"table-rep": 1, "table-results": html.RESULT_HEAD.index(
        "REP speed-up")}

    @classmethod
    def make(cls, path):
        doc = resultsfile.read_results(os.path.join(FIXTURES, cls.name))
        with open(path, "w") as fh:
            fh.write(html.run_report(doc, cls.name))

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.cells = {}
        with browser.Page(cls.path) as page:
            for tid, col in cls.COLUMNS.items():
                cls.cells[tid] = page.evaluate(
                    "Array.from(document.querySelectorAll('#%s tbody tr'))"
                    ".map(r => r.cells[%d].innerText)" % (tid, col))

    def test_every_speedup_has_its_interval_or_says_why(self):
        for tid, cells in self.cells.items():
            shown = [c for c in cells if c]
            self.assertTrue(shown, tid)
            with_interval = [c for c in shown if re.fullmatch(
                r"[\d.]+x \([\d.]+-[\d.]+\)", c)]
            self.assertTrue(with_interval, (tid, shown))
            for cell in shown:
                self.assertTrue(cell in with_interval or re.fullmatch(
                    r"not resolved \(.+\)", cell), (tid, cell))


class CompareReport(ReportInChromium, unittest.TestCase):
    kind = "compare"
    figures = ("fig-strip-",)
    tables = VERDICT_TABLES

    @classmethod
    def make(cls, path):
        proc = subprocess.run(
            [sys.executable, TOOL, "compare", os.path.join(FIXTURES, "kvm-ab-d1-a.json"),
             os.path.join(FIXTURES, "kvm-ab-d1-b.json"), "--html", path],
            capture_output=True, text=True, timeout=300)
        assert proc.returncode == 10, proc.stderr      # the +1 % session


class AbReport(ReportInChromium, unittest.TestCase):
    """ab's report is compare's with the session's looks: made here from
    the recorded +1 % ab session's rows and looks as ab makes it."""
    kind = "ab"
    figures = ("fig-strip-",)
    tables = VERDICT_TABLES + ("table-looks",)

    @classmethod
    def make(cls, path):
        from trapmeterlib.stats import compare
        rows, warnings = compare.compare_docs(fixture("kvm-ab-d1-a.json"),
                                              fixture("kvm-ab-d1-b.json"), {})
        looks = html.section("The session's looks", html.table(
            "table-looks", ["look", "boots a side", "seconds", "alpha"],
            [[1, 12, "-", "0.05"]]))
        with open(path, "w") as fh:
            fh.write(html.compare_report(rows, warnings, "trapmeter ab",
                                         ("A", "B"), (12, 12), [looks]))


class SensitivityReport(ReportInChromium, unittest.TestCase):
    kind = "sensitivity"
    figures = ("fig-sensitivity",)
    tables = ("table-sensitivity", "table-sessions")

    @classmethod
    def make(cls, path):
        doc = fixture("kvm-sensitivity.json")
        for case in doc["cases"].values():      # JSON made the levels text
            for key in ("levels", "flagged_s"):
                case[key] = {float(k): v for k, v in case[key].items()}
        rt = (doc["round_trip"]["cycles"], doc["round_trip"]["ns"])
        text = sens_cmd.render(doc["cases"], doc["sessions"], doc["levels_pct"],
                               rt)
        with open(path, "w") as fh:
            fh.write(html.sensitivity_report(doc, text.rstrip("\n").split("\n")))


class WithoutGnuplot(unittest.TestCase):
    """PATH without gnuplot: the report says so, every figure's place says
    why, every table stays."""

    def test_tables_stay(self):
        tmp = tempfile.mkdtemp(prefix="tm-report-")
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "compare.html")
        proc = subprocess.run(
            [sys.executable, TOOL, "compare", os.path.join(FIXTURES, "kvm-ab-d1-a.json"),
             os.path.join(FIXTURES, "kvm-ab-d1-b.json"), "--html", path],
            capture_output=True, text=True, timeout=300,
            env=dict(os.environ, PATH=tmp))
        self.assertEqual(proc.returncode, 10, proc.stderr)
        with open(path) as fh:
            text = fh.read()
        self.assertIn('id="no-plotter"', text)
        self.assertIn("gnuplot is not installed", text)
        self.assertNotIn("<svg", text)
        self.assertIn('<table id="table-verdicts"', text)
        self.assertIn('class="no-plot">figure not drawn: gnuplot is not installed',
                      text)


if __name__ == "__main__":
    unittest.main()
