"""tests/host/test_pinning.py - run --pin-cpu: the CPU list is parsed
strictly (tools/trapmeterlib/system/pinning.py), and a spawned child really runs
only on those CPUs (tools/trapmeterlib/system/children.py), threads included."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.system import children, pinning  # noqa: E402


class Parse(unittest.TestCase):
    def test_lists_and_ranges(self):
        allowed = [0, 1, 2, 3]
        self.assertEqual(pinning.parse("1", allowed), (1,))
        self.assertEqual(pinning.parse("0,2-3", allowed), (0, 2, 3))
        self.assertEqual(pinning.parse(" 3 , 1 ", allowed), (1, 3))

    def test_none_and_auto(self):
        self.assertIsNone(pinning.parse("none", [0, 1]))
        self.assertIsNone(pinning.parse(None, [0, 1]))
        self.assertEqual(pinning.parse("auto", [0, 1]), (1,))
        self.assertEqual(pinning.parse("auto", [2, 5, 7]), (7,))
        # one CPU: pinning to it changes nothing
        self.assertIsNone(pinning.parse("auto", [4]))

    def test_bad_words_are_named(self):
        for text, needle in (("x", "'x'"), ("3-1", "backwards"),
                             ("1-", "'1-'"), ("", "''"), ("9", "CPU 9")):
            with self.assertRaises(pinning.PinError) as ctx:
                pinning.parse(text if text != "" else ",", [0, 1])
            if text:
                self.assertIn(needle, str(ctx.exception))


class Spawn(unittest.TestCase):
    def allowed(self, cpus):
        proc = children.spawn(["sh", "-c", "grep Cpus_allowed_list /proc/self/status"],
                           cpus=cpus, stdout=subprocess.PIPE)
        out = proc.communicate(timeout=10)[0].decode()
        children.forget(proc)
        return out.split(":")[1].strip()

    def test_child_is_confined(self):
        cpus = pinning.allowed_cpus()
        last = cpus[-1]
        self.assertEqual(self.allowed((last,)), str(last))

    def test_unpinned_child_keeps_every_cpu(self):
        if len(pinning.allowed_cpus()) < 2:
            self.skipTest("one CPU: nothing to tell apart")
        self.assertNotEqual(self.allowed(None),
                            str(pinning.allowed_cpus()[-1]))


if __name__ == "__main__":
    unittest.main()
