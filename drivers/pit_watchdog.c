/*
 * drivers/pit_watchdog.c - channel 0 of the 8254 PIT counting one shot
 * (mode 0) that raises IRQ 0, which QEMU routes to the I/O APIC's pin 2
 * (hw/intc/ioapic.c: ISA IRQs map to GSIs one to one but IRQ 0, which
 * maps to GSI 2, as the MADT's override says; KVM's in-kernel routing is
 * QEMU's) with the legacy PIC left masked.  Each
 * shot that runs out re-arms the next; release() runs once the owner has
 * not kicked for the bound.  A kicked, healthy wait never sees a shot.
 */
#include "drivers/pit_watchdog.h"
#include "drivers/lapic.h"
#include "drivers/platform.h"
#include "arch/x86/io.h"
#include "arch/x86/irq.h"
#include "arch/x86/mmio_access.h"
#include "arch/x86/tsc.h"

#define PIT_CH0          0x40
#define PIT_CMD          0x43
#define PIT_CH0_ONESHOT  0x30     /* channel 0, lo/hi byte, mode 0, binary */
#define PIT_MAX_COUNT    0xffff
#define IOREGSEL         0x00
#define IOWIN            0x10
#define REDIR_IRQ0       (0x10 + 2 * 2)   /* pin 2's entry, low then high */
#define REDIR_MASKED     (1u << 16)
#define PROBE_COUNT      1193     /* 1 ms */
#define PROBE_WAIT_US    100000
#define RFLAGS_IF        (1u << 9)

volatile u32 pit_watchdog_fired;
static pit_watchdog_fn release_fn;
static u64 bound_ticks, kicked;
static u32 entry_before[2];

static u32 ioapic_read(u32 reg)
{
	mmio_write32((volatile void *)(uintptr_t)(IOAPIC_BASE + IOREGSEL), reg);
	return mmio_read32((volatile void *)(uintptr_t)(IOAPIC_BASE + IOWIN));
}

static void ioapic_write(u32 reg, u32 v)
{
	mmio_write32((volatile void *)(uintptr_t)(IOAPIC_BASE + IOREGSEL), reg);
	mmio_write32((volatile void *)(uintptr_t)(IOAPIC_BASE + IOWIN), v);
}

/* the count (re)written: in mode 0 this starts a new shot */
static void shot_of(u16 count)
{
	outb(count & 0xff, PIT_CH0);
	outb(count >> 8, PIT_CH0);
}

static void shot(void)
{
	shot_of(PIT_MAX_COUNT);
}

static bool irq_on(void)
{
	u64 flags;

	__asm__ volatile("pushfq; pop %0" : "=r"(flags));
	return flags & RFLAGS_IF;
}

/* Does a short shot reach the CPU?  The spin's bound is proved before
 * the spin relies on it. */
static bool shot_arrives(void)
{
	struct tsc_wait w = TSC_WAIT(PROBE_WAIT_US);
	u32 before = pit_watchdog_fired;
	bool on = irq_on(), late = false;

	shot_of(PROBE_COUNT);
	irq_enable();
	while (pit_watchdog_fired == before && !late)
		late = tsc_wait_over(&w);
	if (!on)
		irq_disable();
	return !late;
}

/* A shot that ran out; after stop (release_fn NULL) one already in the
 * local APIC only gets its EOI. */
static void fire(u32 vector)
{
	(void)vector;
	if (!release_fn) {
		lapic_eoi();
		return;
	}
	pit_watchdog_fired++;
	if (tsc_begin() - kicked > bound_ticks) {
		release_fn();
		kicked = tsc_begin();
	}
	shot();
	lapic_eoi();
}

int pit_watchdog_start(u64 bound_us, pit_watchdog_fn release)
{
	u32 low = PIT_WATCHDOG_VECTOR;   /* fixed, physical, edge, active high */

	entry_before[0] = ioapic_read(REDIR_IRQ0);
	entry_before[1] = ioapic_read(REDIR_IRQ0 + 1);
	ioapic_write(REDIR_IRQ0, entry_before[0] | REDIR_MASKED);
	release_fn = release;
	bound_ticks = bound_us * tsc.khz / 1000;
	pit_watchdog_fired = 0;
	irq_set_handler(PIT_WATCHDOG_VECTOR, fire);
	outb(PIT_CH0_ONESHOT, PIT_CMD);
	kicked = tsc_begin();
	ioapic_write(REDIR_IRQ0 + 1, lapic_id() << 24);
	ioapic_write(REDIR_IRQ0, low);
	if ((ioapic_read(REDIR_IRQ0) & (0xff | REDIR_MASKED)) != low) {
		pit_watchdog_stop();
		return -ENODEV;
	}
	if (!shot_arrives()) {
		pit_watchdog_stop();
		return -ETIMEDOUT;
	}
	pit_watchdog_fired = 0;
	pit_watchdog_kick();
	return 0;
}

void pit_watchdog_kick(void)
{
	kicked = tsc_begin();
	shot();
}

void pit_watchdog_stop(void)
{
	ioapic_write(REDIR_IRQ0, entry_before[0] | REDIR_MASKED);
	ioapic_write(REDIR_IRQ0 + 1, entry_before[1]);
	ioapic_write(REDIR_IRQ0, entry_before[0]);
	release_fn = NULL;	/* fire() stays the vector's handler */
}
