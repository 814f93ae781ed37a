"""The notes a compare row carries beside its verdict: how much slower or
faster, what the test compared, what the run could resolve, which boots
sit in another mode.  They go into the table, markdown, JUnit and JSON
alike (stats/compare.py builds the rows)."""
import math

from ..values import figure
from ..values.numbers import fmt_num
from ..values.resultform import COUNT_BELOW
from . import bootstats, comparable
from .verdict import AUDIT_METRIC


def count_refusal_notes(row):
    """Why an exit-count verdict was withheld (stats/opsize.py)."""
    return ["exit-count verdict refused: %s" % comparable.short(r)
            for r in row.refused]


def timing_notes(row, alpha):
    notes = ["timing verdict refused: %s" % comparable.short(r)
             for r in row.refused]
    notes.extend(size_notes(row))
    if row.n_base < 2 and row.n_cand < 2:
        notes.append(_one_boot_note(row))
    elif row.verdict == "inconclusive" and row.logs:
        a, b = row.logs
        floor = bootstats.min_p(len(a), len(b))
        if floor > alpha and min(b) > max(a):
            notes.append("every candidate boot slower (%d/%d boots cannot "
                         "reach p<=%g)" % (len(a), len(b), alpha))
        elif floor > alpha and max(b) < min(a):
            notes.append("every candidate boot faster (%d/%d boots cannot "
                         "reach p<=%g)" % (len(a), len(b), alpha))
    note = test_note(row)
    if note:
        notes.append(note)
    if row.verdict == "inconclusive":
        notes.extend(resolution_note(row))
    notes.extend(mode_notes(row))
    return notes


def size_notes(row):
    """A flagged row's size, from the figure its verdict was decided on
    (row.estimator): "1.025x slower", or "changed mode: 1/12 -> 7/12
    boots outside the band"."""
    if row.verdict not in ("regression", "improvement"):
        return []
    if row.estimator == "share outside the band" and row.mode:
        (k_a, n_a), (k_b, n_b) = row.mode["base"], row.mode["candidate"]
        return ["changed mode: %d/%d -> %d/%d boots outside the band "
                "(%s -> %s)" % (k_a, n_a, k_b, n_b, _share(k_a, n_a),
                                _share(k_b, n_b))]
    if not row.slowdown:
        return []
    slower = row.slowdown > 1.0
    return ["%.3fx %s" % (row.slowdown if slower else 1.0 / row.slowdown,
                          "slower" if slower else "faster")]


def _share(k, n):
    """k of n boots in per cent: a measured share of counts."""
    return figure.percent_text(figure.measured(k / n), places=0)


def resolution_note(row):
    """"resolves 2.9 % (spread 3.5 %; ~210 boots a side for 1 %)": the
    smallest change this run's test could flag at its spread and boots
    (the target is t where t is above 1 %)."""
    if row.resolution is None:
        return []
    more = ("; ~%d boots a side for %.3g %%" % (row.boots_for_target,
                                               100 * row.target)
            if row.boots_for_target else "")
    return ["resolves %.1f %% (spread %.1f %%%s)"
            % (100 * row.resolution, 100 * row.spread, more)]


def _one_boot_note(row):
    """One boot per side, or (ab's --count-boots, a figure some boots
    lack) one boot per side that carries this figure among many."""
    total = row.file_boots
    if max(total) < 2:
        return "inconclusive (one boot per side)"
    return ("inconclusive (one boot per side has this figure, of %d+%d; "
            "cycles_per_exit needs counted exits)" % total
            if row.metric == "cycles_per_exit" else
            "inconclusive (one boot per side has this figure, of %d+%d)"
            % total)


def mode_notes(row):
    """Name the boots whose figure sits in another mode than the rest of
    their side, and say whether the shift's test used them (it uses each
    side's undisturbed boots: bootstats.undisturbed; the slow-mode test
    counts the others)."""
    out = []
    if not row.logs:
        return out
    for label, vals, numbers in (("base", row.logs[0], row.boots[0]),
                                 ("candidate", row.logs[1], row.boots[1])):
        odd = bootstats.other_mode(vals)
        band = bootstats.undisturbed(vals)
        top, centre = max(band), bootstats.median(band)
        for kind, picked in (("in the test", [i for i in odd
                                              if vals[i] <= top]),
                             ("left out of the test", [i for i in odd
                                                       if vals[i] > top])):
            if picked:
                out.append("bimodal: %s boot %s (%s; %s)" % (
                    label, ", ".join(str(numbers[i]) for i in picked),
                    ", ".join(figure.percent_text(figure.measured(
                        math.exp(vals[i] - centre) - 1), places=0,
                        signed=True) for i in picked), kind))
    return out


def test_note(row):
    """"test: 9/11 undisturbed boots, +2.4 %": what the test compared."""
    if not row.logs or row.floor_shift is None or row.p is None:
        return None
    a, b = row.logs
    return "test: %d/%d undisturbed boots, %s" % (
        len(bootstats.undisturbed(a)), len(bootstats.undisturbed(b)),
        figure.percent_text(figure.measured(math.exp(row.floor_shift) - 1),
                            signed=True))


def rule_counts(row):
    """The figure rule on an exit row's sides: a median count below zero
    (an older runner stored counts below the empty window so) counts as
    below EXITS_FLOOR in the verdict but is never shown: not resolved,
    with the reason."""
    for side in ("base", "cand"):
        value = getattr(row, side)
        if value is not None and value < 0:
            setattr(row, side, None)
            row.reasons[side] = COUNT_BELOW


def side_text(row, side):
    """A row's base or cand figure as the tables show it."""
    why = row.reasons.get(side)
    return figure.text(figure.not_resolved(why)) if why else \
        fmt_num(getattr(row, side))


def ab_command_text(base, cand, rows, threshold=0.005):
    """The warning of files not interleaved: why their timing rows get no
    verdict, and the `ab` command that would decide them."""
    suites = sorted({r.suite for r in rows})
    cases = sorted({r.case for r in rows})
    qemus = [_qemu_binary(d) for d in (base, cand)]
    words = ["tools/trapmeter ab", "--suite", ",".join(suites)]
    if len(cases) <= 8:
        words += ["--case", "'%s'" % ",".join(cases)]
    if qemus[0] and qemus[1] and qemus[0] != qemus[1]:
        words += ["--a-qemu", qemus[0], "--b-qemu", qemus[1]]
    else:
        words += ["--a-args \"BASE'S RUN OPTIONS\"",
                  "--b-args \"CANDIDATE'S RUN OPTIONS\""]
    return ("not interleaved: %d timing row(s) get no verdict; the files "
            "are not the two sides of one interleaved `ab` session (A B B "
            "A ...), so their boots are blocks "
            "taken apart in time and the permutation test's "
            "exchangeability does not hold (a host's level drifts between "
            "blocks by more than the %.1f %% threshold); exit counts are "
            "still judged.  Decide them with: %s"
            % (len(rows), 100 * threshold, " ".join(words)))


def _qemu_binary(doc):
    argv = (doc.get("config") or {}).get("qemu_argv") \
        if isinstance(doc.get("config"), dict) else None
    return str(argv[0]) if isinstance(argv, list) and argv else None


def audit_note(rows, base, cand):
    """The note on a case whose audited exits moved (suite firmware):
    "exit path changed (audit): rep -> single, 1 rep insb (4,096) ->
    4,096 inb, 138 -> 479,232 insns, 6 -> 4096 exits/op (model)", else
    None.  base and cand are the case's results."""
    row = next((r for r in rows if r.metric == AUDIT_METRIC and
                r.verdict in ("regression", "improvement")), None)
    if row is None:
        return None
    ab, ac = base.get("audit") or {}, cand.get("audit") or {}
    return ("exit path changed (audit): %s -> %s, %s -> %s, %s -> %s insns, "
            "%s -> %s exits/op (model)" % (
                ab.get("path"), ac.get("path"), _io_words(ab), _io_words(ac),
                _grouped(ab.get("insns")), _grouped(ac.get("insns")),
                side_text(row, "base"), side_text(row, "cand")))


def _io_words(audit):
    """"1 rep insb (4,096)", "4,096 inb": an audit's port instructions."""
    io = audit.get("io") if isinstance(audit.get("io"), dict) else {}
    words = []
    for kind, count in io.items():
        words.append("%s %s" % (_grouped(count), kind) + (
            " (%s)" % _grouped(audit["max_rep"]) if kind.startswith("rep ")
            and audit.get("max_rep") else ""))
    return ", ".join(words) or "no port I/O"


def _grouped(value):
    return "{:,}".format(value) if isinstance(value, int) else "?"
