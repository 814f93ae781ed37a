/*
 * kernel/suites/suites.h - the suites main.c can run.
 */
#ifndef KERNEL_SUITES_SUITES_H
#define KERNEL_SUITES_SUITES_H

#include "kernel/cmdline.h"

/* One round of a suite (kernel word rounds=; from 0: the first sets up,
 * the last checks), so main can interleave the suites' rounds over the
 * whole boot. */
void suite_pio_round(const struct tm_config *cfg, u32 round);
void suite_exits_round(const struct tm_config *cfg, u32 round);
/* The pio case table alone (quick; more: the breakdown's extra sweep
 * points), its size returned; and a case's name (NULL past the end). */
u32 pio_build_table(bool quick, bool more);
const char *pio_case_name(u32 i);
void suite_virtio(const struct tm_config *cfg);
void suite_ide(const struct tm_config *cfg);
void suite_mmio(const struct tm_config *cfg);
/* suite dma (kernel/suites/dma.c): last, its IOMMU fault probe leaves
 * the IDE channel busy */
void suite_dma(const struct tm_config *cfg);
/* suite firmware (kernel/suites/firmware.c): inside UEFI, boot services
 * alive (build/trapmeter-fw.elf only); without them a named skip */
void suite_firmware(const struct tm_config *cfg, u64 system_table, u64 image_handle,
		    bool boot_services);
/* suite exits' interrupt cases (kernel/suites/irq.c), extended only */
void exits_irq_run(void);
/* vCPUs QEMU started (fw_cfg FW_CFG_NB_CPUS; 0 without fw_cfg) */
u32 exits_vcpu_count(void);
/* Start the AP if need be (-smp 2) and have it run fn from an IPI, with
 * interrupts off; NULL, or why not (after exits_irq_run) */
const char *exits_ap_run(void (*fn)(void));
/* suite exits' ple.round_robin (kernel/suites/exits_ple.c), extended only */
void exits_ple_run(void);
/* suite exits' ipi.on_cpu.insn.paired (kernel/suites/exits_ipi.c), extended only */
void exits_ipi_run(void);

/* The extended cases run under suite=all or when case= selects cases by
 * name (SUITE_EXTENDED); the default run leaves them out. */
static inline bool suite_extended(const struct tm_config *cfg)
{
	return (cfg->suites & SUITE_EXTENDED) || cfg->n_case_globs;
}

#endif
