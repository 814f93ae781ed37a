/*
 * drivers/pci.c - PCI configuration mechanism #1 (PCI Local Bus spec 3.0,
 * section 3.2.2.3.2): write the address to 0xcf8, move data through 0xcfc.
 * QEMU's i440FX and Q35 host bridges both implement it.  Used only for
 * set-up, never timed: QEMU coalesces 0xcf8 writes (DESIGN.md).
 */
#include "drivers/pci.h"
#include "arch/x86/io.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA    0xcfc
#define PCI_ENABLE         (1u << 31)

static void select_reg(u8 bus, u8 dev, u8 fn, u8 off)
{
	outl(PCI_ENABLE | (u32)bus << 16 | (u32)(dev & 0x1f) << 11 |
	     (u32)(fn & 7) << 8 | (off & 0xfc), PCI_CONFIG_ADDRESS);
}

u32 pci_cfg_read32(u8 bus, u8 dev, u8 fn, u8 off)
{
	select_reg(bus, dev, fn, off);
	return inl(PCI_CONFIG_DATA);
}

u16 pci_cfg_read16(u8 bus, u8 dev, u8 fn, u8 off)
{
	return pci_cfg_read32(bus, dev, fn, off) >> ((off & 2) * 8);
}

u8 pci_cfg_read8(u8 bus, u8 dev, u8 fn, u8 off)
{
	return pci_cfg_read32(bus, dev, fn, off) >> ((off & 3) * 8);
}
