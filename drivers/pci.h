/*
 * drivers/pci.h - PCI configuration space, mechanism #1 (0xcf8/0xcfc):
 * reads and writes, enumeration of bus 0 and the buses behind PCI-PCI
 * bridges, BAR sizing, the capability list and the command register.
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include "lib/types.h"

#define PCI_VENDOR_NONE 0xffff

/* Configuration header offsets (PCI Local Bus 3.0, 6.1) */
#define PCI_VENDOR_ID       0x00
#define PCI_DEVICE_ID       0x02
#define PCI_COMMAND         0x04
#define PCI_STATUS          0x06
#define PCI_CLASS_REVISION  0x08
#define PCI_HEADER_TYPE     0x0e
#define PCI_BAR0            0x10
#define PCI_SUBSYSTEM_ID    0x2e
#define PCI_CAP_PTR         0x34
#define PCI_SECONDARY_BUS   0x19   /* type 1 (bridge) header */

#define PCI_COMMAND_IO      (1u << 0)
#define PCI_COMMAND_MEMORY  (1u << 1)
#define PCI_COMMAND_MASTER  (1u << 2)
#define PCI_STATUS_CAP_LIST (1u << 4)

#define PCI_NUM_BARS        6
#define PCI_MAX_DEVICES     64

struct pci_bar {
	u64 addr;       /* bus address (identity mapped when used) */
	u64 size;       /* 0: BAR not implemented */
	bool io;        /* I/O space, else memory */
	bool mem64;     /* 64-bit memory BAR (takes two slots) */
};

struct pci_dev {
	u8 bus, dev, fn;
	u16 vendor, device;
	u16 subsys_id;
	u8 class_code, subclass, prog_if;
	u8 header_type;
	struct pci_bar bar[PCI_NUM_BARS];
};

u32 pci_cfg_read32(u8 bus, u8 dev, u8 fn, u8 off);
u16 pci_cfg_read16(u8 bus, u8 dev, u8 fn, u8 off);
u8 pci_cfg_read8(u8 bus, u8 dev, u8 fn, u8 off);
void pci_cfg_write32(u8 bus, u8 dev, u8 fn, u8 off, u32 v);
void pci_cfg_write16(u8 bus, u8 dev, u8 fn, u8 off, u16 v);

/* Enumerate bus 0 and every bus behind a bridge; fills at most max
 * entries (BARs sized) and returns how many functions were found. */
u32 pci_scan(struct pci_dev *out, u32 max);

/* First capability with this id at or after offset `from` (0: from the
 * list head); returns its config offset, or 0 when there is none. */
u8 pci_cap_find(const struct pci_dev *d, u8 cap_id, u8 from);

/* Set bits (PCI_COMMAND_*) in the command register. */
void pci_enable(const struct pci_dev *d, u16 bits);

/*
 * The one enumeration every driver uses: scan all buses (pci_scan) and
 * copy out the first function whose class/subclass (pci_find_class) or
 * vendor/device ids (pci_find_id) match.  False when there is none.
 */
bool pci_find_class(u8 class_code, u8 subclass, struct pci_dev *out);
bool pci_find_id(u16 vendor, u16 device, struct pci_dev *out);

u8 pci_dev_read8(const struct pci_dev *d, u8 off);
u16 pci_dev_read16(const struct pci_dev *d, u8 off);
u32 pci_dev_read32(const struct pci_dev *d, u8 off);

#endif
