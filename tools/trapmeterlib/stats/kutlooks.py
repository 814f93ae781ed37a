"""The sessions of `trapmeter kut --again`: how many it runs, which rows
each judges, and what taking the verdict of any of them costs.

A session of --again judges again, on rounds of their own, the rows the
one before left open (rows_again: not resolved or unexplained); the
verdict a row ends with is that of the last session that judged it.  Each
session may explain a row falsely (at the rate measured at its rounds'
spread, FALSE_BY_SPREAD: from 8 rounds the median's interval, narrower
than the range, lets more pairs within the rule's quarter of the gap) or
part tools that agree (kutcmp.parting_chance) at its own rounds, so over
k sessions a wrong verdict is at most as likely as their chances summed:
a union bound, which must stay under each alpha for the sessions kut runs
(tests/host/test_kut_null.py replays them)."""

from .abtest import binomial_upper
from .kutcmp import (DEFAULT_ROUNDS, FALSE_EXPLAINED_ALPHA, PARTING_ALPHA,
                     parting_chance, rounds_to_explain)
from .kutrounds import depth

# the confidence of the bound on one session's false explanations that
# several sessions multiply (tests/host/test_kut_null.py holds it at that)
LOOKS_CONFIDENCE = 0.99
# the most sessions `kut --again` runs, the first and two more: a further
# one costs about ten minutes and resolves less each time (a third
# resolved 2 of p39's 4 rows, none of p40's; docs/measurements.md,
# "thirty-fourth session"); union_within_alpha must hold for it
MOST_LOOKS = 3
# --again's first session's rounds, the fewest whose spread is the median's
# interval, which drops each end's farthest round: one lifted round, the
# most that leaves a row open after a session of 5 (p39, p40), no longer
# reaches the bound; it resolved 16 of p41's 17 open rows where sessions
# of 5 resolved 11 of p39's 15 and p40's (docs/measurements.md,
# "thirty-fifth session").  Its false explanations are the median's
# interval's, so the sessions after it keep DEFAULT_ROUNDS (union_false)
AGAIN_ROUNDS = next(n for n in range(2, 31) if depth(n) > 1)
# the verdicts a further session judges again (rows_again)
AGAIN_VERDICTS = ("not resolved", "unexplained")
# kutcmp.FALSE_EXPLAINED by the spread of the session's rounds
# (tests/host/kut_null.py's DBINS, its sessions and their blocks of 5
# rounds; tests/host/test_kut_null.py recounts both)
FALSE_BY_SPREAD = {"range": (510, 62270), "median's interval": (369, 16783)}


def spread_class(rounds):
    """The spread a session of `rounds` rounds judges by (kutrounds.depth):
    "range", or from 8 rounds "median's interval"."""
    return "median's interval" if depth(rounds) > 1 else "range"


def rows_again(diffs):
    """The names of the rows a further session judges, of those both tools
    measured: those not resolved (rounds of their own may resolve them),
    and those unexplained, an alarm raised only where the next session,
    if kut runs one, parts the tools again (one session's rounds lifted
    alike, as p41's vmexit tscdeadline all five, part tools that agree
    more often than parting_chance's exchangeable rounds)."""
    return [r["kut_name"] for r in diffs if r["verdict"] in AGAIN_VERDICTS
            and r["vmexit"] is not None and r["gross"] is not None]


def false_bound(rounds):
    """One session's false explanations at its rounds' spread: that
    class's count in FALSE_BY_SPREAD, its upper bound at
    LOOKS_CONFIDENCE; none under rounds_to_explain (no try explains)."""
    if rounds < rounds_to_explain():
        return 0.0
    return binomial_upper(*FALSE_BY_SPREAD[spread_class(rounds)],
                          confidence=LOOKS_CONFIDENCE)


def session_parting(rounds):
    """How often one session of `rounds` rounds calls tools that agree
    unexplained: their parting chance, not monotone in the rounds (1.9 %
    at 30, 0.8 % at 5), or 0 where it is over PARTING_ALPHA (kutcmp then
    holds every such row not resolved)."""
    chance = parting_chance(rounds, rounds)
    return chance if chance <= PARTING_ALPHA else 0.0


def session_rounds(boots, again):
    """The rounds of kut's sessions: the first's --boots, --again's first
    at least AGAIN_ROUNDS, each after it at least DEFAULT_ROUNDS."""
    return ([boots] + [max(boots, AGAIN_ROUNDS)] +
            [max(boots, DEFAULT_ROUNDS)] * (again - 1))[:again + 1]


def union_false(rounds):
    """Sessions of these rounds, any one's verdict taken: how often one
    explains falsely at most, the sum of their false_bound."""
    return sum(false_bound(r) for r in rounds)


def union_parting(rounds):
    """The same of tools that agree called unexplained: the sum of their
    session_parting."""
    return sum(session_parting(r) for r in rounds)


def union_within_alpha(rounds):
    """Whether sessions of these rounds (session_rounds), each on the rows
    the ones before left not resolved, any one's verdict taken, stay under
    the alphas by a union bound: union_false under FALSE_EXPLAINED_ALPHA,
    union_parting under PARTING_ALPHA."""
    return (union_false(rounds) < FALSE_EXPLAINED_ALPHA and
            union_parting(rounds) <= PARTING_ALPHA)
