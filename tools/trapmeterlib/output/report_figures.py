"""The figures of the HTML report, drawn by gnuplot (output/gnuplot.py).

Each builder returns a list of Figure(id, title, svg, reason, caption):
svg is the inline SVG, or None with the reason it could not be drawn (no
gnuplot, no data of that kind).  What is drawn:

  rep_figures        per port, direction and width: cycles per unit over
                     bytes per op, single-unit loop against REP (log-log),
                     and below it the exits per op, the model's (lines)
                     and the counted ones (points); a row stopped on its
                     budget (unsettled) is an open mark beside the curve,
                     not a point of it
  breakdown_figure   the cost of one single-unit access per port class as
                     stacked bars of its layers (VM exit, KVM PIO, round
                     trip to QEMU, device model), each with its 95 %
                     interval; a layer not resolved is left out of its bar
  strip_figures      compare/ab: per flagged metric (up to MAX_STRIPS) the
                     per-boot figures of both sides, each side's
                     undisturbed band shaded, boots in another mode ringed
  sensitivity_figure the verdict per case and level of a sensitivity run,
                     with the A/A session's resolution per case

Costs go through values/figure.py: a layer at or below zero, or with an
interval holding zero, is not drawn as a number it is not."""

from collections import namedtuple
import math

from ..stats import bootstats
from ..values import figure, resultform
from ..values.numbers import is_number
from . import gnuplot

Figure = namedtuple("Figure", "id title svg reason caption")

BLUE, ORANGE, GREEN, RED, GREY = ("#1f77b4", "#ff7f0e", "#2ca02c",
                                  "#d62728", "#7f7f7f")
LAYERS = (("vm_exit", "VM exit+entry", "#4c72b0"),
          ("kvm_pio", "KVM PIO emulation", "#55a868"),
          ("qemu_round_trip", "round trip to QEMU", "#c44e52"),
          ("device_model", "device model / unit", "#8172b2"))
MAX_STRIPS = 60            # strip plots drawn; the rest named in a note
q = gnuplot.quote


def draw(fid, title, script, data, size, caption=""):
    try:
        svg = gnuplot.render(script, data, size, fid + "-")
        return Figure(fid, title, svg, None, caption)
    except gnuplot.Unavailable as exc:
        return Figure(fid, title, None, str(exc), caption)


def absent(fid, title, reason):
    return Figure(fid, title, None, reason, "")


# ---------------------------------------------------------------- REP

def sweep_groups(boots_results):
    """{(target, dir, width): {method: {bytes: {"cpu": [..], "unsettled":
    [..], "model": [..], "meas": [..]}}}} over boots, page-aligned single
    and rep rows.  The cycles of a row stopped on its budget go to
    "unsettled", not "cpu": its median is no settled figure, so the curve
    leaves it out and the figure marks it (resultform.UNSETTLED)."""
    acc = {}
    for results in boots_results:
        for res in results:
            method, size = res.get("method"), res.get("bytes")
            if method not in ("single", "rep") or res.get("buf_offset") \
                    or not isinstance(size, int) or size <= 0:
                continue
            key = (str(res.get("target")), str(res.get("dir")),
                   res.get("width") or 1)
            cell = acc.setdefault(key, {}).setdefault(method, {}).setdefault(
                size, {"cpu": [], "unsettled": [], "model": [], "meas": []})
            cpu = "unsettled" if resultform.unsettled(res) else "cpu"
            for name, field in ((cpu, "cycles_per_unit"),
                                ("model", "exits_model"),
                                ("meas", "exits_measured")):
                if is_number(res.get(field)) and res[field] > 0:
                    cell[name].append(float(res[field]))
    return acc


def _series(points, name):
    return [(b, bootstats.median(v[name])) for b, v in sorted(points.items())
            if v[name]]


def rep_figure(key, methods):
    target, direction, width = key
    fid = "fig-rep-%s-%s%d" % (target.replace(".", "-"), direction, 8 * width)
    title = "%s %s, %d-bit units: cycles per unit and exits per op" % (
        target, direction, 8 * width)
    data = [_series(methods.get(m, {}), n)
            for n in ("cpu", "model", "meas", "unsettled")
            for m in ("single", "rep")]
    if len(data[0]) < 2 or len(data[1]) < 2:
        return None             # a curve over transfer size needs two sizes
    style = ("lc rgb %s pt 7 ps 0.6" % q(BLUE), "lc rgb %s pt 5 ps 0.6"
             % q(ORANGE))
    top = ["$D%d using 1:2 with linespoints %s title %s" % (i, style[i], q(
        "%s: cycles per unit" % m)) for i, m in enumerate(("single", "rep"))
        if data[i]]
    top += ["$D%d using 1:2 with points %s title %s" % (
        6 + i, style[i].replace("pt 7", "pt 6").replace("pt 5", "pt 4"),
        q("%s: %s" % (m, resultform.UNSETTLED)))
        for i, m in enumerate(("single", "rep")) if data[6 + i]]
    low = ["$D%d using 1:2 with lines dt 2 %s title %s" % (
        2 + i, style[i].split(" pt")[0], q("%s: exits (model)" % m))
        for i, m in enumerate(("single", "rep")) if data[2 + i]]
    low += ["$D%d using 1:2 with points %s title %s" % (
        4 + i, style[i], q("%s: exits (measured)" % m))
        for i, m in enumerate(("single", "rep")) if data[4 + i]]
    script = ["set multiplot layout 2,1", "set logscale xy", "set grid",
              "set key below horizontal font ',8'", "set lmargin 11",
              "set format x '%.0s%c'", "set format y '%.0s%c'",
              "set ylabel 'cycles per unit'",
              "plot " + ", ".join(top)]
    if low:
        script += ["set xlabel 'bytes per op'", "set format y '%g'",
                   "set ylabel 'exits per op'", "plot " + ", ".join(low)]
    script.append("unset multiplot")
    caption = ("log-log; lines of the lower panel are the exit model "
               "(model/model.c), points the counted exits")
    if data[6] or data[7]:
        caption += ("; open marks: rows %s, their median over those boots, "
                    "left out of the curves" % resultform.UNSETTLED)
    return draw(fid, title, script, data, (520, 460), caption)


def rep_figures(boots_results):
    groups = sweep_groups(boots_results)
    out = [rep_figure(k, v) for k, v in sorted(groups.items(), key=str)
           if "single" in v and "rep" in v]
    out = [f for f in out if f]
    if not out:
        return [absent("fig-rep", "cycles per unit over transfer size",
                       "no port with REP and single rows at two sizes or more "
                       "each (--quick runs one size)")]
    return out


# ---------------------------------------------------------------- breakdown

def breakdown_entries(doc):
    """The breakdown's entries (one per port class): across boots where
    there are several, else the first boot's."""
    top = doc.get("breakdown")
    if isinstance(top, list) and top:
        return top
    for boot in doc.get("boots") or []:
        if isinstance(boot.get("breakdown"), list) and boot["breakdown"]:
            return boot["breakdown"]
    return []


def layer_figure(comp):
    """A layer as a figure, by the figure rule: the breakdown's form
    (figure.to_json, read by figure.from_json) or a bare number; None (no
    such layer: a port KVM answers has no round trip) stays None."""
    if comp is None:
        return None
    if not isinstance(comp, dict):
        return figure.cost(comp)
    try:
        fig = figure.from_json(comp)
    except ValueError:
        return figure.not_resolved(figure.NO_DATA)
    if fig is None or not fig.resolved:
        return fig
    return figure.cost(fig.value, fig.interval, kind=fig.kind)


def breakdown_rows(entries):
    """[(class, [(layer, figure or None)])] of the classes with layers."""
    out = []
    for entry in entries:
        comps = entry.get("components") if isinstance(entry, dict) else None
        if isinstance(comps, dict):
            out.append((str(entry.get("class")),
                        [(key, layer_figure(comps.get(key)))
                         for key, _l, _c in LAYERS]))
    return out


def breakdown_figure(doc):
    fid, title = "fig-breakdown", "cost of one single-unit access per class"
    rows = breakdown_rows(breakdown_entries(doc))
    if not rows:
        return absent(fid, title, "no cost breakdown in the data (it needs "
                      "KVM and suite pio's size sweep)")
    data = [[] for _ in LAYERS]
    for x, (_name, layers) in enumerate(rows):
        bottom = 0.0
        for i, (_key, fig) in enumerate(layers):
            if fig is None or not fig.resolved:
                continue
            lo, hi = fig.interval or (fig.value, fig.value)
            top = bottom + fig.value
            data[i].append((x, bottom, top, top - fig.value + lo,
                            top - fig.value + hi))
            bottom = top
    plots = []
    for i, (_key, label, colour) in enumerate(LAYERS):
        if data[i]:
            plots.append("$D%d using 1:($2+$3)/2:(0.32):(($3-$2)/2) with "
                         "boxxyerror fs solid 0.85 lc rgb %s title %s"
                         % (i, q(colour), q(label)))
            plots.append("$D%d using 1:4:(0):($5-$4) with vectors nohead "
                         "lc rgb 'black' lw 1.2 notitle" % i)
    if not plots:
        return absent(fid, title, "no layer of any class is resolved")
    tics = ", ".join("%s %d" % (q(name), x) for x, (name, _l) in
                     enumerate(rows))
    script = ["set style fill solid", "set grid ytics",
              "set xrange [-0.6:%f]" % (len(rows) - 0.4),
              "set yrange [0:*]", "set xtics (%s) rotate by -30" % tics,
              "set format y '%.0f'",
              "set ylabel 'cycles'", "set key outside right top font ',8'",
              "plot " + ", ".join(plots)]
    return draw(fid, title, script, data, (860, 420),
                "stacked layers of one access; whiskers: each layer's 95 % "
                "interval over boots (one boot: none); a layer not resolved "
                "(at or below zero, or its interval holding zero) is left "
                "out of its bar and named in the table")


# ---------------------------------------------------------------- strips

def strip_data(row):
    """[(side x, figure, mark)] of a Row's per-boot log figures, the band
    of each side [(x, lo, hi)], and the other-mode boots."""
    points, bands = [], []
    for x, vals in enumerate(row.logs):
        if not vals:
            continue
        band = bootstats.undisturbed(vals)
        odd = set(bootstats.other_mode(vals))
        bands.append((x, math.exp(min(band)), math.exp(max(band))))
        n = len(vals)
        for i, v in enumerate(vals):
            jitter = 0.3 * ((i + 0.5) / n - 0.5)
            points.append((x + jitter, math.exp(v), 1 if i in odd else 0))
    return points, bands


def strip_figure(index, row, labels):
    fid = "fig-strip-%d" % index
    title = "%s/%s %s: %s per boot" % (row.suite, row.case, row.metric,
                                       row.verdict)
    points, bands = strip_data(row)
    normal = [p[:2] for p in points if not p[2]]
    odd = [p[:2] for p in points if p[2]]
    data = [bands, normal, odd or [None]]
    plots = ["$D0 using 1:(($2+$3)/2):(0.22):(($3-$2)/2) with boxxyerror "
             "fs transparent solid 0.25 noborder lc rgb %s title "
             "'undisturbed band'" % q(GREEN),
             "$D1 using 1:2 with points pt 7 ps 0.7 lc rgb %s title 'boot'"
             % q(BLUE)]
    if odd:
        plots.append("$D2 using 1:2 with points pt 6 ps 1.4 lc rgb %s "
                     "title 'another mode (bimodal)'" % q(RED))
    script = ["set grid ytics", "set xrange [-0.6:1.6]",
              "set offsets 0, 0, graph 0.06, graph 0.06",
              "set format y '%.1s%c'",
              "set xtics (%s 0, %s 1)" % (q(labels[0]), q(labels[1])),
              "set ylabel %s" % q(row.metric), "set key outside bottom center "
              "horizontal font ',8'", "plot " + ", ".join(plots)]
    return draw(fid, title, script, data, (420, 320), "")


def strip_figures(rows, labels=("base", "candidate")):
    """One strip plot per flagged timing metric (at most MAX_STRIPS)."""
    flagged = [r for r in rows if r.verdict in ("regression", "improvement")
               and r.logs and all(r.logs)]
    if not flagged:
        return [absent("fig-strip", "per-boot figures of the flagged "
                       "metrics", "no metric was flagged")]
    out = [strip_figure(i, r, labels) for i, r in
           enumerate(flagged[:MAX_STRIPS])]
    if len(flagged) > MAX_STRIPS:
        out.append(absent("fig-strip-more", "%d more flagged metrics"
                          % (len(flagged) - MAX_STRIPS), "not drawn here; "
                          "they are in the verdict table"))
    return out


# ---------------------------------------------------------------- sensitivity

def level_verdicts(case, levels):
    got = case.get("levels") or {}
    out = []
    for pct in levels:
        verdict = got.get(pct, got.get(str(pct), got.get("%g" % pct)))
        out.append((pct, verdict))
    return out


def sensitivity_figure(sdoc):
    fid, title = "fig-sensitivity", "detection limit per case and level"
    levels = sdoc.get("levels_pct") or []
    cases = sdoc.get("cases") or {}
    names = sorted(cases, key=lambda n: (cases[n].get("handler") != "user",
                                         n), reverse=True)
    if not levels or not names:
        return absent(fid, title, "no sensitivity sessions in the data")
    marks = {"regression": [], "unchanged": [], "inconclusive": [],
             "improvement": []}
    res = []
    for y, name in enumerate(names):
        for pct, verdict in level_verdicts(cases[name], levels):
            if verdict in marks:
                marks[verdict].append((pct, y))
        if is_number(cases[name].get("aa_resolves")):
            res.append((100 * cases[name]["aa_resolves"], y))
    data = [marks["regression"] or [None], marks["unchanged"] or [None],
            marks["inconclusive"] or [None], marks["improvement"] or [None],
            res or [None]]
    styles = (("regression (flagged)", "pt 7 ps 1.3", RED),
              ("unchanged", "pt 5 ps 1.0", GREEN),
              ("inconclusive", "pt 6 ps 1.0", GREY),
              ("improvement", "pt 9 ps 1.0", BLUE),
              ("A/A resolves", "pt 2 ps 1.2", "black"))
    plots = ["$D%d using 1:2 with points %s lc rgb %s title %s"
             % (i, st, q(c), q(label)) for i, (label, st, c) in
             enumerate(styles) if data[i] != [None]]
    tics = ", ".join("%s %d" % (q(n), y) for y, n in enumerate(names))
    xs = list(levels) + [x for x, _y in res]
    script = ["set logscale x", "set grid",
              "set xrange [%f:%f]" % (min(xs) / 1.6, max(xs) * 1.6),
              "set xtics (%s)" % ", ".join("%s %g" % (q("%g %%%%" % p), p)
                                           for p in sorted(set(levels))),
              "set yrange [-0.7:%f]" % (len(names) - 0.3),
              "set ytics (%s) font ',8'" % tics,
              "set xlabel 'delay added to each exit to QEMU, % of the round "
              "trip'", "set key outside top center horizontal font ',8'",
              "set lmargin 30", "plot " + ", ".join(plots)]
    return draw(fid, title, script, data, (860, 140 + 26 * len(names)),
                "per case the verdict of cycles per op at each level; the "
                "smallest level flagged is the case's detection limit here")
