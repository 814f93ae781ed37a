#!/usr/bin/env python3
"""tests/host/test_kut_counted.py - what KVM counted in each vmexit case
(backends/kut_counted.py): its vCPU counters read at each line vmexit
prints, per iteration of all the case's loops; the reader that stops at
its first failure; the lines a child prints, each with its reading
(kut_vmexit.LineSampler); and kut's table of them (output/kut_table.py).
No VM: readings are made up the way vmexit's do_test makes its loops."""
import os
import random
import subprocess
import sys
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

from trapmeterlib.backends import kut_counted, kut_vmexit  # noqa: E402
from trapmeterlib.counters import qmp  # noqa: E402
from trapmeterlib.output import kut_table  # noqa: E402
from trapmeterlib.stats import kutsession  # noqa: E402


KHZ = 2.6e6


def do_test(cost, last=None):
    """(printed mean, iterations of all loops, cycles of all loops) of
    x86/vmexit.c's do_test for an op of `cost` cycles (`last` from the
    loop that would reach GOAL at `cost`): 64, 128, ... until a loop
    spans GOAL."""
    n, total, cycles, goal = 32, 0, 0, kut_vmexit.GOAL_CYCLES
    while True:
        n *= 2
        total += n
        op = cost if cost * n < goal else last or cost
        cycles += op * n
        if int(op * n) >= goal:
            return int(op * n) // n, total, cycles


def session(cases):
    """LineSampler.counted of a boot running cases [(name, cost, {counter:
    per iteration}[, cost of the last loop])] in turn: a reading at each
    line, the counters grown by each case's loops, the time by their
    cycles at KHZ."""
    now, elapsed = {k: 1000 for k in kut_counted.COUNTERS}, 1.0
    out = [(elapsed, "paging enabled", dict(now))]
    for name, cost, rates, *last in cases:
        mean, total, cycles = do_test(cost, *last)
        for key, rate in rates.items():
            now[key] += round(rate * total)
        elapsed += cycles / (KHZ * 1e3)
        out.append((elapsed, "%s %d" % (name, mean), dict(now)))
    return out


class Iterations(unittest.TestCase):
    def test_all_iterations_sum_the_doublings(self):
        rng = random.Random(34)
        for _ in range(2000):
            mean, total, _ = do_test(rng.uniform(5.0, 4e7))
            self.assertEqual(kut_vmexit.all_iterations(mean), total)
        self.assertIsNone(kut_vmexit.all_iterations(0))
        self.assertIsNone(kut_vmexit.all_iterations(None))

    def test_the_window_settles_a_cost_that_straddles_a_doubling(self):
        """pci-io here: 32.5 k cycles an op in the loop of 32768 (under
        GOAL), 34.5 k in the one of 65536, which prints a mean that 32768
        iterations would already reach."""
        mean, total, cycles = do_test(32500.0, 34500.0)
        self.assertEqual(total, 2 * 65536 - 64)
        self.assertEqual(kut_vmexit.all_iterations(mean), 65536 - 64)
        window = cycles / (KHZ * 1e3) + 0.002       # the line's lag
        self.assertEqual(kut_vmexit.all_iterations(mean, window, KHZ), total)
        # the span whose vCPU wait kut reads (kut_vmexit._span) as well
        self.assertEqual(kut_vmexit.last_loop(mean, KHZ)[0], 32768)
        self.assertEqual(kut_vmexit.last_loop(mean, KHZ, window)[0], 65536)
        rng = random.Random(35)
        for _ in range(500):
            cost = rng.uniform(5.0, 4e7)
            mean, total, cycles = do_test(cost, cost * rng.uniform(0.6, 1.3))
            self.assertEqual(kut_vmexit.all_iterations(
                mean, cycles / (KHZ * 1e3), KHZ), total, cost)


class PerIteration(unittest.TestCase):
    def test_a_window_is_the_change_over_its_iterations(self):
        got = kut_counted.per_iteration(session([
            ("cpuid", 10206.0, {"exits": 1, "insn_emulation": 7}),
            ("inl_from_kernel", 8262.0, {"exits": 1, "io_exits": 1}),
            ("tscdeadline_immed", 23274.0, {"irq_injections": 0.023})]))
        self.assertEqual(got["cpuid"]["exits"], 1.0)
        self.assertEqual(got["cpuid"]["insn_emulation"], 7.0)
        self.assertEqual(got["cpuid"]["io_exits"], 0.0)
        self.assertEqual(got["inl_from_kernel"]["io_exits"], 1.0)
        self.assertAlmostEqual(got["tscdeadline_immed"]["irq_injections"],
                               0.023, places=5)
        self.assertEqual(got["cpuid"]["iterations"], do_test(10206.0)[1])

    def test_a_small_rate_keeps_its_precision(self):
        """x2apic_self_ipi_sti_nop's interrupts, about 0.0065 an iteration:
        kept to six significant digits (three places had stored 0.006 or
        0.007, 8 % off, for the counted interrupts model to multiply)."""
        counted = session([("cpuid", 10206.0, {"exits": 1}),
                           ("x2apic_self_ipi_sti_nop", 38000.0,
                            {"irq_injections": 0.0064})])
        row = kut_counted.per_iteration(counted)["x2apic_self_ipi_sti_nop"]
        total = do_test(38000.0)[1]
        self.assertAlmostEqual(row["irq_injections"],
                               round(0.0064 * total) / total, places=8)

    def test_a_straddling_case_is_counted_over_all_its_loops(self):
        counted = session([("cpuid", 10206.0, {"exits": 1}),
                           ("pci-io", 32500.0, {"exits": 1}, 34500.0)])
        self.assertAlmostEqual(kut_counted.per_iteration(counted)["pci-io"][
            "exits"], 2.001, places=3)
        got = kut_counted.per_iteration(counted, KHZ)
        self.assertEqual(got["pci-io"]["exits"], 1.0)

    def test_a_window_without_a_reading_at_either_end_has_none(self):
        counted = session([("cpuid", 10206.0, {"exits": 1}),
                           ("wbinvd", 7000.0, {"exits": 1}),
                           ("invd", 6914.0, {"exits": 1})])
        counted[1] = counted[1][:2] + (None,)
        got = kut_counted.per_iteration(counted)
        self.assertEqual(sorted(got), ["invd"])

    def test_a_counter_that_went_down_is_left_out(self):
        counted = session([("cpuid", 10206.0, {"exits": 1}),
                           ("wbinvd", 7000.0, {"exits": 1})])
        counted[2][2]["exits"] = 5
        got = kut_counted.per_iteration(counted)
        self.assertNotIn("exits", got["wbinvd"])
        self.assertIn("insn_emulation", got["wbinvd"])

    def test_sub_lines_and_garbage_open_windows_but_close_none(self):
        counted = session([("tscdeadline_immed", 23274.0, {"exits": 1})])
        counted.insert(1, (1.0, "cpuid -5", dict(counted[0][2])))
        counted.append((9.0, "  eoi tscdeadline_immed 654", counted[-1][2]))
        counted.append((9.1, "\x00garbage 12", counted[-1][2]))
        got = kut_counted.per_iteration(counted)
        self.assertEqual(sorted(got), ["tscdeadline_immed"])


class PerBoot(unittest.TestCase):
    def test_a_failure_is_said_where_it_cost_a_figure_its_reading(self):
        """But the boot's last figure: QEMU ends with vmexit's last line,
        often before its reading; that case is named, not as a failure."""
        counted = session([("cpuid", 10206.0, {"exits": 1}),
                           ("wbinvd", 7000.0, {"exits": 1})])
        ended = counted + [(9.0, "SUMMARY: 2 tests", None)]
        got = kut_counted.per_boot(ended, "QMP connection closed by QEMU")
        self.assertEqual(sorted(got), ["cases"])
        self.assertEqual(sorted(got["cases"]), ["cpuid", "wbinvd"])
        counted[2] = counted[2][:2] + (None,)
        got = kut_counted.per_boot(counted, "QMP read failed: x")
        self.assertEqual(got["last_uncounted"], "wbinvd")
        self.assertNotIn("error", got)
        self.assertEqual(sorted(got["cases"]), ["cpuid"])
        counted[1] = counted[1][:2] + (None,)
        got = kut_counted.per_boot(counted, "QMP read failed: x")
        self.assertEqual(got["error"], "QMP read failed: x")
        self.assertEqual(got["cases"], {})


class Reader(unittest.TestCase):
    def test_the_first_failure_ends_the_reading_and_is_kept(self):
        reader = kut_counted.StatsReader("nowhere.sock", lambda: True)
        conn = mock.Mock()
        conn.vcpu_stats.side_effect = [{"exits": 3},
                                       qmp.QmpError("QMP read failed: x")]
        with mock.patch.object(qmp, "Qmp", return_value=conn) as made:
            self.assertEqual(reader(), {"exits": 3})
            self.assertIsNone(reader())
            self.assertIsNone(reader())
        self.assertEqual(made.call_count, 1)
        self.assertEqual(conn.vcpu_stats.call_count, 2)
        self.assertIn("QMP read failed", reader.error)
        conn.vcpu_stats.assert_called_with(names=kut_counted.COUNTERS)

    def test_a_kvm_without_the_counters_is_said_once(self):
        reader = kut_counted.StatsReader("nowhere.sock", lambda: True)
        conn = mock.Mock()
        conn.vcpu_stats.return_value = {}
        with mock.patch.object(qmp, "Qmp", return_value=conn):
            self.assertIsNone(reader())
            self.assertIsNone(reader())
        self.assertEqual(conn.vcpu_stats.call_count, 1)
        self.assertIn("query-stats gave none", reader.error)

    def test_qemu_gets_a_socket_that_does_not_wait(self):
        self.assertEqual(kut_counted.qemu_args("d/qmp.sock"),
                         ["-qmp", "unix:d/qmp.sock,server=on,wait=off"])


class Sampler(unittest.TestCase):
    def test_each_line_gets_its_reading_in_order(self):
        proc = subprocess.Popen(
            [sys.executable, "-c", "for i in range(5): print('cpuid', i)"],
            stdout=subprocess.PIPE)
        calls = iter(range(100))
        sampler = kut_vmexit.LineSampler(proc, on_line=lambda: next(calls))
        proc.wait(timeout=30)
        sampler.join()
        proc.stdout.close()
        self.assertEqual([(line.strip(), n) for _t, line, n in
                          sampler.counted],
                         [("cpuid %d" % i, i) for i in range(5)])

    # a child that prints a line, then starts two spinning threads (a
    # -smp 2 vmexit's vCPUs, busy only after its first lines), sleeps and
    # prints another
    TWO_VCPUS = ("import threading, time\n"
                 "def spin():\n"
                 "    while True:\n"
                 "        pass\n"
                 "print('cpuid 1', flush=True)\n"
                 "spinners = [threading.Thread(target=spin, daemon=True)\n"
                 "            for _ in range(2)]\n"
                 "for t in spinners:\n"
                 "    t.start()\n"
                 "print('ids', *[t.native_id for t in spinners], flush=True)\n"
                 "time.sleep(0.6)\n"
                 "print('cpuid 2', flush=True)\n")

    def test_ticks_read_every_vcpu_thread(self):
        # span_waits sums the two busiest threads' waits, and a tick that
        # lacks one of them is of no use to it: every tick between the
        # lines holds both, though at the first line neither had run, from
        # the first tick that read every thread after they began; the
        # others read no more than those two
        proc = subprocess.Popen([sys.executable, "-c", self.TWO_VCPUS],
                                stdout=subprocess.PIPE)
        sampler = kut_vmexit.LineSampler(proc, tick_s=0.02, vcpus=2)
        proc.wait(timeout=30)
        sampler.join()
        proc.stdout.close()
        ids = next(line.split()[1:] for _t, line, _tt in sampler.samples
                   if line.startswith("ids"))
        repick = 0.02 * kut_vmexit.REPICK_TICKS
        between = [times for when, times in sampler.ticks if
                   sampler.samples[1][0] + repick < when < sampler.samples[2][0]]
        self.assertGreater(len(between), 5)
        for times in between:
            self.assertLessEqual(set(ids), set(times), times)
        self.assertLess(sum(len(times) > 2 for times in between),
                        len(between) / 2, between)


class Table(unittest.TestCase):
    COUNTED = [{"round": 0, "smp": 1, "cases": {
                "cpuid": {"iterations": 8, "exits": 1.0},
                "pci-mem.mmio-no-eventfd": {"iterations": 8,
                                            "mmio_exits": 1.0},
                "pci-mem.mmio-wildcard-eventfd": {"iterations": 8,
                                                  "mmio_exits": 0.0}}},
               {"round": 1, "smp": 1, "cases": {
                "cpuid": {"iterations": 8, "exits": 1.25}}},
               {"round": 2, "smp": 1, "cases": {},
                "error": "QMP read failed: x"},
               {"round": 2, "smp": 2, "cases": {},
                "last_uncounted": "ple_round_robin"}]

    def test_rows_take_each_rounds_figure_by_vmexit_name(self):
        rows = kut_table.counted_rows(self.COUNTED, ["cpuid", "pci-mem"])
        self.assertEqual(rows, {"cpuid": {"exits": [1.0, 1.25]},
                                "pci-mem": {"mmio_exits": [1.0]}})

    def test_a_files_odd_entries_are_passed_over(self):
        # a results file's kut section is read as untrusted input
        odd = self.COUNTED + ["junk", {"cases": "x"}, {"round": [1],
                                                        "cases": {}},
                              {"cases": {"cpuid": "x", "wbinvd": {
                                  "exits": "many"}}, "error": ["a"]}]
        text = kut_table.render_counted(odd, ["cpuid", "pci-mem", "wbinvd"])
        self.assertRegex(text, r"cpuid +1\.12 \(1-1\.25\)")
        self.assertIn("not read in 1 boot(s): ['a']", text)
        self.assertEqual(kut_table.render_counted({"a": 1}, ["cpuid"]), "")
        boots = kut_counted.attach([{}, {}], [0, 1], odd)
        self.assertEqual(boots[0]["vmexit_counted"]["cpuid"]["exits"], 1.0)
        self.assertEqual(kut_counted.attach([{}], [0], "junk"),
                         [{"vmexit_counted": {}}])

    def test_the_table_says_median_range_and_why_a_boot_read_none(self):
        text = kut_table.render_counted(self.COUNTED, ["cpuid", "pci-mem"])
        self.assertIn("measured", text)
        self.assertRegex(text, r"cpuid +1\.12 \(1-1\.25\)")
        self.assertIn("not read in 1 boot(s): QMP read failed: x", text)
        self.assertIn("not counted: the last case of 1 boot(s) "
                      "(ple_round_robin)", text)
        self.assertEqual(kut_table.render_counted([], ["cpuid"]), "")
        self.assertEqual(kut_table.render_counted(None, ["cpuid"]), "")


class InTheRows(unittest.TestCase):
    """Each round's counts reach stats/kutcmp.py's rounds, and a row's
    note says them with trapmeter's own interrupt count."""

    SAVED = [{"round": 1, "smp": 1, "cases": {
        "tscdeadline_immed": {"iterations": 8, "exits": 0.02,
                              "insn_emulation": 23.0,
                              "irq_injections": 0.02, "io_exits": 0.0},
        "pci-io.portio-wildcard-eventfd": {"iterations": 8, "exits": 0.0},
        "pci-io.portio-no-eventfd": {"iterations": 8, "exits": 1.0},
        "nop": {"iterations": 8, "exits": 1.0}}},
        {"round": 0, "smp": 1, "cases": {
            "tscdeadline_immed": {"iterations": 8, "exits": 0.03,
                                  "insn_emulation": 23.0,
                                  "irq_injections": 0.03}}},
        {"round": 7, "smp": 1, "cases": {"cpuid": {"exits": 1.0}}}]

    def rounds(self):
        boots = [{"cases": {"tscdeadline.immed.insn": {"irq_rate": r}}}
                 for r in (0.038, 0.036)]
        return kut_counted.attach(boots, [0, 1], self.SAVED)

    def test_each_round_gets_its_own_counts_by_vmexit_name(self):
        boots = self.rounds()
        self.assertEqual(boots[0]["vmexit_counted"]["tscdeadline_immed"][
            "exits"], 0.03)
        self.assertEqual(sorted(boots[1]["vmexit_counted"]),
                         ["pci-io", "tscdeadline_immed"])
        self.assertEqual(boots[1]["vmexit_counted"]["pci-io"]["exits"], 1.0)

    def test_a_rows_note_says_both_tools_counts(self):
        got = kutsession.text(self.rounds(), "tscdeadline_immed")
        self.assertIn("(QMP, 2 boot(s))", got)
        self.assertIn("interrupts 0.025 (0.02-0.03)", got)
        self.assertIn("emulated instructions 23,", got)
        self.assertNotIn("port exits", got)        # zero in every round
        self.assertIn("trapmeter's tscdeadline.immed.insn took interrupts "
                      "3.7 % (3.6-3.8 %) as many as its ops (its own count "
                      "since its set-up, those after each timed batch "
                      "included", got)
        self.assertIsNone(kutsession.text(self.rounds(), "wbinvd"))

    def test_every_note_ends_with_the_rows_counts(self):
        from trapmeterlib.stats import kutcmp
        boots = self.rounds()
        for boot in boots:
            boot.update(vmexit={}, trapmeter={}, vmexit_wait={},
                        vmexit_span={})
        row = kutcmp.diff_row(boots, "tscdeadline_immed")
        self.assertEqual(row["counted"], kutsession.text(
            boots, "tscdeadline_immed"))
        text = kut_table.render_side_by_side([], [row], {}, {}, "kvm")
        self.assertRegex(text, r"tscdeadline_immed: not resolved: .*; "
                         r"this session: KVM counted")

    def test_a_twin_row_carries_its_interrupt_rate(self):
        from trapmeterlib.commands import kut_boots
        row = kut_boots.twin_row({"case": "tscdeadline.immed.insn",
                            "interrupts": 38, "ops": 1000})
        self.assertEqual(row["irq_rate"], 0.038)
        self.assertIsNone(kut_boots.twin_row({"case": "x", "ops": 10})["irq_rate"])

    def test_a_twin_row_carries_its_batches_split_by_interrupts(self):
        from trapmeterlib.commands import kut_boots
        res = {"case": "self_ipi.x2apic.tpr.insn", "iters": 25,
               "irq_batches": [300, 40], "irq_op_cycles_none": 110000,
               "irq_op_cycles_some": 118000, "irq_in_batches": 42,
               "irq_ctl_op_cycles": 27000}
        split = kut_boots.twin_row(res)["irq_split"]
        self.assertEqual(split, {"batches": [300, 40], "op": [110000, 118000],
                                 "taken": 42, "ctl": 27000, "iters": 25,
                                 "median": None})
        self.assertAlmostEqual(kutsession.in_batch_rate(split), 42 / 8500)
        # as the first kernels wrote it (the null's x10 and y12): a list,
        # 0 where no batch of that kind ran
        old = {k: v for k, v in res.items() if not k.startswith("irq_op")}
        self.assertEqual(kut_boots.twin_row(dict(old, irq_op_cycles=[
            110000, 118000]))["irq_split"], split)
        self.assertEqual(kut_boots.twin_row(dict(old, irq_batches=[340, 0],
                                           irq_op_cycles=[110000, 0]))[
            "irq_split"]["op"], [110000, None])
        # no batch of a kind: its mean is null, not a zero
        none = dict(res, irq_batches=[340, 0], irq_op_cycles_some=None,
                    irq_in_batches=0)
        self.assertEqual(kut_boots.twin_row(none)["irq_split"]["op"], [110000, None])
        # guest output is untrusted: anything but what the kernel writes
        for key, bad in (("irq_batches", [300]), ("irq_batches", "300,40"),
                         ("irq_op_cycles_some", -1), ("irq_op_cycles_some", 0.5),
                         ("irq_op_cycles_none", None),
                         ("irq_in_batches", True), ("iters", 0),
                         ("irq_ctl_op_cycles", 2.5)):
            self.assertIsNone(kut_boots.twin_row(dict(res, **{key: bad}))[
                "irq_split"], key)
        self.assertIsNone(kut_boots.twin_row({"case": "x"})["irq_split"])

    def test_a_split_carries_the_median_of_the_batches_that_took_none(self):
        # beside the control's median (a kernel from irq_op_median_none on)
        from trapmeterlib.commands import kut_boots
        res = {"case": "self_ipi.x2apic.tpr.insn", "iters": 25,
               "irq_batches": [300, 40], "irq_op_cycles_none": 110000,
               "irq_op_cycles_some": 118000, "irq_in_batches": 42,
               "irq_ctl_op_cycles": 27000, "irq_op_median_none": 108000,
               "cycles_control": {"median": 26500}}
        self.assertEqual(kut_boots.twin_row(res)["irq_split"]["median"],
                         [108000, 26500])
        # no batch took none: null, and no median; no control: no median
        none = dict(res, irq_batches=[0, 340], irq_op_cycles_none=None,
                    irq_op_median_none=None)
        self.assertIsNone(kut_boots.twin_row(none)["irq_split"]["median"])
        self.assertIsNone(kut_boots.twin_row(dict(res, cycles_control=None))[
            "irq_split"]["median"])
        # guest output is untrusted: a median that is not a count, or one
        # where no batch took none, or none where some did
        for bad in (dict(res, irq_op_median_none=-1),
                    dict(res, irq_op_median_none=2.5),
                    dict(res, irq_op_median_none=None),
                    dict(none, irq_op_median_none=5)):
            self.assertIsNone(kut_boots.twin_row(bad)["irq_split"], bad)

    def test_a_split_twin_says_its_rate_inside_the_batches(self):
        split = {"batches": [30, 10], "op": [100, 110], "taken": 10,
                 "ctl": 40, "iters": 25}
        boots = [{"cases": {"self_ipi.x2apic.tpr.insn": {
            "irq_rate": 0.05, "irq_split": split}}}]
        got = kutsession.twin_irq_text(boots, "x2apic_self_ipi_tpr")
        self.assertEqual(got, "trapmeter's self_ipi.x2apic.tpr.insn took "
                         "0.01 interrupts an op inside its timed batches "
                         "(those each batch left pending taken after it, "
                         "untimed, 1 boot(s))")


if __name__ == "__main__":
    unittest.main()
