#!/usr/bin/env python3
"""tests/host/test_kut_lowest.py - a kut round's vmexit boots as one
(backends/kut_lowest.py): each case's lowest window, with that window's
waits and KVM's counts; skips, unreadable lines and lost boots.  No VM:
the logs are vmexit's lines as it prints them."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

import types  # noqa: E402

from trapmeterlib.backends import kut_log, kut_lowest  # noqa: E402
from trapmeterlib.commands import kut, kut_boots  # noqa: E402


def boot(text, waits=None, counted=None):
    """One vmexit boot as kut's Session keeps it."""
    return (kut_log.parse("vmexit", text), waits or {}, counted or {})


def row(exits):
    return {"iterations": 262080, "exits": exits}


class Lowest(unittest.TestCase):
    def test_each_case_takes_its_lowest_window_and_what_was_read_there(self):
        a = boot("cpuid 12100\ninl_from_kernel 15200\nwbinvd 9000\n",
                 {"cpuid": {"share": 0.0}, "inl_from_kernel": {"share": 0.2},
                  "wbinvd": {"share": 0.0}},
                 {"cases": {"cpuid": row(0.009), "inl_from_kernel": row(0.5),
                            "wbinvd": row(0.007)}})
        b = boot("cpuid 18000\ninl_from_kernel 9800\nwbinvd 9000\n",
                 {"cpuid": {"share": 0.3}, "inl_from_kernel": {"share": 0.0},
                  "wbinvd": {"share": 0.1}},
                 {"cases": {"cpuid": row(0.2), "inl_from_kernel": row(0.008),
                            "wbinvd": row(0.3)}})
        log, waits, counted, chosen = kut_lowest.lowest([a, b])
        self.assertEqual([(f[0], f[2]) for f in log.figures],
                         [("cpuid", 12100), ("inl_from_kernel", 9800),
                          ("wbinvd", 9000)])
        # a tie keeps the earlier boot
        self.assertEqual(chosen, {"cpuid": 0, "inl_from_kernel": 1,
                                  "wbinvd": 0})
        self.assertEqual(waits, {"cpuid": {"share": 0.0},
                                 "inl_from_kernel": {"share": 0.0},
                                 "wbinvd": {"share": 0.0}})
        self.assertEqual({c: r["exits"] for c, r in counted["cases"].items()},
                         {"cpuid": 0.009, "inl_from_kernel": 0.008,
                          "wbinvd": 0.007})
        self.assertEqual(kut_lowest.figures([a, b]), [
            {"cpuid": 12100, "inl_from_kernel": 15200, "wbinvd": 9000},
            {"cpuid": 18000, "inl_from_kernel": 9800, "wbinvd": 9000}])

    def test_a_printed_count_and_a_lost_reading_follow_the_chosen_boot(self):
        a = boot("1self_ipi_tpr 640000\ncpuid 12000\n",
                 counted={"cases": {"self_ipi_tpr": row(2.02)},
                          "last_uncounted": "cpuid"})
        b = boot("111self_ipi_tpr 650000\ncpuid 13000\n",
                 counted={"cases": {"self_ipi_tpr": row(2.03),
                                    "cpuid": row(0.009)}})
        log, _waits, counted, _chosen = kut_lowest.lowest([a, b])
        self.assertEqual(log.odd, {"self_ipi_tpr": 1})
        self.assertEqual(counted["last_uncounted"], "cpuid")
        self.assertNotIn("cpuid", counted["cases"])

    def test_a_skip_stands_only_where_no_boot_printed_a_figure(self):
        a = boot("cpuid 12000\nwr_ibrs_msr (skipped)\ninvd (skipped)\n")
        b = boot("cpuid 12500\nwr_ibrs_msr (skipped)\ninvd 9000\n")
        log = kut_lowest.lowest([a, b])[0]
        self.assertEqual(log.skipped, ["wr_ibrs_msr"])
        self.assertEqual(log.cases, ["cpuid", "invd"])

    def test_a_boot_whose_log_did_not_parse_gives_nothing(self):
        a = (None, {}, {"cases": {}, "error": "QMP: connection refused"})
        b = boot("cpuid 12500\ninvd -5\n")
        log, _waits, counted, chosen = kut_lowest.lowest([a, b])
        self.assertEqual(chosen, {"cpuid": 1})
        self.assertEqual(len(log.bad), 1)
        self.assertTrue(log.bad[0].startswith("boot 2: line 2: invd -5"),
                        log.bad)
        self.assertEqual(counted["error"], "QMP: connection refused")
        self.assertEqual(kut_lowest.lowest([a])[0], None)
        self.assertEqual(kut_lowest.figures([a, b]),
                         [{}, {"cpuid": 12500}])


class Rounds(unittest.TestCase):
    """kut's Session: where each round's vmexit boots go, and that the
    round keeps their lowest windows."""

    def session(self, n):
        args = types.SimpleNamespace(vmexit_boots=n, boots=5)
        s = kut.Session(args, ["cpuid"], 900.0, "vmexit.flat")
        s.groups, s.order = [1], []
        figures = iter(range(20000, 0, -1000))

        def vm(rnd, smp, index=0):
            s.order.append("vm%d" % index)
            return boot("cpuid %d\n" % next(figures))

        def tm(rnd, smp):
            s.order.append("tm")
            return {"results": []}
        s.vmexit_boot, s.trapmeter_boot = vm, tm
        return s

    def test_vmexit_boots_lie_on_either_side_of_trapmeters(self):
        s = self.session(2)
        for rnd in range(3):
            s.round(rnd)
        # the first round's trapmeter boot first: vmexit copies its machine
        self.assertEqual(s.order, ["tm", "vm0", "vm1", "vm0", "tm", "vm1",
                                   "vm0", "tm", "vm1"])
        self.assertEqual([p[3].figures[0][2] for p in s.pairs],
                         [19000, 17000, 15000])
        self.assertEqual(s.windows[0], {"round": 0, "smp": 1, "boots": [
            {"cpuid": 20000}, {"cpuid": 19000}]})

    def test_one_vmexit_boot_alternates_the_order(self):
        s = self.session(1)
        for rnd in range(3):
            s.round(rnd)
        self.assertEqual(s.order, ["tm", "vm0", "vm0", "tm", "tm", "vm0"])

    def test_a_saved_session_says_how_many_boots_its_rounds_took(self):
        # `kut --from`: the file is input; a malformed record counts as
        # one boot a round, never a traceback
        two = {"vmexit_boots": [{"round": 0, "smp": 1,
                                 "boots": [{"cpuid": 1}, {"cpuid": 2}]}]}
        self.assertEqual(kut_boots.vmexit_boots(two), 2)
        for bad in ({}, {"vmexit_boots": 7}, {"vmexit_boots": [3, "x"]},
                    {"vmexit_boots": [{"boots": 5}]}):
            self.assertEqual(kut_boots.vmexit_boots(bad), 1, bad)

    def test_a_saved_session_says_which_session_it_was(self):
        # `kut --from` of NAME-again2.json: its table says session 3; a
        # malformed "look" reads as the first, never a traceback
        self.assertEqual(kut_boots.saved_look({"look": 3}), 3)
        for bad in ({}, {"look": "3"}, {"look": 0}, {"look": 99},
                    {"look": True}, {"look": 2.5}, {"look": None}):
            self.assertEqual(kut_boots.saved_look(bad), 1, bad)

    def test_a_saved_session_says_the_rounds_of_the_ones_before(self):
        # its union bound sums each session's rate at its own rounds; a
        # list that is not one count of 1..30 per session up to this one
        # reads as none said (each then as this session's own)
        info = {"look": 3, "looks_rounds": [5, 5, 8]}
        self.assertEqual(kut_boots.saved_rounds(info), [5, 5, 8])
        for bad in ([5, 5], [5, 5, "8"], [5, 5, 0], [5, 5, 31], "5,5,8",
                    [5, True, 8], None):
            self.assertIsNone(kut_boots.saved_rounds(dict(info, looks_rounds=bad)),
                              bad)


if __name__ == "__main__":
    unittest.main()
