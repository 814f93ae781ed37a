"""tests/boot/test_kut_twins.py - the narrowed trapmeter boots of `kut
--cases` (commands/kut_twins.py READS) boot: under TCG, per vmexit name,
the globs of a session of that name alone (and the -smp 2 boot's), each
boot ending with status 0 (a glob that matched no case would end it
with 2), its twin measured or skipped by name.  Few samples a case: the
figures are not read.  No absolute cycle counts."""
import os
import sys
import unittest

from tests.boot.common import ROOT, need_build, run

sys.path.insert(0, os.path.join(ROOT, "tools"))
from trapmeterlib.backends import kut_vmexit  # noqa: E402
from trapmeterlib.commands import kut_twins  # noqa: E402

FAST = "samples=3 budget_ms=10"


def narrowed(smp, names):
    """A TCG boot of the kut twins of names with smp vCPUs."""
    suites, globs = kut_twins.cases(smp, names)
    return run("--accel", "tcg", "--suite", suites, "--case", globs,
               "--smp", str(smp), "--no-count-exits", "--cmdline", FAST,
               "--timeout", "120", timeout=180)


class NarrowedBoots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")

    def twin_named(self, b, name):
        lines = b.boot["results"] + (b.boot.get("skips") or [])
        self.assertIn(name, {r.get("kut_name") for r in lines},
                      b.describe())

    def test_each_name_alone_boots_with_its_twin(self):
        for name in kut_twins.READS:
            with self.subTest(name=name):
                b = narrowed(1, [name])
                self.assertEqual(b.status, 0, b.describe())
                self.twin_named(b, name)
                self.twin_named(b, "inl_from_kernel")

    def test_the_most_names_a_narrowed_boot_takes_boot_their_twins(self):
        # names in READS' order while the guest takes their globs: the
        # longest choice that is not every twin
        names = list(kut_twins.READS)
        while kut_twins.cases(1, names)[1] == kut_twins.TWIN_CASES:
            names.pop()
        self.assertGreater(len(names), 15)
        b = narrowed(1, names)
        self.assertEqual(b.status, 0, b.describe())
        for name in names:
            self.twin_named(b, name)

    def test_the_two_vcpu_boot_has_its_twins(self):
        b = narrowed(2, list(kut_vmexit.SMP2))
        self.assertEqual(b.status, 0, b.describe())
        for name in kut_vmexit.SMP2:
            self.twin_named(b, name)


if __name__ == "__main__":
    unittest.main()
