"""The virtual IOMMU of a run (`--viommu off|intel`): QEMU's Intel VT-d
model (`-device intel-iommu`, hw/i386/intel_iommu.c) exists only on the
q35 machine, so `intel` needs `--machine q35`.  The guest finds it through
the ACPI DMAR table QEMU adds and suite dma runs its PCI cases in every
mode the unit offers (kernel/suites/dma_vtd.h).

QEMU's defaults are kept: aw-bits=39 (3-level second-level tables),
pt=on (pass-through), no interrupt remapping (it would need
kernel-irqchip=split), caching-mode=off (no assigned devices)."""

CHOICES = ("off", "intel")
DEVICE = ["-device", "intel-iommu"]


def add_options(add):
    """Runner options (called from commands.run.add_parser)."""
    add("--viommu", choices=CHOICES, default="off",
        help="virtual IOMMU: intel attaches QEMU's VT-d (-device "
        "intel-iommu; needs --machine q35) and suite dma runs its PCI cases "
        "with translation off, pass-through, 4 KiB and 2 MiB pages "
        "(default off)")


def problem(viommu, machine):
    """Why the pair cannot run, or None."""
    if viommu == "intel" and machine != "q35":
        return ("--viommu intel needs --machine q35 (QEMU's intel-iommu is "
                "a q35 device; got --machine %s)" % machine)
    return None


def device_args(viommu):
    """QEMU arguments; before every other device (QEMU wants the IOMMU
    created before the PCI devices it translates)."""
    return list(DEVICE) if viommu == "intel" else []
