"""What an ab session can resolve, forecast from its first boots (pure).

After the first rounds of a session, each timing metric's spread between
boots tells what shift the session's last look will be able to flag at the
boots the budget reaches: the same figure compare prints as "resolves"
(compare.set_resolution: the critical t of the family-wise test times the
standard error of the shift of the undisturbed boots' means), with the
spread taken now and the boots those of the end.

- The spread is of BOTH sides' boots pooled, labels ignored: the sd of the
  undisturbed boots (bootstats.undisturbed) of all log per-boot figures of
  a metric, and the share of boots inside that band.  No relabelling of
  the boots changes it, so a session whose length it sets (ab
  --resolution) keeps the permutation test's level under A/A; a true
  shift d adds d^2/4 to the variance (+8 % on the sd at d = 2 %, sd 2.5 %),
  so the forecast errs high.
- The critical t is the (1 - level) quantile of the largest |z| over the
  family, z drawn by a multiplier bootstrap over the boots seen (each
  boot's residuals times one N(0, 1) weight: the metrics' correlation
  within a boot is kept, 0.6 on the recorded sessions), then widened to
  Student's t at the end's degrees of freedom.  Bonferroni over the family
  would err high by the correlation.
- A shift of the forecast resolution is flagged in about half of the
  sessions, twice it in 90 % or more (tests/host/test_forecast.py, on
  sessions drawn from the model pool of tests/host/ab_simulation.py)."""

import math
import random
import statistics

from . import bootstats, compare, tdist

FIRST_ROUNDS = 4            # rounds before the forecast (3: twice the
                            # forecast flagged in 86 % of sessions, 4: 91 %)
DRAWS = 2000                # multiplier-bootstrap draws for the critical t
MIN_BOOTS = 2 * bootstats.MIN_SIDE


def timing_logs(docs, stat=compare.DEFAULT_STAT):
    """{(suite, case, metric): {boot id: log cost}} over the boots of every
    document in `docs` (labels dropped), timing metrics only (exit counts
    are counts)."""
    out = {}
    for side, doc in enumerate(docs):
        table, _order = compare.collect(doc, stat)
        for key, entry in table.items():
            for metric, (obs, lower) in entry["metrics"].items():
                if metric == "exits_per_op":
                    continue
                cell = out.setdefault(key + (metric,), {})
                for number, value in obs:
                    cell[(side, number)] = math.log(value) if lower \
                        else -math.log(value)
    return {k: v for k, v in out.items() if len(v) >= MIN_BOOTS}


def band_spread(values):
    """(sd, share, band mean) of the undisturbed boots of pooled log
    figures: the sd (floor bootstats.SCALE_FLOOR) and the share of boots
    inside the band."""
    band = bootstats.undisturbed(list(values))
    sd = statistics.stdev(band) if len(band) > 1 else 0.0
    return (max(sd, bootstats.SCALE_FLOOR), len(band) / float(len(values)),
            statistics.mean(band))


def critical_z(logs, level, rng, draws=DRAWS):
    """The (1 - level) quantile of max |z| over the metrics, z the weighted
    sum of each metric's standardised residuals of its undisturbed boots
    with one N(0, 1) weight per boot shared by the metrics."""
    # boots in the order of their figures, not of their names: which
    # weight a boot draws then depends on no label
    cells = [logs[k] for k in sorted(logs)]
    boots = sorted({b for cell in cells for b in cell},
                   key=lambda b: [c.get(b, math.inf) for c in cells])
    index = {b: i for i, b in enumerate(boots)}
    columns = []
    for cell in cells:
        _sd, _share, mean = band_spread(cell.values())
        top = max(bootstats.undisturbed(list(cell.values())))
        res = [(index[b], v - mean) for b, v in cell.items()
               if v <= top]
        norm = math.sqrt(sum(r * r for _i, r in res)) or 1.0
        columns.append([(i, r / norm) for i, r in res])
    tops = []
    for _ in range(draws):
        w = [rng.gauss(0.0, 1.0) for _b in boots]
        tops.append(max(abs(sum(w[i] * r for i, r in col))
                        for col in columns))
    tops.sort()
    return tops[min(len(tops) - 1, int(math.ceil((1.0 - level) * draws)))]


class Forecast:
    """Per metric key its pooled spread and band share, and the family's
    critical z at the last look's level."""

    def __init__(self, logs, level, seed=compare.DEFAULT_SEED):
        self.spreads = {k: band_spread(v.values())[:2]
                        for k, v in logs.items()}
        self.boots = max(len(v) for v in logs.values()) if logs else 0
        self.level = level
        self.crit_z = critical_z(logs, level, random.Random(seed)) \
            if logs else None

    def critical(self, n_per_side, share):
        """The critical t at n_per_side boots a side of which `share`
        fall in the band: z widened to Student's t at the same tail."""
        df = max(1.0, 2.0 * n_per_side * share - 2.0)
        tail = 2.0 * (1.0 - 0.5 * (1.0 + math.erf(self.crit_z / math.sqrt(2))))
        return tdist.t_quantile(max(tail, 1e-12), df)

    def shift(self, key, n_per_side):
        """The log shift the last look resolves at n_per_side boots a
        side; None for an unknown key or no family."""
        if key not in self.spreads or self.crit_z is None:
            return None
        sd, share = self.spreads[key]
        n = max(1.0, n_per_side * share)
        return self.critical(n_per_side, share) * sd * math.sqrt(2.0 / n)

    def resolution(self, key, n_per_side, threshold):
        """The relative shift resolved (never below the threshold t, as
        compare's "resolves"), or None."""
        shift = self.shift(key, n_per_side)
        if shift is None:
            return None
        return math.exp(max(shift, math.log(1.0 + threshold))) - 1.0

    def boots_for(self, key, target, most=10000):
        """Boots per side at which the resolution reaches `target`
        (relative), at most `most`; None for an unknown key."""
        if key not in self.spreads or self.crit_z is None:
            return None
        goal = math.log(1.0 + target)
        n = 3
        while n < most and self.shift(key, n) > goal:
            n = n + max(1, n // 8)
        return n


def selected(forecast, metrics):
    """The keys of the forecast whose metric is among `metrics`."""
    return sorted(k for k in forecast.spreads if k[2] in metrics)


def range_text(values, fmt="%.1f"):
    """"1.2-3.4 %" of relative values."""
    lo, hi = 100 * min(values), 100 * max(values)
    if fmt % lo == fmt % hi:
        return (fmt + " %%") % lo
    return (fmt + "-" + fmt + " %%") % (lo, hi)


def lines(fc, keys, n_now, n_end, threshold, target=None, most=10000):
    """The forecast said at a session's start: what the last look at
    n_end boots a side resolves on `keys`, whether the threshold is below
    that, and with a target (ab --resolution) where it is reached."""
    res = {k: fc.resolution(k, n_end, threshold) for k in keys}
    res = {k: v for k, v in res.items() if v is not None}
    if not res:
        return ["forecast: no timing metric with %d boots yet" % MIN_BOOTS]
    spreads = [math.exp(fc.spreads[k][0]) - 1.0 for k in res]
    names = sorted(res, key=lambda k: -res[k])
    each = ", ".join("%s/%s %.1f %%" % (k[0], k[1], 100 * res[k])
                     for k in names[:6]) + (" ..." if len(names) > 6 else "")
    out = ["forecast from %d+%d boots (per-boot spread %s, both sides "
           "pooled): the last look, at about %d boots a side, resolves "
           "about %s (%s): %s" % (n_now, n_now, range_text(spreads), n_end,
                                   range_text(list(res.values())),
                                   ", ".join(sorted({k[2] for k in res})),
                                   each)]
    above = [k for k in names if res[k] > threshold * 1.0001]
    if above:
        out.append("forecast: a shift smaller than that will not be "
                   "resolved: the threshold %.1f %% is below the forecast on "
                   "%d of %d metrics" % (100 * threshold, len(above),
                                         len(res)))
    if target is not None:
        need = {k: fc.boots_for(k, target, most) for k in res}
        worst = max(need.values())
        if worst <= n_end:
            out.append("forecast: --resolution %.1f %% is reached at about %d "
                       "boots a side on every metric; the session ends there"
                       % (100 * target, worst))
        else:
            short = [k for k in names if need[k] > n_end]
            out.append("forecast: --resolution %.1f %% is not reached within "
                       "the session on %s (about %d boots a side needed)"
                       % (100 * target, ", ".join(
                           "%s/%s" % k[:2] for k in short[:4]), worst))
    return out
