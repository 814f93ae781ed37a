/*
 * drivers/lapic.c - local APIC driver (Intel SDM vol. 3, chapter 11).
 * One register access path for both modes: xAPIC is a 32-bit MMIO access
 * at the APIC base (boot/boot.asm maps the top GiB uncached), x2APIC the
 * MSR 0x800 + offset / 16; the ICR is one 64-bit MSR in x2APIC mode.
 * QEMU: any x86 machine; `-cpu host`/`max` offer x2APIC and TSC-deadline
 * where the host (or TCG) has them.
 */
#include "drivers/lapic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/mmio_access.h"
#include "arch/x86/tsc.h"

#define MSR_APIC_BASE       0x1b
#define APIC_BASE_EXTD      (1ull << 10)   /* x2APIC mode */
#define APIC_BASE_EN        (1ull << 11)   /* globally enabled */
#define APIC_BASE_ADDR      0x000ffffffffff000ull  /* bits 12..51 */
#define CPUID1_EDX_APIC     (1u << 9)
#define CPUID1_ECX_X2APIC   (1u << 21)
#define CPUID1_ECX_DEADLINE (1u << 24)
#define SVR_ENABLE          (1u << 8)
#define LVT_MASKED          (1u << 16)
#define LVT_TIMER_DEADLINE  (2u << 17)
#define DCR_DIVIDE_1        0xb
#define INIT_DELAY_US       10000          /* SDM 9.4.4: 10 ms after INIT */
#define SIPI_DELAY_US       200            /* and 200 us after each SIPI */
#define ICR_IDLE_US         10000
#define ALIVE_POLL_US       100

static volatile u8 *base;
static bool x2apic;

bool lapic_has_x2apic(void)
{
	return cpuid(1, 0).ecx & CPUID1_ECX_X2APIC;
}

bool lapic_has_tsc_deadline(void)
{
	return cpuid(1, 0).ecx & CPUID1_ECX_DEADLINE;
}

bool lapic_x2apic_on(void)
{
	return x2apic;
}

u32 lapic_read(u32 reg)
{
	if (x2apic)
		return (u32)rdmsr(LAPIC_MSR_BASE + reg / 16);
	return mmio_read32(base + reg);
}

void lapic_write(u32 reg, u32 value)
{
	if (x2apic)
		wrmsr(LAPIC_MSR_BASE + reg / 16, value);
	else
		mmio_write32(base + reg, value);
}

u32 lapic_id(void)
{
	u32 id = lapic_read(LAPIC_ID);

	return x2apic ? id : id >> 24;
}

static void software_enable(void)
{
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | LAPIC_SPURIOUS_VECTOR);
	lapic_write(LAPIC_SVR, SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
}

int lapic_init(void)
{
	u64 msr;

	if (!(cpuid(1, 0).edx & CPUID1_EDX_APIC))
		return -ENODEV;
	msr = rdmsr(MSR_APIC_BASE);
	if (!(msr & APIC_BASE_EN))
		return -ENODEV;
	x2apic = msr & APIC_BASE_EXTD;
	base = (volatile u8 *)(uintptr_t)(msr & APIC_BASE_ADDR);
	software_enable();
	return 0;
}

int lapic_set_x2apic(bool on)
{
	u64 msr = rdmsr(MSR_APIC_BASE);

	if (!lapic_has_x2apic())
		return -ENODEV;
	if (on == x2apic)
		return 0;
	if (on) {
		wrmsr(MSR_APIC_BASE, msr | APIC_BASE_EXTD);
	} else {
		/* x2APIC -> xAPIC is invalid; x2APIC -> disabled -> xAPIC is not */
		wrmsr(MSR_APIC_BASE, msr & ~(APIC_BASE_EXTD | APIC_BASE_EN));
		wrmsr(MSR_APIC_BASE, (msr & ~APIC_BASE_EXTD) | APIC_BASE_EN);
	}
	x2apic = on;
	software_enable();
	return 0;
}

int lapic_x2apic_this_cpu(void)
{
	u64 msr = rdmsr(MSR_APIC_BASE);

	if (!lapic_has_x2apic())
		return -ENODEV;
	wrmsr(MSR_APIC_BASE, msr | APIC_BASE_EXTD);
	wrmsr(LAPIC_MSR_BASE + LAPIC_TPR / 16, 0);
	wrmsr(LAPIC_MSR_BASE + LAPIC_LVT_TIMER / 16, LVT_MASKED | LAPIC_SPURIOUS_VECTOR);
	wrmsr(LAPIC_MSR_BASE + LAPIC_SVR / 16, SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
	return 0;
}

/* xAPIC: the ICR is two registers and the high one must go first. */
static void icr_write(u32 dest, u32 low)
{
	if (x2apic) {
		wrmsr(LAPIC_MSR_BASE + LAPIC_ICR_LO / 16, ((u64)dest << 32) | low);
		return;
	}
	mmio_write32(base + LAPIC_ICR_HI, dest << 24);
	mmio_write32(base + LAPIC_ICR_LO, low);
}

void lapic_send_ipi(u32 dest, u8 vector)
{
	icr_write(dest, LAPIC_DM_FIXED | LAPIC_ICR_ASSERT | vector);
}

void lapic_self_ipi(u8 vector)
{
	if (x2apic)
		wrmsr(LAPIC_MSR_BASE + LAPIC_ICR_LO / 16,
		      LAPIC_ICR_SELF | LAPIC_DM_FIXED | LAPIC_ICR_ASSERT | vector);
	else
		mmio_write32(base + LAPIC_ICR_LO,
			     LAPIC_ICR_SELF | LAPIC_DM_FIXED | LAPIC_ICR_ASSERT | vector);
}

void lapic_timer_oneshot_mode(u8 vector)
{
	lapic_write(LAPIC_TIMER_DCR, DCR_DIVIDE_1);
	lapic_write(LAPIC_LVT_TIMER, vector);
}

void lapic_timer_arm(u32 count)
{
	lapic_write(LAPIC_TIMER_ICR, count);
}

void lapic_timer_stop(void)
{
	lapic_write(LAPIC_TIMER_ICR, 0);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | LAPIC_SPURIOUS_VECTOR);
	if (lapic_has_tsc_deadline())
		wrmsr(MSR_TSC_DEADLINE, 0);
}

void lapic_deadline_mode(u8 vector)
{
	lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_DEADLINE | vector);
	mfence();   /* SDM 11.5.4.1: the mode switch before the MSR write */
}

void lapic_deadline_arm(u64 tsc_deadline)
{
	wrmsr(MSR_TSC_DEADLINE, tsc_deadline);
}

/* xAPIC only: wait until the last IPI left (x2APIC has no such bit). */
static int icr_idle(void)
{
	u64 left = ICR_IDLE_US;

	if (x2apic)
		return 0;
	while (mmio_read32(base + LAPIC_ICR_LO) & LAPIC_ICR_PENDING) {
		if (!left--)
			return -ETIMEDOUT;
		tsc_delay_us(1);
	}
	return 0;
}

int lapic_start_ap(u8 sipi_vector, volatile bool *alive, u64 timeout_us)
{
	u32 i;

	icr_write(0, LAPIC_ICR_OTHERS | LAPIC_DM_INIT | LAPIC_ICR_ASSERT);
	if (icr_idle())
		return -ETIMEDOUT;
	tsc_delay_us(INIT_DELAY_US);
	for (i = 0; i < 2 && !*alive; i++) {
		icr_write(0, LAPIC_ICR_OTHERS | LAPIC_DM_STARTUP | sipi_vector);
		if (icr_idle())
			return -ETIMEDOUT;
		tsc_delay_us(SIPI_DELAY_US);
	}
	for (; !*alive; timeout_us -= ALIVE_POLL_US) {
		if (timeout_us < ALIVE_POLL_US)
			return -ETIMEDOUT;
		tsc_delay_us(ALIVE_POLL_US);
	}
	return 0;
}
