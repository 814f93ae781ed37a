"""`kut --cases`: the trapmeter boots run what the rows asked for read.

commands/kut_twins.py narrows a round's trapmeter boot to the globs of
READS.  A case a row's tries read and the narrowed boot left out would
change the row's verdict unseen, so every recorded session of the null's
fixture (tests/fixtures/kut-null-sessions.json.gz) is judged again, one
name at a time, with every case it looks up recorded: each one the session
had must match that name's globs."""

import fnmatch
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, HERE)

import kut_null  # noqa: E402
from trapmeterlib.backends import kut_log, kut_vmexit  # noqa: E402
from trapmeterlib.commands import kut_twins  # noqa: E402
from trapmeterlib.guest import qemu  # noqa: E402
from trapmeterlib.stats import kutcmp  # noqa: E402


class Looked(dict):
    """A round's cases, each name looked up kept in `seen`."""
    seen = set()

    def __getitem__(self, key):
        Looked.seen.add(key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        Looked.seen.add(key)
        return dict.get(self, key, default)

    def __contains__(self, key):
        Looked.seen.add(key)
        return dict.__contains__(self, key)


def matched(name, case):
    """Whether the narrowed boots of name run case."""
    for smp in (1, 2) if name in kut_vmexit.SMP2 else (1,):
        globs = kut_twins.cases(smp, [name])[1].split(",")
        if any(fnmatch.fnmatchcase(case, g) for g in globs):
            return True
    return False


class NarrowedTwins(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sessions = kut_null.load([kut_null.KUT_NULL_FIXTURE])

    def test_every_name_a_session_ran_keeps_what_its_row_reads(self):
        missed = set()
        for sess in self.sessions:
            boots = sess["boots"]
            had = set()
            for boot in boots:
                had |= set(boot["cases"])
                boot["cases"] = Looked(boot["cases"])
            for name in kut_log.VMEXIT_NAMES:
                Looked.seen = set()
                kutcmp.rows(boots, [name], flavour=sess.get("flavour"))
                twins = {b["trapmeter"][n]["case"] for b in boots
                         for n in (name, kutcmp.REFERENCE)
                         if n in b["trapmeter"]}
                missed |= {(name, c) for c in (Looked.seen & had) | twins
                           if not matched(name, c)}
        self.assertEqual(sorted(missed), [])

    def test_every_name_of_one_vcpu_has_its_globs(self):
        one = [n for n in kut_log.VMEXIT_NAMES if n not in kut_vmexit.SMP2]
        self.assertEqual(sorted(kut_twins.READS), sorted(one))

    def test_a_few_names_narrow_and_many_boot_every_twin(self):
        suites, globs = kut_twins.cases(1, ["cpuid"])
        self.assertEqual((suites, globs), (kut_twins.TWIN_SUITES,
                                           "pio.kernel,inb.elcr*,cpuid*"))
        self.assertEqual(kut_twins.cases(1, ["ipi"])[1],
                         "pio.kernel,inb.elcr*")
        every = kut_twins.cases(1, list(kut_twins.READS))
        self.assertEqual(every, (kut_twins.TWIN_SUITES, kut_twins.TWIN_CASES))
        self.assertEqual(kut_twins.cases(1, None), every)
        self.assertEqual(kut_twins.cases(2, ["cpuid"])[1],
                         kut_twins.SMP2_CASES)
        for n in range(1, len(kut_twins.READS) + 1):
            suites, globs = kut_twins.cases(1, list(kut_twins.READS)[:n])
            self.assertLessEqual(globs.count(",") + 1, kut_twins.GUEST_GLOBS)
            self.assertIsNone(qemu.cmdline_problem(
                kut_twins.words(suites, globs)))

    def test_a_later_sessions_rows_narrow_the_boot(self):
        # p46's second session (15 rows open after its first): 17 globs,
        # 306 characters; its third (6 rows): 9 globs
        second = ("cpuid wbinvd mov_from_cr8 inl_from_qemu inl_from_kernel "
                  "outl_to_kernel mov_dr self_ipi_sti_hlt self_ipi_tpr "
                  "self_ipi_tpr_sti_nop self_ipi_tpr_sti_hlt "
                  "x2apic_self_ipi_sti_hlt x2apic_self_ipi_tpr_sti_hlt "
                  "wr_kernel_gs_base toggle_cr0_wp").split()
        third = ("cpuid mov_dr self_ipi_sti_hlt self_ipi_tpr "
                 "self_ipi_tpr_sti_hlt x2apic_self_ipi_sti_hlt").split()
        for names, count in ((second, 17), (third, 9)):
            globs = kut_twins.cases(1, names)[1]
            self.assertNotEqual(globs, kut_twins.TWIN_CASES)
            self.assertEqual(globs.count(",") + 1, count, globs)
            self.assertIn("self_ipi.xapic.sti_hlt*", globs.split(","))

    def test_a_choice_the_guest_cannot_take_boots_every_twin(self):
        many = ",".join("c%d*" % i for i in range(kut_twins.GUEST_GLOBS + 1))
        self.assertFalse(kut_twins.fits(kut_twins.TWIN_SUITES, many))
        self.assertTrue(kut_twins.fits(kut_twins.TWIN_SUITES,
                                       many.rsplit(",", 1)[0]))
        self.assertFalse(kut_twins.fits(kut_twins.TWIN_SUITES, "c" * 420))

    def test_every_twin_fits_the_guests_command_line(self):
        # the words of a PVM host's session, with TWIN_CASES, are taken
        self.assertTrue(kut_twins.fits(kut_twins.TWIN_SUITES,
                                       kut_twins.TWIN_CASES))

    def test_the_guest_limits_are_the_kernels(self):
        header = read(os.path.join(REPO, "kernel", "cmdline.h"))
        self.assertIn("#define CMDLINE_MAX_GLOBS %d\n" %
                      kut_twins.GUEST_GLOBS, header)


def read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


if __name__ == "__main__":
    unittest.main()
