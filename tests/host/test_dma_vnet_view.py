"""Unit tests of tools/trapmeterlib/guest/dma_vnet.py (no QEMU): the
receive write vnet.txrx.X - vnet.tx.X paired by mode, by the figure rule
(at or below zero: not resolved, never a negative cost), the vnet rows in
guest/dma.py's by-mode table, and the labelled table."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.guest import dma, dma_vnet  # noqa: E402
from trapmeterlib.guest.dump import Dump  # noqa: E402


def row(case, mode, net, target):
    return {"suite": "dma", "case": case, "iommu_mode": mode, "target": target,
            "cycles": {"median": net + 100}, "cycles_net": {"median": net}}


TX, HUB = "virtio-net.tx", "virtio-net.hub"
ROWS = [row("vnet.tx.64.vtd_pt", "pt", 20000, TX),
        row("vnet.tx.64", "4k", 23000, TX),
        row("vnet.txrx.64.vtd_pt", "pt", 21500, HUB),
        row("vnet.txrx.64", "4k", 22000, HUB),       # below tx: not resolved
        row("vnet.txrx.1514.chain", "4k", 30000, HUB)]   # no tx row


def dump_of(rows):
    d = Dump()
    d.results = rows
    return d


class RxWrite(unittest.TestCase):
    def test_by_mode_holds_vnet(self):
        table = dma.by_mode(ROWS)
        self.assertEqual(sorted(table["vnet.tx.64"]), ["4k", "pt"])
        self.assertEqual(sorted(table["vnet.txrx.64"]), ["4k", "pt"])

    def test_annotate(self):
        rows = [dict(r) for r in ROWS]
        dma_vnet.annotate(rows)
        by = {r["case"]: r for r in rows}
        # one boot: a difference of two cases is not resolved, named
        self.assertIsNone(by["vnet.txrx.64.vtd_pt"][dma_vnet.RX_WRITE])
        self.assertEqual(by["vnet.txrx.64.vtd_pt"][dma_vnet.RX_WRITE + "_reason"],
                         dma.FEW_BOOTS)
        self.assertIn("mode not run",
                      by["vnet.txrx.1514.chain"][dma_vnet.RX_WRITE + "_reason"])
        self.assertNotIn(dma_vnet.RX_WRITE, by["vnet.tx.64"])

    def test_over_boots(self):
        """Three boots: the receive write with its interval; txrx below
        tx is no cost (not resolved, never negative)."""
        boots = [[dict(r, cycles_net={"median": r["cycles_net"]["median"] + d})
                  for r in ROWS] for d in (-10, 0, 10)]
        table = dma.mode_table(boots)
        pt = dma._diff(table["vnet.txrx.64"]["pt"], table["vnet.tx.64"]["pt"])
        self.assertAlmostEqual(pt.value, 1500)
        self.assertTrue(0 < pt.interval[0] < 1500 < pt.interval[1])
        k4 = dma._diff(table["vnet.txrx.64"]["4k"], table["vnet.tx.64"]["4k"])
        self.assertIsNone(k4.value)
        self.assertIn("zero", k4.reason)
        line = [l for l in dma_vnet.render_boots(boots).splitlines()
                if l.strip().startswith("vnet.txrx.64 ")][0]
        self.assertIn("1,500 [", line)
        self.assertIn("n.r.", line)

    def test_render(self):
        text = dma_vnet.render(dump_of(ROWS))
        self.assertIn("difference txrx - tx", text)
        line = [l for l in text.splitlines() if l.strip().startswith("vnet.txrx.64 ")][0]
        self.assertIn("n.r.", line)
        self.assertEqual(dma_vnet.render(dump_of(ROWS[:2])), "")


if __name__ == "__main__":
    unittest.main()
