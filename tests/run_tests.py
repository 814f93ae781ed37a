#!/usr/bin/env python3
"""tests/run_tests.py - run every test and print one summary line.

1. host unit tests of the pure kernel files (build/host/test_*, built by
   `make host-tests` with sanitizers): each prints "ok - NAME" or
   "not ok - NAME" per test function;
2. Python unittest modules: tests/host/test_*.py (host tool, no QEMU) and
   tests/boot/test_*.py (boot the kernel under QEMU).

The last line is "N passed, N failed, N skipped" (CI reads it); the exit
status is 1 when anything failed.
"""
import os
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

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
        proc = subprocess.run([os.path.join(bindir, name)], capture_output=True,
                              text=True, timeout=300)
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
        self.started = time.monotonic()

    def startTest(self, test):
        super().startTest(test)
        self.started = time.monotonic()

    def _name(self, test):
        return f"{test.id().replace('test_', '', 1)} ({time.monotonic() - self.started:.1f}s)"

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
    print(f"# {time.monotonic() - t0:.0f} s")
    print(f"{tally.passed} passed, {tally.failed} failed, {tally.skipped} skipped")
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
