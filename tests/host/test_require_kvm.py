"""tests/host/test_require_kvm.py - the KVM boot tests' gate
(tests/boot/common.need_kvm): where KVM cannot run a VM they skip with the
reason, and under TRAPMETER_REQUIRE_KVM=1 (set by .ci/run where /dev/kvm
exists) they fail instead, so a broken KVM cannot leave CI green."""
import os
import unittest
from unittest import mock

from tests.boot import common


class RequireKvm(unittest.TestCase):
    def gate(self, env, usable):
        with mock.patch.dict(os.environ, env, clear=False), \
                mock.patch.object(common, "kvm_usable",
                                  return_value=usable):
            if common.REQUIRE_KVM not in env:
                os.environ.pop(common.REQUIRE_KVM, None)
            try:
                common.need_kvm()
            except unittest.SkipTest as exc:
                # returned, not raised: a skip raised here would skip this
                # test instead of failing it
                return "skip: %s" % exc
            return "pass"

    def test_missing_kvm_skips_with_the_reason(self):
        got = self.gate({}, (False, "/dev/kvm: No such file or directory"))
        self.assertEqual(got, "skip: KVM cannot run a VM here: /dev/kvm: "
                         "No such file or directory")

    def test_required_kvm_missing_is_a_failure(self):
        with self.assertRaises(AssertionError) as ctx:
            self.gate({common.REQUIRE_KVM: "1"},
                      (False, "KVM_CREATE_VM failed: Permission denied"))
        self.assertIn("TRAPMETER_REQUIRE_KVM=1", str(ctx.exception))
        self.assertIn("Permission denied", str(ctx.exception))

    def test_other_values_keep_the_skip(self):
        got = self.gate({common.REQUIRE_KVM: "0"}, (False, "no /dev/kvm"))
        self.assertTrue(got.startswith("skip: "), got)

    def test_usable_kvm_passes_either_way(self):
        self.assertEqual(self.gate({}, (True, "")), "pass")
        self.assertEqual(self.gate({common.REQUIRE_KVM: "1"}, (True, "")),
                         "pass")

    def test_ci_sets_the_switch_where_dev_kvm_exists(self):
        with open(os.path.join(common.ROOT, ".ci", "run")) as fh:
            text = fh.read()
        self.assertRegex(text, r"-e /dev/kvm")
        self.assertIn("export TRAPMETER_REQUIRE_KVM=1", text)

    def test_every_kvm_test_goes_through_the_gate(self):
        """No boot or acceptance test asks kvm_usable itself (it would skip
        past the switch)."""
        for sub in ("boot", "acceptance"):
            folder = os.path.join(common.ROOT, "tests", sub)
            for name in sorted(os.listdir(folder)):
                if not name.startswith("test_") or not name.endswith(".py"):
                    continue
                with open(os.path.join(folder, name)) as fh:
                    self.assertNotIn("kvm_usable(", fh.read(), name)


if __name__ == "__main__":
    unittest.main()
