"""The one answer to "is this a JSON number?" and the one compact number
format of tables and notes.  A boolean is not a number (JSON true is not
1), nor a string, nor null, nor NaN or an infinity (the readers refuse
those; a figure never holds one).  Pure."""

import math


def is_number(value):
    """A finite int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def number_or_none(value):
    """value when is_number(value), else None."""
    return value if is_number(value) else None


def fmt_num(value):
    """Compact, consistent numbers: integers stay integers below 10M,
    floats get 3 significant-ish digits, big values use M/G suffixes."""
    if not is_number(value):
        return "-"
    mag = abs(value)
    if mag >= 1e10:
        return "%.2fG" % (value / 1e9)
    if mag >= 1e7:
        return "%.2fM" % (value / 1e6)
    if isinstance(value, int) or mag >= 100:
        return "%d" % round(value)
    if mag >= 10:
        return "%.1f" % value
    return "%.2f" % value
