"""The history dashboard (`trapmeter history report --html OUT`): one
self-contained page.  First a row per series (linked to its section:
runs, changes, alarms, cases measured two ways); then per series (host
fingerprint): its fingerprint, a
chart per case and metric (each run's figure with its interval, the
change points as dashed lines, the places where a check after every
run alarmed as dotted lines with a triangle above the run whose check
alarmed, the run's subject in the point's tooltip; a case with several
measures -- ide's transfer cut to the budget -- a chart per measure, a
grey line where another takes over), the changes, the
alarms of the checks after every run and the runs as tables.  The charts are SVG drawn
here (no gnuplot, no script).  Element ids for tests and readers:
series-KEY, chart-KEY-N, changes-KEY, watch-KEY, runs-KEY,
fingerprint-KEY, measures-KEY, overview.  Pure:
returns text."""

from ..stats import runlevel
from ..stats.changewatch import AFTER, MIN_BEFORE
from ..stats.runlevel import measure_text
from . import history_text
from .html import esc, page as html_page, section, table

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 70, 15, 12, 30
TICKS = 4


def _fmt(value):
    if value is None:
        return "not resolved (one boot)"
    return "%.4g" % value if abs(value) < 1e4 else "{:,.0f}".format(value)


def _scale(lo, hi, size, lead, flip=False):
    span = (hi - lo) or abs(hi) * 0.01 or 1.0

    def place(v):
        frac = (v - lo) / span
        return lead + (1.0 - frac if flip else frac) * size
    return place


def _bounds(points):
    values = [v for _i, v, lo, hi in points for v in (v, lo, hi)
              if v is not None]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or abs(hi) * 0.02 or 1.0
    return lo - pad, hi + pad


def _tip(run, number, value, lo, hi):
    interval = "[%s, %s] 95 %% t-interval of its boots" % (_fmt(lo), _fmt(
        hi)) if lo is not None else "interval not resolved (one boot)"
    return "%s\n%s %s" % (history_text.subject_text(run, number),
                          _fmt(value), interval)


def _alarm_marks(ser, x, alarms):
    """A dotted line where each check after every run placed a change,
    and a triangle above the run whose check first alarmed."""
    out = []
    for alarm in alarms:
        change = alarm.change
        cx = (x(change.index - 1) + x(change.index)) / 2.0
        tip = esc(alarm_text(ser, alarm))
        out.append("<line class=\"watch\" x1=\"%.1f\" x2=\"%.1f\" "
                   "y1=\"%d\" y2=\"%d\" stroke=\"#d80\" stroke-dasharray="
                   "\"2,3\"><title>%s</title></line>" % (
                       cx, cx, TOP, HEIGHT - BOTTOM, tip))
        ax = x(alarm.first - 1)
        out.append("<path class=\"alarm\" d=\"M%.1f %d l-5 -9 h10 z\" "
                   "fill=\"#d80\"><title>%s</title></path>" % (
                       ax, TOP + 9, tip))
    return out


def restarts(ser, base):
    """[(run index, measure before, measure after)]: where the measure of
    a case and metric changes from one of its runs to the next."""
    what = {}
    for key, fig in ser.figures.items():
        if key[:3] == base:
            what.update(dict.fromkeys(fig["runs"], key[3]))
    out, last = [], None
    for i, run in enumerate(ser.runs):
        if run["id"] not in what:
            continue
        if last is not None and what[run["id"]] != last:
            out.append((i, last, what[run["id"]]))
        last = what[run["id"]]
    return out


def _restart_marks(ser, key, x):
    """A grey line and "new series" where this case's measure changes:
    the points on either side are other series of the case."""
    if key[:3] not in ser.measures:
        return []
    out = []
    for i, was, now in restarts(ser, key[:3]):
        cx = (x(i - 1) + x(i)) / 2.0 if i else x(i)
        tip = esc("from run %d another series of this case: %s -> %s "
                  "(another measurement, not a step)" % (
                      i + 1, measure_text(was), measure_text(now)))
        out.append("<g class=\"restart\"><line x1=\"%.1f\" x2=\"%.1f\" "
                   "y1=\"%d\" y2=\"%d\" stroke=\"#999\" stroke-width=\"2\">"
                   "<title>%s</title></line><text x=\"%.1f\" y=\"%d\" "
                   "font-size=\"10\" fill=\"#666\">%s<title>%s</title>"
                   "</text></g>" % (cx, cx, TOP, HEIGHT - BOTTOM, tip,
                                     cx + 3, TOP + 9, esc(
                                         "new series: %s" % short(now)),
                                     tip))
    return out


def short(what):
    """"2 MiB/op" of a measure; its text when it is no op size."""
    pairs = dict(runlevel.measure_pairs(what))
    if "bytes" not in pairs:
        return measure_text(what) or "unsaid"
    size = int(pairs["bytes"])
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return "%d %s/op" % (size // scale, unit)
    return "%d B/op" % size


def alarm_text(ser, alarm):
    """"check after run 31 alarmed: rise ... first run after 26, +9.9 %
    [...]; p ... (also after runs 32-40)"."""
    change, more = alarm.change, alarm.checks[1:]
    return "check after run %d alarmed: %s of %s, first run after %d, " \
        "%s; %s%s" % (
            alarm.first, change.side, history_text.key_name(ser, change.key),
            change.index + 1, history_text.shift_text(change),
            history_text.evidence(change, ser.alarm_level[2]),
            " (again after %d more runs, to run %d)" % (len(more), more[-1])
            if more else "")


def chart(ident, ser, key, changes, alarms=()):
    """The SVG of one case and metric over the runs."""
    fig = ser.figures[key]
    points = [(i, p[0], p[1], p[2]) for i, run in enumerate(ser.runs)
              for p in [fig["runs"].get(run["id"])] if p and p[0] is not None]
    if not points:
        return "<p class=\"note\">no run has a figure</p>"
    ylo, yhi = _bounds(points)
    n = max(len(ser.runs) - 1, 1)
    x = _scale(0, n, WIDTH - LEFT - RIGHT, LEFT)
    y = _scale(ylo, yhi, HEIGHT - TOP - BOTTOM, TOP, flip=True)
    out = ["<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 "
           "0 %d %d\" role=\"img\" aria-label=\"%s\">" % (
               ident, WIDTH, HEIGHT, esc(history_text.key_name(ser, key)))]
    out += _axes(x, y, ylo, yhi, len(ser.runs))
    for change in changes:
        cx = (x(change.index - 1) + x(change.index)) / 2.0
        out.append("<line class=\"change\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
                   "y2=\"%d\" stroke=\"#c00\" stroke-dasharray=\"5,3\"><title>"
                   "%s</title></line>" % (
                       cx, cx, TOP, HEIGHT - BOTTOM, esc(
                           "change before run %d: %s" % (
                               change.index + 1,
                               history_text.shift_text(change)))))
    out += _restart_marks(ser, key, x)
    out += _alarm_marks(ser, x, alarms)
    for i, value, lo, hi in points:
        if lo is not None:
            out.append("<line class=\"interval\" x1=\"%.1f\" x2=\"%.1f\" "
                       "y1=\"%.1f\" y2=\"%.1f\" stroke=\"#68a\"/>"
                       % (x(i), x(i), y(lo), y(hi)))
        out.append("<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
                   "fill=\"#246\"><title>%s</title></circle>" % (
                       x(i), y(value), esc(_tip(ser.runs[i], i + 1, value,
                                                lo, hi))))
    out.append("</svg>")
    return "\n".join(out)


def _axes(x, y, ylo, yhi, runs):
    base = HEIGHT - BOTTOM
    out = ["<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
           % (LEFT, WIDTH - RIGHT, base, base),
           "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#888\"/>"
           % (LEFT, LEFT, TOP, base)]
    for k in range(TICKS + 1):
        v = ylo + (yhi - ylo) * k / TICKS
        out.append("<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor="
                   "\"end\">%s</text>" % (LEFT - 4, y(v) + 3, esc(_fmt(v))))
    step = max(1, runs // 12)
    for i in range(0, runs, step):
        out.append("<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor="
                   "\"middle\">%d</text>" % (x(i), base + 13, i + 1))
    out.append("<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor="
               "\"middle\">run</text>" % ((LEFT + WIDTH - RIGHT) // 2,
                                          base + 26))
    return out


SHIFT_HEAD = "shift [interval]: Hodges-Lehmann, runs after " \
    "over runs before"
BUILD_CHARS = 16            # of a QEMU build id in the runs table


def runs_table(ser):
    rows = [[i, r.get("commit_id") or "", r.get("commit_date") or "",
             r.get("describe") or "", r.get("qemu_version") or "",
             (r.get("qemu_build") or "")[:BUILD_CHARS],
             r.get("kernel") or "",
             r.get("firmware") or "", r.get("boots"), r.get("label") or "",
             r.get("source") or ""] for i, r in enumerate(ser.runs, 1)]
    return table("runs-%s" % ser.host["key"],
                 ["run", "commit", "date", "describe", "QEMU", "QEMU build",
                  "kernel", "firmware", "boots", "label", "file"], rows,
                 left=11)


def changes_table(ser):
    newest = set(map(id, ser.analysis.newest()))
    rows = [["%d" % (c.index + 1), history_text.key_name(ser, c.key),
             history_text.shift_text(c, short=True), "%.2f" % c.stat,
             "yes" if id(c) in newest else "no"]
            for c in ser.analysis.changes]
    if not rows:
        return "<p id=\"changes-%s\" class=\"note\">no change point</p>" \
            % esc(ser.host["key"])
    return table("changes-%s" % ser.host["key"],
                 ["first run after", "case and metric", SHIFT_HEAD,
                  "statistic", "newest"], rows, left=3)


def alarms_table(ser):
    """The alarms of the checks after every run: which check alarmed
    first, on what, where it placed the change, the shift and its
    interval."""
    key = ser.host["key"]
    if not ser.alarms:
        return "<p id=\"watch-%s\" class=\"note\">no check after a run " \
            "alarmed</p>" % esc(key)
    rows = [["%d" % a.first, "%d" % len(a.checks),
             history_text.key_name(ser, a.change.key),
             a.change.side, "%d" % (a.change.index + 1),
             history_text.shift_text(a.change, short=True),
             "CUSUM %.1f" % a.change.stat if a.change.p is None else
             "%.2g" % a.change.p, "%d" % a.change.window]
            for a in ser.alarms]
    return table("watch-%s" % key,
                 ["check after run", "checks alarmed", "case and metric",
                  "side", "first run after", SHIFT_HEAD, "p",
                  "newest runs tested"], rows, left=4)


def watch_note(ser):
    """How the checks after every run were judged."""
    alpha, horizon, threshold = ser.alarm_level
    return "<p class=\"note\" id=\"watch-level-%s\">Each run's check as " \
        "`history check --every-run --alpha %g --horizon %d " \
        "--cusum-threshold %g` makes it after that run (alpha %g over %d " \
        "checks, exact tests on each run's floor and a CUSUM of the calm " \
        "runs' floors alarming at %g, from run %d on" \
        "): %d alarm%s. A dotted line marks where a check placed a " \
        "change, a triangle the run whose check first alarmed.</p>" % (
            esc(ser.host["key"]), alpha, horizon, threshold, alpha, horizon,
            threshold, MIN_BEFORE + min(AFTER), len(ser.alarms),
            "" if len(ser.alarms) == 1 else "s")


def fingerprint_table(ser):
    rows = [[k, str(v)] for k, v in sorted(ser.host["fields"].items())]
    return "<details><summary>fingerprint and method of this series " \
        "(%d fields)</summary>\n%s\n</details>" % (
            len(rows), table("fingerprint-%s" % ser.host["key"],
                             ["field", "value"], rows, left=2))


def caption(ser, key):
    """What a chart shows; for a case with several measures, which one
    and its runs."""
    text = "%s (%s): each run's median over its boots, bars its 95 %% " \
        "interval, dashed: a change, dotted: a check after a run alarmed" \
        % (history_text.key_text(ser, key), ser.figures[key]["kind"])
    if key[:3] in ser.measures:
        text += "; runs %s only, grey: another measure of this case takes " \
            "over (a series of its own, in its own chart)" % \
            history_text.run_ranges(history_text.measure_runs(ser, key))
    return text


def measures_note(ser):
    """The cases with several series by what one op measured."""
    lines = [line.strip() for line in history_text.measure_lines(ser)]
    if not lines:
        return ""
    return "<div id=\"measures-%s\" class=\"note\"><p>What one op " \
        "measured changed within this series (ide cuts its long transfers " \
        "to the case budget): each measure is a series of its own, judged " \
        "alone.</p>\n<ul>%s</ul></div>\n" % (esc(ser.host["key"]), "".join(
            "<li>%s</li>" % esc(line) for line in lines))


def series_section(ser):
    key = ser.host["key"]
    crit = ser.analysis.critical
    head = "<p class=\"note\">%s; %d runs; level test: %s</p>" % (
        esc(history_text.host_text(ser.host["fields"])), len(ser.runs),
        "critical statistic %.2f at alpha %g (`history check --alpha %g`)"
        % (crit, ser.alpha, ser.alpha) if crit is not None else
        "not resolved (too few runs, or an alpha below what 199 shuffles "
        "resolve)")
    charts = []
    for n, k in enumerate(history_text.ordered(ser)):
        marks = [c for c in ser.analysis.changes if c.key == k]
        alarms = [a for a in ser.alarms or () if a.change.key == k]
        charts.append("<figure id=\"fig-%s-%d\">\n%s\n"
                      "<figcaption>%s</figcaption>\n</figure>" % (
                          esc(key), n, chart("chart-%s-%d" % (key, n), ser,
                                             k, marks, alarms),
                          esc(caption(ser, k))))
    watch = "<h3>checks after every run</h3>\n%s\n%s\n" % (
        watch_note(ser), alarms_table(ser)) if ser.alarm_level else ""
    body = "<div id=\"series-%s\">\n%s\n%s\n<h3>changes</h3>\n%s\n%s%s\n" \
        "<h3>runs</h3>\n%s\n</div>" % (
            esc(key), head + measures_note(ser), fingerprint_table(ser),
            changes_table(ser),
            watch, "<div class=\"figs\">\n%s\n</div>" % "\n".join(charts),
            runs_table(ser))
    return section("series %s" % key, body)


def overview(series):
    """One row per series, linked to its section: its host, runs, the
    changes of one look (newest ones), the alarms of the checks after
    every run and the cases with a series per measure."""
    head = ["series", "host", "runs", "changes (newest runs)",
            "checks after every run that alarmed", "cases measured two ways"]
    rows = []
    for ser in series:
        key = ser.host["key"]
        newest = len(ser.analysis.newest())
        cases = sorted({"%s/%s" % k[:2] for k in ser.measures})
        cells = [
            "<a href=\"#series-%s\">%s</a>" % (esc(key), esc(key)),
            esc(history_text.host_text(ser.host["fields"])),
            "%d" % len(ser.runs),
            "%d (%d)" % (len(ser.analysis.changes), newest),
            "%d" % len(ser.alarms or ()) if ser.alarm_level else "-",
            esc(", ".join(cases) or "-")]
        rows.append("<tr>%s</tr>" % "".join(
            "<td%s>%s</td>" % (" class=\"l\"" if i in (0, 1, 5) else "", c)
            for i, c in enumerate(cells)))
    return section("series", "<table id=\"overview\"><thead><tr>%s</tr>"
                   "</thead><tbody>\n%s\n</tbody></table>" % (
                       "".join("<th>%s</th>" % esc(h) for h in head),
                       "\n".join(rows)))


def page(series, db_name):
    return html_page("trapmeter history: %s" % db_name,
                     [overview(series)] + [series_section(s)
                                           for s in series])
