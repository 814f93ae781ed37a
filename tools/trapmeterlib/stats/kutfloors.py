"""A try's remainder from lower quartiles, unpaired: for a lift that falls
on one loop alone.

Noise on these hosts is one-sided (another tenant only adds time).  kutcmp
takes what a try leaves round by round, so that a round whose host lifts
a tool's case and its reference alike cancels.  vmexit runs each case in
a span of its own (2^30 cycles), and a busy stretch can lift one case's
loop and not its reference's: f24's x2apic_self_ipi_tpr read 108.7 k
cycles in most rounds and up to 138.2 k in a few, its reference 20.7-27.9 k
apart from it (docs/measurements.md, "twenty-sixth session").  The
round-by-round remainder then carries each lift whole; a low quantile of
each figure over the rounds does not move with the few lifted ones.

The floors pass: for a try whose vmexit side is vmexit's raw figures, over
the rounds the try has, the lower quartiles of its figure T, of vmexit's
case C and of its reference R; what the try leaves is T - (C - R).  Each
quartile's interval is of order statistics (binomial(n, 1/4), whatever
the distribution) with each tail at most TAIL; the remainder's interval
is the three combined.  Where the true remainder lies on the bound, the
interval comes out within it only if one of the three misses on one side:
at most 3 TAIL = FALSE_EXPLAINED_ALPHA of the time (a union bound).  From
FEWEST rounds (0.75^n <= TAIL); fewer give no interval."""

import functools
import math

from ..values import figure
from .kutrounds import pick_vm

QUARTILE = 0.25
# each quartile interval's tail: three of them keep the remainder's
# on-the-bound chance within kutcmp.FALSE_EXPLAINED_ALPHA (5 %)
TAIL = 0.05 / 3


def _cdf(n, k, p=QUARTILE):
    """P(Binomial(n, p) <= k)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i)
               for i in range(k + 1))


@functools.lru_cache(maxsize=None)
def ranks(n, tail=TAIL):
    """(r, s), 1-based: [x(r), x(s)] of n sorted values misses their
    lower quartile below (fewer than r values under it) at most tail of
    the time and above (s or more under it) at most tail; r the highest,
    s the lowest such; None where no r exists (too few values)."""
    if _cdf(n, 0) > tail:
        return None
    r = max(k for k in range(1, n + 1) if _cdf(n, k - 1) <= tail)
    s = min(k for k in range(1, n + 1) if 1.0 - _cdf(n, k - 1) <= tail)
    return r, s


FEWEST = next(n for n in range(2, 200) if ranks(n))


def quartile(values):
    """(lower quartile, low, high) of the numbers among values, or None
    under FEWEST of them."""
    xs = sorted(v for v in values if isinstance(v, (int, float)))
    got = ranks(len(xs))
    if not got:
        return None
    point = xs[max(0, math.ceil(len(xs) * QUARTILE) - 1)]
    return point, xs[got[0] - 1], xs[got[1] - 1]


def left(alt, boots, name, ref):
    """What try figure alt (a spread of Readings) leaves of vmexit's
    name - ref, by lower quartiles over alt's rounds: (point, low, high,
    rounds), or None where a side has under FEWEST rounds."""
    mine = {id(v.round) for v in getattr(alt, "readings", ())
            if getattr(v, "round", None) is not None}
    rounds = [b for b in boots if id(b) in mine]
    t = quartile(getattr(alt, "readings", ()))
    c = quartile([pick_vm(b, name) for b in rounds])
    r = quartile([pick_vm(b, ref) for b in rounds])
    if None in (t, c, r):
        return None
    return (t[0] - (c[0] - r[0]), t[1] - (c[2] - r[1]),
            t[2] - (c[1] - r[2]), len(rounds))


def fmt(got):
    """"+m (+lo..+hi, lower quartiles of n rounds)"."""
    return "%+.0f (%+.0f..%+.0f, lower quartiles of %d rounds)" % got


def tries(tried, boots, name, ref, limit):
    """[(cause, alt, left, within)] of kuttries' tried (cause, alt[,
    vmexit's alt]) whose vmexit side is vmexit's raw figures, by lower
    quartiles over their rounds, where they have enough rounds; within:
    left lies within ±limit."""
    out = []
    for cause, alt, *vm_alt in tried:
        got = None if vm_alt or alt is None else left(alt, boots, name, ref)
        if got:
            out.append((cause, alt, got, -limit <= got[1] and
                        got[2] <= limit))
    return out


def within_text(got, name, ref, limit, width_text):
    """What a try explains by: "by lower quartiles ..., within ±W"."""
    return ("by lower quartiles over the rounds, unpaired (a lift of one "
            "loop alone stays out of them): the try's less vmexit's %s's "
            "less its %s's, %s, within ±%.0f (%s; each quartile's interval "
            "misses on a side at most %s of the time)" % (
                name, ref, fmt(got), limit, width_text,
                figure.percent_text(figure.model(TAIL), places=1)))


def nearest_text(floors, limit):
    """"; by lower quartiles ..., the nearest is ..." of a row no try
    explained, or "" where no try had the rounds for them."""
    if not floors:
        return ""
    cause, _alt, got, _in = min(floors, key=lambda f: max(-f[2][1],
                                                          f[2][2]))
    return ("; by lower quartiles over the rounds, unpaired, the nearest "
            "is %s: %s, reaching past ±%.0f" % (
                cause.split(":")[0], fmt(got), limit))
