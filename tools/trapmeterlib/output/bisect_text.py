"""What `trapmeter bisect` prints: the first bad commit (or the commits
it could not separate), the flagged shifts, every step, the totals;
every figure by the figure rule (values/figure.py)."""

from ..stats import bisect as search
from ..values import figure


def summary(doc):
    res = doc["result"]
    lines = []
    conf = doc.get("confirmation")
    if res["first_bad"]:
        lines.append("trapmeter bisect: first bad commit %s %s%s"
                     % (res["first_bad"][:12], res["subject"],
                        " -- the confirmation failed" if conf and
                        conf["status"] == search.FAILED else
                        " -- not confirmed" if conf and
                        conf["status"] != search.CONFIRMED else ""))
        lines += confirmation_lines(conf)
    else:
        lines.append("trapmeter bisect: not separated: the first bad commit "
                     "is one of %s" % ", ".join(
                         c[:12] for c in res["not_separated"]))
    lines += [shift_line("good vs bad", row) for row in doc["flagged"]]
    for step in doc["steps"]:
        if step["commit"] == res["first_bad"]:
            lines += [shift_line("good vs %s" % step["commit"][:12], row)
                      for row in step.get("rows") or ()]
    for step in doc["steps"]:
        lines.append("  step %s %-4s %3d boots %5.0f s  %s" % (
            step["commit"][:12], step["verdict"], step["boots"],
            step["wall_s"], step["reason"]))
    if res["contradictions"]:
        lines.append("  warning: verdicts that contradict the answer (a "
                     "step or a re-test good at or after it, bad before "
                     "it): %s"
                     % ", ".join(c[:12] for c in res["contradictions"]))
    if doc["budget_exhausted"]:
        lines.append("  the budget ran out with commits left untested")
    lines.append("  %d commits, %d steps, %d boots, %.0f s%s" % (
        len(doc["commits"]) - 1, len(doc["steps"]), doc["boots"],
        doc["wall_s"], "" if doc["budget_s"] is None
        else " (budget %.0f s)" % doc["budget_s"]))
    return "\n".join(lines) + "\n"


def shift_line(what, row):
    """One flagged row's shift, every figure by the figure rule."""
    return "  shift (%s, %s boots): %s/%s %s %s, ratio %s%s" % (
        what, "+".join(map(str, row.get("boots") or [])), row["suite"],
        row["case"], row["metric"], row["verdict"], ratio_text(row),
        "" if row.get("estimator") else undisturbed_text(row))


def _ratio_number(value):
    return "%.4f" % value


def ratio_text(row):
    """B's cost over A's as the verdict decided it (compare.decision: the
    test's shift, its interval at the test's level; a row stored before
    it: its 95 % interval), else not resolved with the reason (a ratio of
    costs is never at or below zero: figure.cost)."""
    why = "the session gave no ratio (%s)" % (
        "; ".join(row.get("notes") or ()) or "no note")
    level = row.get("interval_level") if row.get("estimator") else 0.95
    label = "interval at %.3g %%" % (100 * level) if level else "interval"
    ends = list((row.get("interval") if row.get("estimator")
                 else row.get("ci95")) or ())
    try:
        fig = figure.cost(row.get("ratio"), ends if len(ends) == 2 and
                          None not in ends else None, reason=why)
    except (TypeError, ValueError):     # an interval not [lo <= hi]
        fig = figure.cost(row.get("ratio"), reason=why)
    if not fig.resolved or fig.interval is None:
        return figure.text(fig, _ratio_number, short=False)
    return "%s [%s %s, %s]" % (
        figure.text(figure.measured(fig.value), _ratio_number), label,
        _ratio_number(fig.interval[0]), _ratio_number(fig.interval[1]))


def undisturbed_text(row):
    """", undisturbed boots x1.0523" of a timing row (exit counts have no
    undisturbed shift), by the figure rule."""
    if row["metric"] == "exits_per_op":
        return ""
    fig = figure.cost(row.get("slowdown_undisturbed"),
                      reason="no boots on a side")
    return ", undisturbed boots %s" % (
        "x" + figure.text(fig, _ratio_number) if fig.resolved
        else figure.text(fig, short=False))


def confirmation_lines(conf):
    """The summary's lines for a confirmation document."""
    if not conf:
        return []
    out = []
    again = conf.get("endpoints_again")
    if again:
        out.append("  endpoints again: %s (%s)" % (again["status"],
                                                  again["reason"]))
    word = {search.CONFIRMED: "confirmed",
            search.FAILED: "FAILED: the confirmation failed",
            search.UNDECIDED: "not confirmed"}[conf["status"]]
    if conf.get("against_parent", True):
        out.append("  confirmation (%s against its parent %s): %s (%s)" % (
            conf["commit"][:12], conf["parent"][:12], word, conf["reason"]))
    else:
        # the endpoints again did not reproduce the change: the parent
        # session was not run
        out.append("  confirmation (good against bad again; %s against its "
                   "parent not run): %s" % (conf["commit"][:12], word))
    if conf["status"] == search.CONFIRMED:
        out.append("  a wrong answer: at most %.1f %% (a commit without the "
                   "step passes its confirmation only by a false alarm, "
                   "alpha %g; the search's steps alone: at most %.1f %%, "
                   "the sum of their levels)" % (
                       100 * conf["wrong_answer_bound"], conf["alpha"],
                       100 * conf["search_bound"]))
    else:
        out.append("  a wrong answer: not bounded -- the answer is %s; the "
                   "search's steps alone would bound it at %.1f %% (the sum "
                   "of their levels)" % (
                       "contradicted by its confirmation" if conf["status"]
                       == search.FAILED else "not confirmed",
                       100 * conf["search_bound"]))
    return out
