"""tests/boot/test_sync.py - the guest's phase-sync protocol under TCG
(kernel word sync=on, kernel/phase_sync.h), driven by the runner's own QEMU
process class: every sync line is answered with one byte on COM1 ("c" at m1
asks for the untimed count window), or not answered at all, in which case
every wait must end by its TSC bound and the count be marked invalid, never
hang."""
import os
import tempfile
import unittest

from tests.boot.common import ROOT, need_build

import sys
sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib import qemu  # noqa: E402

CASE = "fwcfg.in8.rep.512"
BACKGROUND = [("background", p) for p in ("e0", "m0", "m1", "report")]


def boot(answer, timeout, count=False):
    """answer: the (case, phase) points whose sync line gets its byte."""
    seen = []

    def on_sync(rec, qp):
        point = (rec.get("case"), rec.get("phase"))
        seen.append(point)
        if point in answer:
            qp.send(b"c" if count and point == (CASE, "m1") else b"s")

    with tempfile.TemporaryDirectory(prefix="tm-sync-") as tmp:
        cfg = qemu.RunConfig(repo_root=ROOT, accel="tcg",
                             words=["suite=pio", "case=" + CASE, "samples=3",
                                    "sync=on"])
        qemu.prepare_tmpdir(cfg, tmp)
        run = qemu.run_boot(qemu.build_argv(cfg, tmp), timeout,
                            os.path.join(tmp, "err"), on_sync=on_sync)
    return run, seen


def points(*phases):
    return [(CASE, p) for p in phases]


class SyncProtocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")

    def test_answered(self):
        run, seen = boot(BACKGROUND + points("e0", "m0", "m1"), 60)
        self.assertFalse(run.timed_out)
        self.assertTrue(run.dump.valid, run.dump.problems)
        self.assertEqual(seen, BACKGROUND + points("e0", "m0", "m1"))
        res = run.dump.results[0]
        self.assertEqual(res["sync"]["timeouts"], 0)
        self.assertGreater(res["sync"]["window_cycles"], 0)
        self.assertEqual(res["sync"]["count_ops"], 0)
        self.assertEqual(res["ops"], res["samples"] * res["iters"])
        self.assertEqual(run.dump.end_status, "ok")
        self.assertEqual(run.dump.other, [])      # sync lines are not data

    def test_count_window_on_request(self):
        run, seen = boot(BACKGROUND + points("e0", "m0", "m1", "c0", "c1"), 60,
                         count=True)
        self.assertEqual(seen, BACKGROUND + points("e0", "m0", "m1", "c0", "c1"))
        res = run.dump.results[0]
        self.assertEqual(res["sync"]["count_ops"], res["iters"])
        self.assertEqual(res["sync"]["timeouts"], 0)
        self.assertEqual(run.dump.checks[0]["ok"], True)   # data still right

    def test_unanswered_waits_are_bounded(self):
        # the case's e0 and m0 go unanswered: 2 x 5 s, then on
        run, seen = boot(BACKGROUND + points("m1"), 120)
        self.assertFalse(run.timed_out, "guest hung at a sync point")
        self.assertEqual(seen, BACKGROUND + points("e0", "m0", "m1"))
        self.assertEqual(run.dump.results[0]["sync"]["timeouts"], 2)
        self.assertEqual(run.dump.end_status, "ok")


if __name__ == "__main__":
    unittest.main()
