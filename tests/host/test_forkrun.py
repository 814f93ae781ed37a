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
        code = forkrun.run(["run", "--no-such-option"], self.err)
        self.assertEqual(code, 2)
        with open(self.err) as fh:
            self.assertIn("--no-such-option", fh.read())

    def test_the_same_status_as_a_separate_process(self):
        import subprocess
        missing = os.path.join(self.dir, "none.json")
        code = forkrun.run(["compare", missing, missing], self.err)
        proc = subprocess.run([os.path.join(ROOT, "tools", "trapmeter"), "compare",
                               missing, missing], capture_output=True, text=True)
        self.assertNotEqual(code, 0)
        self.assertEqual(code, proc.returncode)
        with open(self.err) as fh:
            self.assertEqual(fh.read(), proc.stderr)

    def test_a_signal_is_128_plus_its_number(self):
        with mock.patch.object(forkrun, "_child_main",
                               lambda argv, path: os.kill(os.getpid(), signal.SIGKILL)):
            self.assertEqual(forkrun.run(["x"], self.err), 128 + signal.SIGKILL)

    def test_interrupt_stops_the_child(self):
        def sleeper(argv, path):
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
                forkrun.run(["x"], self.err)
        self.assertLess(time.monotonic() - begin, 5)
        with self.assertRaises(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)      # reaped: no child left behind


if __name__ == "__main__":
    unittest.main()
