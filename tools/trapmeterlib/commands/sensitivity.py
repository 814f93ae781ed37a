"""`trapmeter sensitivity`: the smallest slowdown of an exit to QEMU that
`ab` detects on this host.  The LD_PRELOAD shim build/kvm_delay.so
(tools/shim/kvm_delay.c) spins a chosen number of nanoseconds after every
KVM_RUN return whose exit reason is I/O or MMIO; exits KVM answers itself
are untouched.  First an A/A session (shim loaded at 0 ns on both sides)
measures the QEMU round trip (pio.user: per-boot minimum cycles / measured
exits) and the false alarms; then one ab session per level (a percentage
of that round trip) against the undelayed side.

Size: the shim's wrapper and checks, the sessions and the table of
levels belong to this one command; the table's rendering is the seam to
cut next."""

import dataclasses
import json
import os
import shutil
import sys
import time
import types

from ..guest import plan as sample_plan
from ..output import html, report, resultsfile
from ..stats import abtest, compare
from ..stats.verdict import BY_MEANS
from ..system import hostinfo, privdir
from ..values import exitstatus, figure
from . import ab as ab_cmd
from . import ab_rounds, ab_sides
from . import compare as compare_cmd
from . import run as run_cmd
from .ab_config import Outputs, SessionConfig
from .common import (OptionError, TrapmeterError, budget_seconds,
                     repo_root, say)

NAME = "sensitivity"
SHIM = os.path.join("build", "kvm_delay.so")
DEFAULT_LEVELS = (0.5, 1.0, 2.0, 5.0, 10.0)
ROUND_TRIP_CASE = ("exits", "pio.user")
COUNT_SLACK = 0.9           # delayed >= 90 % of the exits measured


def add_parser(sub, fmt):
    sen = sub.add_parser(
        NAME, formatter_class=fmt, epilog=exitstatus.EXIT_TABLE,
        allow_abbrev=False,
        help="detection limit of ab on this host, by injected delays",
        usage="%(prog)s [--case GLOBS] [--budget S] [--levels LIST] "
        "[RUN OPTIONS...] [-- QEMU ARGS]",
        description="Run ab for A/A and for delays of --levels percent of "
        "the QEMU round trip (measured in the A/A boots) added to every "
        "exit to QEMU by an LD_PRELOAD shim; print per case the smallest "
        "delay flagged, the A/A false alarms and the verdicts of in-kernel "
        "controls. Needs KVM and a dynamically linked QEMU (status 12 "
        "otherwise). Unknown options are run options (--case, --suite, "
        "--cmdline, ...); without --case or --suite every session runs ab's "
        "sentinel list (docs/design.md).")
    add = sen.add_argument
    add("--levels", default=",".join("%g" % x for x in DEFAULT_LEVELS),
        help="delays in percent of the round trip (default %s)"
        % ",".join("%g" % x for x in DEFAULT_LEVELS))
    add("--budget", type=budget_seconds, metavar="SECONDS",
        help="wall time for everything, shared out over the sessions (at "
        "most 30 days)")
    add("--max-boots", type=int,
        help="boots per ab session, both sides (default %d, or with "
        "--budget %d: the budget ends each session)"
        % (abtest.DEFAULT_MAX_BOOTS, abtest.BUDGET_MAX_BOOTS))
    add("--looks", type=int, default=abtest.DEFAULT_LOOKS)
    add("--metrics", default="cycles_per_op,exits_per_op")
    add("--min-samples", type=int, default=sample_plan.MIN_SAMPLES,
        metavar="N", help="ab's floor of samples per case (default %d)"
        % sample_plan.MIN_SAMPLES)
    add("--out", metavar="DIR", default="sensitivity",
        help="every session's results and verdicts (default ./sensitivity)")
    add("--qemu", metavar="PATH", default="qemu-system-x86_64")
    add("--resume", action="store_true",
        help="reuse every session already recorded in --out at the same "
        "delay (so the sessions can run in separate sittings; the table "
        "covers them all)")
    add("--max-sessions", type=int, metavar="N",
        help="run at most N new ab sessions in this sitting (with "
        "--resume: the rest in later ones)")
    ab_cmd.add_rounds_option(add)
    ab_cmd.add_count_boots_option(add)
    add("--no-build", action="store_true", help="do not run make")
    add("-v", "--verbose", action="store_true")
    compare_cmd.add_verdict_options(add)


@dataclasses.dataclass(frozen=True)
class Study:
    """What sensitivity derives from its options, once: the levels, the
    run words of every session and the verdicts' thresholds."""
    levels: tuple
    run_words: tuple
    thresholds: types.MappingProxyType


def study_of(args):
    """The Study of sensitivity's parsed options (read, never written);
    bad values are named in the order a user meets them."""
    levels = parse_levels(args.levels)
    thresholds = compare_cmd.check_verdict_options(args)
    if args.budget is not None and not args.budget > 0:
        raise OptionError("--budget must be a positive number of seconds")
    if args.max_sessions is not None and args.max_sessions < 1:
        raise OptionError("--max-sessions must be at least 1")
    return Study(levels=tuple(levels),
                 run_words=tuple(getattr(args, "run_options", ())),
                 thresholds=types.MappingProxyType(dict(thresholds or {})))


def parse_levels(text):
    try:
        levels = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        levels = []
    if not levels or any(not 0 < x <= 100 for x in levels):
        raise OptionError("--levels %r: expected a comma list of percentages "
                          "in (0, 100]" % text)
    return sorted(levels)


# ---------------------------------------------------------------- can it act

def refuse(message):
    raise TrapmeterError(exitstatus.NO_INJECTION, "cannot inject delays: "
                         + message)


def elf_imports_ioctl(path):
    """(dynamic, imports ioctl) read from the ELF: a PT_INTERP segment and
    the name "ioctl" in the file's strings."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        refuse("cannot read %s: %s" % (path, exc.strerror or exc))
    if data[:4] != b"\x7fELF":
        return False, False
    return b"/ld-linux" in data or b"ld.so" in data, b"ioctl\x00" in data


def check_applicable(args, run_words):
    """Refuse (status 12) where the shim cannot act."""
    for i, word in enumerate(run_words):
        value = word.split("=", 1)[1] if word.startswith("--accel=") else (
            run_words[i + 1] if word == "--accel" and i + 1 < len(run_words)
            else None)
        if value == "tcg":
            refuse("--accel tcg: TCG never calls KVM_RUN")
    usable, why = hostinfo.kvm_usable()
    if not usable:
        refuse("KVM is not usable: %s" % why)
    qemu = shutil.which(args.qemu)
    if not qemu:
        refuse("QEMU binary not found: %s" % args.qemu)
    dynamic, ioctl = elf_imports_ioctl(os.path.realpath(qemu))
    if not dynamic:
        refuse("%s is not a dynamically linked ELF: LD_PRELOAD cannot "
               "reach its ioctl" % qemu)
    if not ioctl:
        refuse("%s does not import ioctl from libc" % qemu)
    shim = os.path.join(repo_root(), SHIM)
    if not os.path.isfile(shim):
        refuse("%s is not built (run make)" % SHIM)
    return qemu, shim


def wrapper(tmp, qemu, shim, delay_ns):
    """A QEMU wrapper script that preloads the shim at delay_ns."""
    path = os.path.join(tmp, "qemu-delay-%d" % delay_ns)
    rep = os.path.join(tmp, "shim-%d.json" % delay_ns)
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\n"
                 "LD_PRELOAD='%s'${LD_PRELOAD:+:$LD_PRELOAD}\n"
                 "TRAPMETER_DELAY_NS=%d\nTRAPMETER_DELAY_REPORT='%s'\n"
                 "export LD_PRELOAD TRAPMETER_DELAY_NS TRAPMETER_DELAY_REPORT\n"
                 "exec '%s' \"$@\"\n" % (shim, delay_ns, rep, qemu))
    os.chmod(path, 0o755)
    return path, rep


# ---------------------------------------------------------------- proof

def exits_to_qemu(doc, per_op):
    """Exits to QEMU in the cases' windows of one boot: its own counts, or,
    in a boot that did not count (ab --count-boots), the counts per op that
    the side's counted boots measured, which `per_op` ({case: exits per
    op}) keeps; the count of ops is every boot's own."""
    total = 0.0
    for results in compare.boot_results(doc):
        for res in results:
            if res.get("handler") != "user":
                continue
            # rounds: the exits of one counted round, the shim delays all
            ex = res.get("exits_measured")
            case = res.get("case")
            if isinstance(ex, (int, float)) and ex > 0:
                per_op[case] = ex
            ex = per_op.get(case)
            ops = res.get("ops_total", res.get("ops"))
            if ex is not None and isinstance(ops, (int, float)):
                total += ex * ops
    return total


def check_shim(report_path, doc, delay_ns, ledger, per_op):
    """The shim must have acted: its count of delayed exits covers the
    exits measured in the windows."""
    try:
        with open(report_path) as fh:
            rep = json.load(fh)
        os.unlink(report_path)
    except (OSError, ValueError):
        refuse("the shim wrote no report (%s): QEMU did not load it or "
               "died before exit" % report_path)
    if not rep.get("final") or not rep.get("vcpus"):
        refuse("the shim was loaded but saw no KVM vCPU (TCG, or a QEMU "
               "that does not call ioctl through libc)")
    delayed = rep.get("delayed_io", 0) + rep.get("delayed_mmio", 0)
    measured = exits_to_qemu(doc, per_op)
    if delayed < COUNT_SLACK * measured or rep.get("delay_ns") != delay_ns:
        refuse("the shim delayed %d exits at %s ns, but %.0f exits to QEMU "
               "were measured" % (delayed, rep.get("delay_ns"), measured))
    ledger.append({"delay_ns": delay_ns, "delayed": delayed,
                   "measured_in_windows": round(measured, 1),
                   "kvm_run_returns": rep.get("kvm_run_returns"),
                   "spun_ns": rep.get("spun_ns")})


# ---------------------------------------------------------------- sessions

def ab_config(args, study, name, a_qemu, b_qemu, budget, extra):
    """The ab session of one level: side A on QEMU a_qemu, side B on
    b_qemu, both with sensitivity's run options (ab's sentinel list when
    they choose no cases); results and verdicts in --out under the
    session's name."""
    stem = os.path.join(args.out, name)
    shared, which = ab_sides.case_list(list(study.run_words))
    return SessionConfig(
        sides=ab_sides.make_sides(shared, extra, qemus=(a_qemu, b_qemu)),
        a_json=stem + "-a.json", b_json=stem + "-b.json",
        thresholds=dict(study.thresholds),
        metrics=[m for m in args.metrics.split(",") if m],
        max_boots=args.max_boots, budget=budget, looks=args.looks,
        alpha=session_alpha(args), rounds=args.rounds, min_samples=args.min_samples,
        count_boots=args.count_boots, seed=args.seed,
        resamples=args.resamples, stat=args.stat, verbose=args.verbose,
        outputs=Outputs(json=stem + "-verdicts.json",
                               markdown=stem + "-verdicts.md",
                               plot_engine=args.plot_engine),
        case_list=which, title="sensitivity " + name,
        allow_env_diff=args.allow_env_diff).check()


def session_alpha(args):
    """alpha split over the command's sessions (A/A and one per level):
    Bonferroni, so that a false alarm anywhere in the table stays within
    --alpha (six sessions each at alpha alarmed in up to 26 % of
    sittings)."""
    return args.alpha / float(1 + len(parse_levels(args.levels)))


def recorded(args, name, delay_ns):
    """A session of an earlier sitting (--resume), or None."""
    path = os.path.join(args.out, name + "-session.json")
    if not args.resume or not os.path.isfile(path):
        return None
    with open(path) as fh:
        sess = json.load(fh)
    if sess.get("delay_ns") != delay_ns or not all(
            os.path.isfile(sess.get(k) or "") for k in ("a_json", "b_json")):
        return None
    say("sensitivity: session %s reused from %s" % (name, path))
    sess["reused"] = True
    return sess


def run_level(args, study, name, sides, budget, extra):
    """One ab session: (rows, boots, wall seconds, shim ledger)."""
    (a_qemu, a_rep, a_ns), (b_qemu, b_rep, b_ns) = sides
    again = recorded(args, name, b_ns)
    if again:
        return again
    ledger = []
    per_op = {"a": {}, "b": {}}

    def after_boot(side, doc):
        rep, ns = (a_rep, a_ns) if side == "a" else (b_rep, b_ns)
        check_shim(rep, doc, ns, ledger, per_op[side])

    cfg = ab_config(args, study, name, a_qemu, b_qemu, budget, extra)
    say("sensitivity: session %s (A %d ns, B %d ns per exit to QEMU)"
        % (name, a_ns, b_ns))
    begin = time.monotonic()
    code = ab_rounds.run_session(cfg, after_boot)
    with open(cfg.outputs.json) as fh:
        rows = json.load(fh)["rows"]
    boots = [len(compare.boot_results(resultsfile.read_results(p)))
             for p in (cfg.a_json, cfg.b_json)]
    sess = {"name": name, "delay_ns": b_ns, "status": code, "rows": rows,
            "alpha": cfg.alpha,
            "boots": boots, "wall_s": round(time.monotonic() - begin, 1),
            "shim": ledger, "a_json": cfg.a_json, "b_json": cfg.b_json}
    report.write_json_atomic(os.path.join(args.out, name + "-session.json"),
                             sess)
    return sess


def round_trip_ns(a_json):
    """QEMU round trip from the A/A boots: pio.user per-boot minimum
    cycles over its exits per op (counted in the side's first boots),
    median over boots, in ns."""
    doc = resultsfile.read_results(a_json)
    figures, ex = [], None
    for boot in doc["boots"]:
        khz = ((boot.get("run") or {}).get("tsc") or {}).get("khz")
        for res in boot.get("results") or []:
            if (res.get("suite"), res.get("case")) != ROUND_TRIP_CASE:
                continue
            loc = compare.location(res, "min")
            # a boot that did not count exits (ab --count-boots) takes
            # the exits per op of the counted boot before it
            if isinstance(res.get("exits_measured"), (int, float)):
                ex = res["exits_measured"]
            if loc and ex is not None and ex >= 0.5 and khz:
                figures.append((loc / ex, loc / ex * 1e6 / khz))
    if not figures:
        refuse("no pio.user figure with measured exits in the A/A boots "
               "(select --suite exits and --case pio.*)")
    figures.sort()
    return figures[len(figures) // 2]


# ---------------------------------------------------------------- table

def short(verdict):
    return {"regression": "R", "improvement": "I", "unchanged": "=",
            "inconclusive": "?"}.get(verdict, "-")


def case_table(sessions, levels):
    """{case: {"handler", "aa", "levels": {pct: verdict}, "smallest"}}."""
    aa = sessions[0]
    table = {}
    for row in aa["rows"]:
        if row["metric"] == "cycles_per_op":
            name = "%s/%s" % (row["suite"], row["case"])
            table[name] = {"aa": row["verdict"], "levels": {},
                           "smallest": None, "handler": None,
                           "flagged_s": {},
                           "aa_resolves": row.get("resolution")}
    for pct, sess in zip(levels, sessions[1:]):
        for row in sess["rows"]:
            name = "%s/%s" % (row["suite"], row["case"])
            if row["metric"] == "cycles_per_op" and name in table:
                table[name]["levels"][pct] = row["verdict"]
                at = row.get("decided_at") or {}
                if row["verdict"] == "regression" and at.get("seconds"):
                    table[name]["flagged_s"][pct] = at["seconds"]
                if row["verdict"] == "regression" and \
                        table[name]["smallest"] is None:
                    table[name]["smallest"] = pct
                if row["verdict"] == "regression":
                    keep_smallest(table[name], pct, row)
    return table


def measured(row):
    """(shift, None) of a row as a cost factor less one: the shift of the
    undisturbed boots' means the session measured (what a level moved,
    whatever its verdict); None without a shift."""
    factor = row.get("slowdown_undisturbed")
    if not isinstance(factor, (int, float)):
        return None
    return factor - 1.0, None


def _cost_ends(row, ends):
    """A ratio's ends as cost factors less one, low first."""
    if not row.get("lower_is_better", True):
        ends = [1.0 / e for e in ends]
    return [e - 1.0 for e in sorted(ends)]


def decided(row):
    """{"shift", "interval", "interval_level"} of a flagged row as cost
    factors less one: the shift its verdict was decided on and the
    interval of that test at its level (stats/verdict.decision, as the
    row's "ratio", "interval", "interval_level" and "estimator" carry
    it).  None when the verdict did not rest on a shift (a slow mode is a
    share of boots, not a shift).  A row stored before rows carried
    their decision: its measured shift, the interval not resolved (its
    "ci95" is Moses' over every boot, not the verdict's)."""
    estimator = row.get("estimator")
    if estimator is None:
        got = measured(row)
        return got and {"shift": got[0], "interval": None,
                        "interval_level": None}
    ratio = row.get("ratio")
    if estimator != BY_MEANS or not isinstance(ratio, (int, float)) \
            or ratio <= 0:
        return None
    shift = _cost_ends(row, [ratio])[0]
    ends = [v for v in row.get("interval") or () if isinstance(
        v, (int, float)) and v > 0]
    level = row.get("interval_level")
    if len(ends) != 2 or not isinstance(level, (int, float)):
        return {"shift": shift, "interval": None, "interval_level": None}
    return {"shift": shift, "interval": _cost_ends(row, ends),
            "interval_level": level}


def keep_smallest(case, pct, row):
    """The smallest shift a flagged row was decided on (the case's
    detection limit here, with the verdict's interval), over the
    levels."""
    got = decided(row)
    best = case.get("smallest_measured")
    if got and (best is None or got["shift"] < best["shift"]):
        case["smallest_measured"] = dict(got, level=pct)


def level_moved(sess, handler_of):
    """What a level really moved: the measured B/A shift of cycles_per_op
    over the cases the delay touches (handler user): {"median", "lo",
    "hi", "cases"} as cost factors less one, or None."""
    shifts = sorted(m[0] for m in (
        measured(r) for r in sess.get("rows") or ()
        if r.get("metric") == "cycles_per_op"
        and handler_of.get("%s/%s" % (r.get("suite"), r.get("case")))
        == "user") if m)
    if not shifts:
        return None
    mid = len(shifts) // 2
    median = shifts[mid] if len(shifts) % 2 else \
        0.5 * (shifts[mid - 1] + shifts[mid])
    return {"median": median, "lo": shifts[0], "hi": shifts[-1],
            "cases": len(shifts)}


def pct_text(value):
    """A level's median shift over the cases the delay touches."""
    return figure.percent_text(figure.measured(value), signed=True)


def smallest_text(case):
    """The "smallest flagged" cell: the measured shift with its interval
    (the nominal level when the session recorded no shift)."""
    return html.smallest_cell(case)


def limit_line(table):
    """The detection limit printed: the smallest measured shift flagged on
    a case the delay touches, with its interval."""
    best = [(c["smallest_measured"]["shift"], n) for n, c in table.items()
            if c.get("handler") == "user" and c.get("smallest_measured")]
    if not best:
        return ("detection limit: not resolved -- no case the delay touches "
                "was flagged at any level")
    shift, name = min(best)
    return "detection limit: %s, the smallest measured shift flagged (%s)" \
        % (smallest_text(table[name]), name)


def handlers(a_json):
    doc = resultsfile.read_results(a_json)
    out = {}
    for results in compare.boot_results(doc):
        for res in results:
            out["%s/%s" % (res.get("suite"), res.get("case"))] = \
                res.get("handler")
    return out


def flag_cell(case, pct):
    """A level's verdict, with the session time it was flagged at."""
    cell = short(case["levels"].get(pct))
    seconds = case["flagged_s"].get(pct)
    return cell + (" %.0fs" % seconds if seconds else "")


def resolves_cell(case):
    """The A/A session's resolution of the case: the smallest change its
    test could flag at the boots and spread it had (compare's
    "resolves")."""
    value = case.get("aa_resolves")
    return "-" if value is None else "%.1f %%" % (100 * value)


def render(table, sessions, levels, rt):
    lines = ["trapmeter sensitivity: QEMU round trip (pio.user, A/A boots) "
             "%.0f cycles = %.0f ns per exit" % rt,
             "verdicts of cycles_per_op: R regression (with the ab session "
             "time it was flagged at), I improvement, = unchanged, "
             "? inconclusive; resolves: the smallest change A/A's test "
             "could flag (about half the time) at its boots and spread"]
    moved = {p: level_moved(sess, {n: t["handler"] for n, t in table.items()})
             for p, sess in zip(levels, sessions[1:])}
    head = ["case", "handler", "A/A", "resolves"] + [
        "%g%%" % p if not moved.get(p) else "%g%%=%s" % (
            p, pct_text(moved[p]["median"]).replace(" ", ""))
        for p in levels] + ["smallest flagged (measured shift [interval])"]
    cells = [head]
    for name in sorted(table, key=lambda n: (table[n]["handler"] != "user",
                                             n)):
        t = table[name]
        cells.append([name, t["handler"] or "-", short(t["aa"]),
                      resolves_cell(t)]
                     + [flag_cell(t, p) for p in levels]
                     + [smallest_text(t)])
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    for c in cells:
        lines.append("  " + "  ".join(x.ljust(w) for x, w in zip(c, widths)))
    lines.append("")
    lines.append("  session  delay ns  spun ns  boots A+B  wall s  pio.user B/A"
                 "  shim delayed / measured exits to QEMU (per boot, min)")
    for sess in sessions:
        ratio = min((x["delayed"] / x["measured_in_windows"]
                     for x in sess["shim"] if x["measured_in_windows"]),
                    default=None)
        moved = round_trip_moved(sess)
        lines.append("  %-7s  %8d  %7s  %4d+%-4d  %6.0f  %12s  %s" % (
            sess["name"], sess["delay_ns"], spun_per_exit(sess),
            sess["boots"][0], sess["boots"][1], sess["wall_s"],
            "-" if moved is None else "%.3f" % moved,
            "-" if ratio is None else "%.2fx" % ratio))
    lines.append("  spun ns: the shim's own count of time spun per delayed exit "
                 "(side B); pio.user B/A: the measured cost factor of a QEMU "
                 "round trip (undisturbed boots): what the level really added")
    lines.append("  a level's column: its nominal delay = the median measured "
                 "B/A shift of the cases it touches (handler user); "
                 "alpha %s over the sessions" % ", ".join(
                     "%s %.3g" % (s["name"], s["alpha"]) for s in sessions
                     if s.get("alpha") is not None) if sessions else "")
    lines.append(limit_line(table))
    return "\n".join(lines) + "\n"


def spun_per_exit(sess):
    """Mean nanoseconds the shim spun per exit it delayed, side B's boots."""
    spun = [x for x in sess["shim"] if x["delay_ns"] == sess["delay_ns"]
            and x.get("spun_ns") is not None and x["delayed"]]
    if not spun or not sess["delay_ns"]:
        return "-"
    return "%.0f" % (sum(x["spun_ns"] for x in spun)
                     / float(sum(x["delayed"] for x in spun)))


def round_trip_moved(sess):
    """The session's measured cost factor B/A of pio.user (the test's
    figure: undisturbed boots), or None."""
    for row in sess["rows"]:
        if (row["suite"], row["case"]) == ROUND_TRIP_CASE and \
                row["metric"] == "cycles_per_op":
            return row.get("slowdown_undisturbed")
    return None


def false_alarms(table):
    """A/A alarms, and in-kernel controls flagged at any level."""
    out = []
    for name, t in table.items():
        if t["aa"] in ("regression", "improvement"):
            out.append("A/A: %s %s" % (name, t["aa"]))
        if t["handler"] == "kernel":
            out += ["%g %%: in-kernel %s %s" % (p, name, v)
                    for p, v in t["levels"].items()
                    if v in ("regression", "improvement")]
    return out


# ---------------------------------------------------------------- command

def budget_share(args, begin, left):
    if args.budget is None:
        return None
    remaining = args.budget - (time.monotonic() - begin)
    if remaining <= 0:
        return None if left == 0 else 1.0
    return remaining / max(1, left)


def command(args, extra=()):
    study = study_of(args)
    qemu, shim = check_applicable(args, list(study.run_words))
    os.makedirs(args.out, exist_ok=True)
    if not args.no_build:
        run_cmd.ensure_built(repo_root())
    tmp = privdir.fresh("sens", say)
    begin = time.monotonic()
    try:
        return sessions_and_table(args, study, qemu, shim, tmp, begin, extra)
    finally:
        privdir.remove(tmp)


def new_session_allowed(args, name, delay_ns, ran):
    """--max-sessions: may this sitting run session `name` (or reuse it)?"""
    if args.max_sessions is None or recorded(args, name, delay_ns):
        return True
    return ran[0] < args.max_sessions


def sessions_and_table(args, study, qemu, shim, tmp, begin, extra):
    levels = list(study.levels)
    zero = wrapper(tmp, qemu, shim, 0)
    ran = [0]
    sessions = [run_level(args, study, "aa", ((zero[0], zero[1], 0),
                                       (zero[0], zero[1], 0)),
                          budget_share(args, begin, len(levels) + 1), extra)]
    ran[0] += not sessions[0].get("reused")
    rt = round_trip_ns(sessions[0]["a_json"])
    for i, pct in enumerate(levels):
        delay = max(1, int(round(rt[1] * pct / 100.0)))
        if not new_session_allowed(args, "d%g" % pct, delay, ran):
            say("sensitivity: --max-sessions %d reached; %d of %d levels "
                "done: run again with --resume" % (args.max_sessions, i,
                                                   len(levels)))
            break
        delayed = wrapper(tmp, qemu, shim, delay)
        sessions.append(run_level(
            args, study, "d%g" % pct, ((zero[0], zero[1], 0),
                                (delayed[0], delayed[1], delay)),
            budget_share(args, begin, len(levels) - i), extra))
        ran[0] += not sessions[-1].get("reused")
    table = case_table(sessions, levels)
    for name, handler in handlers(sessions[0]["a_json"]).items():
        if name in table:
            table[name]["handler"] = handler
    for sess in sessions:
        sess["moved"] = level_moved(sess, {n: t["handler"]
                                           for n, t in table.items()})
    text = render(table, sessions, levels, rt)
    cases = ab_sides.case_list(list(study.run_words))[1]
    text += "case list: %s\n" % cases
    alarms = false_alarms(table)
    text += "".join("false alarm: %s\n" % a for a in alarms)
    sys.stdout.write(text)
    doc = {"tool": "trapmeter", "kind": "sensitivity", "levels_pct": levels,
           "round_trip": {"cycles": rt[0], "ns": rt[1]}, "cases": table,
           "sessions": sessions, "false_alarms": alarms, "case_list": cases,
           "wall_s": round(time.monotonic() - begin, 1)}
    for path in filter(None, (os.path.join(args.out, "sensitivity.json"),
                              args.json)):
        report.write_json_atomic(path, doc)
    if args.html:
        report.write_text_atomic(args.html, html.sensitivity_report(
            doc, text.rstrip("\n").split("\n")))
        say("report written to %s" % args.html)
    return exitstatus.REGRESSION if alarms else exitstatus.OK
