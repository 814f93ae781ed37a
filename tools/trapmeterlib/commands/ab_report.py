"""What an ab session prints: the status line and its plain progress
lines between rounds, and at the end the verdict table with the
session's lines (its looks, plan, counted boots, case list, QEMU's
niceness, forecast), compare's outputs and the HTML section of its
looks."""

from ..guest import plan
from ..output import html, progress as progress_line
from ..stats import compare
from ..system import priority
from . import ab_sides
from . import compare as compare_cmd
from .common import say

def resolution_so_far(rows):
    """The smallest shift the last look could flag, over its undecided
    timing rows: "resolves 1.2-4.3 %", or "" before any look."""
    vals = sorted(r.resolution for r in rows or ()
                  if r.timing and r.verdict == "inconclusive"
                  and r.resolution is not None)
    if not vals:
        return ""
    lo, hi = 100 * vals[0], 100 * vals[-1]
    if round(lo, 1) == round(hi, 1):
        return "resolves %.1f %%" % lo
    return "resolves %.1f-%.1f %%" % (lo, hi)


def status_text(session, doing=""):
    """The status line: boots a side, elapsed / budget, metrics decided,
    resolution so far, what runs now."""
    seq = session.seq
    decided = ""
    if seq.taken:
        total = len(seq.frozen) + len(seq.undecided(seq.last_rows))
        decided = "%d/%d decided" % (len(seq.frozen), total)
    return progress_line.status_text(
        session.title, "A %d B %d boots" % (session.boots("a"),
                                           session.boots("b")),
        progress_line.elapsed_text(session.elapsed(), session.cfg.budget),
        decided, resolution_so_far(seq.last_rows), doing)


def progress(session, round_index, undecided, looked):
    """After a round: the status line on a terminal, a plain line in a
    log."""
    session.status.update(status_text(session), force=True)
    if session.status.terminal:
        return
    left = ""
    if session.cfg.budget:
        left = ", %.0f s of budget left" % max(
            0.0, session.cfg.budget - session.elapsed())
    n = session.boots("a")
    text = "round %d: %d+%d boots, %.0f s%s" % (
        round_index + 1, n, session.boots("b"), session.elapsed(), left)
    if looked:
        text += "; look %d/%d (alpha %.4g): %d decided, %d undecided" % (
            session.seq.taken, session.seq.looks, session.seq.level,
            len(session.seq.frozen), len(undecided))
        flagged = sorted("%s %s %s" % (v[0], k[0], k[1]) for k, v in
                         session.seq.frozen.items()
                         if v[0] in ("regression", "improvement"))
        if flagged:
            text += "; " + ", ".join(flagged)
        if undecided:
            text += "; undecided: " + ", ".join(
                "%s %s" % k for k in undecided[:4]) + (
                " ..." if len(undecided) > 4 else "")
    say(text)


def priority_line(cfg):
    """What the verdict says about QEMU's niceness in the session."""
    said = {name: words[words.index("--nice") + 1]
            for name, (words, _q) in cfg.sides.items() if "--nice" in words}
    if not said:
        return ("ab: QEMU ran at the runner's own niceness (%d): this "
                "process may not lower it (root or CAP_SYS_NICE), so the "
                "host's other work preempts the guest's loops (run --nice)"
                % priority.current())
    return ("ab: QEMU ran at niceness %s, its session's scheduling group "
            "too (run --nice; ab's default %d where allowed: on a shared "
            "host the vCPU thread otherwise waits for a CPU in its timed "
            "loops)" % ("/".join("%s %s" % (n.upper(), v) for n, v in
                                 sorted(said.items())), ab_sides.AB_NICE))


def session_lines(session, warnings):
    """The verdict's lines about the session: the host check, compare's
    warnings, the looks, the plan, the counted boots, the case list,
    QEMU's niceness and the forecast."""
    args = session.cfg
    return session.env_lines + list(warnings) + [
        "ab: %d looks (planned at %s boots per side), alpha %s at them "
        "(%g over the session); %d+%d boots in %.0f s" % (
            session.seq.taken, "/".join(map(str, session.seq.schedule)),
            "/".join("%.3g" % v for v in session.seq.levels), args.alpha,
            session.boots("a"), session.boots("b"), session.elapsed()),
        "ab: every boot ran one plan (%d cases, samples raised to at least "
        "%d where a case's samples take under %.0f ms) from a planning boot "
        "of side A that is not compared" % (
            len(session.plan_entries), args.min_samples, plan.WINDOW_MS),
        "ab: exits counted, where run counts them, in %d boot(s) of each "
        "side, boots 1, 2, 4, ... (--count-boots); cycles_per_exit comes "
        "from those, and every boot's breakdown takes their exits"
        % args.count_boots,
        "ab: case list: %s" % args.case_list, priority_line(args)] + [
        "ab: " + line for line in session.forecast_lines]


def finish(session, rows, warnings):
    """Table on stdout, compare's outputs, compare's exit status (each
    side's file written with its breakdown over all its boots first)."""
    args = session.cfg
    warnings = session_lines(session, warnings)
    session.keep_sides()
    docs = (session.docs["a"], session.docs["b"])
    title = "trapmeter ab: A %s vs B %s" % (args.a_json, args.b_json)
    compare_cmd.print_verdicts(title, rows, warnings, docs,
                               (args.a_json, args.b_json))
    compare_cmd.write_compare_outputs(args.outputs, rows, warnings, *docs,
                                      args.a_json, args.b_json)
    compare_cmd.write_html(args.outputs, title, rows, warnings, *docs,
                           ("A", "B"), extra=[session_html(session)])
    return compare.exit_status(rows)


def session_html(session):
    """The session's looks for the HTML report: boots a side, time and
    level at each."""
    seq = session.seq
    rows = [[i + 1, n, "-" if seq.look_seconds.get(n) is None else
             "%.0f" % seq.look_seconds[n], "%.3g" % level]
            for i, (n, level) in enumerate(zip(sorted(seq.look_seconds),
                                               seq.levels))]
    return html.section("The session's looks", html.table(
        "table-looks", ["look", "boots a side", "seconds", "alpha"], rows))
