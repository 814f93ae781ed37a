/*
 * drivers/pci_testdev.c - QEMU's PCI test device (see pci_testdev.h).
 * QEMU: `-device pci-testdev`.  Every header access is a byte access:
 * the device implements 1-byte accesses only (QEMU splits wider ones).
 */
#include "drivers/pci_testdev.h"
#include "arch/x86/io.h"
#include "arch/x86/mmio_access.h"
#include "arch/x86/paging.h"

#define PTD_BAR_MEM        0
#define PTD_BAR_IO         1
/* PCITestDevHdr field offsets */
#define HDR_TEST           0
#define HDR_WIDTH          1
#define HDR_OFFSET         4
#define HDR_DATA           8
#define HDR_COUNT          12
#define HDR_NAME           16

static u8 hdr_byte(const struct pci_testdev *t, bool mem, u32 off)
{
	return mem ? mmio_read8(t->mem + off) : inb((u16)(t->io + off));
}

static u32 hdr_u32(const struct pci_testdev *t, bool mem, u32 off)
{
	u32 v = 0, i;

	for (i = 0; i < 4; i++)
		v |= (u32)hdr_byte(t, mem, off + i) << (8 * i);
	return v;
}

int ptd_find(struct pci_testdev *t, const char **why)
{
	const struct pci_bar *m, *io;

	if (!pci_find_id(PTD_VENDOR, PTD_DEVICE, &t->pci)) {
		*why = "no pci-testdev (QEMU -device pci-testdev; the runner adds it for suite mmio)";
		return -ENODEV;
	}
	m = &t->pci.bar[PTD_BAR_MEM];
	io = &t->pci.bar[PTD_BAR_IO];
	if (!m->size || m->io || !m->addr || !io->size || !io->io || !io->addr) {
		*why = "pci-testdev BARs unassigned (firmware did not place them)";
		return -ENODEV;
	}
	if (paging_map_mmio(m->addr, m->size)) {
		*why = "pci-testdev BAR0 cannot be mapped (above 512 GiB?)";
		return -ERANGE;
	}
	pci_enable(&t->pci, PCI_COMMAND_IO | PCI_COMMAND_MEMORY);
	t->mem = (volatile u8 *)(uintptr_t)m->addr;
	t->io = (u16)io->addr;
	return 0;
}

int ptd_select(const struct pci_testdev *t, bool mem, u32 index, struct ptd_test *out)
{
	u32 i;

	if (mem)
		mmio_write8(t->mem + HDR_TEST, (u8)index);
	else
		outb((u8)index, (u16)(t->io + HDR_TEST));
	out->width = hdr_byte(t, mem, HDR_WIDTH);
	out->offset = hdr_u32(t, mem, HDR_OFFSET);
	out->data = hdr_byte(t, mem, HDR_DATA);
	for (i = 0; i + 1 < PTD_NAME_MAX; i++) {
		out->name[i] = (char)hdr_byte(t, mem, HDR_NAME + i);
		if (!out->name[i])
			break;
	}
	out->name[i] = 0;
	/* a sane header: a 1-byte test register inside its region */
	if (out->width != 1 || !out->offset || out->offset >= (mem ? 4096u : 256u))
		return -EIO;
	return 0;
}

u32 ptd_count(const struct pci_testdev *t, bool mem)
{
	return hdr_u32(t, mem, HDR_COUNT);
}
