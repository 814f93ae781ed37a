/*
 * kernel/plan.h - the fixed sample plan: which cases to run with exactly
 * how many operations per sample (iters) and how many samples, so two
 * builds or two hosts can be timed with identical sampling (`trapmeter run
 * --plan FILE.json` writes it to fw_cfg opt/trapmeter/plan).
 *
 * Text, one case per line, fields separated by single spaces:
 *   SUITE CASE ITERS SAMPLES\n
 * e.g. "pio fwcfg.in8.rep.4096 1 12".  Empty lines are ignored; anything
 * else that does not fit is an error naming the line.
 */
#ifndef KERNEL_PLAN_H
#define KERNEL_PLAN_H

#include "lib/types.h"

#define PLAN_MAX_ENTRIES  512
#define PLAN_SUITE_LEN    16
#define PLAN_CASE_LEN     48
#define PLAN_MAX_ITERS    1000000u
#define PLAN_MAX_SAMPLES  10000u

struct plan_entry {
	char suite[PLAN_SUITE_LEN];
	char name[PLAN_CASE_LEN];
	u32 iters;
	u32 samples;
	bool used;               /* the case ran with this entry */
};

struct plan {
	struct plan_entry entries[PLAN_MAX_ENTRIES];
	u32 n;
};

/*
 * Parse len bytes of text into *p (emptied first).  0, or -EINVAL with a
 * message naming the line and the problem in err (NUL-terminated).
 */
int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen);

/* The entry for (suite, name), or NULL. */
struct plan_entry *plan_find(struct plan *p, const char *suite, const char *name);

/*
 * A case's samples in each of `rounds` passes over the case list
 * (kernel word rounds=): ceil(samples / rounds), so the boot takes at
 * least the planned total (tools/trapmeterlib/guest/rounds.py mirrors it).
 */
u32 plan_round_samples(u32 samples, u32 rounds);

#endif
