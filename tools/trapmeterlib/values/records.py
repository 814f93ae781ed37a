"""The shape of the guest's records: what a sealed line must hold beyond a
valid count and CRC (a resealed log can carry any JSON).  dump.py refuses
a record that breaks it by its line number, like a bad number.

The fields are those the guest writes (kernel/, lib/json.c: jw_u64 is an
integer >= 0, jw_str a string, jw_bool a boolean; null where a figure or
string is not resolved, never for a required field); a field the table
below does not name is not checked, so a newer guest's fields pass.  The
status record's counts must agree with its status (kernel/main.c
finish(): "ok" has no failed check and no dropped line).  group_by_case
is the one grouping of several boots' records by case."""

from .numbers import is_number

STR, BOOL, COUNT, FIGURE, CYCLES = "string", "boolean", "count", "figure", \
    "cycles"

# type: ({field: kind}, required fields)
SCHEMA = {
    "result": ({"case": STR, "suite": STR, "method": STR, "dir": STR,
                "target": STR, "handler": STR, "port": STR, "rep_impl": STR,
                "stop": STR, "bytes": COUNT, "samples": COUNT, "iters": COUNT,
                "units": COUNT, "ops": COUNT, "width": COUNT,
                "buf_offset": COUNT, "exits_model": COUNT,
                "string_instrs": COUNT, "cycles_per_unit": FIGURE,
                "ns_median": FIGURE, "cycles_per_exit_model": FIGURE,
                "case_ms": FIGURE, "cycles": CYCLES},
               ("case", "suite")),
    # a schema that is not an integer ("4") would read as no schema, and
    # the parser would apply schema 1's rules to the dump
    "run": ({"schema": COUNT}, ()),
    "check": ({"name": STR, "ok": BOOL, "detail": STR}, ("name", "ok")),
    "skip": ({"suite": STR, "case": STR, "reason": STR}, ()),
    "error": ({"kind": STR, "message": STR}, ()),
    "status": ({"status": STR, "checks_failed": COUNT,
                "lines_dropped": COUNT},
               ("status", "checks_failed", "lines_dropped")),
}

WANT = {STR: "a string", BOOL: "true or false", COUNT: "an integer >= 0",
        FIGURE: "a number >= 0", CYCLES: "an object or list of cycles"}


def _fits(kind, value):
    if kind == STR:
        return isinstance(value, str)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == COUNT:
        return isinstance(value, int) and not isinstance(value, bool) \
            and value >= 0
    if kind == FIGURE:
        return is_number(value) and value >= 0
    values = value.values() if isinstance(value, dict) else value
    return isinstance(value, (dict, list)) and all(
        v is None or (is_number(v) and v >= 0) for v in values)


def problem(obj):
    """Why a record breaks its type's shape, or None."""
    kind = obj.get("type")
    fields, required = SCHEMA.get(kind, ({}, ()))
    for name in required:
        if obj.get(name) is None:
            return "%s record without %r" % (kind, name)
    for name, want in fields.items():
        if obj.get(name) is not None and not _fits(want, obj[name]):
            return "%s record field %r must be %s (got %.40r)" % (
                kind, name, WANT[want], obj[name])
    if kind == "status":
        return _status_problem(obj)
    return None


def _status_problem(obj):
    failed, dropped = obj["checks_failed"], obj["lines_dropped"]
    if obj["status"] == "ok" and (failed or dropped):
        return ("status record says ok with checks_failed %d and "
                "lines_dropped %d" % (failed, dropped))
    if obj["status"] == "check-failed" and not (failed or dropped):
        return ("status record says check-failed with checks_failed 0 and "
                "lines_dropped 0")
    return None


def group_by_case(boot_results, key=None):
    """({key: [result of each boot]}, keys in first-seen order) over a list
    of boots' result lists; KEY(result) defaults to the case name."""
    key = key or (lambda res: res.get("case"))
    groups, order = {}, []
    for results in boot_results:
        for res in results:
            name = key(res)
            if name not in groups:
                groups[name] = []
                order.append(name)
            groups[name].append(res)
    return groups, order
