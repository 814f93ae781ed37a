"""Signals held while a command writes its final outputs: a SIGINT,
SIGTERM or SIGHUP that comes while results.json and the JUnit file are
being written is dropped (and said), so the files and the exit status
agree on the outcome; one that comes before is an interruption as
usual (cli.py)."""

import contextlib
import signal

SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


FINISHED = "while the results were written: ignored, the run had finished"


@contextlib.contextmanager
def deferred(say, why=FINISHED):
    """Block SIGNALS for the block; drop those that came meanwhile and
    say so: "SIGINT <why>"."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        came = signal.sigpending() & SIGNALS
        saved = {sig: signal.signal(sig, signal.SIG_IGN) for sig in came}
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        if came:
            say("%s %s" % (", ".join(sorted(signal.Signals(s).name
                                            for s in came)), why))
