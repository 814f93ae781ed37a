"""The rounds that took a not-resolved row's nearest try past its bound
(stats/kutcmp.py names them under the row).

A try leaves its figure less vmexit's, round by round; where that reaches
past the bound, the rounds whose remainder lies beyond it are named, each
with how far each side lay from its own median over the rounds both
have: trapmeter's try and vmexit's difference.  One side far off in one
round reads as the host's episodic load on that tool, which more rounds
outvote; most of the try's rounds past on the same side read as an offset
the try does not take in, which more rounds would not remove (both sides
near their medians there).  The figures are the rounds' own; which
reading holds is the reader's."""

from .bootstats import median
from .kutrounds import by_round


def _by_round(boots, alt, vm):
    """[(round number from 1 in boots, try, vmexit)] over the rounds both
    spreads' Readings come from, in boots' order."""
    place = {id(b): i + 1 for i, b in enumerate(boots)}
    return sorted((place[id(r)], a, v) for r, a, v in by_round(alt, vm)
                  if id(r) in place)


def past_rounds(boots, alt, vm, limit):
    """[(round, remainder, try's, vmexit's)] of the rounds whose try less
    vmexit lies beyond ±limit, each side as how far it lay from its own
    median over the rounds both have."""
    rounds = _by_round(boots, alt, vm)
    if len(rounds) < 2:
        return []
    mid_a = median([a for _, a, _ in rounds])
    mid_v = median([v for _, _, v in rounds])
    return [(num, a - v, a - mid_a, v - mid_v) for num, a, v in rounds
            if abs(a - v) > limit]


def text(boots, alt, vm, limit):
    """"; past ±W in round 4 (+63963; trapmeter's try +69139, vmexit's
    difference +5176) of 5, each side from its median" (rounds numbered
    in boots, a try over some of them among them), and where every such
    round lies on one side and they are most of the try's rounds, that
    they do; "" where none."""
    past = past_rounds(boots, alt, vm, limit)
    if not past:
        return ""
    each = ", ".join("%d (%+d; trapmeter's try %+d, vmexit's difference "
                     "%+d)" % ((num,) + tuple(round(x) for x in figs))
                     for num, *figs in past)
    out = "; past ±%.0f in round%s %s of %d, each side from its median" % (
        limit, "s" if len(past) > 1 else "", each, len(boots))
    n = len(_by_round(boots, alt, vm))
    if len({r > 0 for _, r, _, _ in past}) == 1 and 2 * len(past) > n:
        out += ": %d of the try's %d rounds past on one side" % (
            len(past), n)
    return out
