"""Schema 3 result lines: the compact form the guest sends, and the
figures the host derives from it (docs/design.md, "The dump").

Every byte the guest writes to COM1 costs tens of microseconds under a
software hypervisor, so from schema 3 on a result line carries its
statistics as arrays in a fixed order and leaves out what is a pure
function of the rest.  expand() turns such a line back into the schema-2
record every consumer reads (report, compare, breakdown, exitcount), with
the derived figures computed exactly as the guest's integer code did
(lib/fmt.c fmt_decimal: rounded half up)."""

COMPACT_SCHEMA = 3
CYCLES_KEYS = ("min", "p10", "median", "p90", "p99", "max", "mean", "stddev")
CONTROL_KEYS = ("min", "p10", "median", "p90", "max")
SYNC_KEYS = ("polls_e0", "polls_m0", "polls_m1", "polls_c0", "polls_c1",
             "timeouts", "window_cycles", "count_ops")
ARRAYS = (("cycles", CYCLES_KEYS, True), ("cycles_control", CONTROL_KEYS,
                                          False), ("sync", SYNC_KEYS, False))
NET_KEYS = ("min", "p10", "median")


class FormError(ValueError):
    """A schema-3 result line that is not of the documented form."""


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


def _net_median(cycles, control):
    """The median a cost per exit divides (kernel/bench.c of schema 2)."""
    if control is None:
        return cycles["median"]
    return max(cycles["median"] - control["median"], 0)


def derive(rec, khz):
    """Set the figures that are a pure function of the rest (units, plan,
    net, per unit, ns, cycles per modelled exit)."""
    cycles, control = rec["cycles"], rec.get("cycles_control")
    width, size = rec.get("width"), rec.get("bytes")
    units = size // width if _uint(width) and width and _uint(size) else 1
    rec["units"] = units
    rec["plan"] = "fixed" if rec.get("stop") == "plan" else "adaptive"
    if control is not None:
        rec["cycles_net"] = {k: cycles[k] - control[k] for k in NET_KEYS}
    rec["cycles_per_unit"] = decimal(cycles["median"], units, 2)
    rec["ns_median"] = decimal(cycles_to_ps(cycles["median"], khz), 1000, 1) \
        if _uint(khz) and khz else None
    model = rec.get("exits_model")
    rec["cycles_per_exit_model"] = decimal(
        _net_median(cycles, control), model, 1) if _uint(model) else None


def expand(rec, run):
    """A schema-3 result record (changed in place, and returned) in the
    schema-2 form; FormError names what is wrong with it."""
    for key, names, required in ARRAYS:
        _named(rec, key, names, required)
    _control_none(rec)
    tsc = run.get("tsc") if isinstance(run, dict) else None
    derive(rec, tsc.get("khz") if isinstance(tsc, dict) else None)
    return rec
