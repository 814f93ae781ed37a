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
of the control, with a 95 % interval from each median's standard error
(normal approximation: sigma from the p10..p90 spread, 1.2533 sigma /
sqrt(n) for a median, case and control added in quadrature), and follows
the figure rule (output/figure.py): a difference at or below zero, or an
interval that holds zero, is not resolved.  On a host whose pace moves
between cases (this project's software backend under load moved the
same control by 1.7x within one boot) one boot seldom resolves a mode's
cost; `ab` over many boots is the tool for it.  annotate() stores the
figures on the 4k and 2m rows (results.json), render() prints the table."""

import math

from ..output import figure

SUITE = "dma"
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


# a normal's p90 - p10 is 2.563 sigma; a median's standard error is
# 1.2533 sigma / sqrt(n); 1.96 of them on either side hold 95 %
SPREAD_SIGMAS = 2.563
MEDIAN_SE = 1.2533
Z95 = 1.96


def _net(row):
    net = row.get("cycles_net") or {}
    value = net.get("median")
    if value is None:
        value = (row.get("cycles") or {}).get("median")
    return value


def _median_se(stats, n):
    """Standard error of a median from its p10..p90 spread, or None."""
    if not stats or not n or stats.get("p10") is None or stats.get("p90") is None:
        return None
    return MEDIAN_SE * (stats["p90"] - stats["p10"]) / SPREAD_SIGMAS / math.sqrt(n)


def _net_se(row):
    """The net median's standard error: case and control in quadrature."""
    n = row.get("samples")
    case = _median_se(row.get("cycles"), n)
    ctl = _median_se(row.get("cycles_control"), n) if row.get("cycles_control") else 0.0
    if case is None or ctl is None:
        return None
    return math.hypot(case, ctl)


def _combine(terms):
    """sum(sign * net median) over (sign, row) terms, by the figure rule."""
    values = [_net(row) for _, row in terms]
    errors = [_net_se(row) for _, row in terms]
    if None in values:
        return figure.not_resolved(figure.NO_DATA)
    value = sum(sign * v for (sign, _), v in zip(terms, values))
    if None in errors:
        return figure.cost(value)
    half = Z95 * math.sqrt(sum(e * e for e in errors))
    return figure.cost(value, [value - half, value + half])


def by_mode(results):
    """{base case: {mode: row}} for the suite's bus-master cases."""
    table = {}
    for row in results or []:
        if row.get("suite") != SUITE or row.get("target") != "piix-ide.bm" \
                or row.get("case") == MISS_CASE:
            continue
        table.setdefault(base_name(row), {})[row.get("iommu_mode")] = row
    return table


def _diff(a, b):
    """a - b of two rows' net medians by the figure rule."""
    if a is None or b is None:
        return figure.not_resolved("mode not run")
    return _combine([(1, a), (-1, b)])


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
    rows = {r.get("case"): r for r in results or [] if r.get("suite") == SUITE}
    miss, hit, inval = (rows.get(n) for n in (MISS_CASE, HIT_CASE, INVAL_CASE))
    if miss is None or hit is None or inval is None:
        return figure.not_resolved("needs %s, %s and %s (--viommu intel)"
                                   % (MISS_CASE, HIT_CASE, INVAL_CASE))
    return _combine([(1, miss), (-1, inval), (-1, hit)])


def _cell(row):
    value = _net(row) if row else None
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
        row += [figure.text(_diff(by.get(m), by.get("pt"))) for m in derived]
        if "4k" in modes and "2m" in modes:
            row.append(figure.text(_diff(by.get("4k"), by.get("2m"))))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["", "dma by IOMMU mode: cycles per op, median net of the control; "
             "differences with their 95 % interval (n.r.: not resolved, at or "
             "below zero, the interval holding zero, or a mode not run):"]
    for r in rows:
        lines.append("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                      for i, (c, w) in enumerate(zip(r, widths))))
    if "4k" in modes:
        miss = miss_minus_hit(results)
        lines.append("IOTLB miss - hit (%s - %s - %s): %s%s"
                     % (MISS_CASE, INVAL_CASE, HIT_CASE,
                        figure.text(miss, short=False),
                        " cycles" if miss.resolved else ""))
    return "\n".join(lines) + "\n"
