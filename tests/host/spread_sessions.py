#!/usr/bin/env python3
"""tests/host/spread_sessions.py - the per-boot spread of recorded ab
sessions, side by side (issue 32 item 8).

tests/fixtures/kvm-spread-sessions.json holds, per recorded KVM ab session
of 2026-12-03 (this project's host: KVM on PVM, 2 CPUs shared by seven
engineers' jobs), every boot's per-case figures (minimum, p10 and median
cycles per op), each case's handler, and how long QEMU's vCPU thread waited
for a host CPU in that boot (counters/schedwait.py: the share of the boot,
and per case).  It is extracted from the sessions' two results files
(--extract), which at 1.3 MB a side are too large to keep whole; the rows
that are A/A in a session are named ("all", or "kernel": the in-kernel
cases of a session whose side B had a delay per exit to QEMU).

    python3 tests/host/spread_sessions.py            # the table
    python3 tests/host/spread_sessions.py --extract NAME A.json B.json \\
        --aa all|kernel|none --note TEXT             # add a session
"""
import argparse
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.output import resultsfile  # noqa: E402
from trapmeterlib.stats import bootstats, compare  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "kvm-spread-sessions.json")
STATS = ("min", "p10", "median")


def boot_rows(doc):
    """A results file's boots, each [{suite, case, handler, cycles,
    wait_ms, window_ms}], with the boot's vCPU wait share."""
    out = []
    for boot in doc["boots"]:
        if not boot.get("results"):
            continue
        wait = boot.get("vcpu_wait") or {}
        cases = wait.get("cases") or {}
        rows = []
        for res in boot["results"]:
            row = {"suite": res["suite"], "case": res["case"],
                   "handler": res.get("handler"),
                   "cycles": {k: res["cycles"][k] for k in STATS
                              if k in res.get("cycles", {})}}
            seen = cases.get(res["case"])
            if seen:
                row["wait_ms"] = round(seen["wait_ms"], 2)
                row["window_ms"] = round(seen["window_ms"], 2)
            rows.append(row)
        out.append({"wait_share": wait.get("wait_share"), "results": rows})
    return out


def extract(name, a, b, aa, note):
    docs = [resultsfile.read_results(p) for p in (a, b)]
    return {"name": name, "aa_rows": aa, "note": note,
            "nice": [d.get("config", {}).get("nice") for d in docs],
            "a": boot_rows(docs[0]), "b": boot_rows(docs[1])}


def load(path=FIXTURE):
    with open(path) as fh:
        return json.load(fh)["sessions"]


def session(name, path=FIXTURE):
    return next(s for s in load(path) if s["name"] == name)


def logs(boots, case, stat="min"):
    return [math.log(r["cycles"][stat]) for b in boots for r in b["results"]
            if r["case"] == case and r["cycles"].get(stat)]


def spread(values):
    """(sd of the undisturbed band, share of boots in it, q90 - q10) of log
    per-boot figures, relative."""
    band = bootstats.undisturbed(values)
    s = sorted(values)
    q = lambda f: s[int(round(f * (len(s) - 1)))]  # noqa: E731
    return (math.exp(statistics.stdev(band)) - 1, len(band) / len(values),
            math.exp(q(0.9) - q(0.1)) - 1)


def wait_share(boots):
    shares = [b["wait_share"] for b in boots if b.get("wait_share") is not None]
    return statistics.median(shares) if shares else None


def cases(sess):
    return sorted({r["case"] for b in sess["a"] for r in b["results"]})


def table(sessions):
    lines = []
    for sess in sessions:
        lines.append("%s (%d+%d boots; niceness %s): %s" % (
            sess["name"], len(sess["a"]), len(sess["b"]),
            "/".join(str(n) for n in sess["nice"]), sess["note"]))
        waits = [wait_share(sess[s]) for s in "ab"]
        lines.append("  vCPU thread waiting for a CPU: median share of the "
                     "boot A %s, B %s" % tuple(
                         "-" if w is None else "%.0f %%" % (100 * w)
                         for w in waits))
        lines.append("  %-26s %-24s %-24s" % ("case", "A: band sd/share/q90-q10",
                                             "B: band sd/share/q90-q10"))
        for case in cases(sess):
            cells = []
            for s in "ab":
                sd, share, width = spread(logs(sess[s], case))
                cells.append("%5.1f %% %3.0f %% %5.1f %%" % (
                    100 * sd, 100 * share, 100 * width))
            lines.append("  %-26s %-24s %-24s" % (case, cells[0], cells[1]))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--extract", nargs=3, metavar=("NAME", "A", "B"))
    ap.add_argument("--aa", choices=("all", "kernel", "none"), default="none")
    ap.add_argument("--note", default="")
    args = ap.parse_args(argv)
    if args.extract:
        data = {"sessions": []}
        if os.path.exists(FIXTURE):
            with open(FIXTURE) as fh:
                data = json.load(fh)
        data["sessions"] = [s for s in data["sessions"]
                            if s["name"] != args.extract[0]]
        data["sessions"].append(extract(*args.extract, args.aa, args.note))
        with open(FIXTURE, "w") as fh:
            json.dump(data, fh, separators=(",", ":"), sort_keys=True)
            fh.write("\n")
        return 0
    print("\n".join(table(load())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
