/*
 * tests/host/c/test_virtio_pci.c - drivers/virtio_pci.c against fake
 * devices on the host: the legacy transport's port sequence (recorded
 * through tests/host/c/fake_io.h), feature negotiation, FEATURES_OK
 * refused, DEVICE_NEEDS_RESET and a reset that never completes give the
 * named errors (virtio 1.x 3.1.1, 2.1.2).
 */
#include <sys/mman.h>
#include "tests/host/c/check.h"
#include "tests/host/c/fake_io.h"
#include "drivers/virtio_pci.h"
#include "arch/x86/paging.h"
#include "arch/x86/tsc.h"

#define IO_BASE       0xc000
#define LEG_HOST_F    (IO_BASE + 0)
#define LEG_GUEST_F   (IO_BASE + 4)
#define LEG_PFN       (IO_BASE + 8)
#define LEG_QNUM      (IO_BASE + 12)
#define LEG_QSEL      (IO_BASE + 14)
#define LEG_NOTIFY    (IO_BASE + 16)
#define LEG_STATUS    (IO_BASE + 18)
#define MAX_LOG       64
#define LOW_RING_ADDR 0x40000000ul   /* below the legacy 16 TiB PFN limit */
#define RING_BYTES    (3 * 4096)
#define F(bit)        (1ull << (bit))

/* host stubs for what virtio_pci.c links against */
struct tsc_info tsc;
void tsc_delay_us(u64 us) { (void)us; }
int paging_map_mmio(u64 phys, u64 size) { (void)phys; (void)size; return 0; }

/* ---- a fake legacy device on I/O ports ---------------------------------- */

struct io_rec { u16 port; u32 value; int width; };
static struct io_rec io_log[MAX_LOG];
static u32 n_log;
static u8 dev_status;
static u32 dev_guest_features, dev_pfn;
static u16 dev_qsel, dev_notified = 0xffff;

/* device model behind tests/host/c/fake_io.c's hooks */
static u32 dev_read(u16 port, u8 width)
{
	(void)width;
	switch (port) {
	case LEG_HOST_F: return (u32)(F(5) | F(27) | F(29) | F(30));
	case LEG_QNUM: return dev_qsel < 2 ? 256 : 0;
	case LEG_STATUS: return dev_status;
	default: return 0xffffffff;     /* PCI config etc.: nothing there */
	}
}

static void dev_write(u16 port, u8 width, u32 value)
{
	if (n_log < MAX_LOG)
		io_log[n_log++] = (struct io_rec){ port, value, width };
	switch (port) {
	case LEG_GUEST_F: dev_guest_features = value; break;
	case LEG_PFN: dev_pfn = value; break;
	case LEG_QSEL: dev_qsel = (u16)value; break;
	case LEG_NOTIFY: dev_notified = (u16)value; break;
	case LEG_STATUS: dev_status = (u8)value; break;
	}
}

static void legacy_dev(struct vpci_dev *v)
{
	memset(v, 0, sizeof(*v));
	v->ops = &vpci_legacy_ops;
	v->io_base = IO_BASE;
	n_log = 0;
	dev_status = 0x7f;
}

static void test_legacy_negotiation(void)
{
	struct vpci_dev v;
	u32 i, status_writes = 0;
	static const u8 want_status[] = { 0, 1, 3, 7 };

	legacy_dev(&v);
	CHECK_EQ_S64(vpci_negotiate(&v, F(5) | F(27) | F(29) | F(7)), 0);
	/* features = wanted & offered, only 32 bits on legacy */
	CHECK_EQ_U64(v.features, F(5) | F(27) | F(29));
	CHECK_EQ_U64(dev_guest_features, F(5) | F(27) | F(29));
	CHECK_EQ_S64(vpci_driver_ok(&v), 0);
	for (i = 0; i < n_log; i++) {
		if (io_log[i].port != LEG_STATUS)
			continue;
		CHECK_EQ_U64(io_log[i].width, 1);
		if (status_writes < sizeof(want_status))
			CHECK_EQ_U64(io_log[i].value, want_status[status_writes]);
		status_writes++;
	}
	/* reset, ACKNOWLEDGE, DRIVER, DRIVER_OK: no FEATURES_OK on legacy */
	CHECK_EQ_U64(status_writes, 4);
}

static void test_legacy_queue_and_notify(void)
{
	static u8 high[RING_BYTES] __attribute__((aligned(4096)));
	struct vpci_dev v;
	struct virtq q;
	void *mem = mmap((void *)LOW_RING_ADDR, RING_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (!CHECKF(mem == (void *)LOW_RING_ADDR, "no low mapping for the ring"))
		return;
	legacy_dev(&v);
	CHECK_EQ_S64(vpci_negotiate(&v, F(29)), 0);
	CHECK_EQ_S64(vpci_queue_setup(&v, 1, &q, mem), 0);
	CHECK_EQ_U64(q.num, 256);
	CHECK(q.event_idx);
	CHECK_EQ_U64(dev_pfn, LOW_RING_ADDR >> 12);
	CHECK_STR(vpci_notify_name(&v, 1), "pio");
	n_log = 0;
	vpci_notify(&v, 1);
	CHECK_EQ_U64(n_log, 1);
	CHECK_EQ_U64(io_log[0].port, LEG_NOTIFY);
	CHECK_EQ_U64(io_log[0].width, 2);
	CHECK_EQ_U64(dev_notified, 1);
	CHECK_EQ_S64(vpci_queue_setup(&v, 2, &q, mem), -ENODEV);
	/* a ring whose page number does not fit the 32-bit register */
	if ((uintptr_t)high >> 44)
		CHECK_EQ_S64(vpci_queue_setup(&v, 0, &q, high), -ERANGE);
	munmap(mem, RING_BYTES);
}

/* ---- a fake modern device behind the ops table -------------------------- */

static u8 m_status;
static u64 m_offered, m_accepted;
static bool m_refuse, m_stuck_reset, m_needs_reset;

static u8 m_get_status(struct vpci_dev *v)
{
	(void)v;
	if (m_stuck_reset)
		return VIRTIO_STATUS_ACKNOWLEDGE;
	return m_status | ((m_status & VIRTIO_STATUS_DRIVER_OK) && m_needs_reset ?
			   VIRTIO_STATUS_NEEDS_RESET : 0);
}

static void m_set_status(struct vpci_dev *v, u8 s)
{
	(void)v;
	if (m_refuse)
		s &= (u8)~VIRTIO_STATUS_FEATURES_OK;
	m_status = s;
}

static u64 m_get_features(struct vpci_dev *v) { (void)v; return m_offered; }
static void m_set_features(struct vpci_dev *v, u64 f) { (void)v; m_accepted = f; }

static const struct vpci_ops fake_modern = {
	.name = "fake-modern", .modern = true,
	.get_status = m_get_status, .set_status = m_set_status,
	.get_features = m_get_features, .set_features = m_set_features,
};

static void modern_dev(struct vpci_dev *v, u64 offered)
{
	memset(v, 0, sizeof(*v));
	v->ops = &fake_modern;
	m_status = 0;
	m_offered = offered;
	m_accepted = 0;
	m_refuse = m_stuck_reset = m_needs_reset = false;
}

static void test_modern_negotiation(void)
{
	struct vpci_dev v;

	modern_dev(&v, F(5) | F(29) | F(32) | F(33));
	CHECK_EQ_S64(vpci_negotiate(&v, F(5) | F(29)), 0);
	/* VERSION_1 is always asked for; bit 33 was not wanted */
	CHECK_EQ_U64(m_accepted, F(5) | F(29) | F(32));
	CHECK_EQ_U64(m_status, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
			       VIRTIO_STATUS_FEATURES_OK);
	CHECK_EQ_S64(vpci_driver_ok(&v), 0);
	CHECK(m_status & VIRTIO_STATUS_DRIVER_OK);
}

static void test_features_refused(void)
{
	struct vpci_dev v;
	int err;

	modern_dev(&v, F(5) | F(32));
	m_refuse = true;
	err = vpci_negotiate(&v, F(5));
	CHECK_EQ_S64(err, -VPCI_EFEATURES);
	CHECK(m_status & VIRTIO_STATUS_FAILED);
	CHECK_CONTAINS(vpci_strerror(err), "refused");
	/* a modern device must offer VERSION_1 */
	modern_dev(&v, F(5));
	CHECK_EQ_S64(vpci_negotiate(&v, F(5)), -VPCI_EFEATURES);
}

static void test_needs_reset(void)
{
	struct vpci_dev v;
	int err;

	modern_dev(&v, F(32));
	CHECK_EQ_S64(vpci_negotiate(&v, 0), 0);
	CHECK_EQ_S64(vpci_check(&v), 0);
	m_needs_reset = true;
	err = vpci_driver_ok(&v);
	CHECK_EQ_S64(err, -VPCI_ENEEDRESET);
	CHECK_EQ_S64(vpci_check(&v), -VPCI_ENEEDRESET);
	CHECK_CONTAINS(vpci_strerror(err), "NEEDS_RESET");
}

static void test_reset_timeout(void)
{
	struct vpci_dev v;

	modern_dev(&v, F(32));
	m_stuck_reset = true;
	CHECK_EQ_S64(vpci_negotiate(&v, 0), -ETIMEDOUT);
}

int main(void)
{
	fake_io_read_hook = dev_read;
	fake_io_write_hook = dev_write;
	RUN(test_legacy_negotiation, "virtio_pci: legacy status/feature port sequence");
	RUN(test_legacy_queue_and_notify, "virtio_pci: legacy queue PFN and notify port");
	RUN(test_modern_negotiation, "virtio_pci: modern features with VERSION_1, FEATURES_OK");
	RUN(test_features_refused, "virtio_pci: FEATURES_OK refused -> -VPCI_EFEATURES");
	RUN(test_needs_reset, "virtio_pci: DEVICE_NEEDS_RESET -> -VPCI_ENEEDRESET");
	RUN(test_reset_timeout, "virtio_pci: reset never completes -> -ETIMEDOUT");
	return check_summary();
}
