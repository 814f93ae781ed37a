"""tests/boot/test_tcg.py - functional boots under TCG (no exits, no
absolute cycles): the dump is whole, statuses are right, data is right."""
import os
import unittest

from tests.boot.common import OVMF_CODE, run, need_build

TCG = ("--accel", "tcg")


class DirectBoot(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.b = run(*TCG, "--boot", "direct", "--quick")

    def test_status_ok(self):
        self.assertEqual(self.b.status, 0, self.b.describe())
        self.assertEqual(self.b.results["status"], "ok")

    def test_start_and_end_lines(self):
        self.assertIn("trapmeter 0.1.0 START", self.b.serial)
        self.assertIn("trapmeter END status=ok", self.b.serial)

    def test_run_line(self):
        run_ = self.b.boot["run"]
        self.assertEqual(run_["boot"], "multiboot1")
        # the guest names what the runner booted (--firmware auto: qboot
        # where installed, else SeaBIOS, "bios")
        self.assertEqual(run_["firmware"], self.b.results["config"]["firmware"])
        self.assertTrue(run_["quick"])
        self.assertEqual(run_["cmdline_source"], "fw_cfg")
        self.assertGreater(run_["tsc"]["khz"], 0)

    def test_every_method_read_the_blob(self):
        checks = {c["name"]: c for c in self.b.boot["checks"]}
        self.assertTrue(checks["fwcfg.blob"]["ok"], checks["fwcfg.blob"])
        self.assertIn("0 mismatches", checks["fwcfg.blob"]["detail"])
        self.assertTrue(checks["fwcfg.cases"]["ok"], checks["fwcfg.cases"])

    def test_pio_cases_present(self):
        for case in ("fwcfg.in8.single.4096", "fwcfg.in8.rep.4096", "fwcfg.in8.dma.4096",
                     "fwcfg.in8.rep.4096.split", "debugcon.out8.rep.512",
                     "port80.out16.rep.512", "port80.out32.single.512",
                     "pic.in8.rep.512", "elcr.out8.single.512"):
            r = self.b.result(case)
            self.assertGreater(r["samples"], 2)
            c = r["cycles"]
            self.assertTrue(c["min"] <= c["p10"] <= c["median"] <= c["p90"] <= c["p99"] <= c["max"], c)

    def test_exit_model(self):
        self.assertEqual(self.b.result("fwcfg.in8.rep.4096")["exits_model"], 1 + 4)
        self.assertEqual(self.b.result("fwcfg.in8.rep.4096.split")["exits_model"], 1 + 5)
        self.assertEqual(self.b.result("fwcfg.in8.single.4096")["exits_model"], 1 + 4096)
        self.assertEqual(self.b.result("debugcon.out8.rep.512")["exits_model"], 512)
        self.assertEqual(self.b.result("pic.out8.rep.512")["exits_model"], 1)

    def test_hypercall_skipped_under_tcg(self):
        skips = [s for s in self.b.boot["skips"] if s.get("case") in ("vmcall", "vmmcall")]
        self.assertEqual(len(skips), 1, self.b.boot["skips"])
        self.assertIn("#UD", skips[0]["reason"])

    def test_exits_suite(self):
        for case in ("cpuid", "pio.kernel", "pio.user"):
            self.assertEqual(self.b.result(case)["suite"], "exits")


class IsoBoot(unittest.TestCase):
    def test_iso_seabios(self):
        need_build(self, "build/trapmeter.iso")
        b = run(*TCG, "--boot", "iso", "--suite", "exits")
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual(b.boot["run"]["boot"], "multiboot2")
        self.assertEqual(b.boot["run"]["firmware"], "bios")
        self.assertEqual(b.boot["run"]["cmdline"], "suite=exits table=off")
        self.assertEqual(b.boot["run"]["cmdline_source"], "fw_cfg")

    def test_iso_ovmf(self):
        need_build(self, "build/trapmeter.iso")
        if not os.path.exists(OVMF_CODE):
            self.skipTest(f"{OVMF_CODE} missing (Debian package ovmf)")
        b = run(*TCG, "--boot", "iso", "--firmware", "uefi", "--suite", "exits")
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual(b.boot["run"]["boot"], "multiboot2")
        self.assertEqual(b.boot["run"]["firmware"], "uefi")


class BadInput(unittest.TestCase):
    def setUp(self):
        need_build(self, "build/trapmeter.elf")

    def test_unknown_key(self):
        b = run(*TCG, "--cmdline", "bogus=1")
        self.assertEqual(b.status, 2, b.describe())
        self.assertIn("error: unknown key 'bogus'", b.serial)
        self.assertIn("trapmeter END status=bad-input", b.serial)
        self.assertIn("bogus", b.stdout + b.stderr)

    def test_bad_value(self):
        b = run(*TCG, "--cmdline", "samples=zero")
        self.assertEqual(b.status, 2, b.describe())
        self.assertIn("'samples'", b.serial)

    def test_bad_runner_option(self):
        b = run(*TCG, "--boot", "floppy")
        self.assertEqual(b.status, 2, b.describe())
        self.assertNotIn("Traceback", b.stderr)


class Exceptions(unittest.TestCase):
    def setUp(self):
        need_build(self, "build/trapmeter.elf")

    def check_fault(self, key, vector, name):
        b = run(*TCG, "--suite", "exits", "--cmdline", f"fault={key}")
        self.assertEqual(b.status, 3, b.describe())
        self.assertIn("trapmeter END status=exception", b.serial)
        exc = b.boot["exceptions"]
        self.assertEqual(len(exc), 1, exc)
        self.assertEqual(exc[0]["vector"], vector)
        self.assertEqual(exc[0]["name"], name)
        self.assertIn("rip=", b.serial)
        return exc[0]

    def test_page_fault(self):
        exc = self.check_fault("pf", 14, "#PF")
        self.assertEqual(exc["cr2"], "0x4000000000")

    def test_invalid_opcode(self):
        self.check_fault("ud", 6, "#UD")

    def test_general_protection(self):
        self.check_fault("gp", 13, "#GP")

    def test_divide_error(self):
        self.check_fault("de", 0, "#DE")

    def test_breakpoint(self):
        self.check_fault("bp", 3, "#BP")


class Keys(unittest.TestCase):
    def test_verbose_and_case_glob(self):
        need_build(self, "build/trapmeter.elf")
        b = run(*TCG, "--suite", "exits", "--case", "pio.*", "--cmdline", "verbose samples=3")
        self.assertEqual(b.status, 0, b.describe())
        self.assertEqual(sorted(r["case"] for r in b.boot["results"]), ["pio.kernel", "pio.user"])
        self.assertIn("[pio.user: warm op", b.serial)
        self.assertTrue(all(r["samples"] == 3 for r in b.boot["results"]))


class RepOff(unittest.TestCase):
    """rep=off: REP cases move their data with the single-unit loop."""

    def test_rep_off_uses_loop(self):
        need_build(self, "build/trapmeter.elf")
        b = run(*TCG, "--suite", "pio", "--case", "fwcfg.in8.rep.4096,pic.in8.rep.512",
                "--cmdline", "rep=off samples=5")
        self.assertEqual(b.status, 0, b.describe())
        r = b.result("fwcfg.in8.rep.4096")
        self.assertEqual(r["rep_impl"], "loop")
        self.assertEqual(r["exits_model"], 1 + 4096)
        self.assertEqual(b.result("pic.in8.rep.512")["exits_model"], 512)
        self.assertEqual(len(b.boot["results"]), 2)


if __name__ == "__main__":
    unittest.main()
