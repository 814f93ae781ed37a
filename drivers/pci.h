/*
 * drivers/pci.h - PCI configuration space, mechanism #1 (0xcf8/0xcfc).
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include "kernel/types.h"

#define PCI_VENDOR_NONE 0xffff

u32 pci_cfg_read32(u8 bus, u8 dev, u8 fn, u8 off);
u16 pci_cfg_read16(u8 bus, u8 dev, u8 fn, u8 off);
u8 pci_cfg_read8(u8 bus, u8 dev, u8 fn, u8 off);

#endif
