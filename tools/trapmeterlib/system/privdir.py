"""The runner's private temporary directory, one per run, named after the
runner's PID (trapmeter-PID-XXXX in the temp dir), so that the directory of
a run that was killed (SIGKILL leaves no chance to clean up) can be told
apart and removed by the next run: only directories owned by this user
whose PID no longer exists are removed."""

import os
import re
import shutil
import tempfile

PREFIX = "trapmeter-"
NAME_RE = re.compile(r"^trapmeter-(\d+)-[A-Za-z0-9_]+$")


def make(tag=""):
    """A new private directory for this run (mode 0700); TAG (letters and
    digits, e.g. "ab") says which command made it: trapmeter-PID-TAG_XXXX."""
    return tempfile.mkdtemp(prefix="%s%d-%s" % (PREFIX, os.getpid(),
                                                 tag + "_" if tag else ""))


def fresh(tag, say=None):
    """remove_stale(), each removal told to SAY, then make(TAG): what every
    command that keeps files of its own between boots starts with."""
    for gone in remove_stale():
        if say:
            say("removed %s, left by a dead run" % gone)
    return make(tag)


def remove(path):
    """Remove a private directory and everything in it."""
    shutil.rmtree(path, ignore_errors=True)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True         # exists, someone else's
    return True


def remove_stale(tmp=None):
    """Remove private directories of dead runs; returns their paths."""
    tmp = tmp or tempfile.gettempdir()
    removed = []
    try:
        names = os.listdir(tmp)
    except OSError:
        return removed
    for name in names:
        match = NAME_RE.match(name)
        if not match:
            continue
        path = os.path.join(tmp, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if (not os.path.isdir(path) or os.path.islink(path)
                or st.st_uid != os.geteuid()):
            continue
        pid = int(match.group(1))
        if pid == os.getpid() or pid_alive(pid):
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.exists(path):
            removed.append(path)
    return removed
