"""tests/host/test_exitcount.py - the arithmetic that turns QMP counter
snapshots at the guest's sync points into exits per op (no QEMU)."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib import exitcount, qemu  # noqa: E402
from trapmeterlib.qmp import sum_vcpu_stats  # noqa: E402


def snaps(m0, m1, i0, i1, io=(0, 0, 0, 0)):
    return {p: {"exits": e, "io_exits": i} for p, e, i in
            zip(exitcount.PHASES, (m0, m1, i0, i1), io)}


def result(polls_m1=1, polls_i1=1, timeouts=0, model=1, ops=375, median=24000,
           method="single"):
    return {"case": "pio.user", "dir": "out", "method": method, "samples": 5,
            "iters": ops // 5, "ops": ops, "cycles": {"median": median},
            "exits_model": model,
            "sync": {"polls_m0": 1, "polls_m1": polls_m1, "polls_i0": 1,
                     "polls_i1": polls_i1, "timeouts": timeouts, "idle_cycles": 1}}


class Arithmetic(unittest.TestCase):
    def test_idle_window_is_subtracted(self):
        # snapshots seen under KVM (PVM) for exits/pio.user, 375 outb
        # (window deltas 482 and 112, as seen under KVM on PVM)
        res = exitcount.fill_result(result(), snaps(10000, 10482, 11000, 11112))
        self.assertAlmostEqual(res["exits_measured"], (482 - 112) / 375, places=3)
        self.assertEqual(res["exits_counter"], "exits")
        self.assertFalse(res["exits_model_mismatch"])
        self.assertAlmostEqual(res["cycles_per_exit"], 24000 * 375 / 370, delta=1)

    def test_polls_before_the_pause_are_taken_out(self):
        # 137 status polls at m1 before the host paused the VM
        res = exitcount.fill_result(result(polls_m1=137, model=1),
                                    snaps(1000, 1251, 2000, 2114))
        self.assertAlmostEqual(res["exits_measured"], 0.0, places=2)
        self.assertIsNone(res["cycles_per_exit"])   # < 0.5 exits/op
        self.assertTrue(res["exits_model_mismatch"])

    def test_io_exits_preferred_when_reported(self):
        res = exitcount.fill_result(result(), snaps(0, 900, 0, 100, (0, 500, 0, 100)))
        self.assertEqual(res["exits_counter"], "io_exits")
        self.assertAlmostEqual(res["exits_measured"], 400 / 375, places=3)
        # a counter that never moved gets no poll correction (PVM io_exits)
        res = exitcount.fill_result(result(polls_i1=20), snaps(0, 900, 0, 100))
        self.assertEqual(res["exit_stats_per_op"]["io_exits"], 0)

    def test_too_few_exits_for_a_cost(self):
        # 4 exits over 3 ops (elcr.out8.single.4096 on PVM): noise, no cost
        res = exitcount.fill_result(result(ops=3), snaps(0, 104, 0, 100))
        self.assertAlmostEqual(res["exits_measured"], 4 / 3, places=3)
        self.assertIsNone(res["cycles_per_exit"])
        self.assertIn("too few", res["exits_note"])
        # 400 exits but 700 background ticks in the idle window: noise too
        res = exitcount.fill_result(result(ops=300), snaps(0, 1100, 0, 700))
        self.assertIsNone(res["cycles_per_exit"])
        self.assertEqual(res["exits_background"], 700)

    def test_invalid_counts_are_null_with_a_reason(self):
        res = exitcount.fill_result(result(timeouts=2), snaps(0, 1, 2, 3))
        self.assertIsNone(res["exits_measured"])
        self.assertIn("timed out", res["exits_note"])
        res = exitcount.fill_result(result(), None)
        self.assertIn("no counter snapshots", res["exits_note"])
        res = exitcount.fill_result({"case": "x"}, snaps(0, 1, 2, 3))
        self.assertIn("no sync record", res["exits_note"])
        res = exitcount.fill_result(result(), snaps(0, 1, 2, 3), failed="gone")
        self.assertIn("gone", res["exits_note"])

    def test_counter_groups_follow_cases(self):
        counter = exitcount.ExitCounter("/nonexistent")
        for case, base in (("a", 0), ("b", 100)):
            for i, phase in enumerate(exitcount.PHASES):
                counter._record(case, phase, {"exits": base + i * 10})
        results = counter.apply([dict(result(), case="a"), dict(result(), case="b"),
                                 dict(result(), case="c")])
        self.assertEqual([r["exits_measured"] for r in results[:2]], [0.0, 0.0])
        self.assertIsNone(results[2]["exits_measured"])

    def test_sum_vcpu_stats(self):
        ret = [{"provider": "kvm", "qom-path": "/machine/unattached/device[0]",
                "stats": [{"name": "exits", "value": 5}, {"name": "io_exits", "value": 2},
                          {"name": "halt_poll_ns", "value": 9}]},
               {"stats": [{"name": "exits", "value": 1}, {"name": "exits", "value": True}]}]
        self.assertEqual(sum_vcpu_stats(ret), {"exits": 6, "io_exits": 2})
        self.assertEqual(sum_vcpu_stats(None), {})


class QemuArgs(unittest.TestCase):
    def test_irqchip_and_qmp(self):
        cfg = qemu.RunConfig(repo_root="/r", accel="kvm", kernel_irqchip="off",
                             qmp_path="/t/q,mp.sock")
        argv = qemu.build_argv(cfg, "/t")
        self.assertIn("kvm,kernel-irqchip=off", argv)
        self.assertIn("host,-arch-capabilities" + qemu.CPU_IRQCHIP_OFF, argv)
        self.assertIn("unix:/t/q,,mp.sock,server=on,wait=off", argv)
        cfg = qemu.RunConfig(repo_root="/r", accel="tcg")
        argv = qemu.build_argv(cfg, "/t")
        self.assertNotIn("-qmp", argv)
        self.assertIn("tcg", argv)


if __name__ == "__main__":
    unittest.main()
