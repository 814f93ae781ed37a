"""Run a trapmeter command in a forked copy of this process.

`ab` boots each side dozens of times; a fresh `tools/trapmeter run` process
per boot would pay Python's start and the imports of trapmeterlib again, about
0.5 s of every 4.5-5 s boot cycle on this project's hosts (0.25 s of
imports, the rest the interpreter and a pyenv shim when there is one).  A
fork of the already loaded `ab` process starts the command at once and
keeps what a separate process gives: its own signals, exit status, file
descriptors and children, nothing of its state flowing back.  The parent's
objects are frozen for the fork (gc.freeze): the child's collector would
otherwise walk the parent's whole heap (the results of every boot so far)
and copy its pages on write.

The child dies with the parent (PR_SET_PDEATHSIG), starts with no children
of the parent on its cleanup list, sends stdout to /dev/null and stderr to
`stderr_path` (or leaves it on the terminal), kills what it spawned before
it leaves, and maps any failure to an exit status, never a traceback.  An
interrupt of the parent while it waits is passed on to the child (after a
grace period SIGTERM, which makes it stop its QEMU, then SIGKILL) before it
is raised again."""

import gc
import os
import signal
import sys
import time

from ..values import exitstatus
from . import children

GRACE_S = 5.0


# Blocked across the fork: a signal to the process group (SIGTERM to an
# ab session) that reached the child before its try block ran the
# parent's handler there, and its KeyboardInterrupt went up the parent's
# stack in the child (a traceback, the parent's cleanup run twice).
SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _child_main(main, argv, stderr_path, mask):
    """In the child (SIGNALS blocked): redirect, run main(argv) with the
    parent's signal mask `mask` again, leave with its status, never
    through the parent's stack."""
    code = exitstatus.INTERNAL
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        children.die_with_parent()
        children.disown_all()
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        if stderr_path is not None:
            err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                          0o600)
            os.dup2(err, 2)
        code = main(list(argv))
        sys.stdout.flush()
        sys.stderr.flush()
    except KeyboardInterrupt:
        code = exitstatus.INTERRUPTED
    except BaseException:  # pylint: disable=broad-except
        code = exitstatus.INTERNAL
    finally:
        code = _quiet(code)
        children.stop_all()
        os._exit(code if isinstance(code, int) and 0 <= code < 256
                 else exitstatus.INTERNAL)


def _quiet(code):
    """Block SIGNALS for the child's last steps; an interruption that
    comes before they are blocked makes the status INTERRUPTED."""
    while True:
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
            return code
        except KeyboardInterrupt:
            code = exitstatus.INTERRUPTED


def run(main, argv, stderr_path=None):
    """main(ARGV) in a forked child (the caller passes `trapmeter`'s own
    entry point, loaded already in this process); returns its exit status
    (128 + N when a signal N ended it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()             # the child's collector skips the parent's heap
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        pid = os.fork()
        if pid == 0:
            _child_main(main, argv, stderr_path, mask)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        gc.unfreeze()
    try:
        _pid, wstatus = os.waitpid(pid, 0)
    except BaseException:
        _stop(pid)
        raise
    code = os.waitstatus_to_exitcode(wstatus)
    return 128 - code if code < 0 else code


def _stop(pid):
    """The parent was interrupted: give the child (which a terminal's ^C
    reached too) GRACE_S to stop its boot, then SIGTERM, then SIGKILL."""
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        try:
            if sig is not None:
                os.kill(pid, sig)
            if _reaped_within(pid, GRACE_S):
                return
        except (ProcessLookupError, ChildProcessError):
            return


def _reaped_within(pid, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
        time.sleep(0.05)
    return False
