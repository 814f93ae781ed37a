"""Booting kvm-unit-tests' x86/vmexit.flat the way trapmeter's exits suite
boots: the same QEMU binary, accelerator (and its options), CPU model and
machine, read from the trapmeter boot's own QEMU command line, plus the
devices vmexit expects (x86/run: pc-testdev, isa-debug-exit at 0xf4,
pci-testdev) and the PIT's lost-tick policy x86/run sets.

Which vmexit cases a boot asks for: vmexit names by vCPU count (ipi,
ipi_halt and ple_round_robin need a second vCPU, as unittests.cfg gives
them; every other case runs on one, as vmexit's parallel cases would
otherwise run on every vCPU at once), minus those that cannot return on
this host (named, never silently)."""

import os

from ..values.errors import InputError
from .kut_log import VMEXIT_NAMES

SMP2 = ("ipi", "ipi_halt", "ple_round_robin")
FLAT = os.path.join("x86", "vmexit.flat")
# options of trapmeter's QEMU command line that make "the same machine"
SAME = ("-accel", "-cpu", "-M", "-machine", "-m")
# vmexit cases that do not return on a backend: {flavour: {name: why}}
HANGS = {"pvm": {
    "vmcall": "the hypercall never returns on the PVM backend (trapmeter "
              "passes hypercall=off there for the same reason)"}}


class KutDirError(InputError):
    """--kut-dir is not a kvm-unit-tests build (exit status 2)."""


def flat_path(kut_dir):
    """The built vmexit.flat under a kvm-unit-tests directory."""
    path = os.path.join(kut_dir, FLAT)
    if not os.path.isfile(path):
        raise KutDirError(
            "%s: no %s: --kut-dir must be a kvm-unit-tests tree built with "
            "./configure && make" % (kut_dir, FLAT))
    return path


def same_machine(qemu_argv):
    """The options of a trapmeter QEMU command line that vmexit's boot
    takes over (accelerator, CPU model, machine, memory), in order."""
    out, argv = [], list(qemu_argv or [])
    for i, word in enumerate(argv[:-1]):
        if word in SAME:
            out += [word, argv[i + 1]]
    return out


def names_for(smp, flavour, wanted=None):
    """(vmexit names for a boot with `smp` vCPUs, {name: why left out})."""
    pool = [n for n in VMEXIT_NAMES if (n in SMP2) == (smp == 2)]
    if wanted:
        pool = [n for n in pool if n in wanted]
    left = {n: why for n, why in HANGS.get(flavour or "", {}).items()
            if n in pool}
    return [n for n in pool if n not in left], left


def argv(qemu, machine_args, smp, flat, names):
    """vmexit's QEMU command line; its serial output on stdout."""
    return [qemu, "-nodefaults", "-no-reboot", "-display", "none",
            "-serial", "stdio", "-smp", str(smp)] + list(machine_args) + [
        "-global", "kvm-pit.lost_tick_policy=discard",
        "-device", "pc-testdev",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4",
        "-device", "pci-testdev",
        "-kernel", flat, "-append", " ".join(names)]
