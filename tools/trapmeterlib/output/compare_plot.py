"""`compare --plot FILE.svg`: REP against single-unit port I/O, cycles per
unit over transfer size, base against candidate, one panel per port,
direction and width.  gnuplot draws it when installed; otherwise a plain
SVG is written here (no third-party modules)."""

import math
import os
import shutil
import subprocess
import tempfile

from ..stats.bootstats import median
from ..system import children
from ..values import exitstatus
from ..values.errors import TrapmeterError
from .report import write_text_atomic

PANEL_W, PANEL_H = 420, 300
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 64, 16, 28, 40
COLUMNS_PER_ROW = 2
SERIES = (("base", "single", "#1f77b4", ""), ("base", "rep", "#ff7f0e", ""),
          ("candidate", "single", "#1f77b4", "6,4"),
          ("candidate", "rep", "#ff7f0e", "6,4"))
GNUPLOT_TIMEOUT_S = 60


class PlotError(TrapmeterError):
    """The plot could not be written."""

    code = exitstatus.BAD_INPUT


def _per_unit(results_lists):
    """{(target, dir, width): {method: {bytes: median cycles/unit}}} over
    boots; only page-aligned buffers (no .split rows)."""
    acc = {}
    for results in results_lists:
        for res in results:
            if not isinstance(res, dict) or res.get("buf_offset"):
                continue
            method, size = res.get("method"), res.get("bytes")
            value = res.get("cycles_per_unit")
            if method not in ("single", "rep") or not isinstance(
                    size, int) or isinstance(value, bool) or not isinstance(
                    value, (int, float)) or value <= 0 or size <= 0:
                continue
            key = (str(res.get("target")), str(res.get("dir")),
                   res.get("width"))
            acc.setdefault(key, {}).setdefault(method, {}).setdefault(
                size, []).append(float(value))
    return {k: {m: {b: median(v) for b, v in sizes.items()}
                for m, sizes in methods.items()}
            for k, methods in acc.items()}


def panels(base_lists, cand_lists):
    """[(title, {(side, method): [(bytes, cycles/unit)]})] for groups that
    have both methods at two or more sizes."""
    pb, pc = _per_unit(base_lists), _per_unit(cand_lists)
    out = []
    for key in sorted(set(pb) | set(pc), key=str):
        series = {}
        for side, data in (("base", pb.get(key, {})),
                           ("candidate", pc.get(key, {}))):
            for method in ("single", "rep"):
                points = sorted(data.get(method, {}).items())
                if points:
                    series[(side, method)] = points
        sizes = {b for pts in series.values() for b, _v in pts}
        methods = {m for _s, m in series}
        if len(sizes) >= 2 and methods == {"single", "rep"}:
            title = "%s %s%s" % (key[0], key[1], (key[2] or 0) * 8)
            out.append((title, series))
    return out


def write_plot(path, base_lists, cand_lists, engine="auto"):
    """Write the SVG; returns the engine used ("gnuplot" or "python")."""
    groups = panels(base_lists, cand_lists)
    if not groups:
        raise PlotError("no port with both REP and single results at two or "
                        "more transfer sizes to plot")
    if engine in ("auto", "gnuplot") and shutil.which("gnuplot"):
        try:
            _gnuplot(path, groups)
            return "gnuplot"
        except PlotError:
            if engine == "gnuplot":
                raise
    elif engine == "gnuplot":
        raise PlotError("gnuplot is not installed (apt-get install "
                        "gnuplot-nox) ")
    write_text_atomic(path, svg_text(groups))
    return "python"


def _gnuplot(path, groups):
    rows = (len(groups) + COLUMNS_PER_ROW - 1) // COLUMNS_PER_ROW
    cols = min(len(groups), COLUMNS_PER_ROW)
    with tempfile.TemporaryDirectory(prefix="trapmeter-plot-") as tmp:
        # gnuplot says nothing when its output cannot be written (a full
        # disk left a 0-byte SVG): it writes here, the SVG is checked and
        # then written atomically like every other output
        drawn = os.path.join(tmp, "plot.svg")
        if "'" in drawn:
            raise PlotError("the temporary directory's path holds a quote")
        script = ["set terminal svg size %d,%d dynamic font 'sans,10'"
                  % (cols * PANEL_W, rows * PANEL_H),
                  "set output '%s'" % drawn,
                  "set multiplot layout %d,%d" % (rows, cols),
                  "set logscale xy", "set grid",
                  "set xlabel 'bytes per op'", "set ylabel 'cycles per unit'",
                  "set key top right font ',8'"]
        for i, (title, series) in enumerate(groups):
            plots = []
            for j, (side, method, _colour, dash) in enumerate(SERIES):
                pts = series.get((side, method))
                if not pts:
                    continue
                data = os.path.join(tmp, "p%d_%d.dat" % (i, j))
                with open(data, "w", encoding="ascii") as fh:
                    fh.writelines("%d %.6g\n" % p for p in pts)
                plots.append("'%s' using 1:2 with linespoints lc %d dt %d "
                             "title '%s %s'" % (data, 1 if method == "single"
                                                else 2, 2 if dash else 1,
                                                side, method))
            script.append("set title '%s'" % title.replace("'", ""))
            script.append("plot " + ", ".join(plots))
        script.append("unset multiplot")
        try:
            done = children.run(["gnuplot"], input="\n".join(script) + "\n",
                                text=True, capture_output=True,
                                timeout=GNUPLOT_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise PlotError("gnuplot failed: %s" % exc)
        if done.returncode != 0 or not os.path.exists(drawn):
            raise PlotError("gnuplot failed: %s" % done.stderr.strip()[-300:])
        with open(drawn, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if "</svg>" not in text[-200:]:
            raise PlotError("gnuplot wrote no whole SVG")
    write_text_atomic(path, text)


# ---------------------------------------------------------------- plain SVG

def _esc(text):
    return (str(text).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def _log_range(values):
    lo, hi = min(values), max(values)
    lo_e, hi_e = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if hi_e == lo_e:
        hi_e += 1
    return lo_e, hi_e


def _panel(x0, y0, title, series):
    xs = [b for pts in series.values() for b, _v in pts]
    ys = [v for pts in series.values() for _b, v in pts]
    (xl, xh), (yl, yh) = _log_range(xs), _log_range(ys)
    w = PANEL_W - MARGIN_L - MARGIN_R
    h = PANEL_H - MARGIN_T - MARGIN_B

    def px(b):
        return x0 + MARGIN_L + w * (math.log10(b) - xl) / (xh - xl)

    def py(v):
        return y0 + MARGIN_T + h * (1 - (math.log10(v) - yl) / (yh - yl))

    out = ['<text x="%.1f" y="%.1f" font-size="12" text-anchor="middle">'
           '%s</text>' % (x0 + MARGIN_L + w / 2, y0 + 16, _esc(title)),
           '<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="none" '
           'stroke="#888"/>' % (x0 + MARGIN_L, y0 + MARGIN_T, w, h)]
    for e in range(xl, xh + 1):
        out.append('<text x="%.1f" y="%.1f" font-size="9" text-anchor='
                   '"middle">1e%d</text>' % (px(10 ** e), y0 + MARGIN_T + h
                                             + 12, e))
    for e in range(yl, yh + 1):
        out.append('<text x="%.1f" y="%.1f" font-size="9" text-anchor="end">'
                   '1e%d</text>' % (x0 + MARGIN_L - 4, py(10 ** e) + 3, e))
    out.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">'
               'bytes per op</text>' % (x0 + MARGIN_L + w / 2,
                                        y0 + PANEL_H - 8))
    out.append('<text x="%.1f" y="%.1f" font-size="10" transform="rotate(-90 '
               '%.1f %.1f)" text-anchor="middle">cycles per unit</text>'
               % (x0 + 14, y0 + MARGIN_T + h / 2, x0 + 14,
                  y0 + MARGIN_T + h / 2))
    legend_y = y0 + MARGIN_T + 12
    for side, method, colour, dash in SERIES:
        pts = series.get((side, method))
        if not pts:
            continue
        path = " ".join("%.1f,%.1f" % (px(b), py(v)) for b, v in pts)
        out.append('<polyline points="%s" fill="none" stroke="%s" '
                   'stroke-width="1.5"%s/>' % (path, colour, (
                       ' stroke-dasharray="%s"' % dash) if dash else ""))
        out.extend('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>'
                   % (px(b), py(v), colour) for b, v in pts)
        out.append('<text x="%.1f" y="%.1f" font-size="9" fill="%s">%s %s'
                   '</text>' % (x0 + PANEL_W - MARGIN_R - 110, legend_y,
                                colour, side, method))
        legend_y += 11
    return out


def svg_text(groups):
    rows = (len(groups) + COLUMNS_PER_ROW - 1) // COLUMNS_PER_ROW
    cols = min(len(groups), COLUMNS_PER_ROW)
    width, height = cols * PANEL_W, rows * PANEL_H
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif">'
           % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for i, (title, series) in enumerate(groups):
        x0 = (i % COLUMNS_PER_ROW) * PANEL_W
        y0 = (i // COLUMNS_PER_ROW) * PANEL_H
        out.extend(_panel(x0, y0, title, series))
    out.append("</svg>")
    return "\n".join(out) + "\n"
