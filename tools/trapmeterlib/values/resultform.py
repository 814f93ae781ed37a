"""Schema 3 result lines: the compact form the guest sends, and the
figures the host derives from it (docs/design.md, "The dump").

Every byte the guest writes to COM1 costs tens of microseconds under a
software hypervisor, so from schema 3 on a result line carries its
statistics as arrays in a fixed order and leaves out what is a pure
function of the rest.  expand() turns such a line back into the schema-2
record every consumer reads (report, compare, breakdown, exitcount), with
the derived figures computed exactly as the guest's integer code did
(lib/fmt.c fmt_decimal: rounded half up).

The net and the cycles per modelled exit follow the figure rule
(values/figure.py): a statistic of case minus control at or below zero is
stored as null with `cycles_net_reason`, and the cost per modelled exit
is divided only from a net above zero (else null with
`cycles_per_exit_model_reason`).  apply_rule() does this for every result
record the dump parser reads, of any schema, and is idempotent, so a
record stored by an earlier runner and its replay compare alike.  The
raw difference stays a function of the stored cycles and cycles_control
(raw_net)."""

from . import exitstatus, figure
from .errors import TrapmeterError
from .numbers import is_number

COMPACT_SCHEMA = 3
CYCLES_KEYS = ("min", "p10", "median", "p90", "p99", "max", "mean", "stddev")
CONTROL_KEYS = ("min", "p10", "median", "p90", "max")
SYNC_KEYS = ("polls_e0", "polls_m0", "polls_m1", "polls_c0", "polls_c1",
             "timeouts", "window_cycles", "count_ops")
ARRAYS = (("cycles", CYCLES_KEYS, True), ("cycles_control", CONTROL_KEYS,
                                          False), ("sync", SYNC_KEYS, False))
NET_KEYS = ("min", "p10", "median")


class FormError(TrapmeterError, ValueError):
    """A schema-3 result line that is not of the documented form."""

    code = exitstatus.GARBLED


def _uint(value):
    return isinstance(value, int) and not isinstance(value, bool) \
        and value >= 0


def decimal(num, den, places):
    """num/den with `places` decimals, rounded half up, as the guest's
    jw_dec prints it and JSON reads it back; None when den is 0."""
    if not den:
        return None
    scaled, rem = divmod(num * 10 ** places, den)
    if 2 * rem >= den:
        scaled += 1
    if not places:
        return float(scaled)
    whole, frac = divmod(scaled, 10 ** places)
    return float("%d.%0*d" % (whole, places, frac))


def cycles_to_ps(cycles, khz):
    """arch/x86/tsc.c tsc_cycles_to_ps: integer, split the same way."""
    return cycles // khz * 10 ** 9 + cycles % khz * 10 ** 9 // khz


def _named(rec, key, names, required):
    value = rec.get(key)
    if value is None and not required:
        return
    if not isinstance(value, list) or len(value) != len(names) \
            or not all(_uint(v) for v in value):
        raise FormError("%s must be an array of %d unsigned integers (%s)"
                        % (key, len(names), ", ".join(names)))
    rec[key] = dict(zip(names, value))


def _control_none(rec):
    """A result without a control says why (the guest's "control_none");
    one with a control must not say both."""
    why = rec.get("control_none")
    if why is None:
        return
    if not isinstance(why, str) or not why:
        raise FormError("control_none must be a non-empty string (why the "
                        "case has no control op)")
    if rec.get("cycles_control") is not None:
        raise FormError("control_none beside cycles_control: a case has a "
                        "control op or says why not, not both")


NET_REASON = figure.BELOW_ZERO + (": the control op took as long as the "
                                  "case or longer")


# A case whose sampling ended on its time budget before its statistics
# settled (its "stop" is "budget"; docs/design.md, "Adaptive sampling"):
# its median may sit anywhere between its fast and its disturbed samples
# (fwcfg.in8.single.1 in boot 0 of tests/fixtures/kvm-run3.json: 7
# samples, min 112,642, median 1,511,274 cycles).  Every table marks it;
# a summary that needs a settled figure leaves it out.
UNSETTLED = "unsettled (stopped on budget)"
UNSETTLED_STOP = "budget"


def unsettled(rec):
    """True for a result whose sampling stopped on its budget (in any
    boot, for a median over boots: "unsettled_boots")."""
    return isinstance(rec, dict) and (rec.get("stop") == UNSETTLED_STOP
                                      or bool(rec.get("unsettled_boots")))


def raw_net(rec, key="median"):
    """Case minus control at one statistic, as measured (it may be below
    zero), from the stored cycles and cycles_control; a record without a
    control dict keeps the net it carries (schema 2).  None when absent."""
    cycles, control = rec.get("cycles"), rec.get("cycles_control")
    if isinstance(cycles, dict) and isinstance(control, dict) and \
            is_number(cycles.get(key)) and is_number(control.get(key)):
        return cycles[key] - control[key]
    net = rec.get("cycles_net")
    value = net.get(key) if isinstance(net, dict) else None
    return value if is_number(value) else None


def _rule_net(rec):
    """cycles_net: each statistic above zero, else null and the reason."""
    if not isinstance(rec.get("cycles_control"), dict) and \
            not isinstance(rec.get("cycles_net"), dict):
        return
    keys = rec["cycles_net"].keys() if isinstance(rec.get("cycles_net"),
                                                  dict) else NET_KEYS
    net = {}
    for key in keys:
        fig = figure.cost(raw_net(rec, key), reason=NET_REASON)
        net[key] = fig.value if fig.resolved else None
    rec["cycles_net"] = net
    if any(v is None for v in net.values()):
        rec["cycles_net_reason"] = NET_REASON
    else:
        rec.pop("cycles_net_reason", None)


def per_exit_model(net, model):
    """The cost of one modelled exit (a model figure): net / model with
    the guest's rounding (1 decimal), only from a net above zero; None
    where the model counts no exit (no such figure)."""
    if not _uint(model) or not model:
        return None
    if net is None or net <= 0:
        return figure.not_resolved(NET_REASON)
    value = decimal(net, model, 1) if isinstance(net, int) \
        else round(float(net) / model, 1)
    return figure.cost(value, kind=figure.MODEL, reason=NET_REASON)


# an exit count per op below zero: the case's window saw fewer exits than
# the empty window of the sync calibration (counters/exitcount.py)
COUNT_BELOW = ("below the sync traffic of an empty window (a count under "
               "zero): not resolved")
# model figures an earlier runner stored without "model" in the name
# (suite ide, before the rename): read under the new names
OLD_MODEL_NAMES = {"ide": (("exits_per_sector", "exits_per_sector_model"),
                           ("data_exits_per_sector",
                            "data_exits_per_sector_model"))}


def _rule_names(rec):
    for old, new in OLD_MODEL_NAMES.get(rec.get("suite"), ()):
        if old in rec and new not in rec:
            rec[new] = rec.pop(old)


def apply_rule(rec):
    """The figure rule on one result record (in place, returned): the net
    and the cost per modelled exit, from the raw figures, and the names of
    model figures.  Idempotent."""
    _rule_names(rec)
    if not isinstance(rec.get("cycles"), dict):
        return rec
    _rule_net(rec)
    net = raw_net(rec) if isinstance(rec.get("cycles_control"), dict) or \
        isinstance(rec.get("cycles_net"), dict) else rec["cycles"].get("median")
    net = net if is_number(net) else None
    if "exits_model" in rec or "cycles_per_exit_model" in rec:
        fig = per_exit_model(net, rec.get("exits_model"))
        if fig is None:
            rec["cycles_per_exit_model"] = None
            rec.pop("cycles_per_exit_model_reason", None)
        else:
            figure.put(rec, "cycles_per_exit_model", fig)
    return rec


def derive(rec, khz):
    """Set the figures that are a pure function of the rest (units, plan,
    net, per unit, ns, cycles per modelled exit)."""
    cycles = rec["cycles"]
    width, size = rec.get("width"), rec.get("bytes")
    units = size // width if _uint(width) and width and _uint(size) else 1
    rec["units"] = units
    rec["plan"] = "fixed" if rec.get("stop") == "plan" else "adaptive"
    rec["cycles_per_unit"] = decimal(cycles["median"], units, 2)
    rec["ns_median"] = decimal(cycles_to_ps(cycles["median"], khz), 1000, 1) \
        if _uint(khz) and khz else None
    rec["cycles_per_exit_model"] = None
    apply_rule(rec)


def expand(rec, run):
    """A schema-3 result record (changed in place, and returned) in the
    schema-2 form; FormError names what is wrong with it."""
    for key, names, required in ARRAYS:
        _named(rec, key, names, required)
    _control_none(rec)
    tsc = run.get("tsc") if isinstance(run, dict) else None
    derive(rec, tsc.get("khz") if isinstance(tsc, dict) else None)
    return rec
