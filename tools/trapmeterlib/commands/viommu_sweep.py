"""`run --viommu off,intel`: a sweep of the virtual IOMMU, one QEMU per
setting, one after the other, into one results.json.

Suite dma's PCI cases run in modes off, pt, 4k and 2m with a unit and in
mode none without one; no single boot has both, so the by-mode table
(guest/dma.py) gets its five columns from a sweep.  Each setting boots
--repeat times (its own build of the command line, its own temporary
directory, its --log run.log as run.SETTING.log); each boot in
results.json records its setting ("viommu") and QEMU command line, the
config the sweep ("viommu_sweep"), and every dma result keeps its mode,
so the off boot's plain bm.* names are mode none and the intel boot's
mode 4k.

Only suite dma: its cases are paired by mode name, while the other
suites' cases keep one name across the settings, and `compare` or the
summary would pool two machines' figures as boots of one (resultsfile
refuses a file whose boots differ in setting).  A boot that ends 2-7
stops the sweep as it stops --repeat; the worst status wins."""

import sys

from ..guest import dma, dma_vnet
from ..session import plan as run_plan_mod
from ..session.runner import run_plan
from ..values import exitstatus
from .common import say


def run(plan, record, con, lock_log):
    """Boot each setting --repeat times into `record`, one plan per
    setting (session/plan.py sweep_plans; the options were checked when
    the plan was built); returns the worst status."""
    settings = plan.viommu
    lock = lock_log(plan.log)
    worst = exitstatus.OK
    try:
        for number, (setting, one) in enumerate(
                run_plan_mod.sweep_plans(plan), 1):
            say("viommu sweep %d/%d: --viommu %s" % (number, len(settings),
                                                    setting))
            code = one_setting(one, record, con, setting)
            worst = max(worst, code)
            if code >= exitstatus.BAD_INPUT:
                if number < len(settings):
                    say("viommu sweep: stopping after --viommu %s (status "
                        "%s)" % (setting, exitstatus.status_name(code)))
                break
    finally:
        if lock is not None:
            lock.release()
        record.config.update(viommu=",".join(settings),
                             viommu_sweep=list(settings))
        record.summary = {"viommu_sweep": sweep_record(record.boots)}
    if plan.table == "full":
        print_table(record, con)
    return worst


def one_setting(plan, record, con, setting):
    """The boots of one setting, each marked with it."""
    first = len(record.boots)
    try:
        code, _dumps = run_plan(plan, record, con)
    finally:
        for index, boot in enumerate(record.boots[first:], first):
            boot.update(index=index, viommu=setting,
                        qemu_argv=record.config.get("qemu_argv"))
    return code


def sweep_record(boots):
    """[{"viommu", "boots": [indices], "exit_code", "status"}] per
    setting, in order; a setting's status is its worst boot's."""
    out = []
    for boot in boots:
        if not out or out[-1]["viommu"] != boot.get("viommu"):
            out.append({"viommu": boot.get("viommu"), "boots": [],
                        "exit_code": exitstatus.OK})
        out[-1]["boots"].append(boot["index"])
        out[-1]["exit_code"] = max(out[-1]["exit_code"],
                                   boot.get("exit_code") or exitstatus.OK)
    for entry in out:
        entry["status"] = exitstatus.status_name(entry["exit_code"])
    return out


def print_table(record, con):
    """--table full: the by-mode table over every boot of the sweep."""
    boots = [b.get("results") or [] for b in record.boots]
    text = dma.render_boots(boots, "dma by IOMMU mode over the sweep's %d boots"
                            % len(record.boots)) + dma_vnet.render_boots(boots)
    con.status.close()
    sys.stdout.write(text)
    sys.stdout.flush()
