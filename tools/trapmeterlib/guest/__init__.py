"""trapmeterlib.guest - the guest side: booting QEMU and reading its dump,
the plan and its rounds, and the host halves of the ide, dma, virtio,
viommu and mmio suites (the record schema lives in values/)."""
