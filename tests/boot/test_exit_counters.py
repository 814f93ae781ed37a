"""tests/boot/test_exit_counters.py - the two exit counters under KVM
(`run --exit-counter both`, direct boot, a few QEMU-port cases and one
in-kernel port, few samples): perf's tracepoint count per op equals the
model exactly, QMP's is within 1 % of it, and the in-kernel port that QMP
cannot see on a software backend carries perf's count.  Skipped, with the
reason, without KVM or without perf and its KVM tracepoints.  The same
holds for a boot in rounds (`--rounds 3`): the guest counts in its first
round only, and the merged result carries that round's window exactly."""
import os
import sys
import unittest

from tests.boot.common import ROOT, need_build, need_kvm, run

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.counters import perfcount  # noqa: E402

USER_CASES = ("fwcfg.in8.single.512", "fwcfg.in8.rep.4096", "fwcfg.in8.dma.4096",
              "debugcon.out8.rep.512", "acpi.tmr.in32.rep.4096")
KERNEL_CASE = "pic.in8.single.512"
KERNEL_WRITE = "pic.out8.single.512"


class TwoCounters(unittest.TestCase):
    ROUNDS = ()

    @classmethod
    def setUpClass(cls):
        need_kvm()
        events, why = perfcount.available()
        if not events:
            raise unittest.SkipTest(why)
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "kvm", "--boot", "direct", "--suite", "pio",
                    "--case", ",".join(USER_CASES + (KERNEL_CASE, KERNEL_WRITE)),
                    "--exit-counter", "both", "--cmdline", "samples=5",
                    "--timeout", "300", *cls.ROUNDS, timeout=400)

    def test_status_ok_and_both_counters_used(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        self.assertEqual(self.b.results["config"]["exit_counter"], "both")

    def test_qemu_ports_match_the_model(self):
        for case in USER_CASES:
            r = self.b.result(case)
            model = r["exits_model"]
            self.assertIsNotNone(r["exits_perf"], r.get("exits_note"))
            self.assertLessEqual(abs(r["exits_perf"] - model), 0.005 * model, r)
            # QMP counts whole exits over the timed window: 1 % or 2 exits,
            # plus at most the background the window could have collected
            # (that only ever adds)
            excess = (r["exits_qmp"] - model) * r["ops"]
            if excess > 0:
                excess = max(0, excess - r["exits_background_max"] * r["ops"])
            # both per-op figures are rounded to 3 decimals: times ops,
            # that is up to 0.0005 * ops each, so 2 whole exits can read 2.01
            rounding = 0.001 * r["ops"]
            self.assertLessEqual(abs(excess),
                                 max(0.01 * model * r["ops"], 2) + rounding, r)
            self.assertEqual(r["exits_source"], "perf")
            self.assertFalse(r["exits_counters_differ"], r)
            self.assertEqual(r["exits_perf_kernel"], 0, r)

    def test_in_kernel_port_counted_by_perf(self):
        r = self.b.result(KERNEL_CASE)
        self.assertEqual(r["exits_perf_ports"], {"pio 0x21 in": 512.0}, r)
        self.assertEqual(r["exits_perf_kernel"], 512.0)
        self.assertEqual(r["exits_measured"], 512.0)
        # a write KVM answers, then the COM1 read QEMU answers: no mix-up
        r = self.b.result(KERNEL_WRITE)
        self.assertEqual((r["exits_perf_user"], r["exits_perf_kernel"]), (0, 512.0), r)

    def test_background_reported(self):
        r = self.b.result(USER_CASES[0])
        self.assertGreaterEqual(r["exits_background_per_s"], 0)
        self.assertIsNotNone(r["exits_background_max"])


class TwoCountersInRounds(TwoCounters):
    """Every test above, on a boot of three rounds."""
    ROUNDS = ("--rounds", "3")

    def test_counted_in_the_first_round_only(self):
        for case in USER_CASES + (KERNEL_CASE,):
            r = self.b.result(case)
            self.assertEqual(len(r["rounds"]), 3, case)
            self.assertEqual(r["ops"], r["rounds"][0]["ops"], r)
            self.assertEqual(r["ops_total"], sum(p["ops"] for p in r["rounds"]), r)
            self.assertLess(r["ops"], r["ops_total"], r)
        syncs = [l for l in self.b.serial.splitlines() if '"type":"sync"' in l]
        self.assertTrue(syncs)
        self.assertFalse([l for l in self.b.serial.splitlines()
                          if '"type":"round"' in l and '"sync' in l])
        self.assertTrue([l for l in self.b.serial.splitlines()
                         if '"type":"round"' in l])


if __name__ == "__main__":
    unittest.main()
