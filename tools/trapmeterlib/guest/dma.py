"""Suite dma's view of one boot: each bus-master case by IOMMU mode, and
the costs the modes separate (kernel/suites/dma.c names the cases):

  translated - pass-through   what the VT-d translation adds to one DMA
                              command (4 KiB and 2 MiB leaves)
  4 KiB - 2 MiB               what the smaller leaves add (one IOTLB entry
                              and one walk per 4 KiB page the command
                              touches, against one per 2 MiB)
  IOTLB miss - hit            bm.read.4096.miss (the IOTLB invalidated
                              before each op) less vtd.iotlb_inval (the
                              invalidation alone) less bm.read.4096: the
                              walk a miss costs

Every figure is a difference of the boot's medians of cycles per op net
of the control, with the band its single ops span: each case's p10..p90
less its control's median, the difference's band from the lower end of
one to the upper end of the other (a conservative band, not a
confidence interval of the medians: on this project's software backend
the host's pace moved the same control by 1.7x within one boot, which no
interval from one case's samples sees).  By the figure rule
(output/figure.py) a difference at or below zero, or a band that holds
zero, is not resolved; `ab` over many boots is the tool for a small
cost.  annotate() stores the figures on the 4k and 2m rows
(results.json), render() prints the table."""

from ..output import figure

SUITE = "dma"
# the PCI DMA clients whose cases run in every mode (kernel/suites/dma.c,
# dma_vnet.c): the IDE bus master and virtio-net (tx alone, tx into rx)
PCI_TARGETS = ("piix-ide.bm", "virtio-net.tx", "virtio-net.hub")
MODES = ("none", "off", "pt", "4k", "2m")
SUFFIXES = {"off": ".vtd_off", "pt": ".vtd_pt", "2m": ".vtd_2m"}
MISS_CASE = "bm.read.4096.miss"
HIT_CASE = "bm.read.4096"
INVAL_CASE = "vtd.iotlb_inval"
MINUS_PT = "cycles_minus_pt"         # on 4k and 2m rows
MINUS_2M = "cycles_4k_minus_2m"      # on 4k rows


def base_name(row):
    """The case name without its mode suffix."""
    name = str(row.get("case", ""))
    suffix = SUFFIXES.get(row.get("iommu_mode"), "")
    return name[:-len(suffix)] if suffix and name.endswith(suffix) else name


def net_median(row):
    net = row.get("cycles_net") or {}
    value = net.get("median")
    if value is None:
        value = (row.get("cycles") or {}).get("median")
    return value


def op_band(row):
    """(p10, p90) of the case's ops less its control's median, or None."""
    cycles = row.get("cycles") or {}
    ctl = (row.get("cycles_control") or {}).get("median") or 0
    if cycles.get("p10") is None or cycles.get("p90") is None:
        return None
    return cycles["p10"] - ctl, cycles["p90"] - ctl


def terms_value(terms):
    """sum(sign * net median) over (sign, row) terms, or None."""
    values = [net_median(row) for _, row in terms]
    if None in values:
        return None
    return sum(sign * v for (sign, _), v in zip(terms, values))


def terms_band(terms):
    """The band of terms_value from the terms' bands (lower ends of the +
    terms less upper ends of the - terms, and the reverse), or None."""
    bands = [op_band(row) for _, row in terms]
    if None in bands:
        return None
    lo = sum(b[0] if sign > 0 else -b[1] for (sign, _), b in zip(terms, bands))
    hi = sum(b[1] if sign > 0 else -b[0] for (sign, _), b in zip(terms, bands))
    return lo, hi


def combine_terms(terms):
    """terms_value by the figure rule, with terms_band (widened to hold
    the value)."""
    value, band = terms_value(terms), terms_band(terms)
    if value is None:
        return figure.not_resolved(figure.NO_DATA)
    if band is None:
        return figure.cost(value)
    return figure.cost(value, [min(band[0], value), max(band[1], value)])


def by_mode(results):
    """{base case: {mode: row}} for the suite's PCI cases."""
    table = {}
    for row in results or []:
        if row.get("suite") != SUITE or row.get("target") not in PCI_TARGETS \
                or row.get("case") == MISS_CASE:
            continue
        table.setdefault(base_name(row), {})[row.get("iommu_mode")] = row
    return table


def _diff(a, b):
    """a - b of two rows' net medians by the figure rule."""
    if a is None or b is None:
        return figure.not_resolved("mode not run")
    return combine_terms([(1, a), (-1, b)])


def annotate(results):
    """Store translated - pass-through and 4 KiB - 2 MiB on the rows."""
    for modes in by_mode(results).values():
        for mode in ("4k", "2m"):
            if mode in modes and "pt" in modes:
                figure.put(modes[mode], MINUS_PT, _diff(modes[mode], modes["pt"]))
        if "4k" in modes and "2m" in modes:
            figure.put(modes["4k"], MINUS_2M, _diff(modes["4k"], modes["2m"]))


def miss_minus_hit(results):
    """The IOTLB miss's extra cycles, or not resolved with the reason."""
    terms = miss_terms(results)
    if terms is None:
        return figure.not_resolved(MISS_NEEDS)
    return combine_terms(terms)


MISS_NEEDS = "needs %s, %s and %s (--viommu intel)" % (MISS_CASE, HIT_CASE,
                                                        INVAL_CASE)


def miss_terms(results):
    """[(sign, row)] of miss - inval - hit, or None when one is missing."""
    rows = {r.get("case"): r for r in results or [] if r.get("suite") == SUITE}
    miss, hit, inval = (rows.get(n) for n in (MISS_CASE, HIT_CASE, INVAL_CASE))
    if miss is None or hit is None or inval is None:
        return None
    return [(1, miss), (-1, inval), (-1, hit)]


def band_text(f):
    """A difference with its band as [lo..hi] (it need not be symmetric)."""
    if not f.resolved or f.interval is None:
        return figure.text(f)
    return "%s [%s..%s]" % tuple(figure.text(figure.measured(v))
                                  for v in (f.value, f.interval[0], f.interval[1]))


def _cell(row):
    value = net_median(row) if row else None
    return figure.text(figure.cost(value, reason="mode not run"))


def render(dump):
    """The per-mode table and the derived costs ("" without dma rows)."""
    results = dump.results if dump else []
    table = by_mode(results)
    modes = [m for m in MODES if any(m in v for v in table.values())]
    if not table:
        return ""
    head = ["case"] + modes
    derived = [m for m in ("4k", "2m") if m in modes and "pt" in modes]
    head += ["%s-pt" % m for m in derived]
    if "4k" in modes and "2m" in modes:
        head.append("4k-2m")
    rows = [head]
    for name, by in table.items():
        row = [name] + [_cell(by.get(m)) for m in modes]
        row += [band_text(_diff(by.get(m), by.get("pt"))) for m in derived]
        if "4k" in modes and "2m" in modes:
            row.append(band_text(_diff(by.get("4k"), by.get("2m"))))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["", "dma by IOMMU mode: cycles per op, median net of the control; "
             "differences with the p10..p90 band of single ops (n.r.: not "
             "resolved, at or below zero, the band holding zero, or a mode "
             "not run):"]
    for r in rows:
        lines.append("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                      for i, (c, w) in enumerate(zip(r, widths))))
    if "4k" in modes:
        miss = miss_minus_hit(results)
        lines.append("IOTLB miss - hit (%s - %s - %s): %s%s"
                     % (MISS_CASE, INVAL_CASE, HIT_CASE,
                        band_text(miss) if miss.resolved else
                        figure.text(miss, short=False),
                        " cycles" if miss.resolved else ""))
    return "\n".join(lines) + "\n"
