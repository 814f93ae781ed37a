"""Where the time goes: a cost breakdown of each exit, fitted from the sweeps.

For every port class (target and direction) the per-op cost of the size
sweep is fitted as

    cost = fixed + per_exit * exits + per_unit * units + per_iteration * iters

(iters: the guest's own loop iterations, one per unit in a single loop, none
in a string instruction; ~0 when the figures are net of a control op) by
least squares on relative error (weights 1/cost^2, so a 64 KiB row does
not drown a 512 B one).  In single loops and in `rep outs` exits equal units
(one exit per unit), so those rows alone cannot separate the two slopes;
`rep ins` batches its exits (about one per 1 KiB, more at page splits), and
the rows of several sizes and widths are what separate them.  Where the rows
cannot, per_unit is reported as null and per_exit carries both.

One exit to a QEMU port is then laid out in layers, so that none is counted
twice (the round trip to QEMU already contains one unit of device work):

    vm_exit          cpuid: the VM exit and entry alone (on a software
                     backend, that backend's exit, not a hardware transition)
    kvm_pio          in-kernel port I/O minus cpuid: KVM decoding and
                     emulating the port access
    qemu_round_trip  the class's per-exit slope minus in-kernel port I/O:
                     the trip out to QEMU and back
    device_model     the class's per-unit slope: QEMU's device work per unit

Their sum is the class's cost of one single-unit access (per_exit +
per_unit).  fw_cfg DMA is fitted apart: cost = per_op + per_byte * bytes.

Per boot the fit uses each result's `cycles_net` (net of its control op)
when the dump has it, else the minimum of `cycles`; across boots every
component gets a t-interval.  Pure functions: the runner stores the result
as `breakdown` per boot, and compare attributes a change to a component.
"""
import math

# two-sided 95 % Student t quantiles by degrees of freedom
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
       7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086,
       30: 2.042}
POOR_FIT = 0.05          # a leave-one-out prediction off by more: poor
MIN_POINTS = 4
OUTLIER = 0.10          # a row this far off the fit may be left out
MAX_DROPPED = 2
SPARE_POINTS = 2        # rows beyond the number of terms, to judge the fit
COMPONENTS = ("vm_exit", "kvm_pio", "qemu_round_trip", "device_model")
LOOP_METHODS = ("single", "rep")


def t95(df):
    if df <= 0:
        return None
    for k in sorted(T95, reverse=True):
        if df >= k:
            return T95[k]
    return T95[1]


def has_exits(results):
    """A boot with VM exits (not TCG): only there does a breakdown mean
    anything."""
    return any(r.get("exits_measured") is not None for r in results
               if r.get("suite") == "pio")


def cost_of(result):
    """Per-op cost the fit uses, and whether it is net of a control."""
    net = result.get("cycles_net")
    if isinstance(net, dict):        # the dump's net min/p10/median
        net = net.get("min")
    if isinstance(net, (int, float)) and net > 0:
        return float(net), True
    cyc = result.get("cycles") or {}
    low = cyc.get("min")
    if isinstance(low, (int, float)) and low > 0:
        return float(low), False
    return None, False


# ---- least squares ----------------------------------------------------

def solve(a, b):
    """Gaussian elimination with partial pivoting; None when singular."""
    n = len(b)
    m = [list(row) + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def wls(rows, ys):
    """Weighted least squares on relative error: coefficients or None."""
    k = len(rows[0])
    ata = [[0.0] * k for _ in range(k)]
    aty = [0.0] * k
    for x, y in zip(rows, ys):
        w = 1.0 / (y * y)
        for i in range(k):
            aty[i] += w * x[i] * y
            for j in range(k):
                ata[i][j] += w * x[i] * x[j]
    # scale columns so that the pivot test compares like with like
    scale = [math.sqrt(ata[i][i]) or 1.0 for i in range(k)]
    ata_s = [[ata[i][j] / (scale[i] * scale[j]) for j in range(k)] for i in range(k)]
    aty_s = [aty[i] / scale[i] for i in range(k)]
    if not _well_posed(ata_s):
        return None
    sol = solve(ata_s, aty_s)
    return None if sol is None else [s / scale[i] for i, s in enumerate(sol)]


def _well_posed(m):
    """Reject near-collinear designs (exits == units + c in every row)."""
    n = len(m)
    det = _det(m)
    return abs(det) > 1e-9 * max(1.0, max(abs(x) for row in m for x in row)) ** n


def _det(m):
    if len(m) == 1:
        return m[0][0]
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** j * m[0][j] * _det([row[:j] + row[j + 1:] for row in m[1:]])
               for j in range(len(m)))


# ---- one class, one boot ------------------------------------------------

def sweep_points(results):
    """(class, [(exits, units, cost, case)]) for the loop and rep rows."""
    classes = {}
    for r in results:
        if r.get("suite") != "pio" or r.get("method") not in LOOP_METHODS:
            continue
        cost, _net = cost_of(r)
        exits, units = r.get("exits_model"), r.get("units")
        if cost is None or not exits or not units:
            continue
        key = f"{r.get('target')}.{r.get('dir')}"
        iters = units if r.get("method") == "single" else 0
        classes.setdefault(key, []).append((exits, units, cost, r.get("case"), iters))
    return classes


# design columns: name -> value for a point (exits, units, cost, case, iters)
FULL = {"fixed": lambda p: 1.0, "per_exit": lambda p: p[0],
        "per_unit": lambda p: p[1], "per_iteration": lambda p: p[4]}
ONE_SLOPE = {"fixed": lambda p: 1.0, "per_exit": lambda p: p[0],
             "per_iteration": lambda p: p[4]}


def fit_class(points):
    """Fit one class; per_unit is None where the rows cannot separate it.

    A boot can run one row in a slower mode (noise here only adds time):
    up to MAX_DROPPED rows whose residual exceeds OUTLIER (relative) and 3x
    the median residual are left out and named in `dropped`."""
    if len(points) < MIN_POINTS:
        return None
    kept, dropped = list(points), []
    coef = fit_class_core(kept)
    while coef is not None and len(dropped) < MAX_DROPPED and len(kept) > MIN_POINTS + 1:
        worst = max(kept, key=lambda p: rel_error(coef, p))
        res = sorted(rel_error(coef, p) for p in kept)
        if rel_error(coef, worst) <= max(OUTLIER, 3 * res[len(res) // 2]):
            break
        kept.remove(worst)
        dropped.append(worst[3])
        coef = fit_class_core(kept)
    if coef is None:
        return None
    coef["points"] = len(kept)
    coef["dropped"] = dropped
    coef["max_rel_residual"] = max(rel_error(coef, p) for p in kept)
    coef["loo_max_rel_error"] = leave_one_out(kept)
    coef["poor"] = (coef["loo_max_rel_error"] is None or
                    coef["loo_max_rel_error"] > POOR_FIT)
    return coef


def rel_error(coef, point):
    return abs(predict(coef, point) - point[2]) / point[2]


def predict(coef, point):
    exits, units, _cost, _case, iters = point
    return (coef["fixed"] + coef["per_exit"] * exits +
            (coef["per_unit"] or 0.0) * units + coef["per_iteration"] * iters)


def leave_one_out(points):
    """Largest relative error predicting a row from a fit without it."""
    worst = 0.0
    for i, point in enumerate(points):
        rest = points[:i] + points[i + 1:]
        if len(rest) < MIN_POINTS - 1:
            return None
        sub = fit_class_core(rest)
        if sub is None:
            return None
        worst = max(worst, rel_error(sub, point))
    return worst


def fit_class_core(points):
    """Both slopes where the rows separate them, else one for both; the
    guest's own loop (one iteration per unit in single loops, none in a
    string instruction) gets a term of its own, ~0 on net figures."""
    ys = [p[2] for p in points]
    for cols in (FULL, ONE_SLOPE):
        if len(points) < len(cols) + SPARE_POINTS:
            continue
        sol = wls([[col(p) for col in cols.values()] for p in points], ys)
        if sol is not None:
            coef = dict(zip(cols, sol))
            coef.setdefault("per_unit", None)
            return coef
    return None


def fit_dma(results):
    """fw_cfg DMA: cost = per_op + per_byte * bytes."""
    pts = []
    for r in results:
        if r.get("suite") == "pio" and r.get("method") == "dma":
            cost, _ = cost_of(r)
            if cost and r.get("bytes"):
                pts.append((r["bytes"], cost))
    if len(pts) < 3:
        return None
    sol = wls([(1.0, b) for b, _ in pts], [c for _, c in pts])
    if sol is None:
        return None
    return {"per_op": sol[0], "per_byte": sol[1], "points": len(pts)}


def exit_costs(results):
    """Net per-op costs of the exits suite's anchors."""
    out = {}
    for r in results:
        if r.get("suite") == "exits" and r.get("case") in ("cpuid", "pio.kernel", "pio.user"):
            cost, _ = cost_of(r)
            if cost is not None:
                out[r["case"]] = cost
    return out


def layers(coef, anchors):
    """The four components of one single-unit access in this class."""
    cpuid, kern = anchors.get("cpuid"), anchors.get("pio.kernel")
    if coef is None or cpuid is None or kern is None:
        return None
    return {
        "vm_exit": cpuid,
        "kvm_pio": kern - cpuid,
        "qemu_round_trip": coef["per_exit"] - kern,
        "device_model": coef["per_unit"],
    }


def boot_breakdown(results):
    """One boot: {class: {"measured", "components", "fit", "net"}}."""
    anchors = exit_costs(results)
    net = all(cost_of(r)[1] for r in results if r.get("suite") in ("pio", "exits")
              and r.get("method") != "dma")
    out = {}
    for key, pts in sorted(sweep_points(results).items()):
        coef = fit_class(pts)
        if coef is None:
            continue
        comps = layers(coef, anchors) if key_is_user(results, key) else None
        out[key] = {"measured": coef["per_exit"] + (coef["per_unit"] or 0.0),
                    "components": comps, "fit": coef, "net": net}
    dma = fit_dma(results)
    if dma:
        out["fwcfg.dma"] = {"measured": dma["per_op"], "components": None,
                            "fit": dma, "net": net}
    return out


def key_is_user(results, key):
    return any(f"{r.get('target')}.{r.get('dir')}" == key and r.get("handler") == "user"
               for r in results)


# ---- across boots -------------------------------------------------------

def interval(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None, None
    mean = sum(vals) / len(vals)
    t = t95(len(vals) - 1)
    if t is None:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1))
    half = t * sd / math.sqrt(len(vals))
    return mean, [mean - half, mean + half]


def combine(per_boot):
    """Boots' breakdowns -> the results.json `breakdown` list."""
    classes = sorted({k for b in per_boot for k in b})
    out = []
    for key in classes:
        rows = [b[key] for b in per_boot if key in b]
        entry = {"class": key, "boots": len(rows)}
        entry["measured"], entry["measured_ci"] = interval([r["measured"] for r in rows])
        entry["components"] = combine_components(rows)
        entry["fit"] = combine_fit(rows)
        entry["net"] = all(r["net"] for r in rows)
        out.append(entry)
    return out


def combine_components(rows):
    if not all(r["components"] for r in rows):
        return None
    comps = {}
    for name in COMPONENTS:
        vals = [r["components"][name] for r in rows]
        if any(v is None for v in vals):
            comps[name] = {"cycles": None, "ci": None}
            continue
        mean, ci = interval(vals)
        comps[name] = {"cycles": mean, "ci": ci}
    return comps


def combine_fit(rows):
    fit = {}
    for name in ("fixed", "per_exit", "per_unit", "per_iteration", "per_op", "per_byte"):
        vals = [r["fit"].get(name) for r in rows]
        if vals and all(v is not None for v in vals):
            fit[name], fit[name + "_ci"] = interval(vals)
    loo = [r["fit"].get("loo_max_rel_error") for r in rows]
    if all(v is not None for v in loo) and loo:
        fit["loo_max_rel_error"] = max(loo)
    fit["poor"] = any(r["fit"].get("poor") for r in rows)
    fit["points"] = rows[0]["fit"].get("points")
    return fit


def breakdown(boots_results):
    """Per-boot result lists -> the combined breakdown (empty when none)."""
    return combine([boot_breakdown(res) for res in boots_results])


# ---- attribution ---------------------------------------------------------

def attribute(base, cand):
    """Which component moved, per class: {class: (name, delta, ci) or None}.

    `base` and `cand` are per-boot breakdowns (boot_breakdown outputs).  A
    component moved when the interval of the difference of its means
    excludes 0; the one with the largest such move is named.
    """
    out = {}
    for key in sorted({k for b in base for k in b} & {k for b in cand for k in b}):
        moves = []
        for name in COMPONENTS:
            a = _values(base, key, name)
            b = _values(cand, key, name)
            if len(a) < 2 or len(b) < 2:
                continue
            delta, ci = diff_interval(a, b)
            if ci and (ci[0] > 0 or ci[1] < 0):
                moves.append((abs(delta), name, delta, ci))
        out[key] = max(moves)[1:] if moves else None
    return out


def _values(boots, key, name):
    vals = []
    for b in boots:
        comps = (b.get(key) or {}).get("components")
        if comps and comps.get(name) is not None:
            vals.append(comps[name])
    return vals


def diff_interval(a, b):
    """Welch interval of mean(b) - mean(a)."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    se2 = va / len(a) + vb / len(b)
    if se2 == 0:
        return mb - ma, [mb - ma, mb - ma]
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    half = t95(max(1, int(df))) * math.sqrt(se2)
    return mb - ma, [mb - ma - half, mb - ma + half]


# ---- the table ------------------------------------------------------------

LABELS = {
    "vm_exit": "VM exit+entry (cpuid)",
    "kvm_pio": "KVM PIO emulation",
    "qemu_round_trip": "round trip to QEMU",
    "device_model": "device model / unit",
}


def _cell(comp):
    if comp is None or comp.get("cycles") is None:
        return "-"
    text = f"{comp['cycles']:,.0f}"
    if comp.get("ci"):
        lo, hi = comp["ci"]
        text += f" [{lo:,.0f}..{hi:,.0f}]"
    return text


def format_table(entries, software_backend=False):
    """'Where the time goes' lines: one row per QEMU-port class."""
    rows = [e for e in entries if e.get("components")]
    if not rows:
        return []
    vm_label = "PVM exit+entry (cpuid)" if software_backend else LABELS["vm_exit"]
    lines = ["where the time goes (cycles per single-unit access; "
             "95 % interval across boots, with --repeat):"]
    for e in rows:
        fit = e["fit"]
        note = []
        if fit.get("poor"):
            note.append("poor fit")
        if not e.get("net"):
            note.append("gross: no control op")
        lines.append(f"  {e['class']:<14} {e['measured']:>10,.0f} total"
                     + (f"  ({', '.join(note)})" if note else ""))
        for name in COMPONENTS:
            label = vm_label if name == "vm_exit" else LABELS[name]
            lines.append(f"      {label:<26} {_cell(e['components'][name])}")
    dma = [e for e in entries if e["class"] == "fwcfg.dma"]
    for e in dma:
        f = e["fit"]
        lines.append(f"  fwcfg.dma      {f.get('per_op', 0):>10,.0f} per op, "
                     f"{f.get('per_byte', 0):,.2f} per byte (device writing guest memory)")
    return lines
