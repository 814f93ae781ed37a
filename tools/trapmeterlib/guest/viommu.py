"""The virtual IOMMU of a run (`--viommu off|intel`): QEMU's Intel VT-d
model (`-device intel-iommu`, hw/i386/intel_iommu.c) exists only on the
q35 machine, so `intel` needs `--machine q35`.  The guest finds it through
the ACPI DMAR table QEMU adds and suite dma runs its PCI cases in every
mode the unit offers (kernel/suites/dma_vtd.h).  A comma list
(`--viommu off,intel`) is a sweep: one QEMU per setting, one after the
other, into one results.json (commands/viommu_sweep.py); the off boot
gives mode none, the one a single boot with a unit cannot give.

QEMU's defaults are kept: aw-bits=39 (3-level second-level tables),
pt=on (pass-through), no interrupt remapping (it would need
kernel-irqchip=split), caching-mode=off (no assigned devices)."""

import argparse

CHOICES = ("off", "intel")
DEVICE = ["-device", "intel-iommu"]


def parse(value):
    """--viommu's value as a tuple of settings: one, or a sweep."""
    words = value.split(",")
    bad = [w for w in words if w not in CHOICES]
    if bad:
        raise argparse.ArgumentTypeError(
            "%r is not a setting: off, intel, or a comma list of them (a "
            "sweep, e.g. off,intel)" % (bad[0],))
    if len(set(words)) != len(words):
        raise argparse.ArgumentTypeError(
            "%r names a setting twice (a sweep boots each once; --repeat "
            "repeats them)" % value)
    return tuple(words)


def add_options(add):
    """Runner options (called from commands.run.add_parser)."""
    add("--viommu", metavar="off|intel[,...]", type=parse, default=("off",),
        help="virtual IOMMU: intel attaches QEMU's VT-d (-device "
        "intel-iommu; needs --machine q35) and suite dma runs its PCI cases "
        "with translation off, pass-through, 4 KiB and 2 MiB pages; a comma "
        "list (off,intel) boots once per setting into one results.json, "
        "suite dma only (default off)")


def intel(args):
    """Whether this boot (or, before a sweep splits it, any of its boots)
    has the Intel unit: --viommu is a tuple of settings."""
    return "intel" in tuple(getattr(args, "viommu", None) or ())


def problem(settings, machine):
    """Why the settings cannot run on the machine, or None."""
    if "intel" in settings and machine != "q35":
        return ("--viommu intel needs --machine q35 (QEMU's intel-iommu is "
                "a q35 device; got --machine %s)" % machine)
    return None


def device_args(viommu):
    """QEMU arguments.  They follow the disk and NIC devices on the command
    line; QEMU 7.2 translates those all the same (suite dma's fault probes
    see faults from the IDE function and the NIC)."""
    return list(DEVICE) if viommu == "intel" else []
