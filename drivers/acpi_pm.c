/*
 * drivers/acpi_pm.c - find the ACPI PM I/O block that firmware programmed.
 *   pc:  PIIX4 function 3 (8086:7113), usually 00:01.3, PMBA at 0x40 (bits 15:6),
 *        enabled by PMREGMISC (0x80) bit 0.  SeaBIOS puts it at 0x600,
 *        OVMF at 0xb000.
 *   q35: ICH9 LPC (8086:2918), usually 00:1f.0, PMBASE at 0x40 (bits 15:7),
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

u16 acpi_pm_base(void)
{
	struct pci_dev d;

	if (pci_find_id(PCI_VENDOR_INTEL, PIIX4_PM_DEVICE, &d)) {
		if (!(pci_dev_read8(&d, PIIX4_PMREGMISC) & PIIX4_PMIOSE))
			return 0;
		return pci_dev_read16(&d, PIIX4_PMBA) & 0xffc0;
	}
	if (pci_find_id(PCI_VENDOR_INTEL, ICH9_LPC_DEVICE, &d)) {
		if (!(pci_dev_read8(&d, ICH9_ACPI_CNTL) & ICH9_ACPI_EN))
			return 0;
		return pci_dev_read16(&d, ICH9_PMBASE) & 0xff80;
	}
	return 0;
}
