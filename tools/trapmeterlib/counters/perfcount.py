"""The second, independent exit counter (`run --exit-counter perf|both`):
the host kernel's KVM tracepoints, recorded by Linux perf on the QEMU
process, over the guest's untimed count windows (c0..c1, see
kernel/phase_sync.h).

perf is attached once per boot, at the guest's first sync point, with every
event disabled (`perf record -D -1 --control fifo:CTL,ACK`).  At c0 the
runner enables the events and at c1 disables them, each time waiting for
perf's ack while the guest waits for its byte, so only the count windows
are traced: a tracepoint per exit slows the guest by 10-15 % here, and the
timed samples (what `compare` uses) run with the events off.  Events carry
CLOCK_MONOTONIC time stamps, so after the boot each event is put into the
window whose enable..disable interval holds it.

What is counted (EVENTS; whatever the host offers of them):
- accesses: kvm_pio (per port and direction; one per `in`/`out` and one per
  read-ahead chunk of a `rep ins`), kvm_mmio (completed reads and writes;
  the "unsatisfied-read" that precedes a read QEMU answers is the same
  access), kvm_fast_mmio, kvm_cpuid, kvm_msr, kvm_hypercall.  Their sum,
  without the COM1 ports of the sync traffic, is `exits_perf`: the guest's
  trapping accesses, whether KVM or QEMU answered them.
- kvm_userspace_exit per reason: which of them went to QEMU.
- kvm_exit per reason, where the backend fires it (VT-x/AMD-V; not PVM).

The parsing and the window arithmetic are pure (text in, counts out) so they
are tested without perf."""

import bisect
import os
import re
import select
import shutil
import signal
import subprocess
import time

from ..system import children
from ..values import exitstatus
from ..values.errors import TrapmeterError

PERF = "perf"
TRACEFS = ("/sys/kernel/tracing", "/sys/kernel/debug/tracing")
# (event, kind): "access" is one trapped guest access, "user" an exit to
# QEMU, "exit" a VM exit of any reason.
EVENTS = (("kvm:kvm_pio", "access"), ("kvm:kvm_mmio", "access"),
          ("kvm:kvm_fast_mmio", "access"), ("kvm:kvm_cpuid", "access"),
          ("kvm:kvm_msr", "access"), ("kvm:kvm_hypercall", "access"),
          ("kvm:kvm_userspace_exit", "user"), ("kvm:kvm_exit", "exit"))
REQUIRED = "kvm:kvm_pio"
# COM1 (0x3f8..0x3ff): the sync lines and the guest's waits for the byte.
SYNC_PORTS = range(0x3f8, 0x400)
# Exits to QEMU that belong to an access event, and the host's own kick of
# the vCPU (QMP stop) that is no guest exit.
USER_ACCESS_REASONS = ("KVM_EXIT_IO", "KVM_EXIT_MMIO", "KVM_EXIT_X86_RDMSR",
                       "KVM_EXIT_X86_WRMSR")
USER_HOST_REASONS = ("KVM_EXIT_INTR", "restart")
BUFFER = "16M"                  # perf ring per CPU: a window's burst fits
READY_TIMEOUT_S = 4.0           # below the guest's 5 s sync-wait bound
ACK_TIMEOUT_S = 5.0
EXIT_TIMEOUT_S = 10.0
SCRIPT_TIMEOUT_S = 300.0
MOUNT_TIMEOUT_S = 10.0


class PerfError(TrapmeterError):
    """perf is missing, refused, or stopped answering."""

    code = exitstatus.BAD_INPUT


# ---------------------------------------------------------------- pure part

_LINE = re.compile(r"^\s*(\d+\.\d+):\s+(\S+?):\s+(.*)$")
_PIO = re.compile(r"pio_(read|write) at 0x([0-9a-fA-F]+) size (\d+) "
                  r"count (\d+)")
_MMIO = re.compile(r"mmio (\S+) len \d+ gpa 0x([0-9a-fA-F]+)")
_USER = re.compile(r"reason (\S+)")
_EXIT = re.compile(r"reason (\S+)")


def event_key(event, text):
    """(kind, key) of one event's formatted fields, or None to ignore it
    (e.g. the unsatisfied half of an MMIO read)."""
    name = event.split(":")[-1]
    if name == "kvm_pio":
        m = _PIO.search(text)
        if not m:
            return None
        port = int(m.group(2), 16)
        kind = "sync" if port in SYNC_PORTS else "access"
        return kind, "pio 0x%x %s" % (port, "in" if m.group(1) == "read"
                                      else "out")
    if name == "kvm_mmio":
        m = _MMIO.search(text)
        if not m or m.group(1) == "unsatisfied-read":
            return None
        return "access", "mmio 0x%x %s" % (int(m.group(2), 16), m.group(1))
    if name == "kvm_userspace_exit":
        m = _USER.search(text)
        return "user", m.group(1) if m else "?"
    if name == "kvm_exit":
        m = _EXIT.search(text)
        return "exit", m.group(1) if m else "?"
    return "access", name[len("kvm_"):] if name.startswith("kvm_") else name


def parse_script(lines):
    """perf script lines (-F time,event,trace) -> [(time_s, kind, key)];
    "LOST" records -> (time_s or None, "lost", count)."""
    out = []
    for line in lines:
        if "PERF_RECORD_LOST" in line or "LOST" in line.split()[:3]:
            nums = re.findall(r"\d+", line.split("LOST", 1)[-1])
            out.append((None, "lost", int(nums[0]) if nums else 1))
            continue
        m = _LINE.match(line)
        if not m:
            continue
        key = event_key(m.group(2), m.group(3))
        if key is not None:
            out.append((float(m.group(1)), key[0], key[1]))
    return out


def _is_write(key):
    return key.endswith((" out", " write"))


def attribute(events):
    """Pair each exit to QEMU with the access it served and drop it: a
    read's access event comes right after its exit (the data arrives on
    re-entry), a write's right before; an exit followed by a read is the
    read's, even after a write KVM answered itself.  Returns [(time, kind,
    key, reason of the exit to QEMU or None)]; exits left unpaired keep
    kind "user"."""
    out, exit_at = [], None
    for stamp, kind, key in events:
        if exit_at is not None:
            if kind in ("access", "sync") and not _is_write(key):
                out[exit_at] = (stamp, kind, key, out[exit_at][2])
                exit_at = None
                continue
            _pair_back(out)
            exit_at = None
        if kind == "user" and key in USER_ACCESS_REASONS:
            exit_at = len(out)
        out.append((stamp, kind, key, None))
    if exit_at is not None:
        _pair_back(out)
    return out


def _pair_back(out):
    """The last entry, an exit no read claimed, served the write before it
    (if that write is unpaired); otherwise it stays."""
    if len(out) < 2:
        return
    write, exit_ = out[-2], out[-1]
    if write[1] in ("access", "sync") and write[3] is None \
            and _is_write(write[2]):
        out[-2] = write[:3] + (exit_[2],)
        out.pop()


def empty_window():
    return {"access": {}, "sync": {}, "user": {}, "exit": {}, "lost": 0,
            "to_qemu": {}}


def split_windows(events, windows):
    """Count events into windows [(t_on, t_off)] (sorted, disjoint); an
    event outside every window is dropped, and exits are paired with
    accesses inside their window only (perf saw nothing in between).  A
    LOST record marks every window lost (perf cannot say which)."""
    lists = [[] for _ in windows]
    starts = [w[0] for w in windows]
    lost = 0
    for event in events:
        if event[1] == "lost":
            lost += event[2]
            continue
        index = bisect.bisect_right(starts, event[0]) - 1
        if index >= 0 and event[0] <= windows[index][1]:
            lists[index].append(event)
    return [_count(attribute(evs), lost) for evs in lists]


def _count(events, lost):
    win = empty_window()
    win["lost"] = lost
    for _stamp, kind, key, to_qemu in events:
        win[kind][key] = win[kind].get(key, 0) + 1
        if to_qemu and kind == "access":
            win["to_qemu"][to_qemu] = win["to_qemu"].get(to_qemu, 0) + 1
    return win


def window_exits(win):
    """The figures of one window: exits (trapped accesses without the sync
    ports), those QEMU answered, those KVM answered itself, per-key
    breakdowns.  An exit to QEMU that served no access counts by itself
    (HLT, SHUTDOWN, ...), except the host's own kick of the vCPU and an
    I/O exit whose access lies past the window's end (the last sync poll
    before the pause)."""
    access = sum(win["access"].values())
    other = {k: v for k, v in win["user"].items()
             if k not in USER_HOST_REASONS and k not in USER_ACCESS_REASONS}
    reasons = dict(win["to_qemu"])
    for key, value in other.items():
        reasons[key] = reasons.get(key, 0) + value
    to_qemu = sum(reasons.values())
    return {"exits": access + sum(other.values()), "user": to_qemu,
            "kernel": access - sum(win["to_qemu"].values()),
            "ports": dict(win["access"]), "reasons": reasons,
            "vm_exits": dict(win["exit"]), "lost": win["lost"]}


def per_op(figures, ops):
    """Window figures divided by the ops of the window (rounded)."""
    def div(value):
        return round(value / ops, 3)
    return {"exits": div(figures["exits"]), "user": div(figures["user"]),
            "kernel": div(figures["kernel"]),
            "ports": {k: div(v) for k, v in sorted(figures["ports"].items())},
            "reasons": {k: div(v) for k, v in
                        sorted(figures["reasons"].items())},
            "vm_exits": {k: div(v) for k, v in
                         sorted(figures["vm_exits"].items())}}


# ---------------------------------------------------------------- host part

def offered_events(tracefs=TRACEFS):
    """The EVENTS this host's tracefs lists (by directory)."""
    for root in tracefs:
        base = os.path.join(root, "events")
        if os.path.isdir(os.path.join(base, "kvm")):
            return [e for e, _k in EVENTS if os.path.isdir(
                os.path.join(base, *e.split(":")))]
    return []


def mount_tracefs(tracefs=TRACEFS):
    """A fresh boot of a Debian host has /sys/kernel/tracing empty until
    something mounts it (perf does, on its first use of a tracepoint): as
    root, mount it at tracefs[0] when no tracefs lists KVM's events and
    that directory is empty.  Failure is not an error here: available()
    then says what is missing."""
    if os.geteuid() != 0 or offered_events(tracefs):
        return
    root = tracefs[0]
    if os.path.isdir(root) and not os.listdir(root):
        try:
            children.run(["mount", "-t", "tracefs", "nodev", root],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         timeout=MOUNT_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            pass                # available() says what is missing


def available(perf=PERF, tracefs=TRACEFS):
    """(events, None) when perf can trace KVM here, else ([], why)."""
    if shutil.which(perf) is None:
        return [], "perf not found (install Debian's linux-perf)"
    if tracefs == TRACEFS:
        mount_tracefs()
    events = offered_events(tracefs)
    if REQUIRED not in events:
        return [], ("the host offers no %s tracepoint (tracefs not mounted,"
                    " no permission, or KVM not loaded)" % REQUIRED)
    if os.geteuid() != 0 and _paranoid() > -1:
        return [], ("no permission for KVM tracepoints: run as root or set "
                    "kernel.perf_event_paranoid=-1")
    return events, None


def _paranoid():
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return 2


def record_argv(events, pid, ctl, ack, data, perf=PERF):
    argv = [perf, "record", "-D", "-1", "--control",
            "fifo:%s,%s" % (ctl, ack), "-k", "CLOCK_MONOTONIC", "-m", BUFFER,
            "-o", data, "-p", str(pid)]
    for event in events:
        argv += ["-e", event]
    return argv


class PerfCounter:
    """One perf record per boot, toggled around the count windows."""

    def __init__(self, tmpdir, events, say=None, perf=PERF):
        self.dir = tmpdir
        self.events = list(events)
        self.say = say or (lambda _msg: None)
        self.perf = perf
        self.proc = None
        self.ctl = self.ack = None
        self.failed = None
        self.windows = []               # [(t_on, t_off)] in order
        self._t_on = None
        self.data = os.path.join(tmpdir, "perf.data")
        self.stderr_path = os.path.join(tmpdir, "perf-stderr.txt")

    @property
    def active(self):
        return self.failed is None

    def fail(self, why):
        if self.failed is None:
            self.failed = why
            self.say("warning: perf exit counting stopped: %s; QMP alone"
                     % why)
        self.stop()

    def start(self, pid):
        """Attach to QEMU (pid) and wait until perf listens."""
        ctl, ack = (os.path.join(self.dir, n) for n in ("perf.ctl",
                                                        "perf.ack"))
        for path in (ctl, ack):
            if not os.path.exists(path):
                os.mkfifo(path, 0o600)
        argv = record_argv(self.events, pid, ctl, ack, self.data, self.perf)
        with open(self.stderr_path, "wb") as err:
            # dies with the runner (PR_SET_PDEATHSIG, see child.py)
            self.proc = children.spawn(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err)
        self.ack = os.open(ack, os.O_RDONLY | os.O_NONBLOCK)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while self.ctl is None:
            try:
                self.ctl = os.open(ctl, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                if self.proc.poll() is not None:
                    raise PerfError("perf record exited at start: %s"
                                    % self._stderr_tail())
                if time.monotonic() > deadline:
                    raise PerfError("perf record did not open its control "
                                    "fifo within %.0f s" % READY_TIMEOUT_S)
                time.sleep(0.01)
        self._command("ping")

    def _stderr_tail(self):
        try:
            with open(self.stderr_path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace").strip()
        except OSError:
            return "?"
        return text.splitlines()[-1] if text else "(no message)"

    def _command(self, word):
        try:
            os.write(self.ctl, word.encode() + b"\n")
        except OSError as exc:
            raise PerfError("perf control fifo: %s" % (exc.strerror or exc))
        deadline = time.monotonic() + ACK_TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            ready = select.select([self.ack], [], [], max(left, 0))[0]
            if not ready:
                raise PerfError("perf did not ack '%s' within %.0f s"
                                % (word, ACK_TIMEOUT_S))
            if b"ack" in os.read(self.ack, 64):
                return

    def enable(self):
        """c0: trace from now on; returns once perf acked."""
        self._t_on = time.monotonic()
        self._command("enable")

    def disable(self):
        """c1: stop tracing; returns the window's index."""
        self._command("disable")
        self.windows.append((self._t_on, time.monotonic()))
        return len(self.windows) - 1

    def stop(self):
        """End perf (it also ends by itself when QEMU exits); never leaves
        it running."""
        for fd in (self.ctl, self.ack):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.ctl = self.ack = None
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for sig, wait_s in ((None, EXIT_TIMEOUT_S), (signal.SIGINT, 5.0),
                            (signal.SIGKILL, 5.0)):
            if sig is not None and proc.poll() is None:
                proc.send_signal(sig)
            try:
                proc.wait(timeout=wait_s)
                return
            except subprocess.TimeoutExpired:
                continue

    def counts(self):
        """After the boot: per window, window_exits() figures."""
        self.stop()
        if not self.windows or self.failed:
            return []
        argv = [self.perf, "script", "-i", self.data, "--ns",
                "--show-lost-events", "-F", "time,event,trace"]
        try:
            done = children.run(argv, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                errors="replace", timeout=SCRIPT_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.fail("perf script: %s" % exc)
            return []
        if done.returncode != 0:
            self.fail("perf script exited with status %d: %s" % (
                done.returncode, (done.stderr.strip().splitlines() or
                                  ["?"])[-1]))
            return []
        events = parse_script(done.stdout.splitlines())
        return [window_exits(w) for w in split_windows(events, self.windows)]
