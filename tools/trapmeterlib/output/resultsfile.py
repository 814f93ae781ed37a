"""A results.json read back (by compare, ab, bisect, history add, kut,
sensitivity) and checked whole.  Its messages name the file, never the
command that reads it: each command says its own name if it must.

Inputs are results.json files written by `trapmeter run` (one or more boots
each, `--repeat N`).  Each file is re-verified before use: the raw @tm lines
kept per boot must match the count and CRC-32 of the guest's end line, the
result records must be the ones those lines carry, and the CRC of the
results (with the runner's additions) must match the seal written with
them; a cut or hand-edited file is refused.

A file whose boots are of different --viommu settings (a sweep) is
refused too: its boots are not repeats of one machine.

A file that fails any check raises UnusableInput (exit status 11).
"""
import copy
import json
import math

from ..guest import virtio
from ..guest.dump import DumpParser, clean_text
from ..system import inputfile
from ..values import resultform
from ..values.errors import UnusableInput
from .report import add_speedups, results_crc32

MAX_ABS = 1e300             # larger numbers are refused as corrupt
MAX_BOOTS = 1000
# 2: status sealed in the dump; 3: rounds merged; 4: speed-ups by the
# figure rule (a file before it gets them when read: verify_boot)
KNOWN_SCHEMAS = (1, 2, 3, 4)


def _reject_constant(name):
    raise UnusableInput("non-finite number %s" % name)


def _check_numbers(obj, where, depth=0):
    """Refuse NaN/inf, absurdly large numbers and absurd nesting."""
    if depth > 64:
        raise UnusableInput("%s: nesting too deep" % where)
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, (int, float)):
        if isinstance(obj, float) and not math.isfinite(obj):
            raise UnusableInput("%s: non-finite number" % where)
        if abs(obj) > MAX_ABS:
            raise UnusableInput("%s: number out of range" % where)
        return
    if isinstance(obj, dict):
        for key, value in obj.items():
            _check_numbers(value, "%s.%s" % (where, key), depth + 1)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            _check_numbers(value, "%s[%d]" % (where, i), depth + 1)


def read_results(path):
    """Load and fully verify one results.json; returns the document."""
    try:
        raw = inputfile.read_text(path)
    except inputfile.InputError as exc:
        raise UnusableInput(str(exc))
    return parse_results(raw, path)


def parse_results(raw, path):
    """One results.json's bytes (named `path` in a message), fully
    verified as read_results verifies a file; returns the document."""
    try:
        doc = json.loads(raw.decode("utf-8"),
                         parse_constant=_reject_constant)
    except UnusableInput as exc:
        raise UnusableInput("%s: %s" % (path, exc))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise UnusableInput("%s: not a JSON results file (%s); truncated?"
                         % (path, str(exc).splitlines()[0][:120]))
    try:
        _check_numbers(doc, "results")
        doc = clean_host_strings(doc)
        verify_document(doc)
    except UnusableInput as exc:
        raise UnusableInput("%s: %s" % (path, exc))
    except RecursionError:
        raise UnusableInput("%s: nesting too deep" % path)
    return doc


def clean_host_strings(value, key=None):
    """Every string of the file made safe for a terminal by the one gate
    guest text passes (dump.clean_text), but the raw @tm lines, which the
    replay checks byte for byte: a string the runner wrote is clean
    already, so only a hand-edited one changes."""
    if key == "tm_lines":
        return value
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k:
                clean_host_strings(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_host_strings(v) for v in value]
    return value


def verify_document(doc):
    if not isinstance(doc, dict) or doc.get("tool") != "trapmeter":
        raise UnusableInput("not a trapmeter results.json (no \"tool\": "
                         "\"trapmeter\")")
    schema = doc.get("schema")
    if schema not in KNOWN_SCHEMAS or isinstance(schema, bool):
        raise UnusableInput("results schema %r is not one this trapmeter reads "
                         "(%s)" % (schema, ", ".join(map(str, KNOWN_SCHEMAS))))
    boots = doc.get("boots")
    if not isinstance(boots, list) or not boots:
        raise UnusableInput("no boots in the file")
    if len(boots) > MAX_BOOTS:
        raise UnusableInput("%d boots: more than %d" % (len(boots), MAX_BOOTS))
    settings = []
    for boot in boots:
        if isinstance(boot, dict) and boot.get("viommu") and \
                str(boot["viommu"]) not in settings:
            settings.append(str(boot["viommu"]))
    if len(settings) > 1:
        raise UnusableInput("a --viommu sweep (boots of %s): its boots are "
                         "different machines whose cases share names (bm.* "
                         "is mode none in one, 4k in another); give runs of "
                         "one setting" % " and ".join(settings))
    usable = 0
    for index, boot in enumerate(boots):
        if not isinstance(boot, dict):
            raise UnusableInput("boot %d is not an object" % index)
        if verify_boot(boot, index):
            usable += 1
    if not usable:
        raise UnusableInput("no boot with results (every boot failed)")


def verify_boot(boot, index):
    """Re-verify one boot; False when it has no results to compare (a
    failed boot), UnusableInput when it was cut or edited."""
    results = boot.get("results")
    if not isinstance(results, list):
        raise UnusableInput("boot %d: \"results\" is not a list" % index)
    integ = boot.get("integrity")
    if not results and integ is None:
        return False
    if not isinstance(integ, dict) or not isinstance(
            integ.get("tm_lines"), list):
        raise UnusableInput("boot %d: no integrity record (raw @tm lines); "
                         "written by an older runner? re-run it" % index)
    dump = boot.get("dump")
    end = dump.get("end") if isinstance(dump, dict) else None
    if not isinstance(end, dict):
        raise UnusableInput("boot %d: the guest's end line is missing: the "
                         "dump was cut" % index)
    guest = _replay(integ["tm_lines"], end, index)
    _runner_labels(guest.results, boot.get("virtio"))
    _match_results(results, guest.results, index)
    _match_checks(boot.get("checks"), guest.checks, index)
    seal = integ.get("results_crc32")
    if seal != results_crc32(results):
        raise UnusableInput("boot %d: results do not match their CRC seal "
                         "(%r): the file was edited after the run"
                         % (index, seal))
    seal = integ.get("checks_crc32")
    if seal is not None and seal != results_crc32(boot["checks"]):
        raise UnusableInput("boot %d: checks do not match their CRC seal "
                         "(%r): the file was edited after the run"
                         % (index, seal))
    for res in results:         # what every reader of the file then sees
        resultform.apply_rule(res)
    add_speedups(results)       # the same for a file before schema 4
    return bool(results)


def _match_checks(checks, guest, index):
    """The guest's checks, as its lines hold them, come first in the
    boot's checks (the runner may add its own after them, sealed by
    checks_crc32)."""
    if not isinstance(checks, list) or len(checks) < len(guest):
        raise UnusableInput("boot %d: the boot's checks lack some of the "
                         "guest's %d: edited" % (index, len(guest)))
    for i, (mine, theirs) in enumerate(zip(checks, guest)):
        if not isinstance(mine, dict) or any(
                mine.get(key) != value for key, value in theirs.items()):
            raise UnusableInput("boot %d: check %d (%s) differs from the "
                             "guest's line: edited" % (index, i,
                                                       theirs.get("name")))


def _replay(lines, end, index):
    """Feed the stored @tm lines through the dump parser: count and CRC
    must match the end line.  Returns the guest's dump (its results and
    checks)."""
    parser = DumpParser()
    parser.feed_line(b"trapmeter ? START")
    for i, text in enumerate(lines):
        if not isinstance(text, str):
            raise UnusableInput("boot %d: raw line %d is not text" % (index, i))
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise UnusableInput("boot %d: raw line %d has bad characters"
                             % (index, i))
        if b"\n" in data or b"\r" in data:
            raise UnusableInput("boot %d: raw line %d spans lines" % (index, i))
        parser.feed_line(b"@tm " + data)
    dump = parser.dump
    lines_expected, crc = end.get("lines"), end.get("crc32")
    if lines_expected != dump.tm_count:
        raise UnusableInput("boot %d: end line counts %r @tm lines but %d are "
                         "stored: truncated or edited" % (index,
                                                          lines_expected,
                                                          dump.tm_count))
    if crc != dump.crc_hex:
        raise UnusableInput("boot %d: CRC-32 of the stored @tm lines is %s but "
                         "the guest's end line says %r: edited or garbled"
                         % (index, dump.crc_hex, crc))
    sealed = dump.sealed.get("status") if dump.sealed else None
    if sealed is not None and end.get("status") != sealed:
        raise UnusableInput("boot %d: end line says status %r but the sealed "
                         "status record says %r: edited" % (
                             index, end.get("status"), sealed))
    return dump


def _runner_labels(guest, conf):
    """What the runner adds to a guest's line before it stores it, added
    to the replayed lines too: a kick's handler under ioeventfd=on, which
    the guest cannot know (the stored boot keeps the NICs' settings)."""
    if not isinstance(conf, dict) or conf.get("ioeventfd") not in ("on", "off"):
        return
    for rec in guest:
        virtio.kick_handler(rec, conf)


def _match_results(results, guest, index):
    if len(results) != len(guest):
        raise UnusableInput("boot %d: %d results stored but the guest's lines "
                         "hold %d: edited" % (index, len(results),
                                              len(guest)))
    for i, (mine, theirs) in enumerate(zip(results, guest)):
        if not isinstance(mine, dict):
            raise UnusableInput("boot %d: result %d is not an object"
                             % (index, i))
        # an earlier runner stored its figures before the figure rule:
        # ruled alike, they must be the guest's (the seal covers the rest)
        ruled = resultform.apply_rule(copy.deepcopy(mine))
        for key, value in theirs.items():
            if ruled.get(key) != value:
                raise UnusableInput("boot %d: result %d (%s) field %r differs "
                                 "from the guest's line: edited"
                                 % (index, i, theirs.get("case"), key))
