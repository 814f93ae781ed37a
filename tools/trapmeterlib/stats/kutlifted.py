"""The rounds that took a not-resolved row's nearest try past its bound
(stats/kutcmp.py names them under the row).

A try leaves its figure less vmexit's, round by round; where that reaches
past the bound, the rounds whose remainder lies beyond it are named, and
of each the side that departed more from its own median over the rounds
both have: trapmeter's try or vmexit's difference.  One round lifted on
one side reads as the host's episodic load, which more rounds outvote;
a remainder past the bound on one side in most rounds reads as an offset
the try does not take in, which more rounds would not remove."""

from .bootstats import median
from .kutrounds import by_round


def _by_round(boots, alt, vm):
    """[(round number from 1 in boots, try, vmexit)] over the rounds both
    spreads' Readings come from, in boots' order."""
    place = {id(b): i + 1 for i, b in enumerate(boots)}
    return sorted((place[id(r)], a, v) for r, a, v in by_round(alt, vm)
                  if id(r) in place)


def past_rounds(boots, alt, vm, limit):
    """[(round, remainder, side, how far that side lay from its median)]
    of the rounds whose try less vmexit lies beyond ±limit; side is
    "trapmeter's try" or "vmexit's difference", the one further off."""
    rounds = _by_round(boots, alt, vm)
    if len(rounds) < 2:
        return []
    mid_a = median([a for _, a, _ in rounds])
    mid_v = median([v for _, _, v in rounds])
    out = []
    for num, a, v in rounds:
        if abs(a - v) <= limit:
            continue
        off_a, off_v = a - mid_a, v - mid_v
        side = ("trapmeter's try", off_a) if abs(off_a) >= abs(off_v) \
            else ("vmexit's difference", off_v)
        out.append((num, a - v) + side)
    return out


def text(boots, alt, vm, limit):
    """"; past ±W in round 4 (+63963: trapmeter's try +59139 from its
    median) of 5" (rounds numbered in boots, a try over some of them
    among them) and, where every such round lies on one side and they
    are most of the try's rounds, that it reads as an offset; "" where
    none."""
    past = past_rounds(boots, alt, vm, limit)
    if not past:
        return ""
    each = ", ".join("%d (%+.0f: %s %+.0f from its median)" % p
                     for p in past)
    out = "; past ±%.0f in round%s %s of %d" % (
        limit, "s" if len(past) > 1 else "", each, len(boots))
    one_side = len({r > 0 for _, r, _, _ in past}) == 1
    if one_side and 2 * len(past) > len(_by_round(boots, alt, vm)):
        out += (": most rounds on one side, an offset the try does not "
                "take in, not a lifted round")
    return out
