/*
 * platform/tsc_check.c - the TSC frequency against the ACPI PM timer (see
 * tsc_check.h).  QEMU: PIIX4 PM on `pc`, ICH9 on `q35` (drivers/acpi_pm.c).
 */
#include "platform/tsc_check.h"
#include "arch/x86/io.h"
#include "arch/x86/tsc.h"
#include "drivers/acpi_pm.h"

#define PM_TMR_HZ        3579545u
#define PM_TMR_MASK      0xffffffu     /* 24 bits unless FADT TMR_VAL_EXT */

struct tsc_check tsc_check;

u64 tsc_check_khz(u64 tsc_ticks, u32 pm_ticks)
{
	if (!pm_ticks)
		return 0;
	/* split to keep tsc_ticks * PM_TMR_HZ in range */
	return tsc_ticks / pm_ticks * PM_TMR_HZ / 1000 +
	       tsc_ticks % pm_ticks * PM_TMR_HZ / pm_ticks / 1000;
}

s64 tsc_check_diff_ppm(u64 chosen_khz, u64 measured_khz)
{
	s64 diff = (s64)chosen_khz - (s64)measured_khz;

	return measured_khz ? diff * 1000000 / (s64)measured_khz : 0;
}

/* TSC ticks over `ms` of the PM timer at port `tmr`; 0 if it did not
 * get there within TSC_CHECK_WAIT_MS. */
static u64 measure(u16 tmr, u32 ms, u32 *pm_ticks)
{
	struct tsc_wait wait = TSC_WAIT((u64)TSC_CHECK_WAIT_MS * 1000);
	u32 want = PM_TMR_HZ / 1000 * ms, p0, p;
	u64 t0;

	p0 = inl(tmr) & PM_TMR_MASK;
	t0 = tsc_begin();
	while ((p = (inl(tmr) - p0) & PM_TMR_MASK) < want)
		if (tsc_wait_over(&wait))
			return 0;
	*pm_ticks = p;
	return tsc_end() - t0;
}

int tsc_check_run(void)
{
	u16 base = acpi_pm_base();
	u32 pm_ticks = 0;
	u64 ticks;

	if (!base)
		return -ENODEV;
	ticks = measure(base + ACPI_PM_TMR, TSC_CHECK_MS, &pm_ticks);
	if (!ticks)
		return -ETIMEDOUT;
	tsc_check.done = true;
	tsc_check.ms = TSC_CHECK_MS;
	tsc_check.khz = tsc_check_khz(ticks, pm_ticks);
	if (tsc.guess && tsc_check.khz) {
		tsc.khz = tsc_check.khz;
		tsc.source = "acpi-pm";
		tsc.guess = false;
		tsc_check.replaced = true;
	}
	tsc_check.diff_ppm = tsc_check_diff_ppm(tsc.khz, tsc_check.khz);
	tsc_check.disagree = tsc_check.diff_ppm > TSC_CHECK_WARN_PPM ||
			     tsc_check.diff_ppm < -TSC_CHECK_WARN_PPM;
	return 0;
}
