"""The --log file of `trapmeter run`: written atomically and owned by one
run at a time.

A regular file is written through a temporary file beside it and renamed
into place when the boot ends, so a full filesystem or a failed write
leaves the earlier log whole; a boot stopped by a signal still gets what
it received.  A device or FIFO is written in place (report.open_output).
While a run logs to a path it holds a lock (flock on a hidden ".NAME.lock"
beside it, removed at the end), so a second run naming the same --log is
refused instead of tearing the file.  A run killed by SIGKILL leaves its
".NAME.lock" (the kernel drops the flock with the process, so the next
run takes the file over and removes it) and its ".NAME.PID.XXXXXXXX.partial"
temporary file: the next AtomicLog of NAME removes every partial whose
PID is no longer running."""

import errno
import fcntl
import os
import re
import stat
import tempfile

from ..system import privdir
from ..values import exitstatus
from ..values.errors import TrapmeterError
from . import report

LOG_IN_DIR = "serial.log"       # --log DIR/ writes DIR/serial.log


def resolve(path):
    """--log DIR or DIR/ names DIR/serial.log; other paths are kept."""
    if path and (path.endswith(os.sep) or os.path.isdir(path)):
        return os.path.join(path, LOG_IN_DIR)
    return path


def boot_path(base, index, repeat):
    """The log of boot `index`: FILE.bootI.ext with --repeat, else FILE."""
    if base is None or repeat == 1:
        return base
    stem, ext = os.path.splitext(base)
    return "%s.boot%d%s" % (stem, index, ext)


def setting_path(base, setting):
    """The log of one --viommu sweep setting: FILE.SETTING.ext."""
    if base is None:
        return base
    stem, ext = os.path.splitext(base)
    return "%s.%s%s" % (stem, setting, ext)


def _special(path):
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return False


class LockBusy(TrapmeterError):
    """Another live run holds the log's lock; the message says which."""

    code = exitstatus.BAD_INPUT


class Lock:
    """flock on a hidden file beside the log; the file is removed while
    the lock is still held, and an acquirer that locked a removed file
    tries again."""

    def __init__(self, path):
        self.path = None
        self.fd = None
        if _special(path):
            return          # /dev/null, a FIFO: many runs may share them
        head, name = os.path.split(os.path.realpath(path))
        self.path = os.path.join(head, "." + name + ".lock")
        self._acquire()

    def _acquire(self):
        for _attempt in range(10):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace")
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise LockBusy("another run (PID %s) is writing it"
                                   % (holder.strip() or "?"))
                raise
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, b"%d\n" % os.getpid(), 0)
                self.fd = fd
                return
            os.close(fd)        # locked a file its holder had removed
        raise LockBusy("its lock file %s keeps changing" % self.path)

    def release(self):
        if self.fd is None:
            return
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


PARTIAL = ".partial"
# tempfile.mkstemp's random part: 8 of [a-z0-9_]
_RANDOM = r"[a-z0-9_]{8}"


def sweep_partials(folder, prefix):
    """Remove the temporary files PREFIX + PID + "." + random + PARTIAL in
    `folder` whose PID is not running (a run killed before its rename);
    the files of live runs, and every other name, are left alone."""
    pattern = re.compile(re.escape(prefix) + r"(\d{1,7})\." + _RANDOM
                         + re.escape(PARTIAL) + "$")
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        found = pattern.match(name)
        if found and not privdir.pid_alive(int(found.group(1))):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


class AtomicLog:
    """write()/flush() like a file; close() puts the file in place (or,
    after a failed write, removes the temporary file and keeps the old
    log) and returns why it could not, or None."""

    def __init__(self, path):
        self.path = path
        self.failed = None
        self.tmp = None
        if _special(path):
            self.fh = report.open_output(path)
            return
        real = os.path.realpath(path)
        prefix = "." + os.path.basename(real) + "."
        sweep_partials(os.path.dirname(real), prefix)
        fd, self.tmp = tempfile.mkstemp(
            prefix=prefix + "%d." % os.getpid(), suffix=PARTIAL,
            dir=os.path.dirname(real))
        self.target = real
        umask = os.umask(0o022)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        self.fh = os.fdopen(fd, "wb")

    def write(self, data):
        try:
            return self.fh.write(data)
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            raise

    def flush(self):
        try:
            self.fh.flush()
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            raise

    def close(self):
        """None when the log is in place, else why not."""
        try:
            if self.tmp is not None and self.failed is None:
                self.fh.flush()
                os.fsync(self.fh.fileno())
            self.fh.close()
            if self.tmp is not None and self.failed is None:
                os.replace(self.tmp, self.target)
                self.tmp = None
        except OSError as exc:
            self.failed = self.failed or exc.strerror or str(exc)
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
        return self.failed
