/*
 * drivers/acpi_pm.h - where the chipset's ACPI power-management I/O block is.
 */
#ifndef DRIVERS_ACPI_PM_H
#define DRIVERS_ACPI_PM_H

#include "lib/types.h"

#define ACPI_PM1_STS      0x00   /* PM1a event status, 16-bit */
#define ACPI_PM_TMR       0x08   /* 24-bit PM timer at 3.579545 MHz, 32-bit reads */

/* I/O base of the PM block (PIIX4 PM on `pc`, ICH9 LPC on `q35`), or 0
 * when the chipset is unknown or firmware left the block disabled. */
u16 acpi_pm_base(void);

#endif
