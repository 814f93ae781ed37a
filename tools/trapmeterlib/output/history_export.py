"""`trapmeter history export`: a series as CSV in the form Apache Otava
reads (a time column, a commit attribute, one column per metric; Otava's
csv test type with `time_column: time`, `attributes: [commit]`; a
column only for a case and metric with a figure in every run: Otava reads
every cell as a float), and
every series as OpenMetrics text (gauges with each run's timestamp, `#
EOF` at the end: what `promtool tsdb create-blocks-from openmetrics`
backfills into Prometheus), and one series' boots as the history's
simulation reads them (boots_doc).  Pure: returns text and values."""

import calendar
import csv
import io
import re
import time

from ..stats import runlevel
from . import history_text

ISO_RE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)"
                    r"(?:\.\d+)?)?)?\s*(Z|[+-]\d\d:?\d\d)?$")
NAME_RE = re.compile(r"[^a-zA-Z0-9_]")
PREFIX = "trapmeter_"


def epoch(text):
    """Seconds since 1970 of an ISO 8601 date or time (UTC without a
    zone), or None when it is not one."""
    match = ISO_RE.match(str(text or "").strip())
    if not match:
        return None
    y, mo, d, h, mi, s, zone = match.groups()
    try:
        secs = calendar.timegm((int(y), int(mo), int(d), int(h or 0),
                                int(mi or 0), int(s or 0), 0, 0, 0))
        time.gmtime(secs)
    except (ValueError, OverflowError):
        return None
    if not (1 <= int(mo) <= 12 and 1 <= int(d) <= 31):
        return None
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        secs -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return secs


def run_time(run):
    """A run's time: its commit date, else when it was added."""
    for field in ("commit_date", "added"):
        secs = epoch(run.get(field))
        if secs is not None:
            return secs
    return None


def column(ser, key):
    """"suite/case/metric", and "[bytes=...]" when the case and metric
    has several measures in the series (a column each: Otava judges a
    column as one series)."""
    name = "%s/%s/%s" % tuple(key[:3])
    return name + "[%s]" % key[3] if key[:3] in ser.measures else name


def csv_columns(ser):
    """(keys, gaps): the case-and-metric series with a figure in every run
    of the series, and those without ({key: run numbers they have}).
    Otava's CSV import reads each cell of a metric as a float: an empty
    cell stops the import ("Could not convert value in column ...")."""
    keys, gaps = [], {}
    for key in history_text.ordered(ser):
        runs = ser.figures[key]["runs"]
        have = [i for i, run in enumerate(ser.runs, 1)
                if runs.get(run["id"], (None,))[0] is not None]
        if len(have) == len(ser.runs):
            keys.append(key)
        else:
            gaps[key] = have
    return keys, gaps


def csv_text(ser, keys):
    """One series as Otava's CSV: time, commit, then a column per case
    and metric of `keys` (each with a figure in every run)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["time", "commit"] + [column(ser, k) for k in keys])
    for run in ser.runs:
        secs = run_time(run)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S +0000", time.gmtime(
            secs)) if secs is not None else ""
        row = [stamp, run.get("commit_id") or run.get("describe") or
               "run-%d" % run["id"]]
        row += ["%.6g" % ser.figures[key]["runs"][run["id"]][0]
                for key in keys]
        writer.writerow(row)
    return out.getvalue()


BOOTS_KIND = "history-boots"
CYCLES, EXITS = "cycles_per_op", "exits_per_op"


def boots_cases(ser):
    """(keys, gaps): the cycles-per-op series of a series' cases with a
    figure in every run (the simulation's model draws every case of
    every boot), and those without ({key: run numbers they have})."""
    keys, gaps = csv_columns(ser)
    return [k for k in keys if k[2] == CYCLES], {
        k: v for k, v in gaps.items() if k[2] == CYCLES}


def boots_doc(ser, keys):
    """One series' runs in the form tests/host/history_simulation.py reads
    (--fixture; tests/fixtures/kvm-history-aa.json): per run and boot,
    per case [cycles per op, exits per op], each boot's figures in the
    order they were stored, and each case's handler (user: an exit to
    QEMU, kernel: handled in KVM; None when the history did not keep
    it, schema 3 and before)."""
    cases = {"%s/%s" % k[:2]: {"handler": ser.figures[k].get("handler")}
             for k in keys}
    runs = []
    for run in ser.runs:
        per = {}
        for key in keys:
            exits = ser.figures.get(key[:2] + (EXITS, key[3]), {})
            per["%s/%s" % key[:2]] = (
                ser.figures[key]["runs"][run["id"]][3],
                exits.get("runs", {}).get(run["id"], (0, 0, 0, []))[3])
        count = max(max(len(c), len(e)) for c, e in per.values())
        runs.append({"source": run["source"], "boots": [
            {case: [c[i] if i < len(c) else None,
                    e[i] if i < len(e) else None]
             for case, (c, e) in per.items()} for i in range(count)]})
    return {"kind": BOOTS_KIND, "series": ser.host["key"], "cases": cases,
            "runs": runs}


def label(value):
    """An OpenMetrics label value, escaped."""
    return str(value).replace("\\", "\\\\").replace("\"", "\\\"") \
        .replace("\n", "\\n")


def metric_name(metric):
    return PREFIX + NAME_RE.sub("_", metric)


def stamps(runs):
    """Each run's time in seconds, made strictly increasing (a sample
    of one OpenMetrics series must be later than the one before: runs
    added together share a second): None where no run has a time."""
    out, last = [], None
    for run in runs:
        secs = run_time(run)
        if secs is None:
            secs = last + 1 if last is not None else None
        elif last is not None and secs <= last:
            secs = last + 1
        out.append(secs)
        last = secs if secs is not None else last
    return out


MEASURE_LABELS = {"bytes": "bytes_per_op"}


def measure_labels(what):
    """The labels of what one op measured (bytes_per_op):
    another measure is another time series, as it is another series of
    the case in the history."""
    if what == runlevel.UNRECORDED:
        return (("measure", what),)
    return tuple((MEASURE_LABELS.get(k, NAME_RE.sub("_", k)), v)
                 for k, v in runlevel.measure_pairs(what))


def openmetrics(series):
    """Every series as OpenMetrics text: one gauge family per metric, a
    sample per run with the run's time; the labels (series key, suite,
    case, what one op measured) are the same for every run of a series,
    so that each is one time series."""
    families = {}
    for ser in series:
        times = stamps(ser.runs)
        for key in history_text.ordered(ser):
            fig = ser.figures[key]
            fam = families.setdefault(key[2], [])
            for run, secs in zip(ser.runs, times):
                point = fig["runs"].get(run["id"])
                if point is None or point[0] is None:
                    continue
                labels = (("series", ser.host["key"]), ("suite", key[0]),
                          ("case", key[1])) + measure_labels(key[3])
                fam.append((labels, point[0], secs))
    lines = []
    for metric in sorted(families):
        name = metric_name(metric)
        lines.append("# TYPE %s gauge" % name)
        lines.append("# HELP %s trapmeter history: each run's %s (median "
                     "over its boots)" % (name, metric))
        for labels, value, secs in families[metric]:
            text = ",".join("%s=\"%s\"" % (k, label(v)) for k, v in labels)
            lines.append("%s{%s} %.9g%s" % (name, text, value,
                                            "" if secs is None else
                                            " %d" % secs))
    lines.append("# EOF")
    return "\n".join(lines) + "\n"
