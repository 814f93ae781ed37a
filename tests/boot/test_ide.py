"""tests/boot/test_ide.py - suite ide booted for real: under TCG every
method reads the right data from the pattern disk and the CD, writes land
on the host image, a missing drive and a read-only disk skip with a
reason, q35 reads through its piix3-ide function; one bounded KVM boot checks that rep insw moves a sector for at
least 10x fewer cycles than the inw loop (ratio only)."""
import os
import unittest
from unittest import mock

from tests.boot.common import checks_of, skips_of, need_build, need_kvm, run

TCG = ("--accel", "tcg", "--suite", "ide")
FAST = ("--quick", "--ide-disk-size", "2M", "--cmdline", "samples=3 budget_ms=100")
METHODS = ("in16.single", "in16.rep", "in32.single", "in32.rep")
XFER = {"in16.single": "inw loop", "in16.rep": "rep insw",
        "in32.single": "inl loop", "in32.rep": "rep insl",
        "out16.single": "outw loop", "out16.rep": "rep outsw",
        "out32.single": "outl loop", "out32.rep": "rep outsl"}




class IdeTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, *FAST)

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())

    def test_every_method_on_disk_and_cd(self):
        for kind in ("disk.read1", "disk.seq", "disk.mult16", "cd.read1", "cd.seq"):
            for m in METHODS:
                r = self.b.result("%s.%s" % (kind, m))
                self.assertEqual(r["xfer"], XFER[m])
                self.assertEqual(r["device"], "ata1.0" if kind.startswith("cd") else "ata0.0")
                self.assertGreater(r["mib_s"], 0)
                self.assertGreater(r["cycles_per_sector"], 0)
        for kind in ("disk.write1", "disk.wseq"):
            for m in METHODS:
                m = m.replace("in1", "out1").replace("in3", "out3")
                self.assertEqual(self.b.result("%s.%s" % (kind, m))["xfer"], XFER[m])

    def test_data_verified(self):
        checks = checks_of(self.b)
        for name in ("ide.disk.read", "ide.disk.write", "ide.cd.read", "ide.host_image"):
            self.assertTrue(checks[name]["ok"], checks[name])
            self.assertIn(" 0 mismatches", checks[name]["detail"])
        # read1 1 + seq 512 + mult 512 sectors, by each of 4 methods
        self.assertIn("4100 sectors verified", checks["ide.disk.read"]["detail"])
        self.assertIn("the ISO (runner's sums)", checks["ide.cd.read"]["detail"])
        self.assertNotIn("ide.errors", checks)

    def test_writes_land_on_host_image(self):
        detail = checks_of(self.b)["ide.host_image"]["detail"]
        # 2 MiB disk: writable region is its last quarter, LBA 3072..; quick
        # writes 64 KiB = 128 sectors there
        self.assertIn("128 written sectors (LBA 3072..3199)", detail)
        written = [o for o in self.b.boot["other"] if o.get("type") == "ide_written"]
        self.assertEqual(written[0]["lba"], 3072)

    def test_exit_model(self):
        loop = self.b.result("disk.mult16.in16.single")
        rep = self.b.result("disk.mult16.in16.rep")
        # data port: one exit per inw; rep insw of a 16-sector block: 1 per 1024 B
        self.assertEqual(loop["data_exits_per_sector_model"], 256)
        self.assertEqual(rep["data_exits_per_sector_model"], 0.5)
        self.assertEqual(self.b.result("disk.seq.in32.single")["data_exits_per_sector_model"], 128)
        # ATAPI: the 12-byte CDB is 6 outw; one 2048-byte sector 2 exits
        self.assertEqual(self.b.result("cd.read1.in16.rep")["data_exits_per_sector_model"], 8)
        # READ(10) of 64 KiB with byte count limit 0xfffe: QEMU offers DRQ
        # blocks of 65534 + 2 bytes (64 + 1 exits), plus the CDB: 71 / 32
        self.assertEqual(self.b.result("cd.seq.in16.rep")["data_exits_per_sector_model"], 2.22)
        # rep outs is not batched: one exit per unit
        self.assertEqual(self.b.result("disk.wseq.out16.rep")["data_exits_per_sector_model"], 256)
        self.assertEqual(self.b.result("disk.wseq.out32.rep")["data_exits_per_sector_model"], 128)
        # plus the command and status register accesses the driver made
        self.assertGreater(rep["exits_per_sector_model"], rep["data_exits_per_sector_model"])
        self.assertIn("rep_loop_ratio", rep)

    def test_regression_view(self):
        views = {v["what"]: v for v in self.b.boot["other"] if v.get("type") == "view"}
        self.assertEqual(set(views), {"disk", "disk READ MULTIPLE 16", "cd"})
        self.assertEqual(views["cd"]["device"], "ata1.0")
        self.assertIn("regression view: disk ata0.0", self.b.stdout)


class IdeMissing(unittest.TestCase):
    def setUp(self):
        need_build(self, "build/trapmeter.elf")

    def test_no_drives_skip(self):
        b = run(*TCG, *FAST[:1], "--ide-disk-size", "0", "--no-ide-cd")
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual(b.boot["results"], [])
        skips = skips_of(b, 'ide')
        self.assertEqual(skips["disk.seq.in16.rep"], "no ATA drive found")
        self.assertEqual(skips["cd.seq.in16.rep"], "no ATAPI drive found")

    def test_readonly_disk_skips_writes(self):
        b = run(*TCG, *FAST, "--ide-readonly", "--case", "disk.read1.*,disk.write1.*")
        self.assertEqual(b.status, 0, b.describe())
        self.assertIn("read-only", skips_of(b, 'ide')["disk.write1.out16.rep"])
        self.assertEqual(len(b.boot["results"]), 4)
        checks = checks_of(b)
        self.assertTrue(checks["ide.disk.read"]["ok"])
        self.assertIn("none written", checks["ide.host_image"]["detail"])

    def test_bad_sector_fails_the_run_naming_its_lba(self):
        with mock.patch.dict(os.environ, {"TRAPMETER_IDE_CORRUPT_LBA": "300"}):
            b = run(*TCG, *FAST, "--no-ide-cd", "--case", "disk.seq.in16.rep")
        self.assertEqual(b.status, 1, b.describe())
        self.assertIn("trapmeter END status=check-failed", b.serial)
        checks = checks_of(b)
        self.assertFalse(checks["ide.disk.read"]["ok"])
        self.assertIn("1 mismatches; first at LBA 300 (disk.seq.in16.rep)",
                      checks["ide.disk.read"]["detail"])
        self.assertFalse(checks["ide.host_image"]["ok"])
        self.assertIn("first at LBA 300", checks["ide.host_image"]["detail"])

    def test_q35_drives_on_piix3_ide(self):
        """q35's IDE is AHCI: the runner hangs the drives on a piix3-ide
        function, and the suite reads both, verified."""
        b = run(*TCG, *FAST, "--machine", "q35", "--case", "disk.read1.*,cd.read1.*")
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual(len(b.boot["results"]), 8)
        checks = checks_of(b)
        self.assertTrue(checks["ide.disk.read"]["ok"], checks["ide.disk.read"])
        self.assertTrue(checks["ide.cd.read"]["ok"], checks["ide.cd.read"])


class IdeKvm(unittest.TestCase):
    def test_rep_insw_10x_cheaper_per_sector(self):
        need_kvm()
        need_build(self, "build/trapmeter.elf")
        b = run("--accel", "kvm", "--suite", "ide", "--quick", "--ide-disk-size", "2M",
                "--no-ide-cd", "--case", "disk.mult16.in16.*",
                "--cmdline", "samples=3 budget_ms=200", "--timeout", "300", timeout=400)
        self.assertEqual(b.status, 0, b.describe())
        loop = b.result("disk.mult16.in16.single")["cycles_per_sector"]
        rep = b.result("disk.mult16.in16.rep")["cycles_per_sector"]
        self.assertGreaterEqual(loop / rep, 10.0,
                                f"inw loop {loop} vs rep insw {rep} cycles per sector")
        self.assertTrue(checks_of(b)["ide.disk.read"]["ok"])


if __name__ == "__main__":
    unittest.main()
