"""tests/boot/test_kut_ple.py - suite exits' ple.round_robin
(kernel/suites/exits_ple.c), kvm-unit-tests vmexit's ple_round_robin:
the runner gives it a second vCPU, both vCPUs pass the token as often
(the guest's check), the control is taken, the result says where PLE is
absent, and with one vCPU it skips by name.  Its same-instructions case,
ple.round_robin.insn.paired (vmexit's op and loop as built, on both vCPUs,
with no bound in its spin), returns every op's token with no wait lost;
with the AP never passing back (test hook fault=ple) the watchdog frees
the BSP once and the check names the lost wait.  No absolute cycle
counts."""
import unittest

from tests.boot.common import need_build, need_kvm, run

FAST = "samples=3 budget_ms=30"


def check(b, name):
    return next((c for c in b.boot["checks"] if c["name"] == name), None)


def run_insn(words):
    """A KVM boot of ple.round_robin.insn.paired alone, kernel words words."""
    return run("--accel", "kvm", "--suite", "exits", "--case",
               "ple.round_robin.insn.paired", "--cmdline", words,
               "--timeout", "120", timeout=180)


def insn_ok(test, b):
    """ple.round_robin.insn.paired ran healthy: its check passed, no wait
    ended by the watchdog, every op's token back, vmexit's inl_from_kernel
    its control in vmexit's loop."""
    r = b.result("ple.round_robin.insn.paired")
    test.assertTrue(check(b, "exits.ple.round_robin.insn")["ok"], r)
    # (a shot between batches frees nothing and is no fault: the samples'
    # statistics may outlast one; the 1.5 s test below holds the bound)
    test.assertEqual((r["wait_timeouts"], r["tokens_astray"]), (0, False), r)
    test.assertGreater(r["ops_bsp"], r["ops"], r)
    test.assertEqual((r["loop"], r["control_case"]),
                     ("vmexit.run_test", "inl_from_kernel"), r)
    test.assertIsNone(r.get("kut_name"), r)
    test.assertIn("cycles_control", r)


class PleTcg(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "tcg", "--suite", "exits", "--case",
                    "ple.*", "--cmdline", FAST)

    def test_round_trips_on_two_vcpus(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        self.assertEqual(self.b.results["config"]["smp"], 2)
        r = self.b.result("ple.round_robin")
        self.assertEqual(r["kut_name"], "ple_round_robin")
        self.assertGreater(r["passes_bsp"], 0, r)
        self.assertEqual(r["passes_bsp"], r["passes_ap"], r)
        self.assertEqual(r["wait_timeouts"], 0, r)
        self.assertTrue(check(self.b, "exits.ple.round_robin")["ok"])
        self.assertIn("cycles_control", r)
        self.assertEqual(r["exits_model"], 0)
        self.assertTrue(r["ple"].startswith("absent: no KVM signature"), r)
        insn_ok(self, self.b)

    def test_one_vcpu_skips_by_name(self):
        b = run("--accel", "tcg", "--suite", "exits", "--case", "ple.*",
                "--smp", "1", "--cmdline", FAST)
        skips = {s["case"]: s for s in b.boot["skips"]}
        self.assertIn("-smp 2", skips["ple.round_robin"]["reason"],
                      b.describe())
        self.assertEqual(skips["ple.round_robin"]["kut_name"],
                         "ple_round_robin")


class PleKvm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf")
        cls.b = run("--accel", "kvm", "--suite", "exits", "--case", "ple.*",
                    "--cmdline", "samples=5 budget_ms=300", "--timeout",
                    "300", timeout=400)

    def test_round_trips_and_ple_named(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        r = self.b.result("ple.round_robin")
        self.assertEqual(r["passes_bsp"], r["passes_ap"], r)
        self.assertTrue(check(self.b, "exits.ple.round_robin")["ok"])
        flavour = self.b.results["host"].get("kvm_flavour")
        if flavour == "pvm":
            self.assertIn("PVM", r["ple"])
        insn_ok(self, self.b)

    def test_kicks_keep_the_watchdog_from_a_healthy_spin(self):
        # sampled for 1.5 s, past the watchdog's bound of 1 s: only the
        # kicks between samples keep it from freeing a spin
        b = run_insn("stable=off samples=10000 budget_ms=1500")
        self.assertEqual(b.status, 0, b.describe())
        r = b.result("ple.round_robin.insn.paired")
        self.assertGreater(r["case_ms"], 1000, r)
        self.assertEqual((r["wait_timeouts"], r["tokens_astray"]), (0, False),
                         r)

    def test_a_lost_token_is_freed_by_the_watchdog_and_named(self):
        b = run_insn("samples=3 budget_ms=10 fault=ple")
        self.assertEqual(b.status, 1, b.describe())
        r = b.result("ple.round_robin.insn.paired")
        self.assertEqual(r["wait_timeouts"], 1, r)
        self.assertGreater(r["watchdog_shots"], 0, r)
        c = check(b, "exits.ple.round_robin.insn")
        self.assertFalse(c["ok"], c)
        self.assertIn("1 waits ended by the watchdog", c["detail"])


if __name__ == "__main__":
    unittest.main()
