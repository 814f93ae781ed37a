"""LAVA results back into results.json: a lava-run log (lava_flow.py reads
its lines) or a LAVA results export (JSON, CSV, YAML), its test cases
cross-checked against the guest's own dump where the log holds it."""
import csv
import io
import json
import math
import re
import shlex

from ..guest.dump import clean_text, clean_value, parse_dump
from ..output import report
from ..system import inputfile
from ..values import exitstatus
from ..values.errors import InputError
from ..values.exitstatus import Outcome, decide_from_dump
from .lava_flow import (MAX_FLOAT, MAX_INT, NUMBER_CHARS, YAML_DEPTH, YAML_NON_FINITE,
                        YAML_VALUES, FlowError, parse_flow_line)
from .lava_job import MONITOR_NAME, STATUS_CASE, LavaError


def target_text(msg):
    """Undo lava's ShellLogger quoting of a serial line (it writes `"` as
    `\\"`; \\r and ESC are gone for good)."""
    return msg.replace('\\"', '"')


class LavaRun:
    """What one lava-run log (or results export) says."""

    def __init__(self, path):
        self.path = path
        self.records = 0
        self.bad_lines = []
        self.serial = []            # target lines, unquoted
        self.cases = []             # trapmeter monitor results
        self.lava_results = []      # definition "lava" (job, actions)
        self.errors = []            # lvl error/exception messages
        self.boot_command = None
        self.qemu_version = None
        self.export = False

    @property
    def job_result(self):
        for res in self.lava_results:
            if res.get("case") == "job":
                return res.get("result")
        return None

    def case_id(self, case):
        return case.get("test_case_id") or case.get("case")


def _case_from_result(msg):
    extra = msg.get("extra") if isinstance(msg.get("extra"), dict) else {}
    return {"case": msg.get("case"), "definition": msg.get("definition"),
            "test_case_id": extra.get("test_case_id"),
            "result": msg.get("result"),
            "measurement": _to_number(msg.get("measurement")),
            "units": msg.get("units")}


class BadNumber(InputError, ValueError):
    """A measurement out of range (nan, inf, 1e999, 4,000 digits)."""


def _to_number(value):
    """A measurement as int or float; None when it is not a number;
    BadNumber when it is one no run can have measured."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        num = value
        if abs(num) >= MAX_INT:
            raise BadNumber("measurement %s... out of range" % str(num)[:24])
        return num
    if isinstance(value, float):
        num = value
    else:
        text = str(value).strip()
        if len(text) > NUMBER_CHARS:
            raise BadNumber("measurement %s... out of range" % text[:24])
        try:
            num = float(text.replace(".", "", 1)
                        if text.lower() in YAML_NON_FINITE else text)
        except ValueError:
            return None
    if not math.isfinite(num) or abs(num) > MAX_FLOAT:
        raise BadNumber("measurement %r out of range" % (value,))
    return int(num) if num.is_integer() and abs(num) < MAX_INT else num


def read_log(path, text):
    run = LavaRun(path)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith(("#", "---")):
            continue
        try:
            rec = parse_flow_line(line)
        except FlowError as exc:
            run.bad_lines.append("line %d: %s" % (number, exc))
            continue
        run.records += 1
        _take_record(run, rec)
    return run


def _take_record(run, rec):
    lvl, msg = rec.get("lvl"), rec.get("msg")
    if lvl in ("target", "feedback") and isinstance(msg, str):
        # serial output that arrives while LAVA is not inside an expect
        # (e.g. the END line right after the monitor's end match, under
        # load) is logged as "feedback": it is the same stream
        run.serial.append(target_text(msg))
    elif lvl == "results" and isinstance(msg, dict):
        if msg.get("definition") == "lava":
            msg = clean_value(msg)
            run.lava_results.append(msg)
            extra = msg.get("extra") if isinstance(msg.get("extra"),
                                                    dict) else {}
            if msg.get("case") == "execute-qemu":
                run.qemu_version = extra.get("qemu_version")
        else:
            run.cases.append(clean_value(_case_from_result(msg)))
    elif lvl in ("error", "exception"):
        run.errors.append(clean_text(str(msg)))
    elif lvl == "info" and isinstance(msg, str) and msg.startswith(
            "Boot command: "):
        run.boot_command = msg[len("Boot command: "):]


# LAVA results exports (server UI/REST API): JSON list or CSV.
_META_ID = re.compile(r"""test_case_id['"]?\s*[:=]\s*['"]?([^'",}\s\]]+)""")


def _export_case(row):
    meta = row.get("metadata")
    meta_text = json.dumps(meta) if isinstance(meta, (dict, list)) else str(
        meta or "")
    found = _META_ID.search(meta_text)
    return {"case": row.get("name"), "definition": row.get("suite"),
            "test_case_id": found.group(1) if found else None,
            "result": row.get("result"),
            "measurement": _to_number(row.get("measurement")),
            "units": row.get("unit") or row.get("units")}


def read_export(path, rows):
    run = LavaRun(path)
    run.export = True
    for row in rows:
        if not isinstance(row, dict):
            continue
        run.records += 1
        suite = str(row.get("suite") or "")
        if suite == "lava" or suite.endswith("_lava"):
            run.lava_results.append(clean_value({
                "case": row.get("name"), "result": row.get("result")}))
        else:
            run.cases.append(clean_value(_export_case(row)))
    return run


def load(path):
    """Read a lava-run log or a LAVA results export (JSON, CSV, YAML)."""
    try:
        text = inputfile.read_text(path).decode("utf-8", "replace")
    except inputfile.InputError as exc:
        raise LavaError(str(exc))
    try:
        return _load_text(path, text)
    except BadNumber as exc:
        raise LavaError("%s: %s" % (path, exc))


def _json_export(path, text):
    """The rows of a JSON results export, or None if text is not JSON."""
    try:
        doc = json.loads(text, parse_int=_json_int,
                         parse_constant=_json_constant)
    except RecursionError:
        raise LavaError("%s: JSON nested too deep to be a LAVA results "
                        "export" % path)
    except BadNumber:
        raise
    except ValueError:
        return None
    rows = doc.get("results", []) if isinstance(doc, dict) else doc
    return rows if isinstance(rows, list) else []


def _json_int(text):
    if len(text) > NUMBER_CHARS:
        raise BadNumber("number %s... out of range" % text[:24])
    return int(text)


def _json_constant(name):
    raise BadNumber("number %s out of range (NaN and Infinity are not JSON)"
                    % name)


def _csv_rows(path, text):
    try:
        return list(csv.DictReader(io.StringIO(text)))
    except csv.Error as exc:
        raise LavaError("%s: CSV: %s" % (path, exc))


def _load_text(path, text):
    head = text.lstrip()[:1]
    if head in ("[", "{") and not text.lstrip().startswith(("{\"dt\"",
                                                              "{dt")):
        rows = _json_export(path, text)
        if rows is not None:
            return read_export(path, rows)
    first = text.split("\n", 1)[0]
    if "name" in first and "result" in first and "," in first \
            and "{" not in first:
        return read_export(path, _csv_rows(path, text))
    run = read_log(path, text)
    if run.records == 0 and text.strip():
        rows = _yaml_export(path, text)
        if rows is not None:
            return read_export(path, rows)
        raise LavaError("%s: not a lava-run log (no YAML flow mapping lines: "
                        "%s) nor a JSON/CSV results export"
                        % (path, "; ".join(run.bad_lines[:2]) or "empty"))
    return run


def _yaml_export(path, text):
    """A block-YAML results export, read with PyYAML if it is installed."""
    if not text.lstrip().startswith("- "):
        return None
    try:
        import yaml  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise LavaError("%s looks like a YAML results export: install "
                        "python3-yaml, or export JSON/CSV" % path)
    try:
        rows = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise LavaError("%s: bad YAML: %s" % (path, exc))
    except RecursionError:
        raise LavaError("%s: YAML nested deeper than %d" % (path, YAML_DEPTH))
    problem = _yaml_too_big(rows)
    if problem:
        raise LavaError("%s: YAML %s" % (path, problem))
    return rows if isinstance(rows, list) else None


def _yaml_too_big(value):
    """Why a loaded YAML document is refused (nesting deeper than
    YAML_DEPTH, or more than YAML_VALUES values once its aliases are
    expanded, as json.dumps would), or None.  Without recursion."""
    count, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if depth > YAML_DEPTH:
            return "nested deeper than %d" % YAML_DEPTH
        if count > YAML_VALUES:
            return ("expands to more than %d values (aliases): refused"
                    % YAML_VALUES)
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return None


def cross_check(dump, cases):
    """Every @tm result must be a LAVA case with the same measurement;
    returns the list of disagreements."""
    by_id = {}
    for case in cases:
        by_id[case.get("test_case_id") or case.get("case")] = case
    problems = []
    for res in dump.results:
        name = res.get("case")
        median = report.median_cycles(res)
        case = by_id.get(name) or by_id.get(mangle(name))
        if case is None:
            problems.append("result %s has no LAVA test case" % name)
        elif case.get("measurement") != median:
            problems.append("result %s: LAVA measurement %s != dump median "
                            "%s" % (name, case.get("measurement"), median))
    return problems


def mangle(case_id):
    """LAVA's test case name for an id."""
    return re.sub(r"\W+", "_", (case_id or "").strip().lower())


def _results_from_cases(cases):
    """results/checks/skips/errors when there is no serial dump."""
    out = {"results": [], "checks": [], "skips": [], "errors": [],
           "exceptions": []}
    code = None
    for case in cases:
        ident = case.get("test_case_id") or (case.get("case") or "")
        ok = case.get("result") == "pass"
        if case.get("units") == "cycles":
            out["results"].append({"type": "result", "case": ident,
                                   "cycles": {"median": case.get(
                                       "measurement")},
                                   "lava_result": case.get("result"),
                                   "source": "lava"})
        elif ident in (STATUS_CASE, mangle(STATUS_CASE)):
            code = case.get("measurement")
        elif ident.startswith(("check.", "check_")):
            out["checks"].append({"type": "check", "name": ident[6:],
                                  "ok": ok, "detail": "from LAVA"})
        elif ident.startswith(("skip.", "skip_")):
            out["skips"].append({"type": "skip", "case": ident[5:],
                                 "reason": "from LAVA"})
        elif ident.startswith(("error.", "error_")):
            out["errors"].append({"type": "error", "kind": ident[6:],
                                  "message": "from LAVA"})
        elif ident.startswith(("exception.", "exception_")):
            out["exceptions"].append({"type": "exception",
                                      "name": ident[10:]})
    return out, code


def _guest_cases(run):
    return [c for c in run.cases if str(c.get("definition") or "").endswith(
        MONITOR_NAME)]


def boot_from_run(index, run):
    """(results.json boot entry, Outcome) for one log or export."""
    dump = parse_dump("\n".join(run.serial).encode("utf-8")) \
        if run.serial else None
    cases = _guest_cases(run)
    lava = {"source": run.path, "kind": "export" if run.export else "log",
            "job_result": run.job_result, "test_cases": len(cases),
            "cases": cases, "errors": run.errors[-10:],
            "bad_lines": run.bad_lines[:10]}
    if dump is not None and dump.started:
        outcome = decide_from_dump(dump)
        problems = cross_check(dump, cases) if cases else []
        lava["dump_results"] = len(dump.results)
        lava["mismatches"] = problems
        if problems:
            outcome = Outcome(max(outcome.code, exitstatus.GARBLED),
                              outcome.messages + ["LAVA test cases disagree "
                                                  "with the guest dump: "
                                                  + "; ".join(problems[:5])])
        entry = report.boot_entry(index, outcome, dump, None, None)
    else:
        outcome = _outcome_from_cases(run, cases)
        entry = report.boot_entry(index, outcome, None, None, None)
        found, _code = _results_from_cases(cases)
        entry.update(found)
        report.add_speedups(entry["results"])
    entry["lava"] = lava
    return entry, outcome


def _outcome_from_cases(run, cases):
    if not cases:
        return Outcome(exitstatus.GARBLED, ["%s: no trapmeter test cases and no "
                                        "guest serial output (job result: "
                                        "%s)" % (run.path, run.job_result)])
    _found, code = _results_from_cases(cases)
    if isinstance(code, int) and not isinstance(code, bool) and \
            code in exitstatus.GUEST_STATUS.values():
        out = Outcome(code)
        if code != exitstatus.OK:
            out.messages.append("guest status %s (from LAVA case %s)"
                                % (exitstatus.status_name(code), STATUS_CASE))
        return out
    if code is not None:
        # the guest writes 0-3 (exitstatus.GUEST_STATUS); any other number
        # there is the log's, not a status of this tool to pass through
        return Outcome(exitstatus.GARBLED, [
            "%s: LAVA case %s holds %.40r, not a guest status (%s)" % (
                run.path, STATUS_CASE, code, ", ".join(
                    "%d %s" % (v, k) for k, v in
                    sorted(exitstatus.GUEST_STATUS.items(),
                           key=lambda kv: kv[1])))])
    return Outcome(exitstatus.GARBLED, ["%s: no %s test case (job cut short?); "
                                    "job result: %s" % (run.path, STATUS_CASE,
                                                        run.job_result)])


def host_from_runs(runs):
    run = next((r for r in runs if r.boot_command), None)
    argv = shlex.split(run.boot_command) if run else None
    accel = None
    if argv:
        accel = "kvm" if "-enable-kvm" in argv or any(
            "accel=kvm" in a or a.startswith("kvm") for a in argv) else "tcg"
    return ({"qemu_version": next((r.qemu_version for r in runs
                                   if r.qemu_version), None),
             "accel": accel, "kvm_flavour": None, "host_cpu": None,
             "kernel": None, "hostname_hash": None}, argv)
