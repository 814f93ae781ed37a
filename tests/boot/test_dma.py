"""tests/boot/test_dma.py - suite dma booted for real.  Under TCG (function
only): every bus-master and fw_cfg case moves verified data on pc; on q35
with --viommu intel every bus-master case runs in each IOMMU mode (off,
pass-through, 4 KiB, 2 MiB) with its data verified, the unit faults a
DMA to an unmapped IOVA with the right record, and without the IOMMU the
translation-only cases skip with the reason; the fw_cfg write case runs
where the machine has a writable item (q35) and skips with the reason on
pc.  One bounded KVM boot checks exits per op: the counters' measured
exits of a READ DMA sit near the driver's port accesses (ratio with a
margin) and a 64 KiB command in one PRD takes no more exits than 4 KiB
ones do in proportion."""
import unittest

from tests.boot.common import checks_of, skips_of, need_build, need_kvm, run

TCG = ("--accel", "tcg", "--suite", "dma", "--ide-disk-size", "2M")
FAST = ("--cmdline", "samples=3 budget_ms=50")
BM = ("bm.read.512", "bm.read.4096", "bm.read.65536", "bm.read.65536.prd512",
      "bm.read.1024.inpage", "bm.read.1024.cross", "bm.read.4096.cross",
      "bm.write.512", "bm.write.4096", "bm.write.65536", "bm.write.65536.prd512",
      "bm.write.1024.inpage", "bm.write.1024.cross", "bm.write.4096.cross")
FW = ("fwdma.read.16", "fwdma.read.512", "fwdma.read.512.cross", "fwdma.read.4096",
      "fwdma.read.4096.cross", "fwdma.read.65536", "fwdma.read.65536.cross")
MODE_SUFFIX = {"off": ".vtd_off", "pt": ".vtd_pt", "4k": "", "2m": ".vtd_2m"}




class DmaPcTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, *FAST)

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_case_verified(self):
        for name in BM + FW:
            r = self.b.result(name)
            self.assertEqual(r["iommu_mode"], "none", name)
            self.assertEqual(r["method"], "dma")
            self.assertGreater(r["checked"], 0, name)
            self.assertGreater(r["cycles_per_kib"], 0, name)
            self.assertNotIn("error", r, name)
        checks = checks_of(self.b)
        for name in ("dma.bm.read", "dma.bm.write", "dma.fwcfg", "ide.host_image"):
            self.assertTrue(checks[name]["ok"], checks[name])
        self.assertIn(" 0 mismatches", checks["dma.bm.read"]["detail"])

    def test_prd_layouts(self):
        self.assertEqual(self.b.result("bm.read.65536")["prds"], 1)
        self.assertEqual(self.b.result("bm.read.65536.prd512")["prds"], 128)
        self.assertEqual(self.b.result("bm.read.1024.inpage")["prd_page_crossings"], 0)
        self.assertEqual(self.b.result("bm.read.1024.cross")["prd_page_crossings"], 1)

    def test_exit_model(self):
        # fw_cfg DMA: the doorbell write; bus master: at least the 13 fixed
        # port accesses of a command (PRDT, status, direction, 7 task-file
        # writes, a ready check, START, stop) plus one status poll
        self.assertEqual(self.b.result("fwdma.read.4096")["exits_model"], 1)
        self.assertGreaterEqual(self.b.result("bm.read.512")["exits_model"], 14)
        # the polls make the bus master's count an average; fw_cfg's is exact
        self.assertIs(self.b.result("bm.read.512")["exits_model_exact"], False)
        self.assertNotIn("exits_model_exact", self.b.result("fwdma.read.4096"))

    def test_writes_land_on_host_image(self):
        detail = checks_of(self.b)["ide.host_image"]["detail"]
        self.assertIn("128 written sectors (LBA 3072..3199)", detail)

    def test_skips_name_their_reason(self):
        skips = skips_of(self.b, 'dma')
        self.assertIn("no writable fw_cfg item", skips["fwdma.write.8"])
        self.assertIn("--viommu intel", skips["bm.read.4096.miss"])
        self.assertIn("--viommu intel", skips["vtd.iotlb_inval"])


class DmaQ35IntelTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, *FAST, "--machine", "q35", "--viommu", "intel",
                    "--case", "bm.read.4096*,bm.write.65536*,bm.read.1024.cross*,"
                    "vtd.*,fwdma.*")

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_mode_verified(self):
        for base in ("bm.read.4096", "bm.write.65536", "bm.write.65536.prd512",
                     "bm.read.1024.cross"):
            for mode, suffix in MODE_SUFFIX.items():
                r = self.b.result(base + suffix)
                self.assertEqual(r["iommu_mode"], mode, base + suffix)
                self.assertGreater(r["checked"], 0, base + suffix)
                self.assertNotIn("error", r, base + suffix)
        checks = checks_of(self.b)
        for name in ("dma.bm.read", "dma.bm.write", "dma.fwcfg"):
            self.assertTrue(checks[name]["ok"], checks[name])
        self.assertNotIn("dma.vtd.mode", checks)

    def test_fault_recorded(self):
        c = checks_of(self.b)["dma.vtd.fault_unmapped"]
        self.assertTrue(c["ok"], c)
        self.assertIn("write of IOVA 0x3fff0000", c["detail"])
        self.assertIn("reason 5", c["detail"])

    def test_unit_found_through_dmar(self):
        unit = [o for o in self.b.boot["other"] if o.get("type") == "iommu"]
        self.assertEqual(unit[0]["kind"], "intel-vtd")
        self.assertEqual(unit[0]["regbase"], "0xfed90000")
        self.assertEqual(unit[0]["levels"], 3)

    def test_fwcfg_untranslated_and_written(self):
        self.assertEqual(self.b.result("fwdma.read.4096")["iommu_mode"], "off")
        self.assertGreater(self.b.result("fwdma.write.8")["checked"], 0)

    def test_iotlb_cases(self):
        self.assertEqual(self.b.result("bm.read.4096.miss")["iommu_mode"], "4k")
        self.assertEqual(self.b.result("vtd.iotlb_inval")["exits_model"], 2)


class DmaSweepTcg(unittest.TestCase):
    """--viommu off,intel: one q35 QEMU per setting into one results.json,
    the off boot's plain name mode none, the by-mode table over both."""

    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, *FAST, "--machine", "q35", "--viommu", "off,intel",
                    "--case", "bm.read.4096*")

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_each_setting_its_boot_and_modes(self):
        boots = self.b.results["boots"]
        self.assertEqual([b["viommu"] for b in boots], ["off", "intel"])
        self.assertEqual(self.b.results["config"]["viommu_sweep"], ["off", "intel"])
        modes = [{r["case"]: r["iommu_mode"] for r in b["results"]} for b in boots]
        self.assertEqual(modes[0]["bm.read.4096"], "none")
        self.assertNotIn("bm.read.4096.vtd_off", modes[0])
        for mode, suffix in MODE_SUFFIX.items():
            self.assertEqual(modes[1]["bm.read.4096" + suffix], mode)
        for b in boots:
            for r in b["results"]:
                self.assertGreater(r["checked"], 0, r["case"])
        self.assertNotIn("intel-iommu", boots[0]["qemu_argv"])
        self.assertIn("intel-iommu", boots[1]["qemu_argv"])

    def test_table_has_five_modes(self):
        head = [l for l in self.b.stdout.splitlines()
                if l.split()[:6] == ["case", "none", "off", "pt", "4k", "2m"]]
        self.assertTrue(head, self.b.stdout)
        self.assertIn("off-none", head[-1])


class DmaRepeatTcg(unittest.TestCase):
    """--repeat 3 --table full: the by-mode table and the vnet receive
    write are printed over the boots, where a difference can resolve."""
    def test_tables_over_boots(self):
        need_build(self, "build/trapmeter.elf")
        b = run(*TCG, *FAST, "--repeat", "3",
                "--case", "bm.read.4096,vnet.tx.64,vnet.txrx.64")
        self.assertEqual(b.status, 0, b.describe())
        self.assertIn("dma by IOMMU mode over 3 boots:", b.stdout)
        self.assertIn("vnet receive write (difference txrx - tx", b.stdout)


class DmaKvm(unittest.TestCase):
    def test_exits_per_op(self):
        need_kvm()
        need_build(self, "build/trapmeter.elf")
        b = run("--accel", "kvm", "--suite", "dma", "--ide-disk-size", "2M",
                "--case", "bm.read.4096,bm.read.65536,fwdma.read.4096",
                "--cmdline", "samples=5 budget_ms=200", "--timeout", "300", timeout=400)
        self.assertEqual(b.status, 0, b.describe())
        for name in ("bm.read.4096", "bm.read.65536"):
            r = b.result(name)
            self.assertIsNotNone(r["exits_measured"], name)
            # every port access is an exit to QEMU; the status polls make
            # the model per op an average, so allow 50 % either way
            ratio = r["exits_measured"] / r["exits_model"]
            self.assertTrue(0.5 <= ratio <= 1.5, f"{name}: measured {r['exits_measured']} "
                            f"vs model {r['exits_model']}")
        fw = b.result("fwdma.read.4096")
        self.assertLess(fw["exits_measured"], 2.5, fw)
        self.assertTrue(checks_of(b)["dma.bm.read"]["ok"])


if __name__ == "__main__":
    unittest.main()
