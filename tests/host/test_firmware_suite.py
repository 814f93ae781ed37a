"""tests/host/test_firmware_suite.py - suite firmware's host side
(tools/trapmeterlib/guest/firmware_suite.py): the options it needs, the
image it boots, the audit joined to the results, the summary's firmware
line, and compare flagging the FIFO path turned per-unit as an exit-path
change, on two recorded TCG runs (tests/fixtures/README.md)."""
import json
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import firmware_suite as fw  # noqa: E402
from trapmeterlib.guest import qemu  # noqa: E402
from trapmeterlib.output import summary  # noqa: E402
from trapmeterlib.stats import compare  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
FIFO, PLAIN = "cpuio.fwcfg.in8.fifo.4096", "cpuio.fwcfg.in8.plain.4096"


def load(name):
    with open(os.path.join(FIXTURES, name)) as fh:
        return json.load(fh)


def result(doc, case):
    return next(r for r in doc["boots"][0]["results"] if r["case"] == case)


class Options(unittest.TestCase):
    def test_needs_iso_and_ovmf(self):
        self.assertIsNone(fw.problem("firmware", "iso", "ovmf"))
        self.assertIsNone(fw.problem("firmware", "iso", "uefi"))
        self.assertIn("--boot iso --firmware ovmf",
                      fw.problem("firmware", "direct", "ovmf"))
        self.assertIn("--boot iso --firmware ovmf",
                      fw.problem("firmware", "iso", "bios"))

    def test_runs_alone(self):
        self.assertIn("runs alone", fw.problem("pio,firmware", "iso", "ovmf"))
        self.assertIsNone(fw.problem("pio,ide", "direct", "bios"))
        self.assertIsNone(fw.problem(None, "direct", "auto"))

    def test_own_image_only_when_asked(self):
        cfg = qemu.RunConfig(repo_root="R", boot="iso",
                             words=["suite=firmware", "table=off"])
        self.assertEqual(cfg.iso, os.path.join("R", "build", "trapmeter-fw.iso"))
        cfg.words = ["suite=pio,ide"]
        self.assertEqual(cfg.iso, os.path.join("R", "build", "trapmeter.iso"))
        cfg.words = ["suite=firmware", "suite=pio"]     # the last one wins
        self.assertEqual(cfg.iso, os.path.join("R", "build", "trapmeter.iso"))


class Audit(unittest.TestCase):
    """On a recorded run: the audit tells the FIFO width (one rep insb)
    from the plain width of the same count (an inb a unit)."""

    def test_fifo_batches_plain_traps_per_unit(self):
        doc = load("firmware-rep-on.json")
        fifo, plain = result(doc, FIFO)["audit"], result(doc, PLAIN)["audit"]
        self.assertEqual((fifo["path"], fifo["io"], fifo["max_rep"]),
                         ("rep", {"rep insb": 1}, 4096))
        self.assertEqual((plain["path"], plain["io"], plain["calls"]),
                         ("single", {"inb": 4096}, 4096))
        self.assertLess(fifo["exits_model"], 16)
        self.assertEqual(plain["exits_model"], 4096)
        self.assertTrue(fifo["complete"] and plain["complete"])

    def test_rep_off_is_the_plain_shape(self):
        off = result(load("firmware-rep-off.json"), FIFO)["audit"]
        self.assertEqual((off["path"], off["io"]), ("single", {"inb": 4096}))

    def test_annotate_joins_by_case(self):
        class Dump:
            results = [{"suite": "firmware", "case": "a"},
                       {"suite": "pio", "case": "a"}]
            other = [{"type": "fwaudit", "suite": "firmware", "case": "a",
                      "path": "rep", "exits_model": 3}]
        fw.annotate(Dump)
        self.assertEqual(Dump.results[0]["audit"]["path"], "rep")
        self.assertNotIn("audit", Dump.results[1])

    def test_dma_is_not_called_per_unit(self):
        res = {"bytes": 65536, "audit": {"path": "single", "bytes": 600,
                                         "io": {"inl": 400, "outb": 20},
                                         "exits_model": 420}}
        self.assertEqual(fw.shape(res), "DMA: 420 port insns -> 420")


class SummaryLine(unittest.TestCase):
    def test_firmware_line(self):
        lines = summary.run_summary(load("firmware-rep-on.json"))
        text = "\n".join(lines)
        self.assertIn("firmware I/O paths", text)
        line = next(l for l in lines if l.strip().startswith("cpuio.fwcfg.in8"))
        self.assertIn("FIFO 1 rep insb -> 6 | plain 4,096 inb -> 4,096 |", line)
        self.assertIn("TCG: no VM exits", text)
        self.assertTrue(all(len(l) <= summary.WIDTH for l in lines))

    def test_no_line_without_the_suite(self):
        self.assertEqual(fw.summary_lines({"boots": [{"results": [
            {"suite": "pio", "case": "fwcfg.in8.rep.4096"}]}]}), [])


class Compare(unittest.TestCase):
    """compare of the two shapes flags an exit-path change, beside the
    audit's instruction counts; the plain case stays unchanged."""

    def setUp(self):
        self.rows, _warnings = compare.compare_docs(
            load("firmware-rep-on.json"), load("firmware-rep-off.json"))

    def row(self, case, metric):
        return next(r for r in self.rows if r.case == case and r.metric == metric)

    def test_fifo_turned_per_unit_is_flagged(self):
        row = self.row(FIFO, fw.AUDIT_METRIC)
        self.assertEqual(row.verdict, "regression")
        self.assertEqual((row.base, row.cand), (6.0, 4096.0))
        note = next(n for n in row.notes if n.startswith("exit path changed"))
        self.assertIn("rep -> single, 1 rep insb (4,096) -> 4,096 inb", note)
        self.assertIn("138 -> 479,232 insns", note)
        self.assertEqual(compare.exit_status(self.rows), compare.REGRESSION)
        _counts, changed = compare.summarize(self.rows)
        self.assertEqual(changed, ["firmware/" + FIFO])

    def test_plain_unchanged(self):
        self.assertEqual(self.row(PLAIN, fw.AUDIT_METRIC).verdict, "unchanged")

    def test_same_file_no_change(self):
        doc = load("firmware-rep-on.json")
        rows, _w = compare.compare_docs(doc, doc)
        self.assertEqual({r.verdict for r in rows if r.metric == fw.AUDIT_METRIC},
                         {"unchanged"})


if __name__ == "__main__":
    unittest.main()
