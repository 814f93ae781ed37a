"""The cost breakdown and its attribution as text: the "where the time
goes" table `run` prints (stats/breakdown.py) and the "where the time
went" lines of `compare` and `ab` (stats/attribution.py)."""
from ..stats.breakdown import COMPONENTS

LABELS = {
    "vm_exit": "VM exit+entry (cpuid)",
    "kvm_pio": "KVM PIO emulation",
    "qemu_round_trip": "round trip to QEMU",
    "device_model": "device model / unit",
}
HEAD = ("class", "total", "VM exit", "KVM PIO", "round trip to QEMU",
        "device/unit", "fit: held-out error")
TITLE = ("where the time went (cost breakdown, candidate - base, cycles per "
         "single-unit access; interval at 5 % over all components):")


def _cell(value, ci=None):
    if value is None:
        return "-"
    text = f"{value:,.0f}"
    if ci:
        text += f"\u00b1{(ci[1] - ci[0]) / 2:,.0f}"
    return text


def fit_cell(entry):
    """The judged fit: the lower envelope's across boots, else the boot's."""
    fit = (entry.get("envelope") or entry)["fit"]
    within = fit.get("held_out_within")
    text = ("poor" if fit.get("poor") else "ok") + (
        f" ({within * 100:.1f} %)" if within is not None else
        " (cannot hold rows out)" if fit.get("held_out_faster") is None else "")
    if fit.get("slow"):
        text += f", {len(fit['slow'])} of {fit.get('rows')} rows slower"
    return text


def table_rows(entries):
    rows = []
    for e in entries:
        comps = e.get("components")
        if not comps:
            continue
        cells = [e["class"], _cell(e["measured"], e.get("measured_ci"))]
        for name in COMPONENTS:
            if name == "qemu_round_trip" and e.get("in_kernel"):
                cells.append("none (KVM)")
                continue
            cells.append(_cell(comps[name]["cycles"], comps[name]["ci"]))
        rows.append(cells + [fit_cell(e)])
    return rows


def format_table(entries, software_backend=False):
    """'Where the time goes' lines: one row per QEMU-port class."""
    rows = table_rows(entries)
    if not rows:
        return []
    boots = max(e.get("boots", 1) for e in entries)
    head = list(HEAD)
    if software_backend:
        head[2] = "PVM exit"
    lines = ["where the time goes: cycles of one single-unit access, guest loop "
             "excluded" + (f" (\u00b1 95 % interval over {boots} boots)" if boots > 1 else "")]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    for r in [head] + rows:
        lines.append("  " + "  ".join(c.ljust(w) if i in (0, 6) else c.rjust(w)
                                       for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    for e in entries:
        if e["class"] == "fwcfg.dma":
            f = e["fit"]
            lines.append(f"  fwcfg.dma: {_cell(f.get('per_op'), f.get('per_op_ci'))} per op"
                         f" + {f.get('per_byte', 0):,.2f} per byte (the device writing guest memory)")
    lines.append("  held-out error: each sweep row predicted by the fit of the others, the "
                 "largest miss of those not slower than predicted by more than 5 % (noise "
                 "only adds time; the slower rows are named in results.json, fit.slow)")
    return lines


def render_attribution(attr):
    """Short lines for the verdict table: one per class."""
    if not attr:
        return []
    lines = [TITLE]
    for key, entry in sorted(attr.items()):
        name = entry["moved"]
        if name is None:
            lines.append("  %-14s no component moved" % key)
            continue
        lo, hi = entry["ci"]
        lines.append("  %-14s %s %+.0f [%+.0f..%+.0f]" % (
            key, LABELS[name], entry["delta"], lo, hi))
    return lines
