"""The one base of every exception trapmeter raises, with the exit status
the tool ends with when nothing catches it (values/exitstatus.py).

    TrapmeterError(code, message)   an expected failure with its status
    SubClass(message)               a subclass names its status in `code`
    InputError                      an input the tool refuses: a bad
                                    option, an unreadable or malformed file
                                    (BAD_INPUT)
    OptionError                     a bad option or option value
                                    (BAD_INPUT)
    UnusableInput                   a results file compare cannot use
                                    (UNUSABLE)

cli.py turns any TrapmeterError into one "trapmeter: ..." line and
exc.code; tests/host/test_pylayout.py checks that every exception class
of the library derives from TrapmeterError.  Pure: no I/O."""

from . import exitstatus


class TrapmeterError(Exception):
    """An expected failure: `message` for the user, `code` the exit
    status.  TrapmeterError(code, message), or Sub(message) for a
    subclass whose class attribute `code` is its status."""

    code = exitstatus.INTERNAL

    def __init__(self, *args):
        if len(args) == 2 and isinstance(args[0], int) \
                and not isinstance(args[0], bool):
            self.code, message = args
        else:
            message = args[0] if len(args) == 1 else " ".join(map(str, args))
        super().__init__(message)
        self.message = message if isinstance(message, str) else str(message)


class InputError(TrapmeterError):
    """An input that cannot be used: the message names the file or the
    option and the problem."""

    code = exitstatus.BAD_INPUT


class OptionError(InputError):
    """A bad option or option value (BAD_INPUT)."""


class UnusableInput(InputError):
    """A results file compare cannot use (unreadable, another schema,
    cut or edited)."""

    code = exitstatus.UNUSABLE
