/*
 * tests/host/c/test_lapic.c - drivers/lapic.c against a fake local APIC: the
 * xAPIC window is a host page whose address IA32_APIC_BASE reports, x2APIC
 * accesses are the fake CPU's recorded MSR writes.  Checks what each call
 * leaves in the registers: SVR/TPR/LVT at init, the ICR words of fixed,
 * self and start-up IPIs, the x2APIC MSR numbers and the 64-bit ICR, the
 * SDM's way back from x2APIC through the disabled state, and the bounded
 * wait for an AP that never starts.
 */
#include "tests/host/c/check.h"
#include "tests/host/c/fake_cpu.h"
#include "tests/host/c/fake_tsc.h"
#include "drivers/lapic.h"
#include "arch/x86/tsc.h"
#include <stdlib.h>
#include <string.h>

#define MSR_APIC_BASE    0x1b
#define BASE_EN          (1ull << 11)
#define BASE_EXTD        (1ull << 10)
#define MAX_WRITES       32
#define CPUID1_APIC      (1u << 9)
#define CPUID1_X2APIC    (1u << 21)

static u8 *page;                 /* the xAPIC window */
static u64 apic_base;
static struct { u32 msr; u64 v; } writes[MAX_WRITES];
static u32 n_writes;

static u64 rd(u32 msr)
{
	return msr == MSR_APIC_BASE ? apic_base : 0;
}

static void wr(u32 msr, u64 v)
{
	if (msr == MSR_APIC_BASE)
		apic_base = v;
	if (n_writes < MAX_WRITES) {
		writes[n_writes].msr = msr;
		writes[n_writes++].v = v;
	}
}

static u32 reg(u32 off)
{
	u32 v;

	memcpy(&v, page + off, sizeof(v));
	return v;
}

static void setup(u32 ecx)
{
	fake_cpu_reset();
	fake_cpuid_set(1, 0, 0, ecx, CPUID1_APIC);
	fake_rdmsr_hook = rd;
	fake_wrmsr_hook = wr;
	memset(page, 0, 4096);
	apic_base = (u64)(uintptr_t)page | BASE_EN;
	n_writes = 0;
}

static void test_no_apic(void)
{
	setup(0);
	fake_cpu_reset();
	fake_rdmsr_hook = rd;
	CHECK_EQ_S64(lapic_init(), -ENODEV);
	setup(0);
	apic_base &= ~BASE_EN;
	CHECK_EQ_S64(lapic_init(), -ENODEV);
}

static void test_xapic(void)
{
	setup(0);
	page[LAPIC_ID + 3] = 5;            /* APIC ID in bits 31:24 */
	CHECK_EQ_S64(lapic_init(), 0);
	CHECK_EQ_U64(reg(LAPIC_SVR), 0x1ff);
	CHECK_EQ_U64(reg(LAPIC_TPR), 0);
	CHECK_EQ_U64(reg(LAPIC_LVT_TIMER), 0x100ff);
	CHECK_EQ_U64(lapic_id(), 5);
	lapic_send_ipi(3, 0xb1);
	CHECK_EQ_U64(reg(LAPIC_ICR_HI), 3u << 24);
	CHECK_EQ_U64(reg(LAPIC_ICR_LO), 0x40b1);
	lapic_self_ipi(0xb0);
	CHECK_EQ_U64(reg(LAPIC_ICR_LO), 0x440b0);
	lapic_timer_oneshot_mode(0xe0);
	lapic_timer_arm(1);
	CHECK_EQ_U64(reg(LAPIC_TIMER_DCR), 0xb);
	CHECK_EQ_U64(reg(LAPIC_LVT_TIMER), 0xe0);
	CHECK_EQ_U64(reg(LAPIC_TIMER_ICR), 1);
	lapic_deadline_mode(0xe0);
	CHECK_EQ_U64(reg(LAPIC_LVT_TIMER), 0x400e0);
	CHECK_EQ_U64(n_writes, 0);            /* xAPIC: no MSR but the base */
	CHECK_EQ_S64(lapic_set_x2apic(true), -ENODEV);
}

static void test_x2apic(void)
{
	setup(CPUID1_X2APIC);
	CHECK_EQ_S64(lapic_init(), 0);
	n_writes = 0;
	CHECK_EQ_S64(lapic_set_x2apic(true), 0);
	CHECK(lapic_x2apic_on());
	CHECK_EQ_U64(writes[0].msr, MSR_APIC_BASE);
	CHECK_EQ_U64(writes[0].v & (BASE_EN | BASE_EXTD), BASE_EN | BASE_EXTD);
	n_writes = 0;
	lapic_eoi();
	lapic_send_ipi(3, 0xb1);
	lapic_self_ipi(0xb0);
	CHECK_EQ_U64(n_writes, 3);
	CHECK_EQ_U64(writes[0].msr, 0x80b);
	CHECK_EQ_U64(writes[1].msr, 0x830);
	CHECK_EQ_U64(writes[1].v, (3ull << 32) | 0x40b1);
	CHECK_EQ_U64(writes[2].msr, 0x830);
	CHECK_EQ_U64(writes[2].v, 0x440b0);
	n_writes = 0;
	CHECK_EQ_S64(lapic_set_x2apic(false), 0);
	/* x2APIC -> disabled -> xAPIC, never x2APIC -> xAPIC directly */
	CHECK_EQ_U64(writes[0].msr, MSR_APIC_BASE);
	CHECK_EQ_U64(writes[0].v & (BASE_EN | BASE_EXTD), 0);
	CHECK_EQ_U64(writes[1].msr, MSR_APIC_BASE);
	CHECK_EQ_U64(writes[1].v & (BASE_EN | BASE_EXTD), BASE_EN);
	CHECK(!lapic_x2apic_on());
	CHECK_EQ_U64(reg(LAPIC_SVR), 0x1ff);  /* re-initialised in xAPIC mode */
}

static void test_start_ap(void)
{
	volatile bool alive = false;

	setup(CPUID1_X2APIC);
	CHECK_EQ_S64(lapic_init(), 0);
	CHECK_EQ_S64(lapic_set_x2apic(true), 0);
	n_writes = 0;
	fake_tsc_on = true;
	fake_tsc_read_cost = 1000;
	tsc.khz = 1000000;
	CHECK_EQ_S64(lapic_start_ap(0x07, &alive, 1000), -ETIMEDOUT);
	CHECK_EQ_U64(n_writes, 3);
	CHECK_EQ_U64(writes[0].v, 0xc4500);   /* INIT, assert, all but self */
	CHECK_EQ_U64(writes[1].v, 0xc0607);   /* STARTUP at page 7 */
	CHECK_EQ_U64(writes[2].v, 0xc0607);
	alive = true;
	n_writes = 0;
	CHECK_EQ_S64(lapic_start_ap(0x07, &alive, 1000), 0);
	CHECK_EQ_U64(n_writes, 1);            /* already up: no STARTUP */
	fake_tsc_on = false;
	lapic_set_x2apic(false);
}

int main(void)
{
	page = aligned_alloc(4096, 4096);
	RUN(test_no_apic, "lapic: no APIC or disabled is -ENODEV");
	RUN(test_xapic, "lapic: xAPIC registers, ICR words, timer modes");
	RUN(test_x2apic, "lapic: x2APIC MSRs, 64-bit ICR, the way back");
	RUN(test_start_ap, "lapic: INIT-SIPI-SIPI and a bounded wait");
	free(page);
	return check_summary();
}
