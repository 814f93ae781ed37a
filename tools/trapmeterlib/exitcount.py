"""Measured VM exits per operation (`run --count-exits`, default under KVM).

The guest (kernel word sync=on) brackets each case's measured samples, and
an idle phase of the same length, with sync lines and waits for one byte on
COM1 after each (kernel/phase_sync.c).  At every sync line the runner pauses
the VM over QMP, reads the vCPU counters (query-stats), queues the byte and
resumes.  Per case:

  measured = (M - (polls_m1 - 1)) - (I - (polls_i1 - 1))

where M and I are the counter deltas over the measured (m0..m1) and idle
(i0..i1) windows and polls_* the guest's status-register polls at the end
point of each window that happened before the pause (each is itself an
exit).  Sync lines of one case have the same length, so their traffic and
any background ticks cancel in M - I.  The counting itself is pure
(snapshots in, fields out) so it is tested without QEMU."""

from . import qmp

SYNC_BYTE = b"s"
PHASES = ("m0", "m1", "i0", "i1")
# Counters that also count the guest's polls of the UART status register.
POLLED = ("exits", "io_exits")
# Below this many exits per op, or fewer exits in the whole window than
# this or than the idle window's background (on a software backend that
# ticks with emulated instructions, hundreds per second), a cycles/exit
# figure means nothing.
MIN_EXITS_FOR_COST = 0.5
MIN_WINDOW_EXITS_FOR_COST = 64
MODEL_TOLERANCE = 0.10
TCG_NOTE = ("TCG has no VM exits: exits_measured and cycles_per_exit stay "
            "null")


class ExitCounter:
    """Answers the guest's sync lines during one boot and keeps the
    counter snapshots of every case."""

    def __init__(self, sock_path, say=None):
        self.sock_path = sock_path
        self.say = say or (lambda _msg: None)
        self.conn = None
        self.failed = None          # why counting stopped, once
        self.groups = {}            # case name -> [ {phase: stats} ]
        self._current = None
        self.offered = None         # counter names the host offers

    def _connect(self, proc):
        if self.conn is None and self.failed is None:
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

    def on_sync(self, rec, qp):
        """Snapshot the counters for this sync point, then release the
        guest (always, even when counting failed: it must not wait)."""
        conn = self._connect(qp.proc)
        stats = None
        try:
            if conn is not None:
                conn.command("stop")
        except qmp.QmpError as exc:
            self._fail(str(exc))
            conn = None
        try:
            qp.send(SYNC_BYTE)
        except OSError:
            pass
        if conn is not None:
            try:
                stats = conn.vcpu_stats()
                conn.command("cont")
            except qmp.QmpError as exc:
                self._fail(str(exc))
        self._record(rec.get("case"), rec.get("phase"), stats)

    def _record(self, case, phase, stats):
        if stats is not None and self.offered is None:
            self.offered = sorted(stats)
        if phase == "m0" or self._current is None:
            self._current = {"case": case}
        if self._current.get("case") != case:
            self._current = {"case": case}
        self._current[phase] = stats
        if phase == "i1":
            self.groups.setdefault(case, []).append(self._current)
            self._current = None

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def apply(self, results):
        """Fill exits_measured etc. into the boot's result records."""
        taken = {}
        for res in results:
            name = res.get("case")
            index = taken.get(name, 0)
            group = (self.groups.get(name) or [])[index:index + 1]
            taken[name] = index + 1
            fill_result(res, group[0] if group else None, self.failed)
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


def window_deltas(group, sync):
    """({counter: exits over the whole measured phase}, {counter: exits of
    the idle window: the background the result is measured against})."""
    snaps = [group.get(p) for p in PHASES]
    if any(not isinstance(s, dict) for s in snaps):
        return None, None
    m0, m1, i0, i1 = snaps
    deltas, idle = {}, {}
    for name in m0:
        vals = [_int(s.get(name)) for s in snaps]
        if None in vals:
            continue
        moved = (m1[name] - m0[name]) + (i1[name] - i0[name])
        busy, rest = m1[name] - m0[name], i1[name] - i0[name]
        # a counter that never moved (io_exits on PVM) counted no polls
        if name in POLLED and moved:
            busy -= sync["polls_m1"] - 1
            rest -= sync["polls_i1"] - 1
        deltas[name] = busy - rest
        idle[name] = rest
    return deltas, idle


def choose_counter(res, deltas):
    """io_exits for port I/O cases when the host reports them, else exits."""
    is_pio = res.get("dir") in ("in", "out") and res.get("method") != "dma"
    if is_pio and deltas.get("io_exits", 0) > 0:
        return "io_exits"
    return "exits" if "exits" in deltas else None


def _empty(res, why):
    res.update(exits_measured=None, cycles_per_exit=None, exits_counter=None,
               exit_stats_per_op=None, exits_model_mismatch=None,
               exits_background=None, exits_note=why)
    return res


def _sync_fields(sync):
    need = ("polls_m1", "polls_i1", "timeouts")
    if not isinstance(sync, dict) or any(_int(sync.get(k)) is None
                                         for k in need):
        return None
    return sync


def fill_result(res, group, failed=None):
    """Set the measured-exit fields of one result record (pure)."""
    sync = _sync_fields(res.get("sync"))
    if failed:
        return _empty(res, "exit counting failed: %s" % failed)
    if sync is None:
        return _empty(res, "no sync record from the guest (sync=on?)")
    if sync["timeouts"]:
        return _empty(res, "guest timed out waiting at %d sync point(s): "
                      "count invalid" % sync["timeouts"])
    ops = _ops(res)
    deltas, idle = window_deltas(group, sync) if group else (None, None)
    if ops is None or not deltas:
        return _empty(res, "no counter snapshots for this case (host "
                      "offers no vCPU stats?)")
    counter = choose_counter(res, deltas)
    if counter is None:
        return _empty(res, "the host reports no 'exits' counter")
    per_op = deltas[counter] / ops
    res.update(exits_measured=round(per_op, 3), exits_counter=counter,
               exit_stats_per_op={k: round(v / ops, 3)
                                  for k, v in sorted(deltas.items())},
               exits_note=None)
    res["exits_background"] = idle[counter]
    _cost_and_model(res, per_op, deltas[counter], idle[counter])
    if per_op < 0:
        res["exits_note"] = ("fewer exits than the idle window of the same "
                             "length: none distinguishable from the background")
    return res


def _cost_and_model(res, per_op, window_exits, background):
    # the cost per exit comes from the net figure (case minus its control)
    # when the case has a control
    cycles = res.get("cycles_net", res.get("cycles"))
    median = cycles.get("median") if isinstance(cycles, dict) else None
    res["cycles_per_exit"] = None
    floor = max(MIN_WINDOW_EXITS_FOR_COST, background)
    if per_op >= MIN_EXITS_FOR_COST and window_exits < floor:
        res["exits_note"] = ("%d exits in the window against %d in the idle "
                             "window: too few to attribute a cost per exit"
                             % (window_exits, background))
    elif isinstance(median, (int, float)) and median > 0 and \
            per_op >= MIN_EXITS_FOR_COST:
        res["cycles_per_exit"] = round(median / per_op, 1)
    model = res.get("exits_model")
    res["exits_model_mismatch"] = None
    if isinstance(model, (int, float)) and not isinstance(model, bool):
        if model > 0:
            res["exits_model_mismatch"] = bool(
                abs(per_op - model) > MODEL_TOLERANCE * model)
        else:
            res["exits_model_mismatch"] = per_op >= MIN_EXITS_FOR_COST


def mark_uncounted(results, why):
    for res in results:
        _empty(res, why)
    return results
