#!/usr/bin/env python3
"""tests/host/mode_power.py - which slow-mode test has the most power inside
the same alpha (issue 32 item 9).

compare's slow-mode family (stats/compare.py decide_timing, MODE_SHARE of
alpha) tests, per timing metric, the share of each side's boots outside
that side's undisturbed band (bootstats.ModeMetric: a two-proportion z,
max-T over the label splits).  In ab's simulation a slow mode of +20 % in
37.5 % of B's boots was flagged in 6 of 40 sessions.  This script puts
candidate statistics side by side at one look of fixed boots, each in the
same max-T permutation framework at the same level (so each holds it
exactly under exchangeable boots; the A/A rate is measured too):

  share    the current statistic: the two-proportion z of the shares
           outside each side's own band (bands recomputed per split);
  pooled   the same z with the outside marks fixed once from the pooled
           boots' band: its permutation law is Fisher's exact test's
           (hypergeometric), two-sided through |z|;
  onesided the pooled marks, one-sided for "B has more outside" at half the
           level and "fewer" at the other half (an improvement is a mode
           change too): the same alpha, split by direction;
  ranks    the Mann-Whitney z over every boot of the metric (a slow mode
           moves B's ranks up; a test on the boots' ranks).

Boots come from ab_simulation's model (fitted to the recorded A/A ab
session, tests/fixtures/kvm-ab-aa-*.json), drawn without replacement per
session; B's QEMU-port cases +FACTOR in SHARE of B's boots (per boot).
Rates with their exact (Clopper-Pearson) 99 % bounds.

    python3 tests/host/mode_power.py --sessions 200 --boots 20
"""
import argparse
import math
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, ROOT)

from trapmeterlib.stats import abtest, bootstats  # noqa: E402
from tests.host import ab_simulation as sim  # noqa: E402


class Pooled:
    """Outside marks from the pooled boots' band, fixed under the label
    splits; the statistic share_z (two-sided) or a signed z."""

    def __init__(self, values, sign=0):
        self.values = values            # {boot: log value}
        band_top = max(bootstats.undisturbed(list(values.values())))
        self.out = {i for i, v in values.items() if v > band_top}
        self.sign = sign

    def testable(self, base_set):
        n_a = sum(1 for i in self.values if i in base_set)
        return n_a >= bootstats.MIN_SIDE and \
            len(self.values) - n_a >= bootstats.MIN_SIDE

    def stat(self, base_set):
        n_a = sum(1 for i in self.values if i in base_set)
        n_b = len(self.values) - n_a
        k_a = sum(1 for i in self.out if i in base_set)
        k_b = len(self.out) - k_a
        z = bootstats.share_z(k_a, n_a, k_b, n_b)
        if not self.sign:
            return z
        more = k_b / float(n_b) > k_a / float(n_a)
        return z if more == (self.sign > 0) else 0.0


class Ranks:
    """|Mann-Whitney z| of B's boots against A's, every boot."""

    def __init__(self, values):
        self.values = values
        order = sorted(values, key=lambda i: values[i])
        self.rank = {i: r + 1 for r, i in enumerate(order)}

    def testable(self, base_set):
        return Pooled.testable(self, base_set)

    def stat(self, base_set):
        n_a = sum(1 for i in self.values if i in base_set)
        n_b = len(self.values) - n_a
        r_b = sum(r for i, r in self.rank.items() if i not in base_set)
        mean = n_b * (n_a + n_b + 1) / 2.0
        sd = math.sqrt(n_a * n_b * (n_a + n_b + 1) / 12.0)
        return abs(r_b - mean) / sd


def metrics_of(boots_a, boots_b, moded_only=True):
    """{case key: {boot index: log min}} over A's boots then B's."""
    cells = {}
    for i, boot in enumerate(boots_a + boots_b):
        for res in boot["results"]:
            key = (res["suite"], res["case"], res.get("handler"))
            cells.setdefault(key, {})[i] = math.log(res["cycles"]["min"])
    out = {}
    for key, vals in cells.items():
        m = bootstats.Metric(vals)
        if not moded_only or bootstats.can_change_mode(m):
            out[key] = vals
    return out


def flagged(kind, cells, n, rng, resamples, level):
    """The case keys the `kind` test flags at `level` (max-T family over
    the cases that can change mode)."""
    keys = sorted(cells)
    if kind == "share":
        mets = [bootstats.ModeMetric(bootstats.Metric(cells[k])) for k in keys]
    elif kind == "pooled":
        mets = [Pooled(cells[k]) for k in keys]
    elif kind == "ranks":
        mets = [Ranks(cells[k]) for k in keys]
    else:                               # onesided: each direction at level/2
        hits = set()
        for sign in (1, -1):
            mets = [Pooled(cells[k], sign) for k in keys]
            ps, _tops = bootstats.max_t(mets, n, n, rng, resamples)
            hits |= {k for k, p in zip(keys, ps)
                     if p is not None and p <= level / 2.0}
        return hits
    ps, _tops = bootstats.max_t(mets, n, n, rng, resamples)
    return {k for k, p in zip(keys, ps) if p is not None and p <= level}


KINDS = ("share", "pooled", "onesided", "ranks")


def study(pool, sessions, boots, factor, share, level, resamples, seed,
          kinds=KINDS):
    """{kind: (A/A sessions with any flag, slow-mode sessions with a
    QEMU-port case flagged)} over `sessions` each."""
    rng = random.Random(seed)
    hit = sim.slow_mode(factor, share, seed=seed + 1)
    out = {k: [0, 0] for k in kinds}
    for _ in range(sessions):
        draw = rng.sample(pool, 3 * boots)
        a, b0, b1 = draw[:boots], draw[boots:2 * boots], draw[2 * boots:]
        for which, b in ((0, b0), (1, [hit(x) for x in b1])):
            cells = metrics_of(a, b)
            for kind in kinds:
                got = flagged(kind, cells, boots, rng, resamples, level)
                if which == 1:
                    got = {k for k in got if k[2] == "user"}
                out[kind][which] += bool(got)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--boots", type=int, default=20,
                        help="boots a side at the one look")
    parser.add_argument("--factor", type=float, default=1.2)
    parser.add_argument("--share", type=float, default=0.375)
    parser.add_argument("--level", type=float, default=0.01,
                        help="the mode family's level (compare: MODE_SHARE "
                        "of alpha 0.05)")
    parser.add_argument("--resamples", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="which of %s (default all)" % ",".join(KINDS))
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds or any(k not in KINDS for k in kinds):
        parser.error("--kinds: choose from %s" % ",".join(KINDS))
    recorded = sim.recorded_pool()
    pool = sim.model_pool(sim.fit(recorded))
    begin = time.monotonic()
    res = study(pool, args.sessions, args.boots, args.factor, args.share,
                args.level, args.resamples, args.seed, kinds)
    print("%d sessions of %d+%d boots, one look at level %g, %d random "
          "splits; slow mode +%g %% in %g %% of B's boots" % (
              args.sessions, args.boots, args.boots, args.level,
              args.resamples, 100 * (args.factor - 1), 100 * args.share))
    for kind in kinds:
        aa, power = res[kind]
        print("  %-8s A/A any flag %3d/%d (99 %% upper %5.2f %%)   slow mode "
              "flagged %3d/%d (%4.1f %%, 99 %% lower %4.1f %%)" % (
                  kind, aa, args.sessions,
                  100 * abtest.binomial_upper(aa, args.sessions),
                  power, args.sessions, 100.0 * power / args.sessions,
                  100 * (1 - abtest.binomial_upper(
                      args.sessions - power, args.sessions))))
    print("# %.0f s" % (time.monotonic() - begin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
