/*
 * drivers/acpi_pm.c - find the ACPI PM I/O block that firmware programmed.
 *   pc:  PIIX4 function 3 (8086:7113) at 00:01.3, PMBA at 0x40 (bits 15:6),
 *        enabled by PMREGMISC (0x80) bit 0.  SeaBIOS puts it at 0x600,
 *        OVMF at 0xb000.
 *   q35: ICH9 LPC (8086:2918) at 00:1f.0, PMBASE at 0x40 (bits 15:7),
 *        enabled by ACPI_CNTL (0x44) bit 7.
 * QEMU answers these registers in userspace: a QEMU IN target of 16 and
 * 32 bits, which fw_cfg (8-bit only) cannot be.
 */
#include "drivers/acpi_pm.h"
#include "drivers/pci.h"

#define PCI_VENDOR_INTEL   0x8086
#define PIIX4_PM_DEVICE    0x7113
#define ICH9_LPC_DEVICE    0x2918
#define PIIX4_PMBA         0x40
#define PIIX4_PMREGMISC    0x80
#define PIIX4_PMIOSE       0x01
#define ICH9_PMBASE        0x40
#define ICH9_ACPI_CNTL     0x44
#define ICH9_ACPI_EN       0x80

static bool is_dev(u8 dev, u8 fn, u16 device)
{
	u32 id = pci_cfg_read32(0, dev, fn, 0);

	return (id & 0xffff) == PCI_VENDOR_INTEL && (id >> 16) == device;
}

u16 acpi_pm_base(void)
{
	if (is_dev(1, 3, PIIX4_PM_DEVICE)) {
		if (!(pci_cfg_read8(0, 1, 3, PIIX4_PMREGMISC) & PIIX4_PMIOSE))
			return 0;
		return pci_cfg_read16(0, 1, 3, PIIX4_PMBA) & 0xffc0;
	}
	if (is_dev(0x1f, 0, ICH9_LPC_DEVICE)) {
		if (!(pci_cfg_read8(0, 0x1f, 0, ICH9_ACPI_CNTL) & ICH9_ACPI_EN))
			return 0;
		return pci_cfg_read16(0, 0x1f, 0, ICH9_PMBASE) & 0xff80;
	}
	return 0;
}
