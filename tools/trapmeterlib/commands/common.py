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

from ..guest import dmafit
from ..output import progress, report
from ..values import exitstatus
from ..values.errors import InputError, TrapmeterError

PROG = "trapmeter"
STDERR_TAIL = 20
PROBE_BYTES = 4096          # probe_writable: one page of a full disk
# the suites' own entries of the breakdown (stats/breakdown.py `fits`)
SUITE_FITS = (dmafit,)


class OptionError(InputError):
    """A bad option or option value (BAD_INPUT)."""


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


def say(message, stream=None):
    """"trapmeter: message" on stderr, above a status line if one shows."""
    text = "%s: %s" % (PROG, message)
    if stream is not None:
        print(text, file=stream, flush=True)
    else:
        tell(text)


def tell(line):
    """A line on stderr as it is, above a status line if one shows."""
    shown = progress.active()
    if shown is not None:
        shown.line(line)
    else:
        print(line, file=sys.stderr, flush=True)


def check_words(args):
    """--suite and --case become single kernel words."""
    for name in ("suite", "case"):
        value = getattr(args, name)
        if value is not None and (not value or any(c.isspace()
                                                   for c in value)):
            raise OptionError("--%s must be a non-empty word without spaces "
                              "(got %r)" % (name, value))


def _identity(path):
    """(what the path names, whether it is a character device): the file's
    (device, inode) when it exists, else its real path.  A directory is
    refused; a character device (/dev/null) takes any number of outputs."""
    try:
        info = os.stat(path)
    except OSError:
        return os.path.realpath(path), False
    if stat.S_ISDIR(info.st_mode):
        raise OptionError("%s: is a directory" % path)
    return (info.st_dev, info.st_ino), stat.S_ISCHR(info.st_mode)


def check_outputs(inputs, outputs):
    """The one output rule, checked before any work: an output is not a
    directory, not an input of the same command and not another output
    of it.  inputs: [(name, path)]; outputs: [(option, path or None)]."""
    seen = {}
    for name, path in inputs:
        try:
            info = os.stat(path) if path else None
        except OSError:
            info = None             # its reader names an unreadable input
        if info is not None and not stat.S_ISCHR(info.st_mode):
            seen.setdefault((info.st_dev, info.st_ino),
                            "an input (%s)" % name)
    for option, path in outputs:
        if not path:
            continue
        key, device = _identity(path)
        if device:
            continue
        if key in seen:
            raise OptionError("%s %s is also %s: refusing to overwrite it"
                              % (option, path, seen[key]))
        seen[key] = "the output of " + option


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


def has_report(dump):
    """A bad-input or early failure dump has nothing worth a table."""
    return dump is not None and dump.started and bool(
        dump.run or dump.results or dump.checks or dump.skips)


def report_outcome(outcome, dump, stderr_text, verbose=False):
    """Print guest errors/exceptions, status messages and QEMU's stderr."""
    if dump is not None:
        for line in report.guest_problem_lines(dump.errors, dump.exceptions):
            tell(line)
        for warning in dump.warnings:
            say("warning: " + warning)
    for message in outcome.messages:
        say(message)
    if stderr_text.strip() and (outcome.show_stderr or verbose):
        lines = stderr_text.rstrip("\n").splitlines()[-STDERR_TAIL:]
        for line in lines:
            tell("qemu: " + line)
    sys.stderr.flush()
