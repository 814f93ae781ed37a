"""tests/boot/test_progress.py - progress of long work under TCG, on a real
terminal (stderr on a pseudo-terminal) and on a pipe: `run --repeat` and
`ab` show one status line rewritten in place on the terminal (no line per
suite or round), and plain lines without control characters on a pipe."""
import os
import pty
import select
import shutil
import subprocess
import tempfile
import time
import unittest

from tests.boot.common import ROOT, RUNNER, need_build

ERASE = "\r\x1b[K"
RUN = ["run", "--no-build", "--accel", "tcg", "--suite", "pio",
       "--case", "fwcfg.in8.single.512,pic.in8.single.512", "--repeat", "2"]
AB = ["ab", "--no-build", "--accel", "tcg", "--suite", "pio", "--case",
      "fwcfg.in8.single.512,pic.in8.single.512", "--max-boots", "4",
      "--looks", "1", "--min-samples", "5"]
TIMEOUT_S = 600


def on_a_terminal(argv, cwd):
    """(exit status, stdout, what the program wrote to its terminal):
    stderr on a pseudo-terminal, stdout on a pipe."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([RUNNER] + argv, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    seen, deadline = b"", time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _w, _x = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:         # the terminal is gone: the program ended
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    return proc.wait(timeout=60), out, seen.decode(errors="replace")


class RunRepeat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.dir = tempfile.mkdtemp(prefix="tm-progress-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        cls.tty = on_a_terminal(RUN + ["--json", os.path.join(cls.dir, "t.json")],
                                ROOT)
        cls.pipe = subprocess.run([RUNNER] + RUN + ["--json", os.path.join(
            cls.dir, "p.json")], cwd=ROOT, capture_output=True, text=True,
            timeout=TIMEOUT_S)

    def test_terminal_shows_one_status_line(self):
        code, _out, seen = self.tty
        self.assertEqual(code, 0, seen[-2000:])
        self.assertIn(ERASE + "run | boot 2/2 | ", seen)
        self.assertRegex(seen, r"run \| boot 1/2 \| \d+ s \| pio: ")
        self.assertNotIn("] suite pio", seen)      # no line per suite

    def test_pipe_gets_plain_lines(self):
        self.assertEqual(self.pipe.returncode, 0, self.pipe.stderr[-2000:])
        self.assertIn("trapmeter: boot 2/2\n", self.pipe.stderr)
        self.assertIn("] suite pio\n", self.pipe.stderr)
        self.assertNotIn("\x1b", self.pipe.stderr)
        self.assertNotIn("\r", self.pipe.stderr)


class AbOnATerminal(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_build(cls, "build/trapmeter.elf")
        cls.dir = tempfile.mkdtemp(prefix="tm-progress-ab-")
        cls.addClassCleanup(shutil.rmtree, cls.dir, True)
        paths = ["--a-json", os.path.join(cls.dir, "a.json"),
                 "--b-json", os.path.join(cls.dir, "b.json")]
        cls.code, cls.out, cls.seen = on_a_terminal(AB + paths, ROOT)

    def test_status_line_with_boots_time_and_decisions(self):
        self.assertEqual(self.code, 0, self.seen[-2000:])
        self.assertIn(ERASE + "ab | A 0 B 0 boots | ", self.seen)
        self.assertRegex(self.seen, r"\| side [AB] boot [12]")
        self.assertRegex(self.seen, r"ab \| A 2 B 2 boots \| \d+ s \| \d+/\d+ "
                         r"decided")
        self.assertNotIn("round 2: 2+2 boots", self.seen)   # the plain line

    def test_messages_stay_above_the_status(self):
        self.assertIn(ERASE + "trapmeter: planning boot (side A, not "
                      "compared)", self.seen)
        self.assertTrue(self.seen.endswith(ERASE) or "\n" in self.seen[-200:])

    def test_stdout_starts_with_the_summary(self):
        self.assertTrue(self.out.startswith("trapmeter ab: A "), self.out[:300])
        self.assertIn("\nverdicts (2+2 boots): ", self.out)


if __name__ == "__main__":
    unittest.main()
