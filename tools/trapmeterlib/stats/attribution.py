"""Attribution for `compare` and `ab`: which component of the cost
breakdown (breakdown.py) moved between a base and a candidate results file.

Each boot's breakdown is fitted again from its results (the same fit the
runner stored), so files written before the fit changed are read alike.
A class is attributed where both sides have two boots or more with its
layers; a component moved when the Welch interval of the difference of its
means (over each side's undisturbed boots of the class:
breakdown.undisturbed_boots) excludes 0 at level 5 % over all components of all classes
(Bonferroni: a run compares about twenty), and the largest such move is
named with that interval.  `components` keeps every component's plain
95 % interval, for the record.
"""
from . import breakdown

TITLE = ("where the time went (cost breakdown, candidate - base, cycles per "
         "single-unit access; interval at 5 % over all components):")


def per_boot(doc):
    """Per-boot breakdowns of a results doc (boots with VM exits only)."""
    out = []
    for boot in (doc or {}).get("boots") or []:
        results = boot.get("results") if isinstance(boot, dict) else None
        if results and breakdown.has_exits(results):
            out.append(breakdown.boot_breakdown(results))
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
