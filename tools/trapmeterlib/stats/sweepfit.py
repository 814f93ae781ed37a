"""The fit under the cost breakdown: per port class, the sweep rows' cost
in terms of exits, loop iterations, units and bytes.

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

The layers laid on top of the fit are breakdown.py's.
"""
from ..values import figure as fig
from ..values import resultform
from ..values.numbers import is_number
from .lowfit import frontier
from .lsq import wls

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
LOOP_METHODS = ("single", "rep")
# the fit's terms in the order they enter: name -> point field
TERMS = (("fixed", None), ("per_exit", "exits"), ("per_iteration", "iters"),
         ("rep_fixed", "rep"), ("per_unit", "units"), ("per_byte", "bytes"),
         ("rep_unit", "rep_units"), ("first_unit", "first_units"))
COEFS = [name for name, _ in TERMS]
# always fitted where the rows have them (select_terms adds fixed where no
# row is net, rep_fixed where net loops sit beside gross REP rows)
MANDATORY = ("per_exit", "per_iteration")


def _number(value):
    if isinstance(value, dict):          # the dump's min/p10/median
        value = value.get("min")
    return float(value) if is_number(value) else None


def net_of(result):
    """The result's net per-op minimum as measured (case minus control,
    of either sign: the fit takes it as it is), or None."""
    raw = resultform.raw_net(result, "min")
    return float(raw) if raw is not None else _number(result.get("cycles_net"))


def gross_of(result):
    low = _number(result.get("cycles"))
    return low if low is not None and low > 0 else None


def is_sweep_row(result):
    """A row of the size sweep: pio's loops and string instructions to a
    port QEMU or KVM answers, not edk2's FIFO shapes (their probe traps
    are exits of another kind) nor coalesced or ioeventfd ports; and not a
    row stopped on its budget (resultform.unsettled): its samples never
    settled, so neither its case nor its control minimum is a figure the
    fit may rest on."""
    return (result.get("suite") == "pio" and result.get("method") in LOOP_METHODS
            and result.get("handler") in ("user", "kernel")
            and not result.get("fifo_shape") and not resultform.unsettled(result))


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
        why.append("%s ran %s of its time faster than the others' fit "
                   "predicts (a row that alone pins a term)"
                   % (faster[0], fig.percent_text(fig.measured(
                       -faster[1]))))
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
    every DMA row has a positive net, else gross; rows stopped on their
    budget left out, as in the sweep."""
    rows = [r for r in results if r.get("suite") == "pio" and r.get("method") == "dma"
            and r.get("bytes") and not resultform.unsettled(r)]
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
