"""Where the time goes: a cost breakdown of each exit, laid out in layers
on the fit of the sweeps (sweepfit.py).

One exit to a QEMU port is then laid out in layers, so that none is counted
twice (the round trip to QEMU already contains one unit of device work):

    vm_exit          cpuid, net: the VM exit and entry alone (on a software
                     backend that backend's exit, not a hardware transition)
    kvm_pio          in-kernel port I/O (pio.kernel) net, minus cpuid: KVM
                     decoding and emulating the port access (a port KVM
                     answers: the class's own single access minus cpuid
                     and its device part, and no round trip)
    qemu_round_trip  one single-unit access of the class (its fit, loop
                     excluded) minus in-kernel port I/O, minus the device
                     model: the trip out to QEMU and back
    device_model     the class's per-unit (+ per-byte) slope: QEMU's device
                     work per unit, inside one `rep ins` exit

Their sum is the class's cost of one single-unit access of its narrowest
width.  What is stored and shown follows the figure rule (values/figure.py;
`ruled`, in combine): a total or component at or below zero, or whose interval
across boots holds zero, is not resolved, with the reason; so is an
in-kernel access whose loops are all mostly control ("not identifiable
here": on a software backend such a loop costs what its RAM twin costs,
and the fit's single access is then the control envelope's extrapolation,
`identifiable` false) and the layer computed from it (KVM PIO of a port
KVM answers, the round trip of a QEMU port).  A layer the class does not
have (no round trip where KVM answers; no device term where every unit is
an exit and the round trip holds the unit's work) is kind null.  The fit's
verdict is "ok" only where every figure of the row is resolved, and a
poor fit names why (poor_reason).

The anchors use the net figures of the exits suite (the fit's
per_exit excludes the loop, as a net figure does) and gross ones only where
the dump has no net.  fw_cfg DMA is fitted apart: per_op + per_byte * bytes;
so is a suite's own fit passed in `fits` (guest/dmafit.py, suite dma's DMA
translation: translated - pass-through per op + per page touched, and an
IOTLB miss against a hit): stats does not know the suites.
Across boots every component gets a t-interval.  Pure functions: the runner
stores the result as `breakdown`; attribution.py names what moved,
output/breakdown_text.py prints it.
"""
from ..values import figure as fig, resultform
from .sweepfit import COEFS, fit_class, fit_dma, gross_of, net_of, sweep_points
from .tdist import t_interval

COMPONENTS = ("vm_exit", "kvm_pio", "qemu_round_trip", "device_model")
LEVEL = 0.95             # of every interval across boots


def applies(results, fits=()):
    """A boot with a breakdown: exits in suite pio, or rows one of the
    suites' `fits` applies to (guest/dmafit.py: suite dma's modes under a
    hypervisor)."""
    return has_exits(results) or any(f.applies(results) for f in fits)


def has_exits(results):
    """A boot with VM exits (not TCG): only there does a breakdown mean
    anything."""
    return any(r.get("exits_measured") is not None for r in results
               if r.get("suite") == "pio")


ANCHORS = ("cpuid", "pio.kernel", "pio.user")
# the layer computed from a class's single access (by in_kernel): not
# identifiable when that access is not
FROM_TOTAL = {True: "kvm_pio", False: "qemu_round_trip"}


def exit_costs(results):
    """({case: per-op cost}, all net) of the exits suite's anchors: net
    figures (negative ones too: they are what the backend measured), gross
    only where a dump has no net."""
    out, net = {}, True
    for r in results:
        if r.get("suite") == "exits" and r.get("case") in ANCHORS:
            value = net_of(r)
            if value is None:
                value, net = gross_of(r), False
            if value is not None:
                out[r["case"]] = value
    return out, net


def single_access(coef):
    """One single-unit access of the class's narrowest width, loop
    excluded: (total, device model part or None)."""
    w = coef.get("width") or 1
    device = None
    if coef.get("per_unit") is not None:
        device = coef["per_unit"] + (coef.get("per_byte") or 0.0) * w
    total = coef["per_exit"] + (coef.get("per_unit") or 0.0) + (coef.get("per_byte") or 0.0) * w
    return total, device


def layers(coef, anchors, in_kernel=False):
    """The components of one single-unit access in this class.  A port KVM
    answers has no round trip to QEMU: its access is the VM exit, KVM's PIO
    emulation (the class's own single access minus cpuid and the in-kernel
    device's per-unit work) and that per-unit work."""
    cpuid, kern = anchors.get("cpuid"), anchors.get("pio.kernel")
    if coef is None or cpuid is None or (kern is None and not in_kernel):
        return None
    total, device = single_access(coef)
    if in_kernel:
        return {"vm_exit": cpuid, "kvm_pio": total - (device or 0.0) - cpuid,
                "qemu_round_trip": None, "device_model": device}
    return {
        "vm_exit": cpuid,
        "kvm_pio": kern - cpuid,
        "qemu_round_trip": total - (device or 0.0) - kern,
        "device_model": device,
    }


def boot_breakdown(results):
    """One boot: {class: {"measured", "components", "fit", "net"}}."""
    anchors, anchors_net = exit_costs(results)
    out = {}
    for key, pts in sorted(sweep_points(results).items()):
        coef = fit_class(pts)
        if coef is None:
            continue
        in_kernel = not key_is_user(results, key)
        comps = layers(coef, anchors, in_kernel=in_kernel)
        out[key] = {"measured": single_access(coef)[0], "components": comps,
                    "fit": coef, "net": all(p["kind"] == "net" for p in pts),
                    "anchors_net": anchors_net, "in_kernel": in_kernel,
                    "not_identifiable": [] if coef["identifiable"] else
                    ["measured", "per_exit", FROM_TOTAL[in_kernel]]}
    dma = fit_dma(results)
    if dma:
        out["fwcfg.dma"] = {"measured": dma["per_op"], "components": None,
                            "fit": dma, "net": False, "anchors_net": anchors_net}
    return out


def key_is_user(results, key):
    return any(f"{r.get('target')}.{r.get('dir')}" == key and r.get("handler") == "user"
               for r in results)


def interval(values):
    """(mean, t-interval at LEVEL) over the boots' values."""
    return t_interval(values, LEVEL)


# why a layer is absent (kind null): the class does not have it
ABSENT = {
    "qemu_round_trip": "KVM answers this port: no round trip to QEMU",
    "device_model": "every unit is an exit here: the round trip holds the "
                    "unit's device work",
}
NOT_IN_EVERY_BOOT = "not in every boot's fit"


def ruled(values, rows, name):
    """The figure of `name` over the boots (mean, t-interval) by the
    figure rule; NOT_IDENTIFIABLE where a boot could not identify it."""
    if any(name in (r.get("not_identifiable") or ()) for r in rows):
        return fig.not_resolved(fig.NOT_IDENTIFIABLE)
    mean, ci = interval(values)
    return fig.cost(mean, ci)


def combine(per_boot):
    """Boots' breakdowns -> the results.json `breakdown` list, every
    figure ruled (a total not resolved: measured null, measured_reason)."""
    classes = sorted({k for b in per_boot for k in b})
    out = []
    for key in classes:
        rows = [b[key] for b in per_boot if key in b]
        entry = {"class": key, "boots": len(rows)}
        total = ruled([r["measured"] for r in rows], rows, "measured")
        entry["measured_ci"] = total.interval
        fig.put(entry, "measured", total)
        entry["components"] = combine_components(rows)
        entry["fit"] = combine_fit(rows)
        entry["net"] = all(r["net"] for r in rows)
        entry["anchors_net"] = all(r.get("anchors_net", True) for r in rows)
        entry["in_kernel"] = any(r.get("in_kernel") for r in rows)
        out.append(entry)
    return out


def combine_components(rows):
    """{component: {"cycles", "ci", "kind", "reason"}} by the figure rule;
    kind null: a layer the class does not have (ABSENT says why)."""
    if not all(r["components"] for r in rows):
        return None
    comps = {}
    for name in COMPONENTS:
        vals = [r["components"][name] for r in rows]
        if any(v is None for v in vals):
            comps[name] = fig.to_json(
                None, ABSENT.get(name, NOT_IN_EVERY_BOOT))
            continue
        comps[name] = fig.to_json(ruled(vals, rows, name))
    return comps


def combine_fit(rows):
    """The coefficients over boots (each a cost: ruled, name_reason where
    not resolved) and the held-out verdict."""
    fit = {}
    for name in COEFS + ["per_op"]:
        vals = [r["fit"].get(name) for r in rows]
        if vals and all(v is not None for v in vals):
            coef = ruled(vals, rows, name)
            fit[name + "_ci"] = coef.interval
            fig.put(fit, name, coef)
    for name in ("held_out_faster", "held_out_within"):
        vals = [r["fit"].get(name) for r in rows]
        fit[name] = max(vals) if vals and None not in vals else None
    fit["poor"] = any(r["fit"].get("poor") for r in rows)
    fit["poor_reason"] = next((r["fit"].get("poor_reason") for r in rows
                               if r["fit"].get("poor_reason")), None)
    fit["identifiable"] = all(r["fit"].get("identifiable", True) for r in rows)
    used = {t for r in rows for t in r["fit"].get("terms") or ()}
    fit["terms"] = [t for t in COEFS if t in used]      # in any boot's fit
    fit["rows"] = rows[0]["fit"].get("rows")
    fit["points"] = min(r["fit"].get("points") or 0 for r in rows)
    for name in ("slow", "faster", "weak"):
        fit[name] = sorted({c for r in rows for c in r["fit"].get(name) or ()})
    return fit


def envelope(boots_results):
    """Each case's result from the boot where it ran fastest (its gross
    minimum): the lower envelope of the boots, which a slower host phase in
    one boot does not reach.  Of the boots where the case settled: a row
    stopped on its budget is no figure for the fit (sweepfit.is_sweep_row),
    so it does not hide a settled row of the same case."""
    best = {}
    for results in boots_results:
        for r in results:
            if resultform.unsettled(r):
                continue
            key = (r.get("suite"), r.get("case"))
            cost = gross_of(r)
            if cost is not None and (key not in best or cost < best[key][0]):
                best[key] = (cost, r)
    return [r for _, r in best.values()]


def breakdown(boots_results, fits=()):
    """Per-boot result lists -> the combined breakdown (empty when none);
    with more than one boot each entry also carries the fit of the boots'
    lower envelope (`envelope`), the fit that is judged on held-out rows.
    Each of the suites' `fits` adds its entry (fit.boots_entry) when it
    has one."""
    entries = combine([boot_breakdown(res) for res in boots_results])
    if len(boots_results) > 1:
        env = {e["class"]: e for e in combine([boot_breakdown(envelope(boots_results))])}
        for e in entries:
            one = env.get(e["class"])
            if one:
                e["envelope"] = {k: v for k, v in one.items()
                                 if k in ("measured", "measured_reason",
                                          "components", "fit")}
    extra = [fit.boots_entry(boots_results) for fit in fits]
    return entries + [e for e in extra if e]
