/*
 * drivers/virtio_pci.h - virtio over PCI (virtio 1.x, 4.1): the modern
 * transport (vendor capabilities, 4.1.4) and the legacy one (I/O BAR 0,
 * 4.1.4.8) behind one small ops table, and the driver initialisation of
 * 3.1.1.
 */
#ifndef DRIVERS_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_PCI_H

#include "lib/types.h"
#include "drivers/pci.h"
#include "drivers/virtq.h"

#define VIRTIO_PCI_VENDOR         0x1af4
#define VIRTIO_PCI_DEVICE_NET_TR  0x1000  /* transitional virtio-net */
#define VIRTIO_PCI_DEVICE_NET     0x1041  /* 0x1040 + device type 1 */
#define VIRTIO_ID_NET             1
#define VIRTIO_SUBSYS_NET         1       /* transitional: subsystem id = type */

/* Device status bits (2.1) */
#define VIRTIO_STATUS_ACKNOWLEDGE 1
#define VIRTIO_STATUS_DRIVER      2
#define VIRTIO_STATUS_DRIVER_OK   4
#define VIRTIO_STATUS_FEATURES_OK 8
#define VIRTIO_STATUS_NEEDS_RESET 0x40
#define VIRTIO_STATUS_FAILED      0x80

/* Device-independent feature bits (6) */
#define VIRTIO_F_NOTIFY_ON_EMPTY  24
#define VIRTIO_F_ANY_LAYOUT       27
#define VIRTIO_F_EVENT_IDX        29
#define VIRTIO_F_VERSION_1        32
/* the device's DMA goes through the platform's IOMMU (QEMU iommu_platform=on);
 * a device that offers it refuses FEATURES_OK without it (QEMU 7.2
 * virtio_validate_features) */
#define VIRTIO_F_ACCESS_PLATFORM  33

#define VPCI_MAX_QUEUES           4

/* Named errors beyond lib/types.h (returned negated) */
#define VPCI_EFEATURES  1001   /* device did not keep FEATURES_OK */
#define VPCI_ENEEDRESET 1002   /* device set DEVICE_NEEDS_RESET */
#define VPCI_ENOCAP     1003   /* modern device lacks a required capability */

enum vpci_notify_kind { VPCI_NOTIFY_PIO, VPCI_NOTIFY_MMIO };

struct vpci_dev;

struct vpci_ops {
	const char *name;                 /* "legacy" or "modern" */
	bool modern;                      /* virtio 1.x rules (FEATURES_OK, VERSION_1) */
	u8 (*get_status)(struct vpci_dev *v);
	void (*set_status)(struct vpci_dev *v, u8 status);
	u64 (*get_features)(struct vpci_dev *v);
	void (*set_features)(struct vpci_dev *v, u64 features);
	u8 (*config_read8)(struct vpci_dev *v, u32 off);
	u16 (*queue_size)(struct vpci_dev *v, u16 index);
	int (*queue_activate)(struct vpci_dev *v, u16 index, struct virtq *q);
};

/* Where one queue's doorbell is: an I/O port or an MMIO address, and the
 * 16-bit value written there (the queue index). */
struct vpci_notify {
	u8 kind;                          /* enum vpci_notify_kind */
	u16 port;
	volatile u16 *mmio;
	u16 value;
};

struct vpci_dev {
	struct pci_dev pci;
	const struct vpci_ops *ops;
	u16 io_base;                      /* legacy: BAR 0 */
	volatile u8 *common;              /* modern: common configuration */
	volatile u8 *isr;                 /* modern: ISR status */
	volatile u8 *device;              /* modern: device configuration */
	u8 notify_bar;                    /* modern: BAR of the notify cap used */
	u64 notify_base;                  /* modern: MMIO address or port */
	bool notify_is_pio;
	u32 notify_mult;                  /* notify_off_multiplier */
	u64 features;                     /* negotiated */
	struct vpci_notify notify[VPCI_MAX_QUEUES];
};

/* Is this PCI function a virtio-net device (modern or transitional id)? */
bool vpci_is_net(const struct pci_dev *d);

/* Bind a virtio PCI function: modern when it has the capabilities
 * (prefer_pio_notify: use an I/O-port notify capability when the device
 * offers one, QEMU `modern-pio-notify=on`), else legacy.  Enables I/O,
 * memory and bus mastering; maps MMIO BARs. */
int vpci_probe(struct vpci_dev *v, const struct pci_dev *pci, bool prefer_pio_notify);

/* 3.1.1 steps 1-6: reset, ACKNOWLEDGE, DRIVER, features (wanted & offered;
 * VERSION_1 added for modern), FEATURES_OK re-read.  -VPCI_EFEATURES when
 * the device refuses, -ETIMEDOUT when reset never completes. */
int vpci_negotiate(struct vpci_dev *v, u64 wanted);

/* Queue `index` with the device's size capped at VIRTQ_MAX_SIZE, laid
 * out in `mem` (virtq_mem_size bytes, zeroed, aligned). */
int vpci_queue_setup(struct vpci_dev *v, u16 index, struct virtq *q, void *mem);

/* Step 8: DRIVER_OK; -VPCI_ENEEDRESET if the device reports it. */
int vpci_driver_ok(struct vpci_dev *v);

/* -VPCI_ENEEDRESET when the device asks for a reset, else 0. */
int vpci_check(struct vpci_dev *v);

/* Mark the device FAILED (3.1.1: the driver gives up). */
void vpci_fail(struct vpci_dev *v);

/* Ring the doorbell of a queue: the trap being measured. */
void vpci_notify(const struct vpci_dev *v, u16 index);

/* "pio" or "mmio": how queue `index` is notified. */
const char *vpci_notify_name(const struct vpci_dev *v, u16 index);

const char *vpci_strerror(int err);

/* The two transports (vpci_probe picks one; host tests use them directly). */
extern const struct vpci_ops vpci_modern_ops, vpci_legacy_ops;

#endif
