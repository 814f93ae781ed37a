"""What a `kut` session counted for a row, beside the typed-in counts of
stats/kutcounts.py: KVM's counters per iteration of vmexit's case (QMP,
read at vmexit's lines: backends/kut_counted.py, each round's
"vmexit_counted"), and the interrupts trapmeter's deadline cases counted
themselves (their result's "interrupts" over its "ops": a twin row's
"irq_rate").  Measured each round; printed as the median over the rounds
that have it, lowest-highest."""

from .bootstats import median
from .kutcounts import EXPLAINERS

# the pci-testdev test whose line is a pci case's figure (and count): the
# first, with no eventfd (commands/kut.py PCI_FIRST)
FIRST_PCI = "no-eventfd"


def vmexit_name(case, names):
    """The vmexit name (of names) a counted case stands for: the name
    itself, or a pci case's first pci-testdev test ("pci-mem.mmio-no-
    eventfd"); None for another test or another name."""
    name, _dot, test = str(case).partition(".")
    if name in names and (not test or test.endswith(FIRST_PCI)):
        return name
    return None


# KVM's x86 vCPU counters kut reads (backends/kut_counted.py) and prints,
# as a row's text names them: exits (all, port, MMIO, HLT), the
# instruction emulator's runs and interrupts injected into the guest
NAMES = (("exits", "exits"), ("io_exits", "port exits"),
         ("mmio_exits", "MMIO exits"), ("halt_exits", "HLT exits"),
         ("insn_emulation", "emulated instructions"),
         ("irq_injections", "interrupts"))
COUNTERS = tuple(key for key, _label in NAMES)


def _fmt(values, scale=1.0, unit=""):
    vals = sorted(v * scale for v in values)
    text = "%.3g%s" % (median(vals), unit)
    if vals[0] != vals[-1]:
        text += " (%.3g-%.3g%s)" % (vals[0], vals[-1], unit)
    return text


def vmexit_text(boots, name):
    """"KVM counted per vmexit iteration (QMP, n boots): ..." of the
    counters not zero in every round, or None (no round counted)."""
    rows = [b["vmexit_counted"][name] for b in boots
            if isinstance((b.get("vmexit_counted") or {}).get(name), dict)]
    if not rows:
        return None
    parts = []
    for key, label in NAMES:
        values = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
        if values and any(values):
            parts.append("%s %s" % (label, _fmt(values)))
    return "KVM counted per vmexit iteration (QMP, %d boot(s)): %s" % (
        len(rows), ", ".join(parts) or "nothing")


def twin_irq_text(boots, name):
    """"trapmeter's CASE took an interrupt on X % of its ops (its own
    count, n boots)" for each case kut tries for name that counts them,
    or None."""
    out = []
    for case, _ref, _cause in EXPLAINERS.get(name, ()):
        rates = [b["cases"][case]["irq_rate"] for b in boots
                 if isinstance((b.get("cases", {}).get(case) or {}).get(
                     "irq_rate"), (int, float))]
        if rates:
            out.append("trapmeter's %s took one on %s of its ops (its own "
                       "count, %d boot(s))" % (case, _fmt(rates, 100, " %"),
                                              len(rates)))
    return "; ".join(out) or None


def text(boots, name):
    """This session's counts for a row's note, or None."""
    parts = [t for t in (vmexit_text(boots, name), twin_irq_text(boots, name))
             if t]
    return "this session: " + "; ".join(parts) if parts else None
