/*
 * drivers/virtio_pci.c - virtio PCI transports (virtio 1.x, 4.1).
 *
 * Modern (4.1.4): vendor-specific capabilities (id 0x09) point into BARs
 * at the common configuration, the notification area, the ISR byte and
 * the device configuration.  Legacy (4.1.4.8): one I/O BAR with a fixed
 * register layout, 32 feature bits and a page-frame queue address.
 * QEMU: `-device virtio-net-pci,disable-legacy=on` (modern, MMIO notify),
 * `...,disable-legacy=on,modern-pio-notify=on` (modern, I/O-port notify),
 * `...,disable-legacy=off,disable-modern=on` (legacy); `ioeventfd=on|off`
 * decides whether KVM or QEMU answers the notify write.
 */
#include "drivers/virtio_pci.h"
#include "arch/x86/io.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"

/* Legacy I/O BAR registers (4.1.4.8), MSI-X disabled */
#define VIRTIO_LEG_HOST_FEATURES   0
#define VIRTIO_LEG_GUEST_FEATURES  4
#define VIRTIO_LEG_QUEUE_PFN       8
#define VIRTIO_LEG_QUEUE_NUM       12
#define VIRTIO_LEG_QUEUE_SEL       14
#define VIRTIO_LEG_QUEUE_NOTIFY    16
#define VIRTIO_LEG_STATUS          18
#define VIRTIO_LEG_ISR             19
#define VIRTIO_LEG_CONFIG          20
#define VIRTIO_LEG_PFN_SHIFT       12
#define VIRTIO_LEG_PFN_BITS        32   /* the register holds a 32-bit PFN */

/* struct virtio_pci_common_cfg (4.1.4.3) */
#define VIRTIO_COMMON_DFSELECT     0
#define VIRTIO_COMMON_DF           4
#define VIRTIO_COMMON_GFSELECT     8
#define VIRTIO_COMMON_GF           12
#define VIRTIO_COMMON_NUMQ         18
#define VIRTIO_COMMON_STATUS       20
#define VIRTIO_COMMON_Q_SELECT     22
#define VIRTIO_COMMON_Q_SIZE       24
#define VIRTIO_COMMON_Q_ENABLE     28
#define VIRTIO_COMMON_Q_NOFF       30
#define VIRTIO_COMMON_Q_DESC       32
#define VIRTIO_COMMON_Q_DRIVER     40
#define VIRTIO_COMMON_Q_DEVICE     48

/* struct virtio_pci_cap (4.1.4) */
#define PCI_CAP_ID_VNDR            0x09
#define VIRTIO_CAP_CFG_TYPE        3
#define VIRTIO_CAP_BAR             4
#define VIRTIO_CAP_OFFSET          8
#define VIRTIO_CAP_NOTIFY_MULT     16
#define VIRTIO_PCI_CAP_COMMON_CFG  1
#define VIRTIO_PCI_CAP_NOTIFY_CFG  2
#define VIRTIO_PCI_CAP_ISR_CFG     3
#define VIRTIO_PCI_CAP_DEVICE_CFG  4
#define VIRTIO_CAP_MAX             16   /* bounds the capability walk */

#define RESET_POLL_US              10
#define RESET_TIMEOUT_US           1000000

/* ---- modern: MMIO accessors ------------------------------------------ */

static inline void mmio_write8(volatile u8 *base, u32 off, u8 v)
{
	*(volatile u8 *)(base + off) = v;
}

static inline void mmio_write16(volatile u8 *base, u32 off, u16 v)
{
	*(volatile u16 *)(base + off) = v;
}

static inline void mmio_write32(volatile u8 *base, u32 off, u32 v)
{
	*(volatile u32 *)(base + off) = v;
}

static inline u8 mmio_read8(volatile u8 *base, u32 off)
{
	return *(volatile u8 *)(base + off);
}

static inline u16 mmio_read16(volatile u8 *base, u32 off)
{
	return *(volatile u16 *)(base + off);
}

static inline u32 mmio_read32(volatile u8 *base, u32 off)
{
	return *(volatile u32 *)(base + off);
}

/* 64-bit fields as two 32-bit halves, low first (4.1.3.1) */
static void mmio_write64(volatile u8 *base, u32 off, u64 v)
{
	mmio_write32(base, off, (u32)v);
	mmio_write32(base, off + 4, (u32)(v >> 32));
}

/* ---- modern ops ------------------------------------------------------- */

static u8 modern_get_status(struct vpci_dev *v)
{
	return mmio_read8(v->common, VIRTIO_COMMON_STATUS);
}

static void modern_set_status(struct vpci_dev *v, u8 s)
{
	mmio_write8(v->common, VIRTIO_COMMON_STATUS, s);
}

static u64 modern_get_features(struct vpci_dev *v)
{
	u64 f;

	mmio_write32(v->common, VIRTIO_COMMON_DFSELECT, 0);
	f = mmio_read32(v->common, VIRTIO_COMMON_DF);
	mmio_write32(v->common, VIRTIO_COMMON_DFSELECT, 1);
	return f | (u64)mmio_read32(v->common, VIRTIO_COMMON_DF) << 32;
}

static void modern_set_features(struct vpci_dev *v, u64 f)
{
	mmio_write32(v->common, VIRTIO_COMMON_GFSELECT, 0);
	mmio_write32(v->common, VIRTIO_COMMON_GF, (u32)f);
	mmio_write32(v->common, VIRTIO_COMMON_GFSELECT, 1);
	mmio_write32(v->common, VIRTIO_COMMON_GF, (u32)(f >> 32));
}

static u8 modern_config_read8(struct vpci_dev *v, u32 off)
{
	return mmio_read8(v->device, off);
}

static u16 modern_queue_size(struct vpci_dev *v, u16 index)
{
	if (index >= mmio_read16(v->common, VIRTIO_COMMON_NUMQ))
		return 0;
	mmio_write16(v->common, VIRTIO_COMMON_Q_SELECT, index);
	return mmio_read16(v->common, VIRTIO_COMMON_Q_SIZE);
}

static int modern_queue_activate(struct vpci_dev *v, u16 index, struct virtq *q)
{
	struct vpci_notify *n = &v->notify[index];
	u64 off;

	mmio_write16(v->common, VIRTIO_COMMON_Q_SELECT, index);
	mmio_write16(v->common, VIRTIO_COMMON_Q_SIZE, q->num);
	mmio_write64(v->common, VIRTIO_COMMON_Q_DESC, virtq_desc_addr(q));
	mmio_write64(v->common, VIRTIO_COMMON_Q_DRIVER, virtq_avail_addr(q));
	mmio_write64(v->common, VIRTIO_COMMON_Q_DEVICE, virtq_used_addr(q));
	/* 4.1.4.4: cap.offset + queue_notify_off * notify_off_multiplier */
	off = (u64)mmio_read16(v->common, VIRTIO_COMMON_Q_NOFF) * v->notify_mult;
	n->value = index;
	if (v->notify_is_pio) {
		n->kind = VPCI_NOTIFY_PIO;
		n->port = (u16)(v->notify_base + off);
	} else {
		n->kind = VPCI_NOTIFY_MMIO;
		n->mmio = (volatile u16 *)(uintptr_t)(v->notify_base + off);
	}
	mmio_write16(v->common, VIRTIO_COMMON_Q_ENABLE, 1);
	return 0;
}

const struct vpci_ops vpci_modern_ops = {
	.name = "modern",
	.modern = true,
	.get_status = modern_get_status,
	.set_status = modern_set_status,
	.get_features = modern_get_features,
	.set_features = modern_set_features,
	.config_read8 = modern_config_read8,
	.queue_size = modern_queue_size,
	.queue_activate = modern_queue_activate,
};

/* ---- legacy ops ------------------------------------------------------- */

static u8 legacy_get_status(struct vpci_dev *v)
{
	return inb(v->io_base + VIRTIO_LEG_STATUS);
}

static void legacy_set_status(struct vpci_dev *v, u8 s)
{
	outb(s, v->io_base + VIRTIO_LEG_STATUS);
}

static u64 legacy_get_features(struct vpci_dev *v)
{
	return inl(v->io_base + VIRTIO_LEG_HOST_FEATURES);
}

static void legacy_set_features(struct vpci_dev *v, u64 f)
{
	outl((u32)f, v->io_base + VIRTIO_LEG_GUEST_FEATURES);
}

static u8 legacy_config_read8(struct vpci_dev *v, u32 off)
{
	return inb(v->io_base + VIRTIO_LEG_CONFIG + off);
}

static u16 legacy_queue_size(struct vpci_dev *v, u16 index)
{
	outw(index, v->io_base + VIRTIO_LEG_QUEUE_SEL);
	return inw(v->io_base + VIRTIO_LEG_QUEUE_NUM);
}

/* Legacy queues have the device's size and the legacy layout (2.7.2). */
static int legacy_queue_activate(struct vpci_dev *v, u16 index, struct virtq *q)
{
	struct vpci_notify *n = &v->notify[index];

	outw(index, v->io_base + VIRTIO_LEG_QUEUE_SEL);
	if (inw(v->io_base + VIRTIO_LEG_QUEUE_NUM) != q->num ||
	    virtq_desc_addr(q) >> (VIRTIO_LEG_PFN_SHIFT + VIRTIO_LEG_PFN_BITS))
		return -ERANGE;
	outl((u32)(virtq_desc_addr(q) >> VIRTIO_LEG_PFN_SHIFT),
	     v->io_base + VIRTIO_LEG_QUEUE_PFN);
	n->kind = VPCI_NOTIFY_PIO;
	n->port = v->io_base + VIRTIO_LEG_QUEUE_NOTIFY;
	n->value = index;
	return 0;
}

const struct vpci_ops vpci_legacy_ops = {
	.name = "legacy",
	.modern = false,
	.get_status = legacy_get_status,
	.set_status = legacy_set_status,
	.get_features = legacy_get_features,
	.set_features = legacy_set_features,
	.config_read8 = legacy_config_read8,
	.queue_size = legacy_queue_size,
	.queue_activate = legacy_queue_activate,
};

/* ---- probe ------------------------------------------------------------ */

/* Address of a capability's window, mapping its BAR when it is MMIO. */
static int cap_window(const struct pci_dev *d, u8 cap, u64 *addr, bool *is_io)
{
	u8 bar = pci_dev_read8(d, cap + VIRTIO_CAP_BAR);
	u32 off = pci_dev_read32(d, cap + VIRTIO_CAP_OFFSET);
	const struct pci_bar *b;

	if (bar >= PCI_NUM_BARS || !d->bar[bar].size || !d->bar[bar].addr)
		return -VPCI_ENOCAP;
	b = &d->bar[bar];
	*is_io = b->io;
	*addr = b->addr + off;
	return b->io ? 0 : paging_map_mmio(b->addr, b->size);
}

/* One capability: keep the window it names; notify keeps an I/O window
 * over an MMIO one when prefer_pio is set (and the first one otherwise). */
static int take_cap(struct vpci_dev *v, u8 cap, bool prefer_pio, bool *have_notify)
{
	u8 type = pci_dev_read8(&v->pci, cap + VIRTIO_CAP_CFG_TYPE);
	u64 addr;
	bool io;
	int err = cap_window(&v->pci, cap, &addr, &io);

	if (err)
		return err == -VPCI_ENOCAP ? 0 : err;
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG) {
		if (*have_notify && !(prefer_pio && io && !v->notify_is_pio))
			return 0;
		v->notify_base = addr;
		v->notify_is_pio = io;
		v->notify_mult = pci_dev_read32(&v->pci, cap + VIRTIO_CAP_NOTIFY_MULT);
		*have_notify = true;
	} else if (io) {
		return 0;               /* we only drive these through MMIO */
	} else if (type == VIRTIO_PCI_CAP_COMMON_CFG && !v->common) {
		v->common = (volatile u8 *)(uintptr_t)addr;
	} else if (type == VIRTIO_PCI_CAP_ISR_CFG && !v->isr) {
		v->isr = (volatile u8 *)(uintptr_t)addr;
	} else if (type == VIRTIO_PCI_CAP_DEVICE_CFG && !v->device) {
		v->device = (volatile u8 *)(uintptr_t)addr;
	}
	return 0;
}

static int probe_modern(struct vpci_dev *v, bool prefer_pio)
{
	bool have_notify = false;
	u8 cap = 0;
	u32 n;
	int err;

	for (n = 0; n < VIRTIO_CAP_MAX; n++) {
		cap = pci_cap_find(&v->pci, PCI_CAP_ID_VNDR, cap);
		if (!cap)
			break;
		err = take_cap(v, cap, prefer_pio, &have_notify);
		if (err)
			return err;
	}
	if (!v->common || !v->isr || !v->device || !have_notify)
		return -VPCI_ENOCAP;
	v->ops = &vpci_modern_ops;
	return 0;
}

bool vpci_is_net(const struct pci_dev *d)
{
	if (d->vendor != VIRTIO_PCI_VENDOR)
		return false;
	if (d->device == VIRTIO_PCI_DEVICE_NET)
		return true;
	/* transitional ids share 0x1000..; the subsystem id names the type */
	return d->device == VIRTIO_PCI_DEVICE_NET_TR && d->subsys_id == VIRTIO_SUBSYS_NET;
}

int vpci_probe(struct vpci_dev *v, const struct pci_dev *pci, bool prefer_pio_notify)
{
	*v = (struct vpci_dev){ .pci = *pci };
	pci_enable(pci, PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	if (probe_modern(v, prefer_pio_notify) == 0)
		return 0;
	*v = (struct vpci_dev){ .pci = *pci };
	if (pci->device != VIRTIO_PCI_DEVICE_NET_TR || !pci->bar[0].io || !pci->bar[0].size)
		return -ENODEV;
	v->io_base = (u16)pci->bar[0].addr;
	v->ops = &vpci_legacy_ops;
	return 0;
}

/* ---- initialisation (3.1.1) ------------------------------------------- */

static int reset(struct vpci_dev *v)
{
	u32 waited;

	v->ops->set_status(v, 0);
	/* 4.1.4.3.2: modern drivers wait for status to read back 0 */
	for (waited = 0; v->ops->get_status(v) != 0; waited += RESET_POLL_US) {
		if (waited >= RESET_TIMEOUT_US)
			return -ETIMEDOUT;
		tsc_delay_us(RESET_POLL_US);
	}
	return 0;
}

static void add_status(struct vpci_dev *v, u8 bits)
{
	v->ops->set_status(v, v->ops->get_status(v) | bits);
}

int vpci_negotiate(struct vpci_dev *v, u64 wanted)
{
	u64 offered;
	int err = reset(v);

	if (err)
		return err;
	add_status(v, VIRTIO_STATUS_ACKNOWLEDGE);
	add_status(v, VIRTIO_STATUS_DRIVER);
	offered = v->ops->get_features(v);
	if (v->ops->modern) {
		if (!(offered & (1ull << VIRTIO_F_VERSION_1)))
			return -VPCI_EFEATURES;
		wanted |= 1ull << VIRTIO_F_VERSION_1;
	}
	v->features = wanted & offered;
	v->ops->set_features(v, v->features);
	if (!v->ops->modern)
		return 0;               /* legacy has no FEATURES_OK (2.2.3) */
	add_status(v, VIRTIO_STATUS_FEATURES_OK);
	/* 3.1.1 step 6: the device may refuse the subset */
	if (!(v->ops->get_status(v) & VIRTIO_STATUS_FEATURES_OK)) {
		vpci_fail(v);
		return -VPCI_EFEATURES;
	}
	return 0;
}

int vpci_queue_setup(struct vpci_dev *v, u16 index, struct virtq *q, void *mem)
{
	u16 size;
	int err;

	if (index >= VPCI_MAX_QUEUES)
		return -EINVAL;
	size = v->ops->queue_size(v, index);
	if (!size)
		return -ENODEV;
	if (size > VIRTQ_MAX_SIZE) {
		if (!v->ops->modern)
			return -ERANGE;  /* legacy sizes are fixed */
		size = VIRTQ_MAX_SIZE;
	}
	err = virtq_init(q, size, mem, v->features & (1ull << VIRTIO_F_EVENT_IDX));
	if (err)
		return err;
	return v->ops->queue_activate(v, index, q);
}

int vpci_check(struct vpci_dev *v)
{
	return v->ops->get_status(v) & VIRTIO_STATUS_NEEDS_RESET ? -VPCI_ENEEDRESET : 0;
}

int vpci_driver_ok(struct vpci_dev *v)
{
	add_status(v, VIRTIO_STATUS_DRIVER_OK);
	return vpci_check(v);
}

void vpci_fail(struct vpci_dev *v)
{
	add_status(v, VIRTIO_STATUS_FAILED);
}

void vpci_notify(const struct vpci_dev *v, u16 index)
{
	const struct vpci_notify *n = &v->notify[index];

	if (n->kind == VPCI_NOTIFY_PIO)
		outw(n->value, n->port);
	else
		*n->mmio = n->value;
}

const char *vpci_notify_name(const struct vpci_dev *v, u16 index)
{
	return v->notify[index].kind == VPCI_NOTIFY_PIO ? "pio" : "mmio";
}

const char *vpci_strerror(int err)
{
	switch (-err) {
	case VPCI_EFEATURES: return "device refused the features (FEATURES_OK not kept)";
	case VPCI_ENEEDRESET: return "device reports DEVICE_NEEDS_RESET";
	case VPCI_ENOCAP: return "modern virtio capability missing";
	case ETIMEDOUT: return "device reset timed out";
	case ERANGE: return "queue size unsupported";
	case ENODEV: return "no usable virtio transport";
	case EINVAL: return "invalid argument";
	case EIO: return "I/O error";
	default: return "unknown error";
	}
}
