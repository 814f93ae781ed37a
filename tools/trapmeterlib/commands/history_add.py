"""`trapmeter history add`: results files into the history
(backends/historydb.py), each verified whole and keyed by its host's
series (stats/runlevel.series_key); what a run starts (another series,
another measure of a case) is said as it is added."""

import contextlib
import hashlib
import json

from ..backends import historydb
from ..output import history_export, resultsfile
from ..stats import runlevel
from ..stats.comparable import cases_of
from ..system import envdiff, gitbuild, inputfile, sigdefer
from ..values import exitstatus
from ..values.errors import UnusableInput
from .common import OptionError, TrapmeterError, check_outputs, say

# a signal once the transaction has the file: held until add has said
# what it added, then dropped (the write is whole or nothing either way)
HELD = "while the history was written: ignored (one transaction: every " \
    "file added, or none on an error said above)"


def cmd_add(args):
    check_outputs([("FILE", f) for f in args.files], [])
    if args.describe and (args.commit or args.date):
        raise OptionError("--describe takes commit and date from the "
                          "checkout: give it alone")
    commit = described(args.describe) if args.describe else {
        "commit_id": args.commit, "commit_date": iso_date(args.date),
        "describe": None}
    fp_doc = read(args.fingerprint_from) if args.fingerprint_from else None
    entries = [entry(path, commit, args.label, fp_doc)
               for path in args.files]
    conn = historydb.open_db(args.db, create=True,
                             busy_s=args.busy_timeout)
    try:
        before = historydb.last_run(conn)
        prev = historydb.host(conn, before["host"]) if before else None
        with contextlib.ExitStack() as held:
            added = historydb.add_runs(conn, entries, lambda: held
                                       .enter_context(sigdefer.deferred(
                                           say, HELD)))
            say_added(conn, added, prev)
    finally:
        conn.close()
    return exitstatus.OK


def say_added(conn, added, prev):
    """Say what each run added: its series, and what it starts."""
    for ent, run_id, new, host_id, learned in added:
        ser = historydb.host(conn, host_id)
        say("history: added %s as run %d of series %s (%d figures)"
            % (ent["source"], run_id, ser["key"], len(ent["figures"])))
        lines = tsc_lines(ent, ser, historydb.siblings(conn, host_id),
                          new, learned)
        if prev is not None and prev["key"] != ser["key"]:
            lines += series_change(prev, ser, new)
        lines += measure_lines(ent, ser["key"],
                               historydb.measures_before(conn, host_id,
                                                         run_id))
        for line in lines:
            say(line)
        prev = ser


def read(path):
    try:
        return resultsfile.read_results(path)
    except UnusableInput as exc:
        if lava_export(path):
            raise TrapmeterError(exitstatus.UNUSABLE, "%s: an import of a "
                                 "LAVA results export: it holds each case's "
                                 "median only, without the guest's lines a "
                                 "history verifies and the samples of each "
                                 "boot its figure is the minimum of; "
                                 "import-lava the jobs' logs instead "
                                 "(docs/ci.md)" % path)
        raise TrapmeterError(exitstatus.UNUSABLE, str(exc))


def lava_export(path):
    """True when `path` is import-lava's results.json of a LAVA server's
    results export (not of a job's log)."""
    try:
        doc = json.loads(inputfile.read_text(path))
    except (TrapmeterError, ValueError, OSError):
        return False
    if not isinstance(doc, dict):
        return False
    boots = doc.get("boots")
    return isinstance(doc.get("config"), dict) and \
        doc["config"].get("source") == "lava" and \
        isinstance(boots, list) and any(
            isinstance(b, dict) and isinstance(b.get("lava"), dict)
            and b["lava"].get("kind") == "export" for b in boots)


def entry(path, commit, label, fp_doc):
    """What add_runs stores of one results file (verified whole first)."""
    doc = read(path)
    if doc.get("status") != "ok":
        raise TrapmeterError(exitstatus.UNUSABLE, "%s: the run ended with "
                             "status %s: a history keeps runs that "
                             "completed (status ok)" % (path,
                                                        doc.get("status")))
    if fp_doc is not None and envdiff.fingerprint_of(doc) is None:
        doc = dict(doc, host=dict(doc.get("host") or {},
                                  fingerprint=envdiff.fingerprint_of(fp_doc)))
    try:
        key, fields = runlevel.series_key(doc)
        tsc = runlevel.tsc_rate(doc)
    except UnusableInput as exc:
        raise TrapmeterError(exitstatus.UNUSABLE, "%s: %s" % (path, exc))
    figures = runlevel.run_figures(doc)
    handlers = {k: r[0].get("handler") for k, r in cases_of(doc).items()
                if r and isinstance(r[0], dict)}
    for fig in figures:
        fig["handler"] = handlers.get((fig["suite"], fig["case"]))
    if not figures:
        raise TrapmeterError(exitstatus.UNUSABLE, "%s: no case with a "
                             "figure to keep" % path)
    config = doc.get("config") or {}
    kind = "lava" if config.get("source") == "lava" else \
        "ab" if isinstance(doc.get("session"), dict) else "run"
    digest = hashlib.sha256(inputfile.read_text(path)).hexdigest()
    return dict(commit, key=key, fields=fields, tsc=tsc, digest=digest,
                fingerprint=envdiff.fingerprint_of(doc), source=path,
                kind=kind, subject=runlevel.subject(doc), label=label,
                boots=len([b for b in doc["boots"] if b.get("results")]),
                status=doc.get("status"), figures=figures,
                mixed=runlevel.mixed_cases(doc))


def tsc_lines(ent, ser, others, new, learned):
    """Lines that say a run's TSC rate starts a series of its own (the
    fingerprint and method of others, another clock), or gave a series
    kept before history schema 4 its rate."""
    khz, source = ent["tsc"]
    if learned:
        return ["history: series %s kept no TSC rate (added before history "
                "schema 4): it takes this run's, %.0f kHz (%s)"
                % (ser["key"], khz, source)]
    if not new or not others:
        return []
    return ["history: %s: a new series %s: its TSC, %.0f kHz (%s), is not "
            "that of series %s of the same host fingerprint and method "
            "(another clock: a host whose TSC frequency changed, or another "
            "CPU of the same model; a cycle is another length of time)"
            % (ent["source"], ser["key"], khz, source, ", ".join(
                "%s (%s)" % (key, "%.0f kHz, %s" % (rate, how)
                             if rate is not None else "rate not kept")
                for key, rate, how in others))]


def measure_lines(ent, key, before):
    """Lines that say a case of this run starts another series of the
    case (what one op measured differs from the case's run before), or
    was left out (its boots measured different things)."""
    lines, seen = [], set()
    for (suite, case), why in sorted(ent.get("mixed", {}).items()):
        lines.append("history: %s: %s/%s left out: its boots measured "
                     "different things (%s): their median is no figure"
                     % (ent["source"], suite, case, why))
    for fig in ent["figures"]:
        case, what = (fig["suite"], fig["case"]), fig.get("measure")
        was = before.get(case)
        if what is None or was is None or was == what or case in seen:
            continue
        seen.add(case)
        lines.append("history: %s/%s starts another series of the case in "
                     "series %s: %s -> %s (another measurement, not a step "
                     "in one)" % (case + (key,
                                          runlevel.measure_text(was),
                                          runlevel.measure_text(what))))
    return lines


def series_change(prev, ser, new):
    """Lines that say a run starts another series, and why."""
    diffs = [(f, a, b) for f, a, b, _cost in envdiff.differences(
        prev["fields"], ser["fields"])]
    head = "history: %s series %s: its host, method or TSC differs from " \
        "the previous run's (series %s) in" % (
            "a new" if new else "back to", ser["key"], prev["key"])
    return [head] + ["  %s: %s -> %s" % d for d in diffs[:12]] + (
        ["  ... %d more" % (len(diffs) - 12)] if len(diffs) > 12 else [])


def described(directory):
    try:
        head = gitbuild.git(directory, "rev-parse", "--verify", "HEAD")
        return {"commit_id": head,
                "commit_date": gitbuild.git(directory, "show", "-s",
                                            "--format=%cI", "HEAD"),
                "describe": gitbuild.git(directory, "describe", "--always",
                                         "--dirty", "--tags")}
    except gitbuild.GitError as exc:
        raise OptionError("--describe %s: %s" % (directory, exc))


def iso_date(text):
    if text is None:
        return None
    if history_export.epoch(text) is None:
        raise OptionError("--date %r: not an ISO 8601 date (e.g. "
                          "2026-12-03 or 2026-12-03T09:40:00Z)" % text)
    return text
