"""tests/boot/test_irq.py - suite exits' interrupt cases
(kernel/suites/irq.c): under TCG each case takes exactly one interrupt per
operation (its check), skips are named from CPUID, and the ipi case brings
up the second vCPU the runner adds for it; under KVM the same checks hold
and the exit counts are measured.  No absolute cycle counts."""
import unittest

from tests.boot.common import need_build, need_kvm, run

FAST = "samples=3 budget_ms=30"
IRQ_CASES = "hlt.timer,tscdeadline*,self_ipi*,eoi*,ipi*"


def checks(b):
    return {c["name"]: c for c in b.boot["checks"]}


AP_CASES = ("ipi", "ipi.halt", "ipi.on_cpu", "ipi.halt.on_cpu")


def ap_mode(b):
    """(apic_mode, exits_model) the AP's cases must report: x2APIC with
    one ICR WRMSR where the CPU has it (eoi.x2apic ran), as vmexit's ipi
    runs; else xAPIC, ICR high + low."""
    ran = {r["case"] for r in b.boot["results"]}
    return ("x2apic", 3) if "eoi.x2apic" in ran else ("xapic", 4)


def assert_ap_mode(tc, b):
    for case in AP_CASES:
        r = b.result(case)
        tc.assertEqual((r["apic_mode"], r["exits_model"]), ap_mode(b), r)


class IrqTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "tcg", "--suite", "exits", "--case", IRQ_CASES,
                    "--cmdline", FAST)

    def test_status_and_one_interrupt_per_op(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        c = checks(self.b)
        for case in ("hlt.timer", "self_ipi.xapic", "self_ipi.xapic.sti_nop",
                     "eoi.xapic", "ipi"):
            self.assertTrue(c["exits.irq." + case]["ok"], c.get("exits.irq." + case))
        r = self.b.result("ipi")
        self.assertGreater(r["interrupts"], 0, r)
        self.assertIsNone(r["kut_name"])   # vmexit's ipi is ipi.on_cpu's

    def test_on_cpu_round_trip_counts_completions_and_has_a_control(self):
        """vmexit's ipi and ipi_halt: on_cpu's round trip, each call
        completed by the AP (the guest's check), net of the same round trip
        run on the BSP alone."""
        c = checks(self.b)
        for case, kut in (("ipi.on_cpu", "ipi"), ("ipi.halt.on_cpu", "ipi_halt")):
            r = self.b.result(case)
            self.assertEqual(r["kut_name"], kut, r)
            self.assertTrue(c["exits.irq." + case]["ok"], c.get("exits.irq." + case))
            self.assertGreater(r["interrupts"], 0, r)
            self.assertEqual(r["wait_timeouts"], 0, r)
            self.assertIn("median", r["cycles_control"], r)
            # interleaved, a control batch kept the AP halted past KVM's
            # halt-poll window: its samples follow the case's
            self.assertEqual(r.get("control_order"), "after", r)
        self.assertIsNone(self.b.result("eoi.xapic").get("control_order"))

    def test_ap_cases_in_xapic_mode_without_x2apic(self):
        """TCG here has no x2APIC: both CPUs stay xAPIC."""
        assert_ap_mode(self, self.b)

    def test_vmexit_shapes_check_tpr_and_interrupts(self):
        c = checks(self.b)
        for case, kut in (("self_ipi.xapic.sti_hlt", "self_ipi_sti_hlt"),
                          ("self_ipi.xapic.sti_nop.nowait", "self_ipi_sti_nop"),
                          ("self_ipi.xapic.tpr.nowait", "self_ipi_tpr"),
                          ("self_ipi.xapic.tpr.sti_nop.nowait", "self_ipi_tpr_sti_nop"),
                          ("self_ipi.xapic.tpr.sti_hlt", "self_ipi_tpr_sti_hlt"),
                          ("ipi.halt.on_cpu", "ipi_halt")):
            r = self.b.result(case)
            self.assertEqual(r["kut_name"], kut)
            # the guest's check compares interrupts with its own op count
            self.assertTrue(c["exits.irq." + case]["ok"], c.get("exits.irq." + case))
            self.assertGreater(r["interrupts"], 0, r)
            if ".tpr" in case:
                self.assertEqual((r["tpr_early"], r["tpr_after"]), (0, 0), r)
        self.assertEqual(self.b.result("self_ipi.xapic.tpr.sti_hlt")["exits_model"], 4)
        # the waiting shapes are trapmeter's own, their no-wait twins vmexit's
        for case in ("self_ipi.xapic.sti_nop", "self_ipi.xapic.tpr",
                     "self_ipi.xapic.tpr.sti_nop"):
            self.assertIsNone(self.b.result(case)["kut_name"], case)

    def test_no_wait_twins_take_one_interrupt_a_write_here(self):
        """vmexit's shapes as it runs them do not wait: each write's
        interrupt is counted, at most one a write; TCG takes every one
        where vmexit expects it (the window, the nop)."""
        for case in ("self_ipi.xapic.sti_nop.nowait", "self_ipi.xapic.tpr.nowait",
                     "self_ipi.xapic.tpr.sti_nop.nowait"):
            r = self.b.result(case)
            self.assertGreater(r["writes"], 0, r)
            self.assertEqual(r["interrupts"], r["writes"], r)

    def test_self_ipi_shapes_probe_where_the_interrupt_lands(self):
        """Each self-IPI shape's probe reports how many of its 16 self-IPIs
        arrived where the op takes them; TCG takes every one there, so
        every shape of this CPU runs and the sti_hlt ones under a silent
        watchdog."""
        for r in self.b.boot["results"]:
            if not r["case"].startswith("self_ipi.xapic."):
                continue
            self.assertEqual((r["probe_tries"], r["probe_at_window"]), (16, 16), r)
            if "sti_hlt" in r["case"]:
                self.assertEqual((r["watchdog_shots"], r["wait_timeouts"]), (0, 0), r)
        self.assertNotIn("probe_tries", self.b.result("self_ipi.xapic"))

    def test_a_self_ipi_that_never_comes_skips_its_shape_by_name(self):
        """Test hook fault=selfipi: the probes send nothing, so every
        shape's probe runs out - the sti_hlt shapes' hlt ends at the PIT
        watchdog's shot - and each shape skips with what was measured; the
        boot ends, its plain case unaffected."""
        b = run("--accel", "tcg", "--suite", "exits", "--case", "self_ipi.xapic*",
                "--cmdline", FAST + " fault=selfipi", "--timeout", "120", timeout=180)
        self.assertEqual(b.status, 0, b.describe())
        skips = {s["case"]: s["reason"] for s in b.boot["skips"]}
        shapes = ("sti_nop", "sti_hlt", "tpr", "tpr.sti_nop", "tpr.sti_hlt",
                  "sti_nop.nowait", "tpr.nowait", "tpr.sti_nop.nowait")
        for shape in shapes:
            self.assertIn("did not arrive within 1 s, even with IF=1 (0 of 1 probes had)",
                          skips.get("self_ipi.xapic." + shape, ""), skips)
        self.assertEqual({r["case"] for r in b.boot["results"]}, {"self_ipi.xapic"})

    def test_second_vcpu_only_for_ipi(self):
        self.assertEqual(self.b.results["config"]["smp"], 2)
        other = run("--accel", "tcg", "--suite", "exits", "--case", "eoi.xapic",
                    "--cmdline", FAST)
        self.assertEqual(other.results["config"]["smp"], 1)

    def test_skips_are_named(self):
        skips = {s["case"]: s["reason"] for s in self.b.boot["skips"]}
        ran = {r["case"] for r in self.b.boot["results"]}
        for case in ("self_ipi.x2apic", "eoi.x2apic"):
            self.assertTrue(case in ran or "x2APIC" in skips.get(case, ""), skips)
        for case in ("tscdeadline", "tscdeadline.immed", "tscdeadline.immed.cpuid"):
            self.assertTrue(case in ran or "TSC-deadline" in skips.get(case, ""), skips)

    def test_ipi_skips_without_second_vcpu(self):
        b = run("--accel", "tcg", "--suite", "exits", "--case", "ipi", "--smp", "1",
                "--cmdline", FAST)
        skips = {s["case"]: s["reason"] for s in b.boot["skips"]}
        self.assertIn("-smp 2", skips.get("ipi", ""), b.describe())


class IrqKvm(unittest.TestCase):
    """Every interrupt arrives under KVM too; exit counts are measured."""

    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "kvm", "--suite", "exits", "--case", IRQ_CASES,
                    "--cmdline", "samples=5 budget_ms=100", "--timeout", "300",
                    timeout=400)

    def test_interrupts_and_counts(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        irq = [c for n, c in checks(self.b).items() if n.startswith("exits.irq.")]
        self.assertGreaterEqual(len(irq), 4, checks(self.b))
        for c in irq:
            self.assertTrue(c["ok"], c)
        for r in self.b.boot["results"]:
            self.assertIsNotNone(r.get("exits_measured"), r.get("exits_note"))

    def test_self_ipi_shapes_run_or_skip_by_their_probe(self):
        """Where the backend takes a self-IPI is measured in the boot: a
        shape runs (its check above, every probe taken where a sti shape's
        op takes it) or skips with its probe's count.  The PVM hosts here
        differ: one took no self-IPI at `sti; nop` but woke every
        `sti; hlt`."""
        ran = {r["case"]: r for r in self.b.boot["results"]}
        skips = {s["case"]: s["reason"] for s in self.b.boot["skips"]}
        shapes = [c for c in list(ran) + list(skips)     # not exits.c's .insn
                  if c.startswith("self_ipi.") and (".sti_" in c or ".tpr" in c)
                  and ".insn" not in c]
        self.assertGreaterEqual(len(shapes), 5, (ran.keys(), skips))
        for case in shapes:
            if case in skips:
                self.assertRegex(skips[case], r"^(no x2APIC|measured: )", case)
                continue
            r = ran[case]
            self.assertEqual(r["probe_tries"], 16, r)
            if ".nowait" in case:   # counted, not needed at the window
                self.assertLessEqual(r["interrupts"], r["writes"], r)
            elif ".sti_" in case:
                self.assertEqual(r["probe_at_window"], 16, r)
            if "sti_hlt" in case:
                self.assertEqual((r["watchdog_shots"], r["wait_timeouts"]), (0, 0), r)

    def test_ap_cases_in_x2apic_mode_where_the_cpu_has_it(self):
        """vmexit's ipi writes the x2APIC ICR: so do the AP's cases where
        CPUID has x2APIC (both CPUs switched, every interrupt counted)."""
        assert_ap_mode(self, self.b)
        c = checks(self.b)
        for case in AP_CASES:
            self.assertTrue(c["exits.irq." + case]["ok"], c.get("exits.irq." + case))

    def test_tscdeadline_says_how_late_its_interrupts_came(self):
        """The op waits for the timer's interrupt: the handler's TSC less
        the deadline, per interrupt taken, in order statistics."""
        skips = {s["case"]: s["reason"] for s in self.b.boot["skips"]}
        if "tscdeadline" in skips:
            self.assertIn("TSC-deadline", skips["tscdeadline"])
            return
        r = self.b.result("tscdeadline")
        late = r["deadline_late"]
        self.assertGreater(late["n"], 0, r)
        self.assertLessEqual(late["n"], r["interrupts"], r)
        self.assertTrue(late["min"] <= late["median"] <= late["p90"] <= late["max"], late)
        self.assertNotIn("deadline_late", self.b.result("tscdeadline.immed"))

    def test_the_deadline_waits_are_primed(self):
        """An op that waits for its interrupt runs once untimed before
        each sample (bench_case.prime: PVM's emulator takes it only where
        a batch ends); the op is counted among the case's ops."""
        ran = {r["case"]: r for r in self.b.boot["results"]}
        for case in ("tscdeadline", "tscdeadline.immed"):
            if case not in ran:
                continue
            r = ran[case]
            self.assertIs(r.get("primed"), True, r)
            self.assertGreaterEqual(r["ops"], r["samples"] * (r["iters"] + 1), r)
        for case in ("hlt.timer", "tscdeadline.immed.cpuid"):
            self.assertNotIn("primed", ran.get(case, {}), case)

    def test_tscdeadline_immed_twin_counts_its_interrupts(self):
        """vmexit's tscdeadline_immed does not wait: the twin takes at
        most one interrupt a write, counted, and has a control."""
        skips = {s["case"]: s["reason"] for s in self.b.boot["skips"]}
        if "tscdeadline.immed.cpuid" in skips:
            self.assertIn("TSC-deadline", skips["tscdeadline.immed.cpuid"])
            return
        r = self.b.result("tscdeadline.immed.cpuid")
        self.assertEqual(r["kut_name"], "tscdeadline_immed")
        self.assertGreater(r["writes"], 0, r)
        self.assertLessEqual(r["interrupts"], r["writes"], r)
        self.assertIn("cycles_control", r)
        self.assertIsNone(self.b.result("tscdeadline.immed").get("kut_name"))


class DeadlineWatchdogKvm(unittest.TestCase):
    """The deadline spins are vmexit's, with no bound inside; the PIT's
    one-shot bounds them (drivers/pit_watchdog.h).  Sampled for 300 ms,
    over five of its 55 ms shots, the kicks between samples keep it
    silent.  With the timer's interrupt masked (test hook fault=timer)
    every spin ends by the watchdog: a bounded boot whose checks name the
    lost waits, each about a second (IRQ_WAIT_US)."""
    CASES = "tscdeadline,tscdeadline.insn"

    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf")
        cls.quiet = run("--accel", "kvm", "--suite", "all", "--case", cls.CASES,
                        "--cmdline", "stable=off samples=10000 budget_ms=300",
                        "--timeout", "120", timeout=180)
        cls.b = run("--accel", "kvm", "--suite", "all", "--case", cls.CASES,
                    "--cmdline", "samples=3 budget_ms=10 fault=timer",
                    "--timeout", "120", timeout=180)

    def test_a_kicked_watchdog_stays_silent(self):
        if "tscdeadline" in {s["case"] for s in self.quiet.boot["skips"]}:
            self.skipTest("no TSC-deadline timer")
        self.assertEqual(self.quiet.status, 0, self.quiet.describe())
        for case in ("tscdeadline", "tscdeadline.insn"):
            r = self.quiet.result(case)
            self.assertGreater(r["case_ms"], 5 * 55, r)
            self.assertEqual((r["watchdog_shots"], r["wait_timeouts"]), (0, 0), r)

    def skipped(self):
        return {s["case"] for s in self.b.boot["skips"]}

    def test_every_wait_is_released_and_named(self):
        if "tscdeadline" in self.skipped():
            self.skipTest("no TSC-deadline timer")
        self.assertEqual(self.b.status, 1, self.b.describe())
        c = checks(self.b)
        self.assertFalse(c["exits.irq.tscdeadline"]["ok"], c)
        r = self.b.result("tscdeadline")
        self.assertGreater(r["wait_timeouts"], 0, r)
        self.assertEqual(r["wait_timeouts"], r["interrupts"], r)
        self.assertGreater(r["watchdog_shots"], 0, r)
        self.assertIn("tscdeadline.insn", c["exits.cases"]["detail"])
        ins = self.b.result("tscdeadline.insn")
        self.assertGreater(ins["wait_timeouts"], 0, ins)


if __name__ == "__main__":
    unittest.main()
