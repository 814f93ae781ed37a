"""Exit counts that are averages: compared like a timing metric.

Most cases' exits per op are exact (the same in every boot), and compare
judges them as counts (compare.exits_verdict: a move beyond 10 %, with
any number of boots).  A case whose guest marks its model
`"exits_model_exact": false` (suite dma's bus-master cases: the driver
polls the status port until the device is done, and how many polls that
takes depends on time) has a count that moves from boot to boot by
itself, so two identical setups differ by a few exits per op and the
count rule would call that an exit-path change.  Such a row is a timing
row instead: its log exits per boot go through the same family-wise
permutation test as cycles per op (max-T over every timing row of the
comparison together), with threshold EXITS_CHANGED (10 %, the count
rule's; --threshold exits_per_op=PCT sets it), and "unchanged" by the
same two one-sided tests (stats/equivalence.py).  The bound is that of
the timing rows: under A/A a false regression or improvement among all
of them at most alpha per comparison (ab: per session, the looks'
levels summing to alpha), a wrong "unchanged" at most alpha / 2.  It
needs MIN_SIDE boots a side that counted exits (ab: --count-boots 3 or
more); with fewer the row is inconclusive and says so, and ab does not
wait for it (its later boots do not count exits)."""

from . import bootstats

EXITS_CHANGED = 0.10


def is_average(*results):
    """True when any side's result marks its exit model as an average."""
    return any(isinstance(r, dict) and r.get("exits_model_exact") is False
               for r in results)


def threshold(thresholds):
    """The averaged count's t: --threshold exits_per_op=PCT, else 10 %."""
    return (thresholds or {}).get("exits_per_op", EXITS_CHANGED)


def too_few(row):
    """Why an averaged count has no verdict with these boots, or None."""
    if min(row.n_base, row.n_cand) >= bootstats.MIN_SIDE:
        return None
    return ("exits per op is an average here (the driver's status polls "
            "depend on time): a verdict needs %d boots a side that count "
            "exits, %d+%d did (ab --count-boots %d)"
            % (bootstats.MIN_SIDE, row.n_base, row.n_cand, bootstats.MIN_SIDE))


def fixed_boots(row):
    """Only some boots carry the figure (ab counts exits in its first
    --count-boots boots): more boots of the session will not add any."""
    base, cand = row.file_boots
    return row.n_base < base or row.n_cand < cand


def moved_note(row):
    """The note of an averaged count that moved, or None."""
    if row.verdict not in ("regression", "improvement"):
        return None
    return "average exits/op moved: %.2f -> %.2f (a count that depends on " \
           "time, tested over boots)" % (row.base, row.cand)
