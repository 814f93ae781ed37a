"""stdout and stderr that cannot fail a command: a write to a full
device (/dev/full), a closed descriptor or a closed pipe is remembered
instead of raised, so a run still writes its results files; the command
then names the failure (cli.main) and ends with a bad-input status."""

import errno
import os
import sys


class Guarded:
    """A text stream whose write and flush never raise."""

    def __init__(self, stream, name):
        self.stream = stream
        self.name = name
        self.failed = None if stream is not None else OSError(
            errno.EBADF, "it is closed")

    def write(self, text):
        if self.failed is None:
            try:
                return self.stream.write(text)
            except (OSError, ValueError) as exc:
                self._fail(exc)
        return len(text)

    def flush(self):
        if self.failed is None:
            try:
                self.stream.flush()
            except (OSError, ValueError) as exc:
                self._fail(exc)

    def isatty(self):
        try:
            return self.failed is None and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def _fail(self, exc):
        """Remember why, and point the descriptor at /dev/null so that the
        stream's own buffer flushes quietly at exit."""
        self.failed = exc
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def __getattr__(self, name):
        return getattr(self.stream, name)

    def why(self):
        exc = self.failed
        return getattr(exc, "strerror", None) or str(exc)

    @property
    def broken_pipe(self):
        return getattr(self.failed, "errno", None) == errno.EPIPE


def guard():
    """Install (or reset, in a forked child) the guarded sys.stdout and
    sys.stderr; returns them."""
    streams = []
    for name in ("stdout", "stderr"):
        current = getattr(sys, name)
        if isinstance(current, Guarded):
            current = current.stream
        wrapped = Guarded(current, name)
        setattr(sys, name, wrapped)
        streams.append(wrapped)
    return streams
