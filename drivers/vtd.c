/*
 * drivers/vtd.c - Intel VT-d remapping unit registers (see drivers/vtd.h).
 *
 * Commands follow the spec's flows: a GCMD write carries the persistent
 * GSTS bits plus the one to change (11.4.4), then GSTS is polled until
 * the unit reports the change; CCMD and IOTLB_REG are written with their
 * busy bit (ICC, IVT) set and polled until the unit clears it.  QEMU
 * completes each at once; the deadline is there for a unit that does not.
 */
#include "drivers/vtd.h"
#include "arch/x86/mmio_access.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"

#define VTD_TIMEOUT_US   100000         /* 100 ms: QEMU completes at once */
#define VTD_ABSENT       0xffffffffu
#define VTD_BUSY         (1ull << 63)   /* CCMD.ICC, IOTLB_REG.IVT */
#define VTD_OFFSET_UNIT  16             /* CAP.FRO and ECAP.IRO count 16 bytes */
#define VTD_FRI_MASK     0xffu
#define VTD_FRCD_F_DWORD 12             /* the dword holding F (bit 127) */
#define VTD_FRCD_F       (1u << 31)

static u32 rd32(struct vtd_unit *u, u32 off)
{
	u->accesses++;
	return mmio_read32(u->regs + off);
}

static u64 rd64(struct vtd_unit *u, u32 off)
{
	u->accesses++;
	return mmio_read64(u->regs + off);
}

static void wr32(struct vtd_unit *u, u32 off, u32 v)
{
	u->accesses++;
	mmio_write32(u->regs + off, v);
}

static void wr64(struct vtd_unit *u, u32 off, u64 v)
{
	u->accesses++;
	mmio_write64(u->regs + off, v);
}

/* Poll a 32-bit register until (value & mask) == want, bounded by time
 * (arch/x86/tsc.h). */
static int wait_reg(struct vtd_unit *u, u32 off, u32 mask, u32 want)
{
	struct tsc_wait wait = TSC_WAIT(VTD_TIMEOUT_US);

	while ((rd32(u, off) & mask) != want) {
		if (tsc_wait_over(&wait))
			return -ETIMEDOUT;
		cpu_relax();
	}
	return 0;
}

int vtd_init(struct vtd_unit *u, u64 regbase)
{
	u->regs = (volatile u8 *)(uintptr_t)regbase;
	u->accesses = 0;
	u->version = rd32(u, VTD_REG_VER);
	if (u->version == VTD_ABSENT || !u->version)
		return -ENODEV;
	u->cap = rd64(u, VTD_REG_CAP);
	u->ecap = rd64(u, VTD_REG_ECAP);
	u->levels = vtd_levels(u->cap);
	u->fro = (u32)((u->cap >> VTD_CAP_FRO_SHIFT) & VTD_CAP_FRO_MASK) * VTD_OFFSET_UNIT;
	u->nfr = (u32)((u->cap >> VTD_CAP_NFR_SHIFT) & VTD_CAP_NFR_MASK) + 1;
	u->iotlb = (u32)((u->ecap >> VTD_ECAP_IRO_SHIFT) & VTD_ECAP_IRO_MASK) * VTD_OFFSET_UNIT +
		   VTD_IOTLB_OFF;
	return u->levels ? 0 : -EINVAL;
}

/* One GCMD change: keep the persistent status bits, set or clear bit. */
static int gcmd(struct vtd_unit *u, u32 bit, bool on, u32 status_bit)
{
	u32 keep = rd32(u, VTD_REG_GSTS) & VTD_GSTS_KEEP;

	wr32(u, VTD_REG_GCMD, on ? keep | bit : keep & ~bit);
	return wait_reg(u, VTD_REG_GSTS, status_bit, on ? status_bit : 0);
}

int vtd_set_root(struct vtd_unit *u, const void *root)
{
	wr64(u, VTD_REG_RTADDR, (u64)(uintptr_t)root);   /* TTM 00: legacy */
	return gcmd(u, VTD_GCMD_SRTP, true, VTD_GSTS_RTPS);
}

int vtd_translation(struct vtd_unit *u, bool on)
{
	return gcmd(u, VTD_GCMD_TE, on, VTD_GSTS_TES);
}

/* Write a command register with its busy bit 63 set, wait until the
 * unit clears it. */
static int command64(struct vtd_unit *u, u32 off, u64 cmd)
{
	struct tsc_wait wait = TSC_WAIT(VTD_TIMEOUT_US);

	wr64(u, off, cmd);
	while (rd64(u, off) & VTD_BUSY) {
		if (tsc_wait_over(&wait))
			return -ETIMEDOUT;
		cpu_relax();
	}
	return 0;
}

int vtd_flush_context(struct vtd_unit *u)
{
	return command64(u, VTD_REG_CCMD, vtd_ccmd_global());
}

int vtd_flush_iotlb(struct vtd_unit *u)
{
	return command64(u, u->iotlb, vtd_iotlb_global());
}

bool vtd_take_fault(struct vtd_unit *u, struct vtd_fault *f)
{
	u32 fsts = rd32(u, VTD_REG_FSTS), i;
	u32 off;

	f->valid = false;
	if (!(fsts & VTD_FSTS_PPF))
		return false;
	i = (fsts >> VTD_FSTS_FRI_SHIFT) & VTD_FRI_MASK;
	off = u->fro + (i % u->nfr) * VTD_FRCD_SIZE;
	vtd_fault_decode(rd64(u, off), rd64(u, off + 8), f);
	wr32(u, off + VTD_FRCD_F_DWORD, VTD_FRCD_F);   /* F is write-1-to-clear */
	wr32(u, VTD_REG_FSTS, VTD_FSTS_PFO);
	return f->valid;
}

void vtd_clear_faults(struct vtd_unit *u)
{
	u32 i;

	for (i = 0; i < u->nfr; i++)
		wr32(u, u->fro + i * VTD_FRCD_SIZE + VTD_FRCD_F_DWORD, VTD_FRCD_F);
	wr32(u, VTD_REG_FSTS, VTD_FSTS_PFO);
}
