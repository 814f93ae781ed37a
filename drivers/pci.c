/*
 * drivers/pci.c - PCI configuration mechanism #1 (PCI Local Bus spec 3.0,
 * section 3.2.2.3.2): write the address to 0xcf8, move data through 0xcfc.
 * QEMU's i440FX and Q35 host bridges both implement it.  Used only for
 * set-up, never timed: QEMU coalesces 0xcf8 writes (docs/design.md).
 *
 * Enumeration walks bus 0 and recurses through PCI-PCI bridges (class
 * 06/04, type 1 header); BARs are sized by writing all ones with decoding
 * off (spec 6.2.5.1).  Exercised by every QEMU machine; behind a bridge
 * with `-device pci-bridge,id=b1,chassis_nr=1 -device ...,bus=b1`.
 */
#include "drivers/pci.h"
#include "arch/x86/io.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA    0xcfc
#define PCI_ENABLE         (1u << 31)
#define PCI_MAX_DEV        32
#define PCI_MAX_FN         8
#define PCI_MAX_BUS_DEPTH  8      /* bridges nested deeper are ignored */
#define PCI_HEADER_MULTIFN 0x80
#define PCI_HEADER_MASK    0x7f
#define PCI_HEADER_NORMAL  0
#define PCI_HEADER_BRIDGE  1
#define PCI_CLASS_BRIDGE   0x06
#define PCI_SUBCLASS_P2P   0x04
#define PCI_BAR_IO         0x1u
#define PCI_BAR_MEM_TYPE   0x6u
#define PCI_BAR_MEM_64     0x4u
#define PCI_BAR_IO_MASK    (~0x3u)
#define PCI_BAR_MEM_MASK   (~0xfu)
#define PCI_CAP_MAX_WALK   48     /* bounds a looping capability list */
#define PCI_CAP_ALIGN      (~0x3u)

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

void pci_cfg_write32(u8 bus, u8 dev, u8 fn, u8 off, u32 v)
{
	select_reg(bus, dev, fn, off);
	outl(v, PCI_CONFIG_DATA);
}

/* Narrow writes go to the byte lanes of 0xcfc so neighbours are kept. */
void pci_cfg_write16(u8 bus, u8 dev, u8 fn, u8 off, u16 v)
{
	select_reg(bus, dev, fn, off);
	outw(v, PCI_CONFIG_DATA + (off & 2));
}

u8 pci_dev_read8(const struct pci_dev *d, u8 off)
{
	return pci_cfg_read8(d->bus, d->dev, d->fn, off);
}

u16 pci_dev_read16(const struct pci_dev *d, u8 off)
{
	return pci_cfg_read16(d->bus, d->dev, d->fn, off);
}

u32 pci_dev_read32(const struct pci_dev *d, u8 off)
{
	return pci_cfg_read32(d->bus, d->dev, d->fn, off);
}

/* Size one BAR: all ones in, read the mask back, restore.  Returns the
 * number of BAR slots used (2 for a 64-bit memory BAR). */
static u32 size_bar(struct pci_dev *d, u32 i)
{
	u8 off = PCI_BAR0 + 4 * i;
	u32 lo = pci_dev_read32(d, off), hi = 0, mlo, mhi = ~0u;
	struct pci_bar *b = &d->bar[i];
	u64 mask;

	b->io = lo & PCI_BAR_IO;
	b->mem64 = !b->io && (lo & PCI_BAR_MEM_TYPE) == PCI_BAR_MEM_64 &&
		   i + 1 < PCI_NUM_BARS;
	pci_cfg_write32(d->bus, d->dev, d->fn, off, ~0u);
	mlo = pci_dev_read32(d, off);
	pci_cfg_write32(d->bus, d->dev, d->fn, off, lo);
	if (b->mem64) {
		hi = pci_dev_read32(d, off + 4);
		pci_cfg_write32(d->bus, d->dev, d->fn, off + 4, ~0u);
		mhi = pci_dev_read32(d, off + 4);
		pci_cfg_write32(d->bus, d->dev, d->fn, off + 4, hi);
	}
	if (b->io) {
		b->addr = lo & PCI_BAR_IO_MASK;
		b->size = (mlo & PCI_BAR_IO_MASK) ?
			  (u16)(~(mlo & PCI_BAR_IO_MASK) + 1) : 0;
	} else {
		b->addr = (u64)hi << 32 | (lo & PCI_BAR_MEM_MASK);
		mask = (u64)mhi << 32 | (mlo & PCI_BAR_MEM_MASK);
		if (!b->mem64)
			mask |= ~0xffffffffull;     /* upper half reads as ones */
		b->size = (mlo & PCI_BAR_MEM_MASK) || b->mem64 ? ~mask + 1 : 0;
	}
	return b->mem64 ? 2 : 1;
}

static void size_bars(struct pci_dev *d)
{
	u16 cmd = pci_cfg_read16(d->bus, d->dev, d->fn, PCI_COMMAND);
	u32 i, nbars = d->header_type == PCI_HEADER_BRIDGE ? 2 : PCI_NUM_BARS;

	/* no decoding while a BAR holds all ones */
	pci_cfg_write16(d->bus, d->dev, d->fn, PCI_COMMAND,
			cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (i = 0; i < nbars; )
		i += size_bar(d, i);
	pci_cfg_write16(d->bus, d->dev, d->fn, PCI_COMMAND, cmd);
}

static void read_ids(struct pci_dev *d, u8 bus, u8 dev, u8 fn)
{
	u32 class_rev = pci_cfg_read32(bus, dev, fn, PCI_CLASS_REVISION);
	u32 i;

	d->bus = bus;
	d->dev = dev;
	d->fn = fn;
	d->vendor = pci_cfg_read16(bus, dev, fn, PCI_VENDOR_ID);
	d->device = pci_cfg_read16(bus, dev, fn, PCI_DEVICE_ID);
	d->subsys_id = pci_cfg_read16(bus, dev, fn, PCI_SUBSYSTEM_ID);
	d->class_code = class_rev >> 24;
	d->subclass = class_rev >> 16;
	d->prog_if = class_rev >> 8;
	d->header_type = pci_cfg_read8(bus, dev, fn, PCI_HEADER_TYPE) & PCI_HEADER_MASK;
	for (i = 0; i < PCI_NUM_BARS; i++)
		d->bar[i] = (struct pci_bar){ 0 };
}

struct scan_state {
	struct pci_dev *out;
	u32 max, n;
};

static void scan_bus(struct scan_state *s, u8 bus, u32 depth);

static void scan_fn(struct scan_state *s, u8 bus, u8 dev, u8 fn, u32 depth)
{
	struct pci_dev d;
	u8 secondary;

	read_ids(&d, bus, dev, fn);
	if (d.header_type == PCI_HEADER_NORMAL || d.header_type == PCI_HEADER_BRIDGE)
		size_bars(&d);
	if (s->n < s->max)
		s->out[s->n] = d;
	s->n++;
	if (d.header_type != PCI_HEADER_BRIDGE || d.class_code != PCI_CLASS_BRIDGE ||
	    d.subclass != PCI_SUBCLASS_P2P)
		return;
	secondary = pci_cfg_read8(bus, dev, fn, PCI_SECONDARY_BUS);
	if (secondary > bus && depth < PCI_MAX_BUS_DEPTH)
		scan_bus(s, secondary, depth + 1);
}

static void scan_bus(struct scan_state *s, u8 bus, u32 depth)
{
	u8 dev, fn, nfn;

	for (dev = 0; dev < PCI_MAX_DEV; dev++) {
		if (pci_cfg_read16(bus, dev, 0, PCI_VENDOR_ID) == PCI_VENDOR_NONE)
			continue;
		nfn = pci_cfg_read8(bus, dev, 0, PCI_HEADER_TYPE) & PCI_HEADER_MULTIFN ?
		      PCI_MAX_FN : 1;
		for (fn = 0; fn < nfn; fn++)
			if (pci_cfg_read16(bus, dev, fn, PCI_VENDOR_ID) != PCI_VENDOR_NONE)
				scan_fn(s, bus, dev, fn, depth);
	}
}

u32 pci_scan(struct pci_dev *out, u32 max)
{
	struct scan_state s = { out, max, 0 };

	scan_bus(&s, 0, 0);
	return s.n < max ? s.n : max;
}

struct pci_match {
	bool by_class;
	u16 a, b;        /* class/subclass, or vendor/device */
};

static bool matches(const struct pci_dev *d, const struct pci_match *m)
{
	if (m->by_class)
		return d->class_code == m->a && d->subclass == m->b;
	return d->vendor == m->a && d->device == m->b;
}

static bool find(const struct pci_match *m, struct pci_dev *out)
{
	static struct pci_dev devs[PCI_MAX_DEVICES];
	u32 n = pci_scan(devs, PCI_MAX_DEVICES), i;

	for (i = 0; i < n; i++) {
		if (matches(&devs[i], m)) {
			*out = devs[i];
			return true;
		}
	}
	return false;
}

bool pci_find_class(u8 class_code, u8 subclass, struct pci_dev *out)
{
	struct pci_match m = { true, class_code, subclass };

	return find(&m, out);
}

bool pci_find_id(u16 vendor, u16 device, struct pci_dev *out)
{
	struct pci_match m = { false, vendor, device };

	return find(&m, out);
}

u8 pci_cap_find(const struct pci_dev *d, u8 cap_id, u8 from)
{
	u8 off;
	u32 walked;

	if (!(pci_cfg_read16(d->bus, d->dev, d->fn, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0;
	off = from ? pci_dev_read8(d, from + 1) : pci_dev_read8(d, PCI_CAP_PTR);
	for (walked = 0; off && walked < PCI_CAP_MAX_WALK; walked++) {
		off &= PCI_CAP_ALIGN;
		if (pci_dev_read8(d, off) == cap_id)
			return off;
		off = pci_dev_read8(d, off + 1);
	}
	return 0;
}

void pci_enable(const struct pci_dev *d, u16 bits)
{
	u16 cmd = pci_cfg_read16(d->bus, d->dev, d->fn, PCI_COMMAND);

	pci_cfg_write16(d->bus, d->dev, d->fn, PCI_COMMAND, cmd | bits);
}
