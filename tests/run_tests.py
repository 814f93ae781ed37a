#!/usr/bin/env python3
"""tests/run_tests.py - run every test and print one summary line.

1. host unit tests of the pure kernel files (build/host/test_*, built by
   `make host-tests` with sanitizers): each prints "ok - NAME" or
   "not ok - NAME" per test function;
2. Python unittest modules: tests/host/test_*.py (host tool, no QEMU) and
   tests/boot/test_*.py (boot the kernel under QEMU).

The files of tests/host run in --jobs worker processes (default: one per
CPU, at most MAX_JOBS), each taking the next file when it is done with
one; tests/boot runs after them in this process, one file at a time (one
VM at a time).  --jobs 1 runs everything here, in order.

The last line is "N passed, N failed, N skipped" (CI reads it); the exit
status is 1 when anything failed.  Before it, "# seconds by file" lists
where the wall and CPU time went (CPU: user + sys of the test process and
of the children it waited for), a class's setUpClass boot counted in its
file (docs/testing.md keeps the table of a full run).
"""
import json
import os
import re
import selectors
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLOWEST = 15    # files named in the closing time table
MAX_JOBS = 4    # more workers than this only add contention to the probes
# Host test files handed out first (the longest in docs/testing.md's
# table), so that no long file starts last; a name missing here is fine.
LONG_FIRST = ("test_hostile_io", "test_history", "test_forecast",
              "test_compare", "test_bisect_cmd", "test_hostile",
              "test_hostile33", "test_hostile_input", "test_runner",
              "test_abtest", "test_testpmd")


def cpu_seconds():
    """User + sys seconds of this process and of its waited-for children."""
    times = os.times()
    return times.user + times.system + times.children_user + \
        times.children_system


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.seconds = {}     # file -> [wall seconds, CPU seconds] in it
        self.parts = {}       # kind -> wall seconds of the whole part

    def spent(self, where, seconds, cpu=0.0):
        both = self.seconds.setdefault(where, [0.0, 0.0])
        both[0] += seconds
        both[1] += cpu

    def add(self, counts):
        """Add a worker's counts and seconds (Tally.counts())."""
        self.passed += counts["passed"]
        self.failed += counts["failed"]
        self.skipped += counts["skipped"]
        for where, (wall, cpu) in counts["seconds"].items():
            self.spent(where, wall, cpu)

    def counts(self):
        return {"passed": self.passed, "failed": self.failed,
                "skipped": self.skipped, "seconds": self.seconds}

    def time_table(self, total):
        """'# seconds by file' lines: by kind (the wall time of the part
        when its files ran in workers), then the slowest files."""
        kinds = {}
        for where, (sec, _cpu) in self.seconds.items():
            kind = where.rsplit("/", 1)[0] if "/" in where else where
            kinds[kind] = kinds.get(kind, 0.0) + sec
        kinds.update(self.parts)
        cpu = sum(c for _w, c in self.seconds.values())
        print("# seconds by file (of %.0f s, CPU %.0f s): %s" % (
            total, cpu, ", ".join("%s %.0f" % kv for kv in
                                  sorted(kinds.items(), key=lambda kv: -kv[1]))))
        print("#     wall     cpu")
        slow = sorted(self.seconds.items(), key=lambda kv: -kv[1][0])[:SLOWEST]
        for where, (sec, cpu) in slow:
            print("#   %6.1f  %6.1f  %s" % (sec, cpu, where))

    def line(self, status, name, detail=""):
        print(f"{status:<5} {name}{(': ' + detail) if detail else ''}", flush=True)
        if status == "ok":
            self.passed += 1
        elif status == "skip":
            self.skipped += 1
        else:
            self.failed += 1


def run_host_binaries(tally, only):
    bindir = os.path.join(ROOT, "build", "host")
    names = sorted(n for n in os.listdir(bindir) if n.startswith("test_")
                   and not n.endswith(".d")) if os.path.isdir(bindir) else []
    if not names:
        tally.line("FAIL", "host unit tests", "none built (run `make host-tests`)")
    for name in names:
        if only and not any(o in name for o in only):
            continue
        began, cpu = time.monotonic(), cpu_seconds()
        proc = subprocess.run([os.path.join(bindir, name)], capture_output=True,
                              text=True, timeout=300)
        tally.spent("build/host/" + name, time.monotonic() - began,
                    cpu_seconds() - cpu)
        seen = 0
        for raw in proc.stdout.splitlines():
            if raw.startswith("ok - "):
                tally.line("ok", f"{name}: {raw[5:]}")
                seen += 1
            elif raw.startswith("not ok - "):
                tally.line("FAIL", f"{name}: {raw[9:]}")
                seen += 1
            elif raw.startswith("#   "):
                print(f"      {raw[4:]}")
        if proc.returncode != 0 and (seen == 0 or "not ok" not in proc.stdout):
            tally.line("FAIL", name, f"exit status {proc.returncode}\n{proc.stderr[-2000:]}")


class TallyResult(unittest.TestResult):
    def __init__(self, tally):
        super().__init__()
        self.tally = tally
        self.started = self.last = time.monotonic()
        self.last_cpu = cpu_seconds()

    def startTest(self, test):
        super().startTest(test)
        self.started = time.monotonic()

    def _name(self, test):
        # the time since the last report goes to this test's file: a
        # setUpClass (one shared boot) lands in its file, not nowhere
        now, cpu = time.monotonic(), cpu_seconds()
        self.tally.spent(_file_of(test), now - self.last, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu
        return f"{test.id().replace('test_', '', 1)} ({now - self.started:.1f}s)"

    def addSuccess(self, test):
        self.tally.line("ok", self._name(test))

    def addFailure(self, test, err):
        self.tally.line("FAIL", self._name(test), self._exc_info_to_string(err, test))

    def addError(self, test, err):
        self.tally.line("ERROR", self._name(test), self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        self.tally.line("skip", self._name(test), reason)

    def addExpectedFailure(self, test, err):
        self.tally.line("ok", self._name(test))

    def addUnexpectedSuccess(self, test):
        self.tally.line("FAIL", self._name(test), "unexpected success")

    def addSubTest(self, test, subtest, err):
        # unittest reports neither success nor failure for a test whose
        # only failures are in subtests: each failing subtest is a FAIL
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = "FAIL" if issubclass(err[0], test.failureException) else "ERROR"
            self.tally.line(kind, self._name(subtest),
                            self._exc_info_to_string(err, test))


def _file_of(test):
    """tests/boot/test_x.py for a test, a subtest or a failed setUpClass
    ("setUpClass (tests.boot.test_x.Class)")."""
    module = type(getattr(test, "test_case", test)).__module__
    if module.startswith("unittest"):
        found = re.search(r"(tests\.[\w.]+)\.\w+\)", test.id())
        module = found.group(1) if found else "unittest"
    return module.replace(".", "/") + ".py"


def discover(sub, only):
    """The tests under sub (tests/host, ...) whose id contains one of
    only (all when only is empty)."""
    start = os.path.join(ROOT, sub)
    if not os.path.isdir(start):
        return unittest.TestSuite()
    suite = unittest.TestLoader().discover(start, pattern="test_*.py",
                                           top_level_dir=ROOT)
    return unittest.TestSuite(t for t in _flatten(suite)
                              if not only or any(o in t.id() for o in only))


def run_python(tally, only, subdirs=("tests/host", "tests/boot"), jobs=1):
    sys.path.insert(0, ROOT)
    for sub in subdirs:
        suite = discover(sub, only)
        if sub == "tests/host" and jobs > 1:
            began = time.monotonic()
            run_in_workers(tally, suite, only, jobs)
            tally.parts[sub] = time.monotonic() - began
        else:
            suite.run(TallyResult(tally))


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flatten(t)
        else:
            yield t


def _modules(suite):
    """(the modules of suite's tests, the long ones first; the tests that
    are no module's, such as a module that failed to import)."""
    names, others = [], unittest.TestSuite()
    for test in suite:
        module = type(test).__module__
        if not module.startswith("tests."):
            others.addTest(test)
        elif module not in names:
            names.append(module)
    hint = {"tests.host." + n: i for i, n in enumerate(LONG_FIRST)}
    return sorted(names, key=lambda n: (hint.get(n, len(hint)), n)), others


class Worker:
    """`run_tests.py --worker`: runs the test modules it is sent, one at a
    time; its output comes through a pipe, its counts on a second."""

    def __init__(self, only):
        send_r, self.send = os.pipe()
        self.done, done_w = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker",
             str(send_r), str(done_w)] + list(only),
            stdout=subprocess.PIPE, pass_fds=(send_r, done_w), cwd=ROOT)
        os.close(send_r)
        os.close(done_w)
        self.module = None          # the module it is running
        self.partial = b""          # output after its last newline
        self.reply = b""

    def give(self, module):
        self.module = module
        os.write(self.send, (module or "").encode() + b"\n")


def run_in_workers(tally, suite, only, jobs):
    """Run suite's modules in min(jobs, modules) worker processes, each
    taking the next module when done; their lines are printed as they
    come, their counts added to tally."""
    queue, others = _modules(suite)
    others.run(TallyResult(tally))
    if len(queue) < 2:
        unittest.TestSuite(t for t in suite if t not in others).run(
            TallyResult(tally))
        return
    sel = selectors.DefaultSelector()
    workers = [Worker(only) for _ in range(min(jobs, len(queue)))]
    for worker in workers:
        sel.register(worker.proc.stdout, selectors.EVENT_READ, (worker, "out"))
        sel.register(worker.done, selectors.EVENT_READ, (worker, "done"))
        worker.give(queue.pop(0))
    open_streams = 2 * len(workers)
    while open_streams:
        for key, _ in sel.select():
            worker, kind = key.data
            fd = key.fileobj if kind == "done" else key.fileobj.fileno()
            data = os.read(fd, 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            if kind == "out":
                _forward(worker, data)
            else:
                _replied(tally, worker, data, queue)
    for worker in workers:
        _finish(tally, worker)
    for module in queue:        # every worker died: the rest run here
        unittest.TestLoader().loadTestsFromName(module).run(TallyResult(tally))


def _forward(worker, data):
    """Print a worker's whole lines (its partial line waits for the rest)."""
    data = worker.partial + data
    cut = data.rfind(b"\n") + 1
    worker.partial = data[cut:]
    if cut:
        sys.stdout.write(data[:cut].decode("utf-8", "replace"))
        sys.stdout.flush()


def _replied(tally, worker, data, queue):
    """A worker's counts of the module it ran: add them, send the next."""
    worker.reply += data
    while b"\n" in worker.reply:
        line, worker.reply = worker.reply.split(b"\n", 1)
        tally.add(json.loads(line))
        worker.give(queue.pop(0) if queue else None)
        if worker.module is None:
            os.close(worker.send)


def _finish(tally, worker):
    """Wait for a worker; a module it never finished is a failure."""
    code = worker.proc.wait()
    if worker.partial:
        print(worker.partial.decode(errors="replace"))
    if worker.module is not None:
        tally.line("FAIL", worker.module, "its worker process ended with "
                   "status %d before the module's tests were done" % code)
        os.close(worker.send)
    elif code != 0:
        tally.line("FAIL", "test worker", "exit status %d" % code)


def worker_main(send_fd, done_fd, only):
    """The worker's side of run_in_workers: module names in, counts out."""
    sys.path.insert(0, ROOT)
    os.set_inheritable(send_fd, False)
    os.set_inheritable(done_fd, False)
    names = os.fdopen(send_fd, "r")
    for module in iter(names.readline, ""):
        module = module.strip()
        if not module:
            break
        tally = Tally()
        try:
            tests = unittest.TestLoader().loadTestsFromName(module)
        except Exception as exc:  # pylint: disable=broad-except
            tally.line("ERROR", module, "cannot load: %r" % exc)
        else:
            unittest.TestSuite(t for t in _flatten(tests) if not only or any(
                o in t.id() for o in only)).run(TallyResult(tally))
        sys.stdout.flush()
        os.write(done_fd, json.dumps(tally.counts()).encode() + b"\n")
    return 0


def default_jobs():
    return max(1, min(MAX_JOBS, len(os.sched_getaffinity(0))))


def main():
    args = sys.argv[1:]
    if args[:1] == ["--worker"]:
        return worker_main(int(args[1]), int(args[2]), args[3:])
    jobs = default_jobs()
    if args[:1] == ["--jobs"]:
        jobs, args = max(1, int(args[1])), args[2:]
    only = args
    tally = Tally()
    t0 = time.monotonic()
    os.chdir(ROOT)
    if only[:1] == ["--acceptance"]:      # make acceptance: KVM, minutes
        run_python(tally, only[1:], ("tests/acceptance",))
    else:
        run_host_binaries(tally, only)
        run_python(tally, only, jobs=jobs)
    total = time.monotonic() - t0
    tally.time_table(total)
    print(f"# {total:.0f} s")
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
