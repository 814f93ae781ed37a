"""Command line: `trapmeter run` boots the guest, `trapmeter parse` checks
an existing serial log. Every expected failure becomes one
"trapmeter: ..." line and a documented exit status, never a traceback.

This module only builds the top parser and dispatches; each command lives
in trapmeterlib/commands/."""

import argparse
import signal
import sys

from .commands import (ab, bisect, bisect_step, compare, history,
                       import_kut, import_lava, kut, lava_job, parse, run,
                       sensitivity)
from .commands.common import (PROG, OptionError, Parser, guarded, say,
                              split_extra)
from .system import stdio
from .values import exitstatus

# in `trapmeter --help` order
COMMANDS = (run, parse, lava_job, import_lava, kut, import_kut, compare, ab,
            sensitivity, bisect, bisect_step, history)
# commands that take run options of their own and QEMU arguments after --
PASSTHROUGH = (ab, sensitivity, bisect, bisect_step)


def build_parser():
    fmt = argparse.RawDescriptionHelpFormatter
    top = Parser(prog=PROG, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
                 description="Measure VM trap costs (REP string port I/O vs "
                 "single-unit port I/O) by booting the trapmeter guest "
                 "kernel under QEMU.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub, fmt)
    return top


def _raise_interrupt(_signum, _frame):
    raise KeyboardInterrupt


def interrupt_on_signals():
    """SIGTERM and SIGHUP end a command like ^C: what it completed is
    written (tools/trapmeter installs this before the heavy imports).  A
    SIGHUP ignored by the caller (nohup) stays ignored."""
    signal.signal(signal.SIGTERM, _raise_interrupt)
    if signal.getsignal(signal.SIGHUP) != signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _raise_interrupt)


def dispatch(argv):
    argv, extra = split_extra(list(argv))
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    for module in PASSTHROUGH:
        if args.command == module.NAME:
            # unknown options are run options of the sessions' boots
            return module.command(argparse.Namespace(
                **dict(vars(args), run_options=unknown)), extra)
    if unknown:
        parser.parse_args(argv)         # names the unknown option
    if args.command == run.NAME:
        return run.command(args, extra)
    if extra:
        raise OptionError("'--' QEMU arguments are only accepted by 'run', "
                          "'ab', 'sensitivity', 'bisect' and 'bisect-step'")
    for module in COMMANDS:
        if args.command == module.NAME:
            return module.command(args)
    raise OptionError("a command is required: run, parse, compare, ab, "
                      "sensitivity, bisect, bisect-step, lava-job, "
                      "import-lava, kut, import-kut or history (see '%s "
                      "--help')"
                      % PROG)


def main(argv=None):
    """Entry point: map every failure to one line and an exit status; a
    stdout that could not be written is named at the end.  Under
    bisect-step every failure is 128, which stops `git bisect run` (1-127
    would read as "bad", 125 as "skip")."""
    interrupt_on_signals()
    out, _err = stdio.guard()
    argv = list(sys.argv[1:] if argv is None else argv)
    code, verdict = _run(argv)
    out.flush()
    named = _stdout_status(out, code)
    if named != code:
        code, verdict = named, False
    if argv[:1] == [bisect_step.NAME] and not verdict and \
            code < exitstatus.STEP_ABORT:
        say("bisect-step: status %d is no verdict: exit %d, so that git "
            "bisect run stops" % (code, exitstatus.STEP_ABORT))
        return exitstatus.STEP_ABORT
    return code


def _stdout_status(out, code):
    """The status once a stdout that could not be written is named."""
    if out.failed is None or code == exitstatus.INTERRUPTED:
        return code
    if out.broken_pipe:
        return code or 1            # `| head`: the reader left; quietly
    say("error: cannot write stdout: %s (the results files were written)"
        % out.why())
    return code or exitstatus.BAD_INPUT


def _run(argv):
    """(exit status, True when the command returned it itself)."""
    return guarded(lambda: dispatch(argv))
