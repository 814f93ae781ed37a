"""tests/boot/test_firmware.py - the guest names the legacy firmware that
booted it from the SMBIOS BIOS vendor (platform/firmware.c): qboot and
SeaBIOS ("bios") booted under TCG, each with one cheap case; the runner's
header and results.json carry the guest's name, and the runner, which
knows what it booted, raises no mismatch warning."""
import os
import sys
import unittest

from tests.boot.common import ROOT, need_build, run

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.guest import qemu  # noqa: E402

CASE = ("--accel", "tcg", "--boot", "direct", "--suite", "exits", "--case", "cpuid")


class FirmwareNamed(unittest.TestCase):
    def boot(self, firmware):
        need_build(self, "build/trapmeter.elf")
        b = run(*CASE, "--firmware", firmware, timeout=120)
        self.assertEqual(b.status, 0, b.describe())
        return b

    def test_qboot(self):
        if not os.path.isfile(qemu.QBOOT):
            self.skipTest("%s not installed" % qemu.QBOOT)
        b = self.boot("qboot")
        self.assertEqual(b.boot["run"]["firmware"], "qboot")
        self.assertEqual(b.boot["run"]["firmware_vendor"], "qboot")
        self.assertIn("| firmware qboot |", b.stdout)
        self.assertIn("firmware qboot", b.serial)
        self.assertNotIn("guest names its firmware", b.stderr + b.stdout)

    def test_seabios(self):
        b = self.boot("bios")
        self.assertEqual(b.boot["run"]["firmware"], "bios")
        self.assertTrue(b.boot["run"]["firmware_vendor"].startswith("SeaBIOS"))
        self.assertIn("| firmware bios |", b.stdout)


if __name__ == "__main__":
    unittest.main()
