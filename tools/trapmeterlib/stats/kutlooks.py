"""The sessions of `trapmeter kut --again`: how many it runs, and what
taking the verdict of any of them costs.

A session of --again judges again, on rounds of its own, the rows the one
before left not resolved; the verdict a row ends with is that of the
first session that resolved it.  Each session may explain a row falsely
(kutcmp.FALSE_EXPLAINED) or part tools that agree (kutcmp.parting_chance)
at its own rate, so over k sessions a wrong verdict is at most k times as
likely as in one: a union bound, which must stay under each alpha for the
sessions kut runs (tests/host/test_kut_null.py replays them)."""

from .abtest import binomial_upper
from .kutcmp import (DEFAULT_ROUNDS, FALSE_EXPLAINED, FALSE_EXPLAINED_ALPHA,
                     PARTING_ALPHA, parting_chance)

# the confidence of the bound on one session's false explanations that
# several sessions multiply (tests/host/test_kut_null.py holds it at that)
LOOKS_CONFIDENCE = 0.99
# the most sessions `kut --again` runs, the first and two more: a further
# one costs about ten minutes and resolves less each time (a third
# resolved 2 of p39's 4 rows, none of p40's; docs/measurements.md,
# "thirty-fourth session"); union_within_alpha must hold for it
MOST_LOOKS = 3


def one_session():
    """(one session's false-explanation bound, its parting chance): the
    rates k sessions multiply."""
    return (binomial_upper(*FALSE_EXPLAINED, confidence=LOOKS_CONFIDENCE),
            parting_chance(DEFAULT_ROUNDS, DEFAULT_ROUNDS))


def union_within_alpha(k):
    """Whether k sessions of `kut --again` (each on the rows the ones
    before left not resolved, DEFAULT_ROUNDS rounds), any one's verdict
    taken, stay under the alphas by a union bound: k times one session's
    false explanations (FALSE_EXPLAINED's upper bound) under
    FALSE_EXPLAINED_ALPHA, and k times the chance of two tools that agree
    parting under PARTING_ALPHA."""
    one, part = one_session()
    return k * one < FALSE_EXPLAINED_ALPHA and k * part <= PARTING_ALPHA
