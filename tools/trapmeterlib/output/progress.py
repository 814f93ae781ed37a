"""Progress of long work (ab, sensitivity, run --repeat) on stderr.

On a terminal: one status line, rewritten in place ("\\r", erase to the end
of the line) and cut to the terminal's width, so a session of minutes
shows where it is without scrolling; a message printed meanwhile (say())
clears the line, prints, and draws the status again below it.  Not a
terminal (a pipe, a CI log, a file): no status line at all, every
update() that asks for it is one plain line, so a log keeps the history
and holds no control characters.

The status text comes from the callers; status_text() is the common
shape: the fields joined by " | "."""

import shutil
import sys
import time

ERASE = "\r\x1b[K"          # carriage return, erase to the end of the line
MIN_WIDTH = 20
SEPARATOR = " | "
REDRAW_S = 0.1              # at most ten redraws a second on a terminal

_active = None              # the Progress whose line is on the terminal


def active():
    """The Progress showing a status line now, or None."""
    return _active


def is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def status_text(*fields):
    """The fields that are not empty, joined by " | "."""
    return SEPARATOR.join(f for f in fields if f)


class Progress:
    """One status line on a terminal, plain lines elsewhere.  update(text)
    shows the status (plain=True: also a plain line when not a terminal);
    line(text) prints a message that stays; close() clears the status."""

    def __init__(self, stream=None, terminal=None, clock=time.monotonic):
        self.stream = stream or sys.stderr
        self.terminal = is_terminal(self.stream) if terminal is None \
            else terminal
        self.clock = clock
        self.text = ""
        self.drawn = None           # clock() at the last redraw

    def __enter__(self):
        global _active
        if self.terminal:
            _active = self
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def width(self):
        cols = shutil.get_terminal_size((100, 24)).columns
        return max(MIN_WIDTH, cols - 1)

    def _draw(self):
        self.stream.write(ERASE + self.text[:self.width()])
        self.stream.flush()
        self.drawn = self.clock()

    def update(self, text, plain=False, force=False):
        """The status is now `text`.  On a terminal the line is redrawn
        (at most every REDRAW_S unless force); elsewhere it is printed as a
        line only when plain is true."""
        self.text = text
        if not self.terminal:
            if plain:
                self.stream.write(text + "\n")
                self.stream.flush()
            return
        if force or plain or self.drawn is None or \
                self.clock() - self.drawn >= REDRAW_S:
            self._draw()

    def line(self, text):
        """A message that stays, above the status line."""
        if self.terminal and self.text:
            self.stream.write(ERASE)
        self.stream.write(text + "\n")
        if self.terminal and self.text:
            self._draw()
        else:
            self.stream.flush()

    def close(self):
        global _active
        if self.terminal and self.text:
            self.stream.write(ERASE)
            self.stream.flush()
        self.text = ""
        if _active is self:
            _active = None


def elapsed_text(seconds, budget=None):
    """"63 s" or "63/600 s"."""
    if budget:
        return "%.0f/%.0f s" % (seconds, budget)
    return "%.0f s" % seconds

