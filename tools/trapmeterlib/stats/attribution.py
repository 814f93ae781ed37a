"""Attribution for `compare` and `ab`: which component of the cost
breakdown (breakdown.py) moved between a base and a candidate results file.

Each boot's breakdown is fitted again from its results (the same fit the
runner stored), so files written by any version of the tool are read
alike.
A class is attributed where both sides have two boots or more with its
layers; a component moved when the Welch interval of the difference of its
means (over each side's undisturbed boots of the class, see
undisturbed_boots) excludes 0 at level 5 % over all components of all
classes (Bonferroni: a run compares about twenty) and reaches 0.5 % of the
class's total (MOVE_SHARE), and the largest such move is
named with that interval.  `components` keeps every component's plain
95 % interval, for the record.

Beside the fitted classes, the exits suite's three anchors alone lay out
one access to a QEMU port (ANCHOR_CLASS: VM exit = cpuid, KVM PIO =
pio.kernel - cpuid, round trip = pio.user - pio.kernel; no device term),
so a session without the size sweep (ab's sentinel list) still names
what moved.

The lines printed for it are output/breakdown_text.py's.
"""
import math

from . import bootstats, breakdown
from .breakdown import COMPONENTS
from .tdist import welch_interval

ALPHA = 0.05             # false-alarm level over all components of all classes
LEVEL = 0.95             # of each component's own interval, for the record


def boots_with_exits(doc):
    """The result lists of a doc's boots that have VM exits: every boot
    with results, once one boot of the side counted exits.  Exits per op
    are exact and the same in every boot, so a boot that did not count
    them (ab --count-boots) takes the counted boot's: the breakdown needs
    only to know the side ran under a hypervisor with exits (not TCG);
    its fit uses each row's exit model, which the counted boot checked."""
    lists = [b.get("results") for b in (doc or {}).get("boots") or []
             if isinstance(b, dict) and b.get("results")]
    if not any(breakdown.has_exits(results) for results in lists):
        return []
    return lists


ANCHOR_CLASS = "pio.user"


def anchor_layers(results):
    """{ANCHOR_CLASS: layers} from the exits suite's net anchors, or {}."""
    costs, _net = breakdown.exit_costs(results)
    if not all(name in costs for name in breakdown.ANCHORS):
        return {}
    cpuid, kern, user = (costs[n] for n in breakdown.ANCHORS)
    return {ANCHOR_CLASS: {"measured": user, "not_identifiable": [],
                           "components": {"vm_exit": cpuid,
                                          "kvm_pio": kern - cpuid,
                                          "qemu_round_trip": user - kern,
                                          "device_model": None}}}


def per_boot(doc):
    """Per-boot breakdowns of a results doc (boots_with_exits), each with
    the anchors' layers."""
    out = []
    for results in boots_with_exits(doc):
        one = breakdown.boot_breakdown(results)
        one.update(anchor_layers(results))
        out.append(one)
    return out


def attribution(base_doc, cand_doc):
    """{class: {"moved": NAME or None, "components": {NAME: {"delta",
    "ci"}}}}; empty when no class has layers on both sides."""
    base, cand = per_boot(base_doc), per_boot(cand_doc)
    named = attribute(base, cand)
    out = {}
    for key, moves in component_moves(base, cand).items():
        hit = named.get(key)
        out[key] = {"moved": hit[0] if hit else None,
                    "delta": hit[1] if hit else None,
                    "ci": hit[2] if hit else None,
                    "components": {n: {"delta": d, "ci": ci}
                                   for n, (d, ci) in moves.items()}}
    return out


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


def component_moves(base, cand, alpha=1.0 - LEVEL):
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
        if not total:       # no access of the class above zero: no scale
            out[key] = None
            continue
        floor = share * total
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


def diff_interval(a, b, alpha=1.0 - LEVEL):
    """Welch interval (level 1 - alpha) of mean(b) - mean(a)
    (tdist.welch_interval)."""
    delta, ends, _df = welch_interval([(1, b), (-1, a)], 1.0 - alpha)
    return delta, ends
