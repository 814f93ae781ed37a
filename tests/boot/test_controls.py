"""tests/boot/test_controls.py - the control ops of the fw_cfg DMA, ide and
virtio families booted for real (docs/design.md, "Timing").

TCG: one case of each family carries cycles_control and cycles_net, the
net is the case minus the control statistic by statistic, the control is
below the case; the ide control replays the case's data phases (one for a
sector read, the CDB and the sector for an ATAPI read); a case without a
control says why (control_none).  KVM: one bounded boot in which the net
of each family is positive and the control below the case, minimum
against minimum (noise only adds time) -- far below
(a fifth) for the ide REP read, whose trap is the data phase; the DMA and
kick controls, a dozen instructions, only below: a software KVM backend
makes a guest instruction cost ~1.5 k cycles, an exit only ~15-20 k
(docs/design.md, "Timing").
Ratios only, never absolute cycles.
"""
import unittest

from tests.boot.common import need_build, need_kvm, run

FAMILIES = ("fwcfg.in8.dma.4096", "disk.read1.in16.single", "cd.read1.in16.rep",
            "disk.write1.out32.single", "kick.alone", "net.64.batch32")
SMALL = ("--cmdline", "samples=5 budget_ms=50")
# the KVM check: the ide REP control at most this share of its case;
# measured here (KVM on PVM): disk.read1.in16.rep 0.08 (fwcfg.in8.dma.4096
# 0.74, kick.alone 0.35)
FAR_BELOW = 0.2


def check_net(test, res):
    ctl, net, cyc = res["cycles_control"], res["cycles_net"], res["cycles"]
    for key in ("min", "p10", "median"):
        test.assertEqual(net[key], cyc[key] - ctl[key], (res["case"], key))
    test.assertNotIn("control_none", res)


class ControlsTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "tcg", "--suite", "pio,ide,virtio,exits", "--quick",
                    "--ide-disk-size", "2M", "--case", ",".join(FAMILIES + ("cr8.read", "hlt.timer")),
                    *SMALL, timeout=240)

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_family_has_net_and_control(self):
        for case in FAMILIES:
            res = self.b.result(case)
            check_net(self, res)
            self.assertLess(res["cycles_control"]["median"], res["cycles"]["median"], case)
            self.assertGreater(res["cycles_net"]["median"], 0, case)
        dma = self.b.result("fwcfg.in8.dma.4096")
        self.assertEqual(dma["cycles_per_exit_model"], float(dma["cycles_net"]["median"]))

    def test_cost_per_kick_divides_the_net(self):
        res = self.b.result("net.64.batch32")
        net = res["cycles_net"]["median"]
        self.assertAlmostEqual(res["cycles_per_kick"],
                               net * res["sent"] / (res["kicks"] * 32), delta=0.1)

    def test_ide_control_replays_the_data_phases(self):
        self.assertEqual(self.b.result("disk.read1.in16.single")["control_phases"], 1)
        self.assertEqual(self.b.result("disk.write1.out32.single")["control_phases"], 1)
        self.assertEqual(self.b.result("cd.read1.in16.rep")["control_phases"], 2)

    def test_no_control_is_said(self):
        res = self.b.result("hlt.timer")
        self.assertNotIn("cycles_control", res)
        self.assertIn("only the interrupt", res["control_none"])
        self.assertIn("control n/a: only the interrupt", self.b.stdout)
        # every extended exits case but the interrupts has one now
        self.assertIn("cycles_control", self.b.result("cr8.read"))

    def test_table_shows_control_and_net(self):
        row = [l for l in self.b.stdout.splitlines() if l.strip().startswith("kick.alone ")]
        self.assertEqual(len(row), 1, self.b.stdout)
        res = self.b.result("kick.alone")
        self.assertIn(" %d " % res["cycles_control"]["median"], row[0])


class ControlsKvm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        need_kvm()
        cls.b = run("--accel", "kvm", "--suite", "pio,ide,virtio", "--ide-disk-size", "2M",
                    "--case", "fwcfg.in8.dma.4096,disk.read1.in16.rep,kick.alone",
                    *SMALL, timeout=300)

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_net_positive_control_below(self):
        # minima: other tenants only add time, and a median of five samples
        # of the DMA case went below its control's once in CI (net -2355)
        for case, share in (("fwcfg.in8.dma.4096", 1.0), ("disk.read1.in16.rep", FAR_BELOW),
                            ("kick.alone", 1.0)):
            res = self.b.result(case)
            check_net(self, res)
            self.assertGreater(res["cycles_net"]["min"], 0, case)
            self.assertLess(res["cycles_control"]["min"],
                            share * res["cycles"]["min"], case)


if __name__ == "__main__":
    unittest.main()
