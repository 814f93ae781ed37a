"""tests/host/test_history_browser.py - the history dashboard (`trapmeter
history report --html`) in headless Chromium (tests/host/browser.py): a
history of two series (two kernels of one host), twelve runs each, a
+10 % step in one case of the first at run 7, and a third of 40 runs
with a step at run 25.  The DOM has every series with its fingerprint,
a chart per case and metric with a point per run (its subject in the
tooltip) and each change point marked, the changes and runs tables, the
alarms of the checks after every run (`--every-run`) as a table and on
the chart; a fourth series whose ide/disk.seq moves 2 MiB an op from
run 7 (the case budget cut it) beside the +10 % step: a chart per
measure, the restart marked in both, and a note naming each measure's
runs; the page logs no console error, asks for nothing
outside the file, and screenshots are kept in build/test-reports/
(history.png, the page; history-watch.png, the 40-run series;
history-measure.png, the series with the cut; TRAPMETER_TEST_OUT=DIR
elsewhere) for a person to look at.
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
WATCHED = 40            # runs of the series a check after every run flags
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
        cls.watched = stepped_history(db, runs=WATCHED, step_at=25, seed=3,
                                      release="6.20.0-watch")
        cls.cut = stepped_history(db, seed=4, release="6.21.0-cut",
                                  ide_cut=7)
        cls.runs = dict.fromkeys(cls.keys, RUNS)
        cls.runs[cls.watched] = WATCHED
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
                "s.getAttribute('aria-label'), "
                "s.querySelectorAll('line.watch').length, "
                "s.querySelectorAll('path.alarm').length, "
                "s.querySelectorAll('g.restart').length])" % key)
                for key in list(cls.runs) + [cls.cut]}
            cls.restart_tips = page.evaluate(
                "[...document.querySelectorAll('#series-%s g.restart line "
                "title')].map(t => t.textContent)" % cls.cut)
            cls.alarm_tips = page.evaluate(
                "[...document.querySelectorAll('#series-%s path.alarm "
                "title')].map(t => t.textContent)" % cls.watched)
            cls.tips = page.evaluate(
                "[...document.querySelectorAll('#series-%s circle.run "
                "title')].map(t => t.textContent)" % cls.keys[0])
            cls.shot = page.screenshot(os.path.join(OUT, "history.png"))
            cls.watch_shot = page.screenshot(
                os.path.join(OUT, "history-watch.png"),
                "#series-%s" % cls.watched)
            cls.cut_shot = page.screenshot(
                os.path.join(OUT, "history-measure.png"),
                "#series-%s" % cls.cut)

    def test_every_series_with_its_fingerprint(self):
        for key, runs in self.runs.items():
            self.assertIn('id="series-%s"' % key, self.dom)
            self.assertIn('<table id="fingerprint-%s"' % key, self.dom)
            rows = self.dom.split('<table id="runs-%s"' % key, 1)[1].split(
                "</table>", 1)[0]
            self.assertEqual(rows.count("<tr>") - 1, runs)
        self.assertIn("6.19.0-next", self.dom)

    def test_a_chart_per_case_with_a_point_per_run(self):
        for key, runs in self.runs.items():
            charts = self.counts[key]
            self.assertEqual(len(charts), CHARTS)
            self.assertEqual({c[0] for c in charts}, {runs})

    def test_every_run_alarms_in_a_table_and_on_the_chart(self):
        """The 40-run series, +10 % at run 25: the check after some run
        from 26 on alarmed on pio.user, placed at run 25 +- 1, with its
        shift and interval; the 12-run series are too short for a
        check after every run to test (a note says so)."""
        table = self.dom.split('<table id="watch-%s"' % self.watched,
                               1)[1].split("</table>", 1)[0]
        rows = re.findall(r"<tr><td class=\"l\">(\d+)</td><td class=\"l\">"
                          r"\d+</td><td class=\"l\">([^<]+)</td><td class="
                          r"\"l\">(\w+)</td><td>(\d+)</td><td>([^<]+)</td>",
                          table)
        self.assertEqual([r[1:3] for r in rows],
                         [("exits/pio.user/cycles_per_op", "rise")], table)
        first, _key, _side, place, shift = rows[0]
        self.assertGreater(int(first), 25)
        self.assertLessEqual(abs(int(place) - 25), 1)
        self.assertRegex(shift, r"^\+\d+\.\d % \[\+\d+\.\d\.\.\+\d+\.\d, "
                         r"[\d.]+ % interval\]")
        marked = {c[2]: c[3:5] for c in self.counts[self.watched]}
        self.assertEqual(marked.pop("exits/pio.user/cycles_per_op"), [1, 1])
        self.assertEqual(set(map(tuple, marked.values())), {(0, 0)})
        self.assertEqual(len(self.alarm_tips), 1)
        self.assertTrue(self.alarm_tips[0].startswith(
            "check after run %s alarmed: rise of exits/pio.user/"
            "cycles_per_op, first run after %s, +" % (first, place)),
            self.alarm_tips[0])
        for key in self.keys:
            self.assertIn('<p id="watch-%s" class="note">no check after a '
                          'run alarmed' % key, self.dom)

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

    def test_a_cut_transfer_is_a_series_per_measure(self):
        """ide/disk.seq at 4 MiB an op in runs 1-6, 2 MiB from run 7: a
        chart for each measure with its own runs, the restart marked in
        each, no change on it; pio.user's +10 % still marked."""
        charts = {c[2]: c for c in self.counts[self.cut]}
        self.assertEqual(len(charts), CHARTS + 4)
        for metric in ("cycles_per_op", "exits_per_op"):
            for size in ("4194304", "2097152"):
                name = "ide/disk.seq/%s [%s bytes per op]" % (metric, size)
                self.assertEqual(charts[name][:2], [6, 0], name)
                self.assertEqual(charts[name][5], 1, name)
        self.assertEqual(charts["exits/pio.user/cycles_per_op"][1], 1)
        self.assertEqual(sum(c[5] for c in self.counts[self.cut]), 4)
        self.assertEqual(sum(c[5] for k in self.runs
                             for c in self.counts[k]), 0)
        self.assertTrue(self.restart_tips[0].startswith(
            "from run 7 another series of this case: 4194304 bytes per op "
            "-> 2097152 bytes per op"), self.restart_tips)
        note = self.dom.split('<div id="measures-%s"' % self.cut,
                              1)[1].split("</div>", 1)[0]
        self.assertIn("4194304 bytes per op (runs 1-6); 2097152 bytes per "
                      "op (runs 7-12)", note)
        self.assertNotIn('id="measures-%s"' % self.keys[0], self.dom)

    def test_an_overview_links_every_series(self):
        """At the top, a row per series linked to its section: runs,
        changes (newest), alarms after every run, cases measured two
        ways."""
        table = self.dom.split('<table id="overview"', 1)[1].split(
            "</table>", 1)[0]
        rows = dict(re.findall(r'<tr><td class="l"><a href="#series-(\w+)">'
                               r'\1</a></td><td class="l">[^<]*</td>'
                               r'(<td>.*?)</tr>', table))
        self.assertEqual(set(rows), set(self.runs) | {self.cut})
        cells = {k: re.findall(r"<td[^>]*>([^<]*)</td>", v)
                 for k, v in rows.items()}
        self.assertEqual(cells[self.keys[0]], ["12", "1 (1)", "0", "-"])
        self.assertEqual(cells[self.keys[1]], ["12", "0 (0)", "0", "-"])
        self.assertEqual(cells[self.watched][0], "40")
        self.assertEqual(cells[self.watched][2], "1")
        self.assertEqual(cells[self.cut], ["12", "1 (1)", "0",
                                           "ide/disk.seq"])
        self.assertLess(self.dom.index('id="overview"'),
                        self.dom.index('id="series-'))

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
        for shot in (self.shot, self.watch_shot, self.cut_shot):
            with open(shot, "rb") as fh:
                self.assertEqual(fh.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertGreater(os.path.getsize(shot), 10000)


if __name__ == "__main__":
    unittest.main()
