/*
 * kernel/plan.c - parse the fixed sample plan (format in kernel/plan.h).
 * Pure: host-tested by tests/host/c/test_plan.c.
 */
#include "kernel/plan.h"
#include "lib/fmt.h"
#include "lib/string.h"

#define PLAN_FIELDS 4

struct plan_field {
	const char *s;
	size_t n;
};

/* Split one line at single spaces into exactly PLAN_FIELDS fields. */
static bool plan_split(const char *line, size_t len, struct plan_field *f)
{
	u32 k = 0;
	size_t i, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] != ' ')
			continue;
		if (k == PLAN_FIELDS || i == start)
			return false;
		f[k].s = line + start;
		f[k++].n = i - start;
		start = i + 1;
	}
	return k == PLAN_FIELDS;
}

static bool plan_number(const struct plan_field *f, u32 lo, u32 hi, u32 *out)
{
	u64 v = 0;
	size_t i;

	if (f->n > 10)
		return false;
	for (i = 0; i < f->n; i++) {
		if (f->s[i] < '0' || f->s[i] > '9')
			return false;
		v = v * 10 + (u64)(f->s[i] - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = (u32)v;
	return true;
}

/* A name: printable ASCII without spaces, shorter than its field. */
static bool plan_name(const struct plan_field *f, char *dst, size_t cap)
{
	size_t i;

	if (f->n >= cap)
		return false;
	for (i = 0; i < f->n; i++)
		if (f->s[i] <= ' ' || f->s[i] > '~')
			return false;
	kmemcpy(dst, f->s, f->n);
	dst[f->n] = 0;
	return true;
}

static int plan_line(struct plan *p, const char *line, size_t len, u32 lineno,
		     char *err, size_t errlen)
{
	struct plan_field f[PLAN_FIELDS];
	struct plan_entry *e;

	if (p->n == PLAN_MAX_ENTRIES) {
		fmt_snprintf(err, errlen, "plan line %u: more than %u cases", lineno,
			     PLAN_MAX_ENTRIES);
		return -EINVAL;
	}
	e = &p->entries[p->n];
	kmemset(e, 0, sizeof(*e));
	if (!plan_split(line, len, f) || !plan_name(&f[0], e->suite, sizeof(e->suite)) ||
	    !plan_name(&f[1], e->name, sizeof(e->name)) ||
	    !plan_number(&f[2], 1, PLAN_MAX_ITERS, &e->iters) ||
	    !plan_number(&f[3], 1, PLAN_MAX_SAMPLES, &e->samples)) {
		fmt_snprintf(err, errlen, "plan line %u: expected 'SUITE CASE ITERS SAMPLES' "
			     "(ITERS 1..%u, SAMPLES 1..%u)", lineno, PLAN_MAX_ITERS,
			     PLAN_MAX_SAMPLES);
		return -EINVAL;
	}
	if (plan_find(p, e->suite, e->name)) {
		fmt_snprintf(err, errlen, "plan line %u: case %s listed twice", lineno, e->name);
		return -EINVAL;
	}
	p->n++;
	return 0;
}

int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen)
{
	size_t i, start = 0;
	u32 lineno = 0;

	p->n = 0;
	if (errlen)
		err[0] = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		lineno++;
		if (i > start && plan_line(p, text + start, i - start, lineno, err, errlen))
			return -EINVAL;
		start = i + 1;
	}
	return 0;
}

struct plan_entry *plan_find(struct plan *p, const char *suite, const char *name)
{
	u32 i;

	for (i = 0; i < p->n; i++)
		if (!kstrcmp(p->entries[i].suite, suite) && !kstrcmp(p->entries[i].name, name))
			return &p->entries[i];
	return NULL;
}

u32 plan_round_samples(u32 samples, u32 rounds)
{
	if (!rounds)
		rounds = 1;
	return (samples + rounds - 1) / rounds;
}
