#!/usr/bin/env python3
"""tests/host/ab_simulation.py - ab's sequential rule in simulated sessions.

Sessions are drawn WITHOUT replacement from a pool of boots and run through
abtest's looks (tools/trapmeterlib/abtest.py: the same Sequential, the
same compare at each look's level).  Two questions, each a rate over
sessions with its exact (Clopper-Pearson) one-sided upper bound:

  A/A     both sides from one pool: how often any timing metric is flagged
          (target: at most alpha);
  shift   side B's QEMU-port cases (handler user) made dearer by a true
          shift: how often a shifted metric is frozen "unchanged"
          (target: at most 5 %).

Pools:
  recorded  the 24 boots of the recorded A/A ab session
            (tests/fixtures/kvm-ab-aa-*.json).  Too small for the question:
            a session of 24 boots takes every one of them, so sessions
            differ only in the order of one set of boots and tell nothing
            about the host's next boots;
  model     a PARAMETRIC MODEL fitted to that session (fit() below): per
            case its level and spread, a per-boot level shared by the
            cases of a boot (the recorded cases correlate 0.6 within a
            boot), and the slow mode -- boots a host disturbance hits
            across most cases, and single cases hit in calm boots, by the
            excesses recorded (10-40 %).  A pool of MODEL_POOL boots is
            drawn from it once; sessions are drawn from that pool.

Run as a script for the figures (about 15 minutes on 2 shared cores):
    python3 tests/host/ab_simulation.py --sessions 500
    python3 tests/host/ab_simulation.py --parts margin --rule before
(the second: the rule before, a 95 % interval at every look, for
comparison).  tests/host/test_abtest.py runs small versions of the same.
"""
import argparse
import contextlib
import copy
import itertools
import math
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.output import resultsfile  # noqa: E402
from trapmeterlib.stats import abtest, bootstats, compare  # noqa: E402
from trapmeterlib.stats import equivalence  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures")
MODEL_POOL = 4000
EPISODE_SHARE = 0.3     # a boot with this share of its cases hit: an episode
MARGIN_CASE = "fwcfg.in8.single.512"    # a QEMU-port case (handler user)


# ---------------------------------------------------------------- pools

def recorded_pool(prefix="kvm-ab-aa"):
    """Both sides' boots of a recorded ab session."""
    boots = []
    for side in "ab":
        doc = resultsfile.read_results(os.path.join(FIX, "%s-%s.json"
                                                % (prefix, side)))
        boots += copy.deepcopy(compare.boot_results(doc))
    return [{"results": results} for results in boots]


def _cells(boots):
    """{case key: {boot: log min}}, and each case's handler."""
    cells, handler = {}, {}
    for i, boot in enumerate(boots):
        for res in boot["results"]:
            key = (res["suite"], res["case"])
            cells.setdefault(key, {})[i] = math.log(res["cycles"]["min"])
            handler[key] = res.get("handler")
    return cells, handler


def fit_exits(boots):
    """Per case, what the exit counter read in the recorded boots: the
    median count, each boot's deviation from it, each boot's measured
    background per op, the model's count and the counter -- the model
    draws a boot's count as the median plus a recorded deviation, and its
    background from the recorded ones (each independently)."""
    out = {}
    for boot in boots:
        for res in boot["results"]:
            count = res.get("exits_measured")
            if not isinstance(count, (int, float)):
                continue
            one = out.setdefault((res["suite"], res["case"]), {
                "counts": [], "background": [],
                "model": res.get("exits_model"),
                "source": res.get("exits_source")})
            one["counts"].append(count)
            if isinstance(res.get("exits_background_max"), (int, float)):
                one["background"].append(res["exits_background_max"])
    for one in out.values():
        level = statistics.median(one["counts"])
        one["level"] = level
        one["dev"] = [c - level for c in one.pop("counts")]
    return out


def fit(boots):
    """The model's parameters from recorded boots of one session."""
    cells, handler = _cells(boots)
    n = len(boots)
    level, top, hit = {}, {}, {}
    for key, vals in cells.items():
        band = bootstats.undisturbed(list(vals.values()))
        level[key], top[key] = statistics.mean(band), max(band)
        hit[key] = {i for i, v in vals.items() if v > top[key]}
    share = [sum(i in hit[k] for k in cells) / len(cells) for i in range(n)]
    episodes = [i for i in range(n) if share[i] >= EPISODE_SHARE]
    calm = [i for i in range(n) if not any(i in hit[k] for k in cells)]
    single = sum(i in hit[k] for k in cells for i in range(n)
                 if i not in episodes)
    boot_level = {i: statistics.mean(cells[k][i] - level[k] for k in cells)
                  for i in calm}
    noise = {k: statistics.pstdev([cells[k][i] - level[k] - boot_level[i]
                                   for i in calm]) for k in cells}
    mean_noise = statistics.mean(v * v for v in noise.values())
    return {
        "level": level, "handler": handler, "noise": noise,
        "boot_sd": math.sqrt(max(0.0, statistics.pvariance(
            list(boot_level.values())) - mean_noise / len(cells))),
        "p_episode": len(episodes) / n,
        "hit_in_episode": statistics.mean(share[i] for i in episodes)
        if episodes else 0.0,
        "p_single": single / max(1, (n - len(episodes)) * len(cells)),
        "excess": sorted(cells[k][i] - level[k] for k in cells
                         for i in hit[k]),
        "exits": fit_exits(boots),
        "boots": n, "calm": len(calm), "episodes": len(episodes)}


def model_boot(params, rng):
    """One boot drawn from the model."""
    shared = rng.gauss(0.0, params["boot_sd"])
    episode = rng.random() < params["p_episode"]
    p_hit = params["hit_in_episode"] if episode else params["p_single"]
    results = []
    for key, level in params["level"].items():
        value = level + shared + rng.gauss(0.0, params["noise"][key])
        if rng.random() < p_hit:
            value += rng.choice(params["excess"])
        cycles = math.exp(value)
        res = {"type": "result", "suite": key[0], "case": key[1],
               "handler": params["handler"][key],
               "cycles": {"min": cycles, "p10": cycles * 1.002,
                          "median": cycles * 1.01}}
        exits = (params.get("exits") or {}).get(key)
        if exits:
            model_count(res, exits, rng)
        results.append(res)
    return {"results": results}


def model_count(res, exits, rng):
    """A boot's exit count of one case from the fitted counts: the median
    plus a recorded deviation, a recorded background; cycles_per_exit as
    the runner gives it (none where the count is below 0.5)."""
    count = exits["level"] + rng.choice(exits["dev"])
    res.update(exits_measured=count, exits_model=exits["model"],
               exits_source=exits["source"])
    if exits["background"]:
        res["exits_background_max"] = rng.choice(exits["background"])
    if count >= compare.EXITS_FLOOR:
        res["cycles_per_exit"] = res["cycles"]["min"] / count


def model_pool(params, size=MODEL_POOL, seed=1):
    rng = random.Random(seed)
    return [model_boot(params, rng) for _ in range(size)]


def calm(params):
    """The model without its slow mode: a calm host, whose narrow
    intervals make "unchanged" reachable -- the case that tests the
    equivalence rule at the margin (a true shift of exactly t)."""
    return dict(params, p_episode=0.0, p_single=0.0)


def only_cases(pool, names):
    """The pool's boots with only the named cases."""
    return [{"results": [r for r in b["results"] if r["case"] in names]}
            for b in pool]


def describe(params):
    noise = sorted(100 * v for v in params["noise"].values())
    return ("parametric model fitted to %d recorded boots: per-case noise "
            "%.2f-%.2f %%, per-boot level sd %.2f %%, episodes %.0f %% of "
            "boots hitting %.0f %% of their cases, single hits %.1f %% of "
            "calm cases, excess %.0f-%.0f %%" % (
                params["boots"], noise[0], noise[-1],
                100 * params["boot_sd"], 100 * params["p_episode"],
                100 * params["hit_in_episode"], 100 * params["p_single"],
                100 * (math.exp(params["excess"][0]) - 1),
                100 * (math.exp(params["excess"][-1]) - 1)))


# ---------------------------------------------------------------- sessions

def slower(factor):
    """Side B's copy of a boot with its QEMU-port cases `factor` dearer."""
    def shift(boot):
        out = copy.deepcopy(boot)
        for res in out["results"]:
            if res.get("handler") == "user":
                for key in ("min", "p10", "median"):
                    res["cycles"][key] *= factor
        return out
    return shift


def slow_mode(factor, share, seed=7):
    """Side B's copy of a boot, its QEMU-port cases `factor` dearer in a
    `share` of B's boots (drawn per boot): a regression that comes as a
    slow mode, not as a shift of every boot."""
    rng = random.Random(seed)
    hit = slower(factor)

    def shift(boot):
        return hit(boot) if rng.random() < share else boot
    return shift


@contextlib.contextmanager
def random_splits():
    """Random label splits at every look (EXACT_MAX 0): still an exact-
    level permutation test (p = (1 + hits) / (1 + resamples)), faster than
    enumerating the 12870 splits of 8+8 boots."""
    saved = bootstats.EXACT_MAX
    bootstats.EXACT_MAX = 0
    try:
        yield
    finally:
        bootstats.EXACT_MAX = saved


class Setting:
    """What one simulated ab session runs with."""

    def __init__(self, max_boots=abtest.DEFAULT_MAX_BOOTS,
                 looks=abtest.DEFAULT_LOOKS, alpha=compare.DEFAULT_ALPHA,
                 threshold=compare.DEFAULT_THRESHOLD, resamples=400,
                 metrics=("cycles_per_op", "exits_per_op"), count_boots=3):
        self.max_boots, self.looks, self.alpha = max_boots, looks, alpha
        self.threshold, self.resamples = threshold, resamples
        self.metrics, self.count_boots = tuple(metrics), count_boots

    def __str__(self):
        return ("%d boots max, %d looks, alpha %g, threshold %g %%, %d "
                "random splits a look, exits counted in %s boots a side"
                % (self.max_boots, self.looks, self.alpha,
                   100 * self.threshold, self.resamples,
                   "every" if self.count_boots is None else
                   "%d" % self.count_boots))


def run_sessions(pool, sessions, seed, setting, shift=None):
    """[frozen verdicts of each session] ({(name, metric): (verdict, n)})."""
    rng = random.Random(seed)
    out = []
    with random_splits():
        for _ in range(sessions):
            out.append(abtest.session_verdicts(
                pool, rng, setting.max_boots, setting.looks, setting.alpha,
                setting.metrics, setting.resamples, shift,
                {"*": setting.threshold}, setting.count_boots))
    return out


def alarms(verdicts, metrics=None):
    """Sessions with any row flagged (timing and exit rows alike), or any
    of `metrics` only."""
    return sum(any(v in ("regression", "improvement")
                   and (metrics is None or k[1] in metrics)
                   for k, (v, _n) in s.items()) for s in verdicts)


def wrong_unchanged(verdicts, shifted):
    """Sessions in which a shifted metric was frozen "unchanged"."""
    return sum(any(s.get(k, ("", 0))[0] == "unchanged" for k in shifted)
               for s in verdicts)


def shifted_keys(pool):
    return sorted(("%s/%s" % (r["suite"], r["case"]), "cycles_per_op")
                  for r in pool[0]["results"] if r.get("handler") == "user")


def rate_line(what, k, n, target):
    upper = abtest.binomial_upper(k, n, 0.99)
    return "%-44s %4d/%-5d = %5.2f %%  (99 %% upper bound %5.2f %%; target " \
        "<= %g %%)" % (what, k, n, 100.0 * k / n, 100 * upper, 100 * target)


def part_aa(ctx, args):
    """The done-when of issue 32: A/A sessions of the default setting on
    the model pool, exit counts with their background counted in boots
    1, 2, 4 of a side; any alarm, timing or exit row."""
    setting = Setting()
    verdicts = run_sessions(ctx["pool"], args.sessions, args.seed, setting)
    print(rate_line("model pool, A/A, any alarm (timing and exits)",
                    alarms(verdicts), args.sessions, setting.alpha))
    print(rate_line("... of them on an exit row", alarms(
        verdicts, ("exits_per_op",)), args.sessions, setting.alpha))


def replays():
    """Every recorded A/A pair replayed as ab would look at it (its boots
    in order as rounds; the files not from one session are taken as if
    interleaved, the stronger test): [(name, rows, exit status)]."""
    out = []
    for a, b in RECORDED_AA:
        rows, _seq = abtest.replay(
            resultsfile.read_results(os.path.join(FIX, a)),
            resultsfile.read_results(os.path.join(FIX, b)),
            metrics=("cycles_per_op", "exits_per_op"), resamples=400)
        out.append(("%s/%s" % (a, b), rows, compare.exit_status(rows)))
    run3 = resultsfile.read_results(os.path.join(FIX, "kvm-run3.json"))
    boots = compare.boot_results(run3)
    for i, j in itertools.combinations(range(len(boots)), 2):
        one = [dict(run3, boots=[{"results": boots[k]}]) for k in (i, j)]
        rows, _w = compare.compare_docs(*one, interleaved=True)
        out.append(("kvm-run3 boot %d/%d" % (i + 1, j + 1), rows,
                    compare.exit_status(rows)))
    return out


RECORDED_AA = (("kvm-ab-aa-a.json", "kvm-ab-aa-b.json"),
               ("tcg-ab-aa-a.json", "tcg-ab-aa-b.json"),
               ("kvm-base.json", "kvm-aa.json"),
               ("tcg-base.json", "tcg-aa.json"))


def part_replays(_ctx, _args):
    got = replays()
    bad = [(name, [(r.name, r.metric, r.verdict) for r in rows
                   if r.verdict in ("regression", "improvement")])
           for name, rows, _status in got
           if any(r.verdict in ("regression", "improvement") for r in rows)]
    print(rate_line("recorded A/A pairs replayed, any alarm", len(bad),
                    len(got), compare.DEFAULT_ALPHA))
    for name, flagged in bad:
        print("  %s: %s" % (name, flagged))


def part_shift(ctx, args):
    verdicts = run_sessions(ctx["pool"], args.sessions, args.seed + 1,
                            Setting(), slower(1 + args.shift / 100.0))
    print(rate_line("model pool, +%g %%, a shifted case unchanged"
                    % args.shift, wrong_unchanged(
                        verdicts, shifted_keys(ctx["pool"])),
                    args.sessions, 0.05))


def part_margin(ctx, args):
    """A true shift of exactly t on the calm model (one QEMU-port case)."""
    pool = only_cases(model_pool(calm(ctx["params"])), (MARGIN_CASE,))
    for looks in (abtest.DEFAULT_LOOKS, 8):
        setting = Setting(max_boots=40, looks=looks,
                          threshold=args.shift / 100.0)
        verdicts = run_sessions(pool, args.sessions, args.seed + 2, setting,
                                slower(1 + args.shift / 100.0))
        print(rate_line("calm model, +%g %% at t = %g %%, %d looks, "
                        "unchanged" % (args.shift, args.shift, looks),
                        wrong_unchanged(verdicts, shifted_keys(pool)),
                        args.sessions, compare.DEFAULT_ALPHA / 2))


def part_recorded(ctx, args):
    verdicts = run_sessions(ctx["recorded"], args.sessions, args.seed + 3,
                            Setting(max_boots=16))
    print(rate_line("recorded pool (24 boots), A/A, 8+8 a session",
                    alarms(verdicts), args.sessions, compare.DEFAULT_ALPHA))


def part_slowmode(ctx, args):
    """+20 % in 37.5 % of B's boots (about 30-45 % of a session's), on the
    QEMU-port cases: sessions that flag one of them (the former rule
    flagged 1 of 40), and how many as "changed mode"."""
    verdicts = run_sessions(ctx["pool"], args.sessions, args.seed + 4,
                            Setting(), slow_mode(1.2, 0.375))
    keys = shifted_keys(ctx["pool"])
    found = sum(any(s.get(k, ("", 0))[0] == "regression" for k in keys)
                for s in verdicts)
    print("model pool, +20 %% in 37.5 %% of B's boots: a QEMU-port case "
          "flagged in %d of %d sessions" % (found, len(verdicts)))


PARTS = {"aa": part_aa, "slowmode": part_slowmode, "shift": part_shift, "margin": part_margin,
         "recorded": part_recorded, "replays": part_replays}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shift", type=float, default=1.0,
                        help="true shift of side B's QEMU-port cases, %%")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="which of %s (default all)" % ",".join(PARTS))
    parser.add_argument("--rule", choices=("looks", "before"),
                        default="looks", help="unchanged at each look's "
                        "level (looks), or the rule before: the 95 %% "
                        "interval at every look (for comparison)")
    args = parser.parse_args(argv)
    if args.rule == "before":
        equivalence.level = lambda alpha: 0.95
    recorded = recorded_pool()
    ctx = {"recorded": recorded, "params": fit(recorded)}
    ctx["pool"] = model_pool(ctx["params"])
    print(describe(ctx["params"]))
    print("setting: %s (margin: 40 boots max; recorded: 16)" % Setting())
    begin = time.monotonic()
    for name in args.parts.split(","):
        PARTS[name](ctx, args)
    print("# %.0f s" % (time.monotonic() - begin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
