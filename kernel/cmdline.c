/*
 * kernel/cmdline.c - kernel command line parser and case selection by
 * glob (lib/glob.c).  Parses into a scratch copy of the config so a bad
 * command line leaves the caller's config untouched.
 */
#include "kernel/cmdline.h"
#include "lib/fmt.h"
#include "lib/glob.h"
#include "lib/string.h"

/* A (pointer, length) view into the unmodified command line. */
struct cmdline_tok {
	const char *s;
	size_t len;
};

struct cmdline_key {
	const char *name;
	/* a parser for the value, or NULL for an on/off key ... */
	bool (*apply)(struct tm_config *cfg, struct cmdline_tok val);
	const char *expected;
	/* ... stored in the bool at this offset of struct tm_config */
	size_t bool_field;
};

#define CMDLINE_BOOL_KEY(field) \
	{ #field, NULL, CMDLINE_BOOL_EXPECTED, offsetof(struct tm_config, field) }

static const char *const cmdline_suite_names[] = {
	"pio", "exits", "ide", "virtio", "mmio", "dma", "firmware",
};

static const char *const cmdline_fault_names[] = {
	[FAULT_NONE] = "none", [FAULT_UD] = "ud", [FAULT_GP] = "gp",
	[FAULT_PF] = "pf", [FAULT_DE] = "de", [FAULT_BP] = "bp",
	[FAULT_TIMER] = "timer", [FAULT_PLE] = "ple", [FAULT_SELF_IPI] = "selfipi",
};

#define CMDLINE_BOOL_EXPECTED "on, off, yes, no, true, false, 1, 0"

/* Longest part of a user-supplied word echoed in an error message. */
#define CMDLINE_ECHO_MAX 40

void cmdline_defaults(struct tm_config *cfg)
{
	kmemset(cfg, 0, sizeof(*cfg));
	cfg->suites = SUITE_DEFAULT;
	cfg->samples = 63;
	cfg->fault = FAULT_NONE;
	cfg->hypercall = true;
	cfg->rep = true;
	cfg->budget_ms = 60;
	cfg->table = true;
	cfg->controls = true;
	cfg->stable = true;
	cfg->rounds = 1;
}

static bool cmdline_tok_eq(struct cmdline_tok t, const char *lit)
{
	return kstrncmp(t.s, lit, t.len) == 0 && lit[t.len] == '\0';
}

static bool cmdline_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Split *list at the next comma: returns the item, advances *list. */
static struct cmdline_tok cmdline_next_item(struct cmdline_tok *list)
{
	struct cmdline_tok item = { list->s, 0 };

	while (item.len < list->len && list->s[item.len] != ',')
		item.len++;
	list->s += item.len;
	list->len -= item.len;
	if (list->len) {	/* skip the comma */
		list->s++;
		list->len--;
	}
	return item;
}

static bool cmdline_parse_u32(struct cmdline_tok val, u32 lo, u32 hi, u32 *out)
{
	u64 v = 0;

	if (!val.len)
		return false;
	for (size_t i = 0; i < val.len; i++) {
		if (val.s[i] < '0' || val.s[i] > '9')
			return false;
		v = v * 10 + (u64)(val.s[i] - '0');
		if (v > hi)
			return false;
	}
	if (v < lo)
		return false;
	*out = (u32)v;
	return true;
}

static bool cmdline_parse_bool(struct cmdline_tok val, bool *out)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (u32 i = 0; i < ARRAY_SIZE(yes); i++) {
		if (cmdline_tok_eq(val, yes[i])) {
			*out = true;
			return true;
		}
		if (cmdline_tok_eq(val, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool cmdline_apply_suite(struct tm_config *cfg, struct cmdline_tok val)
{
	u32 mask = 0;

	if (!val.len)
		return false;
	while (val.len) {
		struct cmdline_tok item = cmdline_next_item(&val);
		u32 bit = 0;

		if (cmdline_tok_eq(item, "all"))
			bit = SUITE_ALL | SUITE_EXTENDED;
		for (u32 i = 0; i < ARRAY_SIZE(cmdline_suite_names); i++) {
			if (cmdline_tok_eq(item, cmdline_suite_names[i]))
				bit = 1u << i;
		}
		if (!bit)
			return false;
		mask |= bit;
	}
	if (val.s[-1] == ',')		/* trailing comma: empty last item */
		return false;
	cfg->suites = mask;
	return true;
}

static bool cmdline_apply_case(struct tm_config *cfg, struct cmdline_tok val)
{
	u32 n = 0;

	if (!val.len || val.len >= sizeof(cfg->case_buf) ||
	    val.s[val.len - 1] == ',')
		return false;
	kmemcpy(cfg->case_buf, val.s, val.len);
	cfg->case_buf[val.len] = '\0';
	for (char *p = cfg->case_buf; *p;) {
		if (*p == ',' || n == CMDLINE_MAX_GLOBS)
			return false;		/* empty item or too many */
		cfg->case_globs[n++] = p;
		while (*p && *p != ',')
			p++;
		if (*p)
			*p++ = '\0';
	}
	cfg->n_case_globs = n;
	return true;
}

static bool cmdline_apply_samples(struct tm_config *cfg, struct cmdline_tok val)
{
	return cmdline_parse_u32(val, 3, 10000, &cfg->samples);
}

static bool cmdline_apply_budget(struct tm_config *cfg, struct cmdline_tok val)
{
	return cmdline_parse_u32(val, 10, 600000, &cfg->budget_ms);
}

static bool cmdline_apply_rounds(struct tm_config *cfg, struct cmdline_tok val)
{
	return cmdline_parse_u32(val, 1, CMDLINE_MAX_ROUNDS, &cfg->rounds);
}

static bool cmdline_apply_fault(struct tm_config *cfg, struct cmdline_tok val)
{
	for (u32 i = 0; i < ARRAY_SIZE(cmdline_fault_names); i++) {
		if (cmdline_tok_eq(val, cmdline_fault_names[i])) {
			cfg->fault = (enum cmdline_fault)i;
			return true;
		}
	}
	return false;
}

static bool cmdline_apply_virtio_path(struct tm_config *cfg, struct cmdline_tok val)
{
	if (cmdline_tok_eq(val, "normal") || cmdline_tok_eq(val, "mergeable")) {
		cfg->virtio_mergeable = cmdline_tok_eq(val, "mergeable");
		return true;
	}
	return false;
}

static const struct cmdline_key cmdline_keys[] = {
	{ "suite", cmdline_apply_suite, "pio, exits, ide, virtio, mmio, dma, firmware, all", 0 },
	{ "case", cmdline_apply_case,
	  "comma list of 1..32 globs, under 512 chars in total", 0 },
	{ "samples", cmdline_apply_samples, "3..10000", 0 },
	CMDLINE_BOOL_KEY(quick),
	CMDLINE_BOOL_KEY(verbose),
	{ "fault", cmdline_apply_fault, "none, ud, gp, pf, de, bp, timer", 0 },
	CMDLINE_BOOL_KEY(hypercall),
	CMDLINE_BOOL_KEY(pvm),
	CMDLINE_BOOL_KEY(rep),
	CMDLINE_BOOL_KEY(sync),
	{ "budget_ms", cmdline_apply_budget, "10..600000", 0 },
	{ "rounds", cmdline_apply_rounds, "1..16", 0 },
	CMDLINE_BOOL_KEY(lava),
	CMDLINE_BOOL_KEY(fail_check),
	CMDLINE_BOOL_KEY(table),
	CMDLINE_BOOL_KEY(controls),
	CMDLINE_BOOL_KEY(stable),
	{ "virtio_path", cmdline_apply_virtio_path, "normal, mergeable", 0 },
};

static void cmdline_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cmdline_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Length to echo of t, and the suffix marking a cut ("..." or ""). */
static int cmdline_echo_len(struct cmdline_tok t)
{
	return t.len > CMDLINE_ECHO_MAX ? CMDLINE_ECHO_MAX : (int)t.len;
}

static const char *cmdline_echo_more(struct cmdline_tok t)
{
	return t.len > CMDLINE_ECHO_MAX ? "..." : "";
}

/* A word without '=': only the boolean flags are allowed. */
static int cmdline_flag(struct tm_config *cfg, struct cmdline_tok word,
			char *err, size_t errlen)
{
	if (cmdline_tok_eq(word, "quick")) {
		cfg->quick = true;
	} else if (cmdline_tok_eq(word, "verbose")) {
		cfg->verbose = true;
	} else {
		cmdline_error(err, errlen,
			      "unknown flag '%.*s%s' (expected quick, verbose or key=value)",
			      cmdline_echo_len(word), word.s, cmdline_echo_more(word));
		return -EINVAL;
	}
	return 0;
}

static int cmdline_word(struct tm_config *cfg, struct cmdline_tok word,
			char *err, size_t errlen)
{
	struct cmdline_tok key = { word.s, 0 }, val;

	while (key.len < word.len && word.s[key.len] != '=')
		key.len++;
	if (key.len == word.len)
		return cmdline_flag(cfg, word, err, errlen);
	val.s = word.s + key.len + 1;
	val.len = word.len - key.len - 1;
	for (u32 i = 0; i < ARRAY_SIZE(cmdline_keys); i++) {
		const struct cmdline_key *k = &cmdline_keys[i];

		if (!cmdline_tok_eq(key, k->name))
			continue;
		if (k->apply ? k->apply(cfg, val) :
		    cmdline_parse_bool(val, (bool *)((u8 *)cfg + k->bool_field)))
			return 0;
		cmdline_error(err, errlen,
			      "bad value '%.*s%s' for key '%s' (expected %s)",
			      cmdline_echo_len(val), val.s, cmdline_echo_more(val),
			      k->name, k->expected);
		return -EINVAL;
	}
	cmdline_error(err, errlen,
		      "unknown key '%.*s%s' (expected suite, case, samples, quick, verbose, fault, hypercall, rep, sync, budget_ms, rounds, lava, fail_check, pvm, table, controls, stable, virtio_path)",
		      cmdline_echo_len(key), key.s, cmdline_echo_more(key));
	return -EINVAL;
}

/* Copy a config, re-pointing globs that live in the source's case_buf. */
static void cmdline_copy(struct tm_config *dst, const struct tm_config *src)
{
	uintptr_t base = (uintptr_t)src->case_buf;

	kmemcpy(dst, src, sizeof(*dst));
	for (u32 i = 0; i < src->n_case_globs && i < CMDLINE_MAX_GLOBS; i++) {
		uintptr_t p = (uintptr_t)src->case_globs[i];

		if (p >= base && p < base + sizeof(src->case_buf))
			dst->case_globs[i] = dst->case_buf + (p - base);
	}
}

/* The next space-separated word at *p (advancing *p); false at the end. */
static bool cmdline_next_word(const char **p, struct cmdline_tok *word)
{
	while (cmdline_is_space(**p))
		(*p)++;
	if (!**p)
		return false;
	word->s = *p;
	word->len = 0;
	while ((*p)[word->len] && !cmdline_is_space((*p)[word->len]))
		word->len++;
	*p += word->len;
	return true;
}

int cmdline_parse(const char *cmdline, struct tm_config *cfg, char *err,
		  size_t errlen)
{
	struct tm_config tmp;
	const char *p = cmdline ? cmdline : "";
	struct cmdline_tok word;

	cmdline_error(err, errlen, "%s", "");
	cmdline_copy(&tmp, cfg);

	while (cmdline_next_word(&p, &word))
		if (cmdline_word(&tmp, word, err, errlen))
			return -EINVAL;
	cmdline_copy(cfg, &tmp);
	return 0;
}

bool cmdline_lava_requested(const char *cmdline)
{
	static const char key[] = "lava=";
	const char *p = cmdline ? cmdline : "";
	struct cmdline_tok word;
	bool on = false;

	while (cmdline_next_word(&p, &word)) {
		if (word.len < sizeof(key) - 1 ||
		    kstrncmp(word.s, key, sizeof(key) - 1) != 0)
			continue;
		word.s += sizeof(key) - 1;
		word.len -= sizeof(key) - 1;
		cmdline_parse_bool(word, &on);	/* a bad value keeps the last */
	}
	return on;
}

/*
 * What the globs met: which matched a case, and per glob the case names
 * closest to it (longest common prefix), for the error that names a glob
 * that matched nothing.
 */
#define CLOSE_NAMES 3
#define CLOSE_LEN   48

static u32 glob_hits;		/* bit i: glob i matched a case */
_Static_assert(CMDLINE_MAX_GLOBS <= 32, "glob_hits has a bit per glob");
static bool suite_skipped;
static struct {
	char name[CLOSE_LEN];
	u32 score;
} close_names[CMDLINE_MAX_GLOBS][CLOSE_NAMES];

void cmdline_case_reset(void)
{
	glob_hits = 0;
	suite_skipped = false;
	kmemset(close_names, 0, sizeof(close_names));
}

void cmdline_note_suite_skipped(void)
{
	suite_skipped = true;
}

static u32 common_prefix(const char *a, const char *b)
{
	u32 n = 0;

	while (a[n] && a[n] == b[n] && a[n] != '*' && a[n] != '?' && a[n] != '[')
		n++;
	return n;
}

static void note_close(u32 glob, const char *pattern, const char *name)
{
	u32 score = common_prefix(pattern, name) + 1, k, j;

	for (k = 0; k < CLOSE_NAMES; k++)
		if (score > close_names[glob][k].score)
			break;
	if (k == CLOSE_NAMES)
		return;
	for (j = CLOSE_NAMES - 1; j > k; j--)
		close_names[glob][j] = close_names[glob][j - 1];
	fmt_snprintf(close_names[glob][k].name, CLOSE_LEN, "%s", name);
	close_names[glob][k].score = score;
}

bool cmdline_case_selected(const struct tm_config *cfg, const char *case_name)
{
	bool hit = false;

	if (!cfg->n_case_globs)
		return true;
	for (u32 i = 0; i < cfg->n_case_globs; i++) {
		if (glob_match(cfg->case_globs[i], case_name)) {
			glob_hits |= 1u << i;
			hit = true;
		} else {
			note_close(i, cfg->case_globs[i], case_name);
		}
	}
	return hit;
}

int cmdline_unmatched_globs(const struct tm_config *cfg, char *err, size_t errlen)
{
	size_t n;
	u32 i, k;

	if (suite_skipped)
		return 0;	/* the skipped suite's cases were never named */
	for (i = 0; i < cfg->n_case_globs; i++) {
		if (glob_hits & (1u << i))
			continue;
		n = (size_t)fmt_snprintf(err, errlen, "case=%s matches no case of the selected suites",
					 cfg->case_globs[i]);
		for (k = 0; k < CLOSE_NAMES && close_names[i][k].score && n < errlen; k++)
			n += (size_t)fmt_snprintf(err + n, errlen - n, "%s%s", k ? ", " : " (close: ",
						  close_names[i][k].name);
		if (k && n < errlen)
			fmt_snprintf(err + n, errlen - n, ")");
		return -EINVAL;
	}
	return 0;
}
