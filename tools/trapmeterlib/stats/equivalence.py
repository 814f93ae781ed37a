""""Unchanged" at a controlled level: equivalence by two one-sided tests.

A timing metric is unchanged when its shift is shown to lie inside
+-t: both H0 "shift >= +t" and H0 "shift <= -t" rejected (TOST).  Each
one-sided test is the Wilcoxon-Mann-Whitney rank test of the shifted
sides; inverted, the pair is the distribution-free Moses interval of the
Hodges-Lehmann shift: the two tests at level alpha/2 each reject exactly
when the interval of coverage 1 - alpha lies inside +-t.

The level is the one the look spends (compare: alpha, its one look; ab:
look k's share alpha_k of alpha, the last look what is left).  A wrong
"unchanged" -- a true shift at or beyond t -- needs the one-sided test on
its side to reject at some look: at most alpha_k / 2 at look k, at most
alpha / 2 over a whole session by Bonferroni, however many looks are
taken and wherever the session stops.  This is the bound ab's frozen
"unchanged" carries; a 95 % interval at every look (the rule before) spent
2.5 % at each of them.

The rank test assumes only that the boots of a side are exchangeable and
that a change shifts the log figure; disturbed boots (interference only
adds time) widen the interval and so delay the verdict, never make it
wrong more often."""

from . import bootstats

TIE = 1e-9


def level(alpha):
    """The coverage of the interval a look at level alpha needs inside
    +-t."""
    return 1.0 - alpha


def interval(a, b, alpha):
    """(lo, hi, coverage) of the shift of cost logs b against a at the
    look's level; coverage below level(alpha) when too few boots."""
    return bootstats.moses_interval(a, b, level(alpha))


def unchanged(a, b, threshold_log, alpha):
    """(verdict, (lo, hi, coverage)): verdict True when both one-sided
    tests reject at alpha / 2: the interval at level(alpha) reaches its
    coverage and lies inside +-threshold_log."""
    lo, hi, coverage = interval(a, b, alpha)
    if lo is None:
        return False, (lo, hi, coverage)
    ok = (coverage >= level(alpha) - TIE and lo >= -threshold_log
          and hi <= threshold_log)
    return ok, (lo, hi, coverage)
