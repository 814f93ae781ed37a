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

from ..guest import dma, dma_vnet, viommu
from ..output import logfile
from ..values import exitstatus
from .common import OptionError, say

SUITE = "dma"


def wanted(args):
    """Whether --viommu names more than one setting."""
    return len(args.viommu) > 1


def problem(args):
    """Why the sweep cannot run with these options, or None (an omitted
    --suite becomes dma)."""
    listed = ",".join(args.viommu)
    if args.suite is None:
        args.suite = SUITE
        say("--viommu %s: a sweep of suite dma (--suite dma)" % listed)
    others = [s for s in args.suite.split(",") if s != SUITE]
    if others:
        return ("--viommu %s sweeps suite dma only (its PCI cases are paired "
                "by mode; suite %s keeps one name in every setting): use "
                "--suite dma, and run %s without a sweep"
                % (listed, others[0], ",".join(others)))
    if args.plan:
        return ("--plan fixes one boot's cases; the settings of --viommu %s "
                "boot different ones" % listed)
    if args.virtio_matrix:
        return "--virtio-matrix and a --viommu sweep: choose one"
    return viommu.problem(args.viommu, args.machine)


def run(session, prepare, run_boots, lock_log):
    """Boot each setting --repeat times; returns the worst status.
    prepare(session) -> cfg and run_boots(session, cfg) are run's."""
    args = session.args
    why = problem(args)
    if why:
        raise OptionError(why)
    settings, base = args.viommu, logfile.resolve(args.log)
    lock = lock_log(base)
    worst = exitstatus.OK
    try:
        for number, setting in enumerate(settings, 1):
            say("viommu sweep %d/%d: --viommu %s" % (number, len(settings),
                                                    setting))
            code = one_setting(session, prepare, run_boots, setting,
                               logfile.setting_path(base, setting))
            worst = max(worst, code)
            if code >= exitstatus.BAD_INPUT:
                if number < len(settings):
                    say("viommu sweep: stopping after --viommu %s (status "
                        "%s)" % (setting, exitstatus.status_name(code)))
                break
    finally:
        args.viommu, args.log = settings, base
        if lock is not None:
            lock.release()
        session.config.update(viommu=",".join(settings),
                              viommu_sweep=list(settings))
        session.summary = {"viommu_sweep": sweep_record(session.boots)}
    if args.table == "full":
        print_table(session)
    return worst


def one_setting(session, prepare, run_boots, setting, log):
    """The boots of one setting, each marked with it."""
    args = session.args
    args.viommu, args.log = (setting,), log
    first = len(session.boots)
    cfg = prepare(session)
    args.no_build = True
    try:
        code = run_boots(session, cfg)
    finally:
        for index, boot in enumerate(session.boots[first:], first):
            boot.update(index=index, viommu=setting,
                        qemu_argv=session.config.get("qemu_argv"))
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


def print_table(session):
    """--table full: the by-mode table over every boot of the sweep."""
    boots = [b.get("results") or [] for b in session.boots]
    text = dma.render_boots(boots, "dma by IOMMU mode over the sweep's %d boots"
                            % len(session.boots)) + dma_vnet.render_boots(boots)
    session.status.close()
    sys.stdout.write(text)
    sys.stdout.flush()
