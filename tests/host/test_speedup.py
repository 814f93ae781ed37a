#!/usr/bin/env python3
"""tests/host/test_speedup.py - a REP or DMA speed-up by the figure rule
(tools/trapmeterlib/stats/speedup.py, values/figure.speedup): measured
only with its interval, else "n.r." and why; and every output that shows
or stores one -- results.json (written and read back, a file before
schema 4 included), the every-result table, the HTML tables, the
firmware suite's audit table and summary lines -- carries it so."""

import copy
import json
import os
import re
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import firmware_suite as fw, ide  # noqa: E402
from trapmeterlib.output import html, report, resultsfile  # noqa: E402
from trapmeterlib.stats import medianci, speedup  # noqa: E402
from trapmeterlib.values import figure  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures")
# "109x (98.2-123)": a value and its interval, written out
WITH_INTERVAL = r"[\d.]+x \([\d.]+-[\d.]+\)"


def row(method, cycles, samples=8, suite="pio", case=None, spread=0.1):
    """A result as the host stores it: a median with a spread around it."""
    return {"suite": suite, "case": case or "fwcfg.in8.%s.4096" % method,
            "target": "fwcfg", "dir": "in", "width": 1, "bytes": 4096,
            "buf_offset": 0, "method": method, "samples": samples,
            "stop": "stable",
            "cycles": {"min": cycles * (1 - spread),
                       "p10": cycles * (1 - spread / 2), "median": cycles,
                       "p90": cycles * (1 + spread / 2),
                       "max": cycles * (1 + spread)}}


def pair(samples=8):
    return [row("single", 1000000.0, samples), row("rep", 10000.0, samples),
            row("dma", 5000.0, samples)]


class Rule(unittest.TestCase):
    def test_measured_only_with_an_interval_off_zero_and_1x(self):
        f = figure.speedup(109.3, [98.2, 123.4])
        self.assertEqual((f.kind, f.value, f.interval),
                         (figure.MEASURED, 109.3, [98.2, 123.4]))
        for value, interval, why in (
                (1.2, None, figure.NO_INTERVAL),
                (1.2, [0.9, 1.5], figure.HOLDS_ONE),
                (0.8, [0.5, 1.0], figure.HOLDS_ONE),
                (5.6, [-2.0, 13.2], figure.HOLDS_ZERO),
                (0.0, [0.0, 0.0], figure.BELOW_ZERO),
                (None, None, figure.NO_DATA)):
            f = figure.speedup(value, interval)
            self.assertEqual((f.kind, f.value, f.reason),
                             (figure.NOT_RESOLVED, None, why), value)
        # below 1x resolved: the single-unit loop is faster
        self.assertTrue(figure.speedup(0.5, [0.4, 0.6]).resolved)

    def test_text_writes_the_interval_out_or_says_why(self):
        self.assertEqual(figure.times_text(figure.speedup(109.3, [98.2, 123.4])),
                         "109x (98.2-123)")
        self.assertEqual(figure.times_text(figure.speedup(5.62, [4.1, 7.14])),
                         "5.6x (4.1-7.1)")
        f = figure.speedup(1.2, [0.9, 1.5])
        self.assertEqual(figure.times_text(f), figure.SHORT)
        self.assertEqual(figure.times_text(f, short=False),
                         "not resolved (%s)" % figure.HOLDS_ONE)
        # an end that lies off 1x reads so
        self.assertEqual(figure.times_text(figure.speedup(1.1, [1.02, 1.3])),
                         "1.1x (1.02-1.3)")
        # a measured figure without its interval is never shown bare
        self.assertEqual(figure.times_text(figure.measured(109.3)), figure.SHORT)


class OneBoot(unittest.TestCase):
    def test_the_interval_is_medianci_s(self):
        single, rep, _dma = pair()
        f = speedup.of_boot(rep, single)
        lo, hi, sure = medianci.ratio_interval(
            single["cycles"], 8, rep["cycles"], 8, speedup.LEVEL)
        self.assertGreaterEqual(sure, speedup.LEVEL)
        self.assertEqual((f.value, f.interval), (100.0, [lo, hi]))
        self.assertLess(lo, 100.0)
        self.assertGreater(hi, 100.0)

    def test_too_few_samples(self):
        single, rep, _dma = pair(samples=5)
        self.assertEqual(speedup.of_boot(rep, single).reason, speedup.TOO_FEW)

    def test_no_median(self):
        single, rep, _dma = pair()
        rep["cycles"]["median"] = 0
        self.assertEqual(speedup.of_boot(rep, single).reason, speedup.NO_MEDIAN)

    def test_over_boots_is_the_t_interval_of_the_ratios(self):
        f = speedup.over_boots([100.0, 104.0, 96.0])
        self.assertAlmostEqual(f.value, 100.0)
        self.assertAlmostEqual(f.interval[1] - 100.0, 4.302653 * 4 / 3 ** 0.5,
                               places=3)
        self.assertEqual(speedup.over_boots([5.0, 25.0]).reason,
                         figure.HOLDS_ZERO)
        self.assertEqual(speedup.over_boots([5.0]).reason, speedup.ONE_BOOT)


class ResultsJson(unittest.TestCase):
    def test_a_boot_stores_the_interval_beside_the_point(self):
        results = report.add_speedups(pair())
        single, rep, dma = results
        self.assertIsNone(single["speedup"])
        self.assertNotIn("speedup_ci", single)
        for res, point in ((rep, 100.0), (dma, 200.0)):
            self.assertEqual(res["speedup"], point)
            lo, hi = res["speedup_ci"]
            self.assertLess(lo, point)
            self.assertGreater(hi, point)
            self.assertNotIn("speedup_reason", res)
        # through JSON text and back, the same figure
        back = json.loads(json.dumps(results))
        self.assertEqual(speedup.stored(back[1]), speedup.of_boot(rep, single))

    def test_not_resolved_stores_null_and_the_reason(self):
        results = report.add_speedups(pair(samples=5))
        self.assertIsNone(results[1]["speedup"])
        self.assertEqual(results[1]["speedup_reason"], speedup.TOO_FEW)
        self.assertNotIn("speedup_ci", results[1])
        # computed again after more samples: no stale reason is left
        results[0]["samples"] = results[1]["samples"] = 8
        report.add_speedups(results)
        self.assertNotIn("speedup_reason", results[1])
        self.assertIn("speedup_ci", results[1])

    def test_the_document_is_schema_4_and_compare_reads_it(self):
        self.assertEqual(report.RESULTS_SCHEMA, 4)
        self.assertIn(report.RESULTS_SCHEMA, resultsfile.KNOWN_SCHEMAS)

    def test_a_file_before_schema_4_reads_with_its_intervals(self):
        """A bare "speedup" of an older file is not resolved as it is
        stored; compare's reader (resultsfile) gives it its interval from
        the file's own statistics."""
        path = os.path.join(FIX, "kvm-make-run.json")
        with open(path) as fh:
            raw = json.load(fh)
        self.assertEqual(raw["schema"], 3)
        bare = [r for b in raw["boots"] for r in b["results"]
                if isinstance(r.get("speedup"), (int, float))]
        self.assertTrue(bare)
        self.assertTrue(all(speedup.stored(r).reason == speedup.NOT_STORED
                            for r in bare))
        doc = resultsfile.read_results(path)
        paired = [r for b in doc["boots"] for r in b["results"]
                  if speedup.stored(r) is not None]
        self.assertEqual(len(paired), len(bare))
        resolved = [speedup.stored(r) for r in paired
                    if speedup.stored(r).resolved]
        self.assertTrue(resolved)
        self.assertTrue(all(f.interval for f in resolved))
        self.assertTrue(all(r.get("speedup_ci") or r.get("speedup_reason")
                            for r in paired))


class TextReport(unittest.TestCase):
    def render(self, results):
        return report.render_report({}, {}, results, [], [])

    def test_the_row_shows_the_interval(self):
        text = self.render(report.add_speedups(pair()))
        rep = next(l for l in text.splitlines()
                   if l.strip().startswith("fwcfg.in8.rep"))
        self.assertRegex(rep, r"100x \([\d.]+-[\d.]+\)")
        self.assertIn("REP speed-up " + speedup.BOOT_NOTE, text)

    def test_not_resolved_says_why(self):
        text = self.render(report.add_speedups(pair(samples=5)))
        rep = next(l for l in text.splitlines()
                   if l.strip().startswith("fwcfg.in8.rep"))
        self.assertIn(figure.SHORT, rep)
        self.assertNotRegex(rep, r"\d+x")
        self.assertIn("%s in REP speed-up: not resolved, %s: fwcfg.in8.rep."
                      "4096, fwcfg.in8.dma.4096" % (figure.SHORT,
                                                    speedup.TOO_FEW), text)

    def test_over_boots(self):
        boots = [pair(), pair(), pair()]
        for i, results in enumerate(boots):
            results[1]["cycles"]["median"] = 10000.0 + 100 * i
        text = self.render(report.aggregate_results(boots))
        rep = next(l for l in text.splitlines()
                   if l.strip().startswith("fwcfg.in8.rep"))
        self.assertRegex(rep, WITH_INTERVAL)
        self.assertIn("REP speed-up " + speedup.BOOTS_NOTE, text)


class Html(unittest.TestCase):
    def doc(self, samples=8):
        return {"boots": [{"results": report.add_speedups(pair(samples)),
                           "run": {}}]}

    def cells(self, page, table_id):
        body = page.split('<table id="%s"' % table_id, 1)[1].split(
            "</table>", 1)[0]
        return re.findall(r"<td[^>]*>([^<]*)</td>", body)

    def test_results_table(self):
        cells = self.cells(html.results_table(self.doc()), "table-results")
        self.assertEqual(len([c for c in cells if re.fullmatch(WITH_INTERVAL, c)]),
                         2, cells)
        cells = self.cells(html.results_table(self.doc(samples=5)),
                           "table-results")
        self.assertIn("not resolved (%s)" % html.esc(speedup.TOO_FEW), cells)

    def test_rep_table(self):
        cells = self.cells(html.rep_table(self.doc()), "table-rep")
        self.assertTrue(any(re.fullmatch(WITH_INTERVAL, c) for c in cells),
                        cells)
        cells = self.cells(html.rep_table(self.doc(samples=5)), "table-rep")
        self.assertIn("not resolved (%s)" % html.esc(speedup.TOO_FEW), cells)


FIFO = "cpuio.fwcfg.in8.fifo.4096"
PLAIN = "cpuio.fwcfg.in8.plain.4096"


class Firmware(unittest.TestCase):
    """The firmware suite's FIFO/plain speed-up in its audit table and its
    summary line."""

    def results(self, samples=8):
        out = []
        for case, method, cycles, path in ((FIFO, "rep", 794040.0, "rep"),
                                           (PLAIN, "single", 2391818.0,
                                            "single")):
            res = row(method, cycles, samples, suite="firmware", case=case)
            res["target"] = "cpuio.fwcfg"
            res["audit"] = {"path": path, "complete": True,
                            "exits_model": 6 if path == "rep" else 4096,
                            "io": {"rep insb": 1} if path == "rep"
                            else {"inb": 4096}, "bytes": 4096}
            out.append(res)
        return report.add_speedups(out)

    def test_summary_line(self):
        lines = fw.summary_lines({"boots": [{"results": self.results()}]})
        line = next(l for l in lines if l.startswith("  cpuio.fwcfg.in8 "))
        self.assertRegex(line, r"\| 3\.0x \([\d.]+-[\d.]+\)$")
        self.assertIn("  speed-up " + speedup.BOOT_NOTE, lines)
        lines = fw.summary_lines({"boots": [{"results": self.results(5)}]})
        line = next(l for l in lines if l.startswith("  cpuio.fwcfg.in8 "))
        self.assertTrue(line.endswith("| " + figure.SHORT), line)
        self.assertIn("not resolved, %s" % speedup.TOO_FEW.split(" (")[0],
                      "\n".join(lines))

    def test_audit_table(self):
        results = self.results()
        other = [dict(r["audit"], type=fw.AUDIT_TYPE, suite="firmware",
                      case=r["case"]) for r in results]
        text = fw.render(types.SimpleNamespace(results=results, other=other))
        line = next(l for l in text.splitlines()
                    if l.strip().startswith(FIFO))
        self.assertRegex(line, WITH_INTERVAL + "$")


class Ide(unittest.TestCase):
    """Suite ide's REP/loop column and its regression view: the rep insw
    row's speed-up against its inw loop twin."""

    def rows(self):
        loop = row("single", 6e7, case="disk.seq.in16.single")
        rep = row("rep", 4e6, case="disk.seq.in16.rep")
        for res, xfer, per in ((loop, "inw loop", 6000.0),
                               (rep, "rep insw", 400.0)):
            res.update(suite="ide", target="disk.seq", width=2,
                       device="ata0.0", xfer=xfer, cycles_per_sector=per)
        probe = dict(rep, case="disk.seq.in16.probe", method="probe_rep",
                     rep_loop_ratio=14.9)
        return report.add_speedups([loop, rep, probe])

    def test_the_table_and_the_view(self):
        view = {"type": "view", "suite": "ide", "what": "disk",
                "device": "ata0.0", "loop_over_rep": 15.0,
                "rep_cycles_per_sector": 400.0,
                "loop_cycles_per_sector": 6000.0}
        text = ide.render(types.SimpleNamespace(results=self.rows(),
                                                other=[view]))
        lines = text.splitlines()
        rep = next(l for l in lines if l.strip().startswith("disk.seq.in16.rep"))
        self.assertRegex(rep, WITH_INTERVAL + "$")
        probe = next(l for l in lines if l.strip().startswith("disk.seq.in16.probe"))
        self.assertTrue(probe.endswith(figure.SHORT), probe)
        self.assertIn("not resolved, %s: disk.seq.in16.probe" % ide.NO_TWIN, text)
        seen = next(l for l in lines if l.startswith("regression view"))
        self.assertRegex(seen, r"loop/rep 15\.0x \([\d.]+-[\d.]+\) per sector")


class Unchanged(unittest.TestCase):
    def test_add_speedups_twice_is_the_same(self):
        once = report.add_speedups(pair())
        self.assertEqual(report.add_speedups(copy.deepcopy(once)), once)


if __name__ == "__main__":
    unittest.main()
