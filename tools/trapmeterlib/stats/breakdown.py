"""Where the time goes: a cost breakdown of each exit, fitted from the sweeps.

For every port class (target and direction) the per-op cost of the size
sweep (single loops and string instructions) is fitted as

    cost = fixed + per_exit * exits + per_iteration * iters
           + rep_fixed * rep + per_unit * units + per_byte * bytes
           + rep_unit * rep_units

by the lower-envelope fit (lowfit.py): the model at or below every row and
as close to them as it can, errors relative to each row's gross per-op
time (a 64 KiB row does not drown a 512 B one).  Noise here is one-sided:
a slower host phase, another tenant, an interrupt only add time to a
minimum, so a row measured slow does not pull the fit up as it would a
least-squares line.  iters: guest loop iterations left in a gross single
row; rep: 1 for a REP row (a string instruction with a count costs more
than its count-0 control); rep_units: a REP row's units (the string
instruction restarted per unit, where every unit is an exit).  A term
enters only where the rows can tell it from the terms before it (in that
order): in single loops and in `rep outs` to QEMU exits equal units, so
per_unit stays out (null) and per_exit carries one unit of device work;
`rep ins` batches its exits (one per 1 KiB of KVM's read-ahead, one more
at a page split; one per 1024 units of either direction at a port KVM
answers), and the rows of several sizes, the split rows and the widths are
what separate the terms.  Of those, per_exit and the loop term are always
fitted, fixed where a row is gross (never else), rep_fixed where REP rows
sit beside single loops; each further term only if it predicts held-out
rows better (select_terms).

Figures.  Each row is its gross minimum net of its control group's lower
envelope, not of its own control: the rows whose control op runs the same
code (direction, width, fw_cfg's select, single loop or count-0 REP twin)
give, over the whole boot, control = fixed + per_unit * units (a REP twin:
fixed), fitted under all of them.  A row's own control can run in a slower
phase than its case and then take too much away; the group's envelope
cannot.  A group of one loop size has no envelope: its rows are net of
their own control; a row without one is gross.  Net figures may be
negative (an in-kernel port's access can cost less than its RAM twin on a
software backend): they are fitted as they are.

Held out.  Every row is predicted by the fit of the others.  A held-out
row that ran faster than its prediction by more than POOR_FIT (5 % of its
gross time) is a miss: noise cannot do that.  One that ran slower by more
may be a slower host phase or a miss, which one boot cannot tell: it is
named in `slow`.  The fit is "poor" on a miss, when more than a quarter of
the rows (at least MAX_SLOW) ran slower, or when a row cannot be held out;
`held_out_within` is the largest miss either way of the rows not slower.
Up to MAX_FASTER rows faster than the others' fit are left out of the
coefficients (`faster`; the fit stays poor): one such row would hold the
whole envelope down (see without_faster); so are loops whose control is
most of their time (`weak`, see fit_class), which are judged all the same.
Across boots the fit that is judged is the one of the boots' lower envelope
(each case from the boot where it ran fastest), which a slow phase of one
boot does not reach; the components' intervals come from the per-boot fits.

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
width.  What is stored and shown follows the figure rule (output/figure.py;
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
the dump has no net.  fw_cfg DMA is fitted apart: per_op + per_byte * bytes.
Across boots every component gets a t-interval.  Pure functions: the runner
stores the result as `breakdown`, attribution.py names what moved.
"""
import math

from . import bootstats
from ..guest import resultform
from .lowfit import frontier, solve
from ..output import figure as fig

# two-sided 95 % Student t quantiles by degrees of freedom
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
       7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086,
       30: 2.042}
POOR_FIT = 0.05          # a held-out prediction off by more: a miss
MIN_POINTS = 4
MAX_SLOW = 2             # rows slower than predicted: more than this and a
                         # quarter of the rows, and the fit is poor
MAX_FASTER = 2           # rows faster than predicted left out of the estimate
CTL_DOMINATES = 3        # a loop whose control is more than this x its net
                         # is judged but not fitted
MIN_LOOPS = 2            # ... as long as this many loops are fitted: string
                         # instructions alone cannot tell an exit from units
LOOP_FIXED_ROWS = 8      # rows a class of loops mostly control needs before
                         # a per-op term is tried (the extended set's 9)
SPARE_POINTS = 2         # rows beyond the number of terms, to judge the fit
KVM_PIO_CACHE = 1024     # bytes of KVM's PIO read-ahead (struct read_cache)
# terms whose coefficient is an extra cost, never a saving: a fit that
# makes one negative does not take it
NON_NEGATIVE = ("first_unit",)
# a term that only refines others enters after them: first_unit is an
# extra on some units of a string instruction, never the whole per-unit
# cost nor the instruction's own fixed part
AFTER = {"first_unit": ("per_unit", "rep_fixed")}
COMPONENTS = ("vm_exit", "kvm_pio", "qemu_round_trip", "device_model")
LOOP_METHODS = ("single", "rep")
# the fit's terms in the order they enter: name -> point field
TERMS = (("fixed", None), ("per_exit", "exits"), ("per_iteration", "iters"),
         ("rep_fixed", "rep"), ("per_unit", "units"), ("per_byte", "bytes"),
         ("rep_unit", "rep_units"), ("first_unit", "first_units"))
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
    """The result's net per-op minimum as measured (case minus control,
    of either sign: the fit takes it as it is), or None."""
    raw = resultform.raw_net(result, "min")
    return float(raw) if raw is not None else _number(result.get("cycles_net"))


def gross_of(result):
    low = _number(result.get("cycles"))
    return low if low is not None and low > 0 else None


# ---- least squares ----------------------------------------------------

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

def is_sweep_row(result):
    """A row of the size sweep: pio's loops and string instructions to a
    port QEMU or KVM answers, not edk2's FIFO shapes (their probe traps
    are exits of another kind) nor coalesced or ioeventfd ports."""
    return (result.get("suite") == "pio" and result.get("method") in LOOP_METHODS
            and result.get("handler") in ("user", "kernel")
            and not result.get("fifo_shape"))


def is_single(result):
    return result.get("method") == "single" or result.get("rep_impl") == "loop"


def control_of(result):
    """The control op's per-op minimum (schema 2 files: gross - net)."""
    ctl = _number(result.get("cycles_control"))
    if ctl is None:
        gross, net = gross_of(result), net_of(result)
        ctl = gross - net if gross is not None and net is not None else None
    return ctl if ctl is not None and ctl > 0 else None


def control_group(result):
    """Rows whose control op runs the same code: direction, width, the
    fw_cfg select before it, and single loop or REP twin (pio.c)."""
    return (result.get("dir"), result.get("width") or 1,
            result.get("target") == "fwcfg", is_single(result))


def control_models(results):
    """{group: (fixed, per_unit)}: the lower envelope of the boot's control
    minima per control group (see the module comment); a group of single
    loops of one size only has none."""
    groups = {}
    for r in results:
        ctl = control_of(r) if is_sweep_row(r) else None
        if ctl is not None and r.get("units"):
            groups.setdefault(control_group(r), []).append((float(r["units"]), ctl))
    out = {}
    for key, pts in groups.items():
        if not key[3]:
            out[key] = (min(c for _, c in pts), 0.0)     # a REP twin: count 0
        elif len({u for u, _ in pts}) >= 2:
            sol = frontier([(1.0, u) for u, _ in pts], [c for _, c in pts])
            if sol is not None:
                out[key] = (sol[0], sol[1])
    return out


def figure(result, models):
    """(cost, kind, control) of one sweep row: its gross minimum net of its
    group's control model ("net"), of its own control where the group has
    no model, or gross where it has no control at all."""
    gross = gross_of(result)
    if gross is None:
        return None, None, 0.0
    model = models.get(control_group(result))
    if model is not None:
        ctl = model[0] + model[1] * float(result.get("units") or 0)
        return gross - ctl, "net", ctl
    ctl = control_of(result)
    return (gross - ctl, "net", ctl) if ctl is not None else (gross, "gross", 0.0)


def sweep_points(results):
    """{class: [point]} for the loop and rep rows; a point is a dict of
    exits, units, bytes, iters (loop iterations left in a gross single
    row), rep, rep_units, width, cost, scale (the row's gross), kind, case."""
    models = control_models(results)
    classes = {}
    for r in results:
        if not is_sweep_row(r):
            continue
        cost, kind, ctl = figure(r, models)
        exits, units = r.get("exits_model"), r.get("units")
        if cost is None or not exits or not units:
            continue
        single = is_single(r)
        weak = single and kind == "net" and ctl > CTL_DOMINATES * abs(cost)
        first = 0.0 if single else first_kib_units(r)
        classes.setdefault(f"{r.get('target')}.{r.get('dir')}", []).append({
            "case": r.get("case"), "cost": cost, "scale": gross_of(r),
            "exits": float(exits), "units": float(units),
            "bytes": float(r.get("bytes") or units),
            "iters": float(units) if single and kind == "gross" else 0.0,
            "rep": 0.0 if single else 1.0, "kind": kind,
            "rep_units": 0.0 if single else float(units),
            "first_units": first, "width": r.get("width") or 1, "weak": weak})
    return classes


def first_kib_units(result):
    """Units of a `rep ins` to a QEMU port that fall in its first KiB: the
    instruction's first 1024 / width units, wherever the page ends (0 for
    any other row).  The `first_unit` term is their extra cost (see "The
    first KiB's units" in docs/design.md): the split rows put it on the
    instruction's first KiB, not on its first exit."""
    if result.get("handler") != "user" or result.get("dir") != "in":
        return 0.0
    units = int(result.get("units") or 0)
    width = int(result.get("width") or 1)
    return float(min(KVM_PIO_CACHE // width, units))


def _value(point, field):
    return 1.0 if field is None else point[field]


def choose_terms(points, loop_fixed=False):
    """The terms the rows can tell apart, in TERMS order; None when not
    even fixed + per_exit can be fitted."""
    chosen = []
    gross = any(p["kind"] == "gross" for p in points)
    for name, field in TERMS:
        if field and not any(p[field] for p in points):
            continue
        if name == "fixed" and not gross and not loop_fixed:
            continue        # a net row's control took the op's own work away
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
    """Coefficients of `terms` by the lower-envelope fit (lowfit.py;
    absent terms None), or None when the rows do not determine them."""
    sol = frontier([[_value(p, f) for _, f in terms] for p in points],
                   [p["cost"] for p in points], [p["scale"] for p in points])
    if sol is None:
        return None
    coef = dict.fromkeys(COEFS)
    coef.update(zip((n for n, _ in terms), sol))
    return coef


def predict(coef, point):
    return sum((coef.get(name) or 0.0) * _value(point, field)
               for name, field in TERMS)


def off_fit(coef, point):
    """How much slower (+) or faster (-) than the fit the row ran,
    relative to its gross time."""
    return (point["cost"] - predict(coef, point)) / point["scale"]


def held_out(points, terms, fitted=None):
    """[(case, off_fit)] of each row predicted by the fit of the others
    (of the `fitted` rows, by default all); None when a row cannot be left
    out (the others do not fix the terms)."""
    fitted = points if fitted is None else fitted
    whole, out = None, []
    for point in points:
        sub = [p for p in fitted if p is not point]
        if len(sub) == len(fitted):
            whole = whole or fit_terms(fitted, terms)
            coef = whole
        else:
            coef = fit_terms(sub, terms)
        if coef is None:
            return None
        out.append((point["case"], off_fit(coef, point)))
    return out


def judge(offs, rows):
    """The held-out verdict: {"faster": the largest amount a held-out row
    ran faster than its prediction (noise cannot do that: a miss), "slow":
    the rows that ran slower than theirs by more than POOR_FIT (a slower
    host phase, or a miss: one boot cannot tell), "within": the largest
    miss of the others either way, "poor"}."""
    if offs is None:
        return {"faster": None, "slow": [], "within": None, "poor": True,
                "why": "a row cannot be held out (the others do not fix "
                       "every term)"}
    slow = [case for case, off in offs if off > POOR_FIT]
    rest = [(abs(off), case) for case, off in offs if off <= POOR_FIT]
    faster = min(offs, key=lambda o: o[1])
    most = max(MAX_SLOW, rows // 4)
    why = []
    if -faster[1] > POOR_FIT:
        why.append("%s ran %.1f %% of its time faster than the others' fit "
                   "predicts (a row that alone pins a term)"
                   % (faster[0], -100 * faster[1]))
    if len(slow) > most:
        why.append("%d of %d rows slower than predicted (a slower host "
                   "phase, or a miss)" % (len(slow), rows))
    return {"faster": max(0.0, -faster[1]), "slow": slow,
            "within": max(rest)[0] if rest else None,
            "poor": bool(why), "why": "; ".join(why) or None}


def fit_class(points):
    """Fit one class (see the module comment); None when it cannot.  The
    coefficients come from the rows whose figure is not mostly its control
    (`weak`: a 1-unit loop here is 110-150 k of control around a 10-30 k
    trap, so the control group's envelope, extrapolated to 1 unit, can miss
    it by more than the trap), unless that leaves no loop (an in-kernel
    port on a software backend, whose every loop costs about its RAM
    twin: its string instructions alone cannot tell an exit from 1024
    units); every row is judged."""
    if len(points) < MIN_POINTS:
        return None
    strong = [p for p in points if not p["weak"]]
    loop_fixed = False
    identifiable = True
    if (len(strong) < MIN_POINTS or loops(strong) < MIN_LOOPS
            or choose_terms(strong) is None):
        # the loops are mostly control: their single access is the
        # control envelope's extrapolation where no loop is strong
        identifiable = loops(strong) >= MIN_LOOPS
        strong = points     # without loops nothing tells an exit from a unit
        # ... and such a loop differs from its twin per op as much as per
        # unit: a free per-op term, where the rows are enough to judge it
        loop_fixed = len(points) >= LOOP_FIXED_ROWS
    terms = choose_terms(strong, loop_fixed)
    if terms is None:
        return None
    chosen = select_terms(strong, terms, loop_fixed)
    kept, faster = without_faster(strong, chosen, held_out(strong, chosen))
    if faster:          # the terms the other rows predict best
        chosen = select_terms(kept, choose_terms(kept, loop_fixed) or terms, loop_fixed)
    verdict = judge(held_out(points, chosen, kept), len(points))
    terms = chosen
    coef = fit_terms(kept, terms)
    if coef is None:
        return None
    coef.update({"terms": [n for n, _ in terms], "points": len(kept),
                 "weak": [p["case"] for p in points if p not in strong],
                 "rows": len(points), "held_out_faster": verdict["faster"],
                 "held_out_within": verdict["within"], "slow": verdict["slow"],
                 "faster": faster, "poor": verdict["poor"],
                 "poor_reason": verdict["why"], "identifiable": identifiable,
                 "width": min(p["width"] for p in points)})
    return coef


def loops(points):
    return sum(1 for p in points if not p["rep"])


def without_faster(points, terms, offs):
    """(rows the coefficients are fitted on, names of those left out): up
    to MAX_FASTER rows that ran faster than the others' fit by more than
    POOR_FIT, the worst first, never below MIN_LOOPS loops.  They make the
    fit poor all the same (see judge); left in, one of them would hold the
    whole envelope down.  A
    net row can come out that fast where its control is most of its time
    (a 1-unit loop: 110-130 k of control around a 10 k exit here), so the
    control group's envelope misses it by more than the exit."""
    kept, faster = list(points), []
    while offs and len(faster) < MAX_FASTER and len(kept) > len(terms) + SPARE_POINTS:
        i = min(range(len(offs)), key=lambda j: offs[j][1])
        if offs[i][1] >= -POOR_FIT or (not kept[i]["rep"] and loops(kept) <= MIN_LOOPS):
            break
        rest = kept[:i] + kept[i + 1:]
        rest_offs = held_out(rest, terms)
        if rest_offs is None:
            break           # the others no longer fix every term held out
        faster.append(kept[i]["case"])
        kept, offs = rest, rest_offs
    return kept, faster


def select_terms(points, terms, loop_fixed=False):
    """Of the terms the rows can tell apart, the ones that predict held-out
    rows better.  Always per_exit and the loop term; fixed where a row is
    gross, else never (a net row's control took the op's own work away,
    and a free intercept only amplifies the small rows' noise); rep_fixed
    where REP rows are net (a string instruction with a count costs more
    than its count-0 twin).  Then forward selection: the
    further term whose addition predicts held-out rows best (the upper
    quartile of their misses either way, which the slower rows of up to a
    quarter do not set), as long as it cuts that by a tenth: a term only
    the noise pins down predicts worse.  Kept in TERMS order."""
    must = set(MANDATORY)
    gross = any(p["kind"] == "gross" for p in points)
    if gross:
        must.add("fixed")
    if any(p["rep"] for p in points) and not gross:
        must.add("rep_fixed")
    chosen = [t for t in terms if t[0] in must]
    rest = [t for t in terms if t[0] not in must
            and (gross or loop_fixed or t[0] != "fixed")]
    best = held_out_score(points, chosen)
    while rest:
        names = {n for n, _ in chosen}
        trials = [(score, term) for term in rest
                  if names.issuperset(AFTER.get(term[0], ()))
                  for score in [held_out_score(points, chosen + [term])]
                  if score is not None and signed_right(points, chosen + [term])]
        if not trials:
            break
        score, term = min(trials, key=lambda t: t[0])
        if best is not None and score >= 0.9 * best:
            break
        chosen.append(term)
        rest.remove(term)
        best = score
    return [t for t in terms if t in chosen]


def signed_right(points, terms):
    """False when the fit gives a NON_NEGATIVE term a negative coefficient."""
    coef = fit_terms(points, terms)
    return coef is not None and all((coef.get(n) or 0.0) >= 0.0 for n in NON_NEGATIVE)


def held_out_score(points, terms):
    offs = held_out(points, terms)
    if offs is None:
        return None
    misses = sorted(abs(off) for _, off in offs)
    return misses[(3 * len(misses)) // 4 - (1 if len(misses) % 4 == 0 else 0)]


def fit_dma(results):
    """fw_cfg DMA: cost = per_op + per_byte * bytes, net of the control
    (the guest's descriptor, poll and a RAM store for the doorbell) where
    every DMA row has a positive net, else gross."""
    rows = [r for r in results if r.get("suite") == "pio" and r.get("method") == "dma"
            and r.get("bytes")]
    net = bool(rows) and all((net_of(r) or 0) > 0 for r in rows)
    pts = []
    for r in rows:
        cost = net_of(r) if net else gross_of(r)
        if cost:
            pts.append((r["bytes"], cost))
    if len(pts) < 3:
        return None
    sol = wls([(1.0, b) for b, _ in pts], [c for _, c in pts])
    if sol is None:
        return None
    fit = {"per_op": sol[0], "per_byte": sol[1], "points": len(pts), "net": net}
    fit["max_rel_residual"] = max(abs(sol[0] + sol[1] * b - c) / c for b, c in pts)
    return fit


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
            comps[name] = {"cycles": None, "ci": None, "kind": None,
                           "reason": ABSENT.get(name, NOT_IN_EVERY_BOOT)}
            continue
        fig = ruled(vals, rows, name)
        comps[name] = {"cycles": fig.value, "ci": fig.interval,
                       "kind": fig.kind, "reason": fig.reason}
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
        env = {e["class"]: e for e in combine([boot_breakdown(envelope(boots_results))])}
        for e in entries:
            one = env.get(e["class"])
            if one:
                e["envelope"] = {k: v for k, v in one.items()
                                 if k in ("measured", "measured_reason",
                                          "components", "fit")}
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


def undisturbed_boots(boots, key):
    """The boots of one side whose single access of class `key` is
    undisturbed: within the verdict's band of the side's lower quartile
    (bootstats.undisturbed).  A disturbance here puts whole boots 30-50 %
    high on every case at once; a mean over such boots moves every
    component and leaves the interval too wide to name one."""
    judged = [b for b in boots if ((b.get(key) or {}).get("measured")
                                   or 0) > 0]
    if len(judged) <= bootstats.MIN_SIDE:
        return boots
    logs = [math.log(b[key]["measured"]) for b in judged]
    top = max(bootstats.undisturbed(logs))
    left_out = {id(b) for b, v in zip(judged, logs) if v > top}
    return [b for b in boots if id(b) not in left_out]


def component_moves(base, cand, alpha=0.05):
    """{class: {component: (delta, ci)}}: per component the Welch interval
    (level 1 - alpha) of mean(cand) - mean(base) over each side's
    undisturbed boots of the class, where both sides have two boots or
    more.  `base` and `cand` are lists of per-boot breakdowns."""
    out = {}
    for key in sorted({k for b in base for k in b} & {k for b in cand for k in b}):
        moves = {}
        quiet_a = undisturbed_boots(base, key)
        quiet_b = undisturbed_boots(cand, key)
        for name in COMPONENTS:
            a, b = _values(quiet_a, key, name), _values(quiet_b, key, name)
            if len(a) >= 2 and len(b) >= 2:
                moves[name] = diff_interval(a, b, alpha)
        if moves:
            out[key] = moves
    return out


MOVE_SHARE = 0.005       # a move below this share of the class's total is
                         # not named, however sure (compare's threshold t)


def class_total(boots, key):
    """Mean single access of class `key` over the boots that have one
    above zero, or None."""
    vals = [(b.get(key) or {}).get("measured") for b in boots]
    vals = [v for v in vals if isinstance(v, (int, float)) and v > 0]
    return sum(vals) / len(vals) if vals else None


def attribute(base, cand, alpha=ALPHA, share=MOVE_SHARE):
    """Which component moved, per class: {class: (name, delta, ci) or None}.

    A component moved when the interval of the difference of its means
    excludes 0, at level alpha over all the components of all classes
    compared (Bonferroni), and the move is at least `share` of the class's
    total in the base (as compare's verdict wants both p <= alpha and a
    shift beyond t: over 45 boots a side an A/A session here found KVM
    PIO +16 [+2..+29] cycles of a 28,000-cycle access "moved"); the one
    with the largest such move is named, with its interval at that level."""
    tests = sum(len(m) for m in component_moves(base, cand).values())
    moves = component_moves(base, cand, alpha / max(1, tests))
    out = {}
    for key, per in moves.items():
        total = class_total(base, key)
        floor = share * total if total else 0.0
        moved = [(abs(d), name, d, ci) for name, (d, ci) in per.items()
                 if (ci[0] > 0 or ci[1] < 0) and abs(d) >= floor]
        out[key] = max(moved)[1:] if moved else None
    return out


def _values(boots, key, name):
    """The component's per-boot values, of the boots that identify it."""
    vals = []
    for b in boots:
        one = b.get(key) or {}
        comps = one.get("components")
        if comps and comps.get(name) is not None and \
                name not in (one.get("not_identifiable") or ()):
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


def _cell(value, ci=None):
    if value is None:
        return "-"
    return fig.text(fig.measured(value, ci))


def comp_cell(comp):
    """A component's cell: its figure, n.r., or "-" for a layer the
    class does not have."""
    if comp.get("kind") is None and comp.get("reason") is not None:
        return "-"
    if comp.get("cycles") is None:
        return fig.SHORT if comp.get("reason") else "-"
    return _cell(comp["cycles"], comp.get("ci"))


def total_of(entry):
    return fig.get(entry, "measured")


def not_resolved(entry):
    """[(label, reason)] of the row's figures that are not resolved."""
    out = []
    total = total_of(entry)
    if not total.resolved:
        out.append(("total", total.reason))
    for name in COMPONENTS:
        comp = (entry.get("components") or {}).get(name) or {}
        if comp.get("kind") == fig.NOT_RESOLVED:
            out.append((SHORT_LABELS[name], comp.get("reason")))
    return out


def fit_cell(entry):
    """The judged fit (the lower envelope's across boots, else the
    boot's): "ok" only where every figure of the row is resolved; a poor
    fit's reason is printed under the table (poor_notes)."""
    fit = (entry.get("envelope") or entry)["fit"]
    within = fit.get("held_out_within")
    held = (f"{within * 100:.1f} %" if within is not None else
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
            c.get("kind") is None and name != "qemu_round_trip"
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
            per_byte = fig.text(fig.get(f, "per_byte"), "{:,.2f}".format)
            lines.append(f"  fwcfg.dma: {fig.text(fig.get(f, 'per_op'))} per op"
                         f" + {per_byte} per byte (the device writing guest memory)")
    lines += poor_notes(entries) + legend_notes(entries)
    lines.append("  held-out error: each sweep row predicted by the fit of the others, the "
                 "largest miss of those not slower than predicted by more than 5 % (noise "
                 "only adds time; the slower rows are named in results.json, fit.slow)")
    return lines
