"""The lines of a lava-run log: one YAML flow mapping each, as LAVA's
logger writes them (every scalar double-quoted in practice, but any
flow collection is read).  Standard library only: no PyYAML."""
import re

from ..values.errors import InputError

# Input caps: a number's text, its range (dump.py's), a YAML export's
# nesting and its values once aliases are expanded (a CSV field: the csv
# module's 128 KiB).
NUMBER_CHARS = 40
MAX_INT = 2 ** 64
MAX_FLOAT = 1e300
YAML_DEPTH = 32
YAML_VALUES = 1000000
YAML_NON_FINITE = (".nan", ".inf", "-.inf", "+.inf")


class FlowError(InputError, ValueError):
    """A line the flow reader cannot take."""


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
            if self.item_ends("}"):
                return out

    def sequence(self):
        self.expect("[")
        out = []
        if self.peek() == "]":
            self.i += 1
            return out
        while True:
            out.append(self.value())
            if self.item_ends("]"):
                return out

    def item_ends(self, close):
        """After an item: True at `close` (taken), False past a ','."""
        char = self.peek()
        self.i += 1
        if char == close:
            return True
        if char != ",":
            self.i -= 1
            self.fail("expected ',' or '%s'" % close)
        return False

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
