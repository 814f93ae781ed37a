"""tests/boot/test_sync.py - the guest's phase-sync protocol under TCG
(kernel word sync=on, kernel/phase_sync.h), driven by the runner's own QEMU
process class: every sync line is answered with one byte on COM1 ("c" at m1
asks for the untimed count window), or not answered at all, in which case
every wait must end by its TSC bound and the count be marked invalid, never
hang.  A sync line names no case (the case line before it does) and all of
them have one length; the boot's calibration (e0..e5) and background spin
(sp) come first, and their report is not answered."""
import json
import os
import tempfile
import unittest

from tests.boot.common import ROOT, need_build

import sys
sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.guest import qemu  # noqa: E402

CASE = "fwcfg.in8.rep.512"
BACKGROUND = [("background", p) for p in ("e0", "e1", "e2", "e3", "e4", "e5", "sp")]
REPORT = ("background", "report")


def boot(answer, timeout, count=False):
    """answer: the (case, phase) points whose sync line gets its byte."""
    seen, lines, named, case = [], set(), [], ["background"]

    def on_sync(rec, qp):
        if rec.get("type") == "case":
            case[0] = rec.get("case")
            return
        point = (rec.get("case", case[0]), rec.get("phase"))
        seen.append(point)
        if point != REPORT:
            lines.add(len(json.dumps(rec)))
            named.append(rec.get("case"))
        if point in answer:
            qp.send(b"c" if count and point == (CASE, "m1") else b"s")

    with tempfile.TemporaryDirectory(prefix="tm-sync-") as tmp:
        cfg = qemu.RunConfig(repo_root=ROOT, accel="tcg",
                             words=["suite=pio", "case=" + CASE, "samples=3",
                                    "sync=on"])
        qemu.prepare_tmpdir(cfg, tmp)
        run = qemu.run_boot(qemu.build_argv(cfg, tmp), timeout,
                            os.path.join(tmp, "err"), on_sync=on_sync)
    return run, seen, (lines, named)


def points(*phases):
    return [(CASE, p) for p in phases]


class SyncProtocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")

    def test_answered(self):
        run, seen, (lengths, named) = boot(BACKGROUND + points("m0", "m1"), 60)
        self.assertFalse(run.timed_out)
        self.assertTrue(run.dump.valid, run.dump.problems)
        self.assertEqual(seen, BACKGROUND + [REPORT] + points("m0", "m1"))
        self.assertEqual(len(lengths), 1, lengths)    # one length for all
        self.assertEqual(set(named), {None})          # none names its case
        res = run.dump.results[0]
        self.assertEqual(res["sync"]["timeouts"], 0)
        self.assertGreater(res["sync"]["window_cycles"], 0)
        self.assertEqual(res["sync"]["count_ops"], 0)
        # ops: the samples' ops, plus the batch probes (one op each,
        # kernel/bench.c plan_batch) when the batch came out longer than
        # one op; a sync point adds none
        extra = res["ops"] - res["samples"] * res["iters"]
        if res["iters"] == 1:
            self.assertEqual(extra, 0)
        else:
            self.assertIn(extra, (2, 3))
        self.assertEqual(run.dump.end_status, "ok")
        self.assertEqual(run.dump.other, [])      # sync lines are not data

    def test_count_window_on_request(self):
        run, seen, _ = boot(BACKGROUND + points("m0", "m1", "c0", "c1"), 60,
                            count=True)
        self.assertEqual(seen, BACKGROUND + [REPORT] + points("m0", "m1", "c0", "c1"))
        res = run.dump.results[0]
        self.assertEqual(res["sync"]["count_ops"], res["iters"])
        self.assertEqual(res["sync"]["timeouts"], 0)
        self.assertEqual(run.dump.checks[0]["ok"], True)   # data still right

    def test_unanswered_waits_are_bounded(self):
        # the case's m0 and c0 go unanswered: 2 x 5 s, then on
        run, seen, _ = boot(BACKGROUND + points("m1", "c1"), 120, count=True)
        self.assertFalse(run.timed_out, "guest hung at a sync point")
        self.assertEqual(seen, BACKGROUND + [REPORT] + points("m0", "m1", "c0", "c1"))
        self.assertEqual(run.dump.results[0]["sync"]["timeouts"], 2)
        self.assertEqual(run.dump.end_status, "ok")


if __name__ == "__main__":
    unittest.main()
