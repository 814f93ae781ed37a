"""The cost breakdown and its attribution as text: the "where the time
goes" table `run` prints (stats/breakdown.py) and the "where the time
went" lines of `compare` and `ab` (stats/attribution.py)."""
from ..guest import dma, dmafit
from ..stats.breakdown import ABSENT, COMPONENTS
from ..values import figure as fig

SHORT_LABELS = {"vm_exit": "VM exit", "kvm_pio": "KVM PIO",
                "qemu_round_trip": "round trip", "device_model": "device/unit"}
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


def comp_figure(comp):
    """A component's figure (fig.from_json), None for a layer the class
    does not have; a malformed one is not resolved, NO_DATA."""
    try:
        return fig.from_json(comp or {})
    except ValueError:
        return fig.not_resolved(fig.NO_DATA)


def comp_cell(comp):
    """A component's cell: its figure, n.r., or "-" for a layer the
    class does not have."""
    one = comp_figure(comp)
    return "-" if one is None else fig.text(one)


def total_of(entry):
    return fig.get(entry, "measured")


def not_resolved(entry):
    """[(label, reason)] of the row's figures that are not resolved."""
    out = []
    total = total_of(entry)
    if not total.resolved:
        out.append(("total", total.reason))
    for name in COMPONENTS:
        one = comp_figure((entry.get("components") or {}).get(name))
        if one is not None and not one.resolved:
            out.append((SHORT_LABELS[name], one.reason))
    return out


def fit_cell(entry):
    """The judged fit (the lower envelope's across boots, else the
    boot's): "ok" only where every figure of the row is resolved; a poor
    fit's reason is printed under the table (poor_notes)."""
    fit = (entry.get("envelope") or entry)["fit"]
    within = fit.get("held_out_within")
    held = (fig.percent_text(fig.measured(within)) if within is not None else
            "cannot hold rows out" if fit.get("held_out_faster") is None else "")
    missing = not_resolved(entry)
    if fit.get("poor"):
        text = f"poor ({held + ', ' if held else ''}why below)"
    elif missing:
        text = f"held-out {held}" if held else "not judged"
    else:
        text = f"ok ({held})" if held else "ok"
    if fit.get("slow"):
        text += f", {len(fit['slow'])} of {fit.get('rows')} rows slower"
    if missing:
        text += "; " + ", ".join(label for label, _ in missing) + " " + fig.SHORT
    return text


def poor_notes(entries):
    """One line per class whose judged fit is poor: why."""
    lines = []
    for e in entries:
        fit = (e.get("envelope") or e)["fit"]
        if e.get("components") and fit.get("poor"):
            lines.append(f"  poor fit, {e['class']}: "
                         f"{fit.get('poor_reason') or 'held-out rows missed by more than 5 %'}")
    return lines


def legend_notes(entries):
    """n.r. reasons (one line each, with the figures that have it) and
    what "-" means, for the rows shown."""
    reasons = {}
    absent = False
    for e in entries:
        if not e.get("components"):
            continue
        for label, why in not_resolved(e):
            reasons.setdefault(why, []).append(f"{e['class']} {label}")
        absent = absent or any(
            comp_figure(c) is None and name != "qemu_round_trip"
            for name, c in e["components"].items())
    lines = [f"  {fig.SHORT}: not resolved, {why}: {', '.join(names)}"
             for why, names in reasons.items()]
    if absent:
        lines.append("  -: " + ABSENT["device_model"])
    return lines


def table_rows(entries):
    rows = []
    for e in entries:
        comps = e.get("components")
        if not comps:
            continue
        cells = [e["class"], fig.text(total_of(e))]
        for name in COMPONENTS:
            if name == "qemu_round_trip" and e.get("in_kernel"):
                cells.append("none (KVM)")
                continue
            cells.append(comp_cell(comps[name]))
        rows.append(cells + [fit_cell(e)])
    return rows


def format_table(entries, software_backend=False):
    """'Where the time goes' lines: one row per QEMU-port class, then the
    costs fitted apart (fw_cfg DMA, the DMA translation)."""
    rows = table_rows(entries)
    apart = fitted_apart(entries)
    if not rows:
        return ["where the time goes (costs fitted apart, cycles):"] + apart \
            if apart else []
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
    lines += apart + poor_notes(entries) + legend_notes(entries)
    lines.append("  held-out error: each sweep row predicted by the fit of the others, the "
                 "largest miss of those not slower than predicted by more than 5 % (noise "
                 "only adds time; the slower rows are named in results.json, fit.slow)")
    return lines


def fitted_apart(entries):
    """The lines of the costs fitted apart from the layers."""
    lines = []
    for e in entries:
        f = e["fit"]
        if e["class"] == "fwcfg.dma":
            per_byte = fig.text(fig.get(f, "per_byte"), "{:,.2f}".format)
            lines.append(f"  fwcfg.dma: {fig.text(fig.get(f, 'per_op'))} per op"
                         f" + {per_byte} per byte (the device writing guest memory)")
        elif e["class"] == dmafit.CLASS:
            lines += dma_translation(f, e.get("boots", 1))
    return lines


def _band(figure):
    """guest/dma.py's [lo..hi] form; not resolved: with its reason."""
    return dma.band_text(figure) if figure.resolved else \
        fig.text(figure, short=False)


def dma_translation(f, boots):
    """The DMA translation lines (guest/dmafit.py)."""
    pages = f.get("pages") or []
    span = (f", {pages[0]}..{pages[-1]} pages an op" if len(pages) > 1 else "")
    how = f"95 % interval over {boots} boot{'s' if boots > 1 else ''}"
    return [f"  DMA translation (bus-master DMA, 4 KiB translated - pass-through, "
            f"{f.get('points', 0)} cases{span}; {how}):",
            f"    per op {_band(fig.get(f, 'per_op'))}; per page touched "
            f"{_band(fig.get(f, 'per_page'))}",
            f"    IOTLB miss - hit: {_band(fig.get(f, 'iotlb_miss'))}"]


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
