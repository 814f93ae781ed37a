"""A verdict withheld because the two files were not measured alike: the
field that differs, why, the cases it touches, and whether the exit
counts' verdicts go with the timing ones (stats/comparable.py and
stats/opsize.py raise them; stats/compare.py applies them to rows).

Pure."""


class Refusal:
    """A timing verdict withheld: `field` differs, `reason` says how;
    `cases` is the set of (suite, case) it touches, None for every one;
    `counts` True when the exit counts' verdicts are withheld too."""

    def __init__(self, field, reason, cases=None, counts=False):
        self.field, self.reason = field, reason
        self.cases = None if cases is None else frozenset(cases)
        self.counts = counts

    def touches(self, key):
        return self.cases is None or key in self.cases

    def __repr__(self):
        return "Refusal(%r, %r)" % (self.field, self.reason)


def refusals_for(refusals, key, timing=True):
    """The reasons that withhold the verdict of case `key`: of a timing
    row, every refusal touching it; of a count row, those of `counts`."""
    return [r.reason for r in refusals
            if r.touches(key) and (timing or r.counts)]


def short(reason):
    """A reason without its figures, for a row's note ("samples per case
    differ"); the warning line carries the rest."""
    return reason.split(" (")[0].split(":")[0]
