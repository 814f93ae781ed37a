"""The vhost-user backend of the virtio suite: DPDK's testpmd with two
vhost-user ports, forwarding NIC A's frames (port 0) to NIC B (port 1).

    dpdk-testpmd -l C0,C1 --no-huge -m 256 --no-pci --no-shconf
        --no-telemetry --file-prefix trapmeter-PID-N
        --vdev net_vhost0,iface=DIR/vhost0.sock
        --vdev net_vhost1,iface=DIR/vhost1.sock
        -- -i --forward-mode=io --auto-start --nb-cores=1
        --total-num-mbufs=8192 [--testpmd-args ...]

testpmd runs in the run's private directory (sockets and its log); its
EAL runtime directory (/var/run/dpdk/PREFIX as root, else
$XDG_RUNTIME_DIR/dpdk/PREFIX, pointed into the private directory) is
removed afterwards.  The process dies with the runner (children.spawn:
PR_SET_PDEATHSIG) and is stopped ("quit", then children.stop: SIGTERM,
SIGKILL) however the run ends.
Port statistics come from the interactive prompt: "show port stats all"
and "show fwd stats all".  testpmd's output goes to a pseudo-terminal
(read into DIR/testpmd.log by a thread): on a pipe or file its printf
output would sit in stdio's buffer while the prompt is written at once.
testpmd busy-polls its forwarding lcore.
"""

import itertools
import os
import re
import shutil
import subprocess
import threading
import time

from ..guest.vhost_user import MEM_MB, SOCKETS, TestpmdError, forwarding_cores
from ..system import children

LOG_NAME = "testpmd.log"
PROMPT = "testpmd> "
READY_TIMEOUT_S = 30.0
# a prompt command's answer: milliseconds when idle, but on a 2-core host
# whose cores the forwarding lcore and the guest both spin on, one
# "show port stats all" once took over 10 s (tests/boot/test_vhost.py,
# the twentieth session's clean clone): bounded, as wide as start-up's
STATS_TIMEOUT_S = 30.0
QUIT_GRACE_S = 5.0
KILL_GRACE_S = 3.0
POLL_S = 0.05
READER_DRAIN_S = 2.0    # for the last lines of a testpmd that died
BASE_APP_ARGS = ["-i", "--forward-mode=io", "--auto-start", "--nb-cores=1",
                 "--total-num-mbufs=8192"]
_SERIAL = itertools.count()

# testpmd/EAL messages -> what went wrong
PORT_FAILURES = ("Fail to configure port", "Fail to start port",
                 "Not all ports were started", "Failed to start driver",
                 "Start ports failed")
OPTION_FAILURES = re.compile(r"unrecognized option|invalid option|requires an "
                             r"argument|Invalid .*(option|argument)", re.I)
CORE_FAILURES = re.compile(r"invalid core list|lcore \d+ unavailable|"
                           r"Check the core mask|not enough (forwarding )?"
                           r"cores|nb_fwd_lcores|nb-cores", re.I)


# ---------------------------------------------------------------- pure

def place_cores(app_args, cpus=None, avoid=()):
    """(lcores, main lcore, warning) for testpmd.  The forwarding lcores
    busy-poll, so they go on the lowest CPUs outside `avoid` (the CPUs QEMU
    is pinned to, run --pin-cpu); the main lcore, which only waits at the
    prompt, takes what is left and may share a CPU with QEMU.  warning is
    None, or says that a polling lcore had to share QEMU's CPU."""
    cpus = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
    need = 1 + forwarding_cores(app_args)
    if len(cpus) < need:
        raise TestpmdError(
            "too few cores for testpmd: it needs %d lcores (1 main + %d "
            "forwarding, --nb-cores), this runner may use %d CPU%s (%s)"
            % (need, need - 1, len(cpus), "" if len(cpus) == 1 else "s",
               ",".join(str(c) for c in cpus) or "none"))
    avoid = set(avoid or ())
    if not avoid:
        return cpus[:need], cpus[0], None
    order = ([c for c in cpus if c not in avoid]
             + [c for c in cpus if c in avoid])      # preferred first
    polling = sorted(order[:need - 1])
    main = order[need - 1]
    shared = sorted(set(polling) & avoid)
    warning = None
    if shared:
        warning = ("testpmd's polling lcore%s %s share%s the CPU QEMU is "
                   "pinned to (--pin-cpu %s): the guest's figures will be "
                   "slowed by its busy-polling" % (
                       "s" if len(shared) > 1 else "",
                       ",".join(map(str, shared)),
                       "" if len(shared) > 1 else "s",
                       ",".join(map(str, sorted(avoid)))))
    return sorted(polling + [main]), main, warning


def build_argv(binary, private_dir, prefix, cores, app_args, main=None):
    """The testpmd command line (user application options last: they win).
    main: the EAL main lcore when it is not the lowest of `cores`."""
    socks = [os.path.join(private_dir, name) for name in SOCKETS]
    main_opt = ([] if main is None or main == min(cores)
                else ["--main-lcore", str(main)])
    return ([binary, "-l", ",".join(str(c) for c in cores)] + main_opt
            + ["--no-huge",
             "-m", str(MEM_MB), "--no-pci", "--no-shconf", "--no-telemetry",
             "--file-prefix", prefix]
            + [w for i, sock in enumerate(socks)
               for w in ("--vdev", "net_vhost%d,iface=%s" % (i, sock))]
            + ["--"] + BASE_APP_ARGS + list(app_args))


def runtime_dir(prefix, env=None, uid=None):
    """Where EAL puts its runtime files for this prefix."""
    return os.path.join(runtime_base(env, uid), prefix)


def runtime_base(env=None, uid=None):
    """The directory of EAL's runtime directories; those of our prefix
    (trapmeter-PID-N) whose runner is dead are removed by the next run
    (privdir.remove_stale)."""
    env = os.environ if env is None else env
    uid = os.getuid() if uid is None else uid
    base = "/var/run" if uid == 0 else env.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk")


def classify_failure(text):
    """A named reason from testpmd's output, or None."""
    for line in text.splitlines():
        if OPTION_FAILURES.search(line):     # before its usage text
            return "bad --testpmd-args option: " + line.strip()
    for line in text.splitlines():
        if any(p in line for p in PORT_FAILURES):
            return "port start failed: " + line.strip()
    for line in text.splitlines():
        if CORE_FAILURES.search(line):
            return "too few cores for its lcores: " + line.strip()
    return None


_STAT = re.compile(r"([A-Za-z][A-Za-z-]*):\s+(\d+)")
_PORT_HEAD = re.compile(r"(NIC|Forward) statistics for port\s+(\d+)")


def parse_stats(text):
    """{port: {"nic": {...}, "fwd": {...}}} from the output of "show port
    stats all" and "show fwd stats all"; keys as testpmd prints them
    (RX-packets, TX-dropped, ...).  testpmd prints its counters indented;
    its other threads print events at column 0 ("Port 0: link state change
    event", "VHOST_CONFIG: ... vhost peer closed"), often with an empty
    line first, into the middle of a block while QEMU closes its sockets:
    those lines and empty ones neither count nor end the block."""
    ports, current = {}, None
    for line in text.splitlines():
        head = _PORT_HEAD.search(line)
        stripped = line.strip()
        if head:
            kind = "nic" if head.group(1) == "NIC" else "fwd"
            current = ports.setdefault(int(head.group(2)), {}).setdefault(
                kind, {})
        elif not stripped or not line[:1].isspace():
            continue
        elif set(stripped) <= set("#-+") or "for all ports" in line:
            current = None
        elif current is not None and "pps" not in line:
            current.update((k, int(v)) for k, v in _STAT.findall(line))
    return ports


# what one reading must hold for every port to count as complete
NEEDED = {"nic": ("RX-packets", "RX-bytes", "TX-packets", "TX-bytes"),
          "fwd": ("RX-dropped", "TX-dropped")}


def complete(ports):
    """Both ports with every counter cross_check reads."""
    return all(key in ((ports.get(p) or {}).get(kind) or {})
               for p in range(len(SOCKETS)) for kind, keys in NEEDED.items()
               for key in keys)


def settled(read, tries=4):
    """Counters from read() once two complete readings in a row agree (an
    event line can still split a counter's line in two); TestpmdError
    after tries readings."""
    last = None
    for _ in range(tries):
        ports = read()
        if complete(ports) and ports == last:
            return ports
        last = ports if complete(ports) else None
    raise TestpmdError("testpmd's port counters did not read the same twice "
                       "in %d readings (output mixed with its event lines?)"
                       % tries)


def stats_delta(before, after):
    """after - before, per port, kind and counter."""
    out = {}
    for port, kinds in after.items():
        for kind, counters in kinds.items():
            base = (before.get(port) or {}).get(kind) or {}
            out.setdefault(port, {})[kind] = {
                k: v - base.get(k, 0) for k, v in counters.items()}
    return out


def _count(delta, port, kind, key):
    return ((delta.get(port) or {}).get(kind) or {}).get(key, 0)


def cross_check(delta, totals):
    """testpmd's counters for one boot against the guest's totals record
    ({"type":"virtio_totals"}): (ok, detail)."""
    if not totals:
        return False, "the guest sent no virtio_totals record"
    sent, got = totals.get("nic_a_tx_frames", 0), totals.get(
        "nic_b_rx_frames", 0)
    rx0 = _count(delta, 0, "nic", "RX-packets")
    tx1 = _count(delta, 1, "nic", "TX-packets")
    rxb0 = _count(delta, 0, "nic", "RX-bytes")
    txb1 = _count(delta, 1, "nic", "TX-bytes")
    dropped = sum(_count(delta, p, "fwd", k) for p in (0, 1)
                  for k in ("RX-dropped", "TX-dropped"))
    missed = sum(_count(delta, p, "nic", k) for p in (0, 1)
                 for k in ("RX-missed", "RX-errors", "TX-errors"))
    probes_lost = totals.get("probes_sent", 0) - totals.get(
        "probes_received", 0)
    detail = ("guest NIC A sent %d frames (%d B), testpmd port 0 received %d "
              "(%d B); port 1 sent %d (%d B), guest NIC B received %d (%d B); "
              "testpmd dropped %d, missed/errors %d (probe frames lost "
              "before forwarding began: %d)"
              % (sent, totals.get("nic_a_tx_bytes", 0), rx0, rxb0, tx1, txb1,
                 got, totals.get("nic_b_rx_bytes", 0), dropped, missed,
                 probes_lost))
    # Only probe frames may vanish, before port 1 is up (io mode counts
    # them as dropped, noisy mode does not): the guest's own check holds
    # every measured frame to 0 lost.
    allowed = max(probes_lost, 0)
    ok = (rx0 == sent and tx1 == got and rxb0 == totals.get(
        "nic_a_tx_bytes") and txb1 == totals.get("nic_b_rx_bytes")
          and missed == 0 and 0 <= rx0 - tx1 <= allowed
          and dropped <= allowed)
    return ok, detail


# ---------------------------------------------------------------- process

class Testpmd:
    """One testpmd process serving every boot of a run."""

    def __init__(self, binary, app_args, private_dir, say=None, cpus=None,
                 avoid=()):
        self.avoid = tuple(avoid or ())
        self.binary = binary
        self.app_args = list(app_args)
        self.dir = private_dir
        self.say = say or (lambda text: None)
        self.cpus = cpus
        self.prefix = "trapmeter-%d-%d" % (os.getpid(), next(_SERIAL))
        self.proc = None
        self.log_path = os.path.join(private_dir, LOG_NAME)
        self.argv = None
        self._log = None
        self._text = []
        self._lock = threading.Lock()
        self._reader = None
        self.env = dict(os.environ, XDG_RUNTIME_DIR=private_dir)
        self.runtime_dir = runtime_dir(self.prefix, self.env)

    # -- start-up
    def resolve(self):
        found = shutil.which(self.binary)
        if found is None:
            raise TestpmdError(
                "testpmd not found: %s (install Debian's dpdk-dev, or give "
                "--testpmd PATH)" % self.binary)
        return found

    def start(self, timeout=READY_TIMEOUT_S):
        """Start testpmd and wait (bounded) until both ports are up."""
        binary = self.resolve()
        cores, main, warning = place_cores(self.app_args, self.cpus,
                                           self.avoid)
        if warning:
            self.say("warning: " + warning)
        os.makedirs(self.dir, exist_ok=True)
        self.argv = build_argv(binary, self.dir, self.prefix, cores,
                               self.app_args, main)
        self._log = open(self.log_path, "wb")
        master, slave = os.openpty()
        try:
            self.proc = children.spawn(
                self.argv, stdin=subprocess.PIPE, stdout=slave,
                stderr=slave, cwd=self.dir, env=self.env)
        except OSError as exc:
            os.close(master)
            raise TestpmdError("cannot execute %s: %s"
                               % (binary, exc.strerror or exc))
        finally:
            os.close(slave)
        self._reader = threading.Thread(target=self._read, args=(master,),
                                        daemon=True)
        self._reader.start()
        self.say("testpmd started (pid %d, lcores %s: main %d, forwarding %s)"
                 % (self.proc.pid, ",".join(str(c) for c in cores), main,
                    ",".join(str(c) for c in cores if c != main)))
        self.wait_ready(timeout)

    def _read(self, master):
        """Copy testpmd's terminal output to the log until it closes."""
        try:
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                chunk = chunk.replace(b"\r", b"")
                with self._lock:
                    self._text.append(chunk.decode("utf-8", "replace"))
                    if self._log is not None:
                        self._log.write(chunk)
                        self._log.flush()
        finally:
            os.close(master)

    def log_text(self):
        with self._lock:
            if len(self._text) > 1:
                self._text[:] = ["".join(self._text)]
            return self._text[0] if self._text else ""

    def _tail(self, lines=6):
        text = [l for l in self.log_text().splitlines() if l.strip()]
        return " | ".join(text[-lines:])

    def wait_ready(self, timeout):
        """Ready: the prompt is there, no port failed, both sockets exist."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.log_text()
            problem = classify_failure(text)
            if problem:
                raise TestpmdError("testpmd: " + problem)
            if self.proc.poll() is not None:
                self._started_and_died()
            socks = all(os.path.exists(os.path.join(self.dir, s))
                        for s in SOCKETS)
            if PROMPT in text and socks:
                return
            if time.monotonic() > deadline:
                raise TestpmdError("testpmd not ready after %g s (prompt %s, "
                                   "sockets %s): %s"
                                   % (timeout, "seen" if PROMPT in text
                                      else "missing", "present" if socks
                                      else "missing", self._tail()))
            time.sleep(POLL_S)

    def _started_and_died(self):
        """testpmd ended during start-up: name why from all it printed.
        Its last lines may still be on their way through the terminal
        when the exit is seen, so the reader is given READER_DRAIN_S to
        take them first."""
        self._reader.join(READER_DRAIN_S)
        text = self.log_text()
        problem = classify_failure(text)
        if problem:
            raise TestpmdError("testpmd: " + problem)
        raise TestpmdError("testpmd exited with status %s during start-up: "
                           "%s" % (self.proc.returncode, self._tail()))

    # -- while running
    def check_alive(self, when):
        if self.proc is None or self.proc.poll() is None:
            return
        code = self.proc.returncode
        how = ("killed by signal %d" % -code) if code < 0 else (
            "exited with status %d" % code)
        raise TestpmdError("testpmd %s %s: %s" % (how, when, self._tail()))

    def command(self, line, timeout=STATS_TIMEOUT_S):
        """Send one prompt command; the output it printed before the next
        prompt."""
        self.check_alive("before '%s'" % line)
        start = len(self.log_text())
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            self.check_alive("while sending '%s'" % line)
            raise TestpmdError("testpmd does not read its prompt")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.log_text()[start:]
            if PROMPT in out:
                return out[:out.rindex(PROMPT)]
            self.check_alive("while answering '%s'" % line)
            time.sleep(POLL_S)
        raise TestpmdError("testpmd gave no prompt within %g s after '%s'"
                           % (timeout, line))

    def read_stats(self):
        text = self.command("show port stats all")
        text += self.command("show fwd stats all")
        return parse_stats(text)

    def stats(self):
        """The ports' counters, read until two readings agree: between
        boots they stand still."""
        return settled(self.read_stats)

    # -- shutdown
    def stop(self):
        """quit, then SIGTERM, then SIGKILL; remove the runtime files."""
        proc, self.proc = self.proc, None
        if proc is not None:
            _stop_process(proc)
        if self._reader is not None:
            self._reader.join(KILL_GRACE_S)
            self._reader = None
        with self._lock:
            if self._log is not None:
                self._log.close()
                self._log = None
        shutil.rmtree(self.runtime_dir, ignore_errors=True)
        for name in SOCKETS:
            try:
                os.unlink(os.path.join(self.dir, name))
            except OSError:
                pass


def _stop_process(proc):
    """testpmd's own "quit" first (it stops its ports), then the group."""
    try:
        if proc.poll() is None:
            proc.stdin.write(b"quit\n")
            proc.stdin.flush()
        proc.wait(timeout=QUIT_GRACE_S)
    except (OSError, subprocess.TimeoutExpired):
        pass
    children.stop(proc, KILL_GRACE_S)
    try:
        proc.stdin.close()
    except OSError:
        pass


# ---------------------------------------------------------------- per boot

def totals_record(dump):
    for rec in (dump.other if dump is not None else []):
        if rec.get("type") == "virtio_totals":
            return rec
    return None


def boot_check(before, after, dump):
    """The host-side check of one boot: testpmd's counters moved exactly
    as the guest says its NICs did."""
    delta = stats_delta(before, after)
    ok, detail = cross_check(delta, totals_record(dump))
    return {"type": "check", "name": "vhost.testpmd_stats", "ok": ok,
            "detail": detail, "source": "host",
            "testpmd_delta": {str(p): v for p, v in delta.items()}}
