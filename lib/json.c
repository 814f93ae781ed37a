/*
 * lib/json.c - minimal streaming JSON object writer (see json.h).
 * Always keeps one byte free for the terminating NUL.
 */
#include "lib/json.h"
#include "lib/fmt.h"

void jw_init(struct jw *w, char *buf, size_t cap)
{
	*w = (struct jw){ .buf = buf, .cap = cap };
}

/* Under a software hypervisor every guest instruction costs about a
 * microsecond and a result line is ~450 bytes: strings are scanned once
 * with a table and copied a word at a time, and a piece whose length is
 * known is checked against the capacity once. */
typedef u64 __attribute__((may_alias, aligned(1))) jw_word;
typedef u32 __attribute__((may_alias, aligned(1))) jw_half;

/* The write position for n more bytes (one stays for the NUL), or NULL
 * with overflow set; the caller then adds n to len. */
static char *jw_reserve(struct jw *w, size_t n)
{
	if (w->overflow || w->len + n >= w->cap) {
		w->overflow = true;
		return NULL;
	}
	return w->buf + w->len;
}

/* n bytes in a few instructions whatever n: short runs as two
 * overlapping pieces (the way small memcpys are done). */
static void jw_copy(char *p, const char *s, size_t n)
{
	if (n >= 8) {
		for (; n > 8; n -= 8, p += 8, s += 8)
			*(jw_word *)p = *(const jw_word *)s;
		*(jw_word *)(p + n - 8) = *(const jw_word *)(s + n - 8);
	} else if (n >= 4) {
		*(jw_half *)p = *(const jw_half *)s;
		*(jw_half *)(p + n - 4) = *(const jw_half *)(s + n - 4);
	} else if (n) {
		p[0] = s[0];
		p[n / 2] = s[n / 2];
		p[n - 1] = s[n - 1];
	}
}

static void jw_putc(struct jw *w, char c)
{
	char *p = jw_reserve(w, 1);

	if (p) {
		*p = c;
		w->len++;
	}
}

static void jw_append(struct jw *w, const char *s, size_t n)
{
	char *p = jw_reserve(w, n);

	if (p) {
		jw_copy(p, s, n);
		w->len += n;
	}
}

/* Printable ASCII but '"' (0x22) and '\\' (0x5c): written as it is. */
static const bool jw_plain[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true,
};

/* The end of the plain run from s (at its NUL, or at a byte to escape). */
static const char *jw_plain_end(const char *s)
{
	while (jw_plain[(u8)*s])
		s++;
	return s;
}

static void jw_escape(struct jw *w, u8 c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = { '\\', (char)c };

	if (c == '"' || c == '\\') {
		jw_append(w, e, 2);
		return;
	}
	e[1] = 'u';
	e[2] = e[3] = '0';
	e[4] = hex[c >> 4];
	e[5] = hex[c & 15];
	jw_append(w, e, 6);
}

/* A string with escapes: run by run. */
static void jw_quoted_slow(struct jw *w, const char *s, const char *e)
{
	jw_putc(w, '"');
	for (;;) {
		jw_append(w, s, (size_t)(e - s));
		if (!*e)
			break;
		jw_escape(w, (u8)*e);
		s = e + 1;
		e = jw_plain_end(s);
	}
	jw_putc(w, '"');
}

/* [lead]"s"[tail] (lead and tail 0: none); a plain string, the usual
 * case, in one piece. */
static void jw_quoted(struct jw *w, char lead, const char *s, char tail)
{
	const char *e = jw_plain_end(s);
	size_t n = (size_t)(e - s), k = n + 2 + (lead != 0) + (tail != 0);
	char *p;

	if (*e) {
		if (lead)
			jw_putc(w, lead);
		jw_quoted_slow(w, s, e);
		if (tail)
			jw_putc(w, tail);
		return;
	}
	p = jw_reserve(w, k);
	if (!p)
		return;
	w->len += k;
	if (lead)
		*p++ = lead;
	*p++ = '"';
	jw_copy(p, s, n);
	p[n] = '"';
	if (tail)
		p[n + 1] = tail;
}

/* Comma if needed, then "key": when inside an object. */
static void jw_member(struct jw *w, const char *key)
{
	char comma = w->need_comma[w->depth] ? ',' : 0;

	w->need_comma[w->depth] = true;
	if (w->depth)
		jw_quoted(w, comma, key ? key : "", ':');
	else if (comma)
		jw_putc(w, comma);
}

static void jw_open(struct jw *w)
{
	if (w->depth >= JW_MAX_DEPTH) {
		w->overflow = true;
		return;
	}
	jw_putc(w, '{');
	w->need_comma[++w->depth] = false;
}

void jw_record(struct jw *w, char *buf, size_t cap, const char *type)
{
	jw_init(w, buf, cap);
	jw_obj_begin(w);
	jw_str(w, "type", type);
}

void jw_obj_begin(struct jw *w)
{
	if (w->depth && w->need_comma[w->depth])
		jw_putc(w, ',');
	if (w->depth)
		w->need_comma[w->depth] = true;
	jw_open(w);
}

void jw_key_obj(struct jw *w, const char *key)
{
	jw_member(w, key);
	jw_open(w);
}

void jw_obj_end(struct jw *w)
{
	if (!w->depth) {
		w->overflow = true;
		return;
	}
	jw_putc(w, '}');
	w->depth--;
}

/* A member whose value is already formatted text [text, end). */
static void jw_raw(struct jw *w, const char *key, const char *text, const char *end)
{
	jw_member(w, key);
	jw_append(w, text, (size_t)(end - text));
}

#define JW_LIT(s) (s), (s) + sizeof(s) - 1

void jw_str(struct jw *w, const char *key, const char *val)
{
	if (!val) {
		jw_null(w, key);
		return;
	}
	jw_member(w, key);
	jw_quoted(w, 0, val, 0);
}

/* "00" "01" ... "99": two digits per division (no printf machinery,
 * which costs hundreds of instructions a number). */
static const char jw_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v ending just before end; returns the first. */
static char *jw_digits(u64 v, char *end)
{
	while (v >= 100) {
		u32 r = (u32)(v % 100);

		v /= 100;
		end -= 2;
		end[0] = jw_pairs[2 * r];
		end[1] = jw_pairs[2 * r + 1];
	}
	if (v < 10) {
		*--end = (char)('0' + v);
	} else {
		end -= 2;
		end[0] = jw_pairs[2 * v];
		end[1] = jw_pairs[2 * v + 1];
	}
	return end;
}

#define JW_NUM_MAX 24		/* a sign, 20 digits, and a separator */

void jw_u64(struct jw *w, const char *key, u64 v)
{
	char tmp[JW_NUM_MAX], *end = tmp + sizeof(tmp);

	jw_raw(w, key, jw_digits(v, end), end);
}

void jw_s64(struct jw *w, const char *key, s64 v)
{
	char tmp[JW_NUM_MAX], *end = tmp + sizeof(tmp);
	char *p = jw_digits(v < 0 ? 0 - (u64)v : (u64)v, end);

	if (v < 0)
		*--p = '-';
	jw_raw(w, key, p, end);
}

/* Each number with its separator (',' or the closing ']') in one copy. */
void jw_stats(struct jw *w, const char *key, const struct stats *st, u32 which)
{
	const struct {
		u32 bit;
		const char *name;
		u64 value;
	} member[] = {
		{ JW_STATS_N, "n", st->n },
		{ JW_STATS_MIN, "min", st->min },
		{ JW_STATS_P10, "p10", st->p10 },
		{ JW_STATS_MEDIAN, "median", st->median },
		{ JW_STATS_P90, "p90", st->p90 },
		{ JW_STATS_MAX, "max", st->max },
	};
	size_t i;

	jw_key_obj(w, key);
	for (i = 0; i < sizeof(member) / sizeof(member[0]); i++)
		if (which & member[i].bit)
			jw_u64(w, member[i].name, member[i].value);
	jw_obj_end(w);
}

void jw_u64s(struct jw *w, const char *key, const u64 *v, size_t n)
{
	char tmp[JW_NUM_MAX], *end = tmp + sizeof(tmp), *p;
	size_t i;

	jw_member(w, key);
	jw_putc(w, '[');
	if (!n)
		jw_putc(w, ']');
	for (i = 0; i < n; i++) {
		end[-1] = i + 1 < n ? ',' : ']';
		p = jw_digits(v[i], end - 1);
		jw_append(w, p, (size_t)(end - p));
	}
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	if (v)
		jw_raw(w, key, JW_LIT("true"));
	else
		jw_raw(w, key, JW_LIT("false"));
}

void jw_null(struct jw *w, const char *key)
{
	jw_raw(w, key, JW_LIT("null"));
}

void jw_hex(struct jw *w, const char *key, u64 v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[24], *p = tmp + sizeof(tmp);

	*--p = '"';
	do {
		*--p = hex[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	jw_raw(w, key, p, tmp + sizeof(tmp));
}

/* Digits by hand, as jw_u64: fmt_decimal's printf costs hundreds of
 * instructions a number (and one costs a microsecond or so under a
 * software hypervisor).  Rounded half up like fmt_decimal, which takes
 * the cases where r * 10 could wrap. */
void jw_dec(struct jw *w, const char *key, u64 num, u64 den, unsigned places)
{
	char tmp[48], *p = tmp + sizeof(tmp);
	u64 ip, r, frac = 0, scale = 1;
	unsigned i;
	int n;

	if (!den || places > 18 || den > ~0ull / 10) {
		n = fmt_decimal(tmp, sizeof(tmp), num, den, places);
		if (n < 0)
			n = 0;
		if ((size_t)n >= sizeof(tmp))
			n = sizeof(tmp) - 1;
		jw_raw(w, key, tmp, tmp + n);
		return;
	}
	ip = num / den;
	r = num % den;
	for (i = 0; i < places; i++) {
		r *= 10;
		frac = frac * 10 + r / den;
		r %= den;
		scale *= 10;
	}
	if (r >= den - r && ++frac == scale) {
		frac = 0;
		ip++;
	}
	for (i = 0; i < places; i++) {
		*--p = (char)('0' + frac % 10);
		frac /= 10;
	}
	if (places)
		*--p = '.';
	do {
		*--p = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	jw_raw(w, key, p, tmp + sizeof(tmp));
}

const char *jw_finish(struct jw *w)
{
	if (w->depth || !w->cap)
		w->overflow = true;
	if (w->cap)
		w->buf[w->len] = '\0';
	return w->overflow ? NULL : w->buf;
}
