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


def boots(rows, jitter=10):
    """Three boots of the rows, each net moved by -jitter, 0, +jitter."""
    out = []
    for shift in (-jitter, 0, jitter):
        boot = []
        for r in rows:
            r = dict(r, cycles=dict(r["cycles"]))
            if "cycles_net" in r:
                r["cycles_net"] = {"median": r["cycles_net"]["median"] + shift}
            else:
                r["cycles"]["median"] += shift
            boot.append(r)
        out.append(boot)
    return out


class Modes(unittest.TestCase):
    def test_by_mode(self):
        table = dma.by_mode(ROWS)
        self.assertEqual(sorted(table), ["bm.read.4096", "bm.write.512"])
        self.assertEqual(sorted(table["bm.read.4096"]), ["2m", "4k", "off", "pt"])

    def test_annotate(self):
        """One boot's rows: a difference of cases is not resolved, named
        (within a boot the host's pace drifts between cases)."""
        rows = [dict(r) for r in ROWS]
        dma.annotate(rows)
        by = {r["case"]: r for r in rows}
        for case, key in (("bm.read.4096", dma.MINUS_PT),
                          ("bm.read.4096", dma.MINUS_2M),
                          ("bm.write.512", dma.MINUS_PT)):
            self.assertIsNone(by[case][key])
            self.assertEqual(by[case][key + "_reason"], dma.FEW_BOOTS)

    def test_miss(self):
        self.assertEqual(dma.miss_minus_hit(boots(ROWS)).value, 2000 - 300 - 1500)
        # the invalidation has no control: its net is its cycles
        inval = {"suite": "dma", "case": "vtd.iotlb_inval", "iommu_mode": "4k",
                 "target": "vtd", "cycles": {"median": 300}}
        self.assertEqual(dma.miss_minus_hit(boots(ROWS[:-2] + [inval])).value,
                         2000 - 300 - 1500)
        self.assertFalse(dma.miss_minus_hit(boots(ROWS[:3])).resolved)
        self.assertEqual(dma.miss_minus_hit([ROWS]).reason, dma.FEW_BOOTS)

    def test_interval_over_boots(self):
        """The t-interval of the difference of means over the boots:
        resolved when it clears zero, not resolved when it holds it, and
        never a cost below zero."""
        table = dma.mode_table(boots(ROWS))["bm.read.4096"]
        f = dma._diff(table["4k"], table["pt"])
        self.assertAlmostEqual(f.value, 500)
        # nets 1500 +- 10 and 1000 +- 10 over 3 boots: var 100 each
        half = 4.302653 * (2 * 100 / 3) ** 0.5
        self.assertAlmostEqual(f.interval[0], 500 - half, places=2)
        self.assertAlmostEqual(f.interval[1], 500 + half, places=2)
        wide = dma.mode_table(boots(ROWS, jitter=400))["bm.read.4096"]
        self.assertIn("holds zero", dma._diff(wide["4k"], wide["pt"]).reason)
        cheaper = dma.mode_table(boots(ROWS))["bm.write.512"]
        self.assertIn("zero", dma._diff(cheaper["4k"], cheaper["pt"]).reason)

    def test_two_boots_are_too_few(self):
        table = dma.mode_table(boots(ROWS)[:2])["bm.read.4096"]
        f = dma._diff(table["4k"], table["pt"])
        self.assertFalse(f.resolved)
        self.assertEqual(f.reason, dma.FEW_BOOTS)

    def test_render(self):
        dump = Dump()
        dump.results = ROWS
        text = dma.render(dump)
        self.assertIn("4k-pt", text)
        line = [l for l in text.splitlines() if l.strip().startswith("bm.read.4096 ")][0]
        self.assertIn("1,500", line)
        self.assertIn("n.r.", line)
        self.assertIn("IOTLB miss - hit", text)
        self.assertIn(dma.FEW_BOOTS, text)
        dump.results = []
        self.assertEqual(dma.render(dump), "")


if __name__ == "__main__":
    unittest.main()
