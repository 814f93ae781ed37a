"""Parse and validate the guest's COM1 dump.

The parser is incremental (fed chunks as QEMU produces them, so the runner
can show progress and still know the last case started when it has to kill
QEMU) and pure (bytes in, Python objects out).

It is also the one gate guest text passes on its way to a terminal or a
file: every string of every record and every console line is cleaned of
control characters here (clean_text), numbers out of range and nesting
deeper than MAX_DEPTH are refused with the line named, and a line longer
than MAX_LINE or console text beyond HUMAN_KEEP_BYTES is a named problem
("flood") with memory kept bounded; feeding stays linear in the input.

Schema 2 (docs/design.md, "The dump"): the last counted @tm line is
{"type":"status","status":...}, so the run's status lies inside the end
record's count and CRC; the human END line must agree with it.  Schema-1
dumps (no status record) take the status from the END line.  Schema 3
sends result lines in a compact form (tools/trapmeterlib/values/resultform.py),
expanded here to the schema-2 record as each line arrives, so every
reader (and compare's replay of the stored lines) sees the same record.
A case measured in rounds (kernel word rounds=N, one result line per
round) is merged into one result as its lines arrive
(tools/trapmeterlib/guest/rounds.py).  Schema 4 sends rounds after the first
as short "round" records without "case" lines: each becomes the result
line it stands for, and the case running is inferred from round 0's
order (rounds.CaseOrder).

Size: DumpParser is one state machine over the lines (about 310 of
the lines here); the text and number cleaning before it is the seam
to cut next."""

import json
import math
import re
import zlib

from ..values import exitstatus, figure, records, resultform
from ..values.errors import TrapmeterError
from ..values.exitstatus import GUEST_STATUS
from . import rounds

TM_PREFIX = b"@tm "
# Firmware (OVMF, GRUB) may leave escape sequences on the line before START.
START_RE = re.compile(rb"trapmeter (\S+) START\s*$")
END_RE = re.compile(rb"^trapmeter END status=(\S*)")
CRC_RE = re.compile(r"^[0-9a-f]{8}$")
HUMAN_CONTEXT = 40      # human lines kept before an exception record
EXCERPT = 60
SCHEMAS = (1, 2, 3, 4)  # dump schemas this parser reads
SEALED_SCHEMA = 2       # from this schema on the status is a counted record
MAX_LINE = 65536        # bytes per line; the guest's longest is ~1 KiB
MAX_DEPTH = 16          # nesting of a @tm object; the guest writes <= 7
MAX_INT = 2 ** 64       # the guest writes u64/s64
MAX_FLOAT = 1e300
HUMAN_KEEP_BYTES = 4 << 20      # console text kept; more is a flood
MAX_TM_LINES = 200000           # @tm lines kept; more is a flood
MAX_DUMP_BYTES = 256 << 20      # serial bytes in all; more is a flood
PRESTART_BYTES = 1 << 20        # firmware noise before START: ~ 10 KiB
# C0 controls, DEL, C1 controls and lone surrogates: never printed raw.
# Control characters, lone surrogates, and the characters that reorder or
# break a terminal line: bidi embeddings, overrides and isolates (U+202A-E,
# U+2066-9), marks (U+061C, U+200E-F) and line/paragraph separators.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e"
                         "\u200f\u2028-\u202e\u2066-\u2069]")

# Record "type" -> Dump attribute holding the list of such records.
COLLECTED = {"result": "results", "check": "checks", "skip": "skips",
             "error": "errors", "exception": "exceptions"}
PROGRESS_TYPES = ("suite", "case")
# Phase points for exit counting: handled by the runner, not kept as data.
SYNC_TYPES = ("sync",)


TIME_MARK = "?"          # after a time figure when the TSC kHz is a guess
TSC_WARN_PPM = 20000     # the guest's tsc.check disagreement bound (2 %)


def time_mark(result):
    """"?" for figures derived from a guessed TSC frequency (ns, MiB/s,
    packets/s), else ""."""
    return TIME_MARK if result.get("tsc_guess") else ""


def tsc_warnings(run):
    """Loud words about the TSC frequency the figures were converted with:
    a guess, or a cross-check (ACPI PM timer) more than 2 % away."""
    tsc = run.get("tsc") if isinstance(run, dict) else None
    if not isinstance(tsc, dict):
        return []
    warns = []
    if tsc.get("guess") is True:
        warns.append("TSC FREQUENCY IS A GUESS (%s, %s kHz): ns, MiB/s and "
                     "packets/s figures are marked '%s' and mean nothing; "
                     "cycle figures are exact" % (tsc.get("source"),
                                                  tsc.get("khz"), TIME_MARK))
    check = tsc.get("check")
    if isinstance(check, dict) and isinstance(check.get("diff_ppm"), int) \
            and abs(check["diff_ppm"]) > TSC_WARN_PPM:
        warns.append("TSC %s kHz from %s but %s kHz against the ACPI PM timer "
                     "over %s ms (%s apart, more than 2 %%): time "
                     "figures may be off by as much" % (
                         tsc.get("khz"), tsc.get("source"), check.get("khz"),
                         check.get("ms"), figure.percent_text(
                             figure.measured(check["diff_ppm"] / 1e6))))
    return warns


def _excerpt(raw):
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "..."


def clean_text(text):
    """Guest text made safe for a terminal: control characters (ESC, CR,
    LF, BEL, C1, ...) and bidi controls become visible escapes such as
    \\x1b or \\u202e.  Strings from host files (results.json, LAVA
    inputs) pass here too (resultsfile.read_results, lava_results.load)."""
    return _CONTROL_RE.sub(lambda m: "\\x%02x" % ord(m.group())
                           if ord(m.group()) < 0x100
                           else "\\u%04x" % ord(m.group()), text)


def guest_utf8(text):
    """The guest's JSON writer escapes each byte outside printable ASCII
    as \\u00XX (lib/json.c), so UTF-8 text (a word the user typed)
    arrives as one character per byte: decoded back here when those bytes
    are valid UTF-8, else kept."""
    if not any("\x80" <= c <= "\xff" for c in text) or max(text) > "\xff":
        return text
    try:
        return text.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return text


def clean_value(value):
    """clean_text on every string (keys too) of a parsed JSON value, after
    guest_utf8."""
    if isinstance(value, str):
        return clean_text(guest_utf8(value))
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_value(v) for v in value]
    return value


class _BadNumber(TrapmeterError, ValueError):
    code = exitstatus.GARBLED


def _parse_float(text):
    value = float(text)
    if not math.isfinite(value) or abs(value) > MAX_FLOAT:
        raise _BadNumber("number %s out of range" % text[:40])
    return value


def _parse_int(text):
    if len(text) > 24:
        raise _BadNumber("number %s... out of range" % text[:24])
    value = int(text)
    if abs(value) >= MAX_INT:
        raise _BadNumber("number %s out of range" % text)
    return value


def _reject_constant(name):
    raise _BadNumber("non-finite number %s" % name)


def _depth(obj):
    """Nesting depth of a parsed value, without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, level + 1) for v in items)
    return deepest


def _load_json(text):
    """(JSON object, None) or (None, why not)."""
    try:
        obj = json.loads(text, parse_float=_parse_float,
                         parse_int=_parse_int,
                         parse_constant=_reject_constant)
    except _BadNumber as exc:
        return None, str(exc)
    except RecursionError:
        return None, "nesting deeper than %d" % MAX_DEPTH
    except (ValueError, UnicodeDecodeError):
        return None, "is not a JSON object"
    if not isinstance(obj, dict):
        return None, "is not a JSON object"
    if _depth(obj) > MAX_DEPTH:
        return None, "nesting deeper than %d" % MAX_DEPTH
    return clean_value(obj), None


class Dump:
    """Everything learnt from one boot's serial output."""

    def __init__(self):
        self.bytes_received = 0
        self.started = False
        self.version = None
        self.run = None
        self.records = []
        self.results, self.checks, self.skips = [], [], []
        self.errors, self.exceptions, self.other = [], [], []
        self.end = None
        self.end_status = None      # the status used (decided in finish())
        self.human_status = None    # from the "trapmeter END" line
        self.sealed = None          # schema 2: the counted status record
        self.tm_count = 0           # @tm lines before the end line
        self.tm_texts = []          # their JSON texts, for re-verification
        self.crc = 0
        self.last_suite = None
        self.last_case = None
        self.human_lines = []
        self.human_bytes = 0
        self.flood = None           # why the output is a flood, or None
        self.problems = []          # non-empty => dump cut or garbled
        self.warnings = []

    @property
    def valid(self):
        return not self.problems

    @property
    def crc_hex(self):
        return "%08x" % (self.crc & 0xffffffff)

    def summary(self):
        """Dump facts for results.json."""
        return {"valid": self.valid, "problems": list(self.problems),
                "warnings": list(self.warnings),
                "end_status": self.end_status,
                "human_status": self.human_status,
                "tm_lines": self.tm_count, "crc32": self.crc_hex,
                "end": self.end,
                "bytes": self.bytes_received, "last_case": self.last_case}


class DumpParser:
    """Feed serial bytes; get @tm records back as they complete."""

    def __init__(self):
        self.dump = Dump()
        self._partial = bytearray()
        self._overlong = False      # dropping the rest of an over-long line
        self._bad_lines = []
        self._after_end = 0
        self._starts = 0
        self._context = []
        self._rounds = rounds.Merger(self.dump.results)
        self._order = rounds.CaseOrder()

    def feed(self, chunk):
        """Add raw serial bytes; return the @tm records completed by them.
        Linear: only the new chunk is searched for line ends, and a line
        never grows past MAX_LINE."""
        self.dump.bytes_received += len(chunk)
        records = []
        if self._over_cap():
            return records
        start = 0
        while True:
            cut = chunk.find(b"\n", start)
            if cut < 0:
                self._keep_partial(chunk[start:])
                return records
            self._keep_partial(chunk[start:cut])
            line, self._partial = bytes(self._partial), bytearray()
            start = cut + 1
            if self._overlong:
                self._overlong = False
                continue
            rec = self.feed_line(line)
            if rec is not None:
                records.append(rec)

    def _over_cap(self):
        """More serial bytes than any trapmeter boot writes, or no START
        line after more firmware noise than any firmware prints: a flood,
        and the rest is not read."""
        received = self.dump.bytes_received
        if received > MAX_DUMP_BYTES:
            self._flood("more than %d MiB of serial output"
                        % (MAX_DUMP_BYTES >> 20))
        elif not self.dump.started and received > PRESTART_BYTES:
            self._flood("%d bytes without a START line: not a trapmeter "
                        "serial log" % received)
        return self.dump.flood is not None and (
            received > MAX_DUMP_BYTES or not self.dump.started)

    @property
    def saturated(self):
        """A flood was seen: a reader may stop feeding."""
        return self.dump.flood is not None

    def _keep_partial(self, piece):
        if self._overlong:
            return
        self._partial += piece
        if len(self._partial) > MAX_LINE:
            self._overlong = True
            self._partial = bytearray()
            self._flood("a line longer than %d bytes after @tm line %d"
                        % (MAX_LINE, self.dump.tm_count))

    def _flood(self, why):
        if self.dump.flood is None:
            self.dump.flood = "guest output flood: " + why

    def feed_line(self, raw):
        """Process one line (without "\\n"); return its record if any."""
        line = raw.rstrip(b"\r")
        if line.startswith(TM_PREFIX):
            return self._tm_line(line[len(TM_PREFIX):])
        self._human_line(line)
        return None

    def _human_line(self, line):
        start = START_RE.search(line)
        if start:
            self._start(start.group(1).decode("utf-8", "replace"))
            return
        dump = self.dump
        text = clean_text(line.decode("utf-8", "replace"))
        if dump.started and dump.flood is None:
            dump.human_bytes += len(line) + 1
            if dump.human_bytes > HUMAN_KEEP_BYTES:
                self._flood("more than %d bytes of console text"
                            % HUMAN_KEEP_BYTES)
            else:
                dump.human_lines.append(text)
                self._context.append(text)
                del self._context[:-HUMAN_CONTEXT]
        end = END_RE.match(line)
        if end and dump.started and dump.human_status is None:
            dump.human_status = clean_text(end.group(1).decode("utf-8",
                                                               "replace"))

    def _start(self, version):
        """START resets state: anything before it is firmware noise."""
        self._starts += 1
        keep = self.dump.bytes_received
        self.dump = Dump()
        self._rounds = rounds.Merger(self.dump.results)
        self._order = rounds.CaseOrder()
        self.dump.bytes_received = keep
        self.dump.started = True
        self.dump.version = clean_text(version)
        self._bad_lines, self._after_end, self._context = [], 0, []

    def _tm_line(self, text):
        dump = self.dump
        if not dump.started:
            return None
        if dump.end is not None or dump.human_status is not None:
            self._after_end += 1
            return None
        obj, why = _load_json(text)
        if obj is not None and obj.get("type") == "end":
            dump.end = obj
            return obj
        dump.tm_count += 1
        dump.crc = zlib.crc32(text + b"\n", dump.crc)
        if dump.tm_count > MAX_TM_LINES:
            self._flood("more than %d @tm lines" % MAX_TM_LINES)
            return None
        dump.tm_texts.append(text.decode("utf-8", "surrogateescape"))
        if obj is not None:
            why = self._expand(obj) or records.problem(obj)
        if why is not None:
            self._bad_lines.append((dump.tm_count, why, _excerpt(text)))
            return None
        self._collect(obj)
        return obj

    def _expand(self, obj):
        """Schema 3: a result line back in the schema-2 form (schema 4: a
        "round" record first made the result line it stands for); schema
        2: its figures ruled (resultform.apply_rule).  None, or why the
        line is refused."""
        is_round = obj.get("type") == rounds.ROUND_TYPE
        if not is_round and obj.get("type") != "result":
            return None
        if not is_round and (self._schema() or 0) < resultform.COMPACT_SCHEMA:
            resultform.apply_rule(obj)      # the guest's own net, ruled
            return None
        try:
            if is_round:
                self._from_round(obj)
            resultform.expand(obj, self.dump.run)
        except resultform.FormError as exc:
            return str(exc)
        return None

    def _from_round(self, obj):
        """A later round's record, in place, as its result line; the case
        after it in round 0's order is the one running now."""
        order = self._order
        first = self._rounds.first(order.suite, obj.get("case"))
        line = rounds.from_round(obj, order.suite, order.round, first)
        obj.clear()
        obj.update(line)
        order.round_done(line["case"])
        self.dump.last_case = order.running

    def _collect(self, obj):
        dump = self.dump
        dump.records.append(obj)
        kind = obj.get("type")
        if kind == "run" and dump.run is None:
            dump.run = obj
        elif kind == "status" and dump.sealed is None:
            dump.sealed = obj
        elif kind == "result" and self._rounds.add(obj, dump.run):
            pass            # one round of a case: merged (rounds.py)
        elif kind in COLLECTED:
            if kind == "exception":
                obj["console_before"] = list(self._context)
            getattr(dump, COLLECTED[kind]).append(obj)
        elif kind not in PROGRESS_TYPES and kind not in SYNC_TYPES:
            dump.other.append(obj)
        if kind in PROGRESS_TYPES:
            self._progress(obj)
        self._context = []

    def _progress(self, obj):
        dump = self.dump
        dump.last_suite = obj.get("suite")
        if obj.get("type") == "case":
            self._order.case_line(obj)
        else:
            self._order.suite_line(obj)
        dump.last_case = self._order.running or dump.last_case

    def finish(self):
        """Flush a final unterminated line and validate; return the Dump."""
        if self._partial and not self._overlong:
            self.feed_line(bytes(self._partial))
        self._partial = bytearray()
        self.dump.end_status = self._decide_status()
        self.dump.problems = self._problems()
        self.dump.warnings = self._warnings()
        self._escalate()
        self._mark_guessed_times()
        return self.dump

    def _mark_guessed_times(self):
        tsc = (self.dump.run or {}).get("tsc")
        if isinstance(tsc, dict) and tsc.get("guess") is True:
            for res in self.dump.results:
                res["tsc_guess"] = True

    def _schema(self):
        run = self.dump.run or {}
        schema = run.get("schema")
        return schema if isinstance(schema, int) else None

    def _decide_status(self):
        """Schema 2: the sealed record's status; schema 1: the END line."""
        dump = self.dump
        if dump.sealed is not None:
            word = dump.sealed.get("status")
            return word if isinstance(word, str) else None
        if (self._schema() or 0) >= SEALED_SCHEMA:
            return None
        return dump.human_status

    def _escalate(self):
        """A failed check or a dropped line never ends as "ok"."""
        dump = self.dump
        failed = [c for c in dump.checks if c.get("ok") is not True]
        dropped = [e for e in dump.errors if e.get("kind") == "internal"]
        if dump.end_status != "ok" or not (failed or dropped):
            return
        what = []
        if failed:
            what.append("%d check(s) failed (%s)" % (len(failed), ", ".join(
                str(c.get("name")) for c in failed[:5])))
        if dropped:
            what.append("%d guest line(s) dropped (%s)" % (len(dropped),
                        dropped[0].get("message")))
        dump.warnings.append("END status=ok but %s: using check-failed"
                             % " and ".join(what))
        dump.end_status = "check-failed"

    def _problems(self):
        dump = self.dump
        if not dump.started:
            what = ("no serial output at all" if dump.bytes_received == 0
                    else "%d bytes received" % dump.bytes_received)
            return ["missing START line 'trapmeter <version> START' (%s)"
                    % what] + ([dump.flood] if dump.flood else [])
        probs = ["@tm line %d %s: %r" % (num, why if why.startswith("is ")
                                         else "refused: " + why, text)
                 for num, why, text in self._bad_lines]
        if dump.flood:
            probs.append(dump.flood)
        if self._starts > 1:
            probs.append("START line seen %d times (guest rebooted?)"
                         % self._starts)
        probs.extend(self._end_problems())
        if self._after_end:
            probs.append("%d @tm line(s) after the end line" % self._after_end)
        return probs

    def _end_problems(self):
        dump = self.dump
        probs = []
        if dump.end is None:
            probs.append("missing end line (@tm {\"type\":\"end\",...}) after "
                         "%d @tm lines; last case started: %s"
                         % (dump.tm_count, dump.last_case or "none"))
        else:
            probs.extend(self._end_line_mismatches())
        if dump.human_status is None:
            probs.append("missing 'trapmeter END status=...' line")
        elif dump.human_status not in GUEST_STATUS:
            probs.append("unknown END status %r" % dump.human_status)
        probs.extend(self._seal_problems())
        return probs

    def _seal_problems(self):
        """Schema 2: the counted status record, the end record and the
        human END line must all name the same status."""
        dump = self.dump
        if dump.sealed is None:
            if (self._schema() or 0) >= SEALED_SCHEMA:
                return ["schema %d dump without its status record "
                        "(@tm {\"type\":\"status\",...})" % self._schema()]
            return []
        word = dump.sealed.get("status")
        if word not in GUEST_STATUS:
            return ["sealed status %r is not a guest status" % (word,)]
        probs = []
        if dump.end is not None and dump.end.get("status") != word:
            probs.append("end record says status %r but the sealed status "
                         "record says %r" % (dump.end.get("status"), word))
        if dump.human_status is not None and dump.human_status != word:
            probs.append("END line says status=%s but the sealed status "
                         "record says %s: the unchecked line was altered"
                         % (dump.human_status, word))
        return probs

    def _end_line_mismatches(self):
        end, dump = self.dump.end, self.dump
        probs = []
        lines = end.get("lines")
        if not isinstance(lines, int) or isinstance(lines, bool):
            probs.append("end line has no integer 'lines' field")
        elif lines != dump.tm_count:
            probs.append("end line counts %d @tm lines but %d were received"
                         % (lines, dump.tm_count))
        crc = end.get("crc32")
        if not isinstance(crc, str) or not CRC_RE.match(crc):
            probs.append("end line crc32 field %r is not 8 lowercase hex "
                         "digits" % (crc,))
        elif crc != dump.crc_hex:
            probs.append("CRC32 mismatch: end line says %s, computed %s"
                         % (crc, dump.crc_hex))
        return probs

    def _warnings(self):
        dump = self.dump
        warns = []
        if dump.run is None and dump.end_status in ("ok", "check-failed"):
            warns.append("no run line in the dump")
        elif dump.run is not None and dump.run.get("schema") not in SCHEMAS:
            warns.append("run line schema %r (runner knows schemas %s)"
                         % (dump.run.get("schema"),
                            ", ".join(map(str, SCHEMAS))))
        warns.extend(tsc_warnings(dump.run))
        return warns


def parse_dump(data):
    """Parse a complete serial log (bytes)."""
    parser = DumpParser()
    parser.feed(data)
    return parser.finish()


def parse_chunks(pieces):
    """Parse a serial log read as a stream of byte chunks; the reading
    stops at the first flood (dump.py's caps), so /dev/zero or
    /dev/urandom ends after a bounded read."""
    parser = DumpParser()
    for piece in pieces:
        parser.feed(piece)
        if parser.saturated:
            break
    return parser.finish()
