"""The mmio suite's side of the runner: the QEMU devices whose MMIO (and
I/O BARs) the guest measures, per handler class:

  -device pc-testdev      64 KiB at 0xff000000 that QEMU answers and that
                          stores what is written (handler user)
  -device pci-testdev     the ioeventfd test registers kvm-unit-tests'
                          vmexit uses: BAR0 (MMIO) and BAR1 (I/O ports)
  -device e1000           most of BAR0 is coalesced MMIO (hw/net/e1000.c),
                          on its own hub with nothing else on it

They are attached when the selected suites need them: suite mmio (or
all), or suite pio with --case (its extended cases use pci-testdev's I/O
BAR).  `--mmio-devices off` leaves them out, so the guest's skip paths
can be seen; `on` attaches them whatever the suites."""

SUITE = "mmio"
CHOICES = ("auto", "on", "off")
E1000_MAC = "52:54:00:74:6d:e1"
E1000_HUB = 7            # not the virtio suite's hub 0


def add_options(add):
    """Runner options (called from commands.run.add_parser)."""
    add("--mmio-devices", choices=CHOICES, default="auto",
        help="attach pc-testdev, pci-testdev and an e1000 for the mmio "
        "suite (auto: when suite mmio/all, or pio with --case, is "
        "selected; off: never, to see the skips; on: always)")


def _suites(words):
    chosen = []
    for word in words:
        if word.startswith("suite="):
            chosen = word[len("suite="):].split(",")
    return chosen


def wanted(words, mode="auto"):
    """Do the kernel words (or the mode) ask for the mmio devices?"""
    if mode != "auto":
        return mode == "on"
    suites = _suites(words)
    if SUITE in suites or "all" in suites:
        return True
    has_case = any(w.startswith("case=") for w in words)
    return has_case and "pio" in suites


def device_args(words, mode="auto"):
    """QEMU arguments for the mmio suite's devices (empty when unwanted)."""
    if not wanted(words, mode):
        return []
    return ["-device", "pc-testdev",
            "-device", "pci-testdev",
            "-netdev", "hubport,id=tme1000,hubid=%d" % E1000_HUB,
            "-device", "e1000,netdev=tme1000,mac=%s,romfile=" % E1000_MAC]
