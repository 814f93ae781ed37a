"""The history of runs: one SQLite file (Python's sqlite3).

Tables: `meta` (what the file is), `hosts` (one row per series: the
fingerprint's cost fields and the method, stats/runlevel.series_key, and
the TSC rate that counted its cycles, stats/runlevel.tsc_rate),
`runs` (one per results file added: its subject, commit, source and the
SHA-256 of its bytes, so a file added twice is refused by name) and
`figures` (per run, case and metric: the run's figure, its interval and
every boot's value, and what one op measured: stats/runlevel.measure).
The schema's version is SQLite's user_version; an
older file is migrated in one transaction when opened, a newer one is
refused.  Every write is one transaction begun IMMEDIATE: a second
writer waits up to the busy timeout, then fails by name, and SQLite's
journal never leaves half a transaction in the file.  A file that is no
SQLite database, fails SQLite's quick_check or is another tool's is
refused before anything is written."""

import json
import os
import sqlite3
import time

from ..stats import runlevel
from ..values import exitstatus
from ..values.errors import TrapmeterError

SCHEMA = 4
TOOL = "trapmeter-history"
BUSY_S = 10.0
_BUSY = {}                  # id(connection) -> its busy timeout (seconds)
_PATHS = {}                 # id(connection) -> its file
MIGRATIONS = {
    1: ["CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
        "CREATE TABLE hosts (id INTEGER PRIMARY KEY, key TEXT UNIQUE "
        "NOT NULL, fields TEXT NOT NULL, fingerprint TEXT NOT NULL)",
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, host INTEGER NOT NULL "
        "REFERENCES hosts(id), digest TEXT UNIQUE NOT NULL, source TEXT, "
        "kind TEXT, added TEXT, commit_id TEXT, commit_date TEXT, "
        "describe TEXT, qemu_version TEXT, qemu_build TEXT, kernel TEXT, "
        "firmware TEXT, boots INTEGER, status TEXT)",
        "CREATE TABLE figures (run INTEGER NOT NULL REFERENCES runs(id), "
        "suite TEXT NOT NULL, name TEXT NOT NULL, metric TEXT NOT NULL, "
        "kind TEXT NOT NULL, value REAL, lo REAL, hi REAL, boots TEXT, "
        "PRIMARY KEY (run, suite, name, metric))"],
    # 2: a label per run (--label), shown beside its subject
    2: ["ALTER TABLE runs ADD COLUMN label TEXT",
        "CREATE INDEX runs_host ON runs(host, id)"],
    # 3: what one op of a case measured (bytes per op): another measure
    # is another series of the case
    3: ["ALTER TABLE figures ADD COLUMN measure TEXT"],
    # 4: the TSC that counted a series' cycles (a rate further than
    # runlevel.TSC_KEY_TOLERANCE is another series); `base` the key of
    # the fingerprint and method alone (a series of schema 3 keeps its
    # key and learns its rate from the next run added); each run's rate;
    # each case's handler (QEMU or the kernel: export --boots)
    4: ["ALTER TABLE hosts ADD COLUMN base TEXT",
        "ALTER TABLE hosts ADD COLUMN tsc_khz REAL",
        "ALTER TABLE hosts ADD COLUMN tsc_source TEXT",
        "UPDATE hosts SET base = key",
        "CREATE INDEX hosts_base ON hosts(base)",
        "ALTER TABLE runs ADD COLUMN tsc_khz REAL",
        "ALTER TABLE figures ADD COLUMN handler TEXT"],
}
RUN_COLUMNS = ("id", "host", "digest", "source", "kind", "added",
               "commit_id", "commit_date", "describe", "qemu_version",
               "qemu_build", "kernel", "firmware", "boots", "status",
               "label", "tsc_khz")


class HistoryError(TrapmeterError):
    """The history file cannot be used or written; `kind` names why:
    missing, unopenable, corrupt, newer, locked, readonly, duplicate,
    foreign."""

    code = exitstatus.HISTORY_UNUSABLE

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


def _version(conn):
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _check(conn, path):
    """Refuse a file that is no healthy trapmeter history."""
    rows = conn.execute("PRAGMA quick_check").fetchall()
    if rows != [("ok",)]:
        raise HistoryError("corrupt", "%s: the database is damaged "
                           "(SQLite quick_check: %s)" % (
                               path, "; ".join(r[0] for r in rows[:3])))
    version = _version(conn)
    if version > SCHEMA:
        raise HistoryError("newer", "%s: history schema %d, newer than this "
                           "trapmeter's %d: use a newer trapmeter"
                           % (path, version, SCHEMA))
    if version:
        row = conn.execute("SELECT value FROM meta WHERE key = 'tool'") \
            .fetchone()
        if not row or row[0] != TOOL:
            raise HistoryError("foreign", "%s: an SQLite file, but not a "
                               "trapmeter history" % path)
    elif conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise HistoryError("foreign", "%s: an SQLite file, but not a "
                           "trapmeter history" % path)


def _migrate(conn):
    """Bring the file to SCHEMA in one transaction (a new file too).  The
    version is read again inside it: another writer may have created or
    migrated the file since it was checked."""
    if _version(conn) == SCHEMA:
        return
    with _writing(conn):
        version = _version(conn)
        if version == SCHEMA:
            return
        for step in range(version + 1, SCHEMA + 1):
            for sql in MIGRATIONS[step]:
                conn.execute(sql)
        if version == 0:
            conn.execute("INSERT INTO meta VALUES ('tool', ?)", (TOOL,))
        conn.execute("PRAGMA user_version = %d" % SCHEMA)


class _writing:
    """BEGIN IMMEDIATE ... COMMIT, ROLLBACK on any exception; "database
    is locked" after the busy timeout becomes HistoryError("locked")."""

    def __init__(self, conn):
        self.conn = conn

    def __enter__(self):
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _named(exc, self.conn) from None
        return self.conn

    def __exit__(self, kind, exc, _tb):
        if kind is None:
            try:
                self.conn.execute("COMMIT")
                return False
            except sqlite3.Error as err:
                # a reader held its lock past the busy timeout: nothing
                # was written, the transaction goes back whole
                self.conn.execute("ROLLBACK")
                raise _named(err, self.conn) from None
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            # a write refused (a read-only file, a full disk): named
            raise _named(exc, self.conn) from None
        return False


def _named(exc, conn):
    text, path = str(exc), _PATHS.get(id(conn))
    if "unable to open" in text and not (path and os.path.exists(path)):
        return HistoryError("unopenable", "%s: cannot open: %s"
                            % (path, text))
    if "readonly" in text or "read-only" in text or \
            "unable to open" in text:
        return HistoryError("readonly", "%s: cannot be written: %s (SQLite "
                            "writes the file and a journal beside it: "
                            "both need write permission for this user); "
                            "nothing was written" % (path or "the history",
                                                     text))
    if "locked" in text or "busy" in text:
        return HistoryError("locked", "the history is being written or "
                            "read by another process (waited %g s): try "
                            "again when it is done; nothing was written"
                            % _BUSY.get(id(conn), BUSY_S))
    return HistoryError("corrupt", "the history cannot be written: %s"
                        % text)


def open_db(path, create=False, busy_s=BUSY_S):
    """A connection to the history at `path`, checked and migrated;
    create it when `create` and it does not exist."""
    if not os.path.exists(path) and not create:
        raise HistoryError("missing", "%s: no history there (`trapmeter "
                           "history add` creates one)" % path)
    if os.path.isdir(path):
        raise HistoryError("unopenable", "%s: a directory, not a history "
                           "file (--db names the file)" % path)
    try:
        conn = sqlite3.connect(path, timeout=busy_s, isolation_level=None)
    except sqlite3.Error as exc:
        raise HistoryError("unopenable", "%s: cannot open: %s" % (path, exc))
    _BUSY[id(conn)], _PATHS[id(conn)] = busy_s, path
    try:
        _check(conn, path)
        if not create and not _version(conn):
            raise HistoryError("missing", "%s: empty: no history there "
                               "(`trapmeter history add` creates one)"
                               % path)
        _migrate(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        named = _named(exc, conn)
        if named.kind != "corrupt":
            raise named from None
        raise HistoryError("corrupt", "%s: not a readable SQLite database "
                           "(%s)" % (path, exc)) from None
    except HistoryError:
        conn.close()
        raise
    return conn


def _series(conn, entry):
    """(host id, new?, rate learned?) of the series a run joins: of its
    fingerprint and method (`key`), the one whose TSC is the run's -- a
    declared rate within runlevel.TSC_KEY_TOLERANCE (the nearest), or
    a calibrated one -- else a new series keyed by all three.  A series
    of schema 3, whose rate was not kept, takes the run's rate."""
    khz, source = entry["tsc"]
    rows = conn.execute("SELECT id, tsc_khz, tsc_source FROM hosts WHERE "
                        "base = ?", (entry["key"],)).fetchall()
    same = [r for r in rows if r[2] == source and (
        source != "declared" or runlevel.same_clock(r[1], khz))]
    if same:
        return min(same, key=lambda r: abs(r[1] - khz))[0], False, False
    unknown = [r for r in rows if r[1] is None]
    fields = dict(entry["fields"], **tsc_fields(khz, source))
    if unknown:
        old = host(conn, unknown[0][0])["fields"]
        conn.execute("UPDATE hosts SET tsc_khz = ?, tsc_source = ?, fields "
                     "= ? WHERE id = ?", (khz, source, _json(dict(
                         old, **tsc_fields(khz, source))), unknown[0][0]))
        return unknown[0][0], False, True
    key = runlevel.hashed(fields) if rows else entry["key"]
    cur = conn.execute("INSERT INTO hosts (key, fields, fingerprint, base, "
                       "tsc_khz, tsc_source) VALUES (?, ?, ?, ?, ?, ?)",
                       (key, _json(fields), _json(entry["fingerprint"]),
                        entry["key"], khz, source))
    return cur.lastrowid, True, False


def tsc_fields(khz, source):
    """The fields a series shows of its TSC."""
    return {"method.tsc_khz": round(khz), "method.tsc_source": source}


def _json(value):
    return json.dumps(value, sort_keys=True, default=str)


def siblings(conn, host_id):
    """[(key, TSC kHz, source)] of the other series of one series' host
    fingerprint and method: each another TSC rate."""
    return conn.execute("SELECT key, tsc_khz, tsc_source FROM hosts WHERE "
                        "base = (SELECT base FROM hosts WHERE id = ?) AND "
                        "id != ? ORDER BY id", (host_id, host_id)).fetchall()


def last_run(conn):
    """The newest run's row (a dict), or None."""
    row = conn.execute("SELECT %s FROM runs ORDER BY id DESC LIMIT 1"
                       % ", ".join(RUN_COLUMNS)).fetchone()
    return dict(zip(RUN_COLUMNS, row)) if row else None


def host(conn, host_id):
    """{id, key, fields, fingerprint, tsc_khz} of one series' host."""
    row = conn.execute("SELECT id, key, fields, fingerprint, tsc_khz FROM "
                       "hosts WHERE id = ?", (host_id,)).fetchone()
    return {"id": row[0], "key": row[1], "fields": json.loads(row[2]),
            "fingerprint": json.loads(row[3]), "tsc_khz": row[4]}


def add_runs(conn, entries, hold=None):
    """Store every entry in one transaction: all of them or none;
    `hold()`, when given, is called once the transaction has the file
    (a wait for it stays interruptible), to hold signals until the
    caller has said what was added.  An
    entry: {key, fields, fingerprint, tsc: (kHz, source), digest,
    source, kind, subject, commit_id, commit_date, describe, label,
    boots, status, figures}.  Returns [(entry, run id, new series?,
    series id, rate learned?)]: the series' own key and fields are
    host(conn, series id)'s."""
    out = []
    with _writing(conn):
        if hold is not None:
            hold()
        for entry in entries:
            seen = conn.execute("SELECT id, source FROM runs WHERE digest "
                                "= ?", (entry["digest"],)).fetchone()
            if seen:
                raise HistoryError("duplicate", "%s: this file is in the "
                                   "history already (run %d, added from %s)"
                                   % (entry["source"], seen[0], seen[1]))
            host_id, new, learned = _series(conn, entry)
            out.append((entry, _insert_run(conn, host_id, entry), new,
                        host_id, learned))
    return out


def _insert_run(conn, host_id, entry):
    subj = entry["subject"]
    cur = conn.execute(
        "INSERT INTO runs (host, digest, source, kind, added, commit_id, "
        "commit_date, describe, qemu_version, qemu_build, kernel, firmware, "
        "boots, status, label, tsc_khz) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?, ?, ?)",
        (host_id, entry["digest"], entry["source"], entry["kind"],
         time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         entry.get("commit_id"), entry.get("commit_date"),
         entry.get("describe"), subj.get("qemu_version"),
         subj.get("qemu_build"), subj.get("kernel"), subj.get("firmware"),
         entry.get("boots"), entry.get("status"), entry.get("label"),
         entry["tsc"][0]))
    run_id = cur.lastrowid
    conn.executemany(
        "INSERT INTO figures (run, suite, name, metric, kind, value, lo, "
        "hi, boots, measure, handler) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?)",
        [(run_id, f["suite"], f["case"], f["metric"], f["kind"], f["value"],
          f["lo"], f["hi"], json.dumps(f["boots"]), f.get("measure"),
          f.get("handler")) for f in entry["figures"]])
    return run_id


def hosts(conn):
    """[host id] of every series, oldest first."""
    return [r[0] for r in conn.execute("SELECT id FROM hosts ORDER BY id")]


def runs_of(conn, host_id):
    """The runs of one series in the order they were added."""
    rows = conn.execute("SELECT %s FROM runs WHERE host = ? ORDER BY id"
                        % ", ".join(RUN_COLUMNS), (host_id,)).fetchall()
    return [dict(zip(RUN_COLUMNS, r)) for r in rows]


def figures_of(conn, host_id):
    """{(suite, case, metric, measure): {"kind", "handler", "runs": {run
    id: (value, lo, hi, boots)}}} of one series: a case and metric is one
    series per measure (what one op measured, runlevel.resolve for a
    figure that does not say)."""
    rows = conn.execute(
        "SELECT f.run, f.suite, f.name, f.metric, f.kind, f.value, f.lo, "
        "f.hi, f.boots, f.measure, f.handler FROM figures f JOIN runs r "
        "ON r.id = "
        "f.run WHERE r.host = ? ORDER BY f.run", (host_id,)).fetchall()
    known = {}
    for row in rows:
        if row[9] is not None:
            known.setdefault(row[1:4], set()).add(row[9])
    out = {}
    for row in rows:
        what = runlevel.resolve(row[9], known.get(row[1:4], ()))
        entry = out.setdefault(row[1:4] + (what,),
                               {"kind": row[4], "runs": {}, "handler": None})
        entry["runs"][row[0]] = (row[5], row[6], row[7], json.loads(row[8]))
        entry["handler"] = row[10] or entry["handler"]
    return out


def measures_before(conn, host_id, run_id):
    """{(suite, case): measure} of one series: the measure each case's
    newest figure before run `run_id` says (cases whose figures say none
    are left out)."""
    out = {}
    for row in conn.execute(
            "SELECT f.suite, f.name, f.measure FROM figures f JOIN runs r "
            "ON r.id = f.run WHERE r.host = ? AND f.run < ? AND f.measure "
            "IS NOT NULL ORDER BY f.run", (host_id, run_id)):
        out[row[:2]] = row[2]
    return out
