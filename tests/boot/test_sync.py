"""tests/boot/test_sync.py - the guest's phase-sync protocol under TCG
(kernel word sync=on, kernel/phase_sync.c), driven by the runner's own QEMU
process class: every sync line is answered with one byte on COM1, or not
answered at all, in which case every wait must end by its TSC bound and the
count be marked invalid, never hang."""
import os
import tempfile
import unittest

from tests.boot.common import ROOT, need_build

import sys
sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib import qemu  # noqa: E402

CASE = "fwcfg.in8.rep.512"


def boot(answer, timeout):
    """answer: the phases whose sync line gets its byte."""
    seen = []

    def on_sync(rec, qp):
        seen.append((rec.get("case"), rec.get("phase")))
        if rec.get("phase") in answer:
            qp.send(b"s")

    with tempfile.TemporaryDirectory(prefix="tm-sync-") as tmp:
        cfg = qemu.RunConfig(repo_root=ROOT, accel="tcg",
                             words=["suite=pio", "case=" + CASE, "samples=3",
                                    "sync=on"])
        qemu.prepare_tmpdir(cfg, tmp)
        run = qemu.run_boot(qemu.build_argv(cfg, tmp), timeout,
                            os.path.join(tmp, "err"), on_sync=on_sync)
    return run, seen


class SyncProtocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")

    def test_answered(self):
        run, seen = boot(("m0", "m1", "i0", "i1"), 60)
        self.assertFalse(run.timed_out)
        self.assertTrue(run.dump.valid, run.dump.problems)
        self.assertEqual(seen, [(CASE, p) for p in ("m0", "m1", "i0", "i1")])
        res = run.dump.results[0]
        self.assertEqual(res["sync"]["timeouts"], 0)
        self.assertGreater(res["sync"]["idle_cycles"], 0)
        self.assertEqual(res["ops"], res["samples"] * res["iters"])
        self.assertEqual(run.dump.end_status, "ok")
        self.assertEqual(run.dump.other, [])      # sync lines are not data

    def test_unanswered_waits_are_bounded(self):
        # the idle phase's two points go unanswered: 2 x 5 s, then on
        run, seen = boot(("m0", "m1"), 120)
        self.assertFalse(run.timed_out, "guest hung at a sync point")
        self.assertEqual(len(seen), 4)
        self.assertEqual(run.dump.results[0]["sync"]["timeouts"], 2)
        self.assertEqual(run.dump.end_status, "ok")


if __name__ == "__main__":
    unittest.main()
