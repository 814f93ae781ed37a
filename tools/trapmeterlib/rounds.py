"""Merge a boot's rounds of one case into the one result the tool sees.

With the kernel word rounds=N the pio and exits suites pass N times over
their cases (kernel/bench.c); every result line then carries "round".
Host noise comes in episodes of seconds that slow every case they cover
(docs/design.md, "Statistics and verdicts"), so a case's fastest round is
its least disturbed one, and the per-boot minimum over rounds keeps it.

The merged result (pure functions, fed by the dump parser as lines arrive,
so run, parse, compare's replay and breakdown all see the same record):
  samples, case_ms, ops_total   sums over the rounds
  cycles.min / .max             minimum / maximum over rounds (exact)
  p10, median, p90, p99         the lowest of the rounds' figures: each
                                statistic from its least disturbed round
                                (interference only adds time), never a mix
                                of episodes; the order min <= p10 <= ...
                                <= max still holds.  The samples
                                themselves never leave the guest.
  cycles.mean / .stddev         over all samples, from the rounds' integer
                                figures (within a cycle of the guest's own)
  cycles_control                the same rules
  ops, sync, exits              the counted round's (the guest counts
                                exits in round 0 only), so exits_measured
                                stays exactly what one window measured
  rounds                        per round: round, samples, iters, ops, stop,
                                min, p10, median (and the control's min),
                                so disturbed rounds stay visible
  fastest_round                 the round of the minimum
"""

import math

from . import resultform

ROUND_KEY = "round"
MAX_ROUNDS = 16          # kernel/cmdline.h CMDLINE_MAX_ROUNDS
# ab's and sensitivity's default (docs/design.md, "Statistics and
# verdicts": chosen by measurement)
DEFAULT_ROUNDS = 4
QUANTILES = ("p10", "median", "p90", "p99")


def round_samples(samples, rounds):
    """A case's samples per round for a plan of `samples` in total:
    ceil(samples / rounds), as kernel/plan.c plan_round_samples."""
    rounds = max(1, int(rounds))
    return -(-int(samples) // rounds)


def planned_total(samples, rounds):
    """The samples a boot of `rounds` rounds takes for a plan entry."""
    return max(1, int(rounds)) * round_samples(samples, rounds)


def is_round(rec):
    """True for a guest result line that is one round of a case."""
    value = rec.get(ROUND_KEY)
    return isinstance(value, int) and not isinstance(value, bool)


def _summary(rec):
    cycles = rec.get("cycles") or {}
    out = {"round": rec.get(ROUND_KEY), "samples": rec.get("samples"),
           "iters": rec.get("iters"), "ops": rec.get("ops"),
           "stop": rec.get("stop"),
           "min": cycles.get("min"), "p10": cycles.get("p10"),
           "median": cycles.get("median")}
    control = rec.get("cycles_control")
    if isinstance(control, dict):
        out["control_min"] = control.get("min")
    return out


def key(rec):
    return (rec.get("suite"), rec.get("case"))


def _num(value):
    return value if isinstance(value, (int, float)) and \
        not isinstance(value, bool) else None


def _sum(parts, name):
    values = [_num(p.get(name)) for p in parts]
    if any(v is None for v in values):
        return None
    total = sum(values)
    return round(total, 1) if isinstance(total, float) else total


def fastest(parts):
    """The round with the lowest minimum (the earliest on a tie)."""
    return min(parts, key=lambda p: (p["cycles"]["min"], p[ROUND_KEY]))


def pooled(parts, name):
    """(mean, stddev) over all samples of the rounds, from each round's
    sample count, mean and sample stddev (stddev None without one)."""
    ns = [p.get("samples") or 0 for p in parts]
    stats = [p[name] for p in parts]
    total = sum(ns)
    if not total:
        return stats[0].get("mean"), stats[0].get("stddev")
    mean = sum(n * s["mean"] for n, s in zip(ns, stats)) / total
    if any("stddev" not in s for s in stats) or total < 2:
        return round(mean), None
    sq = sum(max(n - 1, 0) * s["stddev"] ** 2 + n * (s["mean"] - mean) ** 2
             for n, s in zip(ns, stats))
    return round(mean), round(math.sqrt(sq / (total - 1)))


def _merge_stats(parts, name):
    """min and every quantile: the lowest of the rounds' (min exact);
    max: the highest (exact); mean and stddev over all samples."""
    stats = [p[name] for p in parts]
    out = dict(stats[0])
    for stat in ("min",) + QUANTILES:
        if stat in out:
            out[stat] = min(s[stat] for s in stats)
    out["max"] = max(s["max"] for s in stats)
    if "mean" in out:
        out["mean"], stddev = pooled(parts, name)
        if stddev is not None:
            out["stddev"] = stddev
    return out


def _counted(parts):
    """The round the runner counted exits in (the guest counts in
    round 0 only), else None."""
    return next((p for p in parts if p.get("sync") is not None), None)


def merge(parts, khz):
    """The one result of a case from its rounds (expanded schema-2
    records of one case, in order), as a new record."""
    best, counted = fastest(parts), _counted(parts)
    merged = dict(parts[0])
    merged.pop(ROUND_KEY, None)
    merged["cycles"] = _merge_stats(parts, "cycles")
    if all(isinstance(p.get("cycles_control"), dict) for p in parts):
        merged["cycles_control"] = _merge_stats(parts, "cycles_control")
    for name in ("samples", "case_ms"):
        merged[name] = _sum(parts, name)
    merged["ops_total"] = _sum(parts, "ops")
    merged["ops"] = counted.get("ops") if counted else merged["ops_total"]
    if counted is not None:
        merged["sync"] = counted["sync"]
    stops = [str(p.get("stop")) for p in parts]
    merged["stop"] = "/".join(sorted(set(stops)))
    merged["rounds"] = [_summary(p) for p in parts]
    merged["fastest_round"] = best[ROUND_KEY]
    resultform.derive(merged, khz)
    return merged


def run_khz(run):
    """The TSC kHz of a run record (None when missing)."""
    tsc = run.get("tsc") if isinstance(run, dict) else None
    return tsc.get("khz") if isinstance(tsc, dict) else None


class Merger:
    """Feeds a dump's results list: a case's first round is appended (as
    its merged record), later rounds update that record in place."""

    def __init__(self, results):
        self.results = results
        self.parts = {}
        self.merged = {}

    def add(self, rec, run):
        """Take one result record; True when it was a round (kept)."""
        if not is_round(rec):
            return False
        k = key(rec)
        parts = self.parts.setdefault(k, [])
        parts.append(rec)
        new = merge(parts, run_khz(run))
        if k not in self.merged:
            self.merged[k] = new
            self.results.append(new)
        else:
            self.merged[k].clear()
            self.merged[k].update(new)
        return True
