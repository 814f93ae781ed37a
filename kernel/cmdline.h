/*
 * kernel/cmdline.h - parse the kernel command line into a run
 * configuration, and match case names against the selected globs.
 *
 * Syntax: words separated by spaces, tabs or newlines; each word is a
 * flag (quick, verbose) or key=value:
 *   suite=LIST      comma list of pio, exits, ide, virtio, mmio, dma, firmware,
 *                   all (all: every suite but firmware)
 *   case=GLOBS      comma list of up to 32 globs (* ? [abc] [a-z] [!a]),
 *                   under CMDLINE_CASE_MAX chars in total
 *   samples=N       3..10000: the cap on adaptive samples (default 63)
 *   quick=B verbose=B hypercall=B rep=B sync=B
 *                   B is on/off, 1/0, yes/no, true/false
 *   fault=F         none, ud, gp, pf, de, bp, timer, ple, selfipi (test hook)
 *   budget_ms=N     10..600000: per-case budget (default 60)
 *   rounds=N        1..16: the pio and exits suites pass N times over their
 *                   case list, each case taking 1/N of its samples and
 *                   budget per pass (default 1; kernel/bench.h)
 *   lava=B          TM_LAVA lines for a LAVA monitor (kernel/lava.h)
 *   fail_check=B    test hook: report one failing check (hook.fail_check)
 *   pvm=B           the KVM backend is PVM: skip what stops the VM there
 *   stable=B        adaptive sampling's stop when min and p10 settle
 *                   (default on); off: a case samples until its budget or
 *                   the cap, a span of time (`trapmeter kut` sets it, so a
 *                   twin spans about what vmexit's loop does)
 *   table=B         the console's table of results (default on; the
 *                   runner, which prints its own, sets it off)
 *   virtio_path=P   normal (one 2 KiB receive buffer per frame) or
 *                   mergeable (VIRTIO_NET_F_MRG_RXBUF, 512 B buffers)
 * Duplicate keys: the last one wins.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "lib/types.h"

/* 32: a glob's hit is one bit of a u32 (kernel/cmdline.c glob_hits);
 * `trapmeter kut` narrows a boot to the twins of up to ~20 rows */
#define CMDLINE_MAX_GLOBS 32
/* the case= value: the whole command line's room (platform/bootinfo.h
 * BOOTINFO_CMDLINE_MAX) */
#define CMDLINE_CASE_MAX 512
#define CMDLINE_MAX_ROUNDS 16

/* ud..bp: the exception raised at boot; timer: the deadline cases' timer
 * interrupt masked, so each of their spins ends by its watchdog; ple: the
 * AP of ple.round_robin.insn.paired never passes the token back, and that
 * of ipi.on_cpu.insn.paired takes no call until the case ends, so the
 * BSP's wait ends by its watchdog; selfipi: the self-IPI shapes' probes
 * send no self-IPI, so each probe's wait (a sti_hlt's: the PIT's shot,
 * then the drain) runs out and the shape skips by name */
enum cmdline_fault { FAULT_NONE, FAULT_UD, FAULT_GP, FAULT_PF, FAULT_DE, FAULT_BP,
		     FAULT_TIMER, FAULT_PLE, FAULT_SELF_IPI };

struct tm_config {
	u32 suites;		/* bitmask of SUITE_*; default SUITE_DEFAULT */
	const char *case_globs[CMDLINE_MAX_GLOBS];	/* point into case_buf */
	u32 n_case_globs;
	char case_buf[CMDLINE_CASE_MAX];
	u32 samples;		/* adaptive cap, default 63; valid 3..10000 */
	bool quick;
	bool verbose;
	enum cmdline_fault fault;	/* exception-raising test hook */
	bool hypercall;		/* default on */
	bool rep;		/* default on; off: REP cases use unrolled loop */
	bool sync;		/* default off; on: phase sync with the host (exit counting) */
	u32 budget_ms;		/* per-case budget, default 60, 10..600000 */
	u32 rounds;		/* passes over the timing suites' cases, 1..16 */
	bool lava;		/* default off; on: TM_LAVA monitor lines */
	bool fail_check;	/* test hook: one failing check */
	bool pvm;		/* default off; the runner sets it on a PVM backend: cases
				 * that stop the VM there (KVM internal error) skip */
	bool virtio_mergeable;	/* virtio_path=mergeable: MRG_RXBUF receive path */
	bool table;		/* default on; off: no console table row per case */
	bool controls;		/* default on; off: no control op samples (no net figures) */
	bool stable;		/* default on; off: no "stable" stop, budget or cap only */
};

#define SUITE_PIO    (1u << 0)
#define SUITE_EXITS  (1u << 1)
#define SUITE_IDE    (1u << 2)
#define SUITE_VIRTIO (1u << 3)
#define SUITE_MMIO   (1u << 4)
#define SUITE_DMA    (1u << 5)
/* Not in SUITE_ALL: it runs only from build/trapmeter-fw.iso on UEFI */
#define SUITE_FIRMWARE (1u << 6)
#define SUITE_ALL    (SUITE_PIO | SUITE_EXITS | SUITE_IDE | SUITE_VIRTIO | SUITE_MMIO | \
		      SUITE_DMA)
/* Not a suite: set by suite=all.  The suites' extended cases (handler
 * classes beyond user/kernel, edk2's FIFO shapes, the classic exits past
 * the first four) run with it or when case= names them; the default run
 * stays within its time budget. */
#define SUITE_EXTENDED (1u << 31)
#define SUITE_DEFAULT (SUITE_PIO | SUITE_EXITS)

void cmdline_defaults(struct tm_config *cfg);

/*
 * Apply cmdline (not modified; NULL is treated as empty) on top of *cfg.
 * Returns 0, or -EINVAL with a message naming the offending key and the
 * accepted values in err (always NUL-terminated when errlen > 0); on
 * error *cfg is left unchanged.
 */
int cmdline_parse(const char *cmdline, struct tm_config *cfg, char *err,
		  size_t errlen);

/*
 * lava=B as the last lava= word of cmdline would set it, even when some
 * other word is bad: a LAVA job that passed lava=on still gets its failing
 * TM_LAVA case for a bad command line.
 */
bool cmdline_lava_requested(const char *cmdline);

/* True if no case globs were given or any glob matches case_name.  Also
 * notes which globs matched and the names closest to the others. */
bool cmdline_case_selected(const struct tm_config *cfg, const char *case_name);

/* Forget what cmdline_case_selected() noted (start of a run, tests). */
void cmdline_case_reset(void);
/* A whole suite was skipped: its case names were never offered. */
void cmdline_note_suite_skipped(void);
/*
 * After the suites: -EINVAL with "case=GLOB matches no case of the
 * selected suites (close: a, b, c)" in err for the first glob that
 * matched no case offered to cmdline_case_selected(), else 0 (also 0
 * when a whole suite was skipped).
 */
int cmdline_unmatched_globs(const struct tm_config *cfg, char *err, size_t errlen);

#endif
