"""A `kut` round's vmexit boots as one (`kut --vmexit-boots N`): per
case, the boot whose window printed the lowest figure.

vmexit prints one mean per case, over one span of 2^30 cycles, and on a
shared host noise only adds time: another tenant's work lands in a
window and lifts it, nothing lowers one.  A lifted window of a case or
of its reference moves that round's difference by thousands of cycles
(docs/measurements.md, "n35"); the lowest of a case's N windows is the
one the host disturbed least.  Its vCPU waits and KVM's counts come with
it, from the same boot and window, so every try reads one window."""

from .kut_log import KutLog


def lowest(boots):
    """(log, waits, counted, chosen) of one round's vmexit boots, each
    (KutLog or None, {case: wait entry}, counted entry {"cases": ...}) in
    boot order: log a KutLog of each case's lowest figure (None where no
    boot's log parsed), waits and counted that figure's boot's, chosen
    {case: index of that boot}."""
    logs = [(i, b[0]) for i, b in enumerate(boots) if b[0] is not None]
    if not logs:
        return None, {}, _counted(boots, {}), {}
    chosen = _chosen(logs)
    log = _merged(logs, chosen)
    waits = {case: boots[i][1][case] for case, i in chosen.items()
             if case in (boots[i][1] or {})}
    return log, waits, _counted(boots, chosen), chosen


def _chosen(logs):
    """{case: index of the boot with its lowest figure}, the earlier boot
    on a tie."""
    best = {}
    for i, log in logs:
        for case, _name, cycles, _parts in log.figures:
            if case not in best or cycles < best[case][1]:
                best[case] = (i, cycles)
    return {case: got[0] for case, got in best.items()}


def _merged(logs, chosen):
    """One KutLog: each case's figure line (and its count of x != 1
    iterations) from its chosen boot, in the order the boots printed
    them; a name skipped where no boot printed a figure for it; every
    boot's unreadable lines."""
    by_index = dict(logs)
    out = KutLog(logs[0][1].path)
    out.pm_timer = next((log.pm_timer for _i, log in logs
                         if log.pm_timer is not None), None)
    for i, log in logs:
        out.bad += ["boot %d: %s" % (i + 1, bad) for bad in log.bad]
        for fig in log.figures:
            if chosen.get(fig[0]) == i:
                out.figures.append(fig)
    order = {case: n for n, case in enumerate(
        case for _i, log in logs for case in log.cases)}
    out.figures.sort(key=lambda fig: order[fig[0]])
    for case in out.cases:
        odd = by_index[chosen[case]].odd
        if case in odd:
            out.odd[case] = odd[case]
    named = {fig[1] for fig in out.figures}
    out.skipped = list(dict.fromkeys(
        n for _i, log in logs for n in log.skipped if n not in named))
    return out


def _counted(boots, chosen):
    """KVM's counts of each chosen window (kut_counted.per_boot's entry):
    a case's row from its chosen boot; "last_uncounted" where that boot
    read none for it; "error" the first boot's that has one."""
    out = {"cases": {}}
    for case, i in chosen.items():
        entry = boots[i][2] or {}
        row = (entry.get("cases") or {}).get(case)
        if row is not None:
            out["cases"][case] = row
        elif entry.get("last_uncounted") == case:
            out["last_uncounted"] = case
    error = next((b[2]["error"] for b in boots
                  if b[2] and b[2].get("error")), None)
    if error:
        out["error"] = error
    return out


def figures(boots):
    """[{case: cycles}] of each boot's log (None: {}), for the results
    file: every window a round's figure was the lowest of."""
    return [{case: cycles for case, _n, cycles, _p in (b[0].figures
                                                        if b[0] else ())}
            for b in boots]
