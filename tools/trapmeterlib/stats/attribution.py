"""Attribution for `compare` and `ab`: which component of the cost
breakdown (breakdown.py) moved between a base and a candidate results file.

Each boot's breakdown is fitted again from its results (the same fit the
runner stored), so files written before the fit changed are read alike.
A class is attributed where both sides have two boots or more with its
layers; a component moved when the Welch interval of the difference of its
means (over each side's undisturbed boots of the class:
breakdown.undisturbed_boots) excludes 0 at level 5 % over all components of all classes
(Bonferroni: a run compares about twenty) and reaches 0.5 % of the
class's total (breakdown.MOVE_SHARE), and the largest such move is
named with that interval.  `components` keeps every component's plain
95 % interval, for the record.

Beside the fitted classes, the exits suite's three anchors alone lay out
one access to a QEMU port (ANCHOR_CLASS: VM exit = cpuid, KVM PIO =
pio.kernel - cpuid, round trip = pio.user - pio.kernel; no device term),
so a session without the size sweep (ab's sentinel list) still names
what moved.
"""
from . import breakdown

TITLE = ("where the time went (cost breakdown, candidate - base, cycles per "
         "single-unit access; interval at 5 % over all components):")


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
    named = breakdown.attribute(base, cand)
    out = {}
    for key, moves in breakdown.component_moves(base, cand).items():
        hit = named.get(key)
        out[key] = {"moved": hit[0] if hit else None,
                    "delta": hit[1] if hit else None,
                    "ci": hit[2] if hit else None,
                    "components": {n: {"delta": d, "ci": ci}
                                   for n, (d, ci) in moves.items()}}
    return out


def render(attr):
    """Short lines for the verdict table: one per class."""
    if not attr:
        return []
    lines = [TITLE]
    for key, entry in sorted(attr.items()):
        name = entry["moved"]
        if name is None:
            lines.append("  %-14s no component moved" % key)
            continue
        lo, hi = entry["ci"]
        lines.append("  %-14s %s %+.0f [%+.0f..%+.0f]" % (
            key, breakdown.LABELS[name], entry["delta"], lo, hi))
    return lines
