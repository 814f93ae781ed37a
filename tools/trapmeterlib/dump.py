"""Parse and validate the guest's COM1 dump.

The parser is incremental (fed chunks as QEMU produces them, so the runner
can show progress and still know the last case started when it has to kill
QEMU) and pure (bytes in, Python objects out)."""

import json
import re
import zlib

from .status import GUEST_STATUS

TM_PREFIX = b"@tm "
# Firmware (OVMF, GRUB) may leave escape sequences on the line before START.
START_RE = re.compile(rb"trapmeter (\S+) START\s*$")
END_RE = re.compile(rb"^trapmeter END status=(\S*)")
CRC_RE = re.compile(r"^[0-9a-f]{8}$")
HUMAN_CONTEXT = 40      # human lines kept before an exception record
EXCERPT = 60

# Record "type" -> Dump attribute holding the list of such records.
COLLECTED = {"result": "results", "check": "checks", "skip": "skips",
             "error": "errors", "exception": "exceptions"}
PROGRESS_TYPES = ("suite", "case")
# Phase points for exit counting: handled by the runner, not kept as data.
SYNC_TYPES = ("sync",)


def crc_of_lines(json_texts):
    """The guest's end.crc32: zlib.crc32 over each JSON text plus b"\\n"."""
    crc = 0
    for text in json_texts:
        crc = zlib.crc32(text + b"\n", crc)
    return "%08x" % (crc & 0xffffffff)


def _excerpt(raw):
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "..."


def _load_json(text):
    """JSON object or None; NaN/Infinity become null so results.json stays
    valid JSON."""
    try:
        obj = json.loads(text, parse_constant=lambda _c: None)
    except (ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


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
        self.end_status = None
        self.tm_count = 0           # @tm lines before the end line
        self.tm_texts = []          # their JSON texts, for re-verification
        self.crc = 0
        self.last_suite = None
        self.last_case = None
        self.human_lines = []
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
                "tm_lines": self.tm_count, "crc32": self.crc_hex,
                "end": self.end,
                "bytes": self.bytes_received, "last_case": self.last_case}


class DumpParser:
    """Feed serial bytes; get @tm records back as they complete."""

    def __init__(self):
        self.dump = Dump()
        self._partial = b""
        self._bad_lines = []
        self._after_end = 0
        self._starts = 0
        self._context = []

    def feed(self, chunk):
        """Add raw serial bytes; return the @tm records completed by them."""
        self.dump.bytes_received += len(chunk)
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        records = []
        for line in lines:
            rec = self.feed_line(line)
            if rec is not None:
                records.append(rec)
        return records

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
        text = line.decode("utf-8", "replace")
        if dump.started:
            dump.human_lines.append(text)
            self._context = (self._context + [text])[-HUMAN_CONTEXT:]
        end = END_RE.match(line)
        if end and dump.started and dump.end_status is None:
            dump.end_status = end.group(1).decode("utf-8", "replace")

    def _start(self, version):
        """START resets state: anything before it is firmware noise."""
        self._starts += 1
        keep = self.dump.bytes_received
        self.dump = Dump()
        self.dump.bytes_received = keep
        self.dump.started = True
        self.dump.version = version
        self._bad_lines, self._after_end, self._context = [], 0, []

    def _tm_line(self, text):
        dump = self.dump
        if not dump.started:
            return None
        if dump.end is not None or dump.end_status is not None:
            self._after_end += 1
            return None
        obj = _load_json(text)
        if obj is not None and obj.get("type") == "end":
            dump.end = obj
            return obj
        dump.tm_count += 1
        dump.crc = zlib.crc32(text + b"\n", dump.crc)
        dump.tm_texts.append(text.decode("utf-8", "surrogateescape"))
        if obj is None:
            self._bad_lines.append((dump.tm_count, _excerpt(text)))
            return None
        self._collect(obj)
        return obj

    def _collect(self, obj):
        dump = self.dump
        dump.records.append(obj)
        kind = obj.get("type")
        if kind == "run" and dump.run is None:
            dump.run = obj
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
        suite = obj.get("suite")
        dump.last_suite = suite
        if obj.get("type") == "case":
            dump.last_case = "%s/%s" % (suite, obj.get("case"))

    def finish(self):
        """Flush a final unterminated line and validate; return the Dump."""
        if self._partial:
            self.feed_line(self._partial)
            self._partial = b""
        self.dump.problems = self._problems()
        self.dump.warnings = self._warnings()
        return self.dump

    def _problems(self):
        dump = self.dump
        if not dump.started:
            what = ("no serial output at all" if dump.bytes_received == 0
                    else "%d bytes received" % dump.bytes_received)
            return ["missing START line 'trapmeter <version> START' (%s)"
                    % what]
        probs = ["@tm line %d is not a JSON object: %r" % bad
                 for bad in self._bad_lines]
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
        if dump.end_status is None:
            probs.append("missing 'trapmeter END status=...' line")
        elif dump.end_status not in GUEST_STATUS:
            probs.append("unknown END status %r" % dump.end_status)
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
        elif dump.run is not None and dump.run.get("schema") != 1:
            warns.append("run line schema %r (runner knows schema 1)"
                         % dump.run.get("schema"))
        failed = [c for c in dump.checks if c.get("ok") is not True]
        if failed and dump.end_status == "ok":
            warns.append("END status=ok but %d check(s) failed" % len(failed))
        return warns


def parse_dump(data):
    """Parse a complete serial log (bytes)."""
    parser = DumpParser()
    parser.feed(data)
    return parser.finish()
