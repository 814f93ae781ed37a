"""A speed-up: a REP or DMA row against its single-unit twin (same suite,
port, direction, width, size and buffer offset), the single loop's median
over the row's -- the one place that makes it a figure by the rule
(values/figure.speedup), for every output: the results table, the
summary, the HTML report, the firmware suite's lines and results.json.

  one boot        the ratio of the two medians, with the interval the
                  boot's samples give, at least LEVEL sure
                  (stats/medianci.ratio_interval); too few samples for
                  one: not resolved, TOO_FEW
  over boots      the mean of every boot's ratio with its BOOTS_LEVEL t
                  interval (stats/tdist.t_interval); one boot's ratio
                  alone: not resolved, ONE_BOOT

Either figure is not resolved, too, where its interval holds zero or
1x (values/figure.speedup).  results.json keeps the figure by
figure.put under "speedup" ("speedup_ci", "speedup_reason"; schema 4);
stored() reads it back, and reads a file written before (schema 3 and
older: a bare "speedup") as not resolved, NOT_STORED.

Pure: no I/O."""

from ..values import figure
from ..values.numbers import is_number
from . import medianci
from .tdist import t_interval

KEY = "speedup"
# of one boot's interval from its samples: 6 samples a side reach it from
# their minima and maxima (medianci.samples_needed); the guest's floor
# under a budget stop is 6 (kernel/bench.c BENCH_MIN_SAMPLES)
LEVEL = 0.90
BOOTS_LEVEL = 0.95          # the summary's interval over boots
TOO_FEW = ("too few samples for a %d %% interval (%d a side; \"samples\" "
           "in results.json)" % (round(100 * LEVEL),
                                 medianci.samples_needed(LEVEL)))
NO_MEDIAN = "a median missing or at zero"
ONE_BOOT = "one boot's ratio: no interval over boots"
NOT_STORED = ("no interval stored (results.json schema 3 or older; "
              "`compare` reads such a file with it)")
# what "(a-b)" after a speed-up is, in a legend
BOOT_NOTE = ("(a-b): where the ratio of medians lies, at least %d %% sure, "
             "from this boot's samples" % round(100 * LEVEL))
BOOTS_NOTE = ("(a-b): the %d %% t interval of the mean of the boots' ratios"
              % round(100 * BOOTS_LEVEL))


def _median(res):
    cycles = res.get("cycles") if isinstance(res, dict) else None
    value = cycles.get("median") if isinstance(cycles, dict) else None
    return value if is_number(value) else None


def ratio(single, fast):
    """The single row's median over the fast (REP or DMA) row's, or None
    when either is missing or the fast one is not above zero."""
    theirs, mine = _median(single), _median(fast)
    if theirs is None or mine is None or mine <= 0:
        return None
    return theirs / mine


def of_boot(fast, single, quantiles=True):
    """One boot's speed-up figure of `fast` against its twin `single`.
    quantiles=False where either row was merged from rounds (its p10 and
    p90 are no order statistics of the pooled samples)."""
    point = ratio(single, fast)
    if point is None:
        return figure.not_resolved(NO_MEDIAN)
    got = medianci.ratio_interval(single.get("cycles"), single.get("samples"),
                                  fast.get("cycles"), fast.get("samples"),
                                  LEVEL, quantiles=quantiles)
    if got is None:
        return figure.not_resolved(TOO_FEW)
    lo, hi, _sure = got
    return figure.speedup(point, [lo, hi])


def over_boots(ratios):
    """The speed-up over boots from each boot's ratio (None: that boot
    had none): the mean with its BOOTS_LEVEL t interval."""
    vals = [v for v in ratios if is_number(v)]
    if not vals:
        return figure.not_resolved(NO_MEDIAN)
    if len(vals) < 2:
        return figure.not_resolved(ONE_BOOT)
    mean, interval = t_interval(vals, BOOTS_LEVEL)
    return figure.speedup(mean, interval)


def put(res, fig):
    """Store a speed-up figure in a result (None: no speed-up applies to
    it, no twin): "speedup" the value or null, "speedup_ci" its interval,
    "speedup_reason" why it is not resolved."""
    res.pop(KEY + figure.CI_SUFFIX, None)
    res.pop(KEY + figure.REASON_SUFFIX, None)
    if fig is None:
        res[KEY] = None
        return res
    return figure.put(res, KEY, fig)


def stored(res):
    """The speed-up figure put() stored, or None where none applies (a
    single row, a row without a twin).  A number without its interval or
    a reason (a file before schema 4) is not resolved, NOT_STORED."""
    if not isinstance(res, dict):
        return None
    value = res.get(KEY)
    why = res.get(KEY + figure.REASON_SUFFIX)
    if value is None and not why:
        return None
    if value is None or not is_number(value):
        return figure.not_resolved(why if isinstance(why, str) and why
                                   else figure.NO_DATA)
    interval = res.get(KEY + figure.CI_SUFFIX)
    if not (isinstance(interval, list) and len(interval) == 2
            and all(is_number(v) for v in interval)):
        return figure.not_resolved(NOT_STORED)
    return figure.speedup(value, interval)
