"""LAVA support: write a job definition for LAVA's `qemu` device type, and
read a lava-run log (or a LAVA results export) back into results.json.

Facts this relies on (lava-dispatcher 2023.01, see docs/ci.md "A LAVA
lab"): the qemu device template builds the QEMU command from its own options,
then the job context's `extra_options`, then one `image_arg` per deployed
image; pexpect splits that command line like a shell (quotes group words);
the monitor pattern runs with `.` matching newlines and serial lines end in
`\\r\\r\\n`; a pattern with a `result` group needs a result on every line; ids
are lowercased with runs of non-word characters turned into `_` (the original
id is kept in the result's `extra.test_case_id`); the log is one YAML flow
mapping per line with every scalar double-quoted, and target (serial) lines
have `\\r` and ESC removed and `"` written as `\\"`.

Standard library only: no PyYAML (the job is written as block YAML whose
scalars are JSON strings, which YAML reads as double-quoted scalars)."""

import csv
import io
import json
import math
import os
import re
import shlex

from ..guest import qemu
from ..output import report
from ..system import exitstatus, inputfile
from ..guest.dump import clean_text, clean_value, parse_dump
from ..system.exitstatus import Outcome, decide_from_dump

MONITOR_NAME = "trapmeter"
MONITOR_START = r"trapmeter \S+ START"
MONITOR_END = r"trapmeter END status=\w+"
# Every TM_LAVA line has all four fields (kernel/lava.h); the line end
# anchors the match so a measurement is never cut while still arriving.
MONITOR_PATTERN = (r"TM_LAVA case=(?P<test_case_id>\S+) "
                   r"result=(?P<result>pass|fail|skip) "
                   r"measurement=(?P<measurement>\d+) "
                   r"units=(?P<units>\w+)\r*\n")
LAVA_WORD = "lava=on"
DEFAULT_TEST_MINUTES = 30
DEPLOY_MINUTES = 10
BOOT_MINUTES = 2
JOB_SLACK_MINUTES = 15
MEMORY_MB = 256
# The template always adds "-net nic,<model>,..."; e1000 keeps virtio-net
# devices for the virtio suite's own NICs, and without its option ROM
# SeaBIOS does not spend time in iPXE (~22 s on a software KVM).
TEMPLATE_NIC_MODEL = "model=e1000"
NO_NIC_ROM = "-global e1000.romfile="
DEBUG_EXIT = "-device isa-debug-exit,iobase=0xf4,iosize=0x04"
DEBUGCON = "-chardev null,id=dbgcon -device isa-debugcon,iobase=0x402,chardev=dbgcon"
STATUS_CASE = "trapmeter.status"

# Devices a suite needs beyond the base machine, as LAVA sees them: images
# to deploy (name, option giving its URL, image_arg) and extra options.
# Keep in step with the runner's QEMU arguments for these suites.
SUITE_DEVICES = {
    "ide": {"images": [("scratch", "scratch_url",
                        "-drive format=raw,if=ide,index=0,media=disk,"
                        "file={scratch}")],
            "extra": []},
    # Hub 1, not 0: the template's "-net nic ... -net user" sit on hub 0.
    "virtio": {"images": [],
               "extra": ["-netdev hubport,id=n0,hubid=1 "
                         "-device virtio-net-pci,netdev=n0",
                         "-netdev hubport,id=n1,hubid=1 "
                         "-device virtio-net-pci,netdev=n1"]},
}


# Input caps: a number's text, its range (dump.py's), a YAML export's
# nesting and its values once aliases are expanded (a CSV field: the csv
# module's 128 KiB).
NUMBER_CHARS = 40
MAX_INT = 2 ** 64
MAX_FLOAT = 1e300
YAML_DEPTH = 32
YAML_VALUES = 1000000
YAML_NON_FINITE = (".nan", ".inf", "-.inf", "+.inf")


class LavaError(Exception):
    """Bad option or unreadable input: one line, exit status BAD_INPUT."""


# ---------------------------------------------------------------- YAML out

PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def _scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))


def _key(key):
    return key if PLAIN_KEY.match(key) else json.dumps(key)


def _yaml_lines(obj, indent):
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return [pad + "{}"]
        lines = []
        for key, value in obj.items():
            if isinstance(value, (dict, list)) and value:
                lines.append("%s%s:" % (pad, _key(key)))
                sub = indent + (2 if isinstance(value, dict) else 0)
                lines.extend(_yaml_lines(value, sub))
            else:
                lines.append("%s%s: %s" % (pad, _key(key), _flow(value)))
        return lines
    if isinstance(obj, list):
        if not obj:
            return [pad + "[]"]
        lines = []
        for item in obj:
            sub = _yaml_lines(item, indent + 2)
            lines.append(pad + "- " + sub[0][indent + 2:])
            lines.extend(sub[1:])
        return lines
    return [pad + _scalar(obj)]


def _flow(value):
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def yaml_text(obj):
    """Block YAML for dicts, lists and scalars; strings are JSON strings
    (valid YAML double-quoted scalars)."""
    return "\n".join(_yaml_lines(obj, 0)) + "\n"


# ---------------------------------------------------------------- job

def _quote_fwcfg_string(name, value):
    """-fw_cfg name=N,string=V for the template's command line: commas
    doubled for QEMU, single quotes so pexpect keeps the spaces."""
    for bad in ("'", '"', "\\"):
        if bad in value:
            raise LavaError("kernel command line %r: quotes and backslashes "
                            "cannot pass through the LAVA QEMU command line"
                            % value)
    return "-fw_cfg 'name=%s,string=%s'" % (name, qemu.qemu_opt_escape(value))


def _check_url(what, url):
    if not re.match(r"^(https?|file|ftp)://\S+$", url or ""):
        raise LavaError("%s %r is not an http(s)://, ftp:// or file:// URL"
                        % (what, url))


def job_words(suite=None, case=None, quick=False, cmdline=""):
    """Kernel words for a LAVA job: the runner's words plus lava=on."""
    words, _notes = qemu.kernel_words(suite, case, quick, cmdline, None)
    if not any(w.startswith("lava=") for w in words):
        words.append(LAVA_WORD)
    return words


def suite_names(suite):
    names = [s for s in (suite or "").split(",") if s]
    if "all" in names:
        names = list(SUITE_DEVICES) + names
    return names


def extra_options(words, kvm, cpu=None, suites=(), extra=()):
    opts = ["-machine pc", "-nodefaults", "-serial stdio", "-no-reboot",
            "-boot d", NO_NIC_ROM, DEBUG_EXIT, DEBUGCON]
    if cpu:
        opts.append("-cpu " + cpu)
    elif not kvm:
        opts.append("-cpu max")
    for name in suites:
        opts.extend(SUITE_DEVICES.get(name, {}).get("extra", []))
    opts.append(_quote_fwcfg_string(qemu.FWCFG_CMDLINE, " ".join(words)))
    opts.extend(extra)
    return opts


def _images(iso_url, blob_url, suites, urls):
    images = {"cdrom": {"image_arg": "-cdrom {cdrom}", "url": iso_url}}
    if blob_url:
        _check_url("--blob-url", blob_url)
        images["blob"] = {"image_arg": "-fw_cfg name=%s,file={blob}"
                          % qemu.FWCFG_BLOB, "url": blob_url}
    for name in suites:
        for label, option, arg in SUITE_DEVICES.get(name, {}).get("images",
                                                                  []):
            url = urls.get(option)
            if not url:
                raise LavaError("suite %s needs --%s URL (image deployed as "
                                "'%s')" % (name, option.replace("_", "-"),
                                           label))
            _check_url("--" + option.replace("_", "-"), url)
            images[label] = {"image_arg": arg, "url": url}
    return images


def build_job(iso_url, kvm=True, suite=None, case=None, quick=False,
              cmdline="", blob_url=None, cpu=None, test_minutes=None,
              job_name=None, extra=(), urls=None):
    """The job definition as a dict (see yaml_text)."""
    _check_url("--iso-url", iso_url)
    minutes = DEFAULT_TEST_MINUTES if test_minutes is None else test_minutes
    if minutes < 1:
        raise LavaError("--timeout-min must be at least 1")
    suites = suite_names(suite)
    words = job_words(suite, case, quick, cmdline)
    context = {"arch": "amd64", "memory": MEMORY_MB,
               "model": TEMPLATE_NIC_MODEL,
               "extra_options": extra_options(words, kvm, cpu, suites,
                                              list(extra))}
    if not kvm:
        context["no_kvm"] = True
    return {
        "device_type": "qemu",
        "job_name": job_name or "trapmeter %s %s" % (
            "kvm" if kvm else "tcg", " ".join(words)),
        "timeouts": {"job": {"minutes": minutes + DEPLOY_MINUTES
                             + BOOT_MINUTES + JOB_SLACK_MINUTES},
                     "action": {"minutes": DEPLOY_MINUTES},
                     # the monitor waits for START, and then for each
                     # next line, with the connection timeout
                     "connection": {"minutes": minutes}},
        "priority": "medium",
        "visibility": "public",
        "metadata": {"trapmeter.cmdline": " ".join(words),
                     "trapmeter.accel": "kvm" if kvm else "tcg"},
        "context": context,
        "actions": [
            {"deploy": {"timeout": {"minutes": DEPLOY_MINUTES},
                        "to": "tmpfs",
                        "images": _images(iso_url, blob_url, suites,
                                          urls or {})}},
            {"boot": {"timeout": {"minutes": BOOT_MINUTES},
                      "method": "qemu", "media": "tmpfs"}},
            {"test": {"timeout": {"minutes": minutes},
                      "monitors": [{"name": MONITOR_NAME,
                                    "start": MONITOR_START,
                                    "end": MONITOR_END,
                                    "pattern": MONITOR_PATTERN}]}},
        ],
    }


def job_yaml(job):
    head = ("# trapmeter LAVA job (tools/trapmeter lava-job). Results: one "
            "test case per\n# TM_LAVA line of the guest; feed the log to "
            "`tools/trapmeter import-lava`.\n")
    return head + yaml_text(job)


# ---------------------------------------------------------------- YAML in

class FlowError(ValueError):
    pass


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t",
            "n": "\n", "v": "\v", "f": "\f", "r": "\r", "e": "\x1b",
            " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
            "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_LEN = {"x": 2, "u": 4, "U": 8}
MAX_FLOW_DEPTH = 32
_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


class _Flow:
    """Reader for one YAML flow collection as LAVA's logger writes it:
    {}/[] with double-quoted, single-quoted or plain scalars and optional
    tags (`!`, `!!int`, ...)."""

    def __init__(self, text):
        self.s = text
        self.i = 0
        self.depth = 0

    def fail(self, what):
        raise FlowError("%s at column %d" % (what, self.i + 1))

    def nest(self, reader):
        """A nested collection, refused beyond MAX_FLOW_DEPTH (LAVA's own
        lines nest 3 deep) so that no input can exhaust the stack."""
        if self.depth >= MAX_FLOW_DEPTH:
            self.fail("nesting deeper than %d" % MAX_FLOW_DEPTH)
        self.depth += 1
        try:
            return reader()
        finally:
            self.depth -= 1

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1

    def peek(self):
        self.ws()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, char):
        if self.peek() != char:
            self.fail("expected %r" % char)
        self.i += 1

    def value(self, in_flow=True):
        char = self.peek()
        tag = None
        if char == "!":
            start = self.i
            while self.i < len(self.s) and self.s[self.i] not in " \t":
                self.i += 1
            tag = self.s[start:self.i]
            char = self.peek()
        if char == "{":
            return self.nest(self.mapping)
        if char == "[":
            return self.nest(self.sequence)
        if char == '"':
            return _tagged(tag, self.double(), True)
        if char == "'":
            return _tagged(tag, self.single(), True)
        return _tagged(tag, self.plain(in_flow), False)

    def mapping(self):
        self.expect("{")
        out = {}
        if self.peek() == "}":
            self.i += 1
            return out
        while True:
            key = self.value()
            self.expect(":")
            out[key if isinstance(key, str) else str(key)] = self.value()
            char = self.peek()
            self.i += 1
            if char == "}":
                return out
            if char != ",":
                self.i -= 1
                self.fail("expected ',' or '}'")

    def sequence(self):
        self.expect("[")
        out = []
        if self.peek() == "]":
            self.i += 1
            return out
        while True:
            out.append(self.value())
            char = self.peek()
            self.i += 1
            if char == "]":
                return out
            if char != ",":
                self.i -= 1
                self.fail("expected ',' or ']'")

    def double(self):
        self.i += 1
        out = []
        s = self.s
        while self.i < len(s):
            char = s[self.i]
            self.i += 1
            if char == '"':
                return "".join(out)
            if char != "\\":
                out.append(char)
                continue
            if self.i >= len(s):
                break
            esc = s[self.i]
            self.i += 1
            if esc in _HEX_LEN:
                digits = s[self.i:self.i + _HEX_LEN[esc]]
                if len(digits) != _HEX_LEN[esc] or not re.match(
                        r"^[0-9a-fA-F]+$", digits):
                    self.fail("bad \\%s escape" % esc)
                out.append(chr(int(digits, 16)))
                self.i += _HEX_LEN[esc]
            elif esc in _ESCAPES:
                out.append(_ESCAPES[esc])
            else:
                self.fail("unknown escape \\%s" % esc)
        self.fail("unterminated double-quoted string")
        return None

    def single(self):
        self.i += 1
        out = []
        s = self.s
        while self.i < len(s):
            char = s[self.i]
            self.i += 1
            if char == "'":
                if s[self.i:self.i + 1] == "'":
                    out.append("'")
                    self.i += 1
                    continue
                return "".join(out)
            out.append(char)
        self.fail("unterminated single-quoted string")
        return None

    def plain(self, in_flow):
        start = self.i
        stops = ",}]" if in_flow else ""
        while self.i < len(self.s):
            char = self.s[self.i]
            if char in stops:
                break
            if char == ":" and self.s[self.i + 1:self.i + 2] in (" ", ",",
                                                                "}", "]", ""):
                break
            self.i += 1
        text = self.s[start:self.i].strip()
        if not text:
            self.fail("empty value")
        return text


def _tagged(tag, text, quoted):
    if tag in (None, "!") and quoted or tag == "!!str":
        return text
    kind = {"!!int": "int", "!!float": "float", "!!bool": "bool",
            "!!null": "null"}.get(tag)
    low = text.lower()
    if kind == "null" or (kind is None and low in ("null", "~")):
        return None
    if kind == "bool" or (kind is None and low in ("true", "false")):
        return low == "true"
    if len(text) > NUMBER_CHARS:
        return text             # _to_number refuses it by name
    if kind in (None, "int") and _INT.match(text):
        return int(text)
    if kind in (None, "float") and _FLOAT.match(text):
        return float(text)
    return text


def parse_flow_line(line):
    """One log line ("{...}" or "- {...}") -> dict; FlowError if not."""
    text = line.strip()
    if text.startswith("- "):
        text = text[2:].lstrip()
    if not text.startswith("{"):
        raise FlowError("not a flow mapping")
    reader = _Flow(text)
    obj = reader.mapping()
    if reader.peek():
        reader.fail("text after the mapping")
    return obj


# ---------------------------------------------------------------- import

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


class BadNumber(ValueError):
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


# ---------------------------------------------------------------- to results

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
    if isinstance(code, int) and code in exitstatus.NAMES:
        out = Outcome(code)
        if code != exitstatus.OK:
            out.messages.append("guest status %s (from LAVA case %s)"
                                % (exitstatus.status_name(code), STATUS_CASE))
        return out
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
