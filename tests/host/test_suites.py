"""tests/host/test_suites.py - the host halves of the suites
(tools/trapmeterlib/guest/suites.py) are registered once, in the order
kernel/suites/suites.h declares the guest's suites, and every hook has a
default, so a suite overrides only what it has."""
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import suites  # noqa: E402

SUITE_DECL = re.compile(r"^void suite_([a-z0-9_]+?)(?:_round)?\(", re.M)


def guest_suites(text):
    """The suite names suites.h declares, in its order."""
    return SUITE_DECL.findall(text)


class Registry(unittest.TestCase):
    def test_the_list_mirrors_suites_h(self):
        with open(os.path.join(ROOT, "kernel", "suites", "suites.h"),
                  encoding="utf-8") as fh:
            declared = guest_suites(fh.read())
        self.assertGreater(len(declared), 3)
        self.assertEqual([s.name for s in suites.SUITES], declared)

    def test_a_suite_in_one_list_only_is_seen(self):
        text = ("void suite_pio_round(const struct tm_config *c, u32 r);\n"
                "void suite_fw(const struct tm_config *cfg);\n"
                "void exits_irq_run(void);\n")
        self.assertEqual(guest_suites(text), ["pio", "fw"])
        self.assertNotEqual(guest_suites(text),
                            [s.name for s in suites.SUITES])

    def test_every_name_once(self):
        names = [s.name for s in suites.SUITES]
        self.assertEqual(len(names), len(set(names)))
        self.assertTrue(all(names))

    def test_defaults_do_nothing(self):
        plain = suites.by_name("pio")
        self.assertIsNone(plain.after_boot(None, None))
        self.assertEqual(plain.render(None), "")
        self.assertEqual(plain.render_boots([]), "")
        self.assertEqual(plain.boot_fields(None, {}), {})
        self.assertIsNone(suites.by_name("no-such-suite"))


if __name__ == "__main__":
    unittest.main()
