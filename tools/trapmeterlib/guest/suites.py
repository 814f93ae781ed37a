"""The host halves of the guest's suites, registered once, in the order
kernel/suites/suites.h declares the suites (tests/host/test_suites.py
checks that the two lists agree).  The runner calls each suite through
the hooks of HostSuite, in SUITES' order, and names no suite itself:

  add_options(add)            the suite's run options (argparse's
                              add_argument of `trapmeter run`)
  annotate(dump, config)      the host's figures and labels on the boot's
                              records (config: results.json's "config")
  after_boot(state, dump)     the suite's own check after a boot: a
                              failure message, or None (state: what the
                              runner prepared for the suite, or None)
  boot_fields(dump, config)   keys the suite adds to the boot's entry
  render(dump)                the boot's own tables (--table full, parse)
  render_boots(boot_results)  the same over --repeat boots

Every hook has a default that does nothing, so a suite overrides only
what it has; a new suite is its C file (kernel/suites/) and one class
here.  Which suites a boot ran is the guest's business: a hook meets
records of other suites and leaves them alone."""

from . import dma, dma_vnet, firmware_suite, ide, mmio, virtio


class HostSuite:
    """A suite's host half; `name` is the guest's (suite=NAME)."""

    name = ""

    def add_options(self, add):
        """Add the suite's run options."""

    def annotate(self, dump, config):
        """Figures and labels the host adds to the boot's records."""

    def after_boot(self, state, dump):
        """A failure message of the suite's own check, or None."""
        return None

    def boot_fields(self, dump, config):
        """Keys for the boot's entry in results.json."""
        return {}

    def render(self, dump):
        """The boot's own tables, "" without any."""
        return ""

    def render_boots(self, boot_results):
        """The suite's tables over several boots, "" without any."""
        return ""


class Pio(HostSuite):
    name = "pio"


class Exits(HostSuite):
    name = "exits"


class Virtio(HostSuite):
    name = "virtio"

    def add_options(self, add):
        virtio.add_options(add)

    def annotate(self, dump, config):
        virtio.annotate(dump, config.get("virtio"))

    def boot_fields(self, dump, config):
        return virtio.boot_fields(dump, config.get("virtio"))

    def render(self, dump):
        sizes = virtio.render_sizes(dump.results)
        return "\n" + "\n".join(sizes) + "\n" if sizes else ""


class Ide(HostSuite):
    name = "ide"

    def after_boot(self, state, dump):
        return ide.after_boot(state, dump)

    def render(self, dump):
        return ide.render(dump)


class Mmio(HostSuite):
    name = "mmio"

    def add_options(self, add):
        mmio.add_options(add)

    def annotate(self, dump, config):
        mmio.annotate(dump.results)

    def render(self, dump):
        return mmio.render(dump.results)


class Dma(HostSuite):
    """Suite dma: its PCI cases by IOMMU mode (dma.py) and virtio-net as a
    DMA client (dma_vnet.py)."""

    name = "dma"

    def annotate(self, dump, config):
        dma.annotate(dump.results)
        dma_vnet.annotate(dump.results)

    def render(self, dump):
        return dma.render(dump) + dma_vnet.render(dump)

    def render_boots(self, boot_results):
        return (dma.render_boots(boot_results, "dma by IOMMU mode over %d "
                                 "boots" % len(boot_results))
                + dma_vnet.render_boots(boot_results))


class Firmware(HostSuite):
    """Suite firmware: its audit records joined to the results, the audit
    table (firmware_suite.py; the runner's image choice is there too)."""

    name = "firmware"

    def annotate(self, dump, config):
        firmware_suite.annotate(dump)

    def render(self, dump):
        return firmware_suite.render(dump)


# kernel/suites/suites.h's order: pio exits virtio ide mmio dma firmware
SUITES = (Pio(), Exits(), Virtio(), Ide(), Mmio(), Dma(), Firmware())


def by_name(name):
    """The registered suite of that name, or None."""
    return next((s for s in SUITES if s.name == name), None)


def rendered(dump):
    """Every suite's tables of one boot, in SUITES' order."""
    return "".join(s.render(dump) for s in SUITES)


def rendered_boots(boot_results):
    """Every suite's tables over boots, in SUITES' order."""
    return "".join(s.render_boots(boot_results) for s in SUITES)
