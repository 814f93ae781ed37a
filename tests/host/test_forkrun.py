"""tests/host/test_forkrun.py - tools/trapmeterlib/system/forkrun.py: a trapmeter
command in a forked child gives the command's exit status, its stderr in
the named file, nothing on the parent's stdout, and an interrupt of the
parent stops the child."""
import os
import signal
import sys
import tempfile
import time
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib import cli  # noqa: E402
from trapmeterlib.system import forkrun  # noqa: E402


class ForkRun(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tm-fork-")
        self.err = os.path.join(self.dir, "err")

    def tearDown(self):
        for name in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, name))
        os.rmdir(self.dir)

    def test_status_and_stderr_of_a_bad_option(self):
        code = forkrun.run(cli.main, ["run", "--no-such-option"], self.err)
        self.assertEqual(code, 2)
        with open(self.err) as fh:
            self.assertIn("--no-such-option", fh.read())

    def test_the_same_status_as_a_separate_process(self):
        import subprocess
        missing = os.path.join(self.dir, "none.json")
        code = forkrun.run(cli.main, ["compare", missing, missing], self.err)
        proc = subprocess.run([os.path.join(ROOT, "tools", "trapmeter"), "compare",
                               missing, missing], capture_output=True, text=True)
        self.assertNotEqual(code, 0)
        self.assertEqual(code, proc.returncode)
        with open(self.err) as fh:
            self.assertEqual(fh.read(), proc.stderr)

    def test_a_signal_is_128_plus_its_number(self):
        with mock.patch.object(forkrun, "_child_main",
                               lambda main, argv, path, mask=None: os.kill(os.getpid(), signal.SIGKILL)):
            self.assertEqual(forkrun.run(cli.main, ["x"], self.err), 128 + signal.SIGKILL)

    def test_interrupt_stops_the_child(self):
        def sleeper(main, argv, path, mask=None):
            time.sleep(60)
            os._exit(0)

        def interrupt(_sig, _frame):
            raise KeyboardInterrupt
        old = signal.signal(signal.SIGALRM, interrupt)
        self.addCleanup(signal.signal, signal.SIGALRM, old)
        with mock.patch.object(forkrun, "_child_main", sleeper), \
                mock.patch.object(forkrun, "GRACE_S", 0.3):
            begin = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with self.assertRaises(KeyboardInterrupt):
                forkrun.run(cli.main, ["x"], self.err)
        self.assertLess(time.monotonic() - begin, 5)
        with self.assertRaises(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)      # reaped: no child left behind

    def test_a_signal_at_the_fork_stays_in_the_child(self):
        """A group SIGTERM that reaches the child before its try block
        (issue 33): the child ends INTERRUPTED (130) on its own, never by
        raising the parent's KeyboardInterrupt up the parent's stack."""
        parent, real_fork = os.getpid(), os.fork

        def fork_then_signal():
            pid = real_fork()
            if pid == 0:
                os.kill(os.getpid(), signal.SIGTERM)
            return pid

        def interrupt(_sig, _frame):
            raise KeyboardInterrupt
        old = signal.signal(signal.SIGTERM, interrupt)
        self.addCleanup(signal.signal, signal.SIGTERM, old)
        try:
            with mock.patch.object(forkrun.os, "fork", fork_then_signal):
                code = forkrun.run(lambda argv: 0, ["x"], self.err)
        except BaseException:
            if os.getpid() != parent:
                os._exit(99)        # the child ran up the parent's stack
            raise
        self.assertEqual(code, 130)


if __name__ == "__main__":
    unittest.main()
