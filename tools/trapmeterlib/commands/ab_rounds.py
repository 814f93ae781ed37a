"""An ab session's loop: rounds of one boot a side (A B, then B A, ...)
until every selected metric is decided, --max-boots or --budget ends it,
with its looks (stats/abtest.py) spread over the boots the budget
reaches and, with --resolution, ended where the forecast says the
selected metrics resolve; all of it under the host's KVM lock."""

import contextlib

from ..stats import abtest, compare, forecast
from ..system import kvmlock, privdir
from . import ab_report, ab_session
from .common import say

def out_of_time(session, look_next=False):
    """No time for another round: its two boots (the mean boot so far),
    and the comparison a look then runs (as long as the last look's:
    on the default case list a look takes seconds), would end after
    --budget."""
    if session.cfg.budget is None or not session.walls:
        return False
    pair = 2.0 * sum(session.walls) / len(session.walls)
    if look_next:
        pair += session.look_s
    return session.elapsed() + pair > session.cfg.budget


def next_is_look(session):
    n = min(session.boots("a"), session.boots("b")) + 1
    return session.seq.is_look(n)


def make_forecast(session):
    """The session's forecast (stats/forecast.py) from its boots so far,
    both sides pooled, at the level of a last look that follows all the
    others."""
    cfg = session.cfg
    logs = forecast.timing_logs([session.docs["a"], session.docs["b"]],
                                cfg.stat)
    level = cfg.alpha * abtest.spending(cfg.looks)[-1]
    session.forecast = forecast.Forecast(logs, level, cfg.seed,
                                         n_end=session.seq.schedule[-1])


def forecast_keys(session):
    return forecast.selected(session.forecast, session.cfg.metrics)


def resolution_end(session):
    """Boots per side at which the forecast reaches --resolution on every
    selected timing metric, or None (no --resolution, no forecast yet)."""
    cfg, fc = session.cfg, getattr(session, "forecast", None)
    if fc is None or cfg.resolution is None:
        return None
    need = [fc.boots_for(k, cfg.resolution, cfg.max_boots // 2)
            for k in forecast_keys(session)]
    need = [n for n in need if n is not None]
    return max(need) if need else None


def say_forecast(session, n):
    """The forecast's lines, once, when the first rounds are done."""
    cfg = session.cfg
    threshold = min([cfg.thresholds.get(m, cfg.thresholds.get(
        "*", compare.DEFAULT_THRESHOLD)) for m in cfg.metrics])
    session.forecast_lines = forecast.lines(
        session.forecast, forecast_keys(session), n,
        session.seq.schedule[-1], threshold, cfg.resolution,
        cfg.max_boots // 2)
    for line in session.forecast_lines:
        say(line)


def fit_looks_to_budget(session, done):
    """After every round: the looks not yet taken spread over the boots
    --budget can still reach at the running wall time of a round (and the
    looks' own time), the last at the end (abtest.replan), so that no boot
    the session runs goes without a look.  Said when the end moves."""
    args = session.cfg
    end = resolution_end(session)
    if (args.budget is None and end is None) or not session.walls:
        return
    pair = 2.0 * sum(session.walls) / len(session.walls)
    seq = session.seq
    left_s = None if args.budget is None else args.budget \
        - session.elapsed() - session.look_s * max(0, seq.looks - seq.taken)
    reach = abtest.boots_within_budget(args.max_boots, done, left_s,
                                       pair) // 2
    if end is not None:
        reach = min(reach, end)
    seq.schedule = abtest.replan(sorted(seq.look_seconds), done, reach,
                                 args.looks, args.alpha)
    said = getattr(session, "said_end", None)
    end = seq.schedule[-1]
    if said is None or abs(end - said) >= max(2, said // 10):
        session.said_end = end
        say("%s: looks at %s boots per side%s" % (
            "budget: about %d boots per side fit in %.0f s" % (
                end, args.budget) if args.budget else "--resolution",
            "/".join(map(str, seq.schedule)), "" if said is None else
            " (re-planned from the running wall time)"))


def flagged_now(session):
    """With stop_at_regression: the selected metrics frozen regression so
    far (empty otherwise)."""
    if not getattr(session.cfg, "stop_at_regression", False):
        return []
    return [k for k, (v, _n) in session.seq.frozen.items()
            if v == "regression" and k[1] in session.seq.metrics]


def one_round(session, r):
    """Round r: its two boots, then the forecast after the first rounds
    and the looks re-planned (fit_looks_to_budget)."""
    for name in abtest.order(r):
        session.run_boot(name, session.boots(name) + 1)
    n = min(session.boots("a"), session.boots("b"))
    first = n == forecast.FIRST_ROUNDS and \
        isinstance(session, ab_session.Session)
    if first:
        make_forecast(session)
    fit_looks_to_budget(session, n)
    if first:
        say_forecast(session, n)
    return n


def look(session, n, last):
    """The look at n boots a side: (rows, warnings, undecided keys).
    `last`: no round follows (budget, --max-boots), so this look may
    spend all alpha not yet spent."""
    level = session.seq.next_level(n, final=last)
    begin = session.elapsed()
    rows, warnings = session.compare(level)
    session.look_s = session.elapsed() - begin
    undecided = session.seq.look(rows, n, round(session.elapsed(), 1), level)
    if isinstance(session, ab_session.Session) and session.forecast \
            and session.cfg.resolution is not None:
        make_forecast(session)      # more boots: a closer end
    return rows, warnings, undecided


def why_stop(session, undecided):
    """After a look: why the session stops here (said), or None."""
    if not undecided:
        return "every selected metric is decided"
    if flagged_now(session):
        return ("a selected metric is a regression: the session stops "
                "(the others need not be decided)")
    return None


def rounds_until_decided(session):
    """Rounds until decided or out of boots/time; returns the final rows
    and warnings."""
    rows = warnings = None
    n_rounds = session.cfg.max_boots // 2
    session.make_plan()
    for r in range(n_rounds):
        if r and out_of_time(session, next_is_look(session)):
            say("budget: no time for another round")
            break
        n = one_round(session, r)
        looked = session.seq.is_look(n)
        undecided = None
        if looked:
            rows, warnings, undecided = look(
                session, n, r + 1 >= n_rounds or out_of_time(
                    session, next_is_look(session)))
        ab_report.progress(session, r, undecided or [], looked)
        stop = why_stop(session, undecided) if looked else None
        if stop:
            say(stop)
            return session.seq.final_rows(rows), warnings
        if looked and session.seq.spent >= session.cfg.alpha * (1 - 1e-9):
            # all of alpha is spent: a boot after this look could never
            # be compared, so the session ends here
            say("last look taken: the session ends at %d boots per side"
                % n)
            break
    n = min(session.boots("a"), session.boots("b"))
    if session.seq.needs_last_look(n):
        # stopped between looks: the boots so far get one last look, at
        # all the alpha not yet spent
        level = session.seq.next_level(n, final=True)
        rows, warnings = session.compare(level)
        session.seq.look(rows, n, round(session.elapsed(), 1), level)
    return session.seq.final_rows(session.seq.last_rows), warnings


def run_session(cfg, after_boot=None):
    """One ab session of `cfg` (a checked SessionConfig), the kernel built
    already: the boots, the table and outputs; compare's exit status.
    after_boot(side, doc), when given, sees each boot's results first."""
    with kvm_lock(cfg.plans):
        session = ab_session.Session(cfg, after_boot)
        try:
            with session.status:
                rows, warnings = rounds_until_decided(session)
            return ab_report.finish(session, rows, warnings)
        except KeyboardInterrupt:
            session.status.close()
            for line in session.partial_lines():
                say("interrupted: " + line)
            raise
        finally:
            session.status.close()
            privdir.remove(session.tmp)


@contextlib.contextmanager
def kvm_lock(plans):
    """Each boot's runner would take the host's KVM lock for that boot
    only: the session takes it for all of them, so no other measurement
    runs between two of its boots (a runner finds it held by this process
    and keeps it).  Not when every side's plan runs TCG, or one says
    --no-lock; a side's --lock-timeout (the last side's given) bounds
    the wait."""
    plans = list(plans.values())
    if any(one.no_lock for one in plans) or all(
            one.accel == "tcg" for one in plans):
        yield
        return
    given = [one.lock_timeout for one in plans
             if one.lock_timeout != kvmlock.DEFAULT_TIMEOUT_S]
    timeout = given[-1] if given else kvmlock.DEFAULT_TIMEOUT_S
    with kvmlock.held("trapmeter ab (or bisect, sensitivity)", timeout, say):
        yield                   # kvmlock.LockTimeout: status 17
