"""tests/host/test_history.py - `trapmeter history` without boots: the
store (tools/trapmeterlib/backends/historydb.py) keeps runs by host
fingerprint, migrates an older file, refuses bad input by name with
nothing lost (another schema, a corrupt, newer or locked database, a run
without a fingerprint, an unknown case, a file added twice), and `check`
exits 18 naming the runs around a change and the bisect between them;
`export` writes Otava's CSV and OpenMetrics text."""
import copy
import csv
import hashlib
import io
import json
import math
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.backends import historydb  # noqa: E402
from trapmeterlib.guest.dump import DumpParser  # noqa: E402
from trapmeterlib.output import history_export, resultsfile  # noqa: E402
from trapmeterlib.stats import changewatch, runlevel  # noqa: E402

RUNNER = os.path.join(ROOT, "tools", "trapmeter")
FIX = os.path.join(ROOT, "tests", "fixtures")
RUN1 = os.path.join(FIX, "kvm-history-run1.json")      # shim at 0 ns
RUN7 = os.path.join(FIX, "kvm-history-run7.json")      # shim at 830 ns
OLD = os.path.join(FIX, "kvm-aa.json")                  # no fingerprint
CHANGE, UNUSABLE_DB, UNUSABLE, BAD = 18, 19, 11, 2


def trapmeter(*args):
    return subprocess.run([RUNNER, *args], capture_output=True, text=True,
                          timeout=120)


def digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def rows(db, table="runs"):
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM %s" % table).fetchone()[0]
    finally:
        conn.close()


def edited(src, out, change):
    with open(src) as fh:
        doc = json.load(fh)
    change(doc)
    with open(out, "w") as fh:
        json.dump(doc, fh)
    return out


def reachable_by_others(path):
    """Whether a user other than the owner may reach path: every
    directory above it grants others search (x) permission."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if not os.stat(d).st_mode & 0o001:
            return False
        if d == os.path.dirname(d):
            return True
        d = os.path.dirname(d)


class Tmp(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = self._dir.name
        self.db = os.path.join(self.dir, "h.db")

    def tearDown(self):
        self._dir.cleanup()

    def add(self, *words):
        return trapmeter("history", "add", "--db", self.db, *words)


class Add(Tmp):
    def test_add_keeps_a_run_by_its_fingerprint(self):
        proc = self.add("--commit", "abc123", "--date", "2026-12-03T09:40Z",
                        RUN1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("run 1 of series", proc.stderr)
        conn = historydb.open_db(self.db)
        (host,) = historydb.hosts(conn)
        runs = historydb.runs_of(conn, host)
        figs = historydb.figures_of(conn, host)
        conn.close()
        self.assertEqual([(r["commit_id"], r["boots"], r["kind"])
                          for r in runs], [("abc123", 3, "run")])
        self.assertEqual(runs[0]["qemu_version"], "7.2.22")
        self.assertEqual(runs[0]["firmware"], "qboot")
        key = ("exits", "pio.user", "cycles_per_op", "bytes=1")
        (value, lo, hi, boots) = figs[key]["runs"][runs[0]["id"]]
        self.assertEqual(len(boots), 3)
        self.assertEqual(value, sorted(boots)[1])
        self.assertLess(lo, hi)
        self.assertEqual(figs[("exits", "pio.user", "exits_per_op",
                               "bytes=1")]["kind"], "count")

    def test_describe_takes_the_checkout_s_commit(self):
        repo = os.path.join(self.dir, "repo")
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t",
                   GIT_COMMITTER_DATE="2026-12-01T08:00:00+00:00")
        for words in (["init", "-q", repo], ["-C", repo, "commit", "-q",
                                             "--allow-empty", "-m", "x"]):
            subprocess.run(["git", *words], check=True, env=env,
                           capture_output=True)
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
        proc = self.add("--describe", repo, RUN1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        conn = historydb.open_db(self.db)
        (run,) = historydb.runs_of(conn, historydb.hosts(conn)[0])
        conn.close()
        self.assertEqual((run["commit_id"], run["commit_date"],
                          run["describe"]),
                         (head, "2026-12-01T08:00:00+00:00", head[:7]))

    def test_a_second_file_of_the_host_joins_its_series(self):
        self.assertEqual(self.add(RUN1).returncode, 0)
        proc = self.add(RUN7)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("series", proc.stderr.split("series", 1)[1])
        conn = historydb.open_db(self.db)
        self.assertEqual(len(historydb.hosts(conn)), 1)
        conn.close()

    def test_a_fingerprint_change_starts_a_new_series_and_says_so(self):
        other = edited(RUN7, os.path.join(self.dir, "k.json"), lambda d: d[
            "host"]["fingerprint"]["kernel"].update(release="6.99.0-other"))
        self.assertEqual(self.add(RUN1).returncode, 0)
        proc = self.add(other)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("a new series", proc.stderr)
        self.assertIn("kernel.release: 6.18.44-fc-v1147 -> 6.99.0-other",
                      proc.stderr)
        conn = historydb.open_db(self.db)
        hosts = historydb.hosts(conn)
        self.assertEqual([len(historydb.runs_of(conn, h)) for h in hosts],
                         [1, 1])
        conn.close()

    def test_the_method_is_part_of_the_series(self):
        doc = json.load(open(RUN1))
        key, fields = runlevel.series_key(doc)
        doc["config"]["kernel_irqchip"] = "off"
        self.assertNotEqual(runlevel.series_key(doc)[0], key)
        doc = json.load(open(RUN1))
        doc["host"]["fingerprint"]["cpufreq"]["governor"] = "powersave"
        doc["host"]["fingerprint"]["qemu"]["sha256"] = "0" * 64
        self.assertEqual(runlevel.series_key(doc)[0], key)
        self.assertEqual(fields["method.accel"], "kvm")

    def test_several_files_are_one_transaction(self):
        """The second file is refused: the first is not kept either (read
        before the database is opened, or refused inside its
        transaction)."""
        proc = self.add(RUN1, OLD)
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertFalse(os.path.exists(self.db) and rows(self.db))
        copy = os.path.join(self.dir, "again.json")
        with open(RUN7, "rb") as src, open(copy, "wb") as dst:
            dst.write(src.read())
        proc = self.add(RUN7, copy)
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertIn("in the history already", proc.stderr)
        self.assertEqual((rows(self.db), rows(self.db, "hosts"),
                          rows(self.db, "figures")), (0, 0, 0))


class BadInput(Tmp):
    def setUp(self):
        super().setUp()
        self.assertEqual(self.add("--commit", "c1", RUN1).returncode, 0)
        self.before = digest(self.db)

    def assertUnchanged(self):
        self.assertEqual(digest(self.db), self.before)

    def test_a_run_without_fingerprint(self):
        proc = self.add(OLD)
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertIn("no host fingerprint", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertUnchanged()

    def test_a_results_file_of_another_schema(self):
        bad = edited(RUN7, os.path.join(self.dir, "s.json"),
                     lambda d: d.update(schema=99))
        proc = self.add(bad)
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertIn("results schema 99", proc.stderr)
        self.assertUnchanged()

    def test_a_file_added_twice(self):
        proc = self.add(RUN1)
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertIn("in the history already (run 1", proc.stderr)
        self.assertUnchanged()

    def test_a_corrupt_database(self):
        for damage in (b"not a database at all" * 100, None):
            with open(self.db, "r+b") as fh:
                if damage is None:
                    fh.seek(4096)
                    fh.write(os.urandom(4096))
                else:
                    fh.write(damage)
            broken = digest(self.db)
            proc = self.add(RUN7)
            self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
            self.assertIn("history corrupt", proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            self.assertEqual(digest(self.db), broken)

    def test_another_sqlite_file(self):
        other = os.path.join(self.dir, "o.db")
        conn = sqlite3.connect(other)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
        proc = trapmeter("history", "check", "--db", other)
        self.assertEqual(proc.returncode, UNUSABLE_DB)
        self.assertIn("not a trapmeter history", proc.stderr)

    def test_a_newer_database(self):
        conn = sqlite3.connect(self.db)
        conn.execute("PRAGMA user_version = 99")
        conn.close()
        self.before = digest(self.db)
        proc = self.add(RUN7)
        self.assertEqual(proc.returncode, UNUSABLE_DB)
        self.assertIn("history schema 99, newer", proc.stderr)
        self.assertUnchanged()

    def test_a_locked_database_waits_then_fails_by_name(self):
        conn = sqlite3.connect(self.db, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        try:
            proc = self.add("--busy-timeout", "0.3", RUN7)
        finally:
            conn.execute("ROLLBACK")
            conn.close()
        self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
        self.assertIn("history locked", proc.stderr)
        self.assertIn("waited 0.3 s", proc.stderr)
        self.assertEqual(rows(self.db), 1)
        self.assertEqual(self.add(RUN7).returncode, 0)
        self.assertEqual(rows(self.db), 2)

    def test_a_reader_past_the_busy_timeout_fails_by_name(self):
        """A reader's lock outlasts the writer's wait at COMMIT: status
        19 by name (it was 70, an internal error), nothing written."""
        conn = sqlite3.connect(self.db, isolation_level=None)
        conn.execute("BEGIN")
        conn.execute("SELECT count(*) FROM runs").fetchone()
        try:
            proc = self.add("--busy-timeout", "0.3", RUN7)
        finally:
            conn.execute("COMMIT")
            conn.close()
        self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
        self.assertIn("history locked: the history is being written or read "
                      "by another process (waited 0.3 s)", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertUnchanged()
        self.assertEqual(self.add(RUN7).returncode, 0)

    def test_a_writer_killed_mid_transaction_leaves_nothing(self):
        """historydb.add_runs killed (SIGKILL) after it stored one run of
        two, its pages spilled into the file: the next open rolls the
        journal back, and the file is the one before, byte for byte."""
        code = (
            "import os, signal, sys\n"
            "sys.path.insert(0, %r)\n"
            "sys.path.insert(0, %r)\n"
            "from tests.host.test_history import big_entry\n"
            "from trapmeterlib.backends import historydb\n"
            "conn = historydb.open_db(%r)\n"
            "conn.execute('PRAGMA cache_size=1')\n"
            "def entries():\n"
            "    yield big_entry()\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n"
            "historydb.add_runs(conn, entries())\n"
            % (ROOT, os.path.join(ROOT, "tools"), self.db))
        proc = subprocess.run([sys.executable, "-c", code], timeout=120,
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, -9, proc.stderr)
        self.assertTrue(os.path.exists(self.db + "-journal"))
        self.assertNotEqual(digest(self.db), self.before)
        proc = trapmeter("history", "check", "--db", self.db)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertUnchanged()
        self.assertEqual((rows(self.db), rows(self.db, "figures")), (1, 18))

    def interrupted_add(self, where):
        """`history add RUN7 RUN7'` in a process that sends itself SIGINT
        when historydb.`where` is first called.  SIGINT as a terminal's ^C
        finds it: a test run started as a background job of a shell
        without job control hands its children SIGINT ignored, and a
        command run so cannot be ^C'd at all."""
        code = (
            "import os, signal, sys\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "sys.path.insert(0, %r)\n"
            "from trapmeterlib.backends import historydb\n"
            "from trapmeterlib import cli\n"
            "real = getattr(historydb, %r)\n"
            "def hit(*a, **k):\n"
            "    os.kill(os.getpid(), signal.SIGINT)\n"
            "    return real(*a, **k)\n"
            "setattr(historydb, %r, hit)\n"
            "sys.exit(cli.main(['history', 'add', '--db', %r, %r, %r]))\n"
            % (os.path.join(ROOT, "tools"), where, where, self.db, RUN7,
               self.other))
        return subprocess.run([sys.executable, "-c", code], timeout=120,
                              capture_output=True, text=True)

    def test_ctrl_c_during_add_tears_nothing(self):
        """SIGINT before the transaction: status 130, the file as it was.
        SIGINT once it has the file (here after COMMIT, as add says what
        it added): held, then dropped and said -- status 0 with the runs
        added, not 130 with them added (as it was)."""
        self.other = edited(RUN7, os.path.join(self.dir, "r7.json"),
                            lambda d: d.update(note="another file"))
        proc = self.interrupted_add("last_run")
        self.assertEqual(proc.returncode, 130, proc.stderr)
        self.assertIn("interrupted", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertUnchanged()
        proc = self.interrupted_add("measures_before")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("SIGINT while the history was written: ignored (one "
                      "transaction", proc.stderr)
        self.assertEqual(proc.stderr.count("history: added "), 2)
        conn = sqlite3.connect(self.db)
        self.assertEqual(conn.execute("PRAGMA integrity_check").fetchall(),
                         [("ok",)])
        conn.close()
        self.assertEqual((rows(self.db), rows(self.db, "figures")), (3, 54))

    def test_a_read_only_database_is_named_and_kept(self):
        """A history the user may read but not write: add ends 19 by
        name (it was 70, an internal error), check still reads it.  As
        root (where permissions do not bind) the commands run as nobody."""
        os.chmod(self.db, 0o444)
        os.chmod(self.dir, 0o755)
        drop = None
        if os.getuid() == 0:
            if not reachable_by_others(RUNNER):
                self.skipTest("the checkout lies under a directory user "
                              "nobody cannot enter; as root the read-only "
                              "file binds only another user")

            def drop():
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
        other = edited(RUN7, os.path.join(self.dir, "r7.json"),
                       lambda d: d.update(note="another file"))
        os.chmod(other, 0o644)
        for verb in (("add", other), ("check",)):
            proc = subprocess.run([RUNNER, "history", verb[0], "--db",
                                   self.db] + list(verb[1:]),
                                  capture_output=True, text=True,
                                  timeout=120, preexec_fn=drop)
            if verb[0] == "add":
                self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
                self.assertIn("history readonly: %s: cannot be written: "
                              "attempt to write a readonly database"
                              % self.db, proc.stderr)
            else:
                self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            self.assertUnchanged()

    def test_every_verb_refuses_a_newer_file_and_a_directory(self):
        conn = sqlite3.connect(self.db)
        conn.execute("PRAGMA user_version = 99")
        conn.close()
        self.before = digest(self.db)
        out = os.path.join(self.dir, "out")
        for db, why in ((self.db, "history newer: %s: history schema 99"
                         % self.db),
                        (self.dir, "history unopenable: %s: a directory, "
                         "not a history file" % self.dir)):
            for verb in (("add", RUN7), ("check",), ("check", "--every-run"),
                         ("report", "--html", out),
                         ("export", "--openmetrics", out)):
                proc = trapmeter("history", verb[0], "--db", db, *verb[1:])
                self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
                self.assertIn(why, proc.stderr)
                self.assertFalse(os.path.exists(out))
        self.assertUnchanged()

    def test_an_empty_file_is_no_history_and_stays_empty(self):
        empty = os.path.join(self.dir, "empty.db")
        open(empty, "w").close()
        for verb in (("check",), ("export", "--csv", os.path.join(
                self.dir, "x.csv"))):
            proc = trapmeter("history", *verb, "--db", empty)
            self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
            self.assertIn("history missing: %s: empty: no history there"
                          % empty, proc.stderr)
            self.assertEqual(os.path.getsize(empty), 0)
        proc = trapmeter("history", "add", "--db", empty, RUN1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(rows(empty), 1)

    def test_a_missing_database_and_an_unknown_case(self):
        proc = trapmeter("history", "check", "--db",
                         os.path.join(self.dir, "none.db"))
        self.assertEqual(proc.returncode, UNUSABLE_DB)
        self.assertIn("no history there", proc.stderr)
        proc = trapmeter("history", "check", "--db", self.db, "--case",
                         "no.such.case")
        self.assertEqual(proc.returncode, BAD)
        self.assertIn("--case no.such.case: no such case", proc.stderr)
        proc = trapmeter("history", "report", "--db", self.db, "--case",
                         "nope", "--html", os.path.join(self.dir, "r.html"))
        self.assertEqual(proc.returncode, BAD)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r.html")))

    def test_describe_of_a_directory_that_is_no_checkout(self):
        proc = self.add("--describe", self.dir, RUN7)
        self.assertEqual(proc.returncode, BAD, proc.stderr)
        self.assertIn("--describe %s: git" % self.dir, proc.stderr)
        for path in (RUN7, os.path.join(self.dir, "none")):
            proc = self.add("--describe", path, RUN7)
            self.assertEqual(proc.returncode, BAD, proc.stderr)
            self.assertIn("--describe %s: git rev-parse --verify HEAD: "
                          % path, proc.stderr)
        proc = self.add("--describe", self.dir, "--commit", "x", RUN7)
        self.assertEqual(proc.returncode, BAD)
        self.assertIn("give it alone", proc.stderr)
        self.assertUnchanged()

    def test_bad_dates_and_options(self):
        proc = self.add("--date", "yesterday", RUN7)
        self.assertEqual(proc.returncode, BAD)
        self.assertIn("not an ISO 8601 date", proc.stderr)
        proc = trapmeter("history")
        self.assertEqual(proc.returncode, BAD)
        self.assertIn("needs a verb", proc.stderr)
        self.assertUnchanged()


def with_tsc(src, out, khz, source="kvmclock", boots=None):
    """A copy of a results file whose boots (those in `boots`, all when
    None) declare another TSC rate (None: no rate at all)."""
    def change(doc):
        doc["note"] = "tsc %s" % khz          # another file's digest
        for n, boot in enumerate(doc["boots"]):
            if boots is None or n in boots:
                boot["run"]["tsc"] = dict(boot["run"]["tsc"], khz=khz,
                                          source=source)
    return edited(src, out, change)


class TscRate(Tmp):
    """A cycle per op is a TSC cycle: runs of one fingerprint and method
    whose TSC rates differ are two series, and add says why."""

    def series(self):
        conn = historydb.open_db(self.db)
        try:
            return [(historydb.host(conn, h)["key"],
                     historydb.host(conn, h)["tsc_khz"],
                     len(historydb.runs_of(conn, h)))
                    for h in historydb.hosts(conn)]
        finally:
            conn.close()

    def test_another_rate_is_another_series_and_add_names_it(self):
        """The rates of this project's build machine (2596142 kHz) and of
        an earlier session's host of the same CPU model string (2445406,
        tests/fixtures/kvm-base.json); a rate 0.05 % off is the same
        clock, 0.5 % off another."""
        self.assertEqual(self.add(RUN1).returncode, 0)
        other = with_tsc(RUN7, os.path.join(self.dir, "o.json"), 2445406)
        proc = self.add(other)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        (key, _r, _n), (new, _r2, _n2) = self.series()
        self.assertNotEqual(key, new)
        self.assertIn("a new series %s: its TSC, 2445406 kHz (declared), "
                      "is not that of series %s (2596142 kHz, declared)"
                      % (new, key), proc.stderr)
        self.assertIn("method.tsc_khz: 2596142 -> 2445406", proc.stderr)
        near = with_tsc(RUN7, os.path.join(self.dir, "n.json"),
                        2596142 * 1.0005)
        far = with_tsc(RUN7, os.path.join(self.dir, "f.json"),
                       2596142 * 1.005)
        self.assertEqual(self.add(near).returncode, 0)
        proc = self.add(far)
        self.assertEqual(proc.returncode, 0)
        self.assertEqual([(r, n) for _k, r, n in self.series()],
                         [(2596142, 2), (2445406, 1), (2596142 * 1.005, 1)])
        proc = trapmeter("history", "check", "--db", self.db)
        self.assertEqual(proc.stdout.count("\nseries ") +
                         proc.stdout.startswith("series "), 3, proc.stdout)

    def test_calibrated_rates_join_by_their_source(self):
        """TCG's PIT calibration moved 2.30-3.18 GHz between the boots of
        one session (tests/fixtures/tcg-ab-aa-*.json): its two sides are
        one series, shown at their median rate, not keyed on it."""
        for side in ("a", "b"):
            proc = self.add("--fingerprint-from", RUN1, os.path.join(
                FIX, "tcg-ab-aa-%s.json" % side))
            self.assertEqual(proc.returncode, 0, proc.stderr)
        ((_key, _khz, runs),) = self.series()
        self.assertEqual(runs, 2)

    def test_a_run_without_a_rate_or_with_two_is_refused(self):
        self.assertEqual(self.add(RUN1).returncode, 0)
        before = digest(self.db)
        for khz, boots, why in (
                (None, None, "boot 0 states no TSC rate (run.tsc.khz)"),
                (2445406, (1,), "its boots declare different TSC rates "
                 "(2445406 to 2596142 kHz): two clocks in one run")):
            bad = with_tsc(RUN7, os.path.join(self.dir, "b.json"), khz,
                           boots=boots)
            proc = self.add(bad)
            self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
            self.assertIn(why, proc.stderr)
            self.assertNotIn("Traceback", proc.stderr)
            self.assertEqual(digest(self.db), before)

    def test_a_schema_3_file_is_migrated_and_learns_its_rate(self):
        """A history of schema 3 kept no rate: its series keeps its key,
        takes the rate of the next run added (said), and a run of
        another rate then starts a series of its own."""
        conn = sqlite3.connect(self.db, isolation_level=None)
        for step in (1, 2, 3):
            for sql in historydb.MIGRATIONS[step]:
                conn.execute(sql)
        conn.execute("INSERT INTO meta VALUES ('tool', ?)",
                     (historydb.TOOL,))
        doc = json.load(open(RUN1))
        key, fields = runlevel.series_key(doc)
        conn.execute("INSERT INTO hosts VALUES (1, ?, ?, '{}')",
                     (key, json.dumps(fields)))
        conn.execute("INSERT INTO runs (id, host, digest, source) VALUES "
                     "(1, 1, 'd', 'old.json')")
        conn.execute("INSERT INTO figures VALUES (1, 'exits', 'pio.user', "
                     "'cycles_per_op', 'timing', 1.0, NULL, NULL, '[1.0]', "
                     "NULL)")
        conn.execute("PRAGMA user_version = 3")
        conn.close()
        proc = self.add(RUN1)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("history: series %s kept no TSC rate (added before "
                      "history schema 4): it takes this run's, 2596142 kHz "
                      "(declared)" % key, proc.stderr)
        self.assertEqual(self.series(), [(key, 2596142, 2)])
        conn = sqlite3.connect(self.db)
        self.assertEqual(conn.execute("PRAGMA user_version").fetchone()[0],
                         4)
        self.assertEqual(conn.execute("PRAGMA integrity_check").fetchall(),
                         [("ok",)])
        self.assertEqual(conn.execute("SELECT source, tsc_khz FROM runs "
                                      "ORDER BY id").fetchall(),
                         [("old.json", None), (RUN1, 2596142)])
        conn.close()
        proc = self.add(with_tsc(RUN7, os.path.join(self.dir, "o.json"),
                                 2299998))
        self.assertIn("is not that of series %s (2596142 kHz, declared)"
                      % key, proc.stderr)
        self.assertEqual(len(self.series()), 2)


class Kinds(Tmp):
    def test_an_ab_side_is_a_run_of_kind_ab(self):
        """An ab file (here the recorded TCG A/A session's side A, which
        predates the fingerprint) joins by the fingerprint given."""
        side = os.path.join(FIX, "tcg-ab-aa-a.json")
        proc = self.add("--fingerprint-from", RUN1, "--label", "A", side)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        conn = historydb.open_db(self.db)
        (host,) = historydb.hosts(conn)
        (run,) = historydb.runs_of(conn, host)
        fields = historydb.host(conn, host)["fields"]
        conn.close()
        self.assertEqual((run["kind"], run["label"], run["boots"]),
                         ("ab", "A", 8))
        self.assertEqual(fields["method.accel"], "tcg")

    def test_a_directory_that_is_not_there(self):
        proc = trapmeter("history", "add", "--db", os.path.join(
            self.dir, "no", "such", "h.db"), RUN1)
        self.assertEqual(proc.returncode, UNUSABLE_DB, proc.stderr)
        self.assertIn("history unopenable", proc.stderr)


class Migration(Tmp):
    def test_two_writers_creating_one_file_at_once(self):
        """Writer A has checked the new (empty) file; writer B creates the
        history before A migrates: A finds it made and uses it (it failed
        with 'table meta already exists', named as a corrupt file)."""
        db = self.db
        writing = historydb._writing

        class Raced(writing):
            def __enter__(self):       # B between A's read and its BEGIN
                historydb._writing = writing
                historydb.open_db(db, create=True).close()
                return super().__enter__()
        conn = sqlite3.connect(self.db, timeout=5, isolation_level=None)
        historydb._check(conn, self.db)
        historydb._writing = Raced
        try:
            historydb._migrate(conn)
        finally:
            historydb._writing = writing
        self.assertEqual(historydb._version(conn), historydb.SCHEMA)
        self.assertEqual(conn.execute("SELECT count(*) FROM meta")
                         .fetchone()[0], 1)
        conn.close()
        procs = [subprocess.Popen([RUNNER, "history", "add", "--db", db,
                                   RUN1], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for db in (os.path.join(self.dir, "new.db"),) * 2]
        codes = sorted(p.wait(timeout=120) for p in procs)
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        self.assertEqual(codes, [0, UNUSABLE])     # the second: a duplicate
        self.assertEqual(rows(os.path.join(self.dir, "new.db")), 1)


    def test_a_schema_1_file_is_migrated_with_its_runs(self):
        conn = sqlite3.connect(self.db, isolation_level=None)
        for sql in historydb.MIGRATIONS[1]:
            conn.execute(sql)
        conn.execute("INSERT INTO meta VALUES ('tool', ?)",
                     (historydb.TOOL,))
        conn.execute("INSERT INTO hosts VALUES (1, 'k', '{}', '{}')")
        conn.execute("INSERT INTO runs (id, host, digest, source) VALUES "
                     "(1, 1, 'd', 'old.json')")
        conn.execute("PRAGMA user_version = 1")
        conn.close()
        conn = historydb.open_db(self.db)
        self.assertEqual(conn.execute("PRAGMA user_version").fetchone()[0],
                         historydb.SCHEMA)
        runs = historydb.runs_of(conn, 1)
        conn.close()
        self.assertEqual([(r["source"], r["label"]) for r in runs],
                         [("old.json", None)])


IDE = ("ide", "disk.seq")
IDE_BYTES = (4194304, 2097152)      # asked, and cut by the case budget


def ide_figures(rng, cut):
    """ide/disk.seq's figures of one run: 4 MiB an op, or 2 MiB when
    `cut` (ide_size_kind) -- half the cycles and half the exits per op,
    the same cost per byte."""
    size = IDE_BYTES[1 if cut else 0]
    out = []
    for metric, kind, base in (("cycles_per_op", "timing", 4.0e8),
                               ("exits_per_op", "count", 2.1e6)):
        boots = [base * size / IDE_BYTES[0] * (math.exp(rng.gauss(
            0, 0.01)) if kind == "timing" else 1.0) for _ in range(3)]
        out.append({"suite": IDE[0], "case": IDE[1], "metric": metric,
                    "kind": kind, "value": sorted(boots)[1],
                    "lo": min(boots), "hi": max(boots), "boots": boots,
                    "measure": "bytes=%d" % size})
    return out


def stepped_history(db, runs=12, step_at=7, seed=1, release=None,
                    ide_cut=None):
    """A history of `runs` runs of one host whose pio.user is 10 %
    dearer from run `step_at` on; each run has a commit.  `release`: the
    host's kernel release instead of the recorded one (another series).
    `ide_cut`: ide/disk.seq too, at 4 MiB an op and at 2 MiB from run
    `ide_cut` on (the case budget cut it: another measurement)."""
    doc = json.load(open(RUN1))
    if release:
        doc["host"]["fingerprint"]["kernel"]["release"] = release
    key, fields = runlevel.series_key(doc)
    rng = random.Random(seed)
    entries = []
    for n in range(1, runs + 1):
        figures = []
        for case, base in (("pio.user", 21000.0), ("cpuid", 7900.0),
                           ("pio.kernel", 10200.0)):
            factor = 1.10 if case == "pio.user" and n >= step_at else 1.0
            boots = [base * factor * math.exp(rng.gauss(0, 0.01))
                     for _ in range(3)]
            handler = "user" if case == "pio.user" else "kernel"
            figures.append({"suite": "exits", "case": case,
                            "metric": "cycles_per_op", "kind": "timing",
                            "value": sorted(boots)[1], "lo": min(boots),
                            "hi": max(boots), "boots": boots,
                            "handler": handler})
            figures.append({"suite": "exits", "case": case,
                            "metric": "exits_per_op", "kind": "count",
                            "value": 1.0, "lo": None, "hi": None,
                            "boots": [1.0], "handler": handler})
        if ide_cut:
            figures += ide_figures(rng, n >= ide_cut)
        entries.append({"key": key, "fields": fields,
                        "fingerprint": doc["host"]["fingerprint"],
                        "tsc": runlevel.tsc_rate(doc),
                        "digest": "d%d%s" % (n, release or ""),
                        "source": "run-%02d.json" % n,
                        "kind": "run", "subject": runlevel.subject(doc),
                        "commit_id": "c%02d" % n + "0" * 10,
                        "commit_date": "2026-12-03T10:%02d:00Z" % n,
                        "describe": None, "label": None, "boots": 3,
                        "status": "ok", "figures": figures})
    conn = historydb.open_db(db, create=True)
    historydb.add_runs(conn, entries)
    conn.close()
    return key


def big_entry(figures=3000):
    """One run of RUN1's host with many figures (enough to spill pages
    into the file before COMMIT)."""
    doc = json.load(open(RUN1))
    key, fields = runlevel.series_key(doc)
    return {"key": key, "fields": fields,
            "fingerprint": doc["host"]["fingerprint"], "digest": "big",
            "tsc": runlevel.tsc_rate(doc),
            "source": "big.json", "kind": "run",
            "subject": runlevel.subject(doc), "commit_id": "c2",
            "commit_date": None, "describe": None, "label": None,
            "boots": 3, "status": "ok",
            "figures": [{"suite": "s", "case": "c%d" % i,
                         "metric": "cycles_per_op", "kind": "timing",
                         "value": 1.0, "lo": None, "hi": None,
                         "boots": [1.0] * 20} for i in range(figures)]}


class Check(Tmp):
    def test_a_change_at_the_newest_runs_exits_18_and_names_them(self):
        stepped_history(self.db)
        proc = trapmeter("history", "check", "--db", self.db)
        self.assertEqual(proc.returncode, CHANGE, proc.stdout + proc.stderr)
        out = proc.stdout
        self.assertIn("change (newest runs) at run 7 of 12: exits/pio.user "
                      "cycles_per_op +", out)
        self.assertIn("last run before: run 6: commit c06", out)
        self.assertIn("first run after: run 7: commit c07", out)
        self.assertIn("--good c060000000000 --bad c070000000000", out)
        self.assertIn("--case pio.user", out)
        self.assertNotIn("cpuid cycles_per_op", out)

    def test_no_change_exits_0(self):
        stepped_history(self.db, step_at=99)
        proc = trapmeter("history", "check", "--db", self.db)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("no change starts at the newest runs", proc.stdout)

    def test_an_older_change_is_named_but_exits_0(self):
        stepped_history(self.db, runs=30, step_at=7)
        proc = trapmeter("history", "check", "--db", self.db)
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn("earlier change at run 7 of 30", proc.stdout)

    def test_every_run_flags_the_newest_run_that_completes_a_change(self):
        stepped_history(self.db, runs=60, step_at=50)
        proc = trapmeter("history", "check", "--db", self.db, "--every-run")
        self.assertEqual(proc.returncode, CHANGE, proc.stdout + proc.stderr)
        out = proc.stdout
        self.assertIn("check after every run: 36 tests of the newest runs' "
                      "floor, each at p <= 5.6e-06 (alpha 0.02 over 100 "
                      "checks), and a CUSUM of the calm runs at %g "
                      "(measured)" % changewatch.THRESHOLD, out)
        self.assertRegex(out, r"change \(newest runs\) at run (49|50|51) "
                         r"of 60: exits/pio.user cycles_per_op \+.*; "
                         r"(p \S+|CUSUM \S+ >= \d+) \(rise of the newest "
                         r"\d+ runs' floors: (lowest floor|calm runs' "
                         r"CUSUM)\)")
        self.assertNotIn("cpuid cycles_per_op", out)
        self.assertIn("--bad c", out)

    def test_every_run_without_a_change_and_with_too_few_runs(self):
        stepped_history(self.db, runs=60, step_at=99)
        proc = trapmeter("history", "check", "--db", self.db, "--every-run")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("no change starts at the newest runs", proc.stdout)
        self.assertIn("the newest run has 3 boots: +1 %% per QEMU exit was "
                      "found %s runs after the step (median) with 3 a run"
                      % changewatch.STEP_DELAY[3], proc.stdout)
        db = os.path.join(self.dir, "few.db")
        stepped_history(db, runs=12, step_at=7)
        proc = trapmeter("history", "check", "--db", db, "--every-run")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("check after every run: not resolved: too few runs",
                      proc.stdout)
        proc = trapmeter("history", "check", "--db", db, "--every-run",
                         "--horizon", "0")
        self.assertEqual(proc.returncode, BAD)
        self.assertIn("--horizon 0: checks, at least 1", proc.stderr)

    def test_both_checks_open_with_the_series_line(self):
        key = stepped_history(self.db)
        line = ("series %s: 12 runs, 6 series of cases and metrics (host "
                "pvm, kernel 6.18.44-fc-v1147, AMD EPYC; accel kvm)\n"
                % key)
        for words in ((), ("--every-run",)):
            proc = trapmeter("history", "check", "--db", self.db, *words)
            self.assertTrue(proc.stdout.startswith(line), proc.stdout)

    def test_bisect_needs_its_repository(self):
        stepped_history(self.db)
        proc = trapmeter("history", "check", "--db", self.db, "--bisect")
        self.assertEqual(proc.returncode, BAD)
        self.assertIn("--bisect needs --repo, --build and --binary",
                      proc.stderr)


def resized(src, out, sizes, case="pio.user"):
    """A copy of a results file whose `case` moved sizes[boot] bytes an
    op in each boot (as ide_size_kind leaves a cut case), its guest
    lines, CRC and seal rewritten to match: a file `history add` reads
    as the runner's."""
    def change(doc):
        boots = [b for b in doc["boots"] if b.get("results")]
        for boot, size in zip(boots, sizes):
            integ, lines = boot["integrity"], []
            for text in integ["tm_lines"]:
                rec = json.loads(text)
                if rec.get("type") == "result" and rec.get("case") == case:
                    rec["bytes"] = size
                    text = json.dumps(rec, separators=(",", ":"))
                lines.append(text)
            parser = DumpParser()
            parser.feed_line(b"trapmeter ? START")
            for text in lines:
                parser.feed_line(b"@tm " + text.encode())
            for res, guest in zip(boot["results"], parser.dump.results):
                if res.get("case") == case:
                    res.update(guest)
            integ["tm_lines"] = lines
            boot["dump"]["end"]["crc32"] = parser.dump.crc_hex
            boot["dump"]["crc32"] = parser.dump.crc_hex
            integ["results_crc32"] = resultsfile.results_crc32(
                boot["results"])
    return edited(src, out, change)


class Judging(Tmp):
    """`report` marks what `check` would raise with the same --alpha,
    --horizon and --cusum-threshold, and says at which."""

    def report(self, *words):
        out = os.path.join(self.dir, "r.html")
        proc = trapmeter("history", "report", "--db", self.db, "--html",
                         out, *words)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as fh:
            return fh.read()

    def test_a_change_is_marked_at_one_alpha_and_not_at_another(self):
        """pio.user +10 % from run 14 of 21: the newest 8 runs' lowest
        floor above all 13 before, p = 1/C(21, 8) = 4.9e-6, under the
        level of 18 tests at alpha 2 % (1.1e-5), over it at 0.1 %
        (5.6e-7).  Beyond the CUSUM's 2 % cut: the exact test alone."""
        key = stepped_history(self.db, runs=21, step_at=14)
        for words, code, alarms in (((), CHANGE, 1),
                                    (("--alpha", "0.001"), 0, 0)):
            proc = trapmeter("history", "check", "--every-run", "--db",
                             self.db, *words)
            self.assertEqual(proc.returncode, code, proc.stdout)
            page = self.report(*words)
            self.assertEqual("<table id=\"watch-%s\"" % key in page,
                             bool(alarms), words)
            alpha = words[1] if words else "0.02"
            self.assertIn("(alpha %s over 100 checks)" % alpha, proc.stdout)
            self.assertTrue("`history check --every-run --alpha %s --horizon "
                            "100 --cusum-threshold 7`" % alpha in page)
            self.assertTrue("alarming at 7, from run 13 on): %d alarm"
                            % alarms in page)
        page = self.report("--alpha", "0.05")
        self.assertTrue("critical statistic 4.21 at alpha 0.05" in page)

    def test_the_cusum_threshold_is_the_check_s(self):
        """No step: at the default threshold no CUSUM alarms; at 0.5 one
        does (a calm run's rank above z = 1.5 in 30 runs of 3 cases), in
        the check and on the page alike."""
        stepped_history(self.db, runs=30, step_at=99)
        proc = trapmeter("history", "check", "--every-run", "--db",
                         self.db)
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertFalse("<td>CUSUM " in self.report())
        page = self.report("--cusum-threshold", "0.5")
        self.assertTrue("--cusum-threshold 0.5`" in page)
        self.assertTrue("<td>CUSUM " in page)
        proc = trapmeter("history", "check", "--every-run", "--db",
                         self.db, "--cusum-threshold", "0.5")
        self.assertIn("a CUSUM of the calm runs at 0.5", proc.stdout)
        for verb in ("check", "report"):
            proc = trapmeter("history", verb, "--help")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("--cusum-threshold S", proc.stdout)
        for bad in ("0", "-1", "inf", "nan"):
            proc = trapmeter("history", "check", "--db", self.db,
                             "--cusum-threshold", bad)
            self.assertEqual(proc.returncode, BAD, proc.stderr)
            self.assertIn("--cusum-threshold %s: a sum above 0"
                          % float(bad), proc.stderr)


class Measure(Tmp):
    """A case's figure is keyed by what one op measured: ide's cut
    transfers (bytes per op) start another series of the case."""

    def test_add_says_a_cut_transfer_starts_another_series(self):
        big = resized(RUN1, os.path.join(self.dir, "a.json"),
                      [IDE_BYTES[0]] * 3)
        cut = resized(RUN7, os.path.join(self.dir, "b.json"),
                      [IDE_BYTES[1]] * 3)
        self.assertEqual(self.add(big).returncode, 0)
        proc = self.add(cut)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("exits/pio.user starts another series of the case in "
                      "series ", proc.stderr)
        self.assertIn(": 4194304 bytes per op -> 2097152 bytes per op "
                      "(another measurement, not a step in one)",
                      proc.stderr)
        self.assertEqual(proc.stderr.count("starts another series"), 1)
        conn = historydb.open_db(self.db)
        figs = historydb.figures_of(conn, historydb.hosts(conn)[0])
        conn.close()
        self.assertEqual(sorted(k[3] for k in figs if k[1] == "pio.user"
                                and k[2] == "cycles_per_op"),
                         ["bytes=2097152", "bytes=4194304"])
        self.assertIn(("exits", "cpuid", "cycles_per_op", "bytes=0"), figs)

    def test_a_run_whose_boots_moved_different_sizes_leaves_it_out(self):
        mixed = resized(RUN1, os.path.join(self.dir, "m.json"),
                        [IDE_BYTES[0], IDE_BYTES[1], IDE_BYTES[0]])
        proc = self.add(mixed)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("exits/pio.user left out: its boots measured "
                      "different things (bytes per op 2097152-4194304)",
                      proc.stderr)
        conn = historydb.open_db(self.db)
        figs = historydb.figures_of(conn, historydb.hosts(conn)[0])
        conn.close()
        self.assertFalse([k for k in figs if k[1] == "pio.user"])
        self.assertTrue([k for k in figs if k[1] == "cpuid"])

    def test_check_reads_a_cut_transfer_as_another_series(self):
        """Run 7 moves 2 MiB an op where runs 1-6 moved 4 MiB: half the
        cycles and exits per op, the same cost per byte.  No change, and
        both checks say the case has a series per measure."""
        key = stepped_history(self.db, step_at=99, ide_cut=7)
        for words in ((), ("--every-run",)):
            proc = trapmeter("history", "check", "--db", self.db, *words)
            self.assertEqual(proc.returncode, 0, proc.stdout)
            self.assertIn("  ide/disk.seq cycles_per_op, exits_per_op: a "
                          "series per "
                          "measure (another measure is another measurement, "
                          "not a step): 4194304 bytes per op (runs 1-6); "
                          "2097152 bytes per op (runs 7-12)\n", proc.stdout)
            self.assertIn("no change starts at the newest runs", proc.stdout)
        self.assertTrue(proc.stdout.startswith("series %s: 12 runs, 10 "
                                               "series" % key), proc.stdout)

    def test_a_step_within_one_measure_is_still_found(self):
        """pio.user +10 % at run 7 beside the ide cut at run 7: the
        change is pio.user's alone."""
        stepped_history(self.db, ide_cut=7)
        proc = trapmeter("history", "check", "--db", self.db)
        self.assertEqual(proc.returncode, CHANGE, proc.stdout)
        self.assertIn("change (newest runs) at run 7 of 12: exits/pio.user "
                      "cycles_per_op +", proc.stdout)
        self.assertNotIn("change (newest runs) at run 7 of 12: ide",
                         proc.stdout)
        self.assertIn("--case pio.user", proc.stdout)
        self.assertIn("  level test over 3 timing series (2 more with fewer "
                      "than 8 runs not judged): critical statistic",
                      proc.stdout)

    def test_every_run_on_a_long_history_with_a_cut(self):
        stepped_history(self.db, runs=60, step_at=99, ide_cut=45)
        proc = trapmeter("history", "check", "--db", self.db, "--every-run")
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn("(runs 1-44); 2097152 bytes per op (runs 45-60)",
                      proc.stdout)

    def test_every_run_with_a_case_judges_that_case_alone(self):
        """--case narrows the family the check judges, not its printout:
        one timing series is 2 exact tests x 6 windows, each at alpha /
        horizon / 12, where the three cases' family is 36 tests."""
        stepped_history(self.db, runs=60, step_at=99)
        whole = trapmeter("history", "check", "--db", self.db,
                          "--every-run")
        one = trapmeter("history", "check", "--db", self.db,
                        "--every-run", "--case", "pio.user")
        self.assertEqual((whole.returncode, one.returncode), (0, 0),
                         whole.stdout + one.stdout)
        self.assertIn("check after every run: 36 tests of the newest "
                      "runs' floor, each at p <= 5.6e-06", whole.stdout)
        self.assertIn("check after every run: 12 tests of the newest "
                      "runs' floor, each at p <= 1.7e-05", one.stdout)

    def test_exports_a_column_and_a_time_series_per_measure(self):
        stepped_history(self.db, step_at=99, ide_cut=7)
        out = os.path.join(self.dir, "h.csv")
        proc = trapmeter("history", "export", "--db", self.db, "--csv", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table = otava_csv(self, out)
        self.assertIn("exits/pio.user/cycles_per_op", table[0])
        self.assertFalse([c for c in table[0] if "disk.seq" in c])
        self.assertIn("history: --csv: ide/disk.seq/cycles_per_op"
                      "[bytes=4194304] left out: a figure in runs 1-6 of 12 "
                      "only", proc.stderr)
        self.assertIn("ide/disk.seq/exits_per_op[bytes=2097152] left out: "
                      "a figure in runs 7-12 of 12 only", proc.stderr)
        proc = trapmeter("history", "export", "--db", self.db, "--csv", out,
                         "--case", "disk.seq")
        self.assertEqual(proc.returncode, BAD, proc.stderr)
        self.assertIn("--csv: no case has a figure in every run", proc.stderr)
        om = os.path.join(self.dir, "h.om")
        self.assertEqual(trapmeter("history", "export", "--db", self.db,
                                   "--openmetrics", om).returncode, 0)
        text = open(om).read()
        validate_openmetrics(self, text)
        ide = [line for line in text.splitlines() if line.startswith(
            "trapmeter_cycles_per_op{") and 'case="disk.seq"' in line]
        self.assertEqual([line.count('bytes_per_op="4194304"')
                          for line in ide], [1] * 6 + [0] * 6)
        self.assertEqual([line.count('bytes_per_op="2097152"')
                          for line in ide], [0] * 6 + [1] * 6)

    def test_two_ab_sessions_planned_apart_are_one_series(self):
        """An ab side runs a fixed plan whose samples per case its
        planning boot chose: another session's plan (other samples) is
        not another measure -- the size is."""
        doc = json.load(open(os.path.join(FIX, "tcg-ab-aa-b.json")))
        before = {(f["case"], f["metric"]): f["measure"]
                  for f in runlevel.run_figures(doc)}
        for boot in doc["boots"]:
            for res in boot.get("results") or ():
                self.assertEqual(res.get("stop"), "plan")
                res["samples"] += 7
        after = {(f["case"], f["metric"]): f["measure"]
                 for f in runlevel.run_figures(doc)}
        self.assertEqual(after, before)
        self.assertEqual(before[("fwcfg.in8.rep.4096", "cycles_per_op")],
                         "bytes=4096")

    def test_a_schema_2_file_s_figures_join_their_case_s_measure(self):
        """Figures stored before the history kept measures (schema 2)
        join the one measure later runs of their case say."""
        conn = sqlite3.connect(self.db, isolation_level=None)
        for step in (1, 2):
            for sql in historydb.MIGRATIONS[step]:
                conn.execute(sql)
        conn.execute("INSERT INTO meta VALUES ('tool', ?)",
                     (historydb.TOOL,))
        conn.execute("INSERT INTO hosts VALUES (1, 'k', '{}', '{}')")
        for run in (1, 2):
            conn.execute("INSERT INTO runs (id, host, digest, source) "
                         "VALUES (?, 1, ?, 'old.json')", (run, "d%d" % run))
            conn.execute("INSERT INTO figures VALUES (?, 'ide', 'disk.seq', "
                         "'cycles_per_op', 'timing', 1.0, NULL, NULL, "
                         "'[1.0]')", (run,))
        conn.execute("PRAGMA user_version = 2")
        conn.close()
        conn = historydb.open_db(self.db)
        self.assertEqual(list(historydb.figures_of(conn, 1)),
                         [IDE + ("cycles_per_op", "")])
        conn.execute("UPDATE figures SET measure = 'bytes=2097152' WHERE "
                     "run = 2")
        self.assertEqual(list(historydb.figures_of(conn, 1)),
                         [IDE + ("cycles_per_op", "bytes=2097152")])
        conn.execute("INSERT INTO runs (id, host, digest, source) VALUES "
                     "(3, 1, 'd3', 'new.json')")
        conn.execute("INSERT INTO figures (run, suite, name, metric, kind, "
                     "value, lo, hi, boots, measure) VALUES (3, 'ide', "
                     "'disk.seq', 'cycles_per_op', 'timing', 1.0, NULL, NULL, "
                     "'[1.0]', 'bytes=4194304')")
        self.assertEqual(sorted(historydb.figures_of(conn, 1)), [
            IDE + ("cycles_per_op", w) for w in (
                "bytes=2097152", "bytes=4194304", runlevel.UNRECORDED)])
        conn.close()


def otava_csv(test, path):
    """Read a CSV as Apache Otava's CsvImporter does (otava/importer.py):
    the header, every row as long as it, every metric cell a float
    (float(""), an empty cell, stops its import); the time column parses.
    Returns the table."""
    table = list(csv.reader(open(path, newline="")))
    head = table[0]
    test.assertEqual(head[:2], ["time", "commit"])
    for row in table[1:]:
        test.assertEqual(len(row), len(head))
        test.assertRegex(row[0], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "
                         r"\+0000$")
        for name, cell in zip(head[2:], row[2:]):
            try:
                float(cell)
            except ValueError:
                test.fail("Otava cannot read column %s: %r" % (name, cell))
    return table


OM_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
OM_VALUE = r"(?:[^\\\"\n]|\\[\\\"n])*"
OM_LABELS = r"\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"%s\"(?:,(?=[a-zA-Z_]))?)*\}" \
    % OM_VALUE
OM_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|Inf|NaN)"
OM_SAMPLE = re.compile(r"^(%s)(%s)? (%s)(?: (-?\d+(?:\.\d+)?))?$" % (
    OM_NAME, OM_LABELS, OM_NUMBER))
OM_META = re.compile(r"^# (TYPE|HELP|UNIT) (%s) (.*)$" % OM_NAME)
OM_TYPES = ("counter", "gauge", "histogram", "gaugehistogram",
            "stateset", "info", "summary", "unknown")


def validate_openmetrics(test, text):
    """Check OpenMetrics text against the spec's grammar (OpenMetrics
    1.0, "ABNF" and "MetricFamily"): LF line ends, `# EOF` last; a
    family's TYPE/HELP once each, before its samples; every sample of a
    family follows its descriptors, the families are not interleaved; a
    label set's samples are together with strictly rising timestamps;
    label values escaped (backslash, quote, newline)."""
    test.assertTrue(text.endswith("# EOF\n"), text[-40:])
    lines = text[:-1].split("\n")
    test.assertEqual(lines.count("# EOF"), 1)
    families, current, series = {}, None, {}
    for line in lines[:-1]:
        meta = OM_META.match(line)
        if meta:
            kind, name, rest = meta.groups()
            fam = families.setdefault(name, {"closed": False})
            test.assertFalse(fam["closed"] or fam.get(kind), line)
            test.assertIn(name, (current, None) if kind == "TYPE" and
                          name not in families else (name,))
            if current is not None and current != name:
                families[current]["closed"] = True
            current, fam[kind] = name, rest
            if kind == "TYPE":
                test.assertIn(rest, OM_TYPES)
            if kind == "HELP":
                test.assertRegex(rest, r"^%s$" % OM_VALUE)
            continue
        sample = OM_SAMPLE.match(line)
        test.assertIsNotNone(sample, "not an OpenMetrics line: %r" % line)
        name, labels, _value, stamp = sample.groups()
        test.assertEqual(name, current, line)
        test.assertEqual(families[name].get("TYPE"), "gauge")
        last = series.get((name, labels))
        if last is not None:
            test.assertEqual(last[0], len(series) - 1, "label set %s "
                             "interleaved with another" % labels)
            test.assertGreater(float(stamp), last[1], line)
        else:
            series[(name, labels)] = None
        series[(name, labels)] = (list(series).index((name, labels)),
                                  float(stamp) if stamp else float("-inf"))
    return families


def lava_log(src, boot, out):
    """A lava-run log of one boot of a recorded results file: the
    guest's @tm lines as LAVA target lines (quotes escaped as lava's
    ShellLogger does), a LAVA test case per result with the dump's
    median, and trapmeter.status."""
    doc = json.load(open(src))
    rec = [b for b in doc["boots"] if b.get("results")][boot]
    tm, end = rec["integrity"]["tm_lines"], rec["dump"]["end"]
    serial = (["trapmeter 0.1.0 START"] + ["@tm " + t for t in tm]
              + ["@tm " + json.dumps(end, separators=(",", ":")),
                 "trapmeter END status=ok"])

    def line(lvl, msg):
        return json.dumps({"dt": "2026-12-03T10:00:00", "lvl": lvl,
                           "msg": msg})
    lines = [line("target", t.replace('"', '\\"')) for t in serial]
    for res in rec["results"]:
        lines.append(line("results", {
            "case": res["case"].replace(".", "_"),
            "definition": "0_trapmeter", "result": "pass",
            "extra": {"test_case_id": res["case"]}, "units": "cycles",
            "measurement": str(res["cycles"]["median"])}))
    lines.append(line("results", {
        "case": "trapmeter_status", "definition": "0_trapmeter",
        "extra": {"test_case_id": "trapmeter.status"}, "measurement": "0",
        "result": "pass", "units": "status"}))
    lines.append(line("results", {"case": "job", "definition": "lava",
                                  "result": "pass"}))
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return out


class Lava(Tmp):
    """LAVA jobs go into the same history by the fingerprint of their
    worker (--fingerprint-from), one series per worker and accelerator."""

    def imported(self, src, name):
        logs = [lava_log(src, i, os.path.join(self.dir, "%s-%d.log"
                                              % (name, i)))
                for i in range(3)]
        out = os.path.join(self.dir, name + ".json")
        proc = trapmeter("import-lava", *logs, "--json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return out

    def test_two_jobs_of_one_worker_are_one_series(self):
        jobs = [self.imported(RUN1, "job-1"), self.imported(RUN7, "job-7")]
        proc = self.add("--commit", "c1", jobs[0])
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertIn("--fingerprint-from", proc.stderr)
        for n, job in enumerate(jobs, 1):
            proc = self.add("--fingerprint-from", RUN1, "--commit", "c%d" % n,
                            job)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        conn = historydb.open_db(self.db)
        (host,) = historydb.hosts(conn)
        runs = historydb.runs_of(conn, host)
        fields = historydb.host(conn, host)["fields"]
        figs = historydb.figures_of(conn, host)
        conn.close()
        self.assertEqual([(r["kind"], r["boots"]) for r in runs],
                         [("lava", 3), ("lava", 3)])
        self.assertEqual(fields["method.accel"], "kvm")
        key = ("exits", "pio.user", "cycles_per_op", "bytes=1")
        self.assertEqual(len(figs[key]["runs"]), 2)

    def test_an_import_of_a_server_export_is_refused_by_name(self):
        """A LAVA server's results export holds each case's median only:
        no guest lines to verify, no per-boot minimum.  Refused with what
        to import instead, nothing written."""
        rows = [{"name": "pio_user", "suite": "0_trapmeter",
                 "result": "pass", "measurement": "32685.0000000000",
                 "unit": "cycles", "metadata": {"extra": [
                     {"test_case_id": "pio.user"}]}},
                {"name": "trapmeter_status", "suite": "0_trapmeter",
                 "result": "pass", "measurement": "0E-10", "unit": "status",
                 "metadata": {}},
                {"name": "job", "suite": "lava", "result": "pass"}]
        export = os.path.join(self.dir, "export.json")
        with open(export, "w") as fh:
            json.dump(rows, fh)
        out = os.path.join(self.dir, "imported.json")
        proc = trapmeter("import-lava", export, "--json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.add("--fingerprint-from", RUN1, out)
        self.assertEqual(proc.returncode, UNUSABLE, proc.stderr)
        self.assertIn("an import of a LAVA results export: it holds each "
                      "case's median only", proc.stderr)
        self.assertIn("import-lava the jobs' logs instead", proc.stderr)
        self.assertFalse(os.path.exists(self.db))

    def test_a_tcg_job_is_another_series(self):
        """An import has no accelerator in its config (LAVA's template
        picks it): the guest's CPUID hypervisor signature says which, so
        a TCG job of the worker is not mixed into its KVM series."""
        doc = json.load(open(RUN1))
        doc["config"]["accel"] = None
        key, fields = runlevel.series_key(doc)
        self.assertEqual(fields["method.accel"], "kvm")
        for boot in doc["boots"]:
            boot["run"]["hypervisor"] = "TCGTCGTCGTCG"
        other, fields = runlevel.series_key(doc)
        self.assertEqual(fields["method.accel"], "tcg")
        self.assertNotEqual(key, other)
        doc["boots"][0]["run"]["hypervisor"] = "KVMKVMKVM"
        self.assertIsNone(runlevel.series_key(doc)[1]["method.accel"])


class Export(Tmp):
    def test_csv_in_otava_form(self):
        stepped_history(self.db)
        out = os.path.join(self.dir, "h.csv")
        proc = trapmeter("history", "export", "--db", self.db, "--csv", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table = otava_csv(self, out)
        self.assertIn("exits/pio.user/cycles_per_op", table[0])
        self.assertEqual(len(table), 13)
        self.assertEqual(table[1][:2], ["2026-12-03 10:01:00 +0000",
                                        "c010000000000"])
        col = table[0].index("exits/pio.user/cycles_per_op")
        ratio = float(table[12][col]) / float(table[1][col])
        self.assertAlmostEqual(ratio, 1.10, delta=0.05)

    def test_openmetrics_text(self):
        stepped_history(self.db)
        out = os.path.join(self.dir, "h.om")
        proc = trapmeter("history", "export", "--db", self.db,
                         "--openmetrics", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        text = open(out).read()
        self.assertTrue(text.endswith("# EOF\n"))
        self.assertIn("# TYPE trapmeter_cycles_per_op gauge\n", text)
        samples = [line for line in text.splitlines()
                   if line.startswith("trapmeter_cycles_per_op{")
                   and 'case="pio.user"' in line]
        self.assertEqual(len(samples), 12)
        stamps = [int(s.rsplit(" ", 1)[1]) for s in samples]
        self.assertEqual(stamps, sorted(set(stamps)))
        self.assertEqual(stamps[0], history_export.epoch(
            "2026-12-03T10:01:00Z"))

    def test_openmetrics_follows_the_grammar_with_odd_labels(self):
        """A case name with a quote, a backslash and a newline is one
        escaped label value; the text passes the spec's grammar (checked
        by hand too: prometheus_client's strict OpenMetrics parser and
        `promtool tsdb create-blocks-from openmetrics` read it)."""
        stepped_history(self.db, ide_cut=7)
        conn = historydb.open_db(self.db)
        conn.execute("UPDATE figures SET name = ? WHERE name = 'cpuid'",
                     ('we"ird\\case\nx',))
        conn.close()
        out = os.path.join(self.dir, "h.om")
        proc = trapmeter("history", "export", "--db", self.db,
                         "--openmetrics", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        text = open(out).read()
        families = validate_openmetrics(self, text)
        self.assertEqual(sorted(families), ["trapmeter_cycles_per_op",
                                            "trapmeter_exits_per_op"])
        self.assertIn('case="we\\"ird\\\\case\\nx"}', text)

    def test_boots_json_is_what_the_simulation_reads(self):
        """A history's boots in the simulation's form: its watch-null
        (the CUSUM's threshold, measured) runs on them.  Recorded: the
        43 runs of tests/fixtures/kvm-history-aa.json, added from their
        results files, exported as that fixture byte for byte in boots."""
        key = stepped_history(self.db, runs=30, step_at=99, ide_cut=20)
        out = os.path.join(self.dir, "boots.json")
        proc = trapmeter("history", "export", "--db", self.db,
                         "--boots-json", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("history: --boots-json: ide/disk.seq/cycles_per_op"
                      "[bytes=4194304] left out: a figure in runs 1-19 of 30 "
                      "only", proc.stderr)
        doc = json.load(open(out))
        self.assertEqual((doc["kind"], doc["series"], len(doc["runs"])),
                         ("history-boots", key, 30))
        self.assertEqual(doc["cases"], {
            "exits/cpuid": {"handler": "kernel"},
            "exits/pio.kernel": {"handler": "kernel"},
            "exits/pio.user": {"handler": "user"}})
        conn = historydb.open_db(self.db)
        (host,) = historydb.hosts(conn)
        stored = historydb.figures_of(conn, host)
        run = historydb.runs_of(conn, host)[4]["id"]
        conn.close()
        cyc = stored[("exits", "pio.user", "cycles_per_op", "")]["runs"]
        self.assertEqual([b["exits/pio.user"] for b in
                          doc["runs"][4]["boots"]],
                         [[c, 1.0 if i == 0 else None] for i, c in
                          enumerate(cyc[run][3])])
        sim = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tests", "host",
                                          "history_simulation.py"),
             "--fixture", out, "--parts", "watch-null", "--series", "3"],
            capture_output=True, text=True, timeout=300)
        self.assertEqual(sim.returncode, 0, sim.stderr)
        self.assertIn("model of 30 runs: 3 cases (1 QEMU-exit)", sim.stdout)
        self.assertRegex(sim.stdout, r"replay +A/A, the largest CUSUM .* "
                         r"\(share above 7: \d of 3\)")
        proc = trapmeter("history", "export", "--db", self.db,
                         "--boots-json", out, "--case", "disk.seq")
        self.assertEqual(proc.returncode, BAD, proc.stderr)
        self.assertIn("--boots-json: no case has a figure in every run",
                      proc.stderr)

    def test_export_needs_a_format(self):
        stepped_history(self.db)
        proc = trapmeter("history", "export", "--db", self.db)
        self.assertEqual(proc.returncode, BAD)

    def test_dates(self):
        self.assertEqual(history_export.epoch("1970-01-02"), 86400)
        self.assertEqual(history_export.epoch("1970-01-01T01:00:00+01:00"),
                         0)
        self.assertIsNone(history_export.epoch("2026-13-01"))
        self.assertIsNone(history_export.epoch("tuesday"))
        runs = [{"commit_date": "1970-01-01T00:00:10Z"},
                {"commit_date": "1970-01-01T00:00:10Z"}, {"added": None}]
        self.assertEqual(history_export.stamps(runs), [10, 11, 12])


class FingerprintFrom(Tmp):
    def test_an_import_without_fingerprint_takes_one_given(self):
        stripped = edited(RUN7, os.path.join(self.dir, "lava.json"),
                          lambda d: d["host"].pop("fingerprint"))
        proc = self.add(stripped)
        self.assertEqual(proc.returncode, UNUSABLE)
        self.assertIn("--fingerprint-from", proc.stderr)
        self.assertEqual(self.add(RUN1).returncode, 0)
        proc = self.add("--fingerprint-from", RUN1, stripped)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        conn = historydb.open_db(self.db)
        self.assertEqual(len(historydb.hosts(conn)), 1)
        conn.close()


if __name__ == "__main__":
    unittest.main()
