"""PVM's instruction emulator batch in `trapmeter kut`'s rows: the size
read from a results file's host fingerprint (untrusted input), and the
interrupts an iteration one per batch gives (model) beside what KVM
counted (stats/kutsession.py)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))

from trapmeterlib.stats import kutcmp, kutsession  # noqa: E402


def host(batch):
    return {"kvm_flavour": "pvm", "fingerprint": {"kvm": {"kvm_pvm": {
        "pvm_emul_batch": batch, "pvm_native": "Y"}}}}


def rounds(*insns):
    """Boots whose vmexit tscdeadline_immed KVM counted insns an iteration."""
    return [{"vmexit_counted": {"tscdeadline_immed": {
        "insn_emulation": n, "irq_injections": 0.023}}} for n in insns]


class Batch(unittest.TestCase):
    def test_the_fingerprint_gives_the_batch(self):
        self.assertEqual(kutsession.emul_batch(host("1024")), 1024)
        self.assertEqual(kutsession.emul_batch(host(" 512\n")), 512)
        self.assertEqual(kutcmp.backend(host("1024")),
                         {"flavour": "pvm", "batch": 1024})

    def test_no_batch_where_the_file_does_not_say_one(self):
        for odd in ("0", "-3", "lots", None, [1024], {"n": 1}):
            self.assertIsNone(kutsession.emul_batch(host(odd)), odd)
        for doc in (None, {}, {"fingerprint": []}, {"fingerprint": {
                "kvm": {"kvm_intel": {"ept": "Y"}}}}, "pvm"):
            self.assertIsNone(kutsession.emul_batch(doc), doc)
        self.assertEqual(kutcmp.backend(None),
                         {"flavour": None, "batch": None})


class Rate(unittest.TestCase):
    def test_one_interrupt_a_batch_is_a_model_beside_the_count(self):
        got = kutsession.batch_text(rounds(23.0, 23.2, 22.8),
                                    "tscdeadline_immed", 1024)
        self.assertEqual(got, "one interrupt a batch of 1024 emulated "
                         "instructions, at 23 an iteration: interrupts "
                         "0.0225 (model)")
        note = kutsession.text(rounds(23.0), "tscdeadline_immed", 1024)
        self.assertIn("interrupts 0.023; one interrupt a batch", note)

    def test_no_model_without_a_batch_a_count_or_for_another_case(self):
        self.assertIsNone(kutsession.batch_text(
            rounds(23.0), "tscdeadline_immed", None))
        other = rounds(34.6)            # counted, but not a BATCH_RATE
        for boot in other:              # case: no model
            boot["vmexit_counted"]["x2apic_self_ipi_sti_nop"] = \
                boot["vmexit_counted"].pop("tscdeadline_immed")
        self.assertIsNone(kutsession.batch_text(
            other, "x2apic_self_ipi_sti_nop", 1024))
        self.assertIsNone(kutsession.batch_text(
            rounds("23", None, -1), "tscdeadline_immed", 1024))
        self.assertNotIn("batch", kutsession.text(
            rounds(23.0), "tscdeadline_immed"))

    def test_large_counts_print_whole(self):
        self.assertEqual(kutsession.spread_text([1023.6, 1019.2, 1030.4]),
                         "1024 (1019-1030)")
        self.assertEqual(kutsession.spread_text([0.0231]), "0.0231")


if __name__ == "__main__":
    unittest.main()
