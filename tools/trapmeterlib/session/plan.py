"""A run is a value: RunPlan, the options of one `trapmeter run` checked
and resolved once (build_plan), then never changed.  What varies between
boots of one command (the virtio matrix's paths, the viommu sweep's
settings, ab's counted boots and its sample plan) is a new plan made with
dataclasses.replace or a method here, never an edit of the argparse
namespace (tests/host/test_pylayout.py fails on `args.X = ...` in the
library).

The suites' own run options (guest/suites.py, add_options) are kept by
name in `suite_options` and read as attributes of the plan, so a suite's
host half reads a plan as it read the namespace (`plan.virtio_nics`)."""

import dataclasses
import os
import types
from typing import Optional

from ..guest import firmware_suite, ide, plan as sample_plan, qemu, rounds, \
    suites, viommu, virtio
from ..output import logfile
from ..system import pinning, priority
from ..system.outpaths import check_outputs
from ..values.errors import OptionError

# `run`'s options a plan holds as fields (argparse dest -> field); a
# derived field (pin_cpus, ide_disk_bytes, plan_entries) is computed here
DIRECT = ("accel", "boot", "firmware", "machine", "suite", "case", "repeat",
          "timeout", "json", "log", "quick", "rounds", "plan", "qemu",
          "no_build", "count_exits", "exit_counter", "kernel_irqchip", "smp",
          "nice", "no_lock", "lock_timeout", "junit", "table", "html", "verbose",
          "ide_readonly", "no_ide_cd")
SWEEP_SUITE = "dma"         # the one suite a --viommu sweep runs


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """One run's options, checked: what every boot of it reads."""
    accel: str = "auto"
    boot: str = "direct"
    firmware: str = "auto"          # "ovmf" is "uefi" here (the guest's name)
    machine: str = "pc"
    suite: Optional[str] = None
    case: Optional[str] = None
    cmdline: tuple = ()             # --cmdline, each value as given
    repeat: int = 1
    timeout: Optional[float] = None
    json: Optional[str] = "results.json"
    log: Optional[str] = None       # resolved: --log DIR is DIR/serial.log
    quick: bool = False
    rounds: Optional[int] = None
    plan: Optional[str] = None      # --plan FILE (a fixed sample plan)
    plan_entries: Optional[tuple] = None
    qemu: str = "qemu-system-x86_64"
    no_build: bool = False
    count_exits: Optional[bool] = None
    exit_counter: str = "qmp"
    kernel_irqchip: str = "on"
    smp: str = "auto"
    pin_cpus: Optional[tuple] = None
    nice: Optional[int] = None      # QEMU's niceness (system/priority.py)
    no_lock: bool = False
    lock_timeout: float = 1800.0
    junit: Optional[str] = None
    table: str = "summary"
    html: Optional[str] = None
    verbose: bool = False
    viommu: tuple = ("off",)
    ide_disk_bytes: int = 0
    ide_readonly: bool = False
    no_ide_cd: bool = False
    extra: tuple = ()               # QEMU arguments after '--'
    suite_options: types.MappingProxyType = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({}))

    def __getattr__(self, name):
        """A suite's own option (guest/suites.py) by its argparse name."""
        options = self.__dict__.get("suite_options")
        if options is not None and name in options:
            return options[name]
        raise AttributeError(name)

    @property
    def virtio_matrix(self):
        return bool(self.suite_options.get("virtio_matrix"))

    @property
    def sweep(self):
        """Whether --viommu names more than one setting."""
        return len(self.viommu) > 1

    def with_suite_options(self, **values):
        """The plan with some suite options changed (the matrix's paths)."""
        merged = dict(self.suite_options, **values)
        return dataclasses.replace(
            self, suite_options=types.MappingProxyType(merged))

    def with_sample_plan(self, path, entries):
        """The plan of a boot that runs a fixed sample plan (ab's boots):
        its cases, and its suites when the options name none."""
        suite = self.suite or ",".join(sample_plan.suites(entries))
        return dataclasses.replace(self, plan=path, suite=suite,
                                   plan_entries=tuple(entries))


def suite_option_names():
    """The argparse names of the options the suites add (add_options)."""
    names = []

    def record(*flags, **kw):
        long = next((f for f in flags if f.startswith("--")), flags[0])
        names.append(kw.get("dest") or long.lstrip("-").replace("-", "_"))
    for suite in suites.SUITES:
        suite.add_options(record)
    return tuple(names)


def build_plan(args, extra=(), say=lambda text: None, **overrides):
    """The checked RunPlan of `run`'s parsed options (`args` is read,
    never written; `overrides` replace some of its values first, as ab
    does for its boots); an OptionError names the first bad option."""
    values = dict(vars(args), **overrides)
    fields = {name: values[name] for name in DIRECT}
    fields["suite_options"] = types.MappingProxyType(
        {n: values.get(n) for n in suite_option_names()})
    fields.update(cmdline=tuple(values.get("cmdline") or ()),
                  viommu=tuple(values.get("viommu") or ("off",)),
                  extra=tuple(extra))
    plan = RunPlan(**fields)
    if plan.sweep:
        plan = _sweep_checked(plan, say)
    elif plan.virtio_matrix:
        plan = _matrix_checked(plan, say)
    return _checked(plan, values.get("pin_cpu", "none"),
                    values.get("ide_disk_size", "0"))


def _sweep_checked(plan, say):
    """A --viommu sweep runs suite dma alone (commands/viommu_sweep.py)."""
    listed = ",".join(plan.viommu)
    if plan.suite is None:
        plan = dataclasses.replace(plan, suite=SWEEP_SUITE)
        say("--viommu %s: a sweep of suite dma (--suite dma)" % listed)
    others = [s for s in plan.suite.split(",") if s != SWEEP_SUITE]
    if others:
        raise OptionError(
            "--viommu %s sweeps suite dma only (its PCI cases are paired by "
            "mode; suite %s keeps one name in every setting): use --suite "
            "dma, and run %s without a sweep"
            % (listed, others[0], ",".join(others)))
    if plan.plan:
        raise OptionError("--plan fixes one boot's cases; the settings of "
                          "--viommu %s boot different ones" % listed)
    if plan.virtio_matrix:
        raise OptionError("--virtio-matrix and a --viommu sweep: choose one")
    problem = viommu.problem(plan.viommu, plan.machine)
    if problem:
        raise OptionError(problem)
    return plan


def _matrix_checked(plan, say):
    """--virtio-matrix: its option checks, and suite virtio in the list."""
    problem = virtio.validate(plan)
    if problem:
        raise OptionError(problem)
    if not plan.suite:
        return dataclasses.replace(plan, suite=virtio.SUITE)
    if not virtio.wanted(plan.suite):
        say("--virtio-matrix: adding the virtio suite to --suite %s"
            % plan.suite)
        return dataclasses.replace(plan, suite=plan.suite + "," + virtio.SUITE)
    return plan


def _checked(plan, pin_cpu, ide_disk_size):
    """Every check of a run's options, in the order a user meets them;
    the derived fields filled in."""
    plan = dataclasses.replace(plan, log=logfile.resolve(plan.log))
    check_outputs([("--plan", plan.plan)], [
        ("--json", plan.json), ("--log", plan.log), ("--junit", plan.junit),
        ("--html", plan.html)])
    try:
        plan = dataclasses.replace(plan,
                                   ide_disk_bytes=ide.parse_size(ide_disk_size))
    except ide.IdeOptionError as exc:
        raise OptionError(str(exc))
    _check_numbers(plan)
    try:
        pins = pinning.parse(pin_cpu, pinning.allowed_cpus())
    except pinning.PinError as exc:
        raise OptionError(str(exc))
    try:
        plan = dataclasses.replace(plan, pin_cpus=pins,
                                   nice=priority.parse(plan.nice))
    except priority.PriorityError as exc:
        raise OptionError(str(exc))
    check_words(plan)
    if plan.plan:
        try:
            entries = sample_plan.load(plan.plan)
        except sample_plan.PlanError as exc:
            raise OptionError(str(exc))
        plan = plan.with_sample_plan(plan.plan, entries)
    plan = _firmware_checked(plan)
    problem = (None if plan.virtio_matrix else virtio.validate(plan)) \
        or viommu.problem(plan.viommu, plan.machine)
    if problem:
        raise OptionError(problem)
    for opt in ("json", "html"):
        path = getattr(plan, opt)
        where = os.path.dirname(os.path.abspath(path)) if path else None
        if where and not os.path.isdir(where):
            raise OptionError("--%s %s: directory %s does not exist"
                              % (opt, path, where))
    _check_user_words(plan)
    return plan


def _check_numbers(plan):
    if plan.rounds is not None and not 1 <= plan.rounds <= rounds.MAX_ROUNDS:
        raise OptionError("--rounds must be 1..%d (got %d)"
                          % (rounds.MAX_ROUNDS, plan.rounds))
    if plan.repeat < 1:
        raise OptionError("--repeat must be at least 1 (got %d)" % plan.repeat)
    if plan.timeout is not None and not plan.timeout > 0:
        raise OptionError("--timeout must be a positive number of seconds")
    if not 0 <= plan.lock_timeout < float("inf"):
        raise OptionError("--lock-timeout must be a finite number of seconds "
                          "at or above 0")


def check_words(options):
    """--suite and --case become single kernel words (`options`: a plan,
    or lava-job's parsed options)."""
    for name in ("suite", "case"):
        value = getattr(options, name)
        if value is not None and (not value or any(c.isspace()
                                                   for c in value)):
            raise OptionError("--%s must be a non-empty word without spaces "
                              "(got %r)" % (name, value))


def _check_user_words(plan):
    """--cmdline's words may not set what an option or the runner sets."""
    problem = qemu.words_problem(user_words(plan), {
        "suite": plan.suite is not None, "case": plan.case is not None,
        "quick": plan.quick, "rounds": plan.rounds is not None})
    if problem:
        raise OptionError(problem)


def _firmware_checked(plan):
    problem = firmware_suite.problem(plan.suite, plan.boot, plan.firmware)
    if problem:
        raise OptionError(problem)
    if plan.firmware == "ovmf":
        plan = dataclasses.replace(plan, firmware="uefi")   # the guest's name
    if plan.firmware == "qboot" and plan.boot != "direct":
        raise OptionError("--firmware qboot needs --boot direct (qboot "
                          "boots no CD)")
    if plan.firmware == "uefi" and plan.boot == "direct":
        raise OptionError("--firmware uefi needs --boot iso (direct -kernel "
                          "boot under OVMF is unsupported)")
    if plan.firmware == "uefi":
        for path in (qemu.OVMF_CODE, qemu.OVMF_VARS):
            if not os.path.isfile(path):
                raise OptionError("OVMF firmware file %s not found (install "
                                  "the 'ovmf' package)" % path)
    return plan


def user_words(plan):
    """--cmdline's words, all values together."""
    return " ".join(plan.cmdline).split()


def matrix_plans(plan):
    """[(transport, ioeventfd, plan)] of --virtio-matrix: one plan per
    path, in virtio.MATRIX's order; the kernel is built (unless
    --no-build) before the first only."""
    return [(t, i, dataclasses.replace(
        plan.with_suite_options(virtio_transport=t, ioeventfd=i),
        no_build=plan.no_build or n > 0))
        for n, (t, i) in enumerate(virtio.MATRIX)]


def sweep_plans(plan):
    """[(setting, plan)] of a --viommu sweep: one plan per setting, its
    --log FILE as FILE.SETTING; the kernel is built (unless --no-build)
    before the first only."""
    return [(setting, dataclasses.replace(
        plan, viommu=(setting,), log=logfile.setting_path(plan.log, setting),
        no_build=plan.no_build or n > 0))
        for n, setting in enumerate(plan.viommu)]
