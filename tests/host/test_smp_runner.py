"""tests/host/test_smp_runner.py - how many vCPUs the runner gives a boot
(tools/trapmeterlib/guest/qemu.py smp_for): one unless asked, or unless case=
selects suite exits' ipi case, which needs an application processor."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
from trapmeterlib.guest import qemu  # noqa: E402


class Smp(unittest.TestCase):
    def test_auto_follows_the_case_globs(self):
        self.assertEqual(qemu.smp_for([]), 1)
        self.assertEqual(qemu.smp_for(["suite=all"]), 1)
        self.assertEqual(qemu.smp_for(["suite=exits", "case=ipi"]), 2)
        self.assertEqual(qemu.smp_for(["case=hlt.timer,ip?"]), 2)
        self.assertEqual(qemu.smp_for(["case=*"]), 2)
        self.assertEqual(qemu.smp_for(["case=self_ipi.*"]), 1)
        self.assertEqual(qemu.smp_for(["case=ipi.x"]), 1)
        # the last case= word counts, as in the guest
        self.assertEqual(qemu.smp_for(["case=ipi", "case=cpuid"]), 1)

    def test_explicit(self):
        self.assertEqual(qemu.smp_for(["case=ipi"], "1"), 1)
        self.assertEqual(qemu.smp_for([], "2"), 2)

    def test_argv(self):
        cfg = qemu.RunConfig(repo_root=os.sep + "repo", smp=2)
        argv = qemu.build_argv(cfg, os.sep + "tmpdir")
        self.assertEqual(argv[argv.index("-smp") + 1], "2")
        self.assertEqual(argv.count("-smp"), 1)


if __name__ == "__main__":
    unittest.main()
