#!/usr/bin/env python3
"""tests/host/kut_rounds.py - whether a kut session's rounds are
exchangeable, the assumption behind `trapmeter kut`'s chance of parting
(tools/trapmeterlib/stats/kutcmp.py `parting_chance`: n rounds of one tool
and m of another lie wholly apart 2 / C(n+m, n) of the time when the tools
agree, while both spreads are ranges; from 8 rounds a spread is the
median's interval, stats/kutrounds.py, and the orders are counted).

A tool split against itself is a pair that agrees: for each recorded
session, each tool (vmexit; trapmeter's gross) and each row (the vmexit
name's difference to the reference, round by round), the rounds are cut
in time order into the first k and the rest, for every k, and the two
parts are asked whether they part (their ranges do not meet), as kutcmp
asks the two tools.  Drift within a session (a host that slows over
minutes) parts them more often than the chance; exchangeable rounds
part them as often.  Printed per cut: parted/asked, the rate, and the
chance (the mean of parting_chance over the cuts), with the rate's exact
one-sided binomial bounds (rows of one round share its host's state: the
bound is the binomial one, not a clustered one).

    python3 tests/host/kut_rounds.py FILE...
    python3 tests/host/kut_rounds.py --simulate 40000

--between also asks each tool's row in one session against the same row
in another (every pair of sessions): sessions are not interleaved, so
this measures how far a host's sessions differ, against the same chance.

--simulate N draws N sessions a setting of a model: each round a level
N(0, s) both tools share, each tool's own noise N(0, 1), for s 0 (the
exchangeable case: the chance exactly), 0.5, 1 and 3, at 3, 4, 5, 8 and
16 rounds, and prints how often the tools part.

A FILE is a kut results file or a file reduced by kut_null.py --reduce
(tests/fixtures/kut-null-sessions.json.gz holds 3-round sessions)."""

import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kut_null  # noqa: E402
from trapmeterlib.stats import kutcmp, kutrounds  # noqa: E402
from trapmeterlib.stats.abtest import (binomial_lower,  # noqa: E402
                                       binomial_upper)

TOOLS = (("vmexit", kutrounds.pick_vm),
         ("trapmeter", kutrounds.pick_tm("gross")))


def row_rounds(boots, name, pick):
    """The row's differences in round order, or None where a round has
    none (a cut must keep time order)."""
    out = kutrounds.diffs(boots, name, kutcmp.REFERENCE, pick)
    return out if len(out) == len(boots) else None


def cuts(values):
    """[(k, parted)] for every cut of values into the first k and the
    rest."""
    out = []
    for k in range(1, len(values)):
        a = kutrounds.spread(values[:k])
        b = kutrounds.spread(values[k:])
        out.append((k, not kutrounds.overlap(a, b)))
    return out


def tally(sessions):
    """{(tool, n, k): [parted, asked]} over every session and row."""
    out = {}
    for sess in sessions:
        boots = sess["boots"]
        names = [n for n in kut_null.kut_boots.shown_names(boots, [])
                 if n != kutcmp.REFERENCE]
        for tool, pick in TOOLS:
            for name in names:
                values = row_rounds(boots, name, pick)
                if values is None or len(values) < 2:
                    continue
                for k, parted in cuts(values):
                    cell = out.setdefault((tool, len(values), k), [0, 0])
                    cell[0] += parted
                    cell[1] += 1
    return out


def between(sessions):
    """{(tool, n, m): [parted, asked]}: each row of one session against
    the same row of another, every pair of sessions."""
    out = {}
    rows = [{(tool, name): row_rounds(sess["boots"], name, pick)
             for tool, pick in TOOLS
             for name in kut_null.kut_boots.shown_names(sess["boots"], [])
             if name != kutcmp.REFERENCE} for sess in sessions]
    for i, first in enumerate(rows):
        for second in rows[i + 1:]:
            for key in sorted(set(first) & set(second)):
                a, b = first[key], second[key]
                if not a or not b or len(a) < 2 or len(b) < 2:
                    continue
                cell = out.setdefault((key[0], len(a), len(b)), [0, 0])
                cell[0] += not kutrounds.overlap(kutrounds.spread(a),
                                                 kutrounds.spread(b))
                cell[1] += 1
    return out


def between_lines(cells, confidence):
    """One line a tool and pair of round counts."""
    return ["%-9s %d against %d rounds, another session: %4d/%4d %5.1f %% "
            "(%4.1f-%4.1f %%), chance %5.1f %%" % (
                tool, n, m, parted, asked, 100.0 * parted / asked,
                100 * binomial_lower(parted, asked, confidence),
                100 * binomial_upper(parted, asked, confidence),
                100 * kutcmp.parting_chance(n, m))
            for (tool, n, m), (parted, asked) in sorted(cells.items())]


def lines(cells, confidence):
    """One line a cut: tool, rounds, k, parted/asked, rate (bounds),
    chance."""
    out = []
    for (tool, n, k), (parted, asked) in sorted(cells.items()):
        out.append("%-9s %d rounds, first %d against %d: %4d/%4d %5.1f %% "
                   "(%4.1f-%4.1f %%), chance %5.1f %%" % (
                       tool, n, k, n - k, parted, asked,
                       100.0 * parted / asked,
                       100 * binomial_lower(parted, asked, confidence),
                       100 * binomial_upper(parted, asked, confidence),
                       100 * kutcmp.parting_chance(k, n - k)))
    return out


def simulate(sessions, levels=(0.0, 0.5, 1.0, 3.0), rounds=(3, 4, 5, 8, 16),
             seed=1):
    """[(s, n, parted share)]: tools that agree, a round's level N(0, s)
    shared by both, each tool's own noise N(0, 1)."""
    rng = random.Random(seed)
    out = []
    for level in levels:
        for n in rounds:
            parted = 0
            for _ in range(sessions):
                shared = [rng.gauss(0, level) for _ in range(n)]
                a = kutrounds.spread([x + rng.gauss(0, 1) for x in shared])
                b = kutrounds.spread([x + rng.gauss(0, 1) for x in shared])
                parted += not kutrounds.overlap(a, b)
            out.append((level, n, parted / sessions))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--simulate", type=int, metavar="N")
    ap.add_argument("--between", action="store_true")
    args = ap.parse_args()
    if args.simulate:
        for level, n, share in simulate(args.simulate):
            print("shared level sd %.1f, %d rounds: parted %.2f %% "
                  "(chance if exchangeable %.2f %%)" % (
                      level, n, 100 * share,
                      100 * kutcmp.parting_chance(n, n)))
        return 0
    if not args.files:
        ap.error("give kut results files, or --simulate N")
    sessions = kut_null.load(args.files)
    print("each tool against itself, its rounds cut in time order "
          "(parted/asked, rate, one-sided %g %% binomial bounds)" % (
              100 * args.confidence))
    print("\n".join(lines(tally(sessions), args.confidence)))
    if args.between:
        print("\n".join(between_lines(between(sessions), args.confidence)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
