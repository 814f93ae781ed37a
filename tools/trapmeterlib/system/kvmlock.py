"""tools/trapmeterlib/system/kvmlock.py - one KVM measurement at a time on a
host.

Two trapmeter runs under KVM on one host (or a run and the project's own KVM
tests) disturb each other's figures: each takes a core and the host's caches
from the other, and neither can tell from its own numbers.  Every command
that boots under KVM therefore holds one host-wide lock for its whole
session: a flock(2) on a file every user of the host can open.  A second
run waits, says whom it waits for, and gives up after a timeout with a
named error; `--no-lock` skips the lock for those who know what else runs.

The lock is held for a session, not a boot: `ab` and `bisect` take it
before their first boot, and the runner of each boot, in the same
process, finds it held (this module's record of it), so the session keeps
the host from its first KVM boot to its end; `held()` releases it when
the scope that took it ends.  The
kernel drops a flock when its last holder exits, so a killed run never
leaves a stale lock.  What the session saw (the wait, the holder it waited
for, other QEMU processes running) goes into results.json under
host.kvm_lock."""

import contextlib
import fcntl
import os
import time

from ..values import exitstatus
from ..values.errors import TrapmeterError

ENV_PATH = "TRAPMETER_KVM_LOCK"
LOCK_NAME = "trapmeter-kvm.lock"
DEFAULT_TIMEOUT_S = 1800.0
POLL_S = 0.5
SAY_EVERY_S = 30.0
HOLDER_MAX = 512            # bytes of the holder line read back

_HELD = None                # the record of the lock this process holds


class LockTimeout(TrapmeterError):
    """The lock stayed held by another measurement for the whole timeout."""

    code = exitstatus.LOCK_BUSY


def lock_path():
    """The host-wide lock file: $TRAPMETER_KVM_LOCK, else /run/lock (every
    user may create files there on Debian), else the temporary directory."""
    if os.environ.get(ENV_PATH):
        return os.environ[ENV_PATH]
    for folder in ("/run/lock", "/var/lock", "/tmp"):
        if os.path.isdir(folder) and os.access(folder, os.W_OK):
            return os.path.join(folder, LOCK_NAME)
    return os.path.join("/tmp", LOCK_NAME)


def _open(path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        os.fchmod(fd, 0o666)      # another user's run must open it too
    except OSError:
        pass                      # not ours: its owner set the mode
    return fd


def _try_lock(fd):
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def holder(path):
    """The line the current holder wrote (pid, command, start), or ''."""
    try:
        with open(path, "rb") as fh:
            text = fh.read(HOLDER_MAX).decode("utf-8", "replace")
    except OSError:
        return ""
    return " ".join(text.split())


def _write_holder(fd, command):
    line = "pid %d since %s: %s\n" % (
        os.getpid(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        command[:200])
    os.ftruncate(fd, 0)
    os.pwrite(fd, line.encode("utf-8", "replace"), 0)


def other_qemus(own=()):
    """QEMU processes running on the host, other than the pids in `own`:
    [{"pid": N, "comm": "qemu-system-x86"}]."""
    seen = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return seen
    for name in names:
        if not name.isdigit() or int(name) in own:
            continue
        try:
            with open("/proc/%s/comm" % name) as fh:
                comm = fh.read().strip()
        except OSError:
            continue
        if comm.startswith("qemu-system") or comm.startswith("qemu-kvm"):
            seen.append({"pid": int(name), "comm": comm})
    return sorted(seen, key=lambda q: q["pid"])


def _wait(fd, path, timeout_s, say):
    """Poll the lock until it is ours; returns the holder we waited for."""
    start = time.monotonic()
    waited_for = holder(path)
    say("waiting for the host's KVM lock %s (held by %s; one KVM "
        "measurement at a time, --no-lock to skip)"
        % (path, waited_for or "an unnamed process"))
    next_say = start + SAY_EVERY_S
    while not _try_lock(fd):
        now = time.monotonic()
        if now - start >= timeout_s:
            raise LockTimeout(
                "the host's KVM lock %s stayed held for %.0f s by %s "
                "(--lock-timeout S to wait longer, --no-lock to skip)"
                % (path, timeout_s, holder(path) or "an unnamed process"))
        if now >= next_say:
            say("still waiting for the KVM lock (%.0f s) held by %s"
                % (now - start, holder(path) or "an unnamed process"))
            next_say = now + SAY_EVERY_S
        time.sleep(POLL_S)
    return waited_for


def acquire(command, timeout_s=DEFAULT_TIMEOUT_S, say=lambda text: None):
    """Hold the host's KVM lock for the rest of this process; returns the
    record for results.json.  A process (or a forked child of one) that
    holds it already gets its record back at once."""
    global _HELD
    if _HELD is not None:
        return dict(_HELD)
    path = lock_path()
    try:
        fd = _open(path)
    except OSError as exc:
        raise LockTimeout("cannot open the host's KVM lock %s: %s (--no-lock "
                          "to skip)" % (path, exc.strerror or exc)) from None
    start = time.monotonic()
    waited_for = "" if _try_lock(fd) else _wait(fd, path, timeout_s, say)
    _write_holder(fd, command)
    _HELD = {"path": path, "held": True,
             "waited_s": round(time.monotonic() - start, 3),
             "waited_for": waited_for,
             "other_qemu": other_qemus(own=(os.getpid(),)),
             "fd": fd}
    return record()


@contextlib.contextmanager
def held(command, timeout_s=DEFAULT_TIMEOUT_S, say=lambda text: None):
    """The lock for the `with` block: taken (or, when this process holds it
    already, only looked at) on entry, released on exit by the block that
    took it; yields the record."""
    taken = _HELD is None
    rec = acquire(command, timeout_s, say)
    try:
        yield rec
    finally:
        if taken:
            release()


def record():
    """What results.json keeps of the lock (None: not held)."""
    if _HELD is None:
        return None
    return {k: v for k, v in _HELD.items() if k != "fd"}


def skipped():
    """The record of a session run with --no-lock."""
    return {"held": False, "waited_s": 0.0, "waited_for": "",
            "other_qemu": other_qemus(own=(os.getpid(),))}


def release():
    """Drop the lock (tests; a process's exit drops it too)."""
    global _HELD
    if _HELD is None:
        return
    try:
        os.close(_HELD["fd"])
    finally:
        _HELD = None
