"""tests/host/test_hostile_io.py - hostile input, round two (issue 27): the
outputs a command writes and the inputs it reads.

- One output rule: an output may not be an input of the same command nor
  another output of it (a named error before any work); outputs are
  written atomically and only when there is something to write.
- A run stopped by SIGINT, SIGTERM or SIGHUP writes the boots it completed
  and says so; two runs on one --log do not tear it.
- Every reader is a stream with a cap: /dev/zero and /dev/urandom end in a
  named error within seconds and in little memory.
- A broken stdout or an output that is a directory is a named error.

Every probe drives tools/trapmeter as a subprocess with a fake QEMU (no
boot at all)."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests.boot.common import pid_gone
from tests.host.test_hostile import (FIXTURES, IS_ROOT, OK_LOG, TOOL, Cli,
                                     kill_quietly)
from trapmeterlib.backends import testpmd
from trapmeterlib.guest import dump
from trapmeterlib.system import inputfile, privdir

SCHEMA2 = os.path.join(FIXTURES, "tcg-schema2.json")
BASE = os.path.join(FIXTURES, "tcg-base.json")
KEEP = b"an earlier file the user wants kept\n"


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


class OutputRule(Cli):
    """An output that is an input, or two outputs on one path: refused by
    name before any work, and nothing on disk changes."""

    def assert_refused(self, proc, *kept):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertRegex(proc.stderr, r"is also (an input|the output of)")
        for path, data in kept:
            self.assertEqual(read(path), data, "%s was changed" % path)

    def test_parse_json_onto_its_log(self):
        log = self.write("L.log", read(OK_LOG))
        proc = self.cli("parse", "--json", log, log)
        self.assert_refused(proc, (log, read(OK_LOG)))

    def test_parse_json_onto_its_log_by_another_name(self):
        log = self.write("L.log", read(OK_LOG))
        os.symlink("L.log", self.path("alias.json"))
        proc = self.cli("parse", "--json", self.path("alias.json"), log)
        self.assert_refused(proc, (log, read(OK_LOG)))

    def test_compare_json_onto_an_input(self):
        doc = self.write("A.json", read(SCHEMA2))
        proc = self.cli("compare", doc, doc, "--json", doc)
        self.assert_refused(proc, (doc, read(SCHEMA2)))

    def test_compare_markdown_and_json_on_one_path(self):
        out = self.write("X", KEEP)
        proc = self.cli("compare", BASE, SCHEMA2, "--markdown", out,
                        "--json", out)
        self.assert_refused(proc, (out, KEEP))

    def test_import_lava_json_onto_its_input(self):
        log = self.write("in.log", read(OK_LOG))
        proc = self.cli("import-lava", "--json", log, log)
        self.assert_refused(proc, (log, read(OK_LOG)))

    def test_run_json_and_log_on_one_path(self):
        out = self.write("X", KEEP)
        proc = self.run_fake(self.good_fake(), "--json", out, "--log", out)
        self.assert_refused(proc, (out, KEEP))
        self.assertNotIn("suite pio", proc.stderr, "the run booted")

    def test_run_json_and_junit_on_one_path(self):
        out = self.write("X", KEEP)
        proc = self.run_fake(self.good_fake(), "--json", out, "--junit", out)
        self.assert_refused(proc, (out, KEEP))

    def test_run_plan_is_not_an_output(self):
        plan = self.write("plan.json", read(SCHEMA2))
        proc = self.run_fake(self.good_fake(), "--plan", plan, "--json", plan)
        self.assert_refused(proc, (plan, read(SCHEMA2)))

    def test_ab_a_and_b_json_on_one_path(self):
        out = self.write("X", KEEP)
        proc = self.cli("ab", "--no-build", "--a-json", out, "--b-json", out,
                        "--accel", "tcg", "--qemu", self.good_fake())
        self.assert_refused(proc, (out, KEEP))

    def test_one_device_for_every_output_is_allowed(self):
        proc = self.cli("parse", OK_LOG, "--json", os.devnull)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = self.run_fake(self.good_fake(), "--json", os.devnull,
                             "--log", os.devnull, "--junit", os.devnull)
        self.assertEqual(proc.returncode, 0, proc.stderr)


class OptionErrorKeepsOutputs(Cli):
    """An option error before the first boot leaves an existing --json
    as it was: there is nothing to write."""

    def check(self, *args, code=2):
        out = self.write("keep.json", KEEP)
        proc = self.run_fake(self.good_fake(), "--json", out, *args)
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertEqual(read(out), KEEP, "an option error replaced --json")

    def test_repeat_0(self):
        self.check("--repeat", "0")

    def test_timeout_0(self):
        self.check("--timeout", "0")

    def test_pin_cpu_99(self):
        self.check("--pin-cpu", "99")

    def test_missing_qemu(self):
        out = self.write("keep.json", KEEP)
        proc = self.cli("run", "--no-build", "--accel", "tcg", "--qemu",
                        self.path("nonexistent"), "--json", out)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertEqual(read(out), KEEP)

    def test_a_failed_boot_still_writes_json(self):
        """The promise "written even on failure" holds once a boot ran."""
        fake = self.fake("dies", "sys.exit(1)\n")
        out = self.write("keep.json", KEEP)
        proc = self.run_fake(fake, "--json", out)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        self.assertEqual(json.loads(read(out))["status"], "qemu-error")


class AtomicLog(Cli):

    def test_full_filesystem_keeps_the_old_log(self):
        if not IS_ROOT:
            self.skipTest("mounting a small tmpfs needs root")
        small = self.path("small")
        os.mkdir(small)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs",
                        small], check=True)
        self.addCleanup(subprocess.run, ["umount", small])
        old = os.path.join(small, "boot.log")
        with open(old, "wb") as fh:
            fh.write(KEEP)
        fake = self.fake("big", """
            with open(%r, "rb") as fh:
                log = fh.read()
            start = log.index(b"trapmeter 0.1.0 START")
            out.write(log[:start] + b"firmware noise\\n" * 3000 + log[start:])
            out.flush()
            sys.exit(1)
            """ % OK_LOG)
        proc = self.run_fake(fake, "--log", old)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("cannot write --log", proc.stderr)
        self.assertEqual(read(old), KEEP, "a full disk replaced the old log")
        self.assertEqual(os.listdir(small), ["boot.log"], "temp file left")

    def test_log_dir_and_repeat_names_per_boot(self):
        """--log DIR/ --repeat 2: the help promises DIR/serial.bootI.log,
        never hidden DIR/.bootI files."""
        os.mkdir(self.path("logs"))
        proc = self.run_fake(self.good_fake(), "--log",
                             self.path("logs") + "/", "--repeat", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        names = sorted(os.listdir(self.path("logs")))
        self.assertFalse([n for n in names if n.startswith(".")], names)
        self.assertEqual(names, ["serial.boot0.log", "serial.boot1.log"])

    def test_log_with_repeat_is_file_boot_i(self):
        proc = self.run_fake(self.good_fake(), "--log", self.path("s.log"),
                             "--repeat", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(n for n in os.listdir(self.tmp)
                                if n.startswith("s.")),
                         ["s.boot0.log", "s.boot1.log"])


class ConcurrentLog(Cli):
    """The first run's QEMU holds the log half written until the second
    run has been refused (an event, not a time: a loaded host may take
    seconds to start the second run)."""

    def test_second_run_on_one_log_is_refused(self):
        fake = self.fake("slow", """
            with open(%r, "rb") as fh:
                log = fh.read()
            half = len(log) // 2
            out.write(log[:half])
            out.flush()
            open(%r, "w").close()
            end = time.monotonic() + 60
            while not os.path.exists(%r) and time.monotonic() < end:
                time.sleep(0.05)
            out.write(log[half:])
            out.flush()
            sys.exit(1)
            """ % (OK_LOG, self.path("started"), self.path("release")))
        shared = self.path("shared.log")
        first = subprocess.Popen(
            [sys.executable, TOOL, "run", "--no-build", "--accel", "tcg",
             "--qemu", fake, "--log", shared, "--json",
             self.path("first.json")], cwd=self.tmp,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: first.poll() is None and first.kill())
        end = time.monotonic() + 20
        while not os.path.exists(self.path("started")):
            self.assertLess(time.monotonic(), end)
            time.sleep(0.05)
        second = self.run_fake(self.good_fake(), "--log", shared, "--json",
                               self.path("second.json"))
        open(self.path("release"), "w").close()
        out, err = first.communicate(timeout=90)
        self.assertEqual(first.returncode, 0, err)
        self.assertEqual(second.returncode, 2, second.stderr)
        self.assertIn("another run", second.stderr)
        self.assertIn("--log", second.stderr)
        self.assertEqual(read(shared).replace(b"\r\n", b"\n"),
                         read(OK_LOG).replace(b"\r\n", b"\n"))


def signals_default():
    """The runner keeps a SIGHUP or SIGINT its caller ignores (nohup, a
    shell's background job, a detached `make test`); the probes want them
    delivered."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class InterruptedRepeat(Cli):
    """A signal during `run --repeat 5` (boot 3 hangs) keeps boots 1-2."""

    def hang_third(self):
        return self.fake("third", """
            count = %r
            n = int(open(count).read()) if os.path.exists(count) else 0
            open(count, "w").write(str(n + 1))
            if n == 2:
                open(%r, "w").write(str(os.getpid()))
                while True:
                    time.sleep(3600)
            with open(%r, "rb") as fh:
                out.write(fh.read())
            out.flush()
            sys.exit(1)
            """ % (self.path("count"), self.path("hung"), OK_LOG))

    def interrupt(self, signum):
        runner = subprocess.Popen(
            [sys.executable, TOOL, "run", "--no-build", "--accel", "tcg",
             "--qemu", self.hang_third(), "--repeat", "5", "--junit",
             self.path("j.xml")], cwd=self.tmp, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, preexec_fn=signals_default)
        self.addCleanup(lambda: runner.poll() is None and runner.kill())
        end = time.monotonic() + 30
        while not os.path.exists(self.path("hung")):
            self.assertLess(time.monotonic(), end, "boot 3 never started")
            time.sleep(0.05)
        time.sleep(0.2)
        runner.send_signal(signum)
        _out, err = runner.communicate(timeout=30)
        self.assertEqual(runner.returncode, 130, err)
        self.assertNotIn("Traceback", err)
        doc = json.loads(read(self.path("results.json")))
        self.assertEqual(doc["status"], "interrupted")
        done = [b for b in doc["boots"] if b["results"]]
        self.assertEqual(len(done), 2, "completed boots were not written")
        self.assertIn("2 completed boot(s)", err)
        self.assertIn("results.json", err)
        self.assertTrue(os.path.exists(self.path("j.xml")), "--junit lost")

    def test_sighup(self):
        self.interrupt(signal.SIGHUP)

    def test_sigint(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM)


# -X importtime's line for the host library's package, printed once its
# import is done (tools/trapmeter's handlers come before that import)
LIBRARY_IMPORT = re.compile(r"\|\s+trapmeterlib$", re.M)


class EarlySignals(Cli):
    """A signal while the host library imports: a named interruption.
    The delays start after the interpreter's own start-up (measured: a
    signal inside Python's site import is Python's, before the tool's
    first line); a run whose signal still fell there is not counted.
    Python runs with -X importtime, so stderr says whether the library's
    import had begun (tools/trapmeter installs its handlers before it):
    a run the signal's default action ended before that is not counted
    either, one it ended after is a failure."""

    def interpreter_start(self):
        times = []
        for _ in range(3):
            began = time.monotonic()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            times.append(time.monotonic() - began)
        return sorted(times)[1]

    def test_sigint_and_sigterm_during_start(self):
        base, counted = self.interpreter_start(), 0
        for signum in (signal.SIGINT, signal.SIGTERM):
            for extra in (0.02, 0.06, 0.12):
                proc = subprocess.Popen(
                    [sys.executable, "-X", "importtime", TOOL, "parse", OK_LOG],
                    cwd=self.tmp,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    preexec_fn=signals_default)
                time.sleep(base + extra)
                proc.send_signal(signum)
                _out, err = proc.communicate(timeout=30)
                if "init_import_site" in err:
                    continue        # still inside Python's own start-up
                if proc.returncode == -signum and not LIBRARY_IMPORT.search(err):
                    continue        # before the tool's first line (a loaded
                                    # host starts Python slower than `base`)
                counted += 1
                self.assertNotIn("Traceback", err)
                if proc.returncode != 0:    # the parse may finish first
                    self.assertEqual(proc.returncode, 130, err)
                    self.assertIn("interrupted", err)
        self.assertGreater(counted, 0, "every signal fell in Python's start")


def bounded(argv, seconds=30):
    """Run the CLI under a watchdog and a 2 GiB address-space limit (so a
    regression cannot take the machine's memory); (exit status, wall
    seconds, max RSS MiB of the CLI alone as its fresh parent sees it,
    stderr)."""
    code = (
        "import resource, subprocess, sys, time\n"
        "def cap():\n"
        "    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "t = time.monotonic()\n"
        "p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE,"
        " stdout=subprocess.DEVNULL, text=True, preexec_fn=cap)\n"
        "try:\n"
        "    err = p.communicate(timeout=%d)[1]\n"
        "except subprocess.TimeoutExpired:\n"
        "    p.kill()\n"
        "    err = 'watchdog: killed\\n' + p.communicate()[1]\n"
        "sys.stdout.write('%%d %%.3f %%d\\n' %% (p.returncode,"
        " time.monotonic() - t,"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
        "sys.stdout.write(err)\n" % seconds)
    proc = subprocess.run([sys.executable, "-c", code, sys.executable, TOOL]
                          + list(argv), capture_output=True, text=True,
                          timeout=seconds + 30, check=False)
    head, _, err = proc.stdout.partition("\n")
    rc, wall, rss = head.split()
    return int(rc), float(wall), int(rss) / 1024.0, err


def fed(argv, source, limit=1 << 30):
    """Run the CLI on a FIFO that a writer fills from source (a device such
    as /dev/zero) until the CLI closes it; (exit status, bytes the CLI took
    at most, stderr).  The count is exact up to one pipe buffer and one
    chunk in flight, and does not depend on how busy the host is, as a
    wall time would."""
    tmp = tempfile.mkdtemp(prefix="tm-fed-")
    fifo = os.path.join(tmp, "input")
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, TOOL] + argv(fifo),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    written = 0
    try:
        with open(fifo, "wb") as out, open(source, "rb") as src:
            while written < limit:
                out.write(src.read(1 << 16))
                written += 1 << 16
    except BrokenPipeError:
        pass
    finally:
        err = proc.communicate(timeout=120)[1]
        shutil.rmtree(tmp, ignore_errors=True)
    return proc.returncode, written, err


class BoundedReaders(unittest.TestCase):
    """Bound: each reader ends with a named error after a bounded read
    (the bytes it took from a FIFO, counted) and under a bounded RSS; a
    watchdog catches a hang.  No wall time is asserted: a busy host
    stretches it with no fault in the reader."""

    SLACK = 2 << 16         # one pipe buffer and one chunk in flight

    def test_parse_dev_zero(self):
        rc, _, rss, err = bounded(["parse", "/dev/zero"])
        self.assertEqual(rc, 6, err)
        self.assertLess(rss, 100)
        self.assertRegex(err, r"not a text file|too large|flood")
        rc, taken, err = fed(lambda f: ["parse", f], "/dev/zero")
        self.assertEqual(rc, 6, err)
        self.assertLessEqual(taken, dump.MAX_LINE + self.SLACK, err)

    def test_parse_dev_urandom(self):
        rc, _, rss, err = bounded(["parse", "/dev/urandom"])
        self.assertEqual(rc, 6, err)
        self.assertLess(rss, 200)
        self.assertRegex(err, r"not a text file|too large|"
                         r"without a START line")
        rc, taken, err = fed(lambda f: ["parse", f], "/dev/urandom")
        self.assertEqual(rc, 6, err)
        self.assertLessEqual(taken, dump.PRESTART_BYTES + self.SLACK, err)

    def test_compare_dev_zero(self):
        rc, _, rss, err = bounded(["compare", "/dev/zero", SCHEMA2])
        self.assertEqual(rc, 11, err)
        self.assertLess(rss, 400)
        self.assertIn("/dev/zero", err)
        self.assertNotIn("internal error", err)
        rc, taken, err = fed(lambda f: ["compare", f, SCHEMA2], "/dev/zero")
        self.assertEqual(rc, 11, err)
        self.assertLessEqual(taken, inputfile.CHUNK + self.SLACK, err)

    def test_import_lava_dev_zero(self):
        rc, _, rss, err = bounded(["import-lava", "--json", os.devnull,
                                   "/dev/zero"])
        self.assertEqual(rc, 2, err)
        self.assertLess(rss, 400)
        self.assertIn("/dev/zero", err)
        self.assertNotIn("internal error", err)
        rc, taken, err = fed(lambda f: ["import-lava", "--json", os.devnull,
                                        f], "/dev/zero")
        self.assertEqual(rc, 2, err)
        self.assertLessEqual(taken, inputfile.CHUNK + self.SLACK, err)


class BoundedPlan(Cli):

    def test_run_plan_dev_zero(self):
        started = time.monotonic()
        proc = self.run_fake(self.good_fake(), "--plan", "/dev/zero",
                             timeout=30)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("not a text file", proc.stderr)


class BrokenStdout(Cli):
    """stdout to /dev/full or closed: a named error, results kept."""

    def run_with_stdout(self, argv, stdout, close_stderr=False):
        env = dict(os.environ)
        proc = subprocess.run([sys.executable, TOOL] + argv, cwd=self.tmp,
                              stdout=stdout, stderr=(subprocess.DEVNULL
                                                     if close_stderr else
                                                     subprocess.PIPE),
                              env=env, timeout=60, check=False)
        return proc.returncode, (proc.stderr or b"").decode()

    def closed(self, argv, close_stderr=False):
        """Run with fd 1 (and maybe 2) closed."""
        code = ("import os, sys\n"
                "os.close(1)\n"
                + ("os.close(2)\n" if close_stderr else "") +
                "os.execv(sys.executable, [sys.executable] + sys.argv[1:])\n")
        proc = subprocess.run([sys.executable, "-c", code, TOOL] + argv,
                              cwd=self.tmp, stderr=subprocess.PIPE,
                              timeout=60, check=False)
        return proc.returncode, proc.stderr.decode()

    def assert_named(self, code, err):
        self.assertEqual(code, 2, err)
        self.assertNotIn("internal error", err)
        self.assertNotIn("Traceback", err)

    def fake_argv(self):
        return ["run", "--no-build", "--accel", "tcg", "--qemu",
                self.good_fake()]

    def test_run_stdout_to_dev_full(self):
        with open("/dev/full", "wb") as full:
            code, err = self.run_with_stdout(self.fake_argv(), full)
        self.assert_named(code, err)
        self.assertIn("stdout", err)
        doc = json.loads(read(self.path("results.json")))
        self.assertTrue(doc["boots"][0]["results"], "results were lost")

    def test_parse_stdout_to_dev_full(self):
        with open("/dev/full", "wb") as full:
            code, err = self.run_with_stdout(["parse", OK_LOG], full)
        self.assert_named(code, err)
        self.assertIn("stdout", err)

    def test_run_stdout_closed(self):
        code, err = self.closed(self.fake_argv())
        self.assert_named(code, err)
        self.assertIn("stdout", err)
        doc = json.loads(read(self.path("results.json")))
        self.assertTrue(doc["boots"][0]["results"])

    def test_run_stdout_and_stderr_closed(self):
        code, err = self.closed(self.fake_argv(), close_stderr=True)
        self.assertEqual(code, 2)
        doc = json.loads(read(self.path("results.json")))
        self.assertTrue(doc["boots"][0]["results"])


class DirectoryOutputs(Cli):

    def test_ab_a_json_directory_before_any_boot(self):
        os.mkdir(self.path("adir"))
        proc = self.cli("ab", "--no-build", "--a-json", self.path("adir"),
                        "--accel", "tcg", "--qemu", self.good_fake())
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("directory", proc.stderr)
        self.assertNotIn("planning boot", proc.stderr)

    def test_run_json_directory(self):
        os.mkdir(self.path("adir"))
        proc = self.run_fake(self.good_fake(), "--json", self.path("adir"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("directory", proc.stderr)
        self.assertNotIn("suite pio", proc.stderr)


class Children(Cli):
    """Every child through the one child helper: a QEMU wrapper that does
    not exec leaves nothing behind after the version probe; a dead run's
    DPDK runtime directory is removed by the next run."""

    def test_version_probe_kills_the_wrappers_group(self):
        pidfile = self.path("probe-kid.pid")
        fake = self.write("wrapper", "#!/bin/sh\n"
                          "if [ \"$1\" = --version ]; then\n"
                          "  sleep 300 &\n  echo $! > %s\n  wait\nfi\n"
                          "exit 1\n" % pidfile, 0o755)
        proc = self.run_fake(fake, timeout=60)
        self.assertEqual(proc.returncode, 5, proc.stderr)
        kid = int(read(pidfile))
        self.addCleanup(kill_quietly, kid)
        self.assertTrue(pid_gone(kid, 5), "the probe's child outlived it")

    def test_dead_runs_dpdk_dir_is_removed(self):
        """In a mount namespace of its own, with an empty tmpfs over EAL's
        runtime base: no other run on this host sees the dead run's
        directory, so only this run can remove it (on the shared base
        another run cleared it first, and the run under test had nothing
        to say)."""
        base = testpmd.runtime_base()
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = os.path.join(base, "trapmeter-%d-0" % dead.pid)
        proc = subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c",
             PRIVATE_BASE, "sh", base, stale, sys.executable, TOOL, "run",
             "--no-build", "--accel", "tcg", "--qemu", self.good_fake()],
            cwd=self.tmp, capture_output=True, text=True, timeout=60,
            check=False)
        if proc.returncode == NO_NAMESPACE or proc.stderr.startswith("unshare:"):
            self.skipTest("no private mount namespace here: %s"
                          % proc.stderr.strip().splitlines()[:1])
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        if privdir.pid_alive(dead.pid):
            self.skipTest("PID %d reused meanwhile" % dead.pid)
        self.assertNotIn(STALE_LEFT, proc.stderr)
        self.assertIn("removed %s, left by a dead run" % stale, proc.stderr)


# sh -c script: $1 EAL's runtime base, $2 the dead run's directory in it,
# then the command; an empty tmpfs over $1 that only this mount namespace
# sees (the base itself made first where no DPDK run has made it yet)
NO_NAMESPACE = 97
STALE_LEFT = "stale directory left"
PRIVATE_BASE = ("mkdir -p \"$1\" && mount -t tmpfs trapmeter-test \"$1\" "
                "|| exit %d\n"
                "mkdir \"$2\" || exit %d\n"
                "stale=$2; shift 2\n"
                "\"$@\"; rc=$?\n"
                "[ -e \"$stale\" ] && echo '%s' >&2\n"
                "exit $rc\n" % (NO_NAMESPACE, NO_NAMESPACE, STALE_LEFT))


class SignalWhileWriting(unittest.TestCase):
    """A signal while the final outputs are written is dropped and said:
    results.json and the exit status then agree (sigdefer.deferred)."""

    def test_signal_inside_the_final_writes_is_dropped(self):
        code = ("import os, signal, sys\n"
                "from trapmeterlib import cli\n"
                "from trapmeterlib.system import sigdefer\n"
                "cli.interrupt_on_signals()\n"
                "with sigdefer.deferred(lambda m: print('said:', m)):\n"
                "    os.kill(os.getpid(), signal.SIGINT)\n"
                "    os.kill(os.getpid(), signal.SIGHUP)\n"
                "    print('wrote')\n"
                "print('done')\n")
        proc = subprocess.run([sys.executable, "-c", code], cwd=os.path.join(
            os.path.dirname(TOOL)), capture_output=True, text=True,
            timeout=30, check=False)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("wrote", proc.stdout)
        self.assertIn("said: SIGHUP, SIGINT while the results were written",
                      proc.stdout)
        self.assertIn("done", proc.stdout)


if __name__ == "__main__":
    unittest.main()
