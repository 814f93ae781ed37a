"""Cases whose op moved different amounts in different boots.

Suite ide sizes its long transfers by the case budget and by what its
one-sector twin just cost (kernel/suites/ide.c, ide_size_kind), so a
slower boot -- a busier host, a slower build -- can move half as much per
op.  Per op that is another measurement, its time and its exits alike:
`compare` withholds both verdicts of such a case, by name.

Pure: the cases of two results documents in, refusals out."""

from .refusal import Refusal


def sizes(results):
    """The bytes one op moved, over a case's results (empty when unsaid)."""
    return {r["bytes"] for r in results if type(r.get("bytes")) is int}


def _text(values):
    if not values:
        return "unsaid"
    lo, hi = min(values), max(values)
    return "%d" % lo if lo == hi else "%d-%d" % (lo, hi)


def refusals(cb, cc):
    """One Refusal for the cases of {(suite, case): [results]} `cb` and
    `cc` whose op sizes are not one value over the boots of both."""
    touched, seen = [], (set(), set())
    for key in sorted(set(cb) & set(cc)):
        sb, sc = sizes(cb[key]), sizes(cc[key])
        if len(sb | sc) > 1:
            touched.append(key)
            seen[0].update(sb)
            seen[1].update(sc)
    if not touched:
        return []
    return [Refusal("size", "bytes per op differ between boots (base %s, "
                    "candidate %s): an op of another size is another "
                    "measurement, its time and its exits alike"
                    % (_text(seen[0]), _text(seen[1])), touched, counts=True)]
