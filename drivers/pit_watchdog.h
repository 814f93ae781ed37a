/*
 * drivers/pit_watchdog.h - the 8254 PIT's channel 0 as the bound of a
 * spin that has none of its own: vmexit's `mov x; test; je` wait for a
 * timer interrupt, run instruction for instruction (on PVM a deadline
 * wait costs one emulator batch of whatever the spin runs, so a bound
 * inside the spin would change the figure it measures).
 */
#ifndef DRIVERS_PIT_WATCHDOG_H
#define DRIVERS_PIT_WATCHDOG_H

#include "lib/types.h"

/* Called in the watchdog's interrupt when its owner has not kicked it
 * for the bound: it ends the spin and counts a lost wait. */
typedef void (*pit_watchdog_fn)(void);

/* Its vector: priority class 4, under the timers' it bounds (0xb0, 0xe0),
 * so a timer interrupt that is due is taken before a shot. */
#define PIT_WATCHDOG_VECTOR 0x40

/* One-shots of PIT_WATCHDOG_MS on PIT_WATCHDOG_VECTOR (IRQ 0 through the
 * I/O APIC to this CPU), release() once bound_us pass without a kick; IF
 * as it is, but open while a first shot of 1 ms is seen to arrive.  0,
 * -ENODEV when the I/O APIC's entry does not read back, or -ETIMEDOUT
 * when that shot does not arrive within 100 ms. */
int pit_watchdog_start(u64 bound_us, pit_watchdog_fn release);

/* Start the shot and the bound afresh: two port writes KVM's in-kernel
 * PIT answers, for between samples (untimed). */
void pit_watchdog_kick(void);

/* The I/O APIC's entry put back; no shot reaches the CPU after. */
void pit_watchdog_stop(void);

/* shots that ran out since start (a healthy, kicked wait sees none) */
extern volatile u32 pit_watchdog_fired;

#define PIT_WATCHDOG_MS 54       /* 65535 ticks of 1.193182 MHz: 54.9 ms */

#endif
