"""tests/boot/test_exit_counters.py - the two exit counters under KVM
(`run --exit-counter both`, direct boot, a few QEMU-port cases and one
in-kernel port, few samples): perf's tracepoint count per op equals the
model exactly, QMP's misses none of its exits and exceeds it by no more
than 1 % and a bounded rate of background exits, and the in-kernel port that QMP
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
from trapmeterlib.stats import exitcheck  # noqa: E402

USER_CASES = ("fwcfg.in8.single.512", "fwcfg.in8.rep.4096", "fwcfg.in8.dma.4096",
              "debugcon.out8.rep.512", "acpi.tmr.in32.rep.4096")
KERNEL_CASE = "pic.in8.single.512"
# background exits a second a QMP window may hold at most: an idle vCPU on
# this PVM host takes 0.75-1.6 k (docs/reference.md); host timer ticks and
# preemptions of a loaded host stay well inside 20 k
BACKGROUND_RATE_MAX = 20000
KERNEL_WRITE = "pic.out8.single.512"
# the whole exits QMP may read below the model over a case's window: over
# 15 boots of these five cases here it read 0-2 below (2 in 8 of 75), and a
# CI run read 2.95 below in fwcfg.in8.dma.4096's 118 ops; a counter that
# misses exits per op falls short by tens
EDGE_SHORT = 3


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
            self.assertEqual(r["exits_source"], "perf")
            self.assertEqual(r["exits_perf_kernel"], 0, r)
            self.assert_qmp_counts_the_model(r, model)

    def assert_qmp_counts_the_model(self, r, model):
        """QMP counts whole exits over the timed window, sync traffic
        subtracted.  Exact below: it misses none of the model's exits (2
        whole exits and the per-op rounding aside).  Above, the window also
        holds the host's background, which only adds and which a loaded
        host raises past the boot's idle calibration (exits_background_max
        was exceeded here under load 5-12): bounded as a rate, at most
        BACKGROUND_RATE_MAX a second of the case's time, not by the
        calibration."""
        ops = r["ops"]
        # both per-op figures are rounded to 3 decimals: times ops, that is
        # up to 0.0005 * ops each, so 2 whole exits can read 2.01
        slack = max(0.01 * model * ops, 2) + 0.001 * ops
        excess = (r["exits_qmp"] - model) * ops
        # below, EDGE_SHORT whole exits: the window's edges and the sync
        # traffic its calibration's median takes out
        short = max(0.01 * model * ops, EDGE_SHORT) + 0.001 * ops
        self.assertGreaterEqual(excess, -short, r)
        background = BACKGROUND_RATE_MAX * r["case_ms"] / 1000.0
        self.assertLessEqual(excess, slack + background, r)
        # the flag the table shows is the one judgment of the recorded counts
        self.assertEqual(r["exits_counters_differ"], exitcheck.counters_differ(
            r["exits_qmp"], r["exits_perf"], ops, r.get("exits_background_max")), r)

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
