/*
 * drivers/fw_cfg.c - QEMU fw_cfg (QEMU docs/specs/fw_cfg.rst), x86 I/O
 * ports: selector 0x510, data 0x511, DMA address 0x514/0x518.  Always
 * present on QEMU's pc and q35 machines; `-fw_cfg name=opt/...,file=...`
 * adds named files.
 *
 * The data port accepts 8-bit reads only; each read returns the next byte
 * of the selected item (0 past its end).  The DMA interface moves a whole
 * item with one doorbell write.
 */
#include "drivers/fw_cfg.h"
#include "arch/x86/io.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "drivers/platform.h"
#include "lib/string.h"

#define FW_CFG_ID_DMA        (1u << 1)
#define FW_CFG_DMA_ERROR     0x01
#define FW_CFG_DMA_READ      0x02
#define FW_CFG_DMA_SELECT    0x08
#define FW_CFG_DMA_WRITE     0x10
#define FW_CFG_NAME_LEN      56
/* QEMU completes a transfer before the doorbell write returns; a
 * descriptor still busy after this long never will be */
#define FW_CFG_DMA_WAIT_MS   1000

/* FWCfgDmaAccess: all fields big-endian */
struct fw_cfg_dma_access {
	u32 control;   /* select key << 16 | flags; device clears when done */
	u32 length;    /* bytes to move */
	u64 address;   /* guest-physical buffer */
} __attribute__((packed));
_Static_assert(sizeof(struct fw_cfg_dma_access) == 16, "FWCfgDmaAccess");

/* FWCfgFile in the file directory: big-endian size and select */
struct fw_cfg_dir_entry {
	u32 size;
	u16 select;
	u16 reserved;
	char name[FW_CFG_NAME_LEN];
} __attribute__((packed));
_Static_assert(sizeof(struct fw_cfg_dir_entry) == 64, "FWCfgFile");

static bool present, has_dma;
static struct fw_cfg_dma_access dma_req __attribute__((aligned(16)));

static u32 be32(u32 v)
{
	return __builtin_bswap32(v);
}

void fw_cfg_select(u16 key)
{
	outw(key, FW_CFG_PORT_SEL);
}

void fw_cfg_read(u16 key, void *buf, u32 len)
{
	fw_cfg_select(key);
	insb(FW_CFG_PORT_DATA, buf, len);
}

bool fw_cfg_init(void)
{
	char sig[4];
	u32 id;

	fw_cfg_read(FW_CFG_SIGNATURE, sig, sizeof(sig));
	present = !kmemcmp(sig, "QEMU", 4);
	if (!present)
		return false;
	fw_cfg_read(FW_CFG_ID, &id, sizeof(id));   /* little-endian item */
	has_dma = id & FW_CFG_ID_DMA;
	return true;
}

bool fw_cfg_present(void)
{
	return present;
}

bool fw_cfg_has_dma(void)
{
	return has_dma;
}

int fw_cfg_find(const char *name, struct fw_cfg_file *out)
{
	struct fw_cfg_dir_entry e;
	u32 count, i;

	if (!present)
		return -ENODEV;
	fw_cfg_select(FW_CFG_FILE_DIR);
	insb(FW_CFG_PORT_DATA, &count, sizeof(count));
	count = be32(count);
	for (i = 0; i < count; i++) {
		insb(FW_CFG_PORT_DATA, &e, sizeof(e));
		e.name[FW_CFG_NAME_LEN - 1] = 0;
		if (!kstrcmp(e.name, name)) {
			out->size = be32(e.size);
			out->select = __builtin_bswap16(e.select);
			return 0;
		}
	}
	return -ENOENT;
}

/* The descriptor of one transfer (`op`: read or write) of `len` bytes
 * of `key` from or to `buf`. */
static void dma_fill_op(struct fw_cfg_dma_access *d, u16 key, const void *buf, u32 len,
			u32 op)
{
	d->control = be32((u32)key << 16 | FW_CFG_DMA_SELECT | op);
	d->length = be32(len);
	d->address = __builtin_bswap64((u64)(uintptr_t)buf);
	barrier();
}

static void dma_fill(struct fw_cfg_dma_access *d, u16 key, void *buf, u32 len)
{
	dma_fill_op(d, key, buf, len, FW_CFG_DMA_READ);
}

/* QEMU completes synchronously; poll anyway, bounded by
 * FW_CFG_DMA_WAIT_MS, as the spec asks */
static int dma_wait(struct fw_cfg_dma_access *d)
{
	struct tsc_wait wait = TSC_WAIT((u64)FW_CFG_DMA_WAIT_MS * 1000);
	u32 ctl;

	while ((ctl = be32(*(volatile u32 *)&d->control)) & ~FW_CFG_DMA_ERROR) {
		if (tsc_wait_over(&wait))
			return -ETIMEDOUT;
	}
	return (ctl & FW_CFG_DMA_ERROR) ? -EIO : 0;
}

int fw_cfg_dma_read(u16 key, void *buf, u32 len)
{
	dma_fill(&dma_req, key, buf, len);
	/* the high half stays 0 (QEMU clears the latch after each transfer);
	 * writing the low half starts the transfer */
	outl(be32((u32)(uintptr_t)&dma_req), FW_CFG_PORT_DMA_LO);
	return dma_wait(&dma_req);
}

int fw_cfg_dma_write(u16 key, const void *buf, u32 len)
{
	dma_fill_op(&dma_req, key, buf, len, FW_CFG_DMA_WRITE);
	outl(be32((u32)(uintptr_t)&dma_req), FW_CFG_PORT_DMA_LO);
	return dma_wait(&dma_req);
}

/* A second descriptor, so the twin never disturbs a real request. */
static struct fw_cfg_dma_access ctl_req __attribute__((aligned(16)));
static volatile u32 ctl_doorbell;

int fw_cfg_dma_read_control(u16 key, void *buf, u32 len)
{
	dma_fill(&ctl_req, key, buf, len);
	/* a 32-bit RAM store in place of the doorbell outl; the device's one
	 * store of the done control word is the handler's, done here so the
	 * same poll ends after one read */
	ctl_doorbell = be32((u32)(uintptr_t)&ctl_req);
	ctl_req.control = 0;
	return dma_wait(&ctl_req);
}
