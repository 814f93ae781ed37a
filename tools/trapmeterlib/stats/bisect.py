"""The search of `trapmeter bisect`, over verdicts of steps: no builds, no
boots, no git (commands/bisect.py supplies those).

The commits are the first-parent line from the good commit (index 0,
known good) to the bad one (last index, known bad).  A step's verdict is
good (the change is absent), bad (present) or skip (build failed, or its
sequential A/B against the good build stayed undecided within its share
of the budget).  The search tests the untested commit nearest the middle
of the range between the last good and the first bad commit; skipped
commits stay in the range and end as "could not be separated".

The endpoint session (good against bad) decides what the steps judge:
the (case, metric) rows it flagged as regressions.  It refuses to bisect
when nothing is flagged, and when the good build is judged the worse one
(every flagged row an improvement of bad over good)."""

import math

from ..values import exitstatus
from ..values.errors import TrapmeterError

GOOD, BAD, SKIP = "good", "bad", "skip"
# the confirmation of an answer (an ab of it against its parent)
CONFIRMED, FAILED, UNDECIDED = "confirmed", "failed", "undecided"
# the smallest step threshold, as a fraction (compare's default t)
MIN_STEP_THRESHOLD = 0.005


class Refused(TrapmeterError):
    """The endpoints give the search nothing to find; `reason` names why."""

    code = exitstatus.BISECT_REFUSED

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason
        self.message = message


# ---------------------------------------------------------------- endpoints

def flagged(rows, metrics=None):
    """The endpoint session's verdict rows (dicts, compare's as_dict) that
    the steps will judge: {(suite, case, metric): row} of the regressions
    of bad against good.  Refused: nothing flagged, or good judged worse."""
    picked = [r for r in rows if metrics is None or r["metric"] in metrics]
    regress = {_key(r): r for r in picked if r["verdict"] == "regression"}
    better = [r for r in picked if r["verdict"] == "improvement"]
    if regress:
        return regress
    if better:
        raise Refused("good-judged-worse", "the good endpoint is judged the "
                      "worse one: bad improves on good in %s (is --good "
                      "really good? swap --good and --bad to find the "
                      "commit that improved it)" % _names(better))
    raise Refused("nothing-flagged", "good against bad flags no regression "
                  "(%s): nothing to bisect" % _verdict_counts(picked))


def _key(row):
    return (row["suite"], row["case"], row["metric"])


def _names(rows, most=4):
    names = ["%s/%s %s" % _key(r) for r in rows]
    return ", ".join(names[:most]) + (" ..." if len(names) > most else "")


def _verdict_counts(rows):
    counts = {}
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    return ", ".join("%d %s" % (n, v) for v, n in sorted(counts.items())) \
        or "no rows"


def shift_of(row):
    """The change a flagged row carries, as a cost factor (bad / good of
    the undisturbed boots, else the ratio), or None."""
    value = row.get("slowdown_undisturbed")
    if value is None:
        value = row.get("ratio")
        if value is not None and not row.get("lower_is_better", True):
            value = 1.0 / value if value else None
    return value


def step_thresholds(flag):
    """{metric: threshold}: half the smallest flagged shift of the metric
    (on the log scale), at least MIN_STEP_THRESHOLD.  A step then tells
    "carries the shift" (regression) from "does not" (unchanged: its
    interval within half the shift) in the fewest boots."""
    out = {}
    for (_, _, metric), row in flag.items():
        factor = shift_of(row)
        if factor is None or factor <= 1.0:
            continue
        half = math.exp(math.log(factor) / 2.0) - 1.0
        out[metric] = max(MIN_STEP_THRESHOLD, min(out.get(metric, half),
                                                  half))
    return out


def step_verdict(rows, flag):
    """(verdict, reason) of one step from its session's rows (dicts), A =
    the good build, B = the step: bad when a flagged row is a regression,
    good when every flagged row is unchanged, else skip."""
    seen = {_key(r): r["verdict"] for r in rows if _key(r) in flag}
    if not seen:
        return SKIP, "the step measured none of the flagged rows"
    bad = sorted(k for k, v in seen.items() if v == "regression")
    if bad:
        return BAD, "regression in %s/%s %s" % bad[0]
    if len(seen) == len(flag) and all(v == "unchanged"
                                      for v in seen.values()):
        return GOOD, "every flagged row unchanged"
    open_ = sorted(k for k, v in seen.items() if v != "unchanged")
    return SKIP, "undecided: %s" % ", ".join(
        "%s/%s %s %s" % (k + (seen[k],)) for k in open_[:3])


# ---------------------------------------------------------------- search

class Search:
    """Bisection state over `commits` (oldest first; [0] good, [-1] bad)."""

    def __init__(self, commits):
        if len(commits) < 2:
            raise ValueError("a search needs the good and the bad commit")
        self.commits = list(commits)
        self.verdicts = {0: GOOD, len(commits) - 1: BAD}
        self.order = []             # step indices in the order judged
        self.retests = {}           # index -> verdict of a re-test

    def bounds(self):
        """(last good index below the first bad, first bad index)."""
        hi = min(i for i, v in self.verdicts.items() if v == BAD)
        lo = max(i for i, v in self.verdicts.items() if v == GOOD and i < hi)
        return lo, hi

    def untested(self):
        lo, hi = self.bounds()
        return [i for i in range(lo + 1, hi) if i not in self.verdicts]

    def next(self):
        """The index to judge next, or None when the range is done: the
        untested commit nearest the middle (the earlier on a tie)."""
        lo, hi = self.bounds()
        left = self.untested()
        if not left:
            return None
        middle = (lo + hi) / 2.0
        return min(left, key=lambda i: (abs(i - middle), i))

    def record(self, index, verdict):
        if verdict not in (GOOD, BAD, SKIP):
            raise ValueError("verdict %r" % verdict)
        self.verdicts[index] = verdict
        self.order.append(index)

    def steps_left(self):
        """About how many steps the range still needs (log2 of its
        untested commits, at least 1 while any is left)."""
        n = len(self.untested())
        return int(math.ceil(math.log(n + 1, 2))) if n else 0

    def retest(self, index, verdict):
        """A verdict on `index` from a session after the search (the
        confirmation re-tests the neighbours of the answer)."""
        if verdict not in (GOOD, BAD, SKIP):
            raise ValueError("verdict %r" % verdict)
        self.retests[index] = verdict

    def contradictions(self):
        """Commits whose verdict -- of a step or of a re-test after the
        search -- disagrees with the answer: good at or after the first
        bad commit, or bad before it (the change is not a single step, or
        a verdict was wrong).  The search alone tests only inside (last
        good, first bad), so only a re-test of the answer's neighbours can
        make this fire."""
        _, hi = self.bounds()
        out = []
        for i in sorted(set(self.verdicts) | set(self.retests)):
            for v in (self.verdicts.get(i), self.retests.get(i)):
                if (v == GOOD and i >= hi) or (v == BAD and i < hi):
                    out.append(self.commits[i])
                    break
        return out

    def result(self):
        """{"first_bad", "not_separated", "last_good", "contradictions"}:
        first_bad is None when skipped commits lie between the last good
        and the first bad commit; not_separated then lists them with the
        first bad (one of them carries the change)."""
        lo, hi = self.bounds()
        between = [self.commits[i] for i in range(lo + 1, hi)]
        return {"first_bad": None if between else self.commits[hi],
                "not_separated": between + [self.commits[hi]]
                if between else [],
                "last_good": self.commits[lo],
                "first_bad_candidate": self.commits[hi],
                "contradictions": self.contradictions()}


def share(budget_left, search, reserve=0):
    """Seconds a step may spend: what is left over the steps still
    needed (and `reserve` sessions after them: the confirmation); None
    without a budget."""
    if budget_left is None:
        return None
    return max(0.0, budget_left) / max(1, search.steps_left() + reserve)


def run(search, judge, budget_left=lambda: None, reserve=0):
    """Judge steps until the range is done or the budget is spent;
    `judge(commit, share)` returns (verdict, detail dict).  Returns the
    steps [{"commit", "verdict", ...detail}] in the order judged."""
    steps = []
    while True:
        index = search.next()
        if index is None:
            break
        left = budget_left()
        if left is not None and left <= 0:
            break
        verdict, detail = judge(search.commits[index],
                                share(left, search, reserve))
        search.record(index, verdict)
        steps.append(dict(detail, commit=search.commits[index],
                          verdict=verdict))
    return steps


# ---------------------------------------------------------------- confirmation

def confirm_verdict(rows, flag):
    """(status, reason) of the confirmation session: B the named first bad
    commit, A its parent, on the flagged rows.  confirmed when a flagged
    row is a regression; failed when every flagged row it measured is
    unchanged (the commit does not carry the change against its parent);
    else undecided."""
    seen = {_key(r): r["verdict"] for r in rows if _key(r) in flag}
    if not seen:
        return UNDECIDED, "the confirmation measured none of the flagged rows"
    bad = sorted(k for k, v in seen.items() if v == "regression")
    if bad:
        return CONFIRMED, "regression against its parent in %s/%s %s" % bad[0]
    if all(v == "unchanged" for v in seen.values()):
        return FAILED, "every flagged row unchanged against its parent"
    return UNDECIDED, "undecided against its parent: %s" % ", ".join(
        "%s/%s %s %s" % (k + (seen[k],)) for k in sorted(seen)[:3])


def endpoints_again(rows, flag):
    """(status, reason) of the endpoints re-run (good against bad again,
    where the search never saw a bad step): confirmed when a flagged row is
    a regression again, failed otherwise (a change the first endpoint
    session saw and the second does not: a phantom, or gone)."""
    again = {_key(r): r["verdict"] for r in rows if _key(r) in flag}
    bad = sorted(k for k, v in again.items() if v == "regression")
    if bad:
        return CONFIRMED, "good against bad again: regression in %s/%s %s" \
            % bad[0]
    return FAILED, "good against bad again flags none of the rows the " \
        "first endpoint session flagged (%s)" % (", ".join(
            "%s/%s %s %s" % (k + (again[k],)) for k in sorted(again)[:3])
            or "not measured")


def search_bound(steps, alpha_endpoints, alphas):
    """An upper bound on a wrong answer from the search's own decisions
    (Bonferroni): the endpoint session's false alarm (its alpha), each
    step judged bad a false alarm at its alpha, each judged good a wrong
    "unchanged" at half its alpha (two one-sided tests).  `alphas`: each
    step's alpha, in the order of `steps`.  At most 1."""
    total = alpha_endpoints
    for step, alpha in zip(steps, alphas):
        if step["verdict"] == BAD:
            total += alpha
        elif step["verdict"] == GOOD:
            total += alpha / 2.0
    return min(1.0, total)


def wrong_answer_bound(search_total, confirm_alpha, status):
    """The bound printed with a first bad commit: a commit that is not the
    step has no shift against its parent, so it passes its confirmation
    only by a false alarm, at most the confirmation's alpha; without a
    confirmation, the search's bound."""
    if status == CONFIRMED:
        return min(search_total, confirm_alpha)
    return search_total
