"""tests/host/test_log_lock.py - `run --log FILE` after a run on the same
FILE was killed by a real SIGKILL (no handler, no atexit): the next run is
not refused by the lock the dead run held (flock dies with its process)
and leaves neither the dead run's ".FILE.lock" nor its ".partial"
temporary file behind; sweep_partials removes only dead runs' files
(tools/trapmeterlib/output/logfile.py)."""
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests.boot.common import pid_gone
from tests.host.test_hostile import OK_LOG, TOOL, Cli
from trapmeterlib.output import logfile


def hidden(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


class KilledRun(Cli):
    def slow_fake(self):
        """A fake QEMU: half the OK log, a mark file, then a long sleep."""
        return self.fake("slow", """
            with open(%r, "rb") as fh:
                log = fh.read()
            out.write(log[:len(log) // 2])
            out.flush()
            open(%r, "w").close()
            time.sleep(120)
            """ % (OK_LOG, self.path("started")))

    def kill_a_run(self, log):
        runner = subprocess.Popen(
            [sys.executable, TOOL, "run", "--no-build", "--accel", "tcg",
             "--qemu", self.slow_fake(), "--log", log, "--json",
             self.path("killed.json")], cwd=self.tmp,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: runner.poll() is None and runner.kill())
        end = time.monotonic() + 30
        while not os.path.exists(self.path("started")):
            self.assertLess(time.monotonic(), end, "the fake QEMU never started")
            time.sleep(0.05)
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait(timeout=10)
        self.assertTrue(pid_gone(runner.pid, 5))

    def test_next_run_after_sigkill(self):
        log = self.path("serial.log")
        self.kill_a_run(log)
        # what the dead run left: its lock file and its partial log
        left = hidden(self.tmp)
        self.assertIn(".serial.log.lock", left)
        self.assertTrue(any(n.endswith(".partial") for n in left), left)
        proc = self.run_fake(self.good_fake(), "--log", log, "--json",
                             self.path("next.json"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("another run", proc.stderr)
        self.assertEqual(hidden(self.tmp), [])
        with open(log, "rb") as fh, open(OK_LOG, "rb") as ok:
            self.assertEqual(fh.read().replace(b"\r\n", b"\n"),
                             ok.read().replace(b"\r\n", b"\n"))


class SweepPartials(unittest.TestCase):
    def test_only_dead_runs_partials_go(self):
        with tempfile.TemporaryDirectory() as folder:
            dead = subprocess.Popen(["true"])
            dead.wait()
            names = {
                "dead": ".s.log.%d.ab_d9xyz.partial" % dead.pid,
                "live": ".s.log.%d.k2j4h5l6.partial" % os.getpid(),
                "other log": ".s.log.5.%d.ab_d9xyz.partial" % dead.pid,
                "old form": ".s.log.ab_d9xyz.partial",
                "not ours": "s.log.%d.ab_d9xyz.partial" % dead.pid}
            for name in names.values():
                open(os.path.join(folder, name), "w").close()
            logfile.sweep_partials(folder, ".s.log.")
            kept = set(os.listdir(folder))
        self.assertNotIn(names.pop("dead"), kept)
        self.assertEqual(kept, set(names.values()))


if __name__ == "__main__":
    unittest.main()
