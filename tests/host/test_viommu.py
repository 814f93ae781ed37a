"""Unit tests of tools/trapmeterlib/guest/viommu.py and its place in `trapmeter
run` (no QEMU): --viommu intel needs --machine q35 (a named bad-input
error, exit status 2, no QEMU started), the device goes first."""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.guest import viommu  # noqa: E402


class Options(unittest.TestCase):
    def test_problem(self):
        self.assertIsNone(viommu.problem(("off",), "pc"))
        self.assertIsNone(viommu.problem(("off", "intel"), "q35"))
        self.assertIn("needs --machine q35", viommu.problem(("off", "intel"), "pc"))

    def test_device_args(self):
        self.assertEqual(viommu.device_args("off"), [])
        self.assertEqual(viommu.device_args("intel"), ["-device", "intel-iommu"])

    def test_run_refuses_pc(self):
        proc = subprocess.run(
            [sys.executable, os.path.join(REPO, "tools", "trapmeter"), "run",
             "--no-build", "--accel", "tcg", "--viommu", "intel",
             "--json", os.devnull], capture_output=True, text=True,
            timeout=60, check=False)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--viommu intel needs --machine q35", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
