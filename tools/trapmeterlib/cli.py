"""Command line: `trapmeter run` boots the guest, `trapmeter parse` checks
an existing serial log. Every expected failure becomes one
"trapmeter: ..." line and a documented exit status, never a traceback.

This module only builds the top parser and dispatches; each command lives
in trapmeterlib/commands/."""

import argparse
import importlib
import signal
import sys

from .commands.common import (PROG, OptionError, Parser, guarded, say,
                              split_extra)
from .system import stdio
from .values import exitstatus

# in `trapmeter --help` order: each command's NAME and its commands/ module
COMMANDS = (("run", "run"), ("parse", "parse"), ("lava-job", "lava_job"),
            ("import-lava", "import_lava"), ("kut", "kut"),
            ("import-kut", "import_kut"), ("compare", "compare"),
            ("ab", "ab"), ("sensitivity", "sensitivity"),
            ("bisect", "bisect"), ("bisect-step", "bisect_step"),
            ("history", "history"))
# commands that take run options of their own and QEMU arguments after --
PASSTHROUGH = ("ab", "sensitivity", "bisect", "bisect-step")


def command_module(name):
    """The commands/ module of the command called name."""
    return importlib.import_module(".commands." + dict(COMMANDS)[name],
                                   __package__)


def build_parser(argv=None):
    """The top parser.  When argv starts with a command's name, only that
    command's module is imported and given a subparser: importing all
    twelve took a quarter of every start of the tool (docs/testing.md)."""
    fmt = argparse.RawDescriptionHelpFormatter
    top = Parser(prog=PROG, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
                 description="Measure VM trap costs (REP string port I/O vs "
                 "single-unit port I/O) by booting the trapmeter guest "
                 "kernel under QEMU.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    named = dict(COMMANDS)
    wanted = argv[0] if argv and argv[0] in named else None
    for name, _module in COMMANDS:
        if wanted in (None, name):
            command_module(name).add_parser(sub, fmt)
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
    parser = build_parser(argv)
    args, unknown = parser.parse_known_args(argv)
    if args.command in PASSTHROUGH:
        # unknown options are run options of the sessions' boots
        return command_module(args.command).command(argparse.Namespace(
            **dict(vars(args), run_options=unknown)), extra)
    if unknown:
        parser.parse_args(argv)         # names the unknown option
    if args.command == "run":
        return command_module("run").command(args, extra)
    if extra:
        raise OptionError("'--' QEMU arguments are only accepted by 'run', "
                          "'ab', 'sensitivity', 'bisect' and 'bisect-step'")
    if args.command is not None:
        return command_module(args.command).command(args)
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
    if argv[:1] == ["bisect-step"] and not verdict and \
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
