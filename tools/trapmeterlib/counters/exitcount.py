"""Measured VM exits per operation (`run --count-exits`, default under KVM;
`--exit-counter qmp|perf|both` picks the counter).

The guest (kernel word sync=on) marks phase points with sync lines and waits
for one byte on COM1 after each (kernel/phase_sync.h): m0, the timed
samples, m1, and, when the runner answers m1 with "c", an untimed count
window c0, one sample's worth of ops, c1.  A sync line names no case: the
`case` line before it does.  At every point the runner pauses the VM over
QMP, reads the vCPU counters (query-stats), steers perf, queues the byte
and resumes.

QMP, per case, over the timed window:

  exits = (M - (polls_m1 - 1)) - S

where M is the counter delta over m0..m1, polls_m1 the guest's
status-register polls at m1 that happened before the pause (each is itself
an exit), and S the sync traffic of one window: every sync line has the
same length and starts with the UART's transmit FIFO drained, so each
window's traffic (reading the byte at its start, the sync line at its end)
is the same, and S is measured once per boot, as the median of the empty
windows e0..e5 of the pseudo case "background" (each without its own
polls).  A software backend's `exits` also ticks with emulated
instructions; that background is not subtracted: the same pseudo case's
100 ms idle spin (e5..sp) measures its rate, and each result says how much
it could at most have added (`exits_background_max`).

perf (tools/trapmeterlib/counters/perfcount.py), per case, over the count window:
the trapped accesses the host's KVM tracepoints saw, without the COM1 sync
ports, divided by the window's ops.

The counting itself is pure (snapshots in, fields out) so it is tested
without QEMU.

Size: QMP's and perf's windows, the idle-spin calibration and their
cross-check are one pipeline over the same snapshots."""

from dataclasses import dataclass

from ..stats.bootstats import median
from ..stats.exitcheck import (MIN_EXITS_FOR_COST, counters_differ,
                               model_mismatch)
from ..values.resultform import COUNT_BELOW
from . import qmp
from .perfcount import PerfError, per_op

COUNTERS = ("qmp", "perf", "both")
SYNC_BYTE = b"s"
COUNT_BYTE = b"c"
PHASES = ("m0", "m1")
BACKGROUND_CASE = "background"
# the background's points: empty windows e0..e1, ..., e4..e5, the spin e5..sp
CAL_POINTS = ("e0", "e1", "e2", "e3", "e4", "e5")
SPIN_END = "sp"
BACKGROUND_POINTS = CAL_POINTS + (SPIN_END,)
REPORT_PHASE = "report"         # the background's last line: not answered
# Counters that also count the guest's polls of the UART status register.
POLLED = ("exits", "io_exits")
# Below MIN_EXITS_FOR_COST exits per op (stats/exitcheck.py), or fewer
# exits in the whole window than this or than an idle window of its length
# collects (on a software backend that ticks with emulated instructions,
# ~1.5 k per second), a cycles/exit figure means nothing.
MIN_WINDOW_EXITS_FOR_COST = 64
TCG_NOTE = ("TCG has no VM exits: exits_measured and cycles_per_exit stay "
            "null")


class ExitCounter:
    """Answers the guest's sync lines during one boot and keeps the
    counter snapshots of every case.  sock_path None: no QMP; perf None:
    no perf."""

    def __init__(self, sock_path, say=None, perf=None):
        self.sock_path = sock_path
        self.say = say or (lambda _msg: None)
        self.conn = None
        self.failed = None          # why QMP counting stopped, once
        self.perf = perf
        self._perf_started = False
        self.groups = {}            # case name -> [ {phase: stats, ...} ]
        self._current = None
        self._case = None           # named by the last `case` line

    def _connect(self, proc):
        if self.sock_path and self.conn is None and self.failed is None:
            try:
                self.conn = qmp.Qmp(self.sock_path,
                                    alive=lambda: proc.poll() is None)
            except qmp.QmpError as exc:
                self._fail(str(exc))
        return self.conn

    def _fail(self, why):
        if self.failed is None:
            self.failed = why
            self.say("warning: exit counting stopped: %s" % why)
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def _qmp(self, call):
        """call(conn) on the open QMP connection, None when there is none
        or it failed (then counting stops, once, with the reason)."""
        if self.conn is None:
            return None
        try:
            return call(self.conn)
        except qmp.QmpError as exc:
            self._fail(str(exc))
            return None

    def _perf_step(self, case, phase, pid):
        """Attach perf at the first point; enable at c0, disable at c1."""
        perf = self.perf
        if perf is None or not perf.active:
            return None
        try:
            if not self._perf_started:
                self._perf_started = True
                perf.start(pid)
            if phase == "c0":
                perf.enable()
            elif phase == "c1":
                return perf.disable()
        except (PerfError, OSError) as exc:
            perf.fail(str(exc))
        return None

    def reply(self, case, phase):
        """The byte for this point: "c" asks for the count window."""
        wants = (self.perf is not None and self.perf.active
                 and case != BACKGROUND_CASE)
        return COUNT_BYTE if phase == "m1" and wants else SYNC_BYTE

    def on_sync(self, rec, qp):
        """A `case` line names the case of the sync points after it.  At a
        sync point: snapshot the counters, then release the guest (always,
        even when counting failed: it must not wait).  The byte goes out
        once the VM is paused; the query and "cont" go in one write, and
        only the query's reply is waited for."""
        if rec.get("type") == "case":
            self._case = rec.get("case")
            return
        phase = rec.get("phase")
        case = BACKGROUND_CASE if phase in BACKGROUND_POINTS + (
            REPORT_PHASE,) else self._case
        if phase == REPORT_PHASE:
            self._record(case, phase, None, rec)
            return
        self._connect(qp.proc)
        self._qmp(lambda conn: conn.command("stop"))
        window = self._perf_step(case, phase, qp.proc.pid)
        try:
            qp.send(self.reply(case, phase))
        except OSError:
            pass
        stats = self._qmp(lambda conn: conn.vcpu_stats(then="cont"))
        self._record(case, phase, stats, rec, window)

    def _record(self, case, phase, stats, rec=None, window=None):
        if phase in ("e0", "m0") or self._current is None \
                or self._current.get("case") != case:
            self._current = {"case": case}
            self.groups.setdefault(case, []).append(self._current)
        if phase in PHASES or phase in BACKGROUND_POINTS:
            self._current[phase] = stats
        elif phase == "c1" and window is not None:
            self._current["perf_window"] = window
        elif phase == REPORT_PHASE and rec is not None:
            self._current.update(polls=rec.get("polls"),
                                 timeouts=rec.get("timeouts"),
                                 spin_cycles=rec.get("spin_cycles"))

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.perf is not None:
            self.perf.stop()

    def apply(self, results, run=None):
        """Fill exits_measured etc. into the boot's result records (after
        QEMU ended: perf's data is read here)."""
        windows = self.perf.counts() if self.perf is not None else []
        khz = tsc_khz(run)
        bg = (self.groups.get(BACKGROUND_CASE) or [None])[0]
        cal, why = calibration(bg)
        boot = BootCounting(
            use_qmp=bool(self.sock_path), qmp_failed=self.failed,
            perf_failed=self.perf.failed if self.perf is not None else None,
            background=background_rate(bg, khz, cal),
            khz=khz, sync_traffic=cal, sync_traffic_note=why)
        taken = {}
        for res in results:
            name = res.get("case")
            index = taken.get(name, 0)
            group = (self.groups.get(name) or [])[index:index + 1]
            taken[name] = index + 1
            group = group[0] if group else None
            fig = None
            if group and group.get("perf_window") is not None \
                    and group["perf_window"] < len(windows):
                fig = windows[group["perf_window"]]
            fill_result(res, group, fig, boot)
        return results


def _int(value):
    return value if isinstance(value, int) and not isinstance(
        value, bool) else None


def _ops(res):
    ops = _int(res.get("ops"))
    if ops is None:
        samples, iters = _int(res.get("samples")), _int(res.get("iters"))
        if samples is not None and iters is not None:
            ops = samples * iters
    return ops if ops and ops > 0 else None


def tsc_khz(run):
    tsc = run.get("tsc") if isinstance(run, dict) else None
    khz = _int(tsc.get("khz")) if isinstance(tsc, dict) else None
    return khz if khz and khz > 0 else None


def _delta(a, b, name, polls):
    """Counter `name` from snapshot a to b without the polls at b before
    the pause (polls - 1); a counter that never moved (io_exits on PVM)
    counted no polls.  None when either snapshot lacks it."""
    va, vb = _int(a.get(name)), _int(b.get(name))
    if va is None or vb is None:
        return None
    d = vb - va
    if name in POLLED and d != 0:
        d -= polls - 1
    return d


def calibration(group):
    """({counter: exits of one window's sync traffic}, None), or (None,
    why): the median over the background's empty windows e0..e5."""
    if not group:
        return None, "no sync calibration from the guest (background)"
    polls = group.get("polls")
    if not isinstance(polls, list) or len(polls) != len(BACKGROUND_POINTS) \
            or any(_int(p) is None for p in polls):
        return None, "no sync calibration report from the guest"
    if _int(group.get("timeouts")):
        return None, ("guest timed out at %d sync calibration point(s)"
                      % group["timeouts"])
    snaps = [group.get(p) for p in CAL_POINTS]
    if any(not isinstance(x, dict) for x in snaps):
        return None, "no QMP counter snapshots for the sync calibration"
    cal = {}
    for name in snaps[-1]:
        vals = [_delta(snaps[i - 1], snaps[i], name, polls[i])
                for i in range(1, len(snaps))]
        if None not in vals:
            cal[name] = median(vals)
    return cal, None


def window_deltas(group, sync, cal):
    """{counter: exits of the timed window without its sync traffic}."""
    snaps = [group.get(p) for p in PHASES]
    if any(not isinstance(x, dict) for x in snaps) or not cal:
        return None
    m0, m1 = snaps
    deltas = {}
    for name in m1:
        d = _delta(m0, m1, name, sync["polls_m1"])
        if d is not None and name in cal:
            deltas[name] = d - cal[name]
    return deltas


def background_rate(group, khz, cal):
    """Exits per second the QMP 'exits' counter collects in an idle spin
    (the boot's "background" pseudo case, e5..sp, without the sync
    traffic), or None."""
    if not group or not cal or "exits" not in cal:
        return None
    spin = _int(group.get("spin_cycles"))
    polls = group.get("polls")
    a, b = group.get(CAL_POINTS[-1]), group.get(SPIN_END)
    if not spin or not khz or not isinstance(a, dict) \
            or not isinstance(b, dict):
        return None
    d = _delta(a, b, "exits", polls[-1])
    if d is None:
        return None
    return round(max(d - cal["exits"], 0) / (spin / (khz * 1000.0)), 1)


def choose_counter(res, deltas):
    """io_exits for port I/O cases when the host reports them, else exits."""
    is_pio = res.get("dir") in ("in", "out") and res.get("method") != "dma"
    if is_pio and deltas.get("io_exits", 0) > 0:
        return "io_exits"
    return "exits" if "exits" in deltas else None


EMPTY_FIELDS = ("exits_measured", "exits_source", "cycles_per_exit",
                "exits_counter", "exit_stats_per_op", "exits_model_mismatch",
                "exits_qmp", "exits_perf", "exits_perf_user",
                "exits_perf_kernel", "exits_perf_ports", "exits_perf_reasons",
                "exits_perf_vm_exits", "exits_counters_differ",
                "exits_background_per_s", "exits_background_max")


# why a count is not resolved (stored as null beside it)
REASON_FIELDS = ("cycles_per_exit_reason", "exits_qmp_reason",
                 "exit_stats_per_op_reason")


def _empty(res, why):
    res.update({name: None for name in EMPTY_FIELDS})
    for name in REASON_FIELDS:
        res.pop(name, None)
    res["exits_note"] = why
    return res


def _sync_fields(sync):
    need = ("polls_m1", "timeouts")
    if not isinstance(sync, dict) or any(_int(sync.get(k)) is None
                                         for k in need):
        return None
    return sync


@dataclass
class BootCounting:
    """What holds for every result of one boot."""
    use_qmp: bool = True
    qmp_failed: str = None          # why QMP counting stopped
    perf_failed: str = None         # why perf counting stopped
    background: float = None        # QMP idle rate, exits per second
    khz: int = None                 # guest TSC
    sync_traffic: dict = None       # {counter: exits of one window's sync}
    sync_traffic_note: str = None   # why there is none


def fill_result(res, group, perf=None, boot=None):
    """Set the measured-exit fields of one result record (pure).  group:
    the case's QMP snapshots; perf: its count-window figures
    (perfcount.window_exits) or None."""
    boot = boot or BootCounting()
    sync = _sync_fields(res.get("sync"))
    if sync is None:
        return _empty(res, "no sync record from the guest (sync=on?)")
    if sync["timeouts"]:
        return _empty(res, "guest timed out waiting at %d sync point(s): "
                      "count invalid" % sync["timeouts"])
    ops = _ops(res)
    if ops is None:
        return _empty(res, "no op count in the result")
    _empty(res, None)
    notes = []
    window = _fill_qmp(res, group, boot, ops, notes)
    perf_ok = _fill_perf(res, perf, _int(sync.get("count_ops")),
                         boot.perf_failed, notes)
    _fill_background(res, boot, _int(sync.get("window_cycles")), ops)
    if perf_ok:
        res.update(exits_measured=res["exits_perf"], exits_source="perf")
    elif window is not None:
        res.update(exits_measured=res["exits_qmp"], exits_source="qmp")
    if window is not None and perf_ok:
        res["exits_counters_differ"] = counters_differ(
            res["exits_qmp"], res["exits_perf"], ops,
            res.get("exits_background_max"))
    if res["exits_measured"] is not None:
        _cost_and_model(res, ops, window, notes)
    res["exits_note"] = "; ".join(notes) if notes else None
    return res



def _fill_qmp(res, group, boot, ops, notes):
    """The QMP figures; returns the window's exit count or None."""
    if not boot.use_qmp:
        return None
    if boot.qmp_failed:
        notes.append("QMP exit counting failed: %s" % boot.qmp_failed)
        return None
    if not boot.sync_traffic:
        notes.append(boot.sync_traffic_note or "no sync calibration")
        return None
    deltas = window_deltas(group, res["sync"], boot.sync_traffic) \
        if group else None
    if not deltas:
        notes.append("no QMP counter snapshots for this case (host offers "
                     "no vCPU stats?)")
        return None
    counter = choose_counter(res, deltas)
    if counter is None:
        notes.append("the host reports no 'exits' counter")
        return None
    stats = {k: round(v / ops, 3) for k, v in sorted(deltas.items())}
    # the figure rule: a count below the empty window's is not resolved
    below = [k for k, v in stats.items() if v < 0]
    res.update(exits_qmp=None if stats[counter] < 0 else stats[counter],
               exits_counter=counter,
               exit_stats_per_op={k: None if v < 0 else v
                                  for k, v in stats.items()})
    if below:
        res["exit_stats_per_op_reason"] = "%s: %s" % (COUNT_BELOW, ", ".join(below))
    if stats[counter] < 0:
        res["exits_qmp_reason"] = COUNT_BELOW
        notes.append("fewer exits than the sync traffic of an empty "
                     "window: none distinguishable from it")
        return None
    return deltas[counter]


def _fill_perf(res, fig, count_ops, perf_failed, notes):
    if fig is None or not count_ops:
        if perf_failed:
            notes.append("perf exit counting failed: %s" % perf_failed)
        return False
    if fig["lost"]:
        notes.append("perf lost %d events: no perf count" % fig["lost"])
        return False
    figs = per_op(fig, count_ops)
    res.update(exits_perf=figs["exits"], exits_perf_user=figs["user"],
               exits_perf_kernel=figs["kernel"],
               exits_perf_ports=figs["ports"],
               exits_perf_reasons=figs["reasons"],
               exits_perf_vm_exits=figs["vm_exits"] or None)
    return True


def _fill_background(res, boot, window_cycles, ops):
    """The idle rate, and what it could at most have added per op to the
    QMP count (an idle window of the timed window's length); reported,
    never subtracted."""
    rate = boot.background
    res["exits_background_per_s"] = rate
    if rate is None or not boot.khz or window_cycles is None:
        return
    res["exits_background_max"] = round(
        rate * window_cycles / (boot.khz * 1000.0) / ops, 3)




def _cost_and_model(res, ops, window, notes):
    per_op = res["exits_measured"]
    # the cost per exit comes from the net figure (case minus its control)
    # when the case has a control
    cycles = res.get("cycles_net", res.get("cycles"))
    median = cycles.get("median") if isinstance(cycles, dict) else None
    background = (res.get("exits_background_max") or 0) * ops
    if res["exits_source"] == "qmp" and per_op >= MIN_EXITS_FOR_COST and \
            window < max(MIN_WINDOW_EXITS_FOR_COST, background):
        notes.append("%d exits in the window against up to %d of "
                     "background: too few to attribute a cost per exit"
                     % (window, background))
    elif isinstance(median, (int, float)) and median > 0 and \
            per_op >= MIN_EXITS_FOR_COST:
        res["cycles_per_exit"] = round(median / per_op, 1)
    elif res.get("cycles_net_reason") and per_op >= MIN_EXITS_FOR_COST:
        # the figure rule: no cost is divided from a net not resolved
        res["cycles_per_exit_reason"] = res["cycles_net_reason"]
    mismatch = model_mismatch(per_op, res.get("exits_model"),
                              res.get("exits_background_max"))
    if mismatch is not None:
        res["exits_model_mismatch"] = mismatch
    if per_op < 0:
        notes.append("fewer exits than the sync traffic of an empty "
                     "window: none distinguishable from it")


def mark_uncounted(results, why):
    for res in results:
        _empty(res, why)
    return results
