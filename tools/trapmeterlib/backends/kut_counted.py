"""What KVM counted in each vmexit case: its vCPU counters (QMP
query-stats, counters/qmp.py), read at every line vmexit prints, per
iteration of the case's loops.

A figure line closes its case's window, opened by the line before it
(backends/kut_vmexit.py).  The window holds all the case's doublings
(64, 128, ... iterations, kut_vmexit.all_iterations) and the line before
it; the counters' change over the window, over those iterations, is what
one iteration of vmexit's loop costs in exits, emulated instructions and
injected interrupts.  The read lags the line by the pipe and QMP's
round trip (about a millisecond here): that much of the next case's
first, shortest loops falls in this window, and QEMU answers a vCPU query
on the vCPU's thread, which leaves the guest once (one exit) per read,
early in the next case, never in the loop whose mean vmexit prints (the
last doubling: half its window or more).  Counted over all vCPUs; a
parallel case (ple_round_robin) runs its iterations on each."""

from ..counters import qmp
from ..stats import kutsession
from .kut_log import FIGURE_RE, VMEXIT_NAMES, case_name
from .kut_vmexit import all_iterations

# KVM's x86 vCPU counters kut reads
COUNTERS = kutsession.COUNTERS
# what an iteration figure is rounded to: significant digits, not
# places, so that a small rate keeps its precision (vmexit's
# x2apic_self_ipi_sti_nop takes about 0.0065 interrupts an iteration;
# three places stored 0.006 or 0.007, and the counted interrupts model
# multiplies that rate by an interrupt's 120-170 k cycles)
DIGITS = 6


class StatsReader:
    """Reads COUNTERS over QMP at each call (LineSampler's on_line); the
    first failure is kept in .error and ends the reading (None after it),
    so a QEMU without query-stats costs one attempt, not one a line."""

    # QEMU makes its socket before the guest runs, so it is there at the
    # first line; the reading holds up the line reader, so it waits little
    CONNECT_S = 1.0

    def __init__(self, path, alive):
        self.path, self.alive = path, alive
        self.conn, self.error = None, None

    def __call__(self):
        if self.error is not None:
            return None
        try:
            if self.conn is None:
                self.conn = qmp.Qmp(self.path, self.CONNECT_S, self.alive)
            got = self.conn.vcpu_stats(names=COUNTERS)
        except qmp.QmpError as exc:
            self.error = str(exc)
            return None
        if not got:
            self.error = "query-stats gave none of %s" % ", ".join(COUNTERS)
            return None
        return got

    def close(self):
        if self.conn is not None:
            self.conn.close()


def qemu_args(path):
    """The QMP socket option of vmexit's QEMU command line."""
    return ["-qmp", "unix:%s,server=on,wait=off" % path]


def per_iteration(counted, tsc_khz=None):
    """{case: {"iterations": n, counter: change / n}} of a vmexit boot:
    counted is [(elapsed s, line, {counter: value} or None)] at each line
    in order (LineSampler.counted); with the TSC's rate the window's
    length settles a doubling the mean leaves open (all_iterations).  A
    case whose window lacks a reading at either end, or whose counter
    went down (untrusted input), has no entry or no such counter."""
    out, prev = {}, (None, None)
    for elapsed, line, got in counted:
        found = FIGURE_RE.match((line or "").strip())
        if found and isinstance(prev[1], dict) and isinstance(got, dict):
            n = all_iterations(int(found.group("cycles")),
                               elapsed - prev[0], tsc_khz)
            row = _changes(prev[1], got, n)
            if row:
                out[case_name(found.group("name"), found.group("sub"))] = row
        prev = (elapsed, got)
    return out


def per_boot(counted, error, tsc_khz=None):
    """kut's entry of one vmexit boot: {"cases": per_iteration(...)},
    with "error" (the reader's first failure) where it cost a figure line
    other than the boot's last its reading.  vmexit ends its boot at its
    last line and QEMU with it, often before that line's reading: the
    case is named as "last_uncounted", not as a failure."""
    out = {"cases": per_iteration(counted, tsc_khz)}
    figures = [(line, got) for _t, line, got in counted
               if FIGURE_RE.match((line or "").strip())]
    lost = [line for line, got in figures if got is None]
    if lost and lost[-1] == figures[-1][0]:
        found = FIGURE_RE.match(lost.pop().strip())
        out["last_uncounted"] = case_name(found.group("name"),
                                          found.group("sub"))
    if error and lost:
        out["error"] = error
    return out


def _changes(before, after, n):
    """{"iterations": n, counter: change / n} of the counters both
    readings hold and that did not go down; None without iterations."""
    if not n:
        return None
    row = {"iterations": n}
    for name in COUNTERS:
        a, b = before.get(name), after.get(name)
        if isinstance(a, int) and isinstance(b, int) and b >= a:
            row[name] = float("%.*g" % (DIGITS, (b - a) / n))
    return row if len(row) > 1 else None


def attach(boots, order, counted):
    """Each round of boots (stats/kutcmp.py's, rounds in `order`) with
    "vmexit_counted": {vmexit name: per-iteration row} of kut's saved
    entries (a pci case's first pci-testdev test, as its figure:
    kutsession.vmexit_name); the boots returned."""
    where = {rnd: i for i, rnd in enumerate(order)}
    for boot in boots:
        boot.setdefault("vmexit_counted", {})
    for entry in counted if isinstance(counted, list) else []:
        if not isinstance(entry, dict) or not isinstance(
                entry.get("round"), int) or entry["round"] not in where or \
                not isinstance(entry.get("cases"), dict):
            continue
        cell = boots[where[entry["round"]]]["vmexit_counted"]
        for case, row in entry["cases"].items():
            name = kutsession.vmexit_name(case, VMEXIT_NAMES)
            if name and isinstance(row, dict):
                cell.setdefault(name, row)
    return boots
