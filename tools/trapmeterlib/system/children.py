"""Start helper processes (QEMU, perf, testpmd, a QEMU wrapper) so that they
never outlive the runner.

    from .children import die_with_parent, spawn, stop
    proc = spawn(argv, stdin=..., stdout=..., stderr=...)   # a Popen
    ...
    stop(proc)          # SIGTERM the child's process group, SIGKILL later
    done = run(argv, timeout=5, capture_output=True)    # short helpers

How a child dies with the runner:
- The child runs in its own session and process group (so a terminal's
  Ctrl-C reaches only the runner, which then stops it in order).
- Between fork and exec the child asks the kernel for SIGKILL when its
  parent dies (prctl PR_SET_PDEATHSIG).  That survives exec (a wrapper
  script that `exec`s QEMU keeps it) and covers SIGKILL of the runner.
  The kernel sends it when the *thread* that forked the child exits, not
  the process: call spawn() from the main thread or from a thread that
  lives as long as the child.  If the parent died before prctl took
  effect, the child exits at once (getppid() changed).
- On a normal exit of the runner (return, exception, SIGTERM turned into
  KeyboardInterrupt by cli.py) every child still running has its process
  group killed by an atexit hook, which also catches grandchildren a
  wrapper forked into the group.

Linux only (ctypes on libc); where prctl is unavailable the child still
gets its own group and the atexit hook."""

import atexit
import ctypes
import ctypes.util
import os
import signal
import subprocess

from . import priority

PR_SET_PDEATHSIG = 1
GRACE_S = 2.0

_LIVE = []          # children spawned and not yet stopped


def _libc():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6",
                           use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def die_with_parent():
    """A preexec_fn for short subprocess.run() calls: SIGKILL when the
    parent (thread) dies.  spawn() uses it and more."""
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _in_child(parent_pid, cpus, nice=None):
    """preexec_fn: runs in the child between fork and exec."""
    die_with_parent()
    if os.getppid() != parent_pid:      # the runner died before prctl
        os._exit(1)
    if cpus:
        os.sched_setaffinity(0, cpus)   # inherited by every thread
    priority.apply_in_child(nice)       # so is the niceness


def spawn(argv, cpus=None, nice=None, **popen_kw):
    """subprocess.Popen(argv, **popen_kw) in a new session, killed when
    the runner dies, confined to the CPUs `cpus` and at niceness `nice`
    when given (priority.parse checked that it may).  Raises OSError like
    Popen when argv[0] cannot run."""
    parent = os.getpid()
    popen_kw.setdefault("start_new_session", True)
    proc = subprocess.Popen(argv, preexec_fn=lambda: _in_child(parent, cpus,
                                                               nice),
                            **popen_kw)
    _LIVE.append(proc)
    return proc


def run(argv, timeout=None, input=None, capture_output=False, **popen_kw):
    """subprocess.run for a short helper (QEMU's --version, make, gnuplot,
    perf): started by spawn(), and its whole process group stopped when
    it times out (subprocess.TimeoutExpired, as subprocess.run raises) or
    the runner is interrupted, so a wrapper script's own children go too.
    Returns a CompletedProcess."""
    # pylint: disable=redefined-builtin
    if capture_output:
        popen_kw.setdefault("stdout", subprocess.PIPE)
        popen_kw.setdefault("stderr", subprocess.PIPE)
    if input is not None:
        popen_kw["stdin"] = subprocess.PIPE
    proc = spawn(argv, **popen_kw)
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        stop(proc, 0.5)
        raise
    stop(proc, 0.5)         # the group: what the helper left running
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            proc.send_signal(sig)
        except OSError:
            pass


def stop(proc, grace_s=GRACE_S):
    """SIGTERM the child's process group; SIGKILL it after grace_s; reap.
    The group is killed even when the child itself has exited already (a
    wrapper's leftovers)."""
    if proc.poll() is None:
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass
    _signal_group(proc, signal.SIGKILL)
    _reap(proc)


def _reap(proc):
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass
    forget(proc)


def forget(proc):
    """Drop a reaped child from the atexit list."""
    if proc in _LIVE:
        _LIVE.remove(proc)


def disown_all():
    """In a forked copy of the runner: the children on the list are the
    parent's, not this process's to stop."""
    del _LIVE[:]


def stop_all():
    """Kill the group of every child still running (atexit).  A child
    already reaped is left alone: its PID may belong to someone else now."""
    for proc in list(_LIVE):
        if proc.poll() is None:
            _signal_group(proc, signal.SIGKILL)
        _reap(proc)


atexit.register(stop_all)
