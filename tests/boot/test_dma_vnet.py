"""tests/boot/test_dma_vnet.py - suite dma's virtio-net cases booted for real.
Under TCG (function only): on pc every vnet case moves frames the device
read (used ids and lengths as posted) and, through the hub, wrote into
NIC B's buffers (every frame verified on receipt), plain buffers inside a
page and chains crossing one; on q35 with --viommu intel the NICs take
VIRTIO_F_ACCESS_PLATFORM, each case runs in every IOMMU mode with its
frames verified, and a transmit frame at an unmapped IOVA is faulted by
the unit with the NIC's source id (its DMA goes through the IOMMU).  One
bounded KVM boot (ioeventfd off, so every kick is an MMIO exit QMP sees)
checks exits per op: exactly the one kick."""
import unittest

from tests.boot.common import checks_of, need_build, need_kvm, run

TCG = ("--accel", "tcg", "--suite", "dma", "--ide-disk-size", "2M",
       "--cmdline", "samples=3 budget_ms=50")
TX = ("vnet.tx.64", "vnet.tx.512", "vnet.tx.1514", "vnet.tx.64.chain",
      "vnet.tx.1514.chain")
TXRX = tuple(n.replace(".tx.", ".txrx.") for n in TX)
MODE_SUFFIX = {"off": ".vtd_off", "pt": ".vtd_pt", "4k": "", "2m": ".vtd_2m"}


def frames_ok(test, checks):
    for name in ("dma.vnet.tx", "dma.vnet.txrx"):
        test.assertTrue(checks[name]["ok"], checks[name])
        test.assertIn(", 0 lost, 0 corrupt", checks[name]["detail"])


class VnetPcTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, "--case", "vnet.*")

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_case_verified(self):
        for name in TX + TXRX:
            r = self.b.result(name)
            self.assertEqual(r["iommu_mode"], "none", name)
            self.assertEqual(r["exits_model"], 1, name)
            self.assertGreater(r["checked"], 0, name)
            self.assertEqual((r["lost"], r["corrupt"]), (0, 0), name)
            self.assertFalse(r["access_platform"], name)
            self.assertNotIn("error", r, name)
        frames_ok(self, checks_of(self.b))

    def test_layouts(self):
        for name in TX + TXRX:
            r = self.b.result(name)
            chain, txrx = name.endswith(".chain"), ".txrx." in name
            self.assertEqual(r["tx_descriptors"], 2 if chain else 1, name)
            self.assertEqual(r["rx_descriptors"], (2 if chain else 1) if txrx else 0, name)
            self.assertEqual(r["page_crossings"], (1 + txrx) if chain else 0, name)


class VnetQ35IntelTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, "--machine", "q35", "--viommu", "intel",
                    "--case", "vnet.tx.64*,vnet.txrx.1514.chain*")

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_mode_verified(self):
        for base in ("vnet.tx.64", "vnet.txrx.1514.chain"):
            for mode, suffix in MODE_SUFFIX.items():
                r = self.b.result(base + suffix)
                self.assertEqual(r["iommu_mode"], mode, base + suffix)
                self.assertTrue(r["access_platform"], base + suffix)
                self.assertGreater(r["checked"], 0, base + suffix)
                self.assertNotIn("error", r, base + suffix)
        checks = checks_of(self.b)
        frames_ok(self, checks)
        self.assertNotIn("dma.vtd.mode", checks)

    def test_nic_dma_faults_through_the_unit(self):
        c = checks_of(self.b)["dma.vtd.vnet_fault_unmapped"]
        self.assertTrue(c["ok"], c)
        self.assertIn("read of IOVA 0x3fff0000", c["detail"])


class VnetKvm(unittest.TestCase):
    def test_one_exit_per_op(self):
        need_kvm()
        need_build(self, "build/trapmeter.elf")
        b = run("--accel", "kvm", "--suite", "dma", "--ioeventfd", "off",
                "--ide-disk-size", "2M", "--case", "vnet.tx.64,vnet.txrx.1514.chain",
                "--cmdline", "samples=5 budget_ms=200", "--timeout", "300", timeout=400)
        self.assertEqual(b.status, 0, b.describe())
        for name in ("vnet.tx.64", "vnet.txrx.1514.chain"):
            per_op = b.result(name)["exit_stats_per_op"]
            # the kick is the op's one MMIO exit (ioeventfd off: QEMU's);
            # the rest of the op is RAM: no other MMIO or port exit
            self.assertAlmostEqual(per_op["mmio_exits"], 1.0, delta=0.05, msg=name)
            self.assertEqual(per_op["io_exits"], 0.0, name)
        frames_ok(self, checks_of(b))


if __name__ == "__main__":
    unittest.main()
