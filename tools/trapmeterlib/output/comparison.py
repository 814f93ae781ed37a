"""A comparison's rows (stats/compare.py) rendered: the text table
`compare` and `ab` print, markdown, the JSON document and JUnit cases."""
from ..stats import bootstats
from ..stats.compare import (NOT_INTERLEAVED, NOT_JUDGED, REFUSED, VERDICTS,
                             decision, summarize, undecidable)
from ..stats.compare_notes import side_text
from .junit import Case

TABLE_HEAD = ("verdict", "case", "metric", "base", "candidate", "ratio",
              "interval (level)", "p (run)", "notes")


def folded(rows):
    """(rows to show one by one, [line per reason]): the undecidable rows
    of files with boots enough (a figure only some boots carry) fold into
    one line per reason, naming their cases; where the files themselves
    have too few boots every row stays, last."""
    shown, why = [], {}
    for row in rows:
        reason = undecidable(row)
        if reason is None or min(row.file_boots) < bootstats.MIN_SIDE:
            shown.append(row)
        else:
            why.setdefault(reason, []).append(row)
    lines = []
    for reason, group in why.items():
        names = sorted({r.name for r in group})
        metrics = sorted({r.metric for r in group})
        lines.append("not decidable: %d row(s), %s: %s%s" % (
            len(group), reason, ", ".join(metrics) + " of " if metrics else "",
            ", ".join(names[:6]) + (" and %d more" % (len(names) - 6)
                                    if len(names) > 6 else "")))
    return shown, lines


def fmt_p(value):
    return "-" if value is None else "%.3g" % value


def candidate_failures(warnings):
    """The candidate's failed data checks, as compare_docs named them."""
    return [w for w in warnings if w.startswith("candidate boot ")
            and " data check " in w]


def fmt_ratio(value):
    return "-" if value is None else "%.3f" % value


def interval_text(row):
    """"1.018..1.060 (96 %)": the interval of the shift the verdict was
    decided on, at the level of its test (compare.decision), or "-"."""
    if row.lo is None or row.hi is None:
        return "-"
    return "%s..%s (%s %%)" % (fmt_ratio(row.lo), fmt_ratio(row.hi),
                               fmt_level(row.level))


def fmt_level(level):
    """A coverage as a percentage with the digits it needs: 96, 99.7."""
    if level is None:
        return "?"
    pct = 100.0 * level
    return "%.0f" % pct if abs(pct - round(pct)) < 0.05 else "%.3g" % pct


def row_p(row):
    """The family-wise p of the test the verdict rests on."""
    return fmt_p(decision(row)["p"])


def row_cells(row):
    return [row.verdict, row.name, row.metric, side_text(row, "base"),
            side_text(row, "cand"), fmt_ratio(row.ratio), interval_text(row),
            row_p(row), "; ".join(row.notes)]


def render_table(rows, warnings, base_path, cand_path):
    counts, changed = summarize(rows)
    lines = ["trapmeter compare: base %s vs candidate %s" % (base_path,
                                                             cand_path)]
    lines += ["warning: " + w for w in warnings]
    rows, folds = folded(rows)
    cells = [list(TABLE_HEAD)] + [row_cells(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(TABLE_HEAD)
                                                           - 1)]
    for i, c in enumerate(cells):
        parts = [c[j].ljust(widths[j]) if j < 3 else c[j].rjust(widths[j])
                 for j in range(len(widths))]
        lines.append("  " + "  ".join(parts) + "  " + c[-1])
        if i == 0:
            lines.append("  " + "  ".join("-" * w for w in widths) + "  -----")
    lines += ["  " + line for line in folds]
    lines.append(summary_line(counts, changed, candidate_failures(warnings)))
    return "\n".join(lines) + "\n"


def summary_line(counts, changed, failed=()):
    text = ", ".join("%s %d" % (v, counts[v]) for v in VERDICTS)
    if counts.get(REFUSED):
        text += ", refused %d (not measured alike)" % counts[REFUSED]
    if counts.get(NOT_INTERLEAVED):
        text += ", not interleaved %d (no timing verdict)" \
            % counts[NOT_INTERLEAVED]
    if counts.get(NOT_JUDGED):
        text += ", not judged %d (the counter sees only background)" \
            % counts[NOT_JUDGED]
    if failed:
        names = sorted({w.split(" data check ")[1].split(" FAILED")[0]
                        for w in failed})
        text += "; candidate FAILED data checks: %s" % ", ".join(names)
    if changed:
        text += "; exit counts changed in %d case(s): %s" % (
            len(changed), ", ".join(changed[:8]) + (
                " ..." if len(changed) > 8 else ""))
    return "summary: " + text


def render_markdown(rows, warnings, base_path, cand_path):
    counts, changed = summarize(rows)
    out = ["## trapmeter compare", "",
           "Base `%s`, candidate `%s`." % (base_path, cand_path), "",
           "**%s**" % summary_line(counts, changed, candidate_failures(
               warnings))[len("summary: "):], ""]
    out += ["> warning: %s" % w for w in warnings]
    if warnings:
        out.append("")
    rows, folds = folded(rows)
    out.append("| " + " | ".join(TABLE_HEAD) + " |")
    out.append("|" + "|".join(["---"] * 3 + ["---:"] * 5 + ["---"]) + "|")
    for row in rows:
        cells = row_cells(row)
        cells[0] = "**%s**" % cells[0] if row.verdict == "regression" \
            else cells[0]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells)
                   + " |")
    if folds:
        out += [""] + ["- %s" % line for line in folds]
    return "\n".join(out) + "\n"


def junit_cases(rows, warnings=()):
    """One testcase per metric (regressions fail) and one failing testcase
    per failed data check of the candidate."""
    cases = [Case("trapmeter.compare.checks", w.split(": ")[0], w, text=w)
             for w in candidate_failures(warnings)]
    for row in rows:
        detail = ("base %s, candidate %s, ratio %s, interval %s, "
                  "p (run) %s, threshold %g%%, boots %d/%d%s" % (
                      side_text(row, "base"), side_text(row, "cand"),
                      fmt_ratio(row.ratio), interval_text(row),
                      row_p(row), row.threshold * 100,
                      row.n_base, row.n_cand, ("; " + "; ".join(row.notes))
                      if row.notes else ""))
        failure = ("regression: %s %s %s" % (row.name, row.metric, detail)
                   if row.verdict == "regression" else None)
        cases.append(Case("trapmeter.compare.%s" % row.suite,
                          "%s %s" % (row.case, row.metric), failure,
                          text="%s: %s" % (row.verdict, detail)))
    return cases


def json_document(rows, warnings, base_path, cand_path, attribution):
    """The document `compare --json` writes."""
    return {"tool": "trapmeter", "kind": "compare", "base": base_path,
            "candidate": cand_path, "warnings": warnings,
            "rows": [r.as_dict() for r in rows], "attribution": attribution}
