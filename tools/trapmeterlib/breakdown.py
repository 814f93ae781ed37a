"""Where the time goes: a cost breakdown of each exit, fitted from the sweeps.

For every port class (target and direction) the per-op cost of the size
sweep (single loops and string instructions) is fitted as

    cost = fixed + per_exit * exits + per_iteration * iters
           + rep_fixed * rep + per_unit * units + per_byte * bytes
           + rep_unit * rep_units

by least squares on relative error (each row weighted by its gross per-op
time, so a 64 KiB row does not drown a 512 B one).  iters: guest loop
iterations left in a gross single row; rep: 1 for a REP row (its op's own
fixed part); rep_units: a REP row's units (the string instruction restarted
per unit, where every unit is an exit).  A term enters only where the rows
can tell it from the terms before it (in that order): in single loops and
in `rep outs` to QEMU exits equal units, so per_unit stays out (null) and
per_exit carries one unit of device work; `rep ins` batches its exits (one
per 1 KiB of KVM's read-ahead, one more at a page split), and the rows of
several sizes, the split rows and the widths are what separate the terms.
Of those, per_exit and the loop term are always fitted, fixed where no row
is net, rep_fixed where net and gross rows meet; each further term only if
it predicts held-out rows better (select_terms).

Figures.  When every sweep row of the boot has a positive net figure (net
of its control op) the fit uses those.  Otherwise a REP control is not a
twin on this backend (a software KVM emulates the `rep movs` control per
unit, slower than the `rep ins` it stands for): single loops keep their
net figure (their control is the same loop over RAM), REP rows their gross
one, and rep_fixed takes the REP op's own work.  A single loop whose net is
not positive has no usable figure: it is left out and named (`no_figure`).

Noise.  A boot can run rows in a slower host phase.  Up to a quarter of the
rows (at least MAX_DROPPED) that are off the fit by more than OUTLIER and
3x the median residual are left out, one at a time, and named in
`dropped`: only rows slower than the fit when gross (noise only adds time),
either way when net (a control op in a slower phase takes too much away).
The fit is "poor" when leaving any kept row out and refitting predicts it
worse than POOR_FIT (5 % of the row's gross time), or cannot refit.
Across boots the fit that is judged is the one of the boots' lower envelope
(each case from the boot where it ran fastest), which a slow phase of one
boot does not reach; the components' intervals come from the per-boot fits.

One exit to a QEMU port is then laid out in layers, so that none is counted
twice (the round trip to QEMU already contains one unit of device work):

    vm_exit          cpuid, net: the VM exit and entry alone (on a software
                     backend that backend's exit, not a hardware transition)
    kvm_pio          in-kernel port I/O (pio.kernel) net, minus cpuid: KVM
                     decoding and emulating the port access
    qemu_round_trip  one single-unit access of the class (its fit, loop
                     excluded) minus in-kernel port I/O, minus the device
                     model: the trip out to QEMU and back
    device_model     the class's per-unit (+ per-byte) slope: QEMU's device
                     work per unit, inside one `rep ins` exit

Their sum is the class's cost of one single-unit access of its narrowest
width.  The anchors use the net figures of the exits suite (the fit's
per_exit excludes the loop, as a net figure does) and gross ones only where
the dump has no net.  fw_cfg DMA is fitted apart: per_op + per_byte * bytes.
Across boots every component gets a t-interval.  Pure functions: the runner
stores the result as `breakdown`, attribution.py names what moved.
"""
import math

# two-sided 95 % Student t quantiles by degrees of freedom
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
       7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086,
       30: 2.042}
POOR_FIT = 0.05          # a leave-one-out prediction off by more: poor
MIN_POINTS = 4
OUTLIER = 0.05           # a row this far off the fit may be left out
MAX_DROPPED = 2          # ... at least this many, at most a quarter of the rows
SPARE_POINTS = 2         # rows beyond the number of terms, to judge the fit
COMPONENTS = ("vm_exit", "kvm_pio", "qemu_round_trip", "device_model")
LOOP_METHODS = ("single", "rep")
# the fit's terms in the order they enter: name -> point field
TERMS = (("fixed", None), ("per_exit", "exits"), ("per_iteration", "iters"),
         ("rep_fixed", "rep"), ("per_unit", "units"), ("per_byte", "bytes"),
         ("rep_unit", "rep_units"))
COEFS = [name for name, _ in TERMS]
# always fitted where the rows have them (select_terms adds fixed where no
# row is net, rep_fixed where net loops sit beside gross REP rows)
MANDATORY = ("per_exit", "per_iteration")


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


def _number(value):
    if isinstance(value, dict):          # the dump's min/p10/median
        value = value.get("min")
    return float(value) if isinstance(value, (int, float)) else None


def net_of(result):
    """The result's net per-op minimum, or None."""
    return _number(result.get("cycles_net"))


def gross_of(result):
    low = _number(result.get("cycles"))
    return low if low is not None and low > 0 else None


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


def normal_equations(rows, ys, scales=None):
    """Column-scaled normal equations of the relative-error fit (errors
    relative to `scales`, by default to the ys themselves)."""
    k = len(rows[0])
    ata = [[0.0] * k for _ in range(k)]
    aty = [0.0] * k
    for x, y, z in zip(rows, ys, scales or ys):
        w = 1.0 / (z * z)
        for i in range(k):
            aty[i] += w * x[i] * y
            for j in range(k):
                ata[i][j] += w * x[i] * x[j]
    # scale columns so that the pivot test compares like with like
    scale = [math.sqrt(ata[i][i]) or 1.0 for i in range(k)]
    ata_s = [[ata[i][j] / (scale[i] * scale[j]) for j in range(k)] for i in range(k)]
    return ata_s, [aty[i] / scale[i] for i in range(k)], scale


def wls(rows, ys, scales=None):
    """Weighted least squares on relative error: coefficients or None."""
    ata, aty, scale = normal_equations(rows, ys, scales)
    if not well_posed(ata):
        return None
    sol = solve(ata, aty)
    return None if sol is None else [s / scale[i] for i, s in enumerate(sol)]


def well_posed(m):
    """Reject near-collinear designs (exits == units in every row): the
    scaled normal matrix has ones on its diagonal, so its determinant is
    near 0 exactly when a column is near a combination of the others."""
    return abs(_det(m)) > 1e-9


def _det(m):
    """Determinant by elimination (the matrices are at most 6 x 6)."""
    a = [list(row) for row in m]
    n, det = len(a), 1.0
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[piv][col]) < 1e-15:
            return 0.0
        if piv != col:
            a[col], a[piv] = a[piv], a[col]
            det = -det
        det *= a[col][col]
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return det


# ---- one class, one boot ------------------------------------------------

def boot_uses_net(results):
    """Net figures for every row only when every sweep row has a positive
    one (see the module comment)."""
    rows = [r for r in results if is_sweep_row(r)]
    return bool(rows) and all((net_of(r) or 0) > 0 for r in rows)


def is_sweep_row(result):
    """A row of the size sweep: pio's loops and string instructions to a
    port QEMU or KVM answers, not edk2's FIFO shapes (their probe traps
    are exits of another kind) nor coalesced or ioeventfd ports."""
    return (result.get("suite") == "pio" and result.get("method") in LOOP_METHODS
            and result.get("handler") in ("user", "kernel")
            and not result.get("fifo_shape"))


def is_single(result):
    return result.get("method") == "single" or result.get("rep_impl") == "loop"


def figure(result, all_net):
    """(cost, kind) of one sweep row: "net" when the whole boot is net;
    otherwise a single loop's net (its control is the same loop over RAM,
    a true twin) when positive, else its gross; a REP row's gross."""
    if all_net or is_single(result):
        value = net_of(result)
        if value is not None and value > 0:
            return value, "net"
        if value is not None and not all_net:
            return None, "no net"      # the control ran slower: unusable
    value = gross_of(result)
    return (value, "gross") if value is not None else (None, None)


def sweep_points(results, net=None):
    """{class: [point]} for the loop and rep rows; a point is a dict of
    exits, units, bytes, iters (loop iterations left in a gross single
    row), gross (1 for a gross row beside net ones), width, cost, case."""
    if net is None:
        net = boot_uses_net(results)
    classes, unusable = {}, {}
    for r in results:
        if not is_sweep_row(r):
            continue
        cost, kind = figure(r, net)
        exits, units = r.get("exits_model"), r.get("units")
        key = f"{r.get('target')}.{r.get('dir')}"
        if kind == "no net" and exits and units:
            unusable.setdefault(key, []).append(r.get("case"))
        if cost is None or not exits or not units:
            continue
        single = is_single(r)
        classes.setdefault(key, []).append({
            "case": r.get("case"), "cost": cost, "scale": gross_of(r) or cost,
            "exits": float(exits),
            "units": float(units), "bytes": float(r.get("bytes") or units),
            "iters": float(units) if single and kind == "gross" else 0.0,
            "rep": 0.0 if single else 1.0, "kind": kind,
            "rep_units": 0.0 if single else float(units),
            "width": r.get("width") or 1})
    for key, pts in classes.items():
        for p in pts:
            p["no_figure"] = unusable.get(key, [])
    return classes


def _value(point, field):
    return 1.0 if field is None else point[field]


def choose_terms(points):
    """The terms the rows can tell apart, in TERMS order; None when not
    even fixed + per_exit can be fitted."""
    chosen = []
    for name, field in TERMS:
        if field and not any(p[field] for p in points):
            continue
        if name == "rep_unit" and "per_unit" in (n for n, _ in chosen):
            continue        # per_unit already has the REP slope
        trial = chosen + [(name, field)]
        if len(points) < len(trial) + SPARE_POINTS:
            break
        design = [[_value(p, f) for _, f in trial] for p in points]
        if wls(design, [p["cost"] for p in points], [p["scale"] for p in points]) is not None:
            chosen = trial
        elif name in ("fixed", "per_exit"):
            return None
    return chosen if len(chosen) >= 2 else None


def fit_terms(points, terms):
    """Coefficients of `terms` (absent ones None), or None if singular."""
    sol = wls([[_value(p, f) for _, f in terms] for p in points],
              [p["cost"] for p in points], [p["scale"] for p in points])
    if sol is None:
        return None
    coef = dict.fromkeys(COEFS)
    coef.update(zip((n for n, _ in terms), sol))
    return coef


def predict(coef, point):
    return sum((coef.get(name) or 0.0) * _value(point, field)
               for name, field in TERMS)


def rel_error(coef, point):
    return abs(predict(coef, point) - point["cost"]) / point["scale"]


def off_by(coef, point):
    """How far off the fit the row is in the direction noise can push it:
    slower for a gross row (noise only adds time), either way for a net one
    (a control op that ran in a slower phase than its case takes too much
    away)."""
    off = (point["cost"] - predict(coef, point)) / point["scale"]
    return abs(off) if point["kind"] == "net" else off


def fit_class(points):
    """Fit one class (see the module comment); None when it cannot."""
    if len(points) < MIN_POINTS:
        return None
    terms = choose_terms(points)
    if terms is None:
        return None
    kept, dropped = trim(points, select_terms(points, terms))
    terms = select_terms(kept, terms)
    coef = fit_terms(kept, terms)
    if coef is None:
        return None
    coef["terms"] = [n for n, _ in terms]
    coef["points"] = len(kept)
    coef["rows"] = len(points)
    coef["dropped"] = dropped
    coef["no_figure"] = points[0].get("no_figure", [])
    coef["max_rel_residual"] = max(rel_error(coef, p) for p in kept)
    coef["loo_max_rel_error"] = leave_one_out(kept, terms)
    coef["poor"] = (coef["loo_max_rel_error"] is None or
                    coef["loo_max_rel_error"] > POOR_FIT)
    coef["width"] = min(p["width"] for p in points)
    return coef


def trim(points, terms):
    """(kept rows, names of the rows left out as off the fit; off_by)."""
    kept, dropped = list(points), []
    coef = fit_terms(kept, terms)
    most = max(MAX_DROPPED, len(points) // 4)
    while coef is not None and len(dropped) < most and len(kept) > len(terms) + SPARE_POINTS:
        worst = max(kept, key=lambda p: off_by(coef, p))
        res = sorted(rel_error(coef, p) for p in kept)
        if off_by(coef, worst) <= max(OUTLIER, 3 * res[len(res) // 2]):
            break
        trial = [p for p in kept if p is not worst]
        sub = fit_terms(trial, terms)
        if sub is None:
            break
        kept, coef = trial, sub
        dropped.append(worst["case"])
    return kept, dropped


def select_terms(points, terms):
    """Of the terms the rows can tell apart, the ones that predict held-out
    rows better.  Always per_exit and the loop term; fixed where no row is
    net (a net row's control took the op's own work away, so its fixed part
    is ~0 and a free intercept only amplifies the noise of the small rows);
    rep_fixed where net loops sit beside gross REP rows.  Then forward
    selection: the further term whose addition predicts held-out rows best,
    as long as it cuts the leave-one-out error by a tenth (a term that only
    the noise pins down predicts worse).  Kept in TERMS order."""
    kinds = {p["kind"] for p in points}
    must = set(MANDATORY)
    if "net" not in kinds:
        must.add("fixed")           # a net row's control took the rest away
    if len(kinds) > 1:
        must.add("rep_fixed")       # net loops beside gross REP rows
    chosen = [t for t in terms if t[0] in must]
    rest = [t for t in terms if t[0] not in must]
    best = leave_one_out(points, chosen)
    while rest:
        trials = []
        for term in rest:
            loo = leave_one_out(points, chosen + [term])
            if loo is not None:
                trials.append((loo, term))
        if not trials:
            break
        loo, term = min(trials, key=lambda t: t[0])
        if best is not None and loo >= 0.9 * best:
            break
        chosen.append(term)
        rest.remove(term)
        best = loo
    return [t for t in terms if t in chosen]


def leave_one_out(points, terms):
    """Largest relative error predicting a row from a fit without it
    (None when a row cannot be left out: the others do not fix the
    terms)."""
    worst = 0.0
    for i, point in enumerate(points):
        sub = fit_terms(points[:i] + points[i + 1:], terms)
        if sub is None:
            return None
        worst = max(worst, rel_error(sub, point))
    return worst


def fit_dma(results):
    """fw_cfg DMA: cost = per_op + per_byte * bytes."""
    pts = []
    for r in results:
        if r.get("suite") == "pio" and r.get("method") == "dma":
            cost = gross_of(r)
            if cost and r.get("bytes"):
                pts.append((r["bytes"], cost))
    if len(pts) < 3:
        return None
    sol = wls([(1.0, b) for b, _ in pts], [c for _, c in pts])
    if sol is None:
        return None
    fit = {"per_op": sol[0], "per_byte": sol[1], "points": len(pts)}
    fit["max_rel_residual"] = max(abs(sol[0] + sol[1] * b - c) / c for b, c in pts)
    return fit


ANCHORS = ("cpuid", "pio.kernel", "pio.user")


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


def layers(coef, anchors):
    """The four components of one single-unit access in this class."""
    cpuid, kern = anchors.get("cpuid"), anchors.get("pio.kernel")
    if coef is None or cpuid is None or kern is None:
        return None
    total, device = single_access(coef)
    return {
        "vm_exit": cpuid,
        "kvm_pio": kern - cpuid,
        "qemu_round_trip": total - (device or 0.0) - kern,
        "device_model": device,
    }


def boot_breakdown(results):
    """One boot: {class: {"measured", "components", "fit", "net"}}."""
    anchors, anchors_net = exit_costs(results)
    net = boot_uses_net(results)
    out = {}
    for key, pts in sorted(sweep_points(results, net).items()):
        coef = fit_class(pts)
        if coef is None:
            continue
        comps = layers(coef, anchors) if key_is_user(results, key) else None
        out[key] = {"measured": single_access(coef)[0], "components": comps,
                    "fit": coef, "net": net, "anchors_net": anchors_net}
    dma = fit_dma(results)
    if dma:
        out["fwcfg.dma"] = {"measured": dma["per_op"], "components": None,
                            "fit": dma, "net": False, "anchors_net": anchors_net}
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
        entry["anchors_net"] = all(r.get("anchors_net", True) for r in rows)
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
    for name in COEFS + ["per_op"]:
        vals = [r["fit"].get(name) for r in rows]
        if vals and all(v is not None for v in vals):
            fit[name], fit[name + "_ci"] = interval(vals)
    loo = [r["fit"].get("loo_max_rel_error") for r in rows]
    fit["loo_max_rel_error"] = max(loo) if loo and None not in loo else None
    fit["poor"] = any(r["fit"].get("poor") for r in rows)
    used = {t for r in rows for t in r["fit"].get("terms") or ()}
    fit["terms"] = [t for t in COEFS if t in used]      # in any boot's fit
    fit["rows"] = rows[0]["fit"].get("rows")
    fit["points"] = min(r["fit"].get("points") or 0 for r in rows)
    for name in ("dropped", "no_figure"):
        fit[name] = sorted({c for r in rows for c in r["fit"].get(name) or ()})
    return fit


def envelope(boots_results):
    """Each case's result from the boot where it ran fastest (its gross
    minimum): the lower envelope of the boots, which a slower host phase in
    one boot does not reach."""
    best = {}
    for results in boots_results:
        for r in results:
            key = (r.get("suite"), r.get("case"))
            cost = gross_of(r)
            if cost is not None and (key not in best or cost < best[key][0]):
                best[key] = (cost, r)
    return [r for _, r in best.values()]


def breakdown(boots_results):
    """Per-boot result lists -> the combined breakdown (empty when none);
    with more than one boot each entry also carries the fit of the boots'
    lower envelope (`envelope`), the fit that is judged on held-out rows."""
    entries = combine([boot_breakdown(res) for res in boots_results])
    if len(boots_results) > 1:
        env = boot_breakdown(envelope(boots_results))
        for e in entries:
            one = env.get(e["class"])
            if one:
                e["envelope"] = {"measured": one["measured"],
                                 "components": one["components"], "fit": one["fit"]}
    return entries


# ---- attribution ---------------------------------------------------------

ALPHA = 0.05             # false-alarm level over all components of all classes


def t_tail(x, df):
    """P(T > x) of Student's t with df degrees of freedom (x >= 0), by
    Simpson's rule on the density (stdlib only; enough for a quantile)."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    steps = 2000
    h = x / steps
    total = 0.0
    for i in range(steps + 1):
        w = 1 if i in (0, steps) else (4 if i % 2 else 2)
        total += w * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2)
    return 0.5 - c * total * h / 3


def t_quantile(alpha, df):
    """x with P(|T| > x) = alpha (two-sided), by bisection."""
    lo, hi = 0.0, 1.0
    while t_tail(hi, df) > alpha / 2:
        lo, hi = hi, hi * 2
    for _ in range(50):
        mid = (lo + hi) / 2
        if t_tail(mid, df) > alpha / 2:
            lo = mid
        else:
            hi = mid
    return hi


def component_moves(base, cand, alpha=0.05):
    """{class: {component: (delta, ci)}}: per component the Welch interval
    (level 1 - alpha) of mean(cand) - mean(base), where both sides have two
    boots or more.  `base` and `cand` are lists of per-boot breakdowns."""
    out = {}
    for key in sorted({k for b in base for k in b} & {k for b in cand for k in b}):
        moves = {}
        for name in COMPONENTS:
            a, b = _values(base, key, name), _values(cand, key, name)
            if len(a) >= 2 and len(b) >= 2:
                moves[name] = diff_interval(a, b, alpha)
        if moves:
            out[key] = moves
    return out


def attribute(base, cand, alpha=ALPHA):
    """Which component moved, per class: {class: (name, delta, ci) or None}.

    A component moved when the interval of the difference of its means
    excludes 0, at level alpha over all the components of all classes
    compared (Bonferroni); the one with the largest such move is named,
    with its interval at that level."""
    tests = sum(len(m) for m in component_moves(base, cand).values())
    moves = component_moves(base, cand, alpha / max(1, tests))
    out = {}
    for key, per in moves.items():
        moved = [(abs(d), name, d, ci) for name, (d, ci) in per.items()
                 if ci[0] > 0 or ci[1] < 0]
        out[key] = max(moved)[1:] if moved else None
    return out


def _values(boots, key, name):
    vals = []
    for b in boots:
        comps = (b.get(key) or {}).get("components")
        if comps and comps.get(name) is not None:
            vals.append(comps[name])
    return vals


def diff_interval(a, b, alpha=0.05):
    """Welch interval (level 1 - alpha) of mean(b) - mean(a)."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    se2 = va / len(a) + vb / len(b)
    if se2 == 0:
        return mb - ma, [mb - ma, mb - ma]
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    t = t95(max(1, int(df))) if alpha == 0.05 else t_quantile(alpha, max(1.0, df))
    half = t * math.sqrt(se2)
    return mb - ma, [mb - ma - half, mb - ma + half]


# ---- the table ------------------------------------------------------------

LABELS = {
    "vm_exit": "VM exit+entry (cpuid)",
    "kvm_pio": "KVM PIO emulation",
    "qemu_round_trip": "round trip to QEMU",
    "device_model": "device model / unit",
}
HEAD = ("class", "total", "VM exit", "KVM PIO", "round trip to QEMU",
        "device/unit", "fit: held-out error")


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
    loo = fit.get("loo_max_rel_error")
    text = ("poor" if fit.get("poor") else "ok") + (
        f" ({loo * 100:.1f} %)" if loo is not None else " (cannot hold rows out)")
    if fit.get("dropped"):
        text += f", {len(fit['dropped'])} of {fit.get('rows')} rows off the fit left out"
    return text


def table_rows(entries):
    rows = []
    for e in entries:
        comps = e.get("components")
        if not comps:
            continue
        cells = [e["class"], _cell(e["measured"], e.get("measured_ci"))]
        for name in COMPONENTS:
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
    if not all(e.get("net", True) for e in entries if e.get("components")):
        lines.append("  single loops net of their control, REP rows gross (a REP control "
                     "ran slower than its case here); the REP op has a fixed term of its own")
    return lines
