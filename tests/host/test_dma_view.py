"""Unit tests of tools/trapmeterlib/guest/dma.py (no QEMU): rows grouped by
IOMMU mode under their base names, the differences by the figure rule
(at or below zero: not resolved), the IOTLB miss figure and the table."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.guest import dma  # noqa: E402
from trapmeterlib.guest.dump import Dump  # noqa: E402


def row(case, mode, net, target="piix-ide.bm"):
    return {"suite": "dma", "case": case, "iommu_mode": mode, "target": target,
            "cycles": {"median": net + 100}, "cycles_net": {"median": net}}


ROWS = [row("bm.read.4096.vtd_off", "off", 1000),
        row("bm.read.4096.vtd_pt", "pt", 1000),
        row("bm.read.4096", "4k", 1500),
        row("bm.read.4096.vtd_2m", "2m", 1100),
        row("bm.write.512.vtd_pt", "pt", 900),
        row("bm.write.512", "4k", 800),
        row("bm.read.4096.miss", "4k", 2000),
        row("vtd.iotlb_inval", "4k", 300, target="vtd"),
        row("fwdma.read.16", "off", 50, target="fwcfg.dma")]


class Modes(unittest.TestCase):
    def test_by_mode(self):
        table = dma.by_mode(ROWS)
        self.assertEqual(sorted(table), ["bm.read.4096", "bm.write.512"])
        self.assertEqual(sorted(table["bm.read.4096"]), ["2m", "4k", "off", "pt"])

    def test_annotate(self):
        rows = [dict(r) for r in ROWS]
        dma.annotate(rows)
        by = {r["case"]: r for r in rows}
        self.assertEqual(by["bm.read.4096"][dma.MINUS_PT], 500)
        self.assertEqual(by["bm.read.4096.vtd_2m"][dma.MINUS_PT], 100)
        self.assertEqual(by["bm.read.4096"][dma.MINUS_2M], 400)
        # translated cheaper than pass-through: never a cost below zero
        self.assertIsNone(by["bm.write.512"][dma.MINUS_PT])
        self.assertIn("zero", by["bm.write.512"][dma.MINUS_PT + "_reason"])

    def test_miss(self):
        self.assertEqual(dma.miss_minus_hit([ROWS]).value, 2000 - 300 - 1500)
        # the invalidation has no control: its net is its cycles
        inval = {"suite": "dma", "case": "vtd.iotlb_inval", "iommu_mode": "4k",
                 "target": "vtd", "cycles": {"median": 300}}
        self.assertEqual(dma.miss_minus_hit([ROWS[:-2] + [inval]]).value,
                         2000 - 300 - 1500)
        self.assertFalse(dma.miss_minus_hit([ROWS[:3]]).resolved)

    def test_band(self):
        """The band of single ops: resolved when one case's p10..p90 lies
        above the other's, not resolved when the bands overlap."""
        a, b = row("bm.read.4096", "4k", 1500), row("bm.read.4096.vtd_pt", "pt", 1000)
        a["cycles"].update(p10=1550, p90=1700)     # net band 1450..1600
        b["cycles"].update(p10=1050, p90=1200)     # net band 950..1100
        f = dma._diff(a, b)
        self.assertEqual(f.value, 500)
        self.assertEqual(f.interval, [350, 650])
        b["cycles"]["p90"] = 1700                  # 950..1600: overlaps
        self.assertFalse(dma._diff(a, b).resolved)
        self.assertIn("holds zero", dma._diff(a, b).reason)

    def test_over_boots(self):
        """Over boots a mode's figure is the median of the boots' nets and
        its band runs from the lowest p10 to the highest p90."""
        boots = []
        for net in (1000, 3000, 1200):
            a = row("bm.read.4096", "4k", net)
            a["cycles"].update(p10=net, p90=net + 200)
            boots.append([a, row("bm.read.4096.vtd_pt", "pt", 500)])
        for b in boots:
            b[1]["cycles"].update(p10=550, p90=650)
        table = dma.mode_table(boots)
        self.assertEqual(len(table["bm.read.4096"]["4k"]), 3)
        f = dma._diff(table["bm.read.4096"]["4k"], table["bm.read.4096"]["pt"])
        self.assertEqual(f.value, 1200 - 500)
        self.assertEqual(f.interval, [1000 - 650,
                                      3200 - 550])

    def test_render(self):
        dump = Dump()
        dump.results = ROWS
        text = dma.render(dump)
        self.assertIn("4k-pt", text)
        line = [l for l in text.splitlines() if l.strip().startswith("bm.read.4096 ")][0]
        self.assertIn("500", line)
        self.assertIn("IOTLB miss - hit", text)
        self.assertIn("200 cycles", text)
        a, b = dict(ROWS[2]), dict(ROWS[1])
        a["cycles"] = {"median": 1600, "p10": 1550, "p90": 1700}
        b["cycles"] = {"median": 1100, "p10": 1050, "p90": 1200}
        dump.results = [a, b]
        self.assertIn("500 [350..650]", dma.render(dump))
        dump.results = []
        self.assertEqual(dma.render(dump), "")


if __name__ == "__main__":
    unittest.main()
