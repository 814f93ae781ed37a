/*
 * drivers/pci_testdev.h - QEMU's PCI test device (`-device pci-testdev`,
 * hw/misc/pci-testdev.c; vendor 1b36 device 0005), the device
 * kvm-unit-tests' x86/vmexit uses for its pci-mem and pci-io figures.
 *
 * BAR0 is a 4 KiB memory region, BAR1 a 256-byte I/O region.  Writing a
 * test index (0 no-eventfd, 1 wildcard-eventfd, 2 datamatch-eventfd) to
 * offset 0 of a region selects that test on that side (MMIO or port);
 * only then does QEMU register the test's ioeventfd: one byte wide at the
 * header's `offset`, any value (wildcard) or only `data` (datamatch).  A
 * write QEMU itself sees at that offset increments the header's `count`;
 * one that KVM answers through the eventfd does not, so `count` tells
 * which writes reached QEMU.
 */
#ifndef DRIVERS_PCI_TESTDEV_H
#define DRIVERS_PCI_TESTDEV_H

#include "lib/types.h"
#include "drivers/pci.h"

#define PTD_VENDOR          0x1b36   /* Red Hat (QEMU) */
#define PTD_DEVICE          0x0005   /* PCI_DEVICE_ID_REDHAT_TEST */

enum ptd_test_index { PTD_NO_EVENTFD, PTD_WILDCARD, PTD_DATAMATCH, PTD_TESTS };

#define PTD_NAME_MAX        32

/* The selected test's header (PCITestDevHdr), read back from the device. */
struct ptd_test {
	u8 width;           /* access width the eventfd matches */
	u32 offset;         /* test register, from the region's start */
	u8 data;            /* datamatch value (0xfa), or 0xce */
	char name[PTD_NAME_MAX];   /* e.g. "mmio-datamatch-eventfd" */
};

struct pci_testdev {
	struct pci_dev pci;
	volatile u8 *mem;   /* BAR0, mapped */
	u16 io;             /* BAR1 base */
};

/* Find the device, enable decoding, map BAR0 (above 4 GiB too).
 * 0, or -ENODEV / -ERANGE with the reason in *why. */
int ptd_find(struct pci_testdev *t, const char **why);

/* Select test `index` on the MMIO (mem) or port side and read its
 * header.  0, or -EIO when the header does not look like one. */
int ptd_select(const struct pci_testdev *t, bool mem, u32 index, struct ptd_test *out);

/* The selected test's count of writes QEMU handled. */
u32 ptd_count(const struct pci_testdev *t, bool mem);

#endif
