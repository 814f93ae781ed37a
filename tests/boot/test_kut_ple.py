"""tests/boot/test_kut_ple.py - suite exits' ple.round_robin
(kernel/suites/exits_ple.c), kvm-unit-tests vmexit's ple_round_robin:
the runner gives it a second vCPU, both vCPUs pass the token as often
(the guest's check), the control is taken, the result says where PLE is
absent, and with one vCPU it skips by name.  No absolute cycle counts."""
import unittest

from tests.boot.common import need_build, need_kvm, run

FAST = "samples=3 budget_ms=30"


def check(b, name):
    return next((c for c in b.boot["checks"] if c["name"] == name), None)


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


if __name__ == "__main__":
    unittest.main()
