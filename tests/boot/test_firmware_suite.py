"""tests/boot/test_firmware_suite.py - suite firmware inside UEFI (OVMF
under TCG: one boot of build/trapmeter-fw.iso, a few cases).

The audit's counts against hand counts: platform/efi_call.asm's
efi_audit_selftest (8 instructions, 23 traps, 17 exits: the guest's
check), and CpuIo2's two widths on fw_cfg's data port, counted from
UefiCpuPkg/CpuIo2Dxe/CpuIo2Dxe.c: the FIFO width of 16 units is one
IoReadFifo8 (one rep insb of 16), the plain width one IoRead8 a call (16
calls, 16 inb).  No disk attached: its Block I/O cases are a named skip,
and the CD's read is checked against the runner's sums.  And the default
image, asked for the suite, says why it cannot run it."""
import os
import unittest

from tests.boot.common import OVMF_CODE, checks_of, need_build, run, skips_of

CASES = "cpuio.fwcfg.in8.*.16,blockio.disk.read.512,blockio.cd.read.2048"


class FirmwareSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(OVMF_CODE):
            raise unittest.SkipTest(f"{OVMF_CODE} missing (Debian package ovmf)")
        need_build(cls, "build/trapmeter-fw.iso")
        cls.b = run("--accel", "tcg", "--boot", "iso", "--firmware", "ovmf",
                    "--suite", "firmware", "--case", CASES,
                    "--ide-disk-size", "0", timeout=600)

    def audit(self, case):
        return self.b.result(case)["audit"]

    def test_status_and_checks(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        checks = checks_of(self.b)
        self.assertTrue(checks["firmware.audit_selftest"]["ok"],
                        checks["firmware.audit_selftest"])
        self.assertIn("(hand count 8, 23, 17, 17)",
                      checks["firmware.audit_selftest"]["detail"])
        self.assertTrue(checks["firmware.data"]["ok"])

    def test_fifo_is_one_rep_insb(self):
        a = self.audit("cpuio.fwcfg.in8.fifo.16")
        self.assertEqual((a["path"], a["io"], a["max_rep"], a["calls"]),
                         ("rep", {"rep insb": 1}, 16, 1))
        self.assertEqual(a["ports"], [0x511])
        self.assertTrue(a["complete"])

    def test_plain_is_an_inb_a_call(self):
        a = self.audit("cpuio.fwcfg.in8.plain.16")
        self.assertEqual((a["path"], a["io"], a["calls"], a["exits_model"]),
                         ("single", {"inb": 16}, 16, 16))
        self.assertEqual(a["insns"] % 16, 0)    # 16 calls of one length

    def test_absent_disk_is_a_named_skip(self):
        why = skips_of(self.b, "firmware")["blockio.disk.read.512"]
        self.assertIn("no Block I/O device with 512-byte blocks", why)

    def test_cd_read_checked(self):
        r = self.b.result("blockio.cd.read.2048")
        self.assertTrue(r["audit"]["data_checked"])
        self.assertEqual(r.get("mismatches", 0), 0)
        self.assertIn("insw", " ".join(r["audit"]["io"]))

    def test_tables(self):
        self.assertIn("firmware audit (single-stepped once", self.b.stdout)
        self.assertIn("firmware: EDK II", self.b.stdout)


class DefaultImage(unittest.TestCase):
    def test_named_skip_without_boot_services(self):
        need_build(self, "build/trapmeter.elf")
        b = run("--accel", "tcg", "--boot", "direct", "--cmdline",
                "suite=firmware", timeout=120)
        self.assertEqual(b.status, 0, b.describe())
        self.assertIn("UEFI boot services are not available",
                      skips_of(b, "firmware")["*"])

    def test_runner_refuses_a_mix(self):
        b = run("--accel", "tcg", "--boot", "iso", "--firmware", "ovmf",
                "--suite", "firmware,pio", timeout=60)
        self.assertEqual(b.status, 2, b.describe())
        self.assertIn("runs alone", b.stderr)


if __name__ == "__main__":
    unittest.main()
