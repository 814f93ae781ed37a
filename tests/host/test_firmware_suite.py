"""tests/host/test_firmware_suite.py - suite firmware's host side
(tools/trapmeterlib/guest/firmware_suite.py): the options it needs, the
image it boots, the audit joined to the results, the summary's firmware
line, and compare flagging the FIFO path turned per-unit as an exit-path
change.  The audits are those a TCG boot of OVMF 2022.11 (Debian) printed
(tools/trapmeter run --boot iso --firmware ovmf --accel tcg --suite
firmware --case 'cpuio.fwcfg.in8.*.4096' --cmdline rep=on, then rep=off),
placed in two-boot documents."""
import copy
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import firmware_suite as fw  # noqa: E402
from trapmeterlib.guest import qemu  # noqa: E402
from trapmeterlib.output import summary  # noqa: E402
from trapmeterlib.stats import compare  # noqa: E402

FIFO, PLAIN = "cpuio.fwcfg.in8.fifo.4096", "cpuio.fwcfg.in8.plain.4096"
COMMON = {"status": "EFI_SUCCESS", "units": 4096, "ports": [0x511],
          "n_ports": 1, "msr": 0, "hlt": 0, "cut": False,
          "budget_traps": 4000000, "complete": True, "data_checked": True}
REP = dict(COMMON, path="rep", calls=1, insns=138, traps=4233,
           io={"rep insb": 1}, max_rep=4096, cpuid=2, exits_model=6)
PER_UNIT = dict(COMMON, path="single", calls=4096, insns=479232,
                traps=479232, io={"inb": 4096}, max_rep=0, cpuid=0,
                exits_model=4096)
RECORDED = {   # (FIFO case's audit, plain case's audit, cycles/op medians)
    "firmware-rep-on": (REP, PER_UNIT, 794040, 2391818),
    "firmware-rep-off": (PER_UNIT, PER_UNIT, 1377922, 2147184)}


def result(case, audit, cycles):
    return {"suite": "firmware", "case": case, "target": "cpuio.fwcfg",
            "dir": "in", "width": 1, "bytes": 4096, "buf_offset": 0,
            "method": "rep" if ".fifo." in case else "single",
            "cycles": {"min": cycles, "p10": cycles, "median": cycles},
            "exits_model": audit["exits_model"] + 1,
            "exits_measured": None, "exits_note": "TCG has no VM exits",
            "speedup": None, "audit": copy.deepcopy(audit)}


def load(name):
    """A two-boot document of the recorded audits."""
    fifo, plain, c_fifo, c_plain = RECORDED[name.replace(".json", "")]
    boots = []
    for _ in range(2):
        results = [result(FIFO, fifo, c_fifo), result(PLAIN, plain, c_plain)]
        results[0]["speedup"] = c_plain / c_fifo
        boots.append({"results": results, "run": {"firmware": "uefi"}})
    return {"version": "0.1.0", "host": {"accel": "tcg"}, "boots": boots,
            "status": "ok"}


def found(doc, case):
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
    """The recorded audit tells the FIFO width (one rep insb) from the
    plain width of the same count (an inb a unit)."""

    def test_fifo_batches_plain_traps_per_unit(self):
        self.assertEqual(fw.shape(found(load("firmware-rep-on.json"), FIFO)),
                         "1 rep insb -> 6")
        doc = load("firmware-rep-on.json")
        fifo, plain = found(doc, FIFO)["audit"], found(doc, PLAIN)["audit"]
        self.assertEqual((fifo["path"], fifo["io"], fifo["max_rep"]),
                         ("rep", {"rep insb": 1}, 4096))
        self.assertEqual((plain["path"], plain["io"], plain["calls"]),
                         ("single", {"inb": 4096}, 4096))
        self.assertLess(fifo["exits_model"], 16)
        self.assertEqual(plain["exits_model"], 4096)
        self.assertTrue(fifo["complete"] and plain["complete"])

    def test_rep_off_is_the_plain_shape(self):
        off = found(load("firmware-rep-off.json"), FIFO)["audit"]
        self.assertEqual((off["path"], off["io"]), ("single", {"inb": 4096}))

    def test_annotate_joins_by_case(self):
        class Dump:
            results = [{"suite": "firmware", "case": "a"},
                       {"suite": "pio", "case": "a"}]
            other = [{"type": "fwaudit", "suite": "firmware", "case": "a",
                      "path": "rep", "exits_model": 3, "bytes": 16}]
        fw.annotate(Dump)
        self.assertEqual(Dump.results[0]["audit"]["path"], "rep")
        self.assertEqual(Dump.results[0]["audit"]["bytes"], 16)
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
