"""`make bench`: wall time per boot and the precision of every case over
the boots of one results.json (`run --repeat N`).

Precision here is the boot-to-boot spread of a per-boot statistic,
max/min - 1 over the boots, for the statistics a verdict can use (min,
p10, median of cycles per op, and the net median when the case has a
control), next to how each boot's sampling stopped (stable, budget, max,
plan).  Pure functions over the parsed file, so they are tested without
QEMU; no test asserts a time."""

from ..values import figure
from ..values.numbers import is_number
from ..values.records import group_by_case

STATS = (("cycles", "min"), ("cycles", "p10"), ("cycles", "median"),
         ("cycles_net", "median"))


def spread(values):
    """max/min - 1 of positive values, None with fewer than two."""
    vals = [v for v in values if is_number(v) and v > 0]
    if len(vals) < 2:
        return None
    return max(vals) / min(vals) - 1


def _stat(res, key, name):
    obj = res.get(key)
    return obj.get(name) if isinstance(obj, dict) else None


def case_rows(doc):
    """Per case (in first-seen order): name, boots, samples per boot, stop
    reasons, and the spread of each of STATS."""
    groups, order = group_by_case(
        boot.get("results") or [] for boot in doc.get("boots") or [])
    rows = []
    for name in order:
        group = groups[name]
        rows.append({
            "case": name, "boots": len(group),
            "samples": [r.get("samples") for r in group],
            "stops": sorted({str(r.get("stop")) for r in group}),
            "spread": {"%s.%s" % s: spread(_stat(r, *s) for r in group)
                       for s in STATS}})
    return rows


def _pct(value):
    return "-" if value is None else figure.percent_text(
        figure.measured(value), places=2)


def render(doc):
    walls = [b.get("wall_s") for b in doc.get("boots") or []]
    lines = ["wall per boot: %s s" % ", ".join(
        "%.1f" % w if isinstance(w, (int, float)) else "?" for w in walls)]
    known = [w for w in walls if isinstance(w, (int, float))]
    if known:
        lines.append("wall total %.1f s, mean %.1f s per boot"
                     % (sum(known), sum(known) / len(known)))
    head = ["case", "boots", "samples", "stop"] + ["%s %s" % s for s in STATS]
    table = [head]
    for row in case_rows(doc):
        table.append([row["case"], str(row["boots"]),
                      ",".join(str(n) for n in row["samples"]),
                      "/".join(row["stops"])] +
                     [_pct(row["spread"]["%s.%s" % s]) for s in STATS])
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines.append("boot-to-boot spread (max/min - 1 of the per-boot figure):")
    for r in table:
        lines.append("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                      for i, (c, w) in
                                      enumerate(zip(r, widths))))
    return "\n".join(lines) + "\n"
