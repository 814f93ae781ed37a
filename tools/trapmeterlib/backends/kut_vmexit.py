"""Booting kvm-unit-tests' x86/vmexit.flat the way trapmeter's exits suite
boots: the same QEMU binary, accelerator (and its options), CPU model and
machine, read from the trapmeter boot's own QEMU command line, plus the
devices vmexit expects (x86/run: pc-testdev, isa-debug-exit at 0xf4,
pci-testdev) and the PIT's lost-tick policy x86/run sets.

Which vmexit cases a boot asks for: vmexit names by vCPU count (ipi,
ipi_halt and ple_round_robin need a second vCPU, as unittests.cfg gives
them; every other case runs on one, as vmexit's parallel cases would
otherwise run on every vCPU at once), minus those that cannot return on
this host (named, never silently).

How long vmexit's vCPU thread waited for a host CPU in each case: vmexit's
figure is a mean over one span, and a span the host preempted more costs
more (counters/schedwait.py).  kut reads the schedstat of every QEMU thread
at each line vmexit prints; a figure line closes its case's window, opened
by the line before it (vmexit's doubling loop: the measured span is the
window's last part, about half of it)."""

import os

from ..counters.schedwait import parse_schedstat
from ..values.errors import InputError
from .kut_log import FIGURE_RE, VMEXIT_NAMES, case_name

SMP2 = ("ipi", "ipi_halt", "ple_round_robin")
FLAT = os.path.join("x86", "vmexit.flat")
# options of trapmeter's QEMU command line that make "the same machine"
SAME = ("-accel", "-cpu", "-M", "-machine", "-m")
# vmexit cases that do not return on a backend: {flavour: {name: why}}
HANGS = {"pvm": {
    "vmcall": "the hypercall never returns on the PVM backend (trapmeter "
              "passes hypercall=off there for the same reason)"}}


class KutDirError(InputError):
    """--kut-dir is not a kvm-unit-tests build (exit status 2)."""


def flat_path(kut_dir):
    """The built vmexit.flat under a kvm-unit-tests directory."""
    path = os.path.join(kut_dir, FLAT)
    if not os.path.isfile(path):
        raise KutDirError(
            "%s: no %s: --kut-dir must be a kvm-unit-tests tree built with "
            "./configure && make" % (kut_dir, FLAT))
    return path


def same_machine(qemu_argv):
    """The options of a trapmeter QEMU command line that vmexit's boot
    takes over (accelerator, CPU model, machine, memory), in order."""
    out, argv = [], list(qemu_argv or [])
    for i, word in enumerate(argv[:-1]):
        if word in SAME:
            out += [word, argv[i + 1]]
    return out


def names_for(smp, flavour, wanted=None):
    """(vmexit names for a boot with `smp` vCPUs, {name: why left out})."""
    pool = [n for n in VMEXIT_NAMES if (n in SMP2) == (smp == 2)]
    if wanted:
        pool = [n for n in pool if n in wanted]
    left = {n: why for n, why in HANGS.get(flavour or "", {}).items()
            if n in pool}
    return [n for n in pool if n not in left], left


def argv(qemu, machine_args, smp, flat, names):
    """vmexit's QEMU command line; its serial output on stdout."""
    return [qemu, "-nodefaults", "-no-reboot", "-display", "none",
            "-serial", "stdio", "-smp", str(smp)] + list(machine_args) + [
        "-global", "kvm-pit.lost_tick_policy=discard",
        "-device", "pc-testdev",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4",
        "-device", "pci-testdev",
        "-kernel", flat, "-append", " ".join(names)]


def thread_times(pid, hst):
    """{tid: (ns on a CPU, ns waiting on a run queue)} of a process's
    threads now (hst: system.fingerprint.Host)."""
    out = {}
    for tid in hst.names("proc/%d/task" % pid):
        got = parse_schedstat(hst.text("proc/%d/task/%s/schedstat"
                                       % (pid, tid)))
        if got:
            out[tid] = got[:2]
    return out


def span_waits(samples):
    """{case: {"wait_ms", "window_ms", "share"}} of a vmexit boot: samples
    are (elapsed s, line, thread_times()) per line printed, in order.  The
    vCPU thread is the one with the most CPU time in any sample (a vmexit
    boot spends itself in KVM_RUN; by the last line QEMU may have ended
    its vCPU threads); a case's window runs from the line before its
    figure line to it, and share is the vCPU thread's run-queue wait over
    that window."""
    most = {}
    for _elapsed, _line, times in samples:
        for tid, (run, _wait) in times.items():
            most[tid] = max(run, most.get(tid, run))
    if not most:
        return {}
    vcpu = max(most, key=most.get)
    out, prev = {}, None
    for elapsed, line, times in samples:
        found = FIGURE_RE.match(line.strip())
        if found and prev and vcpu in times and vcpu in prev[1]:
            window = elapsed - prev[0]
            wait = (times[vcpu][1] - prev[1][vcpu][1]) / 1e6
            if window > 0 and wait >= 0:
                case = case_name(found.group("name"), found.group("sub"))
                out[case] = {"wait_ms": round(wait, 3),
                             "window_ms": round(1e3 * window, 3),
                             "share": min(1.0, wait / (1e3 * window))}
        prev = (elapsed, times)
    return out
