"""What a `kut` session counted for a row, beside the typed-in counts of
stats/kutcounts.py: KVM's counters per iteration of vmexit's case (QMP,
read at vmexit's lines: backends/kut_counted.py, each round's
"vmexit_counted"), and the interrupts trapmeter's deadline cases counted
themselves (their result's "interrupts" over its "ops": a twin row's
"irq_rate").  Measured each round; printed as the median over the rounds
that have it, lowest-highest."""

from ..values import figure
from .bootstats import median
from .kutcounts import BATCH_RATE, EXPLAINERS

# the pci-testdev test whose line is a pci case's figure (and count): the
# first, with no eventfd (commands/kut_boots.py PCI_FIRST)
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


def _g(value):
    """Three digits, whole numbers from 1000 up (1024, not 1.02e+03)."""
    return "%.0f" % value if abs(value) >= 1000 else "%.3g" % value


def spread_text(values, scale=1.0, unit=""):
    """"median (lowest-highest)" of per-round figures (times scale)."""
    vals = sorted(v * scale for v in values)
    text = "%s%s" % (_g(median(vals)), unit)
    if vals[0] != vals[-1]:
        text += " (%s-%s%s)" % (_g(vals[0]), _g(vals[-1]), unit)
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
            parts.append("%s %s" % (label, spread_text(values)))
    return "KVM counted per vmexit iteration (QMP, %d boot(s)): %s" % (
        len(rows), ", ".join(parts) or "nothing")


def twin_irq_text(boots, name):
    """"trapmeter's CASE took ..." for each case kut tries for name that
    counts its interrupts, or None: inside its timed batches where the
    result splits them (irq_split), else every one since the case's
    set-up, those taken after each timed batch (its last op's, pending)
    included: not a rate inside the ops."""
    out = []
    for case, _ref, _cause in EXPLAINERS.get(name, ()):
        rows = [b["cases"][case] for b in boots
                if isinstance(b.get("cases", {}).get(case), dict)]
        inside = [in_batch_rate(r["irq_split"]) for r in rows
                  if r.get("irq_split")]
        rates = [r["irq_rate"] for r in rows
                 if isinstance(r.get("irq_rate"), (int, float))]
        if inside:
            out.append("trapmeter's %s took %s interrupts an op inside its "
                       "timed batches (those each batch left pending taken "
                       "after it, untimed, %d boot(s))" % (
                           case, spread_text(inside), len(inside)))
        elif rates:
            out.append("trapmeter's %s took interrupts %s as many as its "
                       "ops (its own count since its set-up, those after "
                       "each timed batch included, %d boot(s))" % (
                           case, spread_text(rates, 100, " %"), len(rates)))
    return "; ".join(out) or None


def _count(value):
    """Whether value is a count or cycles figure the kernel writes."""
    return isinstance(value, int) and not isinstance(value, bool) and \
        value >= 0


def _means(res, batches):
    """[none's, some's, the control's] mean cycles per op; kernels from
    2fb6429 to 330237a wrote the first two as "irq_op_cycles", 0 where no
    batch of that kind ran (the sessions x10 and y12 of the null)."""
    old = res.get("irq_op_cycles")
    if isinstance(old, list) and len(old) == 2 and isinstance(batches, list) \
            and len(batches) == 2:
        firsts = [m if n else None for m, n in zip(old, batches)]
    else:
        firsts = [res.get("irq_op_cycles_none"), res.get("irq_op_cycles_some")]
    return firsts + [res.get("irq_ctl_op_cycles")]


def irq_split(res):
    """A result's split of its timed batches by the interrupts they took
    (kernel/bench.c emit_irq_split), checked, as {"batches": [none, some],
    "op": [their mean cycles per op, None where no such batch ran],
    "taken", "ctl" (its control's mean per op, or None), "iters",
    "median": [the median per op of the batches that took none, its
    control's median] or None (kernels before irq_op_median_none)}; None
    where the result has none or a field is not what the kernel writes
    (guest output is untrusted)."""
    batches = res.get("irq_batches")
    means = _means(res, batches)
    taken, iters = res.get("irq_in_batches"), res.get("iters")
    if not isinstance(batches, list) or len(batches) != 2 or not all(
            _count(v) for v in batches + [taken, iters]) or not iters or \
            not all(m is None or _count(m) for m in means) or any(
                (m is None) != (not n) for m, n in zip(means, batches)):
        return None
    median = _medians(res, batches)
    if median is False:
        return None
    return {"batches": batches, "op": means[:2], "taken": taken,
            "ctl": means[2], "iters": iters, "median": median}


def _medians(res, batches):
    """[irq_op_median_none, the control's median] where both are counts,
    None where the kernel wrote no median (or no batch took none), False
    where it wrote one that is not what the kernel writes."""
    if "irq_op_median_none" not in res:
        return None
    med = res["irq_op_median_none"]
    ctl = (res.get("cycles_control") or {}).get("median") if isinstance(
        res.get("cycles_control"), dict) else None
    if (med is None) != (not batches[0]) or not (med is None or _count(med)):
        return False
    return [med, ctl] if med is not None and _count(ctl) else None


def in_batch_rate(split):
    """Interrupts an op inside the timed batches of an irq_split."""
    ops = sum(split["batches"]) * split["iters"]
    return split["taken"] / ops if ops else 0.0


def _field(doc, key):
    return doc.get(key) if isinstance(doc, dict) else None


def emul_batch(host):
    """The PVM instruction emulator's batch (kvm_pvm.pvm_emul_batch in a
    results file's host fingerprint) as a positive int, or None (another
    backend, or a file that does not say)."""
    raw = _field(_field(_field(_field(host, "fingerprint"), "kvm"),
                        "kvm_pvm"), "pvm_emul_batch")
    try:
        value = int(str(raw).strip())
    except ValueError:
        return None
    return value if value > 0 else None


def batch_text(boots, name, batch):
    """For a BATCH_RATE name on PVM, the interrupts an iteration one per
    batch would give at the emulated instructions KVM counted an
    iteration (model), or None (another name, no batch, none counted)."""
    if name not in BATCH_RATE or not batch:
        return None
    insns = [b["vmexit_counted"][name].get("insn_emulation") for b in boots
             if isinstance((b.get("vmexit_counted") or {}).get(name), dict)]
    insns = [v for v in insns if isinstance(v, (int, float)) and v > 0]
    if not insns:
        return None
    per_iteration = median(insns)
    rate = figure.model(per_iteration / batch)
    return ("one interrupt a batch of %d emulated instructions, at %.3g an "
            "iteration: interrupts %s" % (batch, per_iteration, figure.text(
                rate, number=lambda v: "%.3g" % v)))


def text(boots, name, batch=None):
    """This session's counts for a row's note, or None (batch: the host's
    PVM emulator batch, for the model of BATCH_RATE names)."""
    parts = [t for t in (vmexit_text(boots, name),
                         batch_text(boots, name, batch),
                         twin_irq_text(boots, name)) if t]
    return "this session: " + "; ".join(parts) if parts else None
