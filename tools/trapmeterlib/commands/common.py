"""What several commands share: the option error (values/errors.py holds
the base of every failure), running a command with every failure one
line (guarded), the one-line argparse, "trapmeter: ..." messages, the
repository root, file writers that turn OSError into a bad-input
failure, and the guest problem / QEMU stderr report."""

import argparse
import os
import stat
import sys
import tempfile
import traceback

from ..output import report
from ..output.console import (PROG, has_report, report_outcome,  # noqa: F401
                              say, tell)
from ..session.plan import check_words  # noqa: F401 (lava-job's)
from ..session.record import SUITE_FITS  # noqa: F401 (ab's breakdowns)
from ..system.outpaths import check_outputs  # noqa: F401 (the commands')
from ..values import exitstatus
from ..values.errors import OptionError, TrapmeterError

PROBE_BYTES = 4096          # probe_writable: one page of a full disk


def split_extra(argv):
    """Everything after the first "--" goes to QEMU untouched."""
    if "--" in argv:
        cut = argv.index("--")
        return argv[:cut], argv[cut + 1:]
    return argv, []


def guarded(call):
    """(exit status, True when call() returned it itself): every failure
    is one "trapmeter: ..." line and its status, never a traceback (the
    CLI's commands, and a forked `run` of ab)."""
    try:
        return call(), True
    except TrapmeterError as exc:
        say(("error: " if exc.code in (exitstatus.BAD_INPUT,
                                       exitstatus.QEMU_ERROR,
                                       exitstatus.UNUSABLE)
             else "") + exc.message)
        return exc.code, False
    except KeyboardInterrupt:
        say("interrupted")
        return exitstatus.INTERRUPTED, False
    except BrokenPipeError:
        _silence_stdout()
        return 1, False
    except Exception as exc:  # pylint: disable=broad-except
        if os.environ.get("TRAPMETER_DEBUG"):
            traceback.print_exc()
        say("internal error: %s: %s" % (type(exc).__name__, exc))
        return exitstatus.INTERNAL, False


def _silence_stdout():
    """After a closed pipe (e.g. `| head`), stop Python's exit-time flush
    from raising again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


class Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line instead of usage + exit."""

    def error(self, message):
        raise OptionError("%s (see '%s --help')" % (message, self.prog))


# --budget's ceiling: 30 days of wall time (a longer one is a typo, and
# inf or 1e308 reach int() of an infinite share in the schedule)
MAX_BUDGET_S = 30 * 24 * 3600.0


def _budget_problem(value):
    """Why `value` is no --budget, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not 0 < value <= MAX_BUDGET_S:
        return "must be a number of seconds above 0 and at most %d (30 days), " \
            "not %r" % (MAX_BUDGET_S, value)
    return None


def check_budget(value, option="--budget"):
    """`value` as a float if it is a number of seconds in (0,
    MAX_BUDGET_S], None for None, else an OptionError naming `option`
    (ab's, sensitivity's and bisect's sessions all go through ab's
    SessionConfig.check, which calls this)."""
    if value is None:
        return None
    why = _budget_problem(value)
    if why:
        raise OptionError("%s %s" % (option, why))
    return float(value)


def budget_seconds(text):
    """argparse type of --budget: a float that check_budget takes."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number of seconds: %r" % text)
    why = _budget_problem(value)
    if why:
        raise argparse.ArgumentTypeError(why)
    return value


def repo_root():
    """The repository root, derived from this file
    (tools/trapmeterlib/commands/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.dirname(os.path.dirname(os.path.dirname(here)))


def probe_writable(option, path):
    """Refuse, before any work, an output in a directory that takes no
    file (read-only) or no byte (full): a probe file is written there and
    removed.  An existing non-regular file (/dev/null) is not probed."""
    try:
        info = os.stat(path)
    except OSError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, probe = tempfile.mkstemp(prefix=".trapmeter-probe-", dir=directory)
        try:
            os.write(fd, b"\0" * PROBE_BYTES)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise OptionError("cannot write %s %s: %s" % (
            option, path, exc.strerror or exc)) from None


def write_json(path, doc):
    """results.json-style output; a failure is bad input."""
    try:
        report.write_json_atomic(path, doc)
    except OSError as exc:
        raise OptionError("cannot write %s: %s" % (path, exc))


def write_file(path, data):
    """Bytes to an output through a temp file and a rename: on a full or
    read-only disk nothing, not a 0-byte file, is left; a failure is bad
    input."""
    try:
        report.write_bytes_atomic(path, data)
    except OSError as exc:
        raise OptionError("cannot write %s: %s" % (path, exc.strerror or exc))


