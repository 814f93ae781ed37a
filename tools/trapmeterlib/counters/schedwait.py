"""tools/trapmeterlib/counters/schedwait.py - how long QEMU's vCPU thread
waited for a host CPU while the guest measured, per boot and per case.

A guest's timed loop that is preempted on the host counts the time its
vCPU thread sat runnable on the run queue as cycles of the loop: on a
shared host that, not the exit path, sets most of a case's spread between
boots (docs/design.md, "Where the per-boot spread comes from here").  The
kernel keeps per thread (CONFIG_SCHED_INFO) in /proc/PID/task/TID/schedstat
three numbers: ns on a CPU, ns waiting on a run queue (run delay), time
slices; /proc/stat's `steal` column is time the hypervisor below this host
gave to its other guests.

The sampler reads the vCPU thread's schedstat at every dump record the
runner sees (a case line, a result, a round record: the guest's own
boundaries: the delay between a record and the result or round record
after it is the delay of the case that record closes) and /proc/stat at the boot's first and last record.  The
vCPU thread is QEMU's busiest thread (a 1-vCPU guest spends its boot in
KVM_RUN; QEMU names no thread without -name debug-threads=on).  Reading
costs one small file per record; nothing here changes what is measured."""

from ..system import fingerprint

USER_HZ = 100               # /proc/stat ticks per second (sysconf CLK_TCK)
STEAL_FIELD = 8             # "cpu user nice system idle iowait irq softirq steal"


def parse_schedstat(text):
    """(run ns, wait ns, time slices) of one schedstat line, or None."""
    words = (text or "").split()
    if len(words) < 3 or not all(w.isdigit() for w in words[:3]):
        return None
    return tuple(int(w) for w in words[:3])


def steal_ticks(stat_text):
    """The host's steal time over all CPUs in USER_HZ ticks (the first
    `cpu` line of /proc/stat), or None."""
    for line in (stat_text or "").splitlines():
        words = line.split()
        if words and words[0] == "cpu":
            if len(words) > STEAL_FIELD and words[STEAL_FIELD].isdigit():
                return int(words[STEAL_FIELD])
            return None
    return None


CLOSES = ("result", "round")  # records that end a case's window


def case_name(rec):
    """The case a record closes (its name: a round record names no
    suite, and case names are unique across suites), or None: a result or a
    later round's record closes the window since the record before it (a
    case line's opens one)."""
    if rec.get("type") not in CLOSES or rec.get("case") is None:
        return None
    return str(rec.get("case"))


class WaitSampler:
    """Samples the vCPU thread's run delay at dump records.

    `hst` reads /proc (fingerprint.Host: a fake root in tests), `root_pid`
    is the process whose descendants hold QEMU, `skip` pids to leave out
    (testpmd)."""

    def __init__(self, hst=None, root_pid=None, skip=()):
        self.hst = hst or fingerprint.Host()
        self.root_pid = root_pid
        self.skip = set(skip)
        self.thread = None          # (pid, tid) of the vCPU thread
        self.first = self.last = None
        self.steal = [None, None]
        self.cases = {}             # case -> [wait ns, elapsed s]
        self.last_elapsed = None

    def _threads(self):
        pids = fingerprint.descendants(self.root_pid, self.hst, self.skip) \
            if self.root_pid is not None else []
        for pid in pids:
            for tid in self.hst.names("proc/%d/task" % pid):
                yield pid, tid

    def _read(self, pid, tid):
        return parse_schedstat(self.hst.text(
            "proc/%d/task/%s/schedstat" % (pid, tid)))

    def _find(self):
        """The busiest thread of QEMU now, or None."""
        best, best_run = None, -1
        for pid, tid in self._threads():
            got = self._read(pid, tid)
            if got and got[0] > best_run:
                best, best_run = (pid, tid), got[0]
        return best

    def sample(self, rec, elapsed):
        """A reading at dump record `rec`; its delay since the previous
        reading goes to the case the record names."""
        if self.thread is None:
            self.thread = self._find()
            if self.thread is None:
                return
        now = self._read(*self.thread)
        if now is None:             # QEMU gone
            return
        if self.first is None:
            self.first = now
            self.steal[0] = steal_ticks(self.hst.text("proc/stat"))
        elif self.last is not None:
            name = case_name(rec)
            if name is not None:
                cell = self.cases.setdefault(name, [0, 0.0])
                cell[0] += now[1] - self.last[1]
                cell[1] += elapsed - self.last_elapsed
        self.last, self.last_elapsed = now, elapsed

    def finish(self):
        self.steal[1] = steal_ticks(self.hst.text("proc/stat"))

    def result(self):
        """{"run_s", "wait_s", "wait_share", "slices", "steal_s",
        "cases": {case: {"wait_ms", "window_ms"}}} between the
        boot's first and last record, or None without two readings."""
        if self.first is None or self.last is None or self.last is self.first:
            return None
        run, wait, slices = (b - a for a, b in zip(self.first, self.last))
        steal = None
        if None not in self.steal:
            steal = (self.steal[1] - self.steal[0]) / float(USER_HZ)
        return {"run_s": run / 1e9, "wait_s": wait / 1e9,
                "wait_share": wait / float(run + wait) if run + wait else 0.0,
                "slices": slices, "steal_s": steal,
                "cases": {k: {"wait_ms": v[0] / 1e6, "window_ms": 1e3 * v[1]}
                          for k, v in sorted(self.cases.items())}}
