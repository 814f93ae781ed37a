"""The breakdown's "DMA translation" component: what the VT-d translation
adds to one bus-master DMA command of suite dma, and an IOTLB miss
against a hit (guest/dma.py pairs the rows by IOMMU mode).

Per bus-master case, the translated (4 KiB leaves) op less its
pass-through twin, net medians (guest/dma.py's net_median), is fitted
over the cases as

    translation = per_op + per_page * pages

by ordinary least squares (the differences may be of either sign, so no
relative error), `pages` being the 4 KiB pages one op touches: the
buffer's (from its offset in the page and its bytes) and the PRD table's
(8 bytes an entry, the table page-aligned).  per_op is the fit's
intercept, the translation's cost that does not grow with the pages (a
coefficient, not a command of zero pages).  The IOTLB miss is guest/dma.py's
miss - inval - hit.

Intervals: across boots the t-interval (95 %) of the boots' coefficients,
from guest/dma.py's MIN_BOOTS boots on; fewer boots are not resolved (one
boot's band of single ops does not see the host's drift between cases:
guest/dma.py, FEW_BOOTS).  Every figure then goes
through the figure rule (values/figure.py): at or below zero, or an
interval holding zero, not resolved; fewer than FIT_MIN cases in both
modes, or one page count only, not resolved with that reason.

Shown where a boot counted VM exits in suite dma (a hypervisor, not
TCG).  Pure: stats/breakdown.py adds the entry (its `fits`), output/breakdown_text.py
prints it."""

from ..stats.tdist import t_interval
from ..values import figure as fig
from . import dma

CLASS = "dma.translation"
PAGE = 4096
PRD_BYTES = 8            # one PRD entry
FIT_MIN = 3              # cases: two coefficients and one residual
LEVEL = 0.95
NEEDS_MODES = ("needs bus-master cases in pass-through and 4 KiB "
               "translated mode (--machine q35 --viommu intel)")
ONE_PAGE_COUNT = "every case touches the same number of pages"
FEW_CASES = "fewer than %d cases in both modes" % FIT_MIN
COEFS = ("per_op", "per_page", "iotlb_miss")


def _count(value):
    """A non-negative int from untrusted guest output, or None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def pages_of(row):
    """The 4 KiB pages one op of the case touches, or None."""
    size = _count(row.get("bytes"))
    offset = _count(row.get("buf_offset") or 0)
    prds = _count(row.get("prds"))
    if not size or offset is None or not prds:
        return None
    data = -(-(offset % PAGE + size) // PAGE)
    return data + -(-(prds * PRD_BYTES) // PAGE)


def applies(results):
    """A boot with suite dma's rows under a hypervisor (exits counted)."""
    return any(r.get("suite") == dma.SUITE and r.get("exits_measured")
               is not None for r in results or [])


def points(results):
    """[(pages, difference)] of the cases run translated (4k) and
    pass-through (pt)."""
    out = []
    for modes in dma.by_mode(results).values():
        a, b = modes.get("4k"), modes.get("pt")
        if a is None or b is None:
            continue
        pages, value = pages_of(a), dma.terms_value([(1, a), (-1, b)])
        if pages is not None and value is not None:
            out.append((pages, value))
    return out


def ols_weights(xs):
    """Weights (w_op, w_page) with coefficient = sum(w_i * y_i)."""
    n = len(xs)
    mean = sum(xs) / float(n)
    sxx = sum((x - mean) ** 2 for x in xs)
    slope = [(x - mean) / sxx for x in xs]
    return [1.0 / n - mean * w for w in slope], slope


def boot_fit(results):
    """One boot: {"per_op", "per_page", "iotlb_miss": value or None,
    "points", "pages", "reason"} (reason: why the fit is absent)."""
    pts = points(results)
    out = {"points": len(pts), "pages": sorted({p for p, _d in pts}),
           "per_op": None, "per_page": None, "reason": None,
           "iotlb_miss": _miss(results)}
    if not pts:
        out["reason"] = NEEDS_MODES
    elif len(pts) < FIT_MIN:
        out["reason"] = FEW_CASES
    elif len(out["pages"]) < 2:
        out["reason"] = ONE_PAGE_COUNT
    else:
        w_op, w_page = ols_weights([p for p, _d in pts])
        out["per_op"] = sum(w * d for w, (_p, d) in zip(w_op, pts))
        out["per_page"] = sum(w * d for w, (_p, d) in zip(w_page, pts))
    return out


def _miss(results):
    """miss - inval - hit of the boot, or None."""
    terms = dma.miss_terms(results)
    return dma.terms_value(terms) if terms else None


def ruled(fits, name):
    """The figure of coefficient `name` over the boots' fits: the
    t-interval across dma.MIN_BOOTS boots or more, else not resolved."""
    got = [f[name] for f in fits if f.get(name) is not None]
    if not got:
        reason = next((f["reason"] for f in fits if f.get("reason")), None)
        return fig.not_resolved(dma.MISS_NEEDS if name == "iotlb_miss"
                                else reason or NEEDS_MODES)
    if len(got) < len(fits):
        return fig.not_resolved("not in every boot's fit")
    if len(got) < dma.MIN_BOOTS:
        return fig.not_resolved(dma.FEW_BOOTS)
    mean, ci = t_interval(got, LEVEL)
    return fig.cost(mean, ci)


def entry(fits):
    """The breakdown's entry for the boots' fits, or None without any
    pair of modes: {"class", "boots", "measured" (= per_op), "components":
    None, "fit": {per_op, per_page, iotlb_miss (each put by the rule),
    "points", "pages", "interval"}}."""
    if not any(f["points"] or f["iotlb_miss"] for f in fits):
        return None
    fit = {"points": min(f["points"] for f in fits),
           "pages": sorted({p for f in fits for p in f["pages"]}),
           "interval": "t95 over boots"}
    for name in COEFS:
        fig.put(fit, name, ruled(fits, name))
    out = {"class": CLASS, "boots": len(fits), "components": None,
           "fit": fit, "net": True}
    fig.put(out, "measured", fig.get(fit, "per_op"))
    return out


def boots_entry(boots_results):
    """The breakdown's entry (stats/breakdown.py `fits`) over the boots
    that ran suite dma under a hypervisor, or None."""
    return entry([boot_fit(res) for res in boots_results if applies(res)])
