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

How long vmexit's vCPU thread (both, with two vCPUs) waited for a host CPU
in each case: vmexit's figure is a mean over one span, and a span the host
preempted more costs more (counters/schedwait.py).  kut reads the schedstat of every QEMU thread
at each line vmexit prints; a figure line closes its case's window, opened
by the line before it.  vmexit's do_test doubles its iterations (64, 128,
...) until one loop spans GOAL cycles and prints that last loop's mean,
so the measured span is the window's last part, half of it or more: the
printed mean times the iterations, over the TSC's rate.  kut also reads
the vCPU thread's schedstat every TICK_S between the lines, and a case's
span takes the wait since its start (interpolated between the readings
around it), and at most the wait since the reading before it."""

import math
import os
import threading
import time

from ..counters.schedwait import parse_schedstat
from ..system import fingerprint
from ..values.errors import InputError
from .kut_log import FIGURE_RE, VMEXIT_NAMES, case_name

# x86/vmexit.c: `#define GOAL (1ull << 30)`; do_test sets iterations = 32
# and doubles it before each loop
GOAL_CYCLES = 1 << 30
FIRST_ITERATIONS = 64
# how often kut reads the vCPU thread's schedstat between vmexit's lines
# (one small file; a span is 2^30 cycles, 0.4 s at 2.6 GHz)
TICK_S = 0.01
# with more than one vCPU, each this many ticks reads every QEMU thread to
# find the vCPU threads again; the others read those alone (a poller that
# read every thread each tick added about as much run-queue wait as it
# measured: docs/measurements.md, "eighteenth session")
REPICK_TICKS = 10

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


def thread_times(pid, hst, tids=None):
    """{tid: (ns on a CPU, ns waiting on a run queue)} of a process's
    threads now, or of those of tids (hst: system.fingerprint.Host)."""
    out = {}
    for tid in tids or hst.names("proc/%d/task" % pid):
        got = parse_schedstat(hst.text("proc/%d/task/%s/schedstat"
                                       % (pid, tid)))
        if got:
            out[tid] = got[:2]
    return out


def last_loop(mean, tsc_khz, window_s=None):
    """(iterations, seconds) of the loop whose mean vmexit printed, or None
    (no figure or rate).  It is the first doubling that reached GOAL_CYCLES:
    the printed mean is (t2 - t1) / iterations rounded down, and GOAL_CYCLES
    / iterations is whole, so mean x iterations reaches GOAL_CYCLES exactly
    when the loop did; the loop spans under (mean + 1) x iterations.  With
    the window's length, a doubling the mean leaves open is settled
    (last_iterations)."""
    n = last_iterations(mean, window_s, tsc_khz)
    if n is None or not isinstance(tsc_khz, (int, float)) or tsc_khz <= 0:
        return None
    return n, (mean + 0.5) * n / (tsc_khz * 1e3)


def last_iterations(mean, window_s=None, tsc_khz=None):
    """The iterations of the loop whose mean vmexit printed, or None (no
    figure).  The mean alone can be a doubling short: an op whose cost
    straddles GOAL / n (the loop of n iterations a little cheaper than
    that, the one of 2n a little dearer) prints a mean whose n already
    reaches GOAL.  Given the window's length (line to line: all the
    case's loops) and the TSC's rate, the one of n and 2n whose loops
    would fill the window the more nearly is taken."""
    if not isinstance(mean, (int, float)) or mean <= 0:
        return None
    n = FIRST_ITERATIONS
    while mean * n < GOAL_CYCLES:
        n *= 2
    if window_s and tsc_khz and window_s > 0 and tsc_khz > 0:
        cycles = window_s * tsc_khz * 1e3
        n = min((n, 2 * n), key=lambda k: abs(math.log(
            cycles / ((2 * k - FIRST_ITERATIONS) * mean))))
    return n


def all_iterations(mean, window_s=None, tsc_khz=None):
    """The iterations of all a case's loops (64, 128, ... up to the last
    one's: 2 x last - 64), or None (no figure); window_s and tsc_khz as
    last_iterations takes them."""
    n = last_iterations(mean, window_s, tsc_khz)
    return None if n is None else 2 * n - FIRST_ITERATIONS


def _wait_at(points, when):
    """(wait interpolated at `when`, wait at the last reading at or before
    it) over points [(elapsed s, wait ns)] in time order, or None."""
    before = [p for p in points if p[0] <= when]
    after = [p for p in points if p[0] >= when]
    if not before:
        return None
    t0, w0 = before[-1]
    if not after or after[0][0] == t0:
        return w0, w0
    t1, w1 = after[0]
    return w0 + (w1 - w0) * (when - t0) / (t1 - t0), w0


def _span(points, start, end, wait_end, tsc_khz, mean):
    """The span fields of one figure: its last loop's wait, interpolated
    (with ticks between the lines) and at most (the reading before it)."""
    loop = last_loop(mean, tsc_khz, end - start)
    if loop is None or loop[1] > end - start:
        return {}               # no rate, or a span the window cannot hold
    span_s = loop[1]
    inside = [p for p in points if start <= p[0] <= end]
    got = _wait_at(inside, end - span_s)
    if got is None:
        return {}
    out = {"iterations": loop[0], "span_ms": round(1e3 * span_s, 3),
           "span_wait_max_ms": round((wait_end - got[1]) / 1e6, 3)}
    out["span_share_max"] = min(1.0, out["span_wait_max_ms"] / out["span_ms"])
    if len(inside) > 2:         # readings between the lines: interpolate
        wait = max(0.0, (wait_end - got[0]) / 1e6)
        out["span_wait_ms"] = round(wait, 3)
        out["span_share"] = min(1.0, wait / out["span_ms"])
    return out


def busiest(runs, n):
    """The n tids of {tid: ns on a CPU} that ran the most (at least one):
    a vmexit boot's vCPU threads."""
    return sorted(runs, key=runs.get, reverse=True)[:max(1, n)]


def span_waits(samples, ticks=(), tsc_khz=None, vcpus=1):
    """{case: {"wait_ms", "window_ms", "share"}} of a vmexit boot: samples
    are (elapsed s, line, thread_times()) per line printed, in order.  The
    vCPU threads are the `vcpus` with the most CPU time in any sample (a
    vmexit boot spends itself in KVM_RUN; by the last line QEMU may have
    ended its vCPU threads), and a wait is theirs summed: in a hand-off
    between two vCPUs (ple_round_robin, ipi) either one's wait stalls the
    case.  A case's window runs from the line before its figure line to
    it, and share is the wait over that window.  With ticks [(elapsed s,
    thread_times())] read between the lines and the TSC's rate, each case
    also gets its last loop's span (_span: "span_ms", "span_share" and
    "span_share_max")."""
    every = list(samples) + [(t, None, tt) for t, tt in ticks]
    most = {}
    for _elapsed, _line, times in every:
        for tid, (run, _wait) in times.items():
            most[tid] = max(run, most.get(tid, run))
    if not most:
        return {}
    threads = busiest(most, vcpus)

    def waited(times):
        """The threads' summed wait (ns), or None where one is not read."""
        if not all(t in times for t in threads):
            return None
        return sum(times[t][1] for t in threads)

    points = sorted((t, waited(tt)) for t, _l, tt in every
                    if waited(tt) is not None)
    out, prev = {}, None
    for elapsed, line, times in samples:
        found = FIGURE_RE.match(line.strip())
        now = waited(times)
        if found and prev and now is not None and prev[1] is not None:
            window = elapsed - prev[0]
            wait = (now - prev[1]) / 1e6
            if window > 0 and wait >= 0:
                case = case_name(found.group("name"), found.group("sub"))
                out[case] = {"wait_ms": round(wait, 3),
                             "window_ms": round(1e3 * window, 3),
                             "share": min(1.0, wait / (1e3 * window))}
                out[case].update(_span(points, prev[0], elapsed, now,
                                       tsc_khz, int(found.group("cycles"))))
        prev = (elapsed, now)
    return out


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


def span_reading(got, mean, tsc_khz):
    """{"share", "max"} of one case's saved wait entry (span_waits):
    the share of its last loop its vCPU thread waited (None where no
    ticks were read) and at most; an entry without span fields (an older
    session) bounds it by its window's whole wait over the span.  None
    where neither can be had."""
    if not isinstance(got, dict):
        return None
    top = got.get("span_share_max")
    if not _num(top):
        loop = last_loop(mean, tsc_khz)
        if loop is None or not _num(got.get("wait_ms")):
            return None
        top = min(1.0, got["wait_ms"] / (1e3 * loop[1]))
    share = got.get("span_share")
    return {"share": share if _num(share) else None, "max": min(1.0, top)}


class LineSampler:
    """Reads a child's stdout line by line in a thread, and at each line
    the times of the child's threads (host /proc); a second thread reads
    the vCPU threads' times every TICK_S between the lines (_tids; a tick
    that lacks one is of no use to span_waits, which sums them); with
    on_line, what it returns at each line, after the times (counted:
    [(elapsed s, line, value)])."""

    JOIN_S = 5.0

    def __init__(self, proc, tick_s=TICK_S, on_line=None, vcpus=1):
        self.proc, self.lines, self.samples = proc, [], []
        self.vcpus = vcpus
        self.on_line, self.counted = on_line, []
        self.ticks, self.tick_s = [], tick_s
        self.host = fingerprint.Host()
        self.start = time.monotonic()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()
        self.ticker.start()

    def _read(self):
        for raw in iter(self.proc.stdout.readline, b""):
            self.lines.append(raw)
            self.samples.append((time.monotonic() - self.start,
                                 raw.decode("utf-8", "replace"),
                                 thread_times(self.proc.pid,
                                                         self.host)))
            if self.on_line is not None:
                self.counted.append(self.samples[-1][:2] + (self.on_line(),))

    def _tick(self):
        n, pick = 0, None
        while not self.done.wait(self.tick_s):
            last = self.samples[-1][2] if self.samples else None
            if not last:
                continue
            when = time.monotonic() - self.start
            got = thread_times(self.proc.pid, self.host,
                               self._tids(last, n, pick))
            if got and (self.vcpus == 1 or n % REPICK_TICKS == 0):
                pick = busiest({t: got[t][0] for t in got}, self.vcpus)
            n += 1
            if got:
                self.ticks.append((when, got))

    def _tids(self, last, n, pick):
        """The threads a tick reads: one vCPU, the busiest at the last
        line; more, the busiest of the last reading of every thread, and
        every thread each REPICK_TICKS-th tick (before the first case of
        a -smp 2 boot the second vCPU thread has barely run)."""
        if self.vcpus == 1:
            return busiest({t: last[t][0] for t in last}, 1)
        return None if pick is None or n % REPICK_TICKS == 0 else pick

    def join(self):
        self.done.set()
        self.thread.join(self.JOIN_S)
        self.ticker.join(self.JOIN_S)

    def text(self):
        return b"".join(self.lines)
