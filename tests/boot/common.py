"""tests/boot/common.py - boot the built kernel through tools/trapmeter.

Boot tests need build/trapmeter.elf and build/trapmeter.iso (`make`); they
run the real runner against the real QEMU and read its results.json.
"""
import json
import os
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "tools", "trapmeter")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE.fd"


class Boot:
    """One finished `trapmeter run`: exit status, output and results.json."""

    def __init__(self, proc, results):
        self.status = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.results = results

    @property
    def boot(self):
        return self.results["boots"][0]

    def result(self, case):
        for r in self.boot["results"]:
            if r["case"] == case:
                return r
        raise AssertionError(f"no result for case {case}; have "
                             f"{[r['case'] for r in self.boot['results']]}")

    def describe(self):
        return (f"exit status {self.status}\n--- stdout ---\n{self.stdout[-3000:]}"
                f"\n--- stderr ---\n{self.stderr[-3000:]}")


def run(*args, timeout=300):
    """tools/trapmeter run --no-build --table full ARGS (the boot tests read
    the full table), results in a temp file."""
    with tempfile.TemporaryDirectory(prefix="tm-test-") as tmp:
        out = os.path.join(tmp, "results.json")
        log = os.path.join(tmp, "serial.log")
        argv = [RUNNER, "run", "--no-build", "--json", out, "--log", log,
                "--table", "full", *args]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT)
        results = None
        if os.path.exists(out):
            with open(out) as f:
                results = json.load(f)
        boot = Boot(proc, results)
        boot.serial = ""
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                boot.serial = f.read()
        return boot


def pid_gone(pid, within_s):
    """True once pid has exited (a zombie awaiting init counts) within
    within_s seconds."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        try:
            with open("/proc/%d/stat" % pid) as fh:
                if fh.read().split(") ")[-1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def kvm_usable():
    """(True, '') when /dev/kvm can create a VM, else (False, why)."""
    import fcntl
    KVM_CREATE_VM = 0xAE01
    try:
        fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
    except OSError as e:
        return False, f"/dev/kvm: {e.strerror}"
    try:
        vm = fcntl.ioctl(fd, KVM_CREATE_VM, 0)
        os.close(vm)
        return True, ""
    except OSError as e:
        return False, f"KVM_CREATE_VM failed: {e.strerror}"
    finally:
        os.close(fd)


REQUIRE_KVM = "TRAPMETER_REQUIRE_KVM"


def kvm_required():
    """TRAPMETER_REQUIRE_KVM=1 (set by .ci/run where /dev/kvm exists): a
    machine that should run the KVM tests fails them instead of skipping,
    so a CI whose KVM broke is not green with the KVM tests unrun."""
    return os.environ.get(REQUIRE_KVM, "") == "1"


def need_kvm():
    """Skip the calling test, with the reason, where KVM cannot run a VM;
    fail instead under TRAPMETER_REQUIRE_KVM=1."""
    ok, why = kvm_usable()
    if ok:
        return
    if kvm_required():
        raise AssertionError(f"{REQUIRE_KVM}=1 but KVM cannot run a VM "
                             f"here: {why}")
    raise unittest.SkipTest(f"KVM cannot run a VM here: {why}")


def checks_of(boot):
    """A boot's checks by name."""
    return {c["name"]: c for c in boot.boot["checks"]}


def skips_of(boot, suite):
    """A boot's skips of one suite: case -> reason."""
    return {s["case"]: s["reason"] for s in boot.boot["skips"] if s["suite"] == suite}


def need_build(test, *paths):
    for p in paths:
        if not os.path.exists(os.path.join(ROOT, p)):
            raise unittest.SkipTest(f"{p} not built (run make)")
