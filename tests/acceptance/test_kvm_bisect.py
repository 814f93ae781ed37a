"""tests/acceptance/test_kvm_bisect.py - `make acceptance`: `trapmeter
bisect` under KVM on a 17-commit repository made by the test
(tests/boot/bisect_repo.py): from commit 11 on, the build's QEMU wrapper
preloads the delay shim at 5 % of an exit to QEMU (measured by a
calibration boot); commit 12 does not build.  bisect must name commit 11
within its 600 s budget, and `git bisect run tools/trapmeter bisect-step`
on the same repository must end at it (up to about 20 minutes; skipped
where KVM cannot create a VM or the shim is not built)."""
import json
import os
import shutil
import tempfile
import unittest

from tests.boot import bisect_repo
from tests.boot.common import need_build, need_kvm
from tests.boot.test_bisect import CASES, bisect, git_bisect_run

COMMITS, CHANGE, BROKEN, SHARE = 17, 11, 12, 0.05
BUDGET = 600


class KvmBisect16(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_kvm()
        need_build(cls, "build/trapmeter.elf", "build/kvm_delay.so")
        keep = os.environ.get("TRAPMETER_ACCEPTANCE_OUT")
        cls.dir = os.path.join(keep, "bisect") if keep else \
            tempfile.mkdtemp(prefix="tm-accept-bisect-")
        if not keep:
            cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.exit_ns = bisect_repo.exit_ns()
        cls.repo = os.path.join(cls.dir, "repo")
        cls.hashes = bisect_repo.make(cls.repo, COMMITS, CHANGE,
                                      int(cls.exit_ns * SHARE), {BROKEN})
        cls.out = os.path.join(cls.dir, "out")
        cls.proc = bisect(cls.repo, cls.out, BUDGET, cls.hashes[0],
                          cls.hashes[-1], *CASES)
        with open(os.path.join(cls.out, "bisect.json")) as fh:
            cls.doc = json.load(fh)

    def test_names_commit_11_within_budget(self):
        detail = self.proc.stdout[-4000:] + self.proc.stderr[-2000:]
        self.assertEqual(self.proc.returncode, 0, detail)
        self.assertEqual(self.doc["result"]["first_bad"],
                         self.hashes[CHANGE], detail)
        self.assertLess(self.doc["wall_s"], BUDGET * 1.5, detail)

    def test_broken_build_is_a_skip(self):
        for step in self.doc["steps"]:
            if step["commit"] == self.hashes[BROKEN]:
                self.assertEqual(step["verdict"], "skip")
                self.assertIn("build failed", step["reason"])

    def test_git_bisect_run(self):
        proc = git_bisect_run(self.repo, self.hashes,
                              os.path.join(self.out, "bisect.json"), 90)
        self.assertIn("%s is the first bad commit" % self.hashes[CHANGE],
                      proc.stdout, proc.stdout[-4000:] + proc.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
