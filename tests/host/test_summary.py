"""tests/host/test_summary.py - the one-screen summary (output/summary.py)
of a recorded KVM run (tests/fixtures/kvm-run3.json: three boots, one
case of every handler class) and of a recorded ab session: at most 25
lines of at most 100 columns, and every figure in it found again in the
results file it came from, recomputed here from the JSON alone.

Tolerances are the printing's own rounding: a figure printed with no
decimals is within 0.5 of the recomputed value (plus 0.5 % where the
recomputation divides by the TSC frequency)."""
import json
import math
import os
import re
import statistics
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.output import report, summary, verdicts  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
RUN3 = os.path.join(FIXTURES, "kvm-run3.json")
AB_A = os.path.join(FIXTURES, "kvm-ab-d1-a.json")
AB_B = os.path.join(FIXTURES, "kvm-ab-d1-b.json")
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 11: 2.201}
NUMBER = r"-?[\d,]+(?:\.\d+)?"


def load(path):
    with open(path) as fh:
        return json.load(fh)


def number(text):
    return float(text.replace(",", ""))


def figure_in(text):
    """(value, half-width or None, model?) of a printed figure."""
    m = re.match(r"(%s)(?:±(%s))?( \(model\))?$" % (NUMBER, NUMBER), text)
    if not m:
        return None
    return number(m.group(1)), m.group(2) and number(m.group(2)), \
        bool(m.group(3))


def twin_median(boot, rep):
    """The median of a REP row's single-unit twin in its boot."""
    return next(r["cycles"]["median"] for r in boot["results"]
                if r.get("method") == "single" and all(
                    r.get(k) == rep.get(k) for k in
                    ("suite", "target", "dir", "width", "bytes", "buf_offset")))


def per_boot(doc, case, key):
    out = []
    for boot in doc["boots"]:
        for res in boot.get("results") or []:
            if res["case"] == case:
                out.append((boot, res.get(key)))
    return out


class RunSummary(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc = load(RUN3)
        cls.lines = summary.run_summary(cls.doc, "kvm-run3.json")
        cls.not_run = " ".join(l for l in cls.lines if "not run here" in l
                               or l.startswith("  ") and "(suite " in l)

    def test_one_screen(self):
        self.assertLessEqual(len(self.lines), 25, "\n".join(self.lines))
        wide = [l for l in self.lines if len(l) > summary.WIDTH]
        self.assertEqual(wide, [])

    def class_rows(self):
        rows = []
        for line in self.lines:
            m = re.match(r"  (.{15}) (\S+)\s{2,}(\S+(?: \(model\))?)\s{2,}"
                         r"(\S+(?: \(model\))?)\s{2,}(\S+(?: \(model\))?)$", line)
            if m and m.group(1).strip() != "class":
                rows.append([g.strip() for g in m.groups()])
        return rows

    def test_every_handler_class_has_a_line(self):
        labels = [label for label, _h, _g in summary.CLASSES]
        for label in labels:
            self.assertTrue(any(l.startswith("  " + label + " ")
                                for l in self.lines) or label in self.not_run,
                            label)

    def test_exit_costs_are_the_json_figures(self):
        rows = self.class_rows()
        self.assertGreaterEqual(len(rows), 2, "\n".join(self.lines))
        for _label, case, ns_text, cyc_text, exits_text in rows:
            cyc = figure_in(cyc_text)
            key = "cycles_per_exit_model" if cyc[2] else "cycles_per_exit"
            got = per_boot(self.doc, case, key)
            vals = [v for _b, v in got]
            self.assertTrue(all(isinstance(v, (int, float)) for v in vals),
                            (case, key, vals))
            if cyc[2]:
                self.assertAlmostEqual(cyc[0], statistics.median(vals), delta=0.5)
            else:
                mean = statistics.mean(vals)
                half = T95[len(vals) - 1] * statistics.stdev(vals) / math.sqrt(
                    len(vals))
                self.assertAlmostEqual(cyc[0], mean, delta=0.5, msg=case)
                self.assertAlmostEqual(cyc[1], half, delta=0.5, msg=case)
            ns = [v * 1e6 / b["run"]["tsc"]["khz"] for b, v in got]
            centre = statistics.median(ns) if cyc[2] else statistics.mean(ns)
            self.assertAlmostEqual(figure_in(ns_text)[0], centre,
                                   delta=0.5 + 0.005 * centre, msg=case)
            ekey = "exits_model" if figure_in(exits_text)[2] else "exits_measured"
            exits = [v for _b, v in per_boot(self.doc, case, ekey)]
            centre = statistics.median(exits) if cyc[2] else statistics.mean(exits)
            self.assertAlmostEqual(figure_in(exits_text)[0], centre, delta=0.005)

    def test_not_resolved_says_why(self):
        """The QEMU port's cost at or below zero in one boot of three: its
        class line says not resolved, and why (the fixture itself has no
        such line, so the test makes one)."""
        doc = json.loads(json.dumps(self.doc))
        hit = 0
        for res in doc["boots"][1]["results"]:
            if res["case"] == "pio.user":
                res["cycles_per_exit"] = -5.0
                hit += 1
        self.assertEqual(hit, 1)
        lines = summary.run_summary(doc, "kvm-run3.json")
        row = [l for l in lines if l.startswith("  QEMU port ")]
        self.assertEqual(len(row), 1, "\n".join(lines))
        self.assertRegex(row[0], r"not resolved \(.*at or below zero in 1 "
                         r"of 3 boots\)")
        self.assertNotRegex(row[0], r"\d+\s+\d")    # no figure beside it

    def test_rep_speedups_are_the_json_figures(self):
        """Over three boots a speed-up is the mean of every boot's ratio
        of medians, whether or not the guest's rule settled its rows (the
        interval over boots holds what an unsettled median adds), with its
        95 % t interval written out; where that interval reaches zero or
        holds 1x it is not resolved, and a note says why."""
        at = self.lines.index(next(l for l in self.lines
                                   if l.startswith("REP speed-up")))
        cells, notes = [], ""
        for line in self.lines[at + 1:]:
            if not line.startswith("  "):
                break
            if line.startswith("  n.r.:") or line.startswith("  ("):
                notes += line
                continue
            if notes:
                notes += line
                continue
            cells += line.strip().split(" | ")
        self.assertTrue(cells)
        shown = unresolved = 0
        for cell in cells:
            m = re.match(r"(\S+) (in|out)(\d+) (?:(n\.r\.)|(%s)x \((%s)-(%s)\))$"
                         % (NUMBER, NUMBER, NUMBER), cell)
            self.assertTrue(m, cell)
            rows = [(b, r) for b in self.doc["boots"] for r in b["results"]
                    if r.get("target") == m.group(1) and r.get("dir") == m.group(2)
                    and 8 * r.get("width", 1) == int(m.group(3))
                    and r.get("method") == "rep" and r.get("bytes") == 4096
                    and not r.get("buf_offset")]
            vals = [twin_median(b, r) / r["cycles"]["median"] for b, r in rows]
            self.assertEqual(len(vals), 3, cell)
            mean = statistics.mean(vals)
            half = T95[2] * statistics.stdev(vals) / math.sqrt(3)
            if m.group(4):
                unresolved += 1
                self.assertTrue(mean - half <= 1 <= mean + half
                                or mean - half <= 0, cell)
                self.assertIn(cell.rsplit(" ", 1)[0], notes)
                continue
            shown += 1
            for got, want in ((m.group(5), mean), (m.group(6), mean - half),
                              (m.group(7), mean + half)):
                self.assertAlmostEqual(number(got), want,
                                       delta=0.05 + 0.005 * want, msg=cell)
        self.assertTrue(shown)
        self.assertTrue(unresolved)
        self.assertIn(summary.speedup.BOOTS_NOTE, notes)

    def test_findings_are_the_json_counts(self):
        first = next(b for b in self.doc["boots"] if any(
            isinstance(r.get("exits_measured"), (int, float)) for r in b["results"]))
        by_case = {r["case"]: r for r in first["results"]}
        found = re.findall(r"(\S+) (%s) -> (%s)" % (NUMBER, NUMBER),
                           "\n".join(self.lines))
        for case, model, measured in found:
            res = by_case[case]
            self.assertTrue(res["exits_model_mismatch"], case)
            self.assertAlmostEqual(number(model), res["exits_model"], delta=0.005)
            self.assertAlmostEqual(number(measured), res["exits_measured"],
                                   delta=0.005 + 0.005 * res["exits_measured"])

    def test_checks_and_skips_counted(self):
        line = next(l for l in self.lines if l.startswith("checks: "))
        checks = [c for b in self.doc["boots"] for c in b["checks"]]
        skips = {(s["suite"], s["case"]) for b in self.doc["boots"]
                 for s in b["skips"]}
        self.assertIn("checks: %d ok, %d failed | skips: %d" % (
            sum(1 for c in checks if c["ok"]),
            sum(1 for c in checks if not c["ok"]), len(skips)), line)


class IdeView(unittest.TestCase):
    """Suite ide's regression view (a record of the dump's `other`): the
    4 MiB times by rep insw and by the inw loop, mean over boots."""

    def test_the_view_records(self):
        views = [{"type": "view", "suite": "ide", "what": "disk",
                  "device": "ata0.0", "rep_s": r, "loop_s": l,
                  "loop_over_rep": l / r}
                 for r, l in ((0.20, 3.0), (0.22, 3.4), (0.21, 3.2))]
        doc = {"boots": [{"results": [{"case": "x"}], "other": [v]}
                         for v in views]}
        lines = summary.ide_lines(doc)
        self.assertEqual(len(lines), 2, lines)
        # mean ± t(2) sd / sqrt(3): 0.21±0.02 s, 3.20±0.50 s; the ratio a
        # speed-up over boots, its interval written out: 15.2x (14.7-15.8)
        self.assertRegex(lines[1], r"disk ata0\.0 +rep insw 0\.21±0\.02 s, "
                         r"inw loop 3\.20±0\.50 s: 15\.2x \(14\.7-15\.8\)$")

    def test_one_boot_s_ratio_is_its_rows_speed_up(self):
        """One boot: the view's loop/rep is its rep insw row's speed-up,
        with the interval that row's samples give (stats/speedup.py)."""
        loop = {"suite": "ide", "case": "disk.seq.in16.single", "method":
                "single", "target": "disk.seq", "dir": "in", "width": 2,
                "bytes": 4194304, "buf_offset": 0, "device": "ata0.0",
                "xfer": "inw loop", "samples": 6, "cycles_per_sector": 6000.0,
                "cycles": {"min": 5.5e7, "p10": 5.6e7, "median": 6e7,
                           "p90": 6.2e7, "max": 6.5e7}}
        rep = dict(loop, case="disk.seq.in16.rep", method="rep",
                   xfer="rep insw", cycles_per_sector=400.0,
                   cycles={"min": 3.8e6, "p10": 3.9e6, "median": 4e6,
                           "p90": 4.1e6, "max": 4.3e6})
        view = {"type": "view", "suite": "ide", "what": "disk", "device":
                "ata0.0", "rep_s": 0.2, "loop_s": 3.0, "loop_over_rep": 15.0,
                "rep_cycles_per_sector": 400.0,
                "loop_cycles_per_sector": 6000.0}
        results = report.add_speedups([loop, rep])
        doc = {"boots": [{"results": results, "other": [view]}]}
        line = summary.ide_lines(doc)[1]
        lo, hi = rep["speedup_ci"]
        self.assertTrue(line.endswith(": 15.0x (%.1f-%.1f)" % (lo, hi)), line)
        view["rep_cycles_per_sector"] = 401.0      # not its row
        lines = summary.ide_lines(doc)
        self.assertTrue(lines[1].endswith(": n.r."), lines)
        self.assertIn("not resolved, the view's rep insw row", lines[2])

    def test_two_boots_far_apart_are_not_resolved(self):
        views = [{"type": "view", "suite": "ide", "what": "cd", "device": "ata1.0",
                  "rep_s": r, "loop_s": 3.0, "loop_over_rep": 3.0 / r}
                 for r in (0.2, 0.3)]
        doc = {"boots": [{"results": [{"case": "x"}], "other": [v]}
                         for v in views]}
        self.assertIn("rep insw not resolved (interval holds zero), inw loop",
                      summary.ide_lines(doc)[1])


class VerdictSummary(unittest.TestCase):
    """compare's rows of the recorded +1 % ab session, as compare --json
    writes them."""

    @classmethod
    def setUpClass(cls):
        from trapmeterlib.stats import compare
        rows, _warnings = compare.compare_docs(load(AB_A), load(AB_B), {})
        cls.rows = [r.as_dict() for r in rows]
        cls.lines = verdicts.compare_summary(cls.rows, "trapmeter compare",
                                            (12, 12))

    def test_verdict_counts(self):
        line = self.lines[1]
        for verdict in verdicts.VERDICTS:
            count = sum(1 for r in self.rows if r["verdict"] == verdict)
            self.assertIn("%d %s" % (count, verdict), line)

    def test_flagged_shift_and_interval_are_the_rows(self):
        shown = [l for l in self.lines if re.match(r"  (regression|improvement) ", l)]
        self.assertTrue(shown)
        for line in shown:
            verdict, name, metric = line.split()[:3]
            row = next(r for r in self.rows if "%s/%s" % (r["suite"], r["case"])
                       == name and r["metric"] == metric)
            self.assertEqual(row["verdict"], verdict)
            m = re.search(r"([+-][\d.]+) % \[([+-][\d.]+)\.\.([+-][\d.]+)\]", line)
            self.assertAlmostEqual(float(m.group(1)), 100 * (row["ratio"] - 1),
                                   delta=0.05)
            self.assertAlmostEqual(float(m.group(2)), 100 * (row["interval"][0] - 1),
                                   delta=0.05)
            self.assertAlmostEqual(float(m.group(3)), 100 * (row["interval"][1] - 1),
                                   delta=0.05)

    def test_detection_limit_is_the_rows_resolution(self):
        line = next(l for l in self.lines if l.startswith("detection limit"))
        res = sorted(r["resolution"] for r in self.rows
                     if r["verdict"] == "inconclusive" and r["resolution"])
        m = re.search(r"resolve ([\d.]+)-([\d.]+) %", line)
        self.assertAlmostEqual(float(m.group(1)), 100 * res[0], delta=0.05)
        self.assertAlmostEqual(float(m.group(2)), 100 * res[-1], delta=0.05)

    def test_one_screen(self):
        self.assertLessEqual(len(self.lines), 15)
        self.assertEqual([l for l in self.lines if len(l) > summary.WIDTH], [])


class ExitShift(unittest.TestCase):
    """A flagged exit row's sides: counts by the figure rule."""
    def test_a_count_not_resolved_is_named_never_zero(self):
        text = verdicts.shift_text({"metric": "exits_per_op", "base": None,
                                    "candidate": 506, "base_reason": "below the sync traffic"})
        self.assertEqual(text, "exits not resolved (below the sync traffic) -> 506 per op")
        text = verdicts.shift_text({"metric": "exits_per_op", "base": -0.6, "candidate": 2})
        self.assertNotIn("-0.6", text)
        self.assertIn("not resolved", text)

    def test_an_averaged_count_shows_its_ratio(self):
        text = verdicts.shift_text({"metric": "exits_per_op", "averaged_count": True,
                                    "base": 16, "candidate": 17, "ratio": 1.06,
                                    "interval": [1.01, 1.10]})
        self.assertEqual(text, "average exits +6.0 % [+1.0..+10.0]")

if __name__ == "__main__":
    unittest.main()
