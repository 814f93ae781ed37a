"""tests/host/test_kvmlock.py - one KVM measurement at a time on a host:
a second holder waits, names whom it waits for, gives up after its timeout
with status 17; a forked child of the holder does not wait for its own
parent; the lock is released when the scope that took it ends."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from unittest import mock

TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "tools")
sys.path.insert(0, TOOLS)
from trapmeterlib.system import kvmlock  # noqa: E402
from trapmeterlib.values import exitstatus  # noqa: E402

HOLD = """
import sys, time
sys.path.insert(0, %r)
from trapmeterlib.system import kvmlock
kvmlock.acquire("the holder of this test")
print("held", flush=True)
time.sleep(60)
""" % os.path.abspath(TOOLS)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tm-kvmlock-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)   # runs last
        self.path = os.path.join(self.tmp, "kvm.lock")
        patch = mock.patch.dict(os.environ, {kvmlock.ENV_PATH: self.path})
        patch.start()
        self.addCleanup(patch.stop)
        self.addCleanup(kvmlock.release)

    def holder(self):
        """Another process that holds the lock until the test ends."""
        proc = subprocess.Popen([sys.executable, "-c", HOLD],
                                stdout=subprocess.PIPE, text=True,
                                env=dict(os.environ))
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        self.assertEqual(proc.stdout.readline().strip(), "held")
        return proc


class LockTest(Base):
    def test_second_holder_times_out_naming_the_first(self):
        proc = self.holder()
        said = []
        start = time.monotonic()
        with self.assertRaises(kvmlock.LockTimeout) as ctx:
            kvmlock.acquire("second", timeout_s=0.6, say=said.append)
        self.assertGreaterEqual(time.monotonic() - start, 0.6)
        self.assertIn("pid %d" % proc.pid, str(ctx.exception))
        self.assertIn("the holder of this test", said[0])
        self.assertIsNone(kvmlock.record())

    def test_waits_until_the_holder_ends(self):
        proc = self.holder()
        subprocess.Popen(["sh", "-c", "sleep 0.5; kill %d" % proc.pid])
        rec = kvmlock.acquire("waiter", timeout_s=30)
        self.assertTrue(rec["held"])
        self.assertGreater(rec["waited_s"], 0.3)
        self.assertIn("pid %d" % proc.pid, rec["waited_for"])

    def test_scope_releases_and_nests(self):
        with kvmlock.held("outer") as outer:
            self.assertTrue(outer["held"])
            with kvmlock.held("inner") as inner:
                self.assertEqual(inner["path"], self.path)
            self.assertIsNotNone(kvmlock.record(), "inner scope released it")
        self.assertIsNone(kvmlock.record())
        probe = subprocess.run(
            [sys.executable, "-c", HOLD.replace("time.sleep(60)", "")],
            capture_output=True, text=True, timeout=30, env=dict(os.environ))
        self.assertEqual(probe.stdout.strip(), "held")

    def test_forked_child_of_the_holder_does_not_wait(self):
        kvmlock.acquire("parent")
        pid = os.fork()
        if pid == 0:                        # the child: an ab boot
            code = 1
            try:
                kvmlock.acquire("child", timeout_s=0.5)
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)

    def test_other_qemu_is_seen(self):
        fake = os.path.join(self.tmp, "qemu-system-x86_64")
        os.symlink("/bin/sleep", fake)
        proc = subprocess.Popen([fake, "30"])
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        for _ in range(50):
            if any(q["pid"] == proc.pid for q in kvmlock.other_qemus()):
                break
            time.sleep(0.05)
        seen = [q for q in kvmlock.other_qemus() if q["pid"] == proc.pid]
        self.assertEqual(seen, [{"pid": proc.pid,
                                 "comm": "qemu-system-x86"}])
        self.assertNotIn(proc.pid, [q["pid"] for q in
                                    kvmlock.other_qemus(own=(proc.pid,))])


class AbSession(Base):
    """ab's session lock: taken for KVM sides, not for TCG or --no-lock."""

    def sides(self, words):
        """Both sides' plans of run words `words`."""
        from trapmeterlib.commands import ab_sides
        return {name: ab_sides.side_plan(name, list(words), [], None)
                for name in "ab"}

    def test_kvm_session_holds_it_tcg_and_no_lock_do_not(self):
        from trapmeterlib.commands import ab_rounds
        with ab_rounds.kvm_lock(self.sides(["--accel", "kvm"])):
            self.assertIsNotNone(kvmlock.record())
        self.assertIsNone(kvmlock.record())
        for words in (["--accel", "tcg"], ["--accel=kvm", "--no-lock"]):
            with ab_rounds.kvm_lock(self.sides(words)):
                self.assertIsNone(kvmlock.record(), words)


@unittest.skipUnless(os.path.exists("/dev/kvm"), "no /dev/kvm on this host")
class RunRefusesWhenBusy(Base):
    """`trapmeter run --accel kvm` on a busy host: status 17 and the holder
    named, before any QEMU starts."""

    def test_run_exits_17(self):
        proc = self.holder()
        res = subprocess.run(
            [os.path.join(TOOLS, "trapmeter"), "run", "--accel", "kvm",
             "--no-build", "--case", "cpuid", "--lock-timeout", "0.5",
             "--json", os.path.join(self.tmp, "r.json")],
            capture_output=True, text=True, timeout=120, env=dict(os.environ))
        if "KVM requested but" in res.stderr:
            self.skipTest("KVM cannot create a VM here")
        self.assertEqual(res.returncode, exitstatus.LOCK_BUSY, res.stderr)
        self.assertIn("pid %d" % proc.pid, res.stderr)
        self.assertNotIn("Traceback", res.stderr)


if __name__ == "__main__":
    unittest.main()
