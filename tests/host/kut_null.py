#!/usr/bin/env python3
"""tests/host/kut_null.py - the error rate of `trapmeter kut`'s "explained"
(tools/trapmeterlib/stats/kutcmp.py `judge`, `try_verdict`), and how many real
rows each width rule explains.

A row whose raw differences disagree is "explained" when one tried cause
gives a figure that, less vmexit's round by round, lies within plus or
minus what the rule allows.  The null: the tries explain a row by accident.  For
each recorded session (results files of `kut`, read as `kut --from` reads
them), vmexit's figures of case A (every round, with its loops' waits) are
put in place of case B's, A != B, and row B is judged again: trapmeter's
tries for B against vmexit's difference for A.  A pair counts when both
rows have two rounds or more in both tools, vmexit's ranges of A and B do
not meet (the figures differ) and A's does not meet trapmeter's raw range
of B (the shuffled row disagrees, so the tries are asked), and A's median
lies further from B's than the rule allows (near: within it, the rule's
claim, that the try leaves at most that much, holds for A as it did for
B, so the pair tests nothing; such pairs are counted apart).  Every
"explained" among the rest is false.  The rate is printed with its
exact one-sided upper bound (Clopper-Pearson, --confidence), over all
pairs and by how far A's figure lies from B's (|median A - median B| over
the shuffled row's raw gap, A's vmexit range to B's trapmeter range: under
a quarter of the gap, a quarter to a whole gap, over it), and by how wide
A's vmexit range is against that gap (WBINS: a rule that lets a wide
vmexit range explain must hold its rate among those rows too), and by
the session's spread (DBINS: the range, or from 8 rounds the median's
interval).  Pairs share
their tries (each B is judged against up to 20 As), so they are not
independent trials: the bound is the binomial one, stated as such, and the
number of distinct rows B any A explained is printed beside it.

Only sessions of kutcmp.rounds_to_explain() rounds or more are judged
(over fewer, kutcmp holds a try within the bound), each longer one also
cut into blocks of that many consecutive rounds (judged_sessions), so
that the rate holds at the rounds kut runs unless told.

Real rows: each session's rows judged as they are; the count of those
explained (of those whose raw ranges disagree), per rule, and the rows a
rule explains that kutcmp's does not, and the other way.

Rules (how far what a try leaves may reach either side of zero, over two
rounds or more; gap: between the tools' raw ranges, mgap: between their
medians):
  kutcmp        the rule in kutcmp (kutcmp.allowed_width)
  vmexit        within vmexit's own range's width
  vmexit|gap/P  ... or than the gap over P (P 4, 1)
  gap/P         within the gap over P (P 2, 4, 8)
  mgap/P        within mgap over P
  shareS        within max(vmexit's range, S % of |vmexit's median|)
  gap/4|shareS  within max(gap/4, S % of |vmexit's median|): the rule in
                kutcmp, or a remainder small against the difference
--drop CAUSES leaves tried causes out of the explaining (as if kutcmp did
not try them) to see what each adds; --no-quiet-others takes only the
EXPLAINERS tries, not the later ones, over the quiet rounds as well;
--no-floors judges no try by lower quartiles (kutcmp.FLOORS off).
--again replays `kut --again` instead (looks): sessions cut in two
halves, a pair judged on the first and, not resolved there, on the second;
--looks N cuts them in N (--look-rounds R: looks of R rounds, or R1,R2,...
one count per look; sessions too short left out), and counts the real rows
each look leaves open; --again's second look takes kut's --again vmexit
boots a round (--again-boots N, also for --looks: each round of the
looks after the first N recorded rounds, vmexit's lowest window,
lowest_rounds).  --lowest-of N
replays `kut --vmexit-boots N` on the whole session (the first look
too), --first-of N its control (the same rounds, one vmexit boot each).

    python3 tests/host/kut_null.py S1.json S2.json ...

A FILE is a results file of `kut` or a reduced file (gzip JSON, written by
--reduce): per session only what kutcmp reads, each round's figures as
`kut --from` hands them to kutcmp (commands/kut.py file_boots: vmexit's
figure and loop waits per name, trapmeter's gross, control, net, mean,
lateness and loop per case), the host's KVM flavour and the session's
name (its folder and file name).  The sessions of the Intel PVM host
behind docs/measurements.md (from the "ninth session", the width rule)
and kutcmp.FALSE_EXPLAINED are KUT_NULL_FIXTURE (tests/fixtures/README.md
lists them), which tests/host/test_kut_null.py replays; a session is added to it by one
command (the fixture is read before it is written):

    F=tests/fixtures/kut-null-sessions.json.gz
    python3 tests/host/kut_null.py --reduce $F $F NEW.json

then the printed kutcmp row is the new FALSE_EXPLAINED.  A reduced
session gives the same output as its results file (a change to
file_boots' rows that kutcmp reads calls for reducing them again)."""

import argparse
import gzip
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.commands import kut, kut_boots  # noqa: E402
from trapmeterlib.output import resultsfile  # noqa: E402
from trapmeterlib.stats import (kutcmp, kutlooks, kutrounds,  # noqa: E402
                                kuttries)
from trapmeterlib.stats.abtest import binomial_upper  # noqa: E402

W = kutcmp.width
SHARES = (1, 2, 5, 10)
GAP_SHARES = (1, 2, 3, 5)
BINS = (("< gap/4", 0.0, 0.25), ("gap/4..gap", 0.25, 1.0),
        ("> gap", 1.0, float("inf")))
# the same pairs by how wide A's vmexit range is against the shuffled
# row's raw gap: a rule's rate holds for the rows it explains only if it
# holds in each of these (a looser rule explains the wide ones)
WBINS = (("width < gap/4", 0.0, 0.25), ("width gap/4..gap", 0.25, 1.0),
         ("width > gap", 1.0, float("inf")))
# the same pairs by the session's spread (stats/kutrounds.py depth): a
# range under 8 rounds, the median's interval from 8; the rule's rate
# holds at each
DBINS = ("range", "median's interval")
# vmexit's side of a round: its figures, its loops' spans and waits, and
# what KVM counted of its iterations (the interrupts try reads that)
SWAPPED = ("vmexit", "vmexit_span", "vmexit_wait", "vmexit_counted")
KUT_NULL_FIXTURE = os.path.join(ROOT, "tests", "fixtures",
                                "kut-null-sessions.json.gz")
REDUCED_FORMAT = "trapmeter kut_null sessions 1"
GZIP_MAGIC = b"\x1f\x8b"
# what file_boots' trapmeter rows hold that kutcmp never reads
UNREAD = ("units",)


raw_gap = kutcmp.raw_gap


def rules():
    """{name: allowed_width(row)}: the rule in kutcmp first."""
    out = {"kutcmp": kutcmp.allowed_width,
           "vmexit": lambda row: W(row["vmexit"])}
    for part in (4, 1):
        out["vmexit|gap/%d" % part] = (lambda p: lambda row: max(
            W(row["vmexit"]), raw_gap(row) / p))(part)
    for part in (2, 4, 8):
        out["gap/%d" % part] = (lambda p: lambda row: raw_gap(row) / p)(part)
        out["mgap/%d" % part] = (lambda p: lambda row: abs(
            row["vmexit"][0] - row["gross"][0]) / p)(part)
    for share in SHARES:
        out["share%d" % share] = (lambda s: lambda row: max(
            W(row["vmexit"]), s / 100.0 * abs(row["vmexit"][0])))(share)
    for share in GAP_SHARES:
        out["gap/4|share%d" % share] = (lambda s: lambda row: max(
            raw_gap(row) / 4, s / 100.0 * abs(row["vmexit"][0])))(share)
    return out


def judge(boots, name, flavour, rule):
    """(row, verdict) of name with the width rule in place."""
    row = {"kut_name": name, "ref": kutcmp.REFERENCE,
           "vmexit": kutrounds.spread(kutrounds.diffs(
               boots, name, kutcmp.REFERENCE, kutrounds.pick_vm)),
           "gross": kutrounds.row_gross(boots, name, kutcmp.REFERENCE)}
    saved = kutcmp.allowed_width
    kutcmp.allowed_width = rule
    try:
        verdict, _why = kutcmp.judge(boots, row, name, kutcmp.REFERENCE,
                                     flavour)
    finally:
        kutcmp.allowed_width = saved
    return row, verdict


def swap(boots, a, b):
    """The rounds with vmexit's figures (waits, counts) of a in place of
    b's."""
    out = []
    for boot in boots:
        new = dict(boot)
        for key in SWAPPED:
            cell = dict(boot.get(key) or {})
            cell.pop(b, None)
            if a in cell:
                cell[b] = cell[a]
            new[key] = cell
        out.append(new)
    return out


def judged(row):
    return bool(row["vmexit"] and row["gross"] and row["vmexit"][3] >= 2
                and row["gross"][3] >= 2)


def load(paths):
    """[{"name", "flavour", "boots"}] of the sessions in paths (results
    files of kut or reduced files), in order."""
    out = []
    for path in paths:
        with open(path, "rb") as fh:
            reduced = fh.read(2) == GZIP_MAGIC
        if reduced:
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                doc = json.load(fh)
            if doc.get("format") != REDUCED_FORMAT:
                raise SystemExit("%s: not a reduced file (%s)" % (
                    path, REDUCED_FORMAT))
            out += doc["sessions"]
            continue
        doc = resultsfile.read_results(path)
        out.append({"name": short(path), "boots": kut_boots.file_boots(doc),
                    "flavour": (doc.get("host") or {}).get("kvm_flavour")})
    names = [s["name"] for s in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SystemExit("a session given twice: %s" % ", ".join(twice))
    return out


def after(sessions, name):
    """The sessions after the one named name (all where name is None)."""
    if name is None:
        return sessions
    names = [s["name"] for s in sessions]
    if name not in names:
        raise SystemExit("--after: no session %s (%s ... %s)" % (
            name, names[0], names[-1]))
    return sessions[names.index(name) + 1:]


# a round's vmexit entries that go with a name's figure (file_boots)
VMEXIT_KEYS = ("vmexit", "vmexit_counted", "vmexit_span", "vmexit_wait")


def lowest_rounds(sessions, n, lowest=True):
    """`kut --vmexit-boots n` replayed on one-boot rounds: each session's
    rounds taken n at a time as one, vmexit's figure per name the lowest
    of the n (with what was read in its window: VMEXIT_KEYS), trapmeter's
    of the first (backends/kut_lowest.py; here its boots are rounds a few
    minutes apart, not boots on either side of one trapmeter boot); with
    lowest False, the first of the n as it is (the control: the same
    rounds with one vmexit boot).  A session left with under two rounds
    is dropped."""
    out = []
    for sess in sessions:
        rounds = _rounds_of(sess["boots"], n, lowest)
        if len(rounds) >= 2:
            out.append(dict(sess, boots=rounds))
    return out


def _rounds_of(boots, n, lowest=True):
    """boots taken n at a time as one round (lowest_rounds)."""
    if n == 1:
        return boots
    return [_lowest(boots[i:i + n]) if lowest else boots[i]
            for i in range(0, len(boots) - n + 1, n)]


def _lowest(boots):
    """One round of boots: the first's, each vmexit name from the round
    with its lowest figure."""
    out = dict(boots[0])
    for key in VMEXIT_KEYS:
        out[key] = {}
    for name in {x for b in boots for x in b["vmexit"]}:
        got = [b for b in boots
               if isinstance(b["vmexit"].get(name), (int, float))]
        low = min(got, key=lambda b: b["vmexit"][name]) if got else boots[0]
        for key in VMEXIT_KEYS:
            if name in (low.get(key) or {}):
                out[key][name] = low[key][name]
    return out


def reduce_to(path, sessions):
    """Write the sessions as a reduced file (gzip JSON, no time stamp:
    the same sessions give the same bytes), each row without UNREAD."""
    for sess in sessions:
        for boot in sess["boots"]:
            for cell in (boot["cases"], boot["trapmeter"]):
                for row in cell.values():
                    for key in UNREAD:
                        row.pop(key, None)
    text = json.dumps({"format": REDUCED_FORMAT, "sessions": sessions},
                      sort_keys=True, separators=(",", ":"))
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9,
                           mtime=0, filename="") as fh:
            fh.write(text.encode("utf-8") + b"\n")
    os.replace(tmp, path)


def new_tally(ruleset):
    return {"real": {r: [0, 0] for r in ruleset},
            "null": {r: {} for r in ruleset},
            "rows": {r: set() for r in ruleset},
            "hit_rows": {r: set() for r in ruleset}, "b_rows": 0,
            "near": {}}


def judged_sessions(sessions, n=None):
    """The sessions a try can explain in, as kutcmp judges them: each of
    n rounds or more (kutcmp.rounds_to_explain: over fewer, a try within
    the bound is held, so its pairs could never count), and each longer
    one cut into blocks of n consecutive rounds besides ("NAME[1-5]"),
    so that the rule's rate is measured at the rounds kut runs unless
    told, where a spread is the range."""
    n = n or kutcmp.rounds_to_explain()
    out = []
    for sess in sessions:
        boots = sess["boots"]
        if len(boots) < n:
            continue
        out.append(sess)
        if len(boots) == n:
            continue
        for i in range(len(boots) // n):
            out.append(dict(sess, boots=boots[i * n:(i + 1) * n],
                            name="%s[%d-%d]" % (sess["name"], i * n + 1,
                                                i * n + n)))
    return out


def tally_of(sessions, ruleset):
    """The tally of every judged session (judged_sessions) under each
    rule of ruleset (a dict with "kutcmp" among its keys)."""
    tally = new_tally(ruleset)
    for sess in judged_sessions(sessions):
        session(sess, ruleset, tally)
    return tally


def session(sess, ruleset, tally):
    boots, flavour, tag = sess["boots"], sess["flavour"], sess["name"]
    names = [n for n in kut_boots.shown_names(boots, [])
             if n != kutcmp.REFERENCE]
    rows = {n: judge(boots, n, flavour, ruleset["kutcmp"])[0]
            for n in names}
    ok = [n for n in names if judged(rows[n])]
    for rname, rule in ruleset.items():
        for n in ok:
            row, verdict = judge(boots, n, flavour, rule)
            if kutrounds.overlap(row["vmexit"], row["gross"]):
                continue
            tally["real"][rname][1] += 1
            if verdict == "explained":
                tally["real"][rname][0] += 1
                tally["rows"][rname].add((tag, n))
    tally["b_rows"] += len(ok)
    for b in ok:
        for a in ok:
            ra, rb = rows[a]["vmexit"], rows[b]
            if a == b or kutrounds.overlap(ra, rb["vmexit"]) or \
                    kutrounds.overlap(ra, rb["gross"]):
                continue
            far = abs(ra[0] - rb["vmexit"][0]) / raw_gap(
                {"vmexit": ra, "gross": rb["gross"]})
            which = next(lbl for lbl, lo, hi in BINS if lo <= far < hi)
            wide = W(ra) / raw_gap({"vmexit": ra, "gross": rb["gross"]})
            wbin = next(lbl for lbl, lo, hi in WBINS if lo <= wide < hi)
            dbin = DBINS[kutrounds.depth(len(boots)) > 1]
            shuffled = swap(boots, a, b)
            for rname, rule in ruleset.items():
                if near(ra, rb, rule):
                    tally["near"][rname] = tally["near"].get(rname, 0) + 1
                    continue
                hit = judge(shuffled, b, flavour, rule)[1] == "explained"
                for key in ("all", which, wbin, dbin):
                    cell = tally["null"][rname].setdefault(key, [0, 0])
                    cell[0] += hit
                    cell[1] += 1
                if hit:
                    tally["hit_rows"][rname].add((tag, b))


def looks(sessions, n=2, rounds=None, rule=None, boots=(1,)):
    """`kut --again` under label shuffling, and with more looks: each
    session cut into n looks (of rounds[i] rounds the i-th, or n equal
    parts; a session too short for them, or for looks of
    rounds_to_explain rounds, is left out), a pair judged on the first
    look and, where not resolved or unexplained there, on the next, each
    on its own rounds as --again's session is.  The i-th look's rounds are boots[i]
    recorded rounds each (the last entry for the looks after it), with
    vmexit's lowest window (lowest_rounds: `kut --vmexit-boots`).
    Returns {"false": false explanations by the end of each look,
    "pairs", "rows": real rows judged, "open": real rows still not
    resolved after each look, "unexplained": real rows called so after
    it}."""
    rule = rule or kutcmp.allowed_width
    boots = [boots[min(i, len(boots) - 1)] for i in range(n)]
    out = {"false": [0] * n, "pairs": 0, "rows": 0, "open": [0] * n,
           "unexplained": [0] * n}
    for sess in sessions:
        sizes = rounds or [len(sess["boots"]) // sum(boots)] * n
        raw = [s * b for s, b in zip(sizes, boots)]
        if min(sizes) < kutcmp.rounds_to_explain() or \
                len(sess["boots"]) < sum(raw):
            continue
        ends = [sum(raw[:i]) for i in range(n + 1)]
        cut = [_rounds_of(sess["boots"][ends[i]:ends[i + 1]], boots[i])
               for i in range(n)]
        _look_session(cut, sess["flavour"], rule, out)
    return out


def _look_session(cut, flavour, rule, out):
    """looks() of one session cut into looks: its real rows, then its
    shuffled pairs, added to out."""
    names = [x for x in kut_boots.shown_names(cut[0], [])
             if x != kutcmp.REFERENCE]
    for name in names:
        out["rows"] += 1
        said = _standing(cut, lambda look: judge(
            look, name, flavour, rule)[1])
        for i, verdict in enumerate(said):
            out["open"][i] += verdict == "not resolved"
            out["unexplained"][i] += verdict == "unexplained"
    rows = {x: judge(cut[0], x, flavour, rule)[0] for x in names}
    ok = [x for x in names if judged(rows[x])]
    for b in ok:
        for a in ok:
            ra, rb = rows[a]["vmexit"], rows[b]
            if a == b or kutrounds.overlap(ra, rb["vmexit"]) or \
                    kutrounds.overlap(ra, rb["gross"]) or \
                    near(ra, rb, rule):
                continue
            out["pairs"] += 1
            said = _standing(cut, lambda look: judge(
                swap(look, a, b), b, flavour, rule)[1])
            for i, verdict in enumerate(said):
                out["false"][i] += verdict == "explained"


def _standing(cut, verdict):
    """A row's verdict after each look of cut: the last look's that
    judged it, each look judging it again while it stands not resolved
    or unexplained (kutlooks.rows_again)."""
    out = []
    for look in cut:
        if not out or out[-1] in kutlooks.AGAIN_VERDICTS:
            out.append(verdict(look))
        else:
            out.append(out[-1])
    return out


def look_sizes(text, n):
    """--look-rounds R or R1,R2,... as n counts of rounds (None: the
    sessions cut in equal parts); a named exit on anything else."""
    if n < 1:
        raise SystemExit("--looks: at least 1 (got %d)" % n)
    if not text:
        return None
    try:
        sizes = [int(r) for r in text.split(",")]
    except ValueError:
        raise SystemExit("--look-rounds: counts of rounds, e.g. 5 or 5,15 "
                         "(got %r)" % text)
    sizes = sizes * n if len(sizes) == 1 else sizes
    if len(sizes) != n or min(sizes) < 1:
        raise SystemExit("--look-rounds: one count of 1 or more, or one per "
                         "look (%d): got %r" % (n, text))
    return sizes


def looks_text(tally, confidence, boots=(1,)):
    """Lines of looks(): per look, the false explanations by its end and
    the real rows it leaves open."""
    lines = ["kut --again under label shuffling, sessions cut in %d looks, "
             "the looks after the first of %d vmexit boot(s) a round "
             "(false explanations by the end of each look; real rows not "
             "resolved after it):" % (len(tally["false"]), boots[-1])]
    for i, (k, left) in enumerate(zip(tally["false"], tally["open"])):
        lines.append("  look %d: false %s; rows open %d of %d, "
                     "unexplained %d" % (
                         i + 1, rate((k, tally["pairs"]), confidence), left,
                         tally["rows"], tally["unexplained"][i]))
    return "\n".join(lines)


def near(ra, rb, rule):
    """Whether vmexit's figure A (spread ra) lies within the rule's
    tolerance of B's own (row rb): the rule claims a try leaves at most
    that much of the gap, and with A in B's place that claim still holds
    where it held for B, so the pair tests nothing."""
    shuffled = {"vmexit": ra, "gross": rb["gross"]}
    return abs(ra[0] - rb["vmexit"][0]) <= rule(shuffled)


def short(path):
    """A session file as its folder and name (s1.json of two folders)."""
    return os.path.join(*path.split(os.sep)[-2:])


def rate(cell, confidence):
    k, n = cell
    return "%3d/%4d %5.1f %% (<= %4.1f %%)" % (
        k, n, 100.0 * k / n if n else 0.0,
        100.0 * binomial_upper(k, n, confidence))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="kut results files or "
                    "reduced files (--reduce)")
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--drop", metavar="CAUSES", default="",
                    help="comma list of tried causes (their first words, "
                    "e.g. 'statistic,page tables') that may not explain")
    ap.add_argument("--no-quiet-others", action="store_true",
                    help="take only the EXPLAINERS tries over the quiet "
                    "rounds (kuttries.QUIET_OTHERS off)")
    ap.add_argument("--no-floors", action="store_true",
                    help="judge no try by lower quartiles, unpaired "
                    "(kutcmp.FLOORS off)")
    ap.add_argument("--again", action="store_true",
                    help="only `kut --again`'s two looks (looks)")
    ap.add_argument("--looks", metavar="N", type=int,
                    help="as --again, with N looks (each on the rows the "
                    "ones before left not resolved)")
    ap.add_argument("--again-boots", metavar="N", type=int,
                    help="with --again or --looks: vmexit boots a round "
                    "of the looks after the first (default: with --again "
                    "%d, kut's; with --looks 1)" % kut.AGAIN_VMEXIT_BOOTS)
    ap.add_argument("--look-rounds", metavar="R[,R...]",
                    help="with --again or --looks: looks of R rounds, or "
                    "one count per look (default: the session cut in "
                    "equal parts)")
    ap.add_argument("--reduce", metavar="OUT",
                    help="write the sessions of FILES to OUT as a reduced "
                    "file (gzip JSON) instead")
    ap.add_argument("--after", metavar="NAME",
                    help="judge only the sessions after NAME (as printed, "
                    "e.g. kut18/g8.json) in the files' order: those held "
                    "out from a rule named on the ones before")
    ap.add_argument("--lowest-of", metavar="N", type=int,
                    help="each session's rounds taken N at a time as one, "
                    "vmexit's lowest figure per name (lowest_rounds: "
                    "`kut --vmexit-boots N` replayed)")
    ap.add_argument("--first-of", metavar="N", type=int,
                    help="--lowest-of's control: the first of each N "
                    "rounds as it is")
    args = ap.parse_args()
    sessions = after(load(args.files), args.after)
    if args.lowest_of or args.first_of:
        sessions = lowest_rounds(sessions, args.lowest_of or args.first_of,
                                 lowest=bool(args.lowest_of))
    if args.reduce:
        reduce_to(args.reduce, sessions)
        return 0
    if args.no_quiet_others:
        kuttries.QUIET_OTHERS = False
    if args.no_floors:
        kutcmp.FLOORS = False
    drop = tuple(c for c in args.drop.split(",") if c)
    if drop:
        tries = kuttries.tries
        kuttries.tries = lambda *a, **k: [t for t in tries(*a, **k)
                                        if not t[0].startswith(drop)]
    if args.again or args.looks is not None:
        n = 2 if args.looks is None else args.looks
        sizes = look_sizes(args.look_rounds, n)
        boots = (1, args.again_boots or (
            kut.AGAIN_VMEXIT_BOOTS if args.looks is None else 1))
        print(looks_text(looks(sessions, n, sizes, boots=boots),
                         args.confidence, boots))
        return 0
    ruleset = rules()
    tally = tally_of(sessions, ruleset)
    judged = judged_sessions(sessions)
    blocks = sum("[" in s["name"] for s in judged)
    print("false explanations under label shuffling, %d sessions of %d "
          "rounds or more and their %d blocks of that many (of %d given; "
          "fewer rounds explain nothing) (k/n, rate, one-sided %g %% "
          "binomial upper bound)" % (
              len(judged) - blocks, kutcmp.rounds_to_explain(), blocks,
              len(sessions), 100 * args.confidence))
    print("%-13s %-30s %s" % ("rule", "all pairs", "  ".join(
        "%-30s" % b[0] for b in BINS)) + "  rows B (of %d)  real explained"
        "  near" % tally["b_rows"])
    for rname in ruleset:
        cells = tally["null"][rname]
        print("%-13s %-30s %s  %14d  %7d/%d  %5d" % (
            rname, rate(cells.get("all", [0, 0]), args.confidence),
            "  ".join("%-30s" % rate(cells.get(b[0], [0, 0]),
                                      args.confidence) for b in BINS),
            len(tally["hit_rows"][rname]), tally["real"][rname][0],
            tally["real"][rname][1], tally["near"].get(rname, 0)))
    print("near: pairs whose A lies within the rule's tolerance of B's own "
          "figure (not counted: the claim holds for A as well)")
    print("the same pairs by the width of A's vmexit range against the "
          "gap")
    print("%-13s %s" % ("rule", "  ".join("%-30s" % b[0] for b in WBINS)))
    for rname in ruleset:
        cells = tally["null"][rname]
        print("%-13s %s" % (rname, "  ".join(
            "%-30s" % rate(cells.get(b[0], [0, 0]), args.confidence)
            for b in WBINS)))
    print("the same pairs by the sessions' spread (from 8 rounds the "
          "median's interval)")
    print("%-13s %s" % ("rule", "  ".join("%-30s" % b for b in DBINS)))
    for rname in ruleset:
        cells = tally["null"][rname]
        print("%-13s %s" % (rname, "  ".join(
            "%-30s" % rate(cells.get(b, [0, 0]), args.confidence)
            for b in DBINS)))
    base = tally["rows"]["kutcmp"]
    for rname in ruleset:
        for what, rows in (("besides", tally["rows"][rname] - base),
                           ("not", base - tally["rows"][rname])):
            if rows:
                print("%s explains %s kutcmp's: %s" % (
                    rname, what, ", ".join("%s %s" % (
                        tag, n) for tag, n in sorted(rows))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
