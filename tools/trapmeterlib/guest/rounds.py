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
                                themselves never leave the guest, so the
                                pooled median is not known: "median"
                                after rounds is the lowest of the rounds'
                                medians, and every place that names it to
                                a user says so (stat_label).
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

Rounds after the first (dump schema 4) send no "case" line and, instead
of a result line, a short "round" record (kernel/bench.c emit_round):

  {"type":"round","case":C,"n":5,"i":86,"stop":"budget","ops":433,
   "ms":17.0,"c":[8 cycles],"k":[5 control]}

n, i, ms, c, k are samples, iters, case_ms, cycles and cycles_control
(arrays as in a schema-3 result line).  The suite and the round come
from the suite line before it ({"type":"suite","suite":S,"round":R}),
the case's fields and exits_model from its round-0 result.  Left out
when known: under a plan (round 0's stop "plan") n, i and stop are round
0's; otherwise i 1 and stop "stable"; ops n * i.  from_round() turns
the record back into the result line it stands for.

With no "case" line, CaseOrder names the case running in such a round
(for a hang or an exception): the one after the last "round" record in
round 0's order of the suite's "case" lines (the first after the suite
line).  The guest runs the same cases in the same order every round;
each record's own name resets the position, so a case left out in a
round does not shift the ones after it.
"""

import math

from ..values import resultform
from ..values.numbers import number_or_none
from ..values.resultform import FormError

ROUND_KEY = "round"
ROUND_TYPE = "round"     # a later round's record (dump schema 4)
ROUND_FIELDS = ("type", "case", "n", "i", "stop", "ops", "ms", "c", "k")
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


def _sum(parts, name):
    values = [number_or_none(p.get(name)) for p in parts]
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


def rounds_of(res):
    """How many rounds a merged result was merged from (1 without
    rounds)."""
    parts = res.get("rounds") if isinstance(res, dict) else None
    return len(parts) if isinstance(parts, list) and parts else 1


def stat_label(stat, n):
    """What `stat` (min, p10, median, ...) of a result merged from `n`
    rounds is, in words: after rounds a quantile is the lowest of the
    rounds' figures (each from its least disturbed round), not the
    quantile of the pooled samples, and says so; the minimum is exact
    either way."""
    if n < 2 or stat in ("min", "max"):
        return stat
    return "lowest of %d rounds' %s" % (n, stat)


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

    def first(self, suite, case):
        """The case's first round received (expanded), or None."""
        parts = self.parts.get((suite, case))
        return parts[0] if parts else None

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


def _uint_field(rec, key, default):
    value = rec.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise FormError("round record: %s must be an unsigned integer" % key)
    return value


def _round_counts(rec, first):
    """(samples, iters, stop) of a round record, defaults filled in."""
    planned = first.get("stop") == "plan"
    if "n" not in rec and not planned:
        raise FormError("round record without n (samples) in an adaptive "
                        "round")
    samples = _uint_field(rec, "n", first.get("samples") if planned else 0)
    iters = _uint_field(rec, "i", first.get("iters") if planned else 1)
    stop = rec.get("stop", "plan" if planned else "stable")
    if not isinstance(stop, str) or not stop:
        raise FormError("round record: stop must be a word")
    return samples, iters, stop


def from_round(rec, suite, rnd, first):
    """The schema-3 result line a "round" record stands for (a new dict);
    suite and rnd from the suite line before it, first the case's round-0
    result (or None).  FormError names what is wrong."""
    case = rec.get("case")
    if not isinstance(case, str) or not case:
        raise FormError("round record without its case name")
    unknown = sorted(k for k in rec if k not in ROUND_FIELDS)
    if unknown:
        raise FormError("round record: unknown field %s" % unknown[0])
    if rnd is None:
        raise FormError("round record for %s outside a later round (no "
                        "suite line with a round before it)" % case)
    if first is None or first.get(ROUND_KEY) != 0:
        raise FormError("round record for %s/%s, which has no round-0 "
                        "result" % (suite, case))
    samples, iters, stop = _round_counts(rec, first)
    ms = rec.get("ms")
    if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
        raise FormError("round record: ms must be a number")
    out = {"type": "result", "suite": suite, "case": case, ROUND_KEY: rnd,
           "samples": samples, "iters": iters, "stop": stop,
           "cycles": rec.get("c")}
    if "k" in rec:
        out["cycles_control"] = rec["k"]
    out.update(exits_model=first.get("exits_model"),
               ops=_uint_field(rec, "ops", samples * iters), case_ms=ms)
    return out


class CaseOrder:
    """Which case is running, from the progress lines and, in rounds
    after the first, from round 0's order (see the module comment)."""

    def __init__(self):
        self.order = {}         # suite -> round 0's cases, in order
        self.where = {}         # suite -> {case: its place in order}
        self.suite = None
        self.round = None       # the later round running, else None
        self.running = None     # "suite/case"

    def suite_line(self, rec):
        self.suite = rec.get("suite")
        rnd = rec.get(ROUND_KEY)
        self.round = rnd if is_round(rec) and rnd > 0 else None
        if self.round is not None:
            self._expect(0)

    def case_line(self, rec):
        suite, case = rec.get("suite"), rec.get("case")
        if self.round is None and isinstance(case, str):
            where = self.where.setdefault(suite, {})
            if case not in where:
                where[case] = len(where)
                self.order.setdefault(suite, []).append(case)
        self.running = "%s/%s" % (suite, case)

    def round_done(self, case):
        """A later round's record of case arrived: the next one runs."""
        place = self.where.get(self.suite, {}).get(case)
        self.running = "%s/%s" % (self.suite, case)
        if place is not None:
            self._expect(place + 1)

    def _expect(self, place):
        order = self.order.get(self.suite) or []
        if place < len(order):
            self.running = "%s/%s" % (self.suite, order[place])
