"""tests/host/test_mmio_runner.py - the mmio suite's runner side
(tools/trapmeterlib/guest/mmio.py): when devices are attached, and round trips
to QEMU against the model."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.guest import mmio  # noqa: E402


class Devices(unittest.TestCase):
    def test_wanted(self):
        self.assertTrue(mmio.wanted(["suite=mmio"]))
        self.assertTrue(mmio.wanted(["suite=all"]))
        self.assertTrue(mmio.wanted(["suite=pio", "case=ptd.*"]))
        self.assertFalse(mmio.wanted(["suite=pio,exits"]))
        self.assertFalse(mmio.wanted([]))
        self.assertFalse(mmio.wanted(["suite=mmio"], "off"))
        self.assertTrue(mmio.wanted([], "on"))

    def test_case_globs_that_cannot_reach_ptd_keep_qboot(self):
        # pio's ptd.* cases need pci-testdev (and so SeaBIOS); a case list
        # that cannot name one must not pay for it.
        pio = ["suite=pio,exits"]
        self.assertFalse(mmio.wanted(pio + ["case=fwcfg.*,pio.*,cpuid"]))
        self.assertFalse(mmio.wanted(pio + ["case=port80.out8.*.512"]))
        self.assertTrue(mmio.wanted(pio + ["case=fwcfg.*,ptd.io.nofd.*"]))
        for glob in ("*", "p*", "?td.*", "pt[a-e].io", "[!x]td.",
                     "[p]td.*", "*.512"):
            self.assertTrue(mmio.wanted(pio + ["case=" + glob]), glob)
        for glob in ("pic.*", "p[!t]d.*", "pt[a-c].*", "ptdx*", "[q-z]*", "ptd"):
            self.assertFalse(mmio.wanted(pio + ["case=" + glob]), glob)
        self.assertFalse(mmio.wanted(["suite=exits", "case=*"]))

    def test_glob_may_start(self):
        self.assertTrue(mmio.glob_may_start("ptd.io.nofd.in8", "ptd."))
        self.assertFalse(mmio.glob_may_start("pt", "ptd."))
        self.assertTrue(mmio.glob_may_start("[]p]td.", "ptd."))
        self.assertTrue(mmio.glob_may_start("[p", "[p"))   # unterminated
        self.assertFalse(mmio.glob_may_start("[p", "ptd."))

    def test_args(self):
        argv = mmio.device_args(["suite=mmio"])
        for dev in ("pc-testdev", "pci-testdev"):
            self.assertIn(dev, argv)
        self.assertTrue(any(a.startswith("e1000,netdev=tme1000") for a in argv))
        self.assertEqual(argv[argv.index("-vga") + 1], "std")
        self.assertEqual(mmio.device_args(["suite=pio"]), [])


class Annotate(unittest.TestCase):
    def row(self, model, **stats):
        return {"case": "c", "addr": "0xff000000", "handler": "coalesced",
                "exits_to_qemu_model": model, "exit_stats_per_op": stats}

    def test_mmio_uses_mmio_exits(self):
        res = mmio.annotate([self.row(0.376, exits=0.1, mmio_exits=0.389)])[0]
        self.assertEqual(res["exits_to_qemu_counter"], "mmio_exits")
        self.assertFalse(res["exits_to_qemu_mismatch"])
        res = mmio.annotate([self.row(0.376, mmio_exits=64.0)])[0]
        self.assertTrue(res["exits_to_qemu_mismatch"])

    def test_zero_model(self):
        self.assertFalse(mmio.annotate([self.row(0, mmio_exits=0.2)])[0]["exits_to_qemu_mismatch"])
        self.assertTrue(mmio.annotate([self.row(0, mmio_exits=0.6)])[0]["exits_to_qemu_mismatch"])

    def test_ports_fall_back_to_exits(self):
        row = {"case": "p", "exits_to_qemu_model": 512,
               "exit_stats_per_op": {"exits": 507.0, "io_exits": 0.0}}
        res = mmio.annotate([row])[0]
        self.assertEqual(res["exits_to_qemu_counter"], "exits")
        self.assertFalse(res["exits_to_qemu_mismatch"])

    def test_perf_user_preferred(self):
        # QMP's window holds background exits; perf's untimed sample does not
        row = self.row(3.01, exits=4.0, mmio_exits=4.0)
        row["exits_perf_user"] = 3.0
        res = mmio.annotate([row])[0]
        self.assertEqual(res["exits_to_qemu_counter"], "perf_user")
        self.assertEqual(res["exits_to_qemu_measured"], 3.0)
        self.assertFalse(res["exits_to_qemu_mismatch"])
        row = {"case": "p", "exits_to_qemu_model": 0, "exits_perf_user": 64.0}
        self.assertTrue(mmio.annotate([row])[0]["exits_to_qemu_mismatch"])
        # one op of 64 coalesced writes cannot show 0.376 round trips
        row = self.row(0.376, mmio_exits=0.4)
        row["exits_perf_user"] = 0.0
        res = mmio.annotate([row])[0]
        self.assertEqual(res["exits_to_qemu_counter"], "mmio_exits")
        self.assertFalse(res["exits_to_qemu_mismatch"])

    def test_uncounted_rows_untouched_and_render(self):
        row = {"case": "t", "exits_to_qemu_model": 3, "exit_stats_per_op": None}
        self.assertNotIn("exits_to_qemu_measured", mmio.annotate([row])[0])
        self.assertIn("handler classes", mmio.render([row]))
        self.assertEqual(mmio.render([{"case": "x"}]), "")


if __name__ == "__main__":
    unittest.main()
