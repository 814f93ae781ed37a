"""`trapmeter bisect`'s confirmation of its answer (issue 32 item 6).

The search names a first bad commit from verdicts each wrong with some
probability; a wrong "bad" at 2.6-5 % per good step named a wrong commit
5-10 % of the time over 16 commits.  So the answer is tested once more,
directly: an ab session of the named commit (B) against its parent (A) on
the flagged cases and metrics.  Where the search never saw a bad step
(every step good: the answer is the bad endpoint itself), the endpoints
are first run again, good against bad: a change the first endpoint
session flagged and the second does not is a phantom, and the answer is
not confirmed.  Each result re-tests a neighbour of the answer in the
search (stats/bisect.py Search.retest), so its contradictions can fire.

A commit that is not the step carries no shift against its parent, so it
passes the confirmation only by a false alarm: at most the confirmation's
alpha, the bound printed with the answer (with the search's own bound,
the sum of its decisions' levels, beside it)."""

from ..stats import bisect as search

# what a confirmation may spend: one step's share of what is left (the
# search reserves it)
RESERVED_STEPS = 1


def _session(work, run_session, name, a_bin, b_bin, focus):
    """One confirming session: what is left of --budget, and at least as
    long as the endpoint session took (a change decided once in that time
    is decided again in it), so that the search's last step does not
    leave its answer unconfirmed."""
    budget = work.budget_left()
    if budget is not None:
        budget = max(budget, work.sessions[0]["wall_s"]
                     if work.sessions else 0.0)
        if budget <= 0:
            return None
    return run_session(work.plan, name, a_bin, b_bin, budget, work.extra,
                       focus)


def endpoints_again(work, state, run_session):
    """(status, reason, session) of good against bad run again."""
    bad = state.commits[-1]
    bad_bin, why = work.build("step", bad, "confirm-bad")
    if bad_bin is None:
        return search.UNDECIDED, "the bad commit did not build again: %s" \
            % why, None
    # on the flagged rows at the steps' thresholds, like a step: decided
    # (a regression again, or unchanged within half the shift) in few
    # boots, where every row at --threshold would spend the budget
    sess = _session(work, run_session, "confirm-endpoints", work.good_bin,
                    bad_bin, work.focus)
    if sess is None:
        return search.UNDECIDED, "no budget left for the endpoints again", \
            None
    status, reason = search.endpoints_again(sess["rows"], work.flag)
    state.retest(len(state.commits) - 1,
                 search.BAD if status == search.CONFIRMED else search.GOOD)
    return status, reason, sess


def against_parent(work, state, run_session, first):
    """(status, reason, session) of the named commit against its parent."""
    index = state.commits.index(first)
    parent = state.commits[index - 1]
    if index - 1 == 0:
        parent_bin = work.good_bin
    else:
        parent_bin, why = work.build("good", parent, "confirm-parent")
        if parent_bin is None:
            return search.UNDECIDED, "the parent %s did not build: %s" % (
                parent[:12], why), None
    first_bin, why = work.build("step", first, "confirm-%s" % first[:12])
    if first_bin is None:
        return search.UNDECIDED, "%s did not build again: %s" % (
            first[:12], why), None
    sess = _session(work, run_session, "confirm-%s" % first[:12],
                    parent_bin, first_bin, work.focus)
    if sess is None:
        return search.UNDECIDED, "no budget left for the confirmation", None
    status, reason = search.confirm_verdict(sess["rows"], work.flag)
    if status == search.CONFIRMED:
        state.retest(index - 1, search.GOOD)
    elif status == search.FAILED:
        # as dear as its parent: the step is not here
        state.retest(index, search.GOOD)
    return status, reason, sess


def _keep(out, work, sess):
    out["sessions"].append(sess["name"])
    out["boots"] += sum(sess.get("boots") or ()) + \
        sess.get("planning_boots", 0)
    work.sessions.append(sess)


def confirm(work, state, steps, run_session):
    """The confirmation document of a search that named a first bad
    commit (None when it named none): status, reason, the sessions run,
    and the bounds on a wrong answer."""
    first = state.result()["first_bad"]
    if not first:
        return None
    out = {"commit": first, "sessions": [], "boots": 0}
    status = None
    if not any(s["verdict"] == search.BAD for s in steps):
        status, reason, sess = endpoints_again(work, state, run_session)
        out["endpoints_again"] = {"status": status, "reason": reason}
        if sess:
            _keep(out, work, sess)
    out["against_parent"] = status in (None, search.CONFIRMED)
    if out["against_parent"]:
        status, reason, sess = against_parent(work, state, run_session,
                                              first)
        if sess:
            _keep(out, work, sess)
    alpha = work.plan.alpha
    total = search.search_bound(steps, alpha, [alpha] * len(steps))
    out.update(status=status, reason=reason,
               parent=state.commits[state.commits.index(first) - 1],
               alpha=alpha, search_bound=total,
               wrong_answer_bound=search.wrong_answer_bound(total, alpha,
                                                            status),
               contradictions=state.contradictions())
    return out
