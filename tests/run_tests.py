#!/usr/bin/env python3
"""tests/run_tests.py - run every test and print one summary line.

1. host unit tests of the pure kernel files (build/host/test_*, built by
   `make host-tests` with sanitizers): each prints "ok - NAME" or
   "not ok - NAME" per test function;
2. Python unittest modules: tests/host/test_*.py (host tool, no QEMU) and
   tests/boot/test_*.py (boot the kernel under QEMU).

The last line is "N passed, N failed, N skipped" (CI reads it); the exit
status is 1 when anything failed.  Before it, "# seconds by file" lists
where the wall time went, a class's setUpClass boot counted in its file
(docs/testing.md keeps the table of a full run).
"""
import os
import re
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLOWEST = 15    # files named in the closing time table


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.seconds = {}     # file -> wall seconds spent in it

    def spent(self, where, seconds):
        self.seconds[where] = self.seconds.get(where, 0.0) + seconds

    def time_table(self, total):
        """'# seconds by file' lines: by kind, then the slowest files."""
        kinds = {}
        for where, sec in self.seconds.items():
            kind = where.rsplit("/", 1)[0] if "/" in where else where
            kinds[kind] = kinds.get(kind, 0.0) + sec
        print("# seconds by file (of %.0f s): %s" % (total, ", ".join(
            "%s %.0f" % kv for kv in sorted(kinds.items(), key=lambda kv: -kv[1]))))
        slow = sorted(self.seconds.items(), key=lambda kv: -kv[1])[:SLOWEST]
        for where, sec in slow:
            print("#   %6.1f  %s" % (sec, where))

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
        began = time.monotonic()
        proc = subprocess.run([os.path.join(bindir, name)], capture_output=True,
                              text=True, timeout=300)
        tally.spent("build/host/" + name, time.monotonic() - began)
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

    def startTest(self, test):
        super().startTest(test)
        self.started = time.monotonic()

    def _name(self, test):
        # the time since the last report goes to this test's file: a
        # setUpClass (one shared boot) lands in its file, not nowhere
        now = time.monotonic()
        self.tally.spent(_file_of(test), now - self.last)
        self.last = now
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


def run_python(tally, only, subdirs=("tests/host", "tests/boot")):
    sys.path.insert(0, ROOT)
    loader = unittest.TestLoader()
    for sub in subdirs:
        start = os.path.join(ROOT, sub)
        if not os.path.isdir(start):
            continue
        suite = loader.discover(start, pattern="test_*.py", top_level_dir=ROOT)
        if only:
            suite = unittest.TestSuite(t for t in _flatten(suite)
                                       if any(o in t.id() for o in only))
        suite.run(TallyResult(tally))


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flatten(t)
        else:
            yield t


def main():
    only = sys.argv[1:]
    tally = Tally()
    t0 = time.monotonic()
    os.chdir(ROOT)
    if only[:1] == ["--acceptance"]:      # make acceptance: KVM, minutes
        run_python(tally, only[1:], ("tests/acceptance",))
    else:
        run_host_binaries(tally, only)
        run_python(tally, only)
    total = time.monotonic() - t0
    tally.time_table(total)
    print(f"# {total:.0f} s")
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
