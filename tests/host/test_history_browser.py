"""tests/host/test_history_browser.py - the history dashboard (`trapmeter
history report --html`) in headless Chromium (tests/host/browser.py): a
history of two series (two kernels of one host), twelve runs each, a
+10 % step in one case of the first at run 7.  The DOM has every series
with its fingerprint, a chart per case and metric with a point per run
(its subject in the tooltip) and each change point marked, the changes
and runs tables; the page logs no console error, asks for nothing
outside the file, and a screenshot is kept in build/test-reports/
(history.png; TRAPMETER_TEST_OUT=DIR elsewhere) for a person to look at.
Skipped, with the reason, without Chromium."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.host import browser
from tests.host.test_history import stepped_history

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "trapmeter")
OUT = os.environ.get("TRAPMETER_TEST_OUT") or os.path.join(ROOT, "build",
                                                           "test-reports")
RUNS = 12
CHARTS = 6              # 3 cases x (cycles_per_op, exits_per_op)


class HistoryReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not browser.available():
            raise unittest.SkipTest("chromium is not installed (apt-get "
                                    "install chromium; tools/deps test does)")
        cls.tmp = tempfile.mkdtemp(prefix="tm-history-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        db = os.path.join(cls.tmp, "h.db")
        cls.keys = [stepped_history(db),
                    stepped_history(db, step_at=99, seed=2,
                                    release="6.19.0-next")]
        path = os.path.join(cls.tmp, "history.html")
        proc = subprocess.run([sys.executable, TOOL, "history", "report",
                               "--db", db, "--html", path],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        os.makedirs(OUT, exist_ok=True)
        with browser.Page(path) as page:
            cls.dom = page.dom()
            cls.errors = page.errors()
            cls.requests = page.requests()
            cls.counts = {key: page.evaluate(
                "[...document.querySelectorAll('#series-%s svg')].map("
                "s => [s.querySelectorAll('circle.run').length, "
                "s.querySelectorAll('line.change').length, "
                "s.getAttribute('aria-label')])" % key) for key in cls.keys}
            cls.tips = page.evaluate(
                "[...document.querySelectorAll('#series-%s circle.run "
                "title')].map(t => t.textContent)" % cls.keys[0])
            cls.shot = page.screenshot(os.path.join(OUT, "history.png"))

    def test_every_series_with_its_fingerprint(self):
        for key in self.keys:
            self.assertIn('id="series-%s"' % key, self.dom)
            self.assertIn('<table id="fingerprint-%s"' % key, self.dom)
            runs = self.dom.split('<table id="runs-%s"' % key, 1)[1].split(
                "</table>", 1)[0]
            self.assertEqual(runs.count("<tr>") - 1, RUNS)
        self.assertIn("6.19.0-next", self.dom)

    def test_a_chart_per_case_with_a_point_per_run(self):
        for key in self.keys:
            charts = self.counts[key]
            self.assertEqual(len(charts), CHARTS)
            self.assertEqual({c[0] for c in charts}, {RUNS})

    def test_the_change_is_marked_where_it_is(self):
        marked = {c[2]: c[1] for c in self.counts[self.keys[0]]}
        self.assertEqual(marked, {
            "exits/pio.user/cycles_per_op": 1,
            "exits/pio.user/exits_per_op": 0,
            "exits/cpuid/cycles_per_op": 0, "exits/cpuid/exits_per_op": 0,
            "exits/pio.kernel/cycles_per_op": 0,
            "exits/pio.kernel/exits_per_op": 0})
        self.assertEqual(sum(c[1] for c in self.counts[self.keys[1]]), 0)
        table = self.dom.split('<table id="changes-%s"' % self.keys[0],
                               1)[1].split("</table>", 1)[0]
        self.assertRegex(table, r"<td class=\"l\">7</td><td class=\"l\">"
                         r"exits/pio.user/cycles_per_op</td>")
        self.assertIn('<p id="changes-%s" class="note">no change point'
                      % self.keys[1], self.dom)

    def test_the_subject_on_hover(self):
        self.assertEqual(len(self.tips), CHARTS * RUNS)
        self.assertTrue(any(t.startswith("run 7: commit c07") and
                            "QEMU 7.2.22" in t for t in self.tips))

    def test_no_console_error_and_self_contained(self):
        self.assertEqual(self.errors, [])
        self.assertEqual(self.requests, [])
        self.assertNotIn("<script", self.dom)
        self.assertEqual(re.findall(r'(?:src|href)="(?!#)[^"]*"', self.dom),
                         [])

    def test_screenshot_kept(self):
        with open(self.shot, "rb") as fh:
            self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(self.shot), 10000)


if __name__ == "__main__":
    unittest.main()
