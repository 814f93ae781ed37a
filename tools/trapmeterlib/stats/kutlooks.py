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


def false_bound():
    """One session's false explanations, FALSE_EXPLAINED's upper bound at
    LOOKS_CONFIDENCE: the rate k sessions multiply."""
    return binomial_upper(*FALSE_EXPLAINED, confidence=LOOKS_CONFIDENCE)


def session_parting(rounds):
    """How often one session of `rounds` rounds calls tools that agree
    unexplained: their parting chance, not monotone in the rounds (1.9 %
    at 30, 0.8 % at 5), or 0 where it is over PARTING_ALPHA (kutcmp then
    holds every such row not resolved)."""
    chance = parting_chance(rounds, rounds)
    return chance if chance <= PARTING_ALPHA else 0.0


def session_rounds(boots, again):
    """The rounds of kut's sessions: the first's --boots, each of --again's
    at least DEFAULT_ROUNDS."""
    return [boots] + [max(boots, DEFAULT_ROUNDS)] * again


def union_within_alpha(rounds):
    """Whether sessions of these rounds (session_rounds), each on the rows
    the ones before left not resolved, any one's verdict taken, stay under
    the alphas by a union bound: one session's false explanations
    (false_bound) times their number under FALSE_EXPLAINED_ALPHA, and
    the sum of their parting chances under PARTING_ALPHA."""
    return (len(rounds) * false_bound() < FALSE_EXPLAINED_ALPHA and
            sum(session_parting(r) for r in rounds) <= PARTING_ALPHA)
