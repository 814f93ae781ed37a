"""tests/host/test_early_sigint.py - a ^C in the first tens of
milliseconds of `tools/trapmeter` (started by its #! line, as a user
starts it) ends it as an interruption: status 130, "interrupted", no
traceback.  Python's site import (.pth files that import packages) used
to run before the tool's first line: a SIGINT there ended with Python's
traceback and status 1.  tools/trapmeter now starts Python with -S and
imports site itself after its handlers.

A signal that falls before the tool's first line (Python's own start:
its handler not yet installed, or installed but no line of the tool run
yet) is Python's and is not counted: the process is then killed by
SIGINT (a shell says 130) with at most Python's two-line traceback at
"line 0", or Python stops with its "Fatal Python error" of a start-up
stage (init_sys_streams), or Python's tokenizer, reading the tool's
file, has its read interrupted and raises KeyboardInterrupt outside any
frame: one bare "KeyboardInterrupt" line and status 1 (seen in CI), or
Python's check of argv[0] as a zip archive catches the interruption,
prints it and runs the tool, which never sees the signal.  A
fatal error in init_import_site is counted:
it is the site import the tool now runs itself.  Every other outcome is
counted and must be the tool's."""
import os
import signal
import subprocess
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "trapmeter")
INTERRUPTED = 130
# after the tool's first line and before its library's import ends
# (~0.2 s): the site import lay in 5-30 ms on the project's host; on a
# host so slow that all fall before the tool's first line, the last is
# doubled until one does not
DELAYS = (0.005, 0.01, 0.015, 0.02, 0.03, 0.045)
# what Python itself writes when a signal comes before the tool's line 1
PYTHONS_OWN = ("line 0, in <module>",)
# Python's check of the script as a zip archive caught the signal's
# KeyboardInterrupt, printed it and ran the tool on: the signal was
# spent before the tool's first line, which then ran to its own end
# (seen in CI: the parse of an empty stdin, status 2)
SWALLOWED = "Failed checking if argv[0] is an import path entry"


def signals_default():
    """A caller's ignored SIGINT (a background job) stays ignored by the
    tool; the probe wants it delivered."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


FATAL = "Fatal Python error: "
SITE = "init_import_site"
# the tokenizer's read of the script was interrupted (EINTR, then
# PyErr_CheckSignals): no frame, so no traceback, and not raised by the
# evaluated code, so Python exits 1 rather than dying by SIGINT
WHILE_READING = (1, "KeyboardInterrupt\n")


def before_first_line(proc, err):
    if FATAL in err:
        return SITE not in err
    if (proc.returncode, err) == WHILE_READING or SWALLOWED in err:
        return True
    return proc.returncode == -signal.SIGINT and (
        not err.strip() or any(text in err for text in PYTHONS_OWN))


class EarlySigint(unittest.TestCase):
    def probe(self, delay):
        """SIGINT `delay` s after the start of `parse /dev/stdin` (which
        waits on its open stdin, so that a late signal finds it still
        running); (status, stderr)."""
        proc = subprocess.Popen(
            [TOOL, "parse", "/dev/stdin"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=signals_default)
        try:
            time.sleep(delay)
            proc.send_signal(signal.SIGINT)
            _out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        return proc, err

    def test_an_early_sigint_is_an_interruption(self):
        counted, delays = 0, list(DELAYS)
        while delays:
            delay = delays.pop(0)
            proc, err = self.probe(delay)
            if before_first_line(proc, err):
                if not delays and not counted and delay < 1.0:
                    delays.append(2 * delay)    # a slow start: go later
                continue
            counted += 1
            with self.subTest(delay=delay):
                self.assertNotIn("Traceback", err)
                self.assertNotIn("Exception ignored", err)
                self.assertEqual(proc.returncode, INTERRUPTED, err)
                self.assertEqual(err, "trapmeter: interrupted\n")
        self.assertGreater(counted, 0, "every SIGINT fell in Python's start")

if __name__ == "__main__":
    unittest.main()
