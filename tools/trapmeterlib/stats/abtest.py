"""Interleaved A/B with early stopping (`trapmeter ab`), the pure part.

Boots alternate A B B A A B ... (each round a pair, the order swapped
every round, so a slow drift of the host lands on both sides alike).  The
sequential method: a capped number K of looks (default 4) at fixed boot
counts, with alpha spent over them by a doubling rule: look k (from 0)
tests at alpha * 2^k / (2^K - 1) -- for K = 4, 1/15, 2/15, 4/15 and 8/15
of alpha -- and the last look (the last scheduled point, or the one taken
when --max-boots / --budget ends the session between points) at whatever
alpha is left.  Each look's test is compare's family-wise permutation test
at its level, so by Bonferroni over looks any metric flagged at any look
is a false alarm under A/A with probability at most the sum of the levels,
alpha, whatever the looks see and however early the session stops.  The
doubling keeps most of alpha for the last look, where a 1-2 % change is
decided; a large change is still decided at the first look.  "Unchanged"
is decided at each look at that look's level too (two one-sided tests at
its alpha / 2, stats/equivalence.py), so a wrong "unchanged" is bounded
by alpha / 2 over the session.  A metric's verdict is final at the look
that decides it (regression, improvement or unchanged); the session
stops when every selected metric is decided, or at --max-boots /
--budget.  With --budget, the K look points are set after
the first round from its wall time (boots_within_budget), so they spread
over the boots the budget can reach.  `session_verdicts` and `simulate`
run this rule on sessions drawn from a pool of boots, `replay` on a
recorded session."""

import math
import random

from . import avgcount, bootstats, compare

DEFAULT_LOOKS = 4
DEFAULT_MAX_BOOTS = 28
# With --budget and no --max-boots the budget alone bounds the session
# (a boot of a short case list takes 1.5-3.5 s here: 28 boots would end a
# 300 s session after a fraction of it)
BUDGET_MAX_BOOTS = 1000
DECIDED = ("regression", "improvement", "unchanged")


def max_boots(given, budget):
    """--max-boots as given, else DEFAULT_MAX_BOOTS, or BUDGET_MAX_BOOTS
    when --budget sets the session's length."""
    if given is not None:
        return given
    return DEFAULT_MAX_BOOTS if budget is None else BUDGET_MAX_BOOTS


def counts_exits(number, count_boots):
    """Does boot `number` (from 1) of a side count exits, when a side
    counts them in `count_boots` boots?  Boots 1, 2, 4, 8, ...: spread over
    the session, whatever its length (the exact counts show their spread
    over it; an averaged count gets boots from its start and its end),
    the first two early so that a short session has them."""
    if number < 1 or count_boots < 1:
        return False
    if number & (number - 1):           # not a power of two
        return False
    return number.bit_length() <= count_boots


def order(round_index):
    """("a", "b") on even rounds, ("b", "a") on odd ones: A B B A A B ..."""
    return ("a", "b") if round_index % 2 == 0 else ("b", "a")


def spending(looks):
    """The share of alpha each look may spend: doubling, summing to 1."""
    total = float((1 << looks) - 1)
    return [(1 << k) / total for k in range(looks)]


def look_schedule(max_boots, looks=DEFAULT_LOOKS, alpha=compare.DEFAULT_ALPHA):
    """Boots per side at which to look: `looks` points from the first count
    at which an exact permutation test can reach the first look's level, to
    max_boots/2, evenly spaced.  Fewer when the range is short."""
    n_max = max(1, max_boots // 2)
    n_first = first_point(n_max, looks, alpha)
    if looks <= 1 or n_first >= n_max:
        return [n_max]
    step = (n_max - n_first) / float(looks - 1)
    points = sorted({int(round(n_first + i * step)) for i in range(looks)})
    return points


def boots_within_budget(max_boots, done_per_side, left_s, pair_s):
    """--max-boots fitted to --budget: how many boots (both sides) the
    session can reach when `done_per_side` rounds are done, `left_s`
    seconds are left and a round (one boot a side) takes `pair_s`.  The
    looks are then spread over the boots the budget allows, not over a
    --max-boots it will never reach.  The schedule depends on wall time
    only, never on the figures compared, so under A/A it is the same
    whichever boots are labelled A: the looks keep their level."""
    if pair_s <= 0 or left_s is None:
        return max_boots
    reach = done_per_side + int(max(0.0, left_s) // pair_s)
    return max(2, min(max_boots, 2 * reach))


def first_point(n_max, looks=DEFAULT_LOOKS, alpha=compare.DEFAULT_ALPHA):
    """The fewest boots per side at which the exact permutation test can
    reach the first look's level (at most n_max)."""
    level = alpha * spending(looks)[0]
    n_first = 2
    while bootstats.min_p(n_first, n_first) > level and n_first < n_max:
        n_first += 1
    return n_first


def replan(seen, n_done, reach, looks=DEFAULT_LOOKS,
           alpha=compare.DEFAULT_ALPHA):
    """The look points once `n_done` rounds have run and `reach` boots per
    side is where the session now expects to end (from the running wall
    time, ab re-plans after every round): the points already looked at
    (`seen`), then the looks left spread evenly from the last of them to
    `reach`, the last at `reach` -- so the last look sees every boot the
    session runs.  A point the session has passed moves to `n_done` (the
    look is taken now).  The points depend on wall time only, never on
    the figures compared, so the looks keep their levels."""
    seen = sorted(seen)
    left = looks - len(seen)
    reach = max(reach, n_done, seen[-1] + 1 if seen else 1)
    if left <= 0:
        return seen
    if not seen:
        points = look_schedule(2 * reach, looks, alpha)
    else:
        step = (reach - seen[-1]) / float(left)
        points = [int(round(seen[-1] + step * (i + 1))) for i in range(left)]
    points = sorted({max(n_done, p) for p in points})
    return seen + [p for p in points if not seen or p > seen[-1]]


class Sequential:
    """The decisions of one ab session: looks taken, verdicts frozen."""

    def __init__(self, schedule, alpha, looks, metrics):
        self.schedule = list(schedule)
        self.looks = looks
        self.alpha = alpha
        self.shares = spending(looks)
        self.spent = 0.0
        self.level = None       # the level of the last look taken
        self.levels = []        # every look's level, in order
        self.metrics = set(metrics)
        self.frozen = {}        # (name, metric) -> (verdict, boots per side)
        self.look_seconds = {}  # boots per side -> session seconds at it
        self.taken = 0
        self.last_rows = []

    def is_look(self, n_per_side):
        return n_per_side in self.schedule and self.taken < self.looks

    def next_level(self, n_per_side, final=False):
        """The level of the look about to be taken at n_per_side boots a
        side: its share of alpha, or all that is left when it is the last
        (the last scheduled point, the K-th look, or `final`: the session
        ends here)."""
        last = (final or self.taken >= self.looks - 1
                or n_per_side >= self.schedule[-1])
        if last:
            return max(0.0, self.alpha - self.spent)
        return self.alpha * self.shares[self.taken]

    def look(self, rows, n_per_side, seconds=None, level=None):
        """Record one look's rows (tested at `level`, from next_level);
        returns the undecided selected keys."""
        if level is None:
            level = self.next_level(n_per_side)
        self.level = level
        self.levels.append(level)
        self.spent += level
        self.taken += 1
        self.look_seconds[n_per_side] = seconds
        self.last_rows = rows
        for row in rows:
            key = (row.name, row.metric)
            if key not in self.frozen and row.verdict in DECIDED:
                self.frozen[key] = (row.verdict, n_per_side)
        return self.undecided(rows)

    def needs_last_look(self, n_per_side):
        """The session ended (budget, --max-boots) with boots that no look
        has seen: they get one last look while looks are left."""
        seen = max(self.look_seconds) if self.look_seconds else 0
        return n_per_side > seen and self.taken < self.looks

    def undecided(self, rows):
        """Selected keys without a verdict yet (a refused one -- the sides
        were not measured alike -- will not get one from more boots, nor
        will a stuck one)."""
        return sorted({(r.name, r.metric) for r in rows
                       if r.metric in self.metrics
                       and r.verdict not in compare.WITHHELD
                       and not stuck(r)
                       and (r.name, r.metric) not in self.frozen})

    def final_rows(self, rows):
        """The last look's figures with every frozen verdict put back (a
        row decided earlier says at how many boots)."""
        for row in rows:
            hit = self.frozen.get((row.name, row.metric))
            if hit:
                row.decided_at = {"boots_per_side": hit[1],
                                  "seconds": self.look_seconds.get(hit[1])}
            if hit and hit[0] != row.verdict:
                row.notes.append("decided %s at %d boots per side"
                                 % (hit[0], hit[1]))
                row.verdict = hit[0]
        return compare.order_rows(rows)


def stuck(row):
    """An averaged exit count without enough counted boots, which the
    session's later boots (not counting exits) will not give it."""
    return row.averaged and compare.undecidable(row) is not None \
        and avgcount.fixed_boots(row)


# ---------------------------------------------------------------- simulation

def _resampled_doc(doc, boots):
    out = dict(doc)
    out["boots"] = boots
    return out


def uncounted(boot):
    """A copy of a boot as one that did not count exits (run
    --no-count-exits): no exits_measured, no cycles_per_exit."""
    drop = ("exits_measured", "cycles_per_exit", "exits_background_max")
    out = dict(boot)
    out["results"] = [{k: v for k, v in r.items() if k not in drop}
                      for r in boot["results"]]
    return out


def session_verdicts(pool, rng, max_boots, looks, alpha, metrics,
                     resamples=1000, shift=None, thresholds=None,
                     count_boots=None):
    """One simulated session on a pool of recorded (or modelled) boots:
    both sides drawn from the pool, without replacement when it holds
    max_boots (a boot repeated within a session is a tie the exact test
    does not expect), so nothing changed -- unless `shift` (a function
    boot -> boot copy) alters side B.  `count_boots`: exits stay only in
    the boots ab counts them in (counts_exits); None keeps every boot's.
    Returns the frozen verdicts, {(name, metric): (verdict, boots per
    side)}."""
    schedule = look_schedule(max_boots, looks, alpha)
    seq = Sequential(schedule, alpha, looks, metrics)
    side = {"a": [], "b": []}
    deck = rng.sample(pool, max_boots) if len(pool) >= max_boots else None
    for round_index in range(max_boots // 2):
        for name in order(round_index):
            boot = deck.pop() if deck else \
                pool[int(rng.random() * len(pool))]
            if name == "b" and shift:
                boot = shift(boot)
            if count_boots is not None and not counts_exits(
                    len(side[name]) + 1, count_boots):
                boot = uncounted(boot)
            side[name].append(boot)
        n = len(side["a"])
        if not seq.is_look(n):
            continue
        level = seq.next_level(n)
        rows, _w = compare.compare_docs(
            _resampled_doc(pool_doc(pool), side["a"]),
            _resampled_doc(pool_doc(pool), side["b"]), thresholds,
            seed=rng.randrange(1 << 30), resamples=resamples, alpha=level,
            interleaved=True)
        if not seq.look(rows, n, level=level):
            break
    return dict(seq.frozen)


def simulate_session(pool, rng, max_boots, looks, alpha, metrics,
                     resamples=1000, shift=None):
    """The set of (name, metric) one simulated session flags regression or
    improvement (session_verdicts), timing and exit rows alike."""
    frozen = session_verdicts(pool, rng, max_boots, looks, alpha, metrics,
                              resamples, shift)
    return {k for k, (v, _n) in frozen.items()
            if v in ("regression", "improvement")}


def replay(doc_a, doc_b, looks=DEFAULT_LOOKS, alpha=compare.DEFAULT_ALPHA,
           metrics=("cycles_per_op",), thresholds=None,
           seed=compare.DEFAULT_SEED, resamples=compare.DEFAULT_RESAMPLES):
    """The decisions of a recorded session: round i is the i-th boot of
    each side, looked at on the schedule ab sets for its boots.  Returns
    (final rows, Sequential)."""
    a, b = compare.boot_results(doc_a), compare.boot_results(doc_b)
    n_max = min(len(a), len(b))
    seq = Sequential(look_schedule(2 * n_max, looks, alpha), alpha, looks,
                     metrics)
    for n in range(1, n_max + 1):
        if not seq.is_look(n):
            continue
        level = seq.next_level(n, final=n == n_max)
        rows, _w = compare.compare_docs(
            _prefix(doc_a, n), _prefix(doc_b, n), thresholds, seed,
            resamples, alpha=level, interleaved=True)
        if not seq.look(rows, n, level=level):
            break
    return seq.final_rows(seq.last_rows), seq


def _prefix(doc, n):
    out = dict(doc)
    out["boots"] = [b for b in doc["boots"] if b.get("results")][:n]
    return out


def pool_doc(pool):
    return {"schema": 1, "tool": "trapmeter", "host": {}, "boots": pool}


def simulate(pool, sessions, seed, max_boots, looks, alpha,
             metrics=("cycles_per_op",), resamples=1000, shift=None):
    """False-alarm rate of the whole procedure on recorded A/A boots (or,
    with `shift`, how often a shifted side B is flagged): (sessions with
    any timing alarm, sessions, alarms per metric)."""
    rng = random.Random(seed)
    bad, per_metric = 0, {}
    for _ in range(sessions):
        alarms = simulate_session(pool, rng, max_boots, looks, alpha,
                                  metrics, resamples, shift)
        bad += bool(alarms)
        for key in alarms:
            per_metric[key] = per_metric.get(key, 0) + 1
    return bad, sessions, per_metric


def binomial_upper(k, n, confidence=0.99):
    """Exact (Clopper-Pearson) one-sided upper bound of a rate seen k times
    in n independent trials: the p at which k or fewer would be seen with
    probability 1 - confidence."""
    if n <= 0 or k >= n:
        return 1.0
    lo, hi = k / float(n), 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _binomial_cdf(k, n, mid) > 1.0 - confidence:
            lo = mid
        else:
            hi = mid
    return hi


def binomial_lower(k, n, confidence=0.99):
    """The one-sided lower bound that goes with binomial_upper."""
    return 0.0 if k <= 0 else 1.0 - binomial_upper(n - k, n, confidence)


def _binomial_cdf(k, n, p):
    """P(X <= k) for X ~ Binomial(n, p), summed in logs."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0 if k < n else 1.0
    lp, lq = math.log(p), math.log1p(-p)
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1)
                                 - math.lgamma(n - i + 1) + i * lp
                                 + (n - i) * lq) for i in range(k + 1)))
