"""The tables of `import-kut` (vmexit's figures over its boots) and `kut`
(vmexit beside trapmeter's twin cases, stats/kutcmp.py's rows)."""

from ..stats.bootstats import median
from .report import fmt_num

SUITE = "kut"


def vmexit_figures(boots):
    """{case: [vmexit cycles of each boot]} and the cases in order."""
    figures, order = {}, []
    for boot in boots:
        for res in boot.get("results") or []:
            if res.get("suite") != SUITE:
                continue
            case = res.get("case")
            if case not in figures:
                figures[case] = []
                order.append(case)
            figures[case].append((res.get("cycles") or {}).get("median"))
    return figures, order


def fmt_spread(values):
    """"median (min-max, n boots)" of the values that are numbers."""
    nums = sorted(v for v in values if isinstance(v, (int, float)))
    if not nums:
        return "not resolved (no figure in any boot)"
    if len(nums) == 1:
        return "%s (1 boot: no spread)" % fmt_num(nums[0])
    return "%s (%s-%s, %d boots)" % (fmt_num(median(nums)), fmt_num(nums[0]),
                                     fmt_num(nums[-1]), len(nums))


def render_vmexit(boots):
    figures, order = vmexit_figures(boots)
    lines = ["kvm-unit-tests x86/vmexit, measured (gross: its loop and the "
             "exit; no control), cycles per iteration, median over boots:"]
    width = max([len(c) for c in order] + [4])
    for case in order:
        lines.append("  %-*s  %s" % (width, case, fmt_spread(figures[case])))
    skipped = sorted({s.get("case") for b in boots for s in b.get("skips")
                      or [] if s.get("suite") == SUITE})
    if skipped:
        lines.append("  skipped by vmexit: " + ", ".join(skipped))
    return "\n".join(lines) + "\n"
