"""What a command says on stderr: "trapmeter: message" lines (above a
status line when one shows), a boot's guest problems, status messages and
the tail of QEMU's stderr.  A caller that keeps a boot's words for later
(ab's quiet boots) passes its own say/tell to the runner instead."""

import sys

from . import progress, report

PROG = "trapmeter"
STDERR_TAIL = 20


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


def has_report(dump):
    """A bad-input or early failure dump has nothing worth a table."""
    return dump is not None and dump.started and bool(
        dump.run or dump.results or dump.checks or dump.skips)


def report_outcome(outcome, dump, stderr_text, verbose=False, say=say,
                   tell=tell):
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
