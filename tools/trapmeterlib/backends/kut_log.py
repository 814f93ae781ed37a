"""kvm-unit-tests `x86/vmexit` logs read back as trapmeter boots.

A vmexit log is the serial output of `x86/vmexit.flat` (from `./x86/run
x86/vmexit.flat -append "names..."`, or `logs/vmexit_*.log` of
`./run_tests.sh -g vmexit`).  vmexit prints one line per case it runs,
"<name> <cycles per iteration>", the figure a mean over a loop doubled
until it spans 2^30 TSC cycles, read with unfenced rdtsc and no control
loop; "  ipi <name> N" and "  eoi <name> N" sub-lines for the IPI cases;
"<name> (skipped)" when the CPU lacks the feature; the pci-testdev cases
as "<test>:pci-mem N" (one line per pci-testdev test).

Each log becomes one boot of suite "kut": the figures are turned into the
@tm lines a guest would have written (result, skip, status) under their
own count and CRC-32 (the end record), and that synthetic dump goes
through the same parser as a trapmeter boot, so `compare` and `ab` read
vmexit figures as they read ours.  The seal is this importer's, not a
guest's: it protects the file from edits after the import, not the log
before it."""
import copy
import json
import re
import zlib

from ..guest.dump import parse_dump
from ..values.errors import InputError
from ..values.resultform import COMPACT_SCHEMA

SUITE = "kut"
# kvm-unit-tests x86/vmexit.c tests[] at 1da1819e (2026-06), in its order
VMEXIT_NAMES = (
    "cpuid", "vmcall", "wbinvd", "invd", "mov_from_cr8", "mov_to_cr8",
    "inl_from_pmtimer", "inl_from_qemu", "inl_from_kernel", "outl_to_kernel",
    "mov_dr", "tscdeadline_immed", "tscdeadline", "self_ipi_sti_nop",
    "self_ipi_sti_hlt", "self_ipi_tpr", "self_ipi_tpr_sti_nop",
    "self_ipi_tpr_sti_hlt", "x2apic_self_ipi_sti_nop",
    "x2apic_self_ipi_sti_hlt", "x2apic_self_ipi_tpr",
    "x2apic_self_ipi_tpr_sti_nop", "x2apic_self_ipi_tpr_sti_hlt", "ipi",
    "ipi_halt", "ple_round_robin", "wr_kernel_gs_base", "wr_tsx_ctrl_msr",
    "wr_ibrs_msr", "wr_ibpb_msr", "wr_tsc_adjust_msr", "rd_tsc_adjust_msr",
    "toggle_cr0_wp", "toggle_cr4_pge", "pci-mem", "pci-io")
STATISTIC = ("vmexit: mean cycles per iteration of a loop doubled until it "
             "spans 2^30 TSC cycles; unfenced rdtsc, no control loop")
MAX_LOG_BYTES = 16 << 20
MAX_BAD = 20               # bad lines kept as failed checks
MAX_FIGURE = 1 << 40        # vmexit prints an int: more is not a figure
_NAME = "|".join(re.escape(n) for n in VMEXIT_NAMES)
# "cpuid 1098", "mmio-no-eventfd:pci-mem 1234"; a pci-testdev test name
# is printed by the guest from the device's header, ours to clean
# vmexit's self-IPI cases print x (the interrupts taken) whenever it is
# not 1, with no separator, just before the figure line: "000cpuid 1"
FIGURE_RE = re.compile(r"^(?P<odd>\d*)(?:(?P<sub>[A-Za-z0-9_.-]{1,40}):)?"
                       r"(?P<name>%s) (?P<cycles>-?\d{1,20})\s*$" % _NAME)
SKIP_RE = re.compile(r"^(?P<name>%s) \(skipped\)\s*$" % _NAME)
PART_RE = re.compile(r"^\s+(?P<part>ipi|eoi) (?P<name>%s) (?P<cycles>-?\d{1,20})"
                     r"\s*$" % _NAME)
# what says a log is vmexit's at all: its own banner or a case line
PM_TIMER_RE = re.compile(r"^PM timer port is ([0-9a-f]+)\s*$")


class KutLogError(InputError):
    """A file that is not a kvm-unit-tests vmexit log (exit status 2)."""


class KutLog:
    """What one vmexit log says, in the order it says it."""

    def __init__(self, path):
        self.path = path
        self.figures = []       # (case, kut name, cycles, {part: cycles})
        self.skipped = []       # kut names
        self.bad = []           # "line N: why"
        self.odd = {}           # case -> iterations vmexit saw x != 1
        self.pm_timer = None

    @property
    def cases(self):
        return [f[0] for f in self.figures]


def case_name(name, sub):
    """trapmeter's case name of a vmexit line: the vmexit name, and the
    pci-testdev test for pci-mem/pci-io ("pci-mem.mmio-no-eventfd")."""
    return "%s.%s" % (name, sub) if sub else name


def parse(path, text):
    """Read a vmexit log's text; KutLogError when it holds no vmexit line."""
    log = KutLog(path)
    for number, line in enumerate(text.splitlines(), 1):
        _take_line(log, number, line.rstrip("\r"))
    if not log.figures and not log.skipped:
        raise KutLogError(
            "%s: not a kvm-unit-tests vmexit log (no \"<case> <cycles>\" or "
            "\"<case> (skipped)\" line for any of vmexit's %d cases)"
            % (path, len(VMEXIT_NAMES)))
    return log


def _take_line(log, number, line):
    found = FIGURE_RE.match(line)
    if found:
        cycles = int(found.group("cycles"))
        name = found.group("name")
        if not 0 < cycles < MAX_FIGURE:
            log.bad.append("line %d: %s %d cycles is not a figure (vmexit's "
                           "int overflowed, or the loop ran backwards)"
                           % (number, name, cycles))
            return
        case = case_name(name, found.group("sub"))
        log.figures.append((case, name, cycles, {}))
        if found.group("odd"):
            log.odd[case] = len(found.group("odd"))
        return
    found = PART_RE.match(line)
    if found:
        _take_part(log, number, found)
        return
    found = SKIP_RE.match(line)
    if found:
        log.skipped.append(found.group("name"))
        return
    found = PM_TIMER_RE.match(line)
    if found:
        log.pm_timer = int(found.group(1), 16)


def _take_part(log, number, found):
    """"  ipi <name> N" belongs to the figure line just before it."""
    name = found.group("name")
    if not log.figures or log.figures[-1][1] != name:
        log.bad.append("line %d: %s line for %s without its figure line"
                       % (number, found.group("part"), name))
        return
    log.figures[-1][3][found.group("part")] = int(found.group("cycles"))


# Each figure over the in-kernel port's of the same log: a within-boot
# figure (stats/kutratio.py, WITHIN_BOOT) that `compare` may judge between
# logs taken apart in time, where the absolute cycles may not be.
REL_REFERENCE = "inl_from_kernel"
REL_FIELD = "cycles_rel_ref"
REL_DIGITS = 6
# the iterations a self-IPI case printed x != 1 in (KutLog.odd)
PRINTED_FIELD = "printed_x"


def _result(case, name, cycles, parts, ref=None):
    """A result line in the compact form (schema 3, resultform.py): one
    figure, so every statistic of the array is it and the spread 0; with
    the figure over the log's reference figure `ref` (REL_FIELD)."""
    res = {"type": "result", "suite": SUITE, "case": case, "target": "vmexit",
           "handler": "none", "dir": "none", "width": 0, "method": "single",
           "bytes": 0, "samples": 1, "cycles": [cycles] * 7 + [0],
           "control_none": "vmexit has no control loop: its figure is "
                           "gross (loop and exit together)",
           "kut_name": name, "statistic": STATISTIC}
    for part, value in sorted(parts.items()):
        res["kut_%s_cycles" % part] = value
    if ref and name != REL_REFERENCE:
        res[REL_FIELD] = round(cycles / ref, REL_DIGITS)
        res["rel_ref"] = REL_REFERENCE
    return res


def reference_cycles(log):
    """The log's figure of REL_REFERENCE, or None."""
    return next((cycles for case, name, cycles, _p in log.figures
                 if case == name == REL_REFERENCE), None)


def records(log):
    """The suite's @tm records of a log: suite, case and result lines,
    skips."""
    out = [{"type": "suite", "suite": SUITE}]
    ref = reference_cycles(log)
    for case, name, cycles, parts in log.figures:
        out.append({"type": "case", "suite": SUITE, "case": case})
        res = _result(case, name, cycles, parts, ref)
        if case in log.odd:     # its loop ran a printf this often
            res[PRINTED_FIELD] = log.odd[case]
        out.append(res)
    for name in log.skipped:
        out.append({"type": "skip", "suite": SUITE, "case": name,
                    "reason": "vmexit printed \"%s (skipped)\": the CPU "
                              "or the machine lacks the feature" % name})
    for case, count in log.odd.items():
        out.append({"type": "check", "name": "kut.%s.interrupts" % case,
                    "ok": False, "detail": "vmexit printed x != 1 (the "
                    "self-IPI not taken where it expects it) in %d "
                    "iteration(s)" % count})
    return out


def _text(rec):
    return json.dumps(rec, separators=(",", ":"))


def seal(texts):
    """The end record of counted @tm texts (count, CRC-32, status)."""
    crc = 0
    for text in texts:
        crc = zlib.crc32(text.encode("utf-8", "surrogateescape") + b"\n", crc)
    return {"type": "end", "lines": len(texts), "crc32": "%08x" % (
        crc & 0xffffffff), "status": json.loads(texts[-1])["status"]}


def dump_text(texts):
    """The serial text a guest would have written with these @tm texts."""
    end = seal(texts)
    lines = ["trapmeter kut-import START"] + ["@tm " + t for t in texts]
    lines += ["@tm " + _text(end), "trapmeter END status=%s" % end["status"]]
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape")


def tm_lines(log):
    """The @tm JSON texts of a log's own dump (run first, status last);
    a bad line of the log is a failed check kut.log."""
    run = {"type": "run", "schema": COMPACT_SCHEMA, "version": None,
           "source": "kvm-unit-tests x86/vmexit", "source_log": log.path,
           "cmdline": None, "pm_timer_port": log.pm_timer}
    recs = [run] + records(log)
    for why in log.bad[:MAX_BAD]:
        recs.append({"type": "check", "name": "kut.log", "ok": False,
                     "detail": why})
    failed = min(len(log.bad), MAX_BAD) + len(log.odd)
    recs.append({"type": "status", "status": "check-failed" if failed
                 else "ok", "checks_failed": failed, "lines_dropped": 0})
    return [_text(r) for r in recs]


def to_dump(log):
    """The parsed (validated) dump of a vmexit log: a trapmeter Dump."""
    return parse_dump(dump_text(tm_lines(log)))


def merge_boot(boot, log):
    """A trapmeter boot (results.json entry) with a vmexit log's figures
    added as suite kut: its @tm lines get the log's records before the
    status record, under a new count and CRC (the replay in
    output/resultsfile.py then finds them), its results and skips the
    records as the parser expands them with the boot's own run record.
    The boot unchanged when it has no status record to insert before."""
    texts = list((boot.get("integrity") or {}).get("tm_lines") or [])
    if not texts or json.loads(texts[-1]).get("type") != "status":
        return boot
    kut = [_text(r) for r in records(log)]
    merged = texts[:-1] + kut + texts[-1:]
    run = [t for t in texts if json.loads(t).get("type") == "run"][:1]
    part = parse_dump(dump_text(run + kut + texts[-1:]))
    out = copy.deepcopy(boot)
    out["integrity"]["tm_lines"] = merged
    out["results"] = out["results"] + part.results
    out["skips"] = out["skips"] + part.skips
    # the guest's checks come first in a boot's checks, the runner's after
    ours = sum(json.loads(t).get("type") == "check" for t in texts)
    out["checks"] = out["checks"][:ours] + part.checks + out["checks"][ours:]
    end = seal(merged)
    out["dump"] = dict(out.get("dump") or {}, end=end, tm_lines=end["lines"],
                       crc32=end["crc32"])
    return out
