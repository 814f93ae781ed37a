"""tests/host/inprocess.py - `tools/trapmeter ARGS` run in the test's own
process: cli.main with its stdout and stderr captured, in a working
directory of the caller's choice, the signal handlers it installs put
back afterwards.  For a test of what a command checks, says and returns,
where a new Python process (its start and imports, most of such a test's
time) is not what the test guards; exit statuses that only the process
shows (signals, orphans, tools/trapmeter's own start) keep a spawn."""
import contextlib
import io
import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib import cli  # noqa: E402

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def trapmeter(*argv, cwd=None):
    """A subprocess.CompletedProcess of `trapmeter ARGV` run by cli.main
    here: its exit status, stdout and stderr as text."""
    out, err = io.StringIO(), io.StringIO()
    handlers = {sig: signal.getsignal(sig) for sig in SIGNALS}
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
    finally:
        os.chdir(here)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return subprocess.CompletedProcess(["trapmeter"] + list(argv), code,
                                       out.getvalue(), err.getvalue())
