"""tests/host/test_hostile.py - the runner and the parser against a hostile
user and a hostile guest (issue 12): special-file outputs, a full disk,
bad options, corrupted and forged serial logs, floods, signals and kills.
Every probe must end with a named error and a documented exit status:
never a traceback, a hang, a replaced device node, an orphaned process or
an exit status 0 for a run that lost data.

Serial logs come from real TCG runs (tests/fixtures/serial-tcg-*.log, see
tests/fixtures/README.md); forged variants recompute the end record's count
and CRC so that only the property under test is wrong.  Device nodes are
private copies made with mknod (root); the probes that need root say so."""

import json
import os
import re
import resource
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "trapmeter")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
OK_LOG = os.path.join(FIXTURES, "serial-tcg-ok.log")
FAILED_LOG = os.path.join(FIXTURES, "serial-tcg-check-failed.log")
sys.path.insert(0, os.path.join(ROOT, "tools"))

from trapmeterlib.guest import dump as dumpmod  # noqa: E402
from trapmeterlib.system import children, privdir  # noqa: E402
from tests.boot.common import pid_gone  # noqa: E402
from tests.host import incli  # noqa: E402
from tests.host.dumpseal import crc_of_lines  # noqa: E402

FAKE_HEADER = """\
import os, sys, time
if "--version" in sys.argv:
    print("QEMU emulator version 7.2.99 (fake)")
    sys.exit(0)
out = sys.stdout.buffer
"""
IS_ROOT = os.geteuid() == 0


def read_log(path):
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8").replace("\r\n", "\n").split("\n")


def forge(lines):
    """Recompute the end record's count and CRC over the @tm lines before
    it, so a forged log passes the integrity check."""
    out, texts = [], []
    for line in lines:
        if line.startswith("@tm "):
            text = line[4:]
            obj = json.loads(text) if text.startswith('{"type":"end"') else None
            if obj is not None:
                obj.update(lines=len(texts), crc32=crc_of_lines(texts))
                line = "@tm " + json.dumps(obj, separators=(",", ":"))
            else:
                texts.append(text)
        out.append(line)
    return "\n".join(out).encode("utf-8")


def claim_ok(lines):
    """The human END line edited to say ok."""
    return [l.replace("END status=check-failed", "END status=ok")
            for l in lines]


def replace_tm(lines, kind, fn):
    """Apply fn(dict) -> dict to every @tm record of the given type."""
    out = []
    for line in lines:
        if line.startswith('@tm {"type":"%s"' % kind):
            line = "@tm " + json.dumps(fn(json.loads(line[4:])),
                                       separators=(",", ":"))
        out.append(line)
    return out


class Cli(unittest.TestCase):
    """tools/trapmeter in a private directory: cli.main in this process
    (tests/host/incli.py), or the tool started as a process where the
    probe is about the process (SPAWN, or spawn=True)."""
    SPAWN = False

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tm-hostile-")
        self.addCleanup(subprocess.run, ["rm", "-rf", self.tmp])

    def path(self, name):
        return os.path.join(self.tmp, name)

    def cli(self, *args, env=None, timeout=60, spawn=None):
        full_env = dict(os.environ)
        full_env.update(env or {})
        if spawn or (spawn is None and self.SPAWN):
            proc = subprocess.run([sys.executable, TOOL] + list(args),
                                  cwd=self.tmp, capture_output=True,
                                  text=True, timeout=timeout, env=full_env,
                                  check=False)
        else:
            proc = incli.run(args, cwd=self.tmp, env=full_env,
                             timeout=timeout)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertNotIn("internal error", proc.stderr)
        return proc

    def write(self, name, data, mode=0o644):
        with open(self.path(name), "wb") as fh:
            fh.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(self.path(name), mode)
        return self.path(name)

    def fake(self, name, body):
        return self.write(name, "#!%s\n%s%s" % (sys.executable, FAKE_HEADER,
                                                textwrap.dedent(body)), 0o755)

    def good_fake(self, name="goodqemu"):
        """A fake QEMU that replays the real OK log and exits like QEMU."""
        return self.fake(name, """
            with open(%r, "rb") as fh:
                out.write(fh.read())
            out.flush()
            sys.exit(1)
            """ % OK_LOG)

    def run_fake(self, fake, *args, env=None, timeout=60, spawn=None):
        return self.cli("run", "--no-build", "--accel", "tcg", "--qemu", fake,
                        *args, env=env, timeout=timeout, spawn=spawn)

    def node(self, name, minor):
        """A private character device (1, minor): 3 null, 7 full."""
        if not IS_ROOT:
            self.skipTest("mknod of a device node needs root")
        path = self.path(name)
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        return path

    def assert_char_device(self, path):
        self.assertTrue(stat.S_ISCHR(os.lstat(path).st_mode),
                        "%s was replaced by a regular file" % path)

    def parse(self, data, *args):
        log = self.write("forged.log", data)
        return self.cli("parse", log, *args)


# ---------------------------------------------------------------- item 1

class SpecialFileOutputs(Cli):
    """--json/--log/--junit/--markdown onto devices, FIFOs, symlinks and
    directories: written in place or refused by name, never replaced."""

    def test_parse_json_onto_device_node(self):
        null = self.node("null", 3)
        proc = self.cli("parse", OK_LOG, "--json", null)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_char_device(null)

    def test_run_outputs_onto_device_nodes(self):
        null = self.node("null", 3)
        proc = self.run_fake(self.good_fake(), "--json", null, "--log", null,
                             "--junit", null)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_char_device(null)

    def test_compare_outputs_onto_device_node(self):
        null = self.node("null", 3)
        proc = self.cli("compare", os.path.join(FIXTURES, "tcg-ab-aa-a.json"),
                        os.path.join(FIXTURES, "tcg-ab-aa-b.json"), "--json", null,
                        "--markdown", null, "--junit", null)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_char_device(null)

    def test_fifo_without_reader_is_a_named_error_not_a_hang(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        started = time.monotonic()
        proc = self.cli("parse", OK_LOG, "--json", fifo, timeout=20)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("no reader", proc.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        proc = self.run_fake(self.good_fake(), "--log", fifo, timeout=20)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--log", proc.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_fifo_with_reader_gets_the_json(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
        try:
            time.sleep(0.2)
            proc = self.cli("parse", OK_LOG, "--json", fifo, timeout=20)
            got = reader.communicate(timeout=20)[0]
        finally:
            reader.kill()
            reader.wait()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(json.loads(got)["tool"], "trapmeter")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_symlink_stays_a_symlink(self):
        target = self.write("real.json", b"")
        link = self.path("link.json")
        os.symlink("real.json", link)
        proc = self.cli("parse", OK_LOG, "--json", link)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.islink(link))
        with open(target, encoding="utf-8") as fh:
            self.assertEqual(json.load(fh)["tool"], "trapmeter")

    def test_directory_is_refused_by_name(self):
        os.mkdir(self.path("adir"))
        proc = self.cli("parse", OK_LOG, "--json", self.path("adir"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("directory", proc.stderr)
        self.assertTrue(os.path.isdir(self.path("adir")))


# ---------------------------------------------------------------- items 4, 5

class DiskFull(Cli):

    def test_unwritable_log_is_named_and_results_are_kept(self):
        full = self.node("full", 7)
        proc = self.run_fake(self.good_fake(), "--log", full)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("cannot write --log", proc.stderr)
        self.assertIn("No space left on device", proc.stderr)
        with open(self.path("results.json"), encoding="utf-8") as fh:
            doc = json.load(fh)
        self.assertTrue(doc["boots"][0]["results"], "results were lost")
        self.assert_char_device(full)

    def test_full_disk_preparing_qemu_files_is_status_5(self):
        if not IS_ROOT:
            self.skipTest("mounting a small tmpfs needs root")
        small = self.path("small")
        os.mkdir(small)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs",
                        small], check=True)
        self.addCleanup(subprocess.run, ["umount", small])
        proc = self.run_fake(self.good_fake(), "--suite", "ide",
                             env={"TMPDIR": small})
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertIn("cannot prepare QEMU's files", proc.stderr)
        self.assertIn("No space left on device", proc.stderr)


# ---------------------------------------------------------------- item 3

class BadOptions(Cli):

    def test_over_long_kernel_command_line_is_refused(self):
        words = " ".join("key%d=%d" % (i, i % 90 + 10) for i in range(60))
        proc = self.run_fake(self.good_fake(), "--cmdline", words)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertRegex(proc.stderr, r"kernel command line is \d+ bytes; "
                         r"the guest keeps at most 511")


# ---------------------------------------------------------------- items 6, 7, 9, 10

class CorruptedLogs(Cli):

    def test_deep_nesting_is_refused_with_the_line(self):
        lines = read_log(OK_LOG)
        at = next(i for i, l in enumerate(lines) if l.startswith('@tm {"type":"case"'))
        lines.insert(at, '@tm {"type":"x","v":' + "[" * 990 + "]" * 990 + "}")
        proc = self.parse(forge(lines), "--json", self.path("r.json"))
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertRegex(proc.stderr, r"@tm line \d+ refused: nesting deeper than")

    def test_out_of_range_number_is_refused_and_json_stays_valid(self):
        lines = replace_tm(read_log(OK_LOG), "result",
                           lambda r: dict(r, cycles_per_unit="@@"))
        data = forge(lines).replace(b'"@@"', b"1e999")
        proc = self.parse(data, "--json", self.path("r.json"))
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("number 1e999 out of range", proc.stderr)
        with open(self.path("r.json"), encoding="utf-8") as fh:
            text = fh.read()
        json.loads(text, parse_constant=lambda c: self.fail("bare " + c))
        self.assertNotIn("infG", proc.stdout)

    def test_edited_end_line_does_not_make_a_failed_run_ok(self):
        proc = self.parse("\n".join(claim_ok(read_log(FAILED_LOG))).encode())
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("sealed status", proc.stderr)

    def test_edited_status_record_breaks_the_crc(self):
        lines = claim_ok(replace_tm(read_log(FAILED_LOG), "status",
                                    lambda r: dict(r, status="ok")))
        proc = self.parse("\n".join(lines).encode())
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("CRC32 mismatch", proc.stderr)

    def test_forged_ok_with_a_failed_check_never_exits_0(self):
        lines = replace_tm(read_log(FAILED_LOG), "status",
                           lambda r: dict(r, status="ok", checks_failed=0))
        lines = claim_ok(replace_tm(lines, "end",
                                    lambda r: dict(r, status="ok")))
        proc = self.parse(forge(lines))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("hook.fail_check", proc.stderr)

    def test_dropped_line_never_exits_0(self):
        lines = read_log(OK_LOG)
        at = next(i for i, l in enumerate(lines) if l.startswith('@tm {"type":"status"'))
        lines.insert(at, "@tm " + dumpmod.json.dumps(
            {"type": "error", "kind": "internal",
             "message": "machine line too long: dropped"}))
        proc = self.parse(forge(lines))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("dropped", proc.stderr)

    def test_schema_2_without_status_record_is_garbled(self):
        lines = [l for l in read_log(OK_LOG)
                 if not l.startswith('@tm {"type":"status"')]
        proc = self.parse(forge(lines))
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("without its status record", proc.stderr)

    def test_schema_1_failed_check_with_end_ok_exits_1(self):
        lines = [l for l in read_log(FAILED_LOG)
                 if not l.startswith('@tm {"type":"status"')]
        lines = claim_ok(replace_tm(lines, "run", lambda r: dict(r, schema=1)))
        proc = self.parse(forge(lines))
        self.assertEqual(proc.returncode, 1, proc.stderr)

    def test_control_characters_from_the_guest_are_escaped(self):
        evil = {"clear": "a\x1b[2Jb", "title": "\x1b]0;pwned\x07",
                "forge": "x\r\n  ok      forged.check  all good", "c1": "\x9b2J"}
        lines = read_log(OK_LOG)
        at = next(i for i, l in enumerate(lines) if l.startswith('@tm {"type":"status"'))
        for name, text in evil.items():
            lines.insert(at, "@tm " + json.dumps(
                {"type": "check", "name": text, "ok": True, "detail": text}))
        lines.insert(at, "@tm " + json.dumps(
            {"type": "skip", "suite": "pio", "case": "\x1b[31mred",
             "reason": "bell\x07"}))
        proc = self.parse(forge(lines), "--json", self.path("r.json"))
        out = proc.stdout + proc.stderr
        for bad in ("\x1b", "\x07", "\r", "\x9b"):
            self.assertNotIn(bad, out)
        self.assertFalse(re.search(r"^\s*ok\s+forged", out, re.M),
                         "a forged line reached the terminal:\n" + out)
        self.assertIn("\\x1b[2J", proc.stdout)


class TscFigures(Cli):
    """A guessed TSC frequency is said loudly and marks the time figures;
    a PM-timer cross-check more than 2 % away is a warning."""

    def tsc_log(self, **tsc):
        lines = replace_tm(read_log(OK_LOG), "run",
                           lambda r: dict(r, tsc=dict(r["tsc"], **tsc)))
        return self.parse(forge(lines))

    def test_guess_is_loud_and_marks_ns(self):
        proc = self.tsc_log(guess=True, source="assumed-1GHz", khz=1000000)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("TSC FREQUENCY IS A GUESS (assumed-1GHz", proc.stderr)
        self.assertIn("tsc assumed-1GHz 1000000 kHz (GUESS)", proc.stdout)
        rows = [l for l in proc.stdout.splitlines()     # the table's rows
                if l.strip().startswith("fwcfg.in8.")]
        self.assertTrue(rows and all(l.rstrip().endswith("?") for l in rows))

    def test_check_disagreement_warns(self):
        proc = self.tsc_log(check={"source": "acpi-pm", "khz": 1, "ms": 50,
                                   "diff_ppm": 30000, "disagree": True,
                                   "replaced_guess": False})
        self.assertIn("3.0 % apart, more than 2 %", proc.stderr)
        quiet = self.tsc_log(check={"source": "acpi-pm", "khz": 1, "ms": 50,
                                    "diff_ppm": 15000, "disagree": False,
                                    "replaced_guess": False})
        self.assertNotIn("apart", quiet.stderr)
        self.assertNotIn("?", quiet.stdout.split("\n", 1)[1])


class CompareInputs(Cli):
    """compare reads results schema 1 and 2 (also mixed; their dumps of
    schema 1-3) and refuses the rest."""

    SCHEMA2 = os.path.join(FIXTURES, "tcg-schema2.json")

    def doc(self):
        with open(self.SCHEMA2, encoding="utf-8") as fh:
            return json.load(fh)

    def test_schema_1_against_schema_2(self):
        proc = self.cli("compare", os.path.join(FIXTURES, "tcg-base.json"),
                        self.SCHEMA2)
        self.assertIn(proc.returncode, (0, 10, 13), proc.stderr)
        self.assertIn("summary:", proc.stdout)

    def test_schema_3_dump_against_schema_2(self):
        """Compact result lines (dump schema 3, recorded from a real run)
        compare with schema-2 ones: the parser expands them on replay."""
        schema3 = os.path.join(FIXTURES, "tcg-schema3.json")
        with open(schema3, encoding="utf-8") as fh:
            doc = json.load(fh)
        self.assertEqual(doc["boots"][0]["run"]["schema"], 3)
        self.assertIn('"cycles":[', doc["boots"][0]["integrity"]["tm_lines"][3]
                      + "".join(doc["boots"][0]["integrity"]["tm_lines"]))
        proc = self.cli("compare", self.SCHEMA2, schema3)
        # read and compared; the two runs' sample plans differ (31 samples
        # against adaptive stopping), so the timing verdicts are refused
        self.assertEqual(proc.returncode, 13, proc.stderr)
        self.assertIn("summary:", proc.stdout)
        self.assertIn("samples per case differ", proc.stdout)
        proc = self.cli("parse", "--help")
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_edited_sealed_status_is_refused(self):
        doc = self.doc()
        doc["boots"][0]["dump"]["end"]["status"] = "check-failed"
        path = self.write("edited.json", json.dumps(doc))
        proc = self.cli("compare", self.SCHEMA2, path)
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("sealed status record", proc.stderr)

    def test_unknown_schema_is_refused(self):
        doc = self.doc()
        doc["schema"] = 99
        path = self.write("s3.json", json.dumps(doc))
        proc = self.cli("compare", self.SCHEMA2, path)
        self.assertEqual(proc.returncode, 11, proc.stderr)
        self.assertIn("schema 99", proc.stderr)

    def test_deep_and_infinite_inputs_are_refused(self):
        for name, text in (("deep.json", "[" * 5000 + "]" * 5000),
                           ("inf.json", '{"tool":"trapmeter","x":1e999}')):
            path = self.write(name, text)
            proc = self.cli("compare", self.SCHEMA2, path)
            self.assertEqual(proc.returncode, 11, proc.stderr)


# ---------------------------------------------------------------- item 11

class Floods(Cli):

    def test_no_newline_flood_is_linear_and_bounded(self):
        parser = dumpmod.DumpParser()
        parser.feed(b"trapmeter 0.1.0 START\n")
        chunk = b"x" * 65536
        started = time.process_time()   # CPU: other tenants add no time
        for _ in range(256):                    # 16 MiB without a newline
            parser.feed(chunk)
        self.assertLess(time.process_time() - started, 2.0)
        self.assertLessEqual(len(parser._partial), dumpmod.MAX_LINE)
        dump = parser.finish()
        self.assertIn("guest output flood", " ".join(dump.problems))

    def test_console_text_is_capped(self):
        parser = dumpmod.DumpParser()
        parser.feed(b"trapmeter 0.1.0 START\n")
        line = b"y" * 99 + b"\n"
        for _ in range(dumpmod.HUMAN_KEEP_BYTES // 100 * 2 // 1000):
            parser.feed(line * 1000)
        dump = parser.finish()
        kept = sum(len(t) + 1 for t in dump.human_lines)
        self.assertLessEqual(kept, dumpmod.HUMAN_KEEP_BYTES)
        self.assertIn("more than %d bytes of console text"
                      % dumpmod.HUMAN_KEEP_BYTES, " ".join(dump.problems))

    def test_flooding_qemu_is_stopped_with_a_named_error(self):
        fake = self.fake("flood", """
            out.write(b"trapmeter 0.1.0 START\\n")
            block = b"z" * 65536
            while True:
                out.write(block)
            """)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        started = time.monotonic()
        proc = self.run_fake(fake, "--timeout", "120", timeout=100)
        self.assertLess(time.monotonic() - started, 30)
        self.assertEqual(proc.returncode, 6, proc.stderr)
        self.assertIn("guest output flood", proc.stderr)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.assertLess(max(before, after), 400 * 1024, "runner RSS (KiB)")


# ---------------------------------------------------------------- item 8

def kill_quietly(*pids):
    """Cleanup after a failed probe: no process of a test survives it."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class SignalsAndKills(Cli):

    def sleepy_fake(self, name="sleepy", fork=False):
        """A fake QEMU that records its PID (and, with fork, a child's) and
        sleeps forever."""
        body = """
            with open(%r, "w") as fh:
                fh.write("%%d\\n" %% os.getpid())
            if %r:
                kid = os.fork()
                if kid == 0:
                    while True:
                        time.sleep(3600)
                with open(%r, "w") as fh:
                    fh.write("%%d\\n" %% kid)
            out.write(b"trapmeter 0.1.0 START\\n")
            out.flush()
            while True:
                time.sleep(3600)
            """ % (self.path(name + ".pid"), fork, self.path(name + ".kid"))
        return self.fake(name, body)

    def start_runner(self, fake, env=None):
        full_env = dict(os.environ, TMPDIR=self.tmp, **(env or {}))
        runner = subprocess.Popen(
            [sys.executable, TOOL, "run", "--no-build", "--accel", "tcg",
             "--qemu", fake, "--timeout", "300"], cwd=self.tmp, env=full_env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: (runner.poll() is None and runner.kill(),
                                 runner.communicate()))
        pidfile = fake + ".pid"
        end = time.monotonic() + 20
        while not (os.path.exists(pidfile) and open(pidfile).read().strip()):
            self.assertLess(time.monotonic(), end, "fake QEMU never started")
            time.sleep(0.05)
        time.sleep(0.3)
        return runner, int(open(pidfile).read())

    def private_dirs(self):
        return [n for n in os.listdir(self.tmp) if privdir.NAME_RE.match(n)]

    def test_sigkill_of_the_runner_kills_qemu(self):
        runner, qemu_pid = self.start_runner(self.sleepy_fake())
        self.addCleanup(kill_quietly, qemu_pid)
        self.assertEqual(len(self.private_dirs()), 1)
        runner.kill()
        runner.wait()
        self.assertTrue(pid_gone(qemu_pid, 5), "QEMU outlived the runner")
        # the dead run's private dir is removed by the next run
        self.assertEqual(len(self.private_dirs()), 1)
        proc = self.run_fake(self.good_fake(), env={"TMPDIR": self.tmp})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("left by a dead run", proc.stderr)
        self.assertEqual(self.private_dirs(), [])

    def test_sigterm_stops_qemu_and_its_group(self):
        runner, qemu_pid = self.start_runner(self.sleepy_fake(fork=True))
        kid = int(open(self.path("sleepy.kid")).read())
        self.addCleanup(kill_quietly, qemu_pid, kid)
        runner.send_signal(signal.SIGTERM)
        self.assertEqual(runner.wait(timeout=20), 130)
        self.assertTrue(pid_gone(qemu_pid, 5))
        self.assertTrue(pid_gone(kid, 5), "a wrapper's child outlived the run")
        with open(self.path("results.json"), encoding="utf-8") as fh:
            self.assertEqual(json.load(fh)["status"], "interrupted")

    def test_live_runs_dirs_are_kept(self):
        mine = os.path.join(self.tmp, "trapmeter-%d-keep" % os.getpid())
        os.mkdir(mine)
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = os.path.join(self.tmp, "trapmeter-%d-gone" % dead.pid)
        os.mkdir(stale)
        removed = privdir.remove_stale(self.tmp)
        self.assertTrue(os.path.isdir(mine))
        if privdir.pid_alive(dead.pid):     # PID reused meanwhile: kept
            self.assertEqual(removed, [])
        else:
            self.assertEqual(removed, [stale])

    def test_spawn_helper_child_dies_with_its_parent(self):
        """children.spawn from a short-lived parent process."""
        pidfile = self.path("grandchild.pid")
        code = textwrap.dedent("""
            import sys, time
            sys.path.insert(0, %r)
            from trapmeterlib.system import children
            proc = children.spawn(["sleep", "300"])
            open(%r, "w").write(str(proc.pid))
            time.sleep(300)
            """ % (os.path.join(ROOT, "tools"), pidfile))
        parent = subprocess.Popen([sys.executable, "-c", code])
        end = time.monotonic() + 10
        while not (os.path.exists(pidfile) and open(pidfile).read()):
            self.assertLess(time.monotonic(), end)
            time.sleep(0.05)
        pid = int(open(pidfile).read())
        parent.kill()
        parent.wait()
        self.assertTrue(pid_gone(pid, 5), "spawned child outlived its parent")

    def test_stop_kills_the_group(self):
        proc = children.spawn(["sh", "-c", "sleep 300 & sleep 300"])
        members = []
        end = time.monotonic() + 5
        while len(members) < 3 and time.monotonic() < end:
            out = subprocess.run(["pgrep", "-g", str(proc.pid)],
                                 capture_output=True, text=True)
            members = [int(p) for p in out.stdout.split()]
            time.sleep(0.05)
        self.addCleanup(kill_quietly, *members)
        # the shell and its two sleeps, seen before the stop: an empty
        # list would let a stop that kills nothing pass
        self.assertGreaterEqual(len(members), 3, members)
        children.stop(proc, 0.5)
        for pid in members:                 # zombies awaiting init count
            self.assertTrue(pid_gone(pid, 5), "group member %d lives" % pid)


if __name__ == "__main__":
    unittest.main()
