"""What `trapmeter history check` prints: per series its runs and
changes, for each change the last run before and the first after (their
subjects) and the shift with its interval.  Pure: returns text."""

import math

from ..stats.changepoint import MIN_SEG
from ..stats.changewatch import AFTER, CUSUM, MIN_BEFORE, boots_note
from ..stats.runlevel import measure_text
from ..values import figure

COMMIT_CHARS = 12


def share(log_shift):
    """A shift in logs as the relative change it is (0.098: +9.8 %)."""
    return math.exp(log_shift) - 1.0


def shift_text(change, short=False):
    """"+9.8 % [+7.1..+12.3, 95 % interval] (Hodges-Lehmann ...)" of a
    level change (without the parenthesis when `short`: a table's head
    says it), the counts of a count change."""
    if change.kind == "count":
        return "%.2f -> %.2f per op (count)" % (
            sorted(change.before)[len(change.before) // 2],
            sorted(change.after)[len(change.after) // 2])
    if change.lo is None or change.coverage is None:
        return "%s [interval not resolved: too few runs]" % \
            figure.percent_text(figure.measured(share(change.shift)),
                                signed=True)
    fig = figure.measured(share(change.shift),
                          [share(change.lo), share(change.hi)])
    text = figure.percent_text(fig, signed=True, level=change.coverage)
    if short:
        return text
    return text + " (Hodges-Lehmann shift of the runs after over the " \
        "runs before)"


def subject_text(run, number):
    """"run 6: commit abc (date), QEMU v build b, kernel k, firmware f"."""
    parts = []
    if run.get("commit_id"):
        parts.append("commit %s%s" % (run["commit_id"][:COMMIT_CHARS],
                                      " (%s)" % run["commit_date"]
                                      if run.get("commit_date") else ""))
    if run.get("describe"):
        parts.append("describe %s" % run["describe"])
    parts.append("QEMU %s build %s" % (run.get("qemu_version") or "?",
                                       (run.get("qemu_build") or "?")[:16]))
    parts.append("kernel %s" % (run.get("kernel") or "?"))
    parts.append("firmware %s" % (run.get("firmware") or "?"))
    if run.get("label"):
        parts.append("label %s" % run["label"])
    return "run %d: %s [%s]" % (number, ", ".join(parts), run["source"])


def key_name(ser, key):
    """"suite/case/metric" of a figure series, with what one op measured
    when its case and metric has several series (a measure each)."""
    name = "%s/%s/%s" % tuple(key[:3])
    if key[:3] in getattr(ser, "measures", {}):
        name += " [%s]" % measure_text(key[3])
    return name


def key_text(ser, key):
    """"suite/case metric", and its measure as key_name() gives it."""
    name = "%s/%s %s" % tuple(key[:3])
    if key[:3] in getattr(ser, "measures", {}):
        name += " [%s]" % measure_text(key[3])
    return name


def ordered(ser):
    """The figure series of a series, by case and metric, then by each
    measure's first run."""
    return sorted(ser.figures, key=lambda k: (tuple(k[:3]), min(
        ser.figures[k]["runs"])))


def run_ranges(numbers):
    """"1-6, 9, 11-12" of sorted run numbers."""
    spans = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join("%d" % a if a == b else "%d-%d" % (a, b)
                     for a, b in spans)


def measure_runs(ser, key):
    """The run numbers (from 1) of a figure series."""
    runs = ser.figures[key]["runs"]
    return [i for i, r in enumerate(ser.runs, 1) if r["id"] in runs]


def measure_lines(ser):
    """A line per case with several measures (its metrics together when
    their measures cover the same runs): each measure is a series of its
    own, with its runs."""
    cases = {}
    for base, whats in sorted(ser.measures.items()):
        parts = "; ".join("%s (runs %s)" % (
            measure_text(w) or "unsaid",
            run_ranges(measure_runs(ser, base + (w,)))) for w in whats)
        cases.setdefault((base[:2], parts), []).append(base[2])
    return ["  %s/%s %s: a series per measure (another measure is another "
            "measurement, not a step): %s" % (case + (", ".join(metrics),
                                                      parts))
            for (case, parts), metrics in cases.items()]


def host_text(fields):
    """A short line of the series' host."""
    return "host %s, kernel %s, %s; accel %s" % (
        fields.get("backend"), fields.get("kernel.release"),
        fields.get("cpu.model_name"),
        fields.get("method.accel") or "not recorded")


def series_line(ser):
    """"series KEY: N runs, M series of cases and metrics (host ...)":
    the head of a series' check, one-look or after every run."""
    return "series %s: %d runs, %d series of cases and metrics (%s)" % (
        ser.host["key"], len(ser.runs), len(ser.figures),
        host_text(ser.host["fields"]))


def evidence(change, threshold=None):
    """"statistic 9.97", or a watched check's "p 3.1e-07 (rise of the
    newest 8 runs' floors: calm runs' ranks)", or its CUSUM's sum against
    the `threshold` it alarmed at."""
    if getattr(change, "test", None) == CUSUM:
        return "CUSUM %.2f >= %g (%s of the newest %d runs' floors: %s)" \
            % (change.stat, threshold, change.side, change.window, CUSUM)
    if getattr(change, "p", None) is None:
        return "statistic %.2f" % change.stat
    return "p %.2g (%s of the newest %d runs' floors: %s)" % (
        change.p, change.side, change.window, change.test)


def change_lines(ser, change, newest):
    lines = ["  %s at run %d of %d: %s %s; %s" % (
        "change (newest runs)" if newest else "earlier change",
        change.index + 1, len(ser.runs), key_text(ser, change.key),
        shift_text(change), evidence(change, getattr(
            getattr(ser, "watch", None), "threshold", None)))]
    if change.index >= 1:
        lines.append("    last run before: " + subject_text(
            ser.runs[change.index - 1], change.index))
    lines.append("    first run after: " + subject_text(
        ser.runs[change.index], change.index + 1))
    return lines


def newest_boots(ser):
    """The boots of the newest run, or None."""
    runs = getattr(ser, "runs", None)
    return runs[-1].get("boots") if runs else None


def watch_text(ser):
    """A check after every run: its level and the changes the newest run
    completes (earlier changes are the one-look check's)."""
    watch = ser.watch
    lines = [series_line(ser)] + measure_lines(ser)
    if watch.level is None:
        lines.append("  check after every run: not resolved: too few runs "
                     "(a run's floor needs %d runs before the newest %d)"
                     % (MIN_BEFORE, min(AFTER)))
    else:
        lines.append("  check after every run: %d tests of the newest "
                     "runs' floor, each at p <= %.2g (alpha %.3g over %d "
                     "checks), and a CUSUM of the calm runs at %g "
                     "(measured)" % (watch.tests, watch.level,
                                     watch.level * watch.tests *
                                     watch.horizon, watch.horizon,
                                     watch.threshold))
    note = boots_note(newest_boots(ser))
    if note:
        lines.append("  " + note)
    for change in watch.changes:
        lines += change_lines(ser, change, True)
    if not watch.changes:
        lines.append("  no change starts at the newest runs")
    return "\n".join(lines) + "\n"


def check_text(ser):
    if getattr(ser, "watch", None) is not None:
        return watch_text(ser)
    ana = ser.analysis
    timing = [len(f["runs"]) for f in ser.figures.values()
              if f["kind"] == "timing"]
    judged = sum(1 for n in timing if n >= 2 * MIN_SEG)
    short = len(timing) - judged
    lines = [series_line(ser)] + measure_lines(ser)
    if ana.critical is None:
        lines.append("  level test: not resolved: too few runs (at least "
                     "8 with a figure) or an alpha below what 199 "
                     "shuffles resolve (0.005)")
    else:
        lines.append("  level test over %d timing series%s: critical "
                     "statistic %.2f (family-wise false alarms <= alpha "
                     "%g)" % (judged, " (%d more with fewer than %d runs "
                              "not judged)" % (short, 2 * MIN_SEG)
                              if short else "", ana.critical, ser.alpha))
    newest = set(map(id, ana.newest()))
    for change in ana.changes:
        lines += change_lines(ser, change, id(change) in newest)
    if not newest:
        lines.append("  no change starts at the newest runs")
    return "\n".join(lines) + "\n"
