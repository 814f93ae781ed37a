"""tests/acceptance/test_kvm_sensitivity.py - `make acceptance`: ab A/A and
an injected +10 % per exit to QEMU, through `trapmeter sensitivity`
(up to about 12 minutes under KVM; skipped where KVM cannot create a VM).

A/A: no regression, no improvement.  +10 %: at least five of the six
QEMU round-trip cases flagged, no in-kernel control flagged, and the
shim's count of delayed exits covers the measured exits of every boot
(the planning boot of each session included).  The sessions share a
600 s budget (a session ends when every case is decided), not a boot
count: on the noisy host of 2026-12-02 (half the boots 30-50 % high, the
rest spread 3-4 %) 8+8 boots resolved only 4-9 % and flagged two of six.
+10 %, not +2 %: the test asserts what must hold on any host of this
kind; the detection limit is measured (docs/measurements.md, "Detection limit")."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from tests.boot.common import ROOT, RUNNER, need_build, need_kvm

CASES = ("fwcfg.in8.single.512,debugcon.out8.*.512,port80.out8.*.512,"
         "pic.in8.single.512,elcr.in8.single.512,pio.*,cpuid")


class KvmSensitivity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/kvm_delay.so")
        keep = os.environ.get("TRAPMETER_ACCEPTANCE_OUT")
        cls.dir = os.path.join(keep, "sensitivity") if keep else \
            tempfile.mkdtemp(prefix="tm-accept-sens-")
        cls.proc = subprocess.run(
            [RUNNER, "sensitivity", "--no-build", "--accel", "kvm",
             "--suite", "pio,exits", "--case", CASES, "--levels", "10",
             "--budget", "600", "--cmdline", "controls=off", "--out", cls.dir],
            capture_output=True, text=True, timeout=1200, cwd=ROOT)
        with open(os.path.join(cls.dir, "sensitivity.json")) as fh:
            cls.doc = json.load(fh)
        if not keep:
            cls.addClassCleanup(shutil.rmtree, cls.dir, True)

    def test_no_false_alarm(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stdout + self.proc.stderr)
        self.assertEqual(self.doc["false_alarms"], [])
        for name, case in self.doc["cases"].items():
            self.assertNotIn(case["aa"], ("regression", "improvement"), name)

    def test_ten_percent_flagged_on_qemu_ports_only(self):
        flagged = [n for n, c in self.doc["cases"].items() if c["smallest"] == 10]
        user = [n for n, c in self.doc["cases"].items() if c["handler"] == "user"]
        self.assertEqual(len(user), 6, user)
        self.assertGreaterEqual(len(set(flagged) & set(user)), 5, self.proc.stdout)
        for name, case in self.doc["cases"].items():
            if case["handler"] == "kernel":
                self.assertIsNone(case["smallest"], (name, self.proc.stdout))

    def test_shim_acted_in_every_boot(self):
        for sess in self.doc["sessions"]:
            self.assertEqual(len(sess["shim"]), sum(sess["boots"]) + 1)
            for boot in sess["shim"]:
                self.assertGreaterEqual(boot["delayed"], 0.9 * boot["measured_in_windows"])
                self.assertGreater(boot["measured_in_windows"], 0)


if __name__ == "__main__":
    unittest.main()
