"""Suite dma's view: each PCI case by IOMMU mode, over one boot or the
boots of a `--viommu` sweep, and the costs the modes separate
(kernel/suites/dma.c names the cases):

  translated - pass-through   what the VT-d translation adds to one DMA
                              command (4 KiB and 2 MiB leaves)
  4 KiB - 2 MiB               what the smaller leaves add (one IOTLB entry
                              and one walk per 4 KiB page the command
                              touches, against one per 2 MiB)
  off - none, 4 KiB - none    what a unit that is present but off costs,
                              and what translation costs against a machine
                              without an IOMMU (mode none runs only in a
                              boot without one: `--viommu off,intel`)
  IOTLB miss - hit            bm.read.4096.miss (the IOTLB invalidated
                              before each op) less vtd.iotlb_inval (the
                              invalidation alone) less bm.read.4096: the
                              walk a miss costs

A PCI case is any dma row with an iommu_mode but fw_cfg's (no PCI
device: it runs once, untranslated, a control) and the IOTLB cases (they
run translated only); its base name is its name without the mode suffix,
so a device added to the suite joins the table by itself.

Every mode's figure is its net cycles per op (case less control; over
boots the median of the boots' medians); every difference is one of means
over boots with a Welch-style 95 % t-interval (combine_terms), by the
figure rule (values/figure.py): at or below zero, an interval holding
zero, or fewer than MIN_BOOTS boots of a term, not resolved.  One boot
is never enough: its cases run one after another, and this project's
software backend drifts within a boot more than a case's own ops show.
annotate() stores the figures on one boot's 4k and 2m rows
(results.json), render() prints the full table, face_lines() the
summary's compact one."""


from ..stats.bootstats import median
from ..stats.tdist import welch_interval
from ..values import figure, resultform
from ..values.texttable import aligned

SUITE = "dma"
MODES = ("none", "off", "pt", "4k", "2m")
SUFFIXES = {"off": ".vtd_off", "pt": ".vtd_pt", "2m": ".vtd_2m"}
MISS_CASE = "bm.read.4096.miss"
HIT_CASE = "bm.read.4096"
INVAL_CASE = "vtd.iotlb_inval"
ONE_MODE_TARGETS = ("fwcfg.dma", "vtd")   # not a PCI DMA case by mode
MINUS_PT = "cycles_minus_pt"         # on 4k and 2m rows
MINUS_2M = "cycles_4k_minus_2m"      # on 4k rows
# (label, minuend, subtrahend) of the full table, in its order
DIFFS = (("4k-pt", "4k", "pt"), ("2m-pt", "2m", "pt"), ("4k-2m", "4k", "2m"),
         ("off-none", "off", "none"), ("4k-none", "4k", "none"))
FACE_DIFF = DIFFS[0]                 # the summary's one difference
NOT_RUN = "mode not run"
# A difference of two cases needs this many boots of each: within one
# boot the cases run one after another, and this host's pace drifts
# within a boot beyond what the single ops' band shows (an A/B of 116
# boots a side bounded translated - none of vnet.tx.64 to +1.0 %, where
# one boot's band "resolved" +8 %).
MIN_BOOTS = 3
LEVEL = 0.95
HOW = "the 95 %% interval over boots (%d or more)" % MIN_BOOTS
FEW_BOOTS = ("fewer than %d boots: a difference of cases needs the spread "
             "over boots (--repeat %d, or ab)" % (MIN_BOOTS, MIN_BOOTS))
NO_UNIT = "no IOMMU mode ran: --machine q35 --viommu intel"


def base_name(row):
    """The case name without its mode suffix."""
    name = str(row.get("case", ""))
    suffix = SUFFIXES.get(row.get("iommu_mode"), "")
    return name[:-len(suffix)] if suffix and name.endswith(suffix) else name


def paired(row):
    """Whether a result row is one mode of a PCI case."""
    return (row.get("suite") == SUITE and row.get("iommu_mode") in MODES
            and row.get("target") not in ONE_MODE_TARGETS
            and row.get("case") != MISS_CASE)


def mode_table(boot_results):
    """{base case: {mode: [its row in each boot]}} of the PCI cases over
    the boots' result lists, in first-seen order."""
    table = {}
    for results in boot_results:
        for row in results or []:
            if paired(row):
                table.setdefault(base_name(row), {}).setdefault(
                    row["iommu_mode"], []).append(row)
    return table


def by_mode(results):
    """{base case: {mode: row}} of one boot."""
    return {base: {mode: rows[0] for mode, rows in modes.items()}
            for base, modes in mode_table([results]).items()}


def _rows(x):
    """A row or a list of rows (one per boot) as a list."""
    return None if x is None else [x] if isinstance(x, dict) else list(x)


def _net1(row):
    """One row's signed net; a case without a control (vtd.iotlb_inval)
    is its own cycles."""
    value = resultform.raw_net(row)
    if value is None and not isinstance(row.get("cycles_control"), dict):
        value = (row.get("cycles") or {}).get("median")
    return value


def net_median(x):
    """The median over a row's boots (a row or a list) of its signed net,
    case less control (any sign: a difference needs it), or None."""
    values = [v for v in (_net1(r) for r in _rows(x)) if v is not None]
    return median(values) if values else None


def terms_value(terms):
    """sum(sign * net median) over (sign, row or rows) terms, or None."""
    values = [net_median(rows) for _, rows in terms]
    if None in values:
        return None
    return sum(sign * v for (sign, _), v in zip(terms, values))


def _boot_nets(rows):
    """The per-boot signed nets of a term's rows (None left out)."""
    return [v for v in (_net1(r) for r in rows) if v is not None]


def combine_terms(terms):
    """sum(sign * mean over boots of the net) by the figure rule, with a
    Welch-style t-interval (LEVEL) over the boots: each term's variance of
    its boots' nets over their count, the smallest count less one for the
    degrees of freedom (conservative).  Fewer than MIN_BOOTS boots of any
    term: not resolved (FEW_BOOTS)."""
    nets = [_boot_nets(_rows(rows)) for _, rows in terms]
    if any(not v for v in nets):
        return figure.not_resolved(figure.NO_DATA)
    if min(len(v) for v in nets) < MIN_BOOTS:
        return figure.not_resolved(FEW_BOOTS)
    value, ends, _df = welch_interval(
        [(sign, v) for (sign, _), v in zip(terms, nets)], LEVEL, "smallest")
    return figure.cost(value, ends)


def _diff(a, b):
    """a - b of two modes' rows (a row or a list over boots)."""
    a, b = _rows(a), _rows(b)
    if not a or not b:
        return figure.not_resolved(NOT_RUN)
    return combine_terms([(1, a), (-1, b)])


def annotate(results):
    """Store translated - pass-through and 4 KiB - 2 MiB on one boot's rows."""
    for modes in by_mode(results).values():
        for mode in ("4k", "2m"):
            if mode in modes and "pt" in modes:
                figure.put(modes[mode], MINUS_PT, _diff(modes[mode], modes["pt"]))
        if "4k" in modes and "2m" in modes:
            figure.put(modes["4k"], MINUS_2M, _diff(modes["4k"], modes["2m"]))


MISS_NEEDS = "needs %s, %s and %s (--viommu intel)" % (MISS_CASE, HIT_CASE,
                                                        INVAL_CASE)


def miss_terms(boot_results):
    """[(sign, rows over boots)] of miss - inval - hit, or None when one is
    missing; a list of boots' results, or one boot's results (the hit is
    the translated bm.read.4096, never a sweep's mode-none one)."""
    if boot_results and isinstance(boot_results[0], dict):
        boot_results = [boot_results]
    rows = {MISS_CASE: [], HIT_CASE: [], INVAL_CASE: []}
    for results in boot_results or []:
        for r in results or []:
            if r.get("suite") == SUITE and r.get("case") in rows and \
                    r.get("iommu_mode") == "4k":
                rows[r["case"]].append(r)
    if not all(rows.values()):
        return None
    return [(1, rows[MISS_CASE]), (-1, rows[INVAL_CASE]), (-1, rows[HIT_CASE])]


def miss_minus_hit(boot_results):
    """The IOTLB miss's extra cycles over the boots that ran it, or not
    resolved with the reason."""
    terms = miss_terms(boot_results)
    if terms is None:
        return figure.not_resolved(MISS_NEEDS)
    return combine_terms(terms)


def band_text(f, number=None):
    """A difference with its interval as [lo..hi]."""
    if not f.resolved or f.interval is None:
        return figure.text(f, number=number)
    return "%s [%s..%s]" % tuple(
        figure.text(figure.measured(v), number=number)
        for v in (f.value, f.interval[0], f.interval[1]))


def mode_cell(rows, number=None):
    """One mode's median net: "-" where the mode did not run."""
    if not rows:
        return "-"
    return figure.text(figure.cost(net_median(rows), reason=resultform.NET_REASON),
                       number=number)


def _modes_of(table):
    return [m for m in MODES if any(m in v for v in table.values())]


def full_rows(boot_results):
    """The full table as rows of cells, its head first ([] without a PCI
    dma row): every mode that ran and every difference of two of them."""
    table = mode_table(boot_results)
    if not table:
        return []
    modes = _modes_of(table)
    diffs = [d for d in DIFFS if d[1] in modes and d[2] in modes]
    rows = [["case"] + modes + [d[0] for d in diffs]]
    for name, by in table.items():
        rows.append([name] + [mode_cell(by.get(m)) for m in modes] +
                    [band_text(_diff(by.get(a), by.get(b))) for _l, a, b in diffs])
    return rows


def render_boots(boot_results, title="dma by IOMMU mode"):
    """The full per-mode table over boots and the derived costs ("" without
    a PCI dma row)."""
    rows = full_rows(boot_results)
    if not rows:
        return ""
    lines = ["", "%s: cycles per op, median net of the control; differences "
             "of means with %s (n.r.: not resolved, at or below zero, the "
             "interval holding zero, or too few boots; -: mode not run):"
             % (title, HOW)]
    lines += aligned(rows)
    if "4k" in rows[0]:
        lines.append(miss_line(boot_results))
    return "\n".join(lines) + "\n"


def miss_line(boot_results, number=None):
    miss = miss_minus_hit(boot_results)
    return "IOTLB miss - hit (%s - %s - %s): %s" % (
        MISS_CASE, INVAL_CASE, HIT_CASE, band_text(miss, number) + " cycles"
        if miss.resolved else figure.text(miss, short=False))


def render(dump):
    """One boot's full per-mode table ("" without dma rows)."""
    return render_boots([dump.results] if dump else [])


# ---------------------------------------------------------------- the face

FACE_WIDTH = 100


def mostly_dma(boot_results):
    """Whether suite dma holds at least half of the boots' result rows."""
    rows = [r for results in boot_results for r in results or []]
    return bool(rows) and 2 * sum(r.get("suite") == SUITE for r in rows) \
        >= len(rows)


def kilo(value):
    """A compact cycle count: 1,412k, 35k, 2.5k, 950."""
    if abs(value) >= 10000:
        return "{:,.0f}k".format(value / 1000.0)
    if abs(value) >= 1000:
        return "%.1fk" % (value / 1000.0)
    return "%.0f" % value


def _face_cell(fig, reasons):
    """A difference in the face: "-" where a mode did not run, n.r. with
    its reason counted for the legend."""
    if not fig.resolved:
        reasons[fig.reason] = reasons.get(fig.reason, 0) + 1
    if not fig.resolved and fig.reason == NOT_RUN:
        return "-"
    return band_text(fig, kilo)


def _face_rows(table, modes, diffs, reasons):
    rows = [["case"] + modes + [d[0] for d in diffs]]
    for name, by in table.items():
        cells = [name]
        for m in modes:
            fig = figure.cost(net_median(by[m]), reason=resultform.NET_REASON) \
                if by.get(m) else figure.not_resolved(NOT_RUN)
            cells.append(_face_cell(fig, reasons))
        cells += [_face_cell(_diff(by.get(a), by.get(b)), reasons)
                  for _label, a, b in diffs]
        rows.append(cells)
    return rows


def face_lines(boot_results):
    """The summary's compact table: per PCI case its cycles per op by
    mode, translated - pass-through (and, with mode none, off - none and
    4k - none) with its interval, the reasons of what is not resolved; [] with
    no PCI dma row."""
    table = mode_table(boot_results)
    if not table:
        return []
    modes = _modes_of(table)
    diffs = [d for d in (FACE_DIFF, DIFFS[3], DIFFS[4])
             if d[1] in modes and d[2] in modes]
    lines = ["dma by IOMMU mode: cycles per op net of the control (k = 1,000), "
             "differences with", HOW + ":"]
    while True:
        reasons = {}
        grid = aligned(_face_rows(table, modes, diffs, reasons))
        if len(diffs) <= 1 or max(len(g) for g in grid) <= FACE_WIDTH:
            break
        diffs = diffs[:-1]
    lines += grid
    if "4k" not in modes or "pt" not in modes:
        lines.append("  translated - pass-through: %s" % figure.text(
            figure.not_resolved(NO_UNIT if "4k" not in modes else NOT_RUN),
            short=False))
    notes = ["-: mode not run"] if reasons.pop(NOT_RUN, None) else []
    if "none" not in modes:
        notes.append("mode none: a boot without --viommu (--viommu off,intel "
                     "runs both)")
    if reasons:
        notes.append("%s: not resolved: %s" % (figure.SHORT, ", ".join(
            "%s (%d)" % item for item in reasons.items())))
    lines += wrap_notes(notes)
    if any(r.get("case") == MISS_CASE for results in boot_results
           for r in results or []):
        lines += wrap_notes([miss_line(boot_results, kilo)], indent="")
    return lines


def wrap_notes(notes, indent="  "):
    """Notes "; "-joined in lines of at most FACE_WIDTH, broken at spaces
    (a continued line indented two more)."""
    lines, cur = [], indent
    for word in "; ".join(notes).split(" "):
        if len(cur) + len(word) >= FACE_WIDTH and cur.strip():
            lines.append(cur.rstrip())
            cur = indent + "  "
        cur += word + " "
    return lines + [cur.rstrip()]
