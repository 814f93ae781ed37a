#!/usr/bin/env python3
"""tests/host/history_simulation.py - the change points of a history
(tools/trapmeterlib/stats/changepoint.py, changewatch.py) over series of
runs: how often an A/A series raises an alarm, and how soon a step is
found.

Recorded runs: tests/fixtures/kvm-history-aa.json, per run and boot the
figures `history add` keeps (the minimum of a boot's samples, cycles per
op; the measured exits per op) of real KVM runs on this project's build
machine (3 boots each, the cases of `make acceptance` less fwcfg; how
they were recorded is in tests/fixtures/README.md).

Two sources of 100-run A/A series, each judged by `changepoint.analyse`
exactly as `history check` judges a history (every case's cycles and exit
counts of one host, one family):

  replay  runs drawn with replacement from the recorded runs, whole (a
          run keeps its boots, its disturbances and the cases' joint
          noise), in random order;
  model   a model fitted to the recorded runs (Model): each run's state,
          idle or busy (its level, what all its boots share, above
          8 %), from a two-state Markov chain with the recorded
          transition rates (a host shared with other jobs, whose load
          comes and goes); each boot drawn whole from the recorded boots
          of runs in that state (a disturbance of the whole boot, a
          single case hit and the calm noise stay as recorded, across
          every case of the boot); exit counts drawn from the recorded
          boots.

A series alarms when any change is found in it.  Each rate is printed
with its exact one-sided 99 % upper bound (Clopper-Pearson).

Steps: a model series of STEP_AT + K runs whose QEMU-exit cases (handler
user) get +X % from run STEP_AT on; `history check` is run after each new
run; the delay is the number of runs after the step when a change of a
stepped case at STEP_AT +-1 is first flagged as starting at the newest
runs (none within K runs: not found).

Checked after every run (`history check --every-run`,
stats/changewatch.py): `watch` counts the A/A series (replay, model, and
the model with a drift) that alarm at any of the checks after runs
1..100; `watch-step` steps the QEMU-exit cases by +X % from run WATCH_AT
+ 1, in replays (recorded runs drawn whole, the step multiplied in) and
in the model, and gives the share found within WATCH_MAX runs (with its
95 % interval), within WATCH_SOON, and the delay; `watch-null` gives the
quantiles of an A/A series' largest CUSUM (every check, series and side),
which set the CUSUM's threshold (changewatch.THRESHOLD: about the 99th
percentile; --threshold tries another); `watch-oracle` the delay of a
CUSUM that knows every level and sd, the bound on any test of the floors.
--watch-tests calm runs the
method before (the calm runs' ranks in place of the CUSUM); --score z
--clip C the CUSUM of clipped z-scores in place of the ranks'
(z_score: tried, not kept; its --k-ref and --threshold
measured per --boots, docs/design.md, "History"); --combine sum|mean one
CUSUM over the QEMU-exit cases' scores of a run in place of their own
(--combine-keep: beside them; --combine-k, --combine-threshold: its
reference value and threshold; Cusum.group: tried, not kept); both
reach changewatch.watch as its `sums` (Cusum.sums).  `scores` gives the
QEMU-exit cases' calm scores of the newest runs, A/A and with the first
--steps step: each case's share raised, mean and sd, the correlation
of each pair, the combined score's; `watch-pair` the delays of
--combine ... (or --watch-cases ... --threshold S) and of the default on
the same series, with a sign test.

Boots a run (--boots B, default 3, the recorded runs'): the model draws
B boots a run from its state's recorded boots; a replay takes B of a
recorded run's boots at random (B up to the recorded number: model-free)
or all of them and B - recorded more from the recorded boots of runs in
its state (the model's pools).  `subsample` gives, per B up to the
recorded boots, the share of runs raised and the calm floors' sd of a
case (--case; 'user' for every QEMU-exit case): recorded, each run's
floor the lowest of B of its boots, against the model's.  --fixture
reads other recorded runs (tests/fixtures/kvm-history-aa15.json: 15
boots a run).

    python3 tests/host/history_simulation.py --series 300
    python3 tests/host/history_simulation.py --parts step --steps 1,2,5,10
    python3 tests/host/history_simulation.py --parts sequential --step-series 20
    python3 tests/host/history_simulation.py --parts drift --drift 10 --series 100
    python3 tests/host/history_simulation.py --parts watch --series 200
    python3 tests/host/history_simulation.py --parts watch-step \
        --steps 1,2,5,10,20,50 --step-series 40
    python3 tests/host/history_simulation.py --parts watch-null --series 400
    python3 tests/host/history_simulation.py --parts watch-oracle --series 2000
    python3 tests/host/history_simulation.py --parts watch-step --steps 1 \
        --boots 9 --fixture tests/fixtures/kvm-history-aa15.json \
        --score z --k-ref 2.5 --clip 4 --threshold 7
    python3 tests/host/history_simulation.py --parts watch,watch-null \
        --series 400 --boots 9
    python3 tests/host/history_simulation.py --parts subsample --case user
    python3 tests/host/history_simulation.py --parts relative \
        --fixture tests/fixtures/kvm-history-aa15.json
    python3 tests/host/history_simulation.py --parts watch-step --steps 1 \
        --boots 9 --watch-level floor+kernel-ratio
    python3 tests/host/history_simulation.py --parts scores --series 200 \
        --steps 1 --boots 9
    python3 tests/host/history_simulation.py --parts watch-null,watch \
        --series 400 --boots 9 --watch-cases exits/pio.user --threshold 5
    python3 tests/host/history_simulation.py --parts watch-pair --steps 1 \
        --step-series 100 --boots 9 --combine sum --combine-keep \
        --combine-threshold 8

`relative` measures pio.user against an in-kernel case of the same run
or boot (pio.kernel, cpuid: no exit to QEMU, so they read the host's
level if it is shared): per B, each figure's raised share and spread, and
the correlation of the two cases' excursions.  --watch-level kernel-ratio
watches each QEMU-exit case over its suite's in-kernel case (KERNEL_REF)
in place of its floor, floor+kernel-ratio beside it (tried, not kept:
docs/design.md, "History").
tests/host/test_changepoint.py and test_changewatch.py run small versions
of the same."""
import argparse
import functools
import math
import os
import random
import statistics
import sys
import time
import typing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import json  # noqa: E402

from trapmeterlib.stats import changepoint as cp  # noqa: E402
from trapmeterlib.stats import changewatch as cw  # noqa: E402
from trapmeterlib.stats.abtest import binomial_upper  # noqa: E402
from trapmeterlib.stats import medianci  # noqa: E402
from trapmeterlib.stats.bootstats import mad, median  # noqa: E402

FIXTURE = os.environ.get('HIST_FIXTURE') or os.path.join(ROOT, 'tests', 'fixtures', 'kvm-history-aa.json')
AA15 = os.path.join(ROOT, 'tests', 'fixtures', 'kvm-history-aa15.json')
RUNS = 100
BOOTS = [3]                 # --boots: boots a simulated run has
BAND = math.log(1.08)       # a boot this far above its floor: disturbed
STEP_AT = 60
MAX_DELAY = 20
WATCH_AT = 50               # --every-run steps: the first stepped run
WATCH_MAX = 40              # ... found within this many runs
WATCH_SOON = 20             # ... and the share within this many


def load(path=FIXTURE):
    with open(path) as fh:
        return json.load(fh)


def run_series(runs):
    """{key: [per-run value]} and kinds, each run's figure the median of
    its boots, as stats/runlevel.run_figures makes it."""
    series, kinds = {}, {}
    for i, run in enumerate(runs):
        for case, boots in run.items():
            for n, metric, kind in ((0, "cycles_per_op", "timing"),
                                    (1, "exits_per_op", "count")):
                vals = [b[n] for b in boots if b[n] is not None]
                key = tuple(case.split("/", 1)) + (metric,)
                kinds[key] = kind
                series.setdefault(key, {})[i] = median(vals) if vals \
                    else None
    return series, kinds


def alarms(runs, alpha=cp.ALPHA):
    series, kinds = run_series(runs)
    return cp.analyse(list(range(len(runs))), series, kinds, alpha)


RUN_LEVEL = {"floor": min, "median": median, "kernel-level": min,
             "kernel-ratio": min, "floor+kernel-ratio": min}
KERNEL = set()              # the in-kernel cases of the fixture (main)
GROUP = set()               # the QEMU-exit cases' timing keys (main): the
                            # series --combine sums as one
WATCH_LEVEL = ["floor"]     # --watch-level: what a run's value is
WATCH_ALPHA = [cw.ALPHA]    # --watch-alpha
WATCH_CASES = set()         # --watch-cases: the cases a job watches
                            # (`check --case`); empty: every case


def floors(runs):
    """{key: [log floor per run]} of the cycles per op, as `history check
    --every-run` takes them (stats/runlevel.floor: a run's lowest boot;
    --watch-level median: its median boot instead, to compare;
    --watch-level kernel-level: the floor less the run's level read
    from the in-kernel cases, level_free(); --watch-cases: only those
    cases' series, as `check --case` narrows the family)."""
    level, out = RUN_LEVEL.get(WATCH_LEVEL[0], min), {}
    for i, run in enumerate(runs):
        for case, boots in run.items():
            vals = [b[0] for b in boots if b[0]]
            key = tuple(case.split("/", 1)) + ("cycles_per_op",)
            out.setdefault(key, [None] * len(runs))[i] = \
                math.log(level(vals)) if vals else None
    if WATCH_LEVEL[0] == "kernel-level":
        out = level_free(out)
    elif WATCH_LEVEL[0].endswith("kernel-ratio"):
        out = over_kernel(out, WATCH_LEVEL[0].startswith("floor+"))
    return {k: v for k, v in out.items()
            if not WATCH_CASES or stepped_case(k) in WATCH_CASES}


# The in-kernel case a QEMU-exit case is read against (--watch-level
# kernel-ratio): same suite, same exits an op, no exit to QEMU.
KERNEL_REF = {"exits": "exits/pio.kernel", "pio": "pio/pic.in8.single.512"}
OVER = " / "                # a derived series' case: "pio.user / pio.kernel"


def stepped_case(key):
    """The recorded case a (possibly derived) series' key stands for."""
    return "/".join(key[:2]).split(OVER)[0]


def over_kernel(family, keep):
    """The QEMU-exit cases' floors over the floor of their suite's
    in-kernel case of the same run (KERNEL_REF; a ratio, as logs): the
    host's level of that run, if the in-kernel case reads it, taken
    out.  keep: the raw floors stay beside the derived series (a family
    with both), else the derived series replace them."""
    out = dict(family)
    for key, row in family.items():
        ref = KERNEL_REF.get(key[0])
        rkey = tuple(ref.split("/", 1)) + key[2:] if ref else None
        if "/".join(key[:2]) in KERNEL or rkey not in family:
            continue
        kern = family[rkey]
        if not keep:
            del out[key]
        out[(key[0], key[1] + OVER + rkey[1]) + key[2:]] = [
            v - k if v is not None and k is not None else None
            for v, k in zip(row, kern)]
    return out


def level_free(family):
    """The QEMU-exit cases' floors less each run's level, the median over
    the in-kernel cases (handler kernel: no exit to QEMU, so a QEMU step
    leaves them) of their floor above the case's median floor: what a
    run shares with every case of its boots, removed.  The in-kernel
    cases stay as they are."""
    kern = [k for k in family if "/".join(k[:2]) in KERNEL]
    ref = {k: median([v for v in family[k] if v is not None]) for k in kern}
    runs = len(next(iter(family.values())))
    level = [median([family[k][i] - ref[k] for k in kern
                     if family[k][i] is not None] or [0.0])
             for i in range(runs)]
    return {k: row if k in kern else
            [v - lv if v is not None else None for v, lv in zip(row, level)]
            for k, row in family.items()}


WATCH_TESTS = {"cusum": (False, True), "calm": (True, False),
               "floor": (False, False)}


def use_tests(name):
    """--watch-tests: which tests run beside the lowest floor's."""
    calm, on = WATCH_TESTS[name]
    WATCH_CUSUM[0] = WATCH_CUSUM[0]._replace(on=on)
    for key, test in cw.CALM_TESTS.items():
        cw.TESTS.pop(key, None)
        if calm:
            cw.TESTS[key] = test


# ---------------------------------------------------------------- CUSUMs
# The every-run check's CUSUM as the watch parts run it (--k-ref,
# --threshold, --watch-tests), and two designs tried for it and not kept
# (docs/design.md, "History"): a z-score in place of a run's rank
# (--score z, --clip), and one CUSUM over the QEMU-exit cases' combined
# scores (--combine, --combine-keep, --combine-k, --combine-threshold).
# changewatch.watch takes them as its `sums` (Cusum.sums).

SCORES = ("rank", "z")      # --score: changewatch.normal_score, z_score
CLIP = 4.0                  # "z": a run's score at most this far from 0
SCALE_MIN = 0.001           # "z": the reference's scale at least (log)
Z_MIN_REF = 24              # "z": runs its reference is read from at least
COMBINES = ("sum", "mean")  # --combine: combine()
COMBINED = "QEMU-exit cases' CUSUM"     # the test of the group's change


def robust_scale(vals):
    """(median, 1.4826 MADs) of vals, the scale at least SCALE_MIN (runs
    drawn again in a replay can make most of them equal)."""
    m = median(vals)
    return m, max(SCALE_MIN, 1.4826 * mad(vals, m))


def z_score(calm, v, clip=CLIP):
    """v's distance from the calm runs' median in their robust sds,
    clipped to +-clip: it grows with the shift, a tail run's is bounded
    (tried for the CUSUM, not kept: docs/design.md, "History")."""
    m, s = robust_scale(calm)
    return max(-clip, min(clip, (v - m) / s))


def combine(scores, how="sum"):
    """One run's combined score of its cases' scores: their sum over
    sqrt(count) -- a normal score when they are independent -- or, how
    "mean", their mean."""
    if how == "mean":
        return sum(scores) / len(scores)
    return sum(scores) / math.sqrt(len(scores))


class Cusum(typing.NamedTuple):
    """The CUSUM of the watch parts' checks: a run's `score`, "rank" (the
    check's) or "z" (z_score, clipped at `clip`), reference `k`, alarming
    at `threshold`; `on` False: the exact tests alone.  `combine`: the
    QEMU-exit cases (GROUP) share one CUSUM of a run's combined scores,
    reference `combine_k` and threshold `combine_threshold` (None: k and
    the check's), in place of their own or, with `keep`, beside them."""
    score: str = "rank"
    k: float = cw.K_REF
    clip: float = CLIP
    threshold: float = cw.THRESHOLD
    on: bool = True
    combine: str = None
    combine_k: float = None
    combine_threshold: float = None
    keep: bool = False

    def least(self):
        """Runs a reference is read from at least."""
        return Z_MIN_REF if self.score == "z" else cw.MIN_REF

    def score_of(self):
        """score(calm runs, a run's floor): the run's score."""
        if self.score == "z":
            return functools.partial(z_score, clip=self.clip)
        return cw.normal_score

    def scores(self, row, start):
        """changewatch.run_scores with this score."""
        return cw.run_scores(row, start, self.score_of(), self.least())

    def series(self, vals):
        """changewatch.cusum with this score and k."""
        return cw.cusum(vals, self.k, self.score_of(), self.least())

    def group(self, rows):
        """([(statistic, side, first run summed)], {key: {run: score}}) of
        the newest run over the group's rows, {key: [log floor or None
        per run]}: each case scored among its own calm runs, its raised
        runs skipped; the present scores of a run combined (combine())
        and summed by one CUSUM a side (reference combine_k)."""
        n = max(len(row) for row in rows.values())
        start = max(self.least(), n - cw.SPAN)
        if start >= n:
            return [], {}
        per = {key: self.scores(row, start) for key, row in rows.items()}
        runs = {}
        for scores in per.values():
            for i, z in scores.items():
                runs.setdefault(i, []).append(z)
        k = self.k if self.combine_k is None else self.combine_k
        return cw.sides({i: combine(z, self.combine)
                         for i, z in runs.items()}, start, k), per

    def sums(self, rows, threshold):
        """changewatch.watch's `sums`: each series' own CUSUM (but the
        group's cases' without `keep`), and with `combine` the group's."""
        if not self.on:
            return {}
        joint = [k for k in rows if k in GROUP] if self.combine else []
        out = cw.cusums({k: r for k, r in rows.items()
                         if k not in joint or self.keep}, threshold,
                        self.series)
        if joint:
            out.update(self.group_alarm({k: rows[k] for k in joint},
                                        threshold, out))
        return out

    def group_alarm(self, rows, threshold, alarms):
        """{key: alarm} of the group's CUSUM, or {}: on the case whose
        scores gave most of the alarming sum, from the first run summed,
        unless that case alarmed on its own (`alarms`)."""
        sums, per = self.group(rows)
        limit = threshold if self.combine_threshold is None else \
            self.combine_threshold
        sums = [c for c in sums if c[0] >= limit]
        if not sums:
            return {}
        stat, side, first = max(sums)
        sign = 1 if side == "rise" else -1
        key = max(sorted(per, key=str), key=lambda k: sign * sum(
            z for i, z in per[k].items() if i >= first))
        return {} if key in alarms else {key: (stat, side, first, COMBINED)}


WATCH_CUSUM = [Cusum()]     # the watch parts' CUSUM (main, use_settings)


def watched(runs, first, last, alpha=None, horizon=cw.HORIZON):
    """(the first check in first..last that alarms, its changes) of a
    series checked after every run, or (None, [])."""
    alpha = WATCH_ALPHA[0] if alpha is None else alpha
    design = WATCH_CUSUM[0]
    return cw.first_alarm(floors(runs), first, last, alpha, horizon,
                          design.threshold, design.sums)


def extract(paths):
    """The fixture's form of recorded results files (`--extract`): per
    run and boot, per case [cycles per op, exits per op] as
    stats/compare.observations reads them."""
    from trapmeterlib.output import resultsfile
    from trapmeterlib.stats import compare
    out = {"kind": "history-boots", "cases": {}, "runs": []}
    for path in paths:
        doc = resultsfile.read_results(path)
        boots = []
        for results in compare.boot_results(doc):
            boot = {}
            for res in results:
                case = "%s/%s" % (res.get("suite"), res.get("case"))
                obs = compare.observations(res)
                boot[case] = [obs.get(m, (None,))[0]
                              for m in ("cycles_per_op", "exits_per_op")]
                out["cases"][case] = {"handler": res.get("handler")}
            boots.append(boot)
        out["runs"].append({"source": "/".join(path.split(os.sep)[-2:]),
                            "boots": boots})
    return out


# ---------------------------------------------------------------- model

class Model:
    """What fit() measured of the recorded runs.  A run's level is what
    every boot of it shares: the median over cases of its lowest boot
    above the case's floor (the lower quartile of every recorded boot);
    the rest is the boots' (disturbed boots, single cases hit, boot
    noise).  Recorded, the level is two states, not a drift: about +0 %
    (the host idle) or +10..30 % (busy: other jobs running the whole
    run), so the model draws each run's state from a two-state Markov
    chain with the recorded transition rates, and each of its boots
    whole from the recorded boots of runs in that state.  (The first fit
    took a run's median boot as its level: that counted a boot's
    disturbance as the run's, and made 10 of 13 runs busy where 3 had a
    level above 8 %.  The second drew each run's level and then boots
    around it: the level, a median over cases, is set by the 512-exit
    cases' floors, which wander by 10 %, and imposed on the calm ones.)"""

    def __init__(self, rec):
        self.cases = sorted(rec["cases"])
        self.user = [c for c in self.cases
                     if rec["cases"][c].get("handler") == "user"]
        runs = [{c: [math.log(b[c][0]) for b in r["boots"]
                     if b.get(c) and b[c][0]] for c in self.cases}
                for r in rec["runs"]]
        every = {c: sorted(v for r in runs for v in r[c])
                 for c in self.cases}
        self.floor = {c: every[c][len(every[c]) // 4] for c in self.cases}
        self.exits = {c: [b[c][1] for r in rec["runs"] for b in r["boots"]
                          if b.get(c) and b[c][1] is not None]
                      for c in self.cases}
        self.levels = [median([min(r[c]) - self.floor[c]
                               for c in self.cases if r[c]]) for r in runs]
        self._states()
        self._boots(runs)
        self.recorded = {True: [], False: []}   # raw boots by state
        for i, r in enumerate(rec["runs"]):
            self.recorded[self.state_of(i)] += r["boots"]

    def state_of(self, i):
        """Recorded run i's state: busy (True) or idle."""
        return self.levels[i] > BAND

    def draw(self, rng, busy, n):
        """n recorded boots (raw, as the fixture keeps them) of runs in
        that state."""
        pool = self.recorded[busy] or self.recorded[not busy]
        return [rng.choice(pool) for _ in range(n)]

    def _states(self):
        busy = [v > BAND for v in self.levels]
        self.busy_levels = [v for v in self.levels if v > BAND]
        self.idle_levels = [v for v in self.levels if v <= BAND]
        stay = {True: [1, 2], False: [1, 2]}     # Laplace: (stays, from)
        for a, b in zip(busy, busy[1:]):
            stay[a][0] += a == b
            stay[a][1] += 1
        self.p_stay = {k: v[0] / float(v[1]) for k, v in stay.items()}
        self.p_busy = len(self.busy_levels) / float(len(self.levels))

    def _boots(self, runs):
        """Each recorded boot as a vector over cases of its value above
        the case's floor, pooled by its run's state: calm noise, a
        disturbance of the whole boot and a single case hit stay
        together, as they were recorded.  A boot is disturbed when most
        cases sit more than BAND above its run's level; a case is hit
        when it alone does."""
        self.vectors = {True: [], False: []}
        disturbed, hit, calm = 0, 0, 0
        for run, level in zip(runs, self.levels):
            for b in range(min(len(v) for v in run.values())):
                above = {c: run[c][b] - self.floor[c] for c in self.cases}
                self.vectors[level > BAND].append(above)
                if median(list(above.values())) - level > BAND:
                    disturbed += 1
                    continue
                calm += len(self.cases)
                hit += sum(1 for v in above.values() if v - level > BAND)
        self.boots = sum(len(v) for v in self.vectors.values())
        self.p_boot = disturbed / float(self.boots)
        self.p_case = hit / float(max(1, calm))

    def describe(self):
        return ("model of %d runs: %d cases (%d QEMU-exit); run level: "
                "busy in %.0f %% of runs (levels %s), P(stay busy) %.2f, "
                "P(stay idle) %.2f; %d recorded boots drawn whole from the "
                "runs of the state: %.1f %% disturbed as a whole beyond "
                "their run, single cases hit in %.1f %% of the others"
                % (len(self.levels), len(self.cases), len(self.user),
                   100 * self.p_busy, ", ".join(
                       "%+.0f %%" % (100 * (math.exp(v) - 1))
                       for v in sorted(self.levels)),
                   self.p_stay[True], self.p_stay[False], self.boots,
                   100 * self.p_boot, 100 * self.p_case))

    def series(self, rng, runs, step=0.0, step_at=None, drift=0.0):
        """[{case: [(cycles, exits) per boot]}] of `runs` runs; `drift`:
        every case's level moves by that share over the runs, linearly."""
        out, busy = [], rng.random() < self.p_busy
        for r in range(runs):
            if r and rng.random() > self.p_stay[busy]:
                busy = not busy
            pool = self.vectors[busy] or self.vectors[not busy]
            level = math.log1p(drift) * r / runs
            run = {c: [] for c in self.cases}
            for _b in range(BOOTS[0]):
                boot = rng.choice(pool)
                for c in self.cases:
                    v = self.floor[c] + level + boot[c]
                    if step and c in self.user and r >= step_at:
                        v += math.log(1 + step)
                    run[c].append((math.exp(v), rng.choice(self.exits[c])))
            out.append(run)
        return out


def replay(rec, rng, runs, model=None):
    """`runs` recorded runs drawn with replacement, in random order.  A
    run has BOOTS[0] boots: with the recorded number, its boots whole;
    with fewer, a random subset of them (model-free); with more, all of
    them and the rest drawn from the recorded boots of runs in its state
    (`model`'s pools, as Model.series draws them)."""
    boots = BOOTS[0]
    out = []
    for _ in range(runs):
        i = rng.randrange(len(rec["runs"]))
        have = list(rec["runs"][i]["boots"])
        if boots < len(have):
            have = rng.sample(have, boots)
        elif boots > len(have):
            have += model.draw(rng, model.state_of(i), boots - len(have))
        out.append({c: [(b[c][0], b[c][1]) for b in have if b.get(c)]
                    for c in rec["cases"]})
    return out


# ---------------------------------------------------------------- measure

def rate(name, make, series, seed):
    begin, hits = time.time(), 0
    for i in range(series):
        rng = random.Random(seed * 100003 + i)
        hits += bool(alarms(make(rng)).changes)
    print("%-7s A/A: %d of %d series of %d runs raise an alarm (%.1f %%, "
          "99 %% upper bound %.1f %%) [%.0f s]" % (
              name, hits, series, RUNS, 100.0 * hits / series,
              100 * binomial_upper(hits, series, 0.99), time.time() - begin),
          flush=True)
    return hits


def sequential(name, make, series, seed, first=16):
    """A/A series checked after every run from `first` on, as a CI job
    would: how many raise an alarm at some check (a change starting at
    the newest runs)."""
    begin, hits = time.time(), 0
    for i in range(series):
        runs = make(random.Random(seed * 100003 + i))
        hits += any(alarms(runs[:n]).newest()
                    for n in range(first, RUNS + 1))
    print("%-7s A/A checked after every run %d..%d: %d of %d series alarm "
          "at some check (%.1f %%, 99 %% upper bound %.1f %%) [%.0f s]" % (
              name, first, RUNS, hits, series, 100.0 * hits / series,
              100 * binomial_upper(hits, series, 0.99), time.time() - begin),
          flush=True)


def watch_rate(name, make, series, seed):
    """A/A series checked after every run (`check --every-run`): how many
    alarm at some check."""
    begin, hits = time.time(), 0
    for i in range(series):
        hits += watched(make(random.Random(seed * 100003 + i)), 1,
                        RUNS)[0] is not None
    print("%-7s A/A checked after every run 1..%d (--every-run, alpha %g "
          "over %d checks): %d of %d series alarm (%.1f %%, 99 %% upper "
          "bound %.1f %%) [%.0f s]" % (
              name, RUNS, WATCH_ALPHA[0], cw.HORIZON, hits, series,
              100.0 * hits / series,
              100 * binomial_upper(hits, series, 0.99), time.time() - begin),
          flush=True)
    return hits


def cusum_max(runs):
    """(the largest CUSUM of any timing series and side at any check
    after runs 1..len(runs), and with --combine that of the QEMU-exit
    cases' CUSUM, else None): a threshold above it leaves the series
    quiet."""
    best, fam, design = 0.0, floors(runs), WATCH_CUSUM[0]
    joint = GROUP & set(fam) if design.combine else set()
    for key, row in fam.items():
        for n in range(1, len(row) + 1):
            if row[n - 1] is None or key in joint and not design.keep:
                continue
            vals = [v for v in row[:n] if v is not None]
            best = max([best] + [c[0] for c in design.series(vals)])
    if not joint:
        return best, None
    group = 0.0
    for n in range(1, RUNS + 1):
        sums = design.group({k: fam[k][:n] for k in joint})[0]
        group = max([group] + [c[0] for c in sums])
    return best, group


def watch_null(name, make, series, seed):
    """The CUSUM's threshold, measured: quantiles of each A/A series'
    largest CUSUM (over its checks, series and sides)."""
    begin = time.time()
    got = [cusum_max(make(random.Random(seed * 100003 + i)))
           for i in range(series)]
    design = WATCH_CUSUM[0]
    limit = design.threshold if design.combine_threshold is None else \
        design.combine_threshold
    for j, what, at in ((0, "", design.threshold),
                        (1, " (the QEMU-exit cases' --combine %s, k %g)" % (
                            design.combine, design.k if design.combine_k
                            is None else design.combine_k), limit)):
        tops = sorted(g[j] for g in got if g[j] is not None)
        if not tops:
            continue
        print("%-7s A/A, the largest CUSUM%s of a 100-run series checked "
              "after every run: %s; largest %.2f (share above %g: %d of %d)"
              " [%.0f s]" % (name, what, ", ".join("%g %% %.2f" % (
                  100 * q, tops[min(len(tops) - 1, int(q * len(tops)))])
                  for q in (0.9, 0.95, 0.97, 0.98, 0.99)), tops[-1], at,
                  sum(1 for t in tops if t >= at), series,
                  time.time() - begin), flush=True)


def oracle_series(rng, k, step=0.0, at=None, cases=9, raised=0.26):
    """[(largest sum of any series and side so far, sum of case 0's
    rise)] per run: Gaussian CUSUMs that know each series' level and sd,
    on independent runs, a share `raised` of them missing (raised runs
    of every case at once), case 0 stepped by `step` sds from `at`."""
    sums, top, out = [[0.0, 0.0] for _ in range(cases)], 0.0, []
    for r in range(RUNS):
        if rng.random() >= raised:
            for c, pair in enumerate(sums):
                z = rng.gauss(0.0, 1.0) + (step if c == 0 and at is not None
                                           and r >= at else 0.0)
                pair[0] = max(0.0, pair[0] + z - k)
                pair[1] = max(0.0, pair[1] - z - k)
                top = max(top, pair[0], pair[1])
        out.append((top, sums[0][0]))
    return out


def watch_oracle(series, seed, k=cw.K_REF, step=2.0, at=WATCH_AT):
    """The bound on any test of a run's floor: an oracle CUSUM's delay
    for a step of `step` calm sds (+1 % on pio.user), its threshold set
    for 2 % of 100-run A/A series with 9 series and both sides."""
    tops = sorted(oracle_series(random.Random(seed * 31 + i), k)[-1][0]
                  for i in range(series))
    h = tops[int(0.98 * len(tops))]
    delays = []
    for i in range(series):
        runs = oracle_series(random.Random(seed * 37 + i), k, step, at)
        hit = [r - at + 1 for r in range(at, RUNS) if runs[r][1] >= h]
        delays.append(hit[0] if hit else math.inf)
    delays.sort()
    print("oracle  a Gaussian CUSUM knowing the level and sd (k %g), 9 "
          "series x 2 sides, 26 %% of runs raised: threshold %.2f for 2 %% "
          "of %d A/A series; a %g-sd step found %s runs after it (median), "
          "90th percentile %s, within 6 runs in %.0f %%" % (
              k, h, series, step, delays[len(delays) // 2],
              delays[int(0.9 * len(delays))],
              100.0 * sum(1 for d in delays if d <= 6) / len(delays)),
          flush=True)


def span_scores(runs):
    """{case: [score or None (raised) of each of the newest SPAN runs]}
    of the QEMU-exit cases at the check after the last run, each among
    its own reference's calm runs (Cusum.scores)."""
    fam, out = floors(runs), {}
    start = max(cw.MIN_REF, len(runs) - cw.SPAN)
    for key in sorted(GROUP & set(fam)):
        got = WATCH_CUSUM[0].scores(fam[key], start)
        out["/".join(key[:2])] = [got.get(i) for i in range(start,
                                                             len(runs))]
    return out


def score_table(make, series, seed):
    """{case: [score or None]} of `series` series' newest SPAN runs,
    concatenated; the same run's scores at the same place in each."""
    out = {}
    for i in range(series):
        for case, vals in span_scores(make(random.Random(
                seed * 100003 + i))).items():
            out.setdefault(case, []).extend(vals)
    return out


def print_scores(rec, model, series, seed, step):
    """--parts scores: the QEMU-exit cases' calm scores of a run, A/A and
    with +step per QEMU exit from the span's first run: each case's
    share raised, mean and sd; the correlation of two cases' scores in
    the runs where both are calm (a combined score's gain is at most
    sqrt(count) when it is 0, none when 1); the combined score's
    (combine()) mean and sd."""
    at = RUNS - cw.SPAN
    for source in ("replay", "model"):
        for size in (0.0, step):
            make = (lambda rng: stepped(rec, rng, RUNS, size, at, model)) \
                if source == "replay" else \
                (lambda rng: model.series(rng, RUNS, size, at))
            tab = score_table(make, series, seed)
            what = "%-7s %s" % (source, "A/A" if not size else
                                "+%g %% from the span's first run"
                                % (100 * size))
            for case, vals in tab.items():
                z = [v for v in vals if v is not None]
                print("scores %s, %s: raised %.0f %%, mean %+.2f, sd %.2f"
                      % (what, case, 100 * (1 - len(z) / len(vals)),
                         statistics.mean(z), statistics.stdev(z)),
                      flush=True)
            if not size:
                print_correlations(what, tab)
            how = WATCH_CUSUM[0].combine
            comb = [combine(z, how) for z in zip(*tab.values()) for z in
                    [[v for v in z if v is not None]] if z]
            print("scores %s, combined (--combine %s): present in %.0f %% "
                  "of runs, mean %+.2f, sd %.2f" % (
                      what, how or "sum", 100 * len(comb) / len(
                          next(iter(tab.values()))), statistics.mean(comb),
                      statistics.stdev(comb)), flush=True)


def print_correlations(what, tab):
    cases = list(tab)
    for i, a in enumerate(cases):
        for b in cases[i + 1:]:
            both = [(u, v) for u, v in zip(tab[a], tab[b])
                    if u is not None and v is not None]
            print("scores %s, correlation %s ~ %s: %.2f (%d runs both "
                  "calm)" % (what, a.split("/")[1], b.split("/")[1],
                             statistics.correlation(*zip(*both)),
                             len(both)), flush=True)


def floor_spread(floors):
    """(share of runs raised, sd of the calm runs' floors) of one case's
    log floors: raised as the CUSUM calls a run, more than TRIM above
    the runs' lower quartile."""
    top = sorted(floors)[len(floors) // 4] + cw.TRIM
    calm = [v for v in floors if v <= top]
    return 1 - len(calm) / len(floors), statistics.stdev(calm)


def subsample(rec, model, case, draws=200, seed=1, most=None):
    """Per B in 1..the recorded boots (or `most`), the mean (raised
    share, calm sd) of `case`'s floors: recorded (each run's floor the
    lowest of a random B of its boots, `draws` times; model-free; None
    beyond the recorded boots) and the model's (series as long as the
    recorded ones, B boots a run)."""
    keep = BOOTS[0]
    try:
        return _subsample(rec, model, case, draws, seed, most)
    finally:
        BOOTS[0] = keep


def _subsample(rec, model, case, draws, seed, most):
    rng, nb, out = random.Random(seed), min(len(r["boots"]) for r in
                                            rec["runs"]), []
    for b in range(1, max(nb, most or nb) + 1):
        got = []
        for _ in range(draws if b <= nb else 0):
            got.append(floor_spread([math.log(min(
                x[case][0] for x in rng.sample(r["boots"], b)))
                for r in rec["runs"]]))
        BOOTS[0], sims = b, []
        for _ in range(draws):
            runs = model.series(rng, len(rec["runs"]))
            sims.append(floor_spread([math.log(min(v[0] for v in r[case]))
                                      for r in runs]))
        out.append((b, [sum(g[j] for g in got) / draws for j in (0, 1)]
                    if got else None,
                    [sum(g[j] for g in sims) / draws for j in (0, 1)]))
    return out


def print_subsample(rec, model, cases, most):
    for case in cases:
        for b, got, sim in subsample(rec, model, case, most=most):
            print("subsample %s, %d boots a run: %s; model of %d runs: "
                  "raised %.0f %%, sd %.2f %%" % (
                      case, b, "recorded (each run's floor the lowest of %d "
                      "of its %d boots): raised %.0f %% of runs, calm floors "
                      "sd %.2f %%" % (b, len(rec["runs"][0]["boots"]),
                                      100 * got[0], 100 * got[1])
                      if got else "not recorded", len(rec["runs"]),
                      100 * sim[0], 100 * sim[1]), flush=True)


# --parts relative: a QEMU-exit case's figure read against an in-kernel
# case of the same run or boot (the host's level, if it is shared), beside
# its own floor.  Each: (log figure of a run from its [(case, boots' log
# values)]), and how far +1 % per QEMU exit moves it (the difference of
# cycles moves by user / (user - kernel), 1.6 for pio.user).
REL_USER, REL_REF = "exits/pio.user", ("exits/pio.kernel", "exits/cpuid")
RELATIVE = (
    ("its own floor", lambda u, k: min(u)),
    ("ratio of floors", lambda u, k: min(u) - min(k)),
    ("floor of per-boot ratios", lambda u, k: min(a - b for a, b in zip(u, k))),
    ("median of per-boot ratios",
     lambda u, k: median([a - b for a, b in zip(u, k)])),
    ("difference of floors",
     lambda u, k: math.log(math.exp(min(u)) - math.exp(min(k)))),
)


def mad_sd(vals):
    """A robust sd (1.4826 MADs): a relative figure's noise is two-sided
    (the reference raised lowers it), so the calm cut does not trim it."""
    m = median(vals)
    return 1.4826 * median([abs(v - m) for v in vals])


def relative(rec, boots, ref, draws=50, seed=1):
    """[(name, raised share, calm sd, robust sd, +1 % in robust sds)] of
    pio.user's figures against `ref`, each run's figure from B of its
    boots (drawn `draws` times when B is fewer than recorded)."""
    rng, have = random.Random(seed), len(rec["runs"][0]["boots"])
    draws = 1 if boots >= have else draws
    logs = [[(math.log(b[REL_USER][0]), math.log(b[ref][0]))
             for b in r["boots"]] for r in rec["runs"]]
    lows = sorted(min(v[0] for v in r) for r in logs)
    user = math.exp(lows[len(lows) // 2])
    kern = math.exp(median([min(v[1] for v in r) for r in logs]))
    out = []
    for name, fn in RELATIVE:
        gain = user / (user - kern) if name.startswith("difference") else 1
        acc = [0.0, 0.0, 0.0]
        for _ in range(draws):
            vals = []
            for r in logs:
                pick = rng.sample(r, boots) if boots < have else r
                vals.append(fn([v[0] for v in pick], [v[1] for v in pick]))
            got = floor_spread(vals) + (mad_sd(vals),)
            acc = [a + g / draws for a, g in zip(acc, got)]
        out.append((name, acc[0], acc[1], acc[2], gain * 0.01 / acc[2]))
    return out


def boot_correlation(rec, ref):
    """(r of per-boot deviations from the host's floor, in runs whose
    level is idle and busy; r of the calm runs' floors): is a boot's
    excursion in pio.user met by one in `ref`?"""
    model = Model(rec)
    dev = {True: ([], []), False: ([], [])}
    for i, r in enumerate(rec["runs"]):
        for b in r["boots"]:
            for j, c in enumerate((REL_USER, ref)):
                dev[model.state_of(i)][j].append(
                    math.log(b[c][0]) - model.floor[c])
    fl = [[math.log(min(b[c][0] for b in r["boots"])) for r in rec["runs"]]
          for c in (REL_USER, ref)]
    tops = [sorted(f)[len(f) // 4] + cw.TRIM for f in fl]
    both = [i for i in range(len(fl[0]))
            if fl[0][i] <= tops[0] and fl[1][i] <= tops[1]]
    corr = [statistics.correlation(*dev[s]) if len(dev[s][0]) > 2 else None
            for s in (False, True)]
    return corr + [statistics.correlation(*[[f[i] for i in both]
                                            for f in fl]), len(both)]


def print_relative(rec):
    have = len(rec["runs"][0]["boots"])
    for ref in REL_REF:
        idle, busy, calm, n = boot_correlation(rec, ref)
        print("relative pio.user against %s: correlation of each boot's "
              "excursion above the host's floor %.2f (idle runs), %s "
              "(busy runs); of the run floors where both are calm (%d of "
              "%d runs) %.2f" % (ref, idle, "%.2f" % busy if busy is not
                                 None else "-", n, len(rec["runs"]), calm),
              flush=True)
        for b in sorted({3, 5, 9, have} & set(range(1, have + 1))):
            for name, raised, sd, rsd, step in relative(rec, b, ref):
                print("relative pio.user against %s, %d boots a run, %s: "
                      "raised %.0f %% of runs, calm sd %.2f %%, robust sd "
                      "%.2f %%; +1 %% per QEMU exit is %.1f robust sds" % (
                          ref.split("/")[1], b, name, 100 * raised,
                          100 * sd, 100 * rsd, step), flush=True)


def stepped(rec, rng, runs, step, at, model=None):
    """A replay whose QEMU-exit cases cost (1 + step) times as much from
    run `at` on."""
    user = {c for c in rec["cases"] if rec["cases"][c].get("handler") ==
            "user"}
    out = []
    for i, run in enumerate(replay(rec, rng, runs, model)):
        if i >= at:
            run = {c: [((v[0] * (1 + step) if c in user and v[0] else v[0]),
                        v[1]) for v in b] for c, b in run.items()}
        out.append(run)
    return out


def watch_delay(runs, user, at):
    """Runs after the step until a check after every run flags a stepped
    case (at the step +-1 or later: a late window still names the runs
    around it), or None."""
    n, changes = watched(runs, at + 1, len(runs))
    while n is not None:
        if any(stepped_case(c.key) in user and c.index >= at - 1
               for c in changes):
            return n - at
        n, changes = watched(runs, n + 1, len(runs))
    return None


def step_series(rec, model, source, size, at, seed, i):
    """Series i of a step of +size % at run `at`: recorded runs drawn
    whole with the step multiplied in (replay), or the model's."""
    rng = random.Random(seed * 7919 + i)
    if source == "replay":
        return stepped(rec, rng, at + WATCH_MAX, size / 100.0, at, model)
    return model.series(rng, at + WATCH_MAX, size / 100.0, at)


def watch_steps(rec, model, sizes, series, seed, at=WATCH_AT):
    """Detection rate and delay of --every-run per step size, on replays
    (recorded runs drawn whole, the step multiplied in) and the model."""
    for source in ("replay", "model"):
        for size in sizes:
            found = []
            for i in range(series):
                runs = step_series(rec, model, source, size, at, seed, i)
                found.append(watch_delay(runs, model.user, at))
            got = sorted(d for d in found if d is not None)
            soon = sum(1 for d in got if d <= WATCH_SOON)
            print("%-7s --every-run, step +%g %% per QEMU exit at run %d: "
                  "found in %d of %d series within %d runs (95 %% interval "
                  "%s), %d within %d; delay median %s, 90th percentile %s "
                  "runs (of all series, not found counted as later: %s)"
                  % (source, size, at + 1, len(got), series, WATCH_MAX,
                     rate_interval(len(got), series), soon, WATCH_SOON,
                     median(got) if got else "-",
                     got[int(0.9 * (len(got) - 1))] if got else "-",
                     pct_all(found, 0.9)), flush=True)


DEFAULT_THRESHOLD = cw.THRESHOLD   # the check's own, before --threshold


def settings():
    """What watch-pair compares: the group's CUSUM, the watched cases
    and the CUSUM's threshold."""
    design = WATCH_CUSUM[0]
    return (design.combine, design.keep, frozenset(WATCH_CASES),
            design.threshold)


def use_settings(combine, keep, cases, threshold):
    WATCH_CUSUM[0] = WATCH_CUSUM[0]._replace(
        combine=combine, keep=keep, threshold=threshold)
    WATCH_CASES.clear()
    WATCH_CASES.update(cases)


def watch_pair(rec, model, sizes, series, seed, at=WATCH_AT):
    """--parts watch-pair: the delays of the method asked for (--combine
    ..., --watch-cases ... --threshold S) and of the default (each case
    of the whole family its own CUSUM at the check's threshold) on the
    same series (watch-step's), paired: in how many series each is
    sooner, and the exact two-sided sign test of that (ties left out);
    a step not found within WATCH_MAX runs counts as later than any
    found."""
    asked = settings()
    combine, keep, cases, threshold = asked
    default = (None, False, frozenset(), DEFAULT_THRESHOLD)
    what = " ".join(w for w in (
        "--combine %s" % combine if combine else "",
        "--combine-keep" if keep else "",
        "--watch-cases %s" % ",".join(sorted(cases))
        if cases else "", "--threshold %g" % threshold) if w)
    for source in ("replay", "model"):
        for size in sizes:
            got = []
            for i in range(series):
                runs = step_series(rec, model, source, size, at, seed, i)
                pair = []
                for config in (asked, default):
                    use_settings(*config)
                    d = watch_delay(runs, model.user, at)
                    pair.append(WATCH_MAX + 1 if d is None else d)
                use_settings(*asked)
                got.append(pair)
            sooner = sum(1 for a, b in got if a < b)
            later = sum(1 for a, b in got if a > b)
            p = min(1.0, 2 * medianci.below(sooner + later,
                                            min(sooner, later) + 1))
            print("%-7s step +%g %% per QEMU exit at run %d, %s against "
                  "each case's own CUSUM at %g, %d series: delay median "
                  "%s against %s; sooner in %d, later in %d, the same in "
                  "%d (sign test, two-sided: p %.2g)" % (
                      source, size, at + 1, what, DEFAULT_THRESHOLD,
                      series, median([a for a, _b in got]),
                      median([b for _a, b in got]), sooner, later,
                      series - sooner - later, p), flush=True)


def pct_all(found, q):
    """The q-quantile delay over every series, one not found counting as
    later than any found: "-" when it falls on one not found."""
    ranked = sorted(d if d is not None else math.inf for d in found)
    v = ranked[int(q * (len(ranked) - 1))]
    return "-" if v == math.inf else "%d" % v


def rate_interval(hits, n):
    """"[lo %, hi %]": the exact two-sided 95 % interval of a rate."""
    lo = 1 - binomial_upper(n - hits, n, 0.975) if hits else 0.0
    hi = binomial_upper(hits, n, 0.975)
    return "%.0f-%.0f %%" % (100 * lo, 100 * hi)


def delay(model, rng, step):
    runs = model.series(rng, STEP_AT + MAX_DELAY, step, STEP_AT)
    for k in range(cp.MIN_SEG, MAX_DELAY + 1):
        ana = alarms(runs[:STEP_AT + k])
        if any(abs(c.index - STEP_AT) <= 1 and c.key[2] == "cycles_per_op"
               and "/".join(c.key[:2]) in model.user for c in ana.newest()):
            return k
    return None


def steps(model, sizes, series, seed):
    for size in sizes:
        found = [delay(model, random.Random(seed * 7919 + i), size / 100.0)
                 for i in range(series)]
        got = sorted(d for d in found if d is not None)
        print("step +%g %% per QEMU exit at run %d: found in %d of %d "
              "series within %d runs; delay median %s, 90th percentile %s "
              "runs" % (size, STEP_AT, len(got), series, MAX_DELAY,
                        median(got) if got else "-",
                        got[int(0.9 * (len(got) - 1))] if got else "-"),
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--series", type=int, default=300)
    ap.add_argument("--step-series", type=int, default=20)
    ap.add_argument("--parts", default="replay,model,step")
    ap.add_argument("--steps", default="1,2,5,10")
    ap.add_argument("--drift", type=float, default=10.0,
                    help="--parts drift: %% over the 100 runs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--watch-alpha", type=float, default=cw.ALPHA,
                    help="watch parts: check --every-run's --alpha "
                    "(default %g)" % cw.ALPHA)
    ap.add_argument("--watch-level", choices=sorted(RUN_LEVEL),
                    default="floor", help="watch parts: a run's value is "
                    "its lowest boot (as check --every-run) or, to "
                    "compare, its median boot, or its lowest boot less "
                    "the run's level read from the in-kernel cases "
                    "(kernel-level), or a QEMU-exit case's floor over "
                    "its in-kernel case's, in place of its floor "
                    "(kernel-ratio) or beside it (floor+kernel-ratio)")
    ap.add_argument("--extract", nargs="+", metavar="RESULTS",
                    help="write the fixture's form of these files to "
                    "stdout and stop")
    ap.add_argument("--watch-tests", choices=sorted(WATCH_TESTS),
                    default="cusum", help="watch parts: the tests of "
                    "check --every-run (the lowest floor and the calm "
                    "runs' CUSUM), or, to compare, the lowest floor and "
                    "the calm runs' ranks (the method before), or the "
                    "lowest floor alone")
    ap.add_argument("--boots", type=int, default=BOOTS[0],
                    help="boots a simulated run has (default %d): the "
                    "model draws them from its state's recorded boots; "
                    "a replay takes a random subset of a recorded run's "
                    "boots, or all of them and the rest from its "
                    "state's" % BOOTS[0])
    ap.add_argument("--fixture", default=FIXTURE,
                    help="recorded runs (default tests/fixtures/"
                    "kvm-history-aa.json)")
    ap.add_argument("--case", default="exits/pio.user",
                    help="--parts subsample: the case (default "
                    "exits/pio.user; 'user' for every QEMU-exit case)")
    ap.add_argument("--watch-cases", metavar="CASES",
                    help="watch parts: watch only these cases' series "
                    "(suite/case, comma-separated), as `history check "
                    "--case` narrows the family; default every case")
    ap.add_argument("--k-ref", type=float, default=cw.K_REF,
                    help="watch parts: the CUSUM's reference value "
                    "(default %g)" % cw.K_REF)
    ap.add_argument("--score", choices=sorted(SCORES),
                    default=Cusum().score, help="watch parts: the CUSUM's "
                    "score of a run (default %s)" % Cusum().score)
    ap.add_argument("--clip", type=float, default=CLIP,
                    help="watch parts, --score z: a run's score at most "
                    "(default %g)" % CLIP)
    ap.add_argument("--threshold", type=float, default=cw.THRESHOLD,
                    help="watch parts: the CUSUM's threshold (default %g)"
                    % cw.THRESHOLD)
    ap.add_argument("--combine", choices=COMBINES, default=None,
                    help="watch parts: one CUSUM over the QEMU-exit "
                    "cases' scores of a run, their sum over sqrt(count) "
                    "or mean, in place of each case's own (default: "
                    "each its own)")
    ap.add_argument("--combine-keep", action="store_true",
                    help="watch parts, --combine: each QEMU-exit case "
                    "keeps its own CUSUM beside the combined one")
    ap.add_argument("--combine-k", type=float, default=None,
                    help="watch parts, --combine: its reference value "
                    "(default --k-ref)")
    ap.add_argument("--combine-threshold", type=float,
                    default=None, help="watch parts, "
                    "--combine: its threshold (default --threshold)")
    args = ap.parse_args()
    WATCH_CUSUM[0] = Cusum(
        args.score, args.k_ref, args.clip, args.threshold,
        combine=args.combine, combine_k=args.combine_k,
        combine_threshold=args.combine_threshold, keep=args.combine_keep)
    use_tests(args.watch_tests)
    if args.extract:
        json.dump(extract(args.extract), sys.stdout, separators=(",", ":"))
        return
    WATCH_LEVEL[0] = args.watch_level
    WATCH_ALPHA[0] = args.watch_alpha
    if args.watch_cases:
        WATCH_CASES.update(args.watch_cases.split(","))
        unknown = WATCH_CASES - set(load(args.fixture)["cases"])
        if unknown:
            ap.error("--watch-cases: not in the fixture: %s"
                     % ", ".join(sorted(unknown)))
    if args.boots < 1:
        ap.error("--boots: at least 1")
    BOOTS[0] = args.boots
    rec = load(args.fixture)
    KERNEL.update(c for c in rec["cases"]
                  if rec["cases"][c].get("handler") == "kernel")
    GROUP.update(tuple(c.split("/", 1)) + ("cycles_per_op",)
                 for c in rec["cases"]
                 if rec["cases"][c].get("handler") == "user")
    model = Model(rec)
    print(model.describe(), flush=True)
    if WATCH_CASES:
        print("watching %s only (history check --case)"
              % ", ".join(sorted(WATCH_CASES)), flush=True)
    parts = args.parts.split(",")
    if "replay" in parts:
        rate("replay", lambda rng: replay(rec, rng, RUNS, model), args.series,
             args.seed)
    if "model" in parts:
        rate("model", lambda rng: model.series(rng, RUNS), args.series,
             args.seed)
    if "drift" in parts:
        rate("drift%g" % args.drift, lambda rng: model.series(
            rng, RUNS, drift=args.drift / 100.0), args.series, args.seed)
    if "sequential" in parts:
        sequential("model", lambda rng: model.series(rng, RUNS),
                   args.step_series, args.seed)
    if "step" in parts:
        steps(model, [float(s) for s in args.steps.split(",")],
              args.step_series, args.seed)
    if "watch" in parts:
        watch_rate("replay", lambda rng: replay(rec, rng, RUNS, model),
                   args.series, args.seed)
        watch_rate("model", lambda rng: model.series(rng, RUNS),
                   args.series, args.seed)
        watch_rate("drift%g" % args.drift, lambda rng: model.series(
            rng, RUNS, drift=args.drift / 100.0), args.series, args.seed)
    if "watch-null" in parts:
        watch_null("replay", lambda rng: replay(rec, rng, RUNS, model),
                   args.series, args.seed)
        watch_null("model", lambda rng: model.series(rng, RUNS),
                   args.series, args.seed)
    if "subsample" in parts:
        print_subsample(rec, model, model.user if args.case == "user"
                        else args.case.split(","), args.boots)
    if "relative" in parts:
        print_relative(rec)
    if "watch-oracle" in parts:
        watch_oracle(args.series, args.seed)
    if "scores" in parts:
        print_scores(rec, model, args.series, args.seed,
                     float(args.steps.split(",")[0]) / 100.0)
    if "watch-pair" in parts:
        watch_pair(rec, model, [float(s) for s in args.steps.split(",")],
                   args.step_series, args.seed)
    if "watch-step" in parts:
        watch_steps(rec, model, [float(s) for s in args.steps.split(",")],
                    args.step_series, args.seed)


if __name__ == "__main__":
    main()
