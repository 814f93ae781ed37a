"""The figure rule: what every number trapmeter shows or stores is.

A figure is of one of three kinds:

  measured      taken from the boots (a minimum, a median, a fit over the
                boots' rows), with its interval where it has one;
  model         worked out from the exit model (an exit count the guest
                expects, a cost divided by it), not counted; every output
                labels it "(model)" (a column header may carry the label
                for all its cells);
  not_resolved  what the data cannot give here, with the reason and no
                value.

A cost (cycles, ns, a component of one exit) is never shown or stored
below zero, and a zero is never made up: cost() turns an estimate at or
below zero, or an interval that holds zero, into not_resolved with that
reason.  An in-kernel single access that a backend cannot separate from
its loop (its loop costs what its RAM twin costs) is NOT_IDENTIFIABLE.
An extrapolation is a model figure, named so by its label.

The API every output uses (console tables, the breakdown, results.json,
markdown, JUnit, plots, summaries):

  Figure(kind, value, interval, reason)   immutable; .resolved
  measured(value, interval=None)          a measured figure
  model(value)                            a model figure
  not_resolved(reason)                    no value, a reason
  cost(value, interval=None, kind=MEASURED, reason=None)
                                          the rule for a cost: measured or
                                          model when above zero (interval
                                          too), else not_resolved; `reason`
                                          is the one to give when value is
                                          None
  text(figure, number=None, label=True, short=True)
                                          the one formatter: "23,121",
                                          "23,121±152", "1.25 (model)",
                                          "n.r." (short) or "not resolved
                                          (estimate below zero)"
  to_json(figure, absent=None)            results.json's form of a cost:
  from_json(obj)                          {"kind", "cycles", "ci",
                                          "reason"} (the breakdown's
                                          components); figure None: a
                                          figure that does not exist
                                          here, kind null, `absent` why;
                                          from_json is its one reader
  put(record, key, figure)                a flat record's form: key holds
                                          the value or null, key_ci the
                                          interval (when there is one),
                                          key_reason the reason (only when
                                          not resolved)
  get(record, key, kind=MEASURED)         put's inverse
  speedup(value, interval, reason=None)   the rule for a speed-up (a ratio
                                          of two times, single / REP): a
                                          measured figure only with its
                                          interval, and only where that
                                          interval lies above zero and
                                          off 1x; else not_resolved
                                          (NO_INTERVAL, HOLDS_ZERO,
                                          HOLDS_ONE, or `reason`)
  times_text(figure, short=True)          the one formatter of a speed-up:
                                          "114x (99-123)", "n.r." or "not
                                          resolved (...)"
  percent_text(figure, places=1, signed=False, level=None, short=True)
                                          the one formatter of a share or
                                          a relative change (value and
                                          interval as fractions): "12.5 %",
                                          "12 % (10-14)", "+2.4 % [+1.1..
                                          +3.6, 95 % interval]", "3.0 %
                                          (model)", "n.r."

A speed-up and its interval are computed in one place
(stats/speedup.py) and go through speedup() there; results.json keeps
them by put() under "speedup" (results.json schema 4).

Pure: no I/O, no state."""

from collections import namedtuple

from .numbers import is_number

MEASURED = "measured"
MODEL = "model"
NOT_RESOLVED = "not_resolved"
KINDS = (MEASURED, MODEL, NOT_RESOLVED)

# the reasons the rule itself gives; callers may give others
BELOW_ZERO = "estimate at or below zero"
HOLDS_ZERO = "interval holds zero"
NOT_IDENTIFIABLE = ("not identifiable here: this backend cannot separate "
                    "the in-kernel access from its loop")
NO_DATA = "no figure in the data"
# of a speed-up (speedup()): 1x is "as fast as the single-unit loop"
HOLDS_ONE = "interval holds 1x: neither side shown faster"
NO_INTERVAL = "no interval"

SHORT = "n.r."              # a table cell that is not resolved
MODEL_LABEL = " (model)"
REASON_SUFFIX = "_reason"
CI_SUFFIX = "_ci"


class Figure(namedtuple("Figure", "kind value interval reason")):
    """One figure: kind (MEASURED, MODEL, NOT_RESOLVED), value (None when
    not resolved), interval ([lo, hi] or None), reason (not resolved only)."""

    __slots__ = ()

    @property
    def resolved(self):
        return self.kind != NOT_RESOLVED


def measured(value, interval=None):
    if not is_number(value):
        raise ValueError("a measured figure needs a finite number, not %r"
                         % (value,))
    return Figure(MEASURED, value, _pair(interval), None)


def model(value):
    if not is_number(value):
        raise ValueError("a model figure needs a finite number, not %r"
                         % (value,))
    return Figure(MODEL, value, None, None)


def not_resolved(reason):
    if not isinstance(reason, str) or not reason:
        raise ValueError("a figure that is not resolved needs a reason")
    return Figure(NOT_RESOLVED, None, None, reason)


def _pair(interval):
    if interval is None:
        return None
    lo, hi = interval
    if not (is_number(lo) and is_number(hi)) or lo > hi:
        raise ValueError("an interval is [lo, hi] with lo <= hi, not %r"
                         % (interval,))
    return [lo, hi]


def cost(value, interval=None, kind=MEASURED, reason=None):
    """A cost by the rule: above zero (and its interval, where it has one,
    above zero too) it is `kind` (MEASURED or MODEL; a model figure keeps
    no interval); else not resolved, BELOW_ZERO or HOLDS_ZERO.  value None:
    not resolved with `reason` (NO_DATA by default)."""
    if value is None or not is_number(value):
        return not_resolved(reason or NO_DATA)
    if value <= 0:
        return not_resolved(BELOW_ZERO)
    if interval is not None and interval[0] is not None and interval[0] <= 0:
        return not_resolved(HOLDS_ZERO)
    if kind == MODEL:
        return model(value)
    if kind != MEASURED:
        raise ValueError("a cost is measured or model, not %r" % (kind,))
    return measured(value, interval)


def _grouped(value, places=0):
    return "{:,.{}f}".format(value, places)


def text(figure, number=None, label=True, short=True):
    """The figure as a table cell or a sentence's word.  number(value) ->
    str formats the value (default: thousands grouped, no decimals); a
    measured figure with an interval adds "±" its half-width; a model
    figure adds " (model)" unless label is False (its column's header
    says it); a figure not resolved is SHORT, or with short=False
    "not resolved (REASON)"."""
    if not figure.resolved:
        return SHORT if short else "not resolved (%s)" % figure.reason
    number = number or _grouped
    out = number(figure.value)
    if figure.interval is not None:
        out += "\u00b1" + number((figure.interval[1] - figure.interval[0]) / 2)
    if figure.kind == MODEL and label:
        out += MODEL_LABEL
    return out


JSON_KEYS = ("cycles", "ci", "kind", "reason")


def to_json(figure, absent=None):
    """results.json's form of a cost figure: {"cycles": value or null,
    "ci": interval or null, "kind", "reason"}.  figure None: a figure
    that does not exist here (a layer the class does not have): kind
    null, `absent` the reason."""
    if figure is None:
        if not isinstance(absent, str) or not absent:
            raise ValueError("a figure that does not exist needs a reason")
        return {"cycles": None, "ci": None, "kind": None, "reason": absent}
    return {"cycles": figure.value, "ci": figure.interval,
            "kind": figure.kind, "reason": figure.reason}


def from_json(obj):
    """to_json's inverse: a Figure, or None for kind null (no such
    figure).  The form written before the rule ({"cycles", "ci"}, no
    "kind") reads by cost() as a measured cost (both null: no such
    figure).  ValueError on anything else."""
    if not isinstance(obj, dict):
        raise ValueError("not a figure: %r" % (obj,))
    if "kind" not in obj:
        if obj.get("cycles") is None and obj.get("ci") is None:
            return None
        return cost(obj.get("cycles"), obj.get("ci"))
    kind = obj["kind"]
    if kind is None:
        return None
    if kind not in KINDS:
        raise ValueError("not a figure: %r" % (obj,))
    if kind == NOT_RESOLVED:
        return not_resolved(obj.get("reason"))
    if kind == MODEL:
        return model(obj.get("cycles"))
    return measured(obj.get("cycles"), obj.get("ci"))


def put(record, key, figure):
    """Store `figure` in a flat record: record[key] the value (None when
    not resolved), record[key_ci] its interval where it has one,
    record[key_reason] the reason where it is not resolved (a reason left
    from before is removed once the figure is resolved)."""
    record[key] = figure.value
    if figure.interval is not None:
        record[key + CI_SUFFIX] = figure.interval
    if figure.resolved:
        record.pop(key + REASON_SUFFIX, None)
    else:
        record[key + REASON_SUFFIX] = figure.reason
    return record


def get(record, key, kind=MEASURED):
    """The figure put() stored under `key` (of `kind` when it has a value):
    a null value is not resolved, with the stored reason or NO_DATA."""
    value = record.get(key) if isinstance(record, dict) else None
    if value is None or not is_number(value):
        why = record.get(key + REASON_SUFFIX) if isinstance(record, dict) \
            else None
        return not_resolved(why if isinstance(why, str) and why else NO_DATA)
    if kind == MODEL:
        return model(value)
    return measured(value, record.get(key + CI_SUFFIX))


def speedup(value, interval, reason=None):
    """A speed-up by the rule: measured with its interval [lo, hi] when
    the value and the interval's low end lie above zero and the interval
    does not hold 1x (which side is faster is then resolved); else not
    resolved: BELOW_ZERO, NO_INTERVAL (a speed-up is never shown without
    one), HOLDS_ZERO, HOLDS_ONE.  value None: not resolved with `reason`
    (NO_DATA by default)."""
    if value is None or not is_number(value):
        return not_resolved(reason or NO_DATA)
    if value <= 0:
        return not_resolved(BELOW_ZERO)
    if interval is None:
        return not_resolved(reason or NO_INTERVAL)
    lo, hi = _pair(interval)
    if lo <= 0:
        return not_resolved(HOLDS_ZERO)
    if lo <= 1.0 <= hi:
        return not_resolved(HOLDS_ONE)
    return measured(value, [lo, hi])


def times(value):
    """A speed-up's number: no decimals from 100 up, one below."""
    return ("%.0f" if value >= 100 else "%.1f") % value


def times_text(fig, short=True):
    """A speed-up figure with its interval, "114x (99-123)", or SHORT
    (short=False: "not resolved (REASON)").  The interval is written out
    whole, not as "\u00b1": a ratio's from two sides' order statistics is
    not centred on it.  A figure without an interval shows as
    NO_INTERVAL, not as a bare number (the rule, speedup(), never makes
    one)."""
    if fig.resolved and fig.interval is None:
        fig = not_resolved(NO_INTERVAL)
    if not fig.resolved:
        return text(fig, short=short)
    lo, hi = fig.interval
    return "%sx (%s-%s)" % (times(fig.value), _off_one(lo), _off_one(hi))


def _off_one(end):
    """An interval's end that lies off 1x printed so that it reads so
    ("1.02", not "1.0"): the rule resolved a speed-up because of it."""
    out, places = times(end), 2
    while float(out) == 1.0 and end != 1.0 and places <= 4:
        out, places = "%.*f" % (places, end), places + 1
    return out


def percent_text(fig, places=1, signed=False, level=None, short=True):
    """A share or a relative change in per cent (the figure's value and
    interval are fractions: 0.125 is 12.5 %): "12.5 %"; a measured figure
    with its interval "12 % (10-14)", signed (a change, +/- written)
    "+2.4 % [+1.1..+3.6]", with `level` (a coverage, a fraction) named
    inside: "[+1.1..+3.6, 95 % interval]"; a model figure labelled
    "(model)"; a figure not resolved SHORT, or with short=False
    "not resolved (REASON)".  Every hand-made "N %" of the host library
    is either this or a setting the figure scan lists
    (tests/host/test_figure_bare.py)."""
    if not fig.resolved:
        return text(fig, short=short)

    def number(value):
        return ("%+.*f" if signed else "%.*f") % (places, 100 * value)
    out = number(fig.value) + " %"
    if fig.interval is not None:
        lo, hi = (number(end) for end in fig.interval)
        ends = ("%s..%s" if signed else "%s-%s") % (lo, hi)
        if level is not None:
            ends += ", %s %% interval" % _level(level)
        out += (" [%s]" if signed else " (%s)") % ends
    if fig.kind == MODEL:
        out += MODEL_LABEL
    return out


def _level(level):
    """A coverage with the digits it needs: 95, 99.7."""
    return "%.3g" % (100 * level)
