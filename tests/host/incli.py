"""tests/host/incli.py - tools/trapmeter's cli.main called in the test's
own process, for the tests that check what a command says and returns
rather than the process around it (a start of the tool costs a Python
start and the library's imports: docs/testing.md, "make test").

run() returns what subprocess.run(capture_output=True, text=True) would:
returncode, stdout and stderr as text.  stdout and stderr are captured at
the descriptor level, so what a child of the command (a fake QEMU) writes
there is captured too.  The working directory, the environment and the
signal handlers cli.main installs are restored afterwards (tempfile's
directory is looked up again from the environment, as a new process
would: TMPDIR); a command that
runs past timeout seconds is stopped by SIGALRM with CommandTimeout.  A
test of exit-time behaviour (signals, orphans, a closed or full stdout,
Python's own start) keeps spawning the tool."""

import os
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib import cli  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "trapmeter")
HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)
# read once, when the library is imported (guest/qemu.py): a test that
# sets one must start the tool as a process
AT_IMPORT = ("TRAPMETER_OVMF_CODE", "TRAPMETER_OVMF_VARS", "TRAPMETER_QBOOT")


class CommandTimeout(BaseException):
    """The command ran past its timeout (BaseException: the CLI's own
    handlers must not turn it into a status)."""


def _alarm(_signum, _frame):
    raise CommandTimeout("the command ran past its timeout")


def run(argv, cwd=None, env=None, timeout=60):
    """cli.main(argv) in this process; a subprocess.CompletedProcess."""
    argv = [str(a) for a in argv]
    for name in AT_IMPORT:
        if env is not None and env.get(name) != os.environ.get(name):
            raise ValueError("%s is read when the library is imported: "
                             "start the tool as a process" % name)
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    saved = _save(cwd, env)
    try:
        _redirect(out, err)
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            code = cli.main(argv)
        except SystemExit as exc:       # argparse's --help
            code = exc.code if isinstance(exc.code, int) else 0
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        _restore(saved)
    return subprocess.CompletedProcess([TOOL] + argv, code, _text(out),
                                       _text(err))


def _save(cwd, env):
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {"cwd": os.getcwd(), "environ": dict(os.environ),
             "stdout": sys.stdout, "stderr": sys.stderr,
             "fds": (os.dup(1), os.dup(2)),
             "signals": {s: signal.getsignal(s) for s in HANDLED},
             "tempdir": tempfile.tempdir}
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    tempfile.tempdir = None         # read TMPDIR again, as a start would
    if cwd is not None:
        os.chdir(cwd)
    return saved


def _redirect(out, err):
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)


def _restore(saved):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    sys.stdout, sys.stderr = saved["stdout"], saved["stderr"]
    for fd, copy in zip((1, 2), saved["fds"]):
        os.dup2(copy, fd)
        os.close(copy)
    for signum, handler in saved["signals"].items():
        signal.signal(signum, handler)
    os.chdir(saved["cwd"])
    if os.environ != saved["environ"]:
        os.environ.clear()
        os.environ.update(saved["environ"])
    tempfile.tempdir = saved["tempdir"]


def _text(fh):
    fh.seek(0)
    data = fh.read()
    fh.close()
    return data.decode("utf-8", "replace")
