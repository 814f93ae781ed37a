"""The HTML report (`--html FILE` of run, compare, ab and sensitivity): one
self-contained file a person opens in a browser.  Everything is inline:
the style sheet, the figures (SVG from gnuplot, output/report_figures.py); no
script, no font but the generic families, no link to anything outside the
file, so it opens the same offline, from a CI artifact or a mail.

Each report has the console summary first (output/summary.py), then its
figures, then its tables; where gnuplot is missing every figure's place
says so and the tables stay.  Element ids name what a test (and a reader
with the DOM) looks for: fig-* for figures, table-* for tables.  Pure:
it returns text; the commands write it."""

import html

from ..guest import dma
from ..values import figure, resultform
from . import gnuplot, report, report_figures, summary, verdicts

STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1200px;
       color: #222; background: #fff; padding: 0 1em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em;
     border-bottom: 1px solid #ccc; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto;
      font-size: 0.85em; line-height: 1.25; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; } td.l, th.l { text-align: left; }
tr.regression td { background: #fde0e0; }
tr.improvement td { background: #e0f0fd; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; border: 1px solid #e4e4e4; padding: 0.4em;
         box-sizing: border-box; flex: 0 1 calc(50% - 0.5em);
         min-width: 360px; }
figure.wide { flex-basis: 100%; }
figure svg { width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #444; }
p.no-plot { color: #8a5a00; background: #fff6e0; padding: 0.4em; }
p.note { font-size: 0.85em; color: #555; }
"""


def esc(text):
    return html.escape(str(text), quote=True)


def page(title, sections):
    """A whole document: title, then the sections' HTML in order."""
    body = "\n".join(sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset="
            "\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-"
            "width, initial-scale=1\">\n<title>%s</title>\n<style>%s</style>"
            "\n</head>\n<body>\n<h1>%s</h1>\n%s\n</body>\n</html>\n"
            % (esc(title), STYLE, esc(title), body))


def section(title, *parts):
    return "<section>\n<h2>%s</h2>\n%s\n</section>" % (esc(title),
                                                        "\n".join(parts))


def pre(ident, lines):
    return "<pre id=\"%s\">%s</pre>" % (ident, esc("\n".join(lines)))


def table(ident, head, rows, left=1, classes=None, text_last=False):
    """A table: `left` first columns left-aligned (and the last one when
    text_last: a column of notes); classes[i] a row class."""
    def cells(tag, values):
        return "".join("<%s%s>%s</%s>" % (
            tag, " class=\"l\"" if i < left or (text_last and i == len(
                values) - 1) else "", esc(v), tag)
            for i, v in enumerate(values))
    out = ["<table id=\"%s\">" % ident, "<thead><tr>%s</tr></thead>"
           % cells("th", head), "<tbody>"]
    for i, row in enumerate(rows):
        cls = (classes or {}).get(i)
        out.append("<tr%s>%s</tr>" % (" class=\"%s\"" % esc(cls) if cls
                                      else "", cells("td", row)))
    out.append("</tbody></table>")
    return "\n".join(out)


def figure_html(fig, wide=False):
    cls = " class=\"wide\"" if wide else ""
    if fig.svg is None:
        inner = "<p class=\"no-plot\">figure not drawn: %s</p>" % esc(
            fig.reason)
    else:
        inner = fig.svg
    cap = esc(fig.title) + (" &mdash; " + esc(fig.caption) if fig.caption
                            else "")
    return "<figure id=\"%s\"%s>\n%s\n<figcaption>%s</figcaption>\n" \
           "</figure>" % (fig.id, cls, inner, cap)


def figures(figs, wide=False):
    return "<div class=\"figs\">\n%s\n</div>" % "\n".join(
        figure_html(f, wide) for f in figs)


def plotter_note():
    why = gnuplot.missing()
    return "<p class=\"no-plot\" id=\"no-plotter\">%s: the figures are not " \
           "drawn; every table is.</p>" % esc(why) if why else ""


def text(fig):
    return figure.text(fig, number=summary.grouped,
                       short=False) if fig is not None else "-"


# ---------------------------------------------------------------- run

def class_table(doc):
    rows = []
    for label, case, cycles, ns, exits, reason in summary.class_data(doc):
        if reason:
            rows.append([label, "-", "not resolved (%s)" % reason, "", ""])
        else:
            rows.append([label, case, text(ns), text(cycles), text(exits)])
    return table("table-classes", ["class", "case", "ns", "cycles",
                                   "exits per op"], rows, left=2)


def rep_table(doc):
    rows = [[label, figure.times_text(fig, short=False)]
            for label, fig in summary.rep_groups(doc)]
    return table("table-rep", ["port, direction, width", "REP speed-up at "
                               "4 KiB"], rows)


def breakdown_table(doc):
    rows = []
    for name, layers in report_figures.breakdown_rows(report_figures.breakdown_entries(doc)):
        rows.append([name] + [text(fig) if fig is not None else
                              "none (KVM)" if key == "qemu_round_trip"
                              else "-" for key, fig in layers])
    return table("table-breakdown", ["class"] + [label for _k, label, _c in
                                                 report_figures.LAYERS], rows)


def findings_table(doc):
    groups, _counted = summary.findings(doc)
    rows = []
    for meaning, results in groups:
        for res in results:
            rows.append([res.get("case"), res.get("handler"),
                         text(figure.model(res.get("exits_model") or 0)),
                         text(figure.measured(res["exits_measured"])),
                         meaning])
    return table("table-findings", ["case", "handler", "exits (model)",
                                    "exits (measured)", "what it means"],
                 rows, left=2, text_last=True)


def checks_table(doc):
    rows = []
    for boot in doc.get("boots") or []:
        for chk in boot.get("checks") or []:
            rows.append([boot.get("index"), "check", chk.get("name"),
                         "ok" if chk.get("ok") else "FAILED",
                         chk.get("detail") or ""])
        for skip in boot.get("skips") or []:
            rows.append([boot.get("index"), "skip", "%s/%s" % (
                skip.get("suite"), skip.get("case")), "skipped",
                skip.get("reason") or ""])
    return table("table-checks", ["boot", "kind", "name", "result",
                                  "detail"], rows, left=5)


RESULT_HEAD = ["suite", "case", "method", "bytes", "cycles/op (median)",
               "cycles/unit", "REP speed-up", "exits (model)",
               "exits (measured)", "cycles/exit", "sampling"]


def sampling(res, twins):
    """The row's sampling: resultform.UNSETTLED (its own, or for a
    speed-up its single twin's), else how it stopped."""
    if resultform.unsettled(res):
        return resultform.UNSETTLED
    if res.get("method") in report.PAIRED_METHODS and \
            report.pair_key(res) in twins:
        return "REP speed-up: single twin " + resultform.UNSETTLED
    return str(res.get("stop") or "")


def results_table(doc):
    boots = summary.boots_with_results(doc)
    rows = []
    results = boots[0]["results"] if boots else []
    twins = report.unsettled_twins(results)
    for res in results:
        per_exit = figure.cost(res.get("cycles_per_exit"),
                               reason="no exits counted")
        rows.append([res.get("suite"), res.get("case"), res.get("method")
                     or "", report.fmt_num(res.get("bytes")),
                     report.fmt_num(report.median_cycles(res)),
                     report.fmt_num(res.get("cycles_per_unit")),
                     report.fmt_speedup(res, short=False),
                     report.fmt_num(res.get("exits_model")),
                     report.fmt_num(res.get("exits_measured")),
                     figure.text(per_exit), sampling(res, twins)])
    return table("table-results", RESULT_HEAD, rows, left=3, text_last=True)


def dma_section(results):
    """Suite dma's PCI cases by IOMMU mode (guest/dma.py), or ""."""
    rows = dma.full_rows(results)
    if not rows:
        return ""
    return section("DMA by IOMMU mode", "<p class=\"note\">Cycles per op, "
                   "median net of the control; differences of means with "
                   + esc(dma.HOW) + "; n.r.: not resolved; -: mode not "
                   "run.</p>", table("table-dma", rows[0], rows[1:]),
                   "<p>%s</p>" % esc(dma.miss_line(results)))


def run_report(doc, json_path=None):
    results = [b["results"] for b in summary.boots_with_results(doc)]
    sections = [
        plotter_note(),
        section("Summary", pre("summary", summary.run_summary(doc, json_path))),
        dma_section(results),
        section("Cost of one exit per handler class", class_table(doc)),
        section("REP against single-unit I/O", figures(
            report_figures.rep_figures(results)), rep_table(doc)),
        section("Where the time of one exit goes", figures(
            [report_figures.breakdown_figure(doc)], wide=True), breakdown_table(doc)),
        section("Exit counts against the model", findings_table(doc)),
        section("Checks and skips", checks_table(doc)),
        section("Every result (first boot)", results_table(doc))]
    return page("trapmeter run", sections)


# ---------------------------------------------------------------- compare

def verdict_table(rows):
    from . import comparison  # pylint: disable=import-outside-toplevel
    cells = [comparison.row_cells(r) for r in rows]
    classes = {i: r.verdict for i, r in enumerate(rows)
               if r.verdict in ("regression", "improvement")}
    return table("table-verdicts", list(comparison.TABLE_HEAD), cells, left=3,
                 classes=classes, text_last=True)


def compare_report(rows, warnings, title, labels, boots=None, extra=()):
    """compare's and ab's report: rows are compare.Row objects."""
    lines = verdicts.compare_summary([r.as_dict() for r in rows], title, boots)
    sections = [
        plotter_note(),
        section("Summary", pre("summary", lines + ["warning: " + w
                                                   for w in warnings])),
        section("Flagged metrics, boot by boot", figures(
            report_figures.strip_figures(rows, labels)), "<p class=\"note\">Each "
            "point is one boot's figure (the minimum of its samples); the "
            "shaded band holds the side's undisturbed boots, which the test "
            "compares; a ringed point is a boot in another mode.</p>"),
        section("Verdicts", verdict_table(rows))]
    sections += list(extra)
    return page(title, sections)


# ---------------------------------------------------------------- sensitivity

def smallest_cell(case):
    """A case's detection limit: the smallest measured shift flagged, with
    its interval (sensitivity's limit_line), else the nominal level."""
    best = case.get("smallest_measured")
    if best:
        ends, cover = best.get("interval") or [], best.get("interval_level")
        if len(ends) == 2 and cover:
            shift = figure.percent_text(figure.measured(
                best["shift"], ends), signed=True, level=cover)
        else:
            shift = figure.percent_text(figure.measured(
                best["shift"]), signed=True) + \
                " [interval not resolved: none from the verdict's test]"
        return "%s (at %g %%)" % (shift, best["level"])
    if case.get("smallest"):
        return "%g %% (nominal)" % case["smallest"]
    return "never (control)" if case.get("handler") == "kernel" else "none"


def sensitivity_tables(sdoc):
    levels = sdoc.get("levels_pct") or []
    cases = sdoc.get("cases") or {}
    rows = []
    for name in sorted(cases, key=lambda n: (cases[n].get("handler") != "user",
                                             n)):
        case = cases[name]
        res = case.get("aa_resolves")
        rows.append([name, case.get("handler") or "-", case.get("aa") or "-",
                     "-" if res is None else "%.1f %%" % (100 * res)]
                    + [v or "-" for _p, v in report_figures.level_verdicts(case, levels)]
                    + [smallest_cell(case)])
    head = ["case", "handler", "A/A", "A/A resolves"] + [
        "+%g %%" % p for p in levels] + ["smallest flagged"]
    sess = [[s.get("name"), s.get("delay_ns"), "%s+%s" % tuple(
        s.get("boots") or ("?", "?")), s.get("wall_s"), s.get("status")]
        for s in sdoc.get("sessions") or []]
    return (table("table-sensitivity", head, rows, left=3),
            table("table-sessions", ["session", "delay ns", "boots A+B",
                                     "wall s", "status"], sess))


def sensitivity_report(sdoc, text_lines):
    cases, sessions = sensitivity_tables(sdoc)
    sections = [
        plotter_note(),
        section("Summary", pre("summary", text_lines)),
        section("Detection limit per case and level", figures(
            [report_figures.sensitivity_figure(sdoc)], wide=True), cases),
        section("Sessions", sessions)]
    return page("trapmeter sensitivity", sections)
