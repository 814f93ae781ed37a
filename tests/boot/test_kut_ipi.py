"""tests/boot/test_kut_ipi.py - suite exits' ipi.on_cpu.insn.paired
(kernel/suites/exits_ipi.c): kvm-unit-tests vmexit's ipi as its build runs
it, on_cpu and the AP's interrupt path and idle loop included.  The runner
gives it a second vCPU; every call comes back with no wait lost, none is
left counted in, the AP leaves its idle loop at the end, vmexit's
inl_from_kernel op is its control; with one vCPU it skips by name.  With
the AP taking no call (test hook fault=ple) the watchdog frees the BSP
once and the check names the lost wait.  No absolute cycle counts."""
import unittest

from tests.boot.common import need_build, need_kvm, run

CASE = "ipi.on_cpu.insn.paired"
FAST = "samples=3 budget_ms=30"


def check(b):
    return next((c for c in b.boot["checks"]
                 if c["name"] == "exits.ipi.on_cpu.insn"), None)


def run_case(accel, words, *more):
    """A boot of the case alone, kernel words words."""
    return run("--accel", accel, "--suite", "exits", "--case", CASE,
               "--cmdline", words, "--timeout", "120", *more, timeout=180)


def healthy(test, b):
    """The case ran: its check passed, no wait ended by the watchdog, the
    AP out of its loop, vmexit's loop and inl_from_kernel its control,
    vmexit's tsc_ipi counted time in its calls."""
    test.assertEqual(b.status, 0, b.describe())
    r = b.result(CASE)
    c = check(b)
    test.assertTrue(c["ok"], c)
    test.assertIn("0 waits ended by the watchdog, AP out of its loop",
                  c["detail"])
    test.assertEqual(r["wait_timeouts"], 0, r)
    test.assertGreater(r["ops_bsp"], r["ops"], r)
    test.assertGreater(r["tsc_ipi"], 0, r)
    test.assertEqual((r["loop"], r["control_case"]),
                     ("vmexit.run_test", "inl_from_kernel"), r)
    test.assertIsNone(r.get("kut_name"), r)
    test.assertIn("cycles_control", r)
    test.assertEqual(r["exits_model"], 2 if r["x2apic"] else 4, r)
    # the halt-poll window grown back by untimed calls before each sample
    test.assertTrue(r["primed"], r)
    test.assertGreaterEqual(r["prime_ops"], 2, r)


class IpiInsnTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run_case("tcg", FAST)

    def test_every_call_comes_back_on_two_vcpus(self):
        self.assertEqual(self.b.results["config"]["smp"], 2)
        healthy(self, self.b)

    def test_one_vcpu_skips_by_name(self):
        b = run_case("tcg", FAST, "--smp", "1")
        skips = {s["case"]: s for s in b.boot["skips"]}
        self.assertIn("-smp 2", skips[CASE]["reason"], b.describe())


class IpiInsnKvm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf")
        cls.b = run_case("kvm", "samples=5 budget_ms=300")

    def test_every_call_comes_back(self):
        healthy(self, self.b)

    def test_kicks_keep_the_watchdog_from_a_healthy_spin(self):
        # sampled for 1.5 s, past the watchdog's bound of 1 s: only the
        # kicks between samples keep it from freeing a spin
        b = run_case("kvm", "stable=off samples=10000 budget_ms=1500")
        healthy(self, b)
        self.assertGreater(b.result(CASE)["case_ms"], 1000)

    def test_a_call_not_taken_is_freed_by_the_watchdog_and_named(self):
        b = run_case("kvm", "samples=3 budget_ms=10 fault=ple")
        self.assertEqual(b.status, 1, b.describe())
        r = b.result(CASE)
        self.assertEqual(r["wait_timeouts"], 1, r)
        self.assertGreater(r["watchdog_shots"], 0, r)
        c = check(b)
        self.assertFalse(c["ok"], c)
        self.assertIn("1 waits ended by the watchdog, AP out of its loop",
                      c["detail"])


if __name__ == "__main__":
    unittest.main()
