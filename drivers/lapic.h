/*
 * drivers/lapic.h - the local APIC (Intel SDM vol. 3, chapter 11): xAPIC
 * registers through the MMIO window at the APIC base, x2APIC through MSRs
 * 0x800-0x8ff once CPUID says it exists and lapic_set_x2apic() turns it
 * on.  Timer (one-shot and TSC-deadline), EOI, IPIs (self, fixed to one
 * CPU, INIT-SIPI-SIPI).  Under KVM with kernel-irqchip=on|split the local
 * APIC is KVM's; under TCG QEMU's.
 */
#ifndef DRIVERS_LAPIC_H
#define DRIVERS_LAPIC_H

#include "lib/types.h"

/* xAPIC register offsets (the x2APIC MSR is 0x800 + offset / 16) */
#define LAPIC_ID        0x020
#define LAPIC_VERSION   0x030
#define LAPIC_TPR       0x080
#define LAPIC_EOI       0x0b0
#define LAPIC_SVR       0x0f0
#define LAPIC_IRR       0x200     /* 8 registers of 32 vectors, 0x10 apart */
#define LAPIC_ICR_LO    0x300
#define LAPIC_ICR_HI    0x310
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_ICR 0x380     /* initial count */
#define LAPIC_TIMER_CCR 0x390     /* current count */
#define LAPIC_TIMER_DCR 0x3e0     /* divide configuration */

#define LAPIC_MSR_BASE      0x800
#define LAPIC_MSR_SELF_IPI  0x83f  /* x2APIC only: write a vector */
#define MSR_TSC_DEADLINE    0x6e0

/* ICR low word */
#define LAPIC_DM_FIXED      0x000
#define LAPIC_DM_INIT       0x500
#define LAPIC_DM_STARTUP    0x600
#define LAPIC_ICR_PENDING   (1u << 12)   /* xAPIC delivery status */
#define LAPIC_ICR_ASSERT    (1u << 14)
#define LAPIC_ICR_SELF      (1u << 18)   /* destination shorthand 01 */
#define LAPIC_ICR_OTHERS    (3u << 18)   /* shorthand 11: all excluding self */

#define LAPIC_SPURIOUS_VECTOR 0xff

/* -ENODEV without a local APIC (CPUID 1 EDX[9]) or when it is disabled
 * in IA32_APIC_BASE; else software-enable it (SVR, spurious vector
 * LAPIC_SPURIOUS_VECTOR), TPR 0, timer masked.  xAPIC mode. */
int lapic_init(void);

bool lapic_has_x2apic(void);        /* CPUID 1 ECX[21] */
bool lapic_has_tsc_deadline(void);  /* CPUID 1 ECX[24] */
bool lapic_x2apic_on(void);

/* Switch to x2APIC (on) or back to xAPIC (off: through the disabled
 * state, as the SDM requires; the APIC is re-initialised).  -ENODEV when
 * x2APIC is absent. */
int lapic_set_x2apic(bool on);

/* x2APIC on this CPU alone, the driver's mode left as it is: an AP goes
 * first (its interrupt in service ended before), then the BSP follows
 * with lapic_set_x2apic(true) and both CPUs share the mode.  -ENODEV
 * when x2APIC is absent. */
int lapic_x2apic_this_cpu(void);

u32 lapic_read(u32 reg);
void lapic_write(u32 reg, u32 value);
u32 lapic_id(void);

static inline void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

/* Fixed interrupt `vector` to the CPU whose APIC ID is dest (physical). */
void lapic_send_ipi(u32 dest, u8 vector);
/* Fixed interrupt to this CPU through the ICR's "self" shorthand. */
void lapic_self_ipi(u8 vector);

/* The timer: one-shot at `vector` with divide-by-1 (lapic_timer_arm
 * starts a count), or TSC-deadline mode (lapic_deadline_arm writes the
 * deadline MSR). */
void lapic_timer_oneshot_mode(u8 vector);
void lapic_timer_arm(u32 count);
void lapic_timer_stop(void);
void lapic_deadline_mode(u8 vector);
void lapic_deadline_arm(u64 tsc_deadline);

/* INIT, then up to two STARTUP IPIs at sipi_vector (the page the AP
 * starts at), to all CPUs but this one (the shorthand spares guessing the
 * AP's APIC ID), with the SDM's delays; then wait up to timeout_us for
 * *alive.  -ETIMEDOUT when the ICR never goes idle or *alive stays false. */
int lapic_start_ap(u8 sipi_vector, volatile bool *alive, u64 timeout_us);

#endif
