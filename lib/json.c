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

static void jw_putc(struct jw *w, char c)
{
	if (w->overflow)
		return;
	if (w->len + 1 >= w->cap) {
		w->overflow = true;
		return;
	}
	w->buf[w->len++] = c;
}

/* n bytes with one capacity check: under a software hypervisor every
 * guest instruction costs about a microsecond, and a line is ~500 bytes. */
static void jw_append(struct jw *w, const char *s, size_t n)
{
	char *p;

	if (w->overflow)
		return;
	if (w->len + n >= w->cap) {
		w->overflow = true;
		return;
	}
	p = w->buf + w->len;
	w->len += n;
	while (n--)
		*p++ = *s++;
}

static void jw_puts(struct jw *w, const char *s)
{
	const char *e = s;

	while (*e)
		e++;
	jw_append(w, s, (size_t)(e - s));
}

static bool jw_plain(u8 c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static void jw_quoted(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run;

	jw_putc(w, '"');
	for (;;) {
		for (run = s; jw_plain((u8)*s); s++)
			;
		jw_append(w, run, (size_t)(s - run));
		if (!*s)
			break;
		if (*s == '"' || *s == '\\') {
			jw_putc(w, '\\');
			jw_putc(w, *s);
		} else {
			jw_puts(w, "\\u00");
			jw_putc(w, hex[(u8)*s >> 4]);
			jw_putc(w, hex[(u8)*s & 15]);
		}
		s++;
	}
	jw_putc(w, '"');
}

/* Comma if needed, then "key": when inside an object. */
static void jw_member(struct jw *w, const char *key)
{
	if (w->need_comma[w->depth])
		jw_putc(w, ',');
	w->need_comma[w->depth] = true;
	if (w->depth) {
		jw_quoted(w, key ? key : "");
		jw_putc(w, ':');
	}
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

/* A member whose value is already formatted text. */
static void jw_raw(struct jw *w, const char *key, const char *text)
{
	jw_member(w, key);
	jw_puts(w, text);
}

void jw_str(struct jw *w, const char *key, const char *val)
{
	jw_member(w, key);
	if (val)
		jw_quoted(w, val);
	else
		jw_puts(w, "null");
}

/* Decimal digits of v, right to left: no printf machinery, which costs
 * hundreds of instructions per number. */
static const char *jw_digits(u64 v, char *end)
{
	*--end = 0;
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void jw_u64(struct jw *w, const char *key, u64 v)
{
	char tmp[24];

	jw_raw(w, key, jw_digits(v, tmp + sizeof(tmp)));
}

void jw_s64(struct jw *w, const char *key, s64 v)
{
	char tmp[24];
	char *p = (char *)jw_digits(v < 0 ? 0 - (u64)v : (u64)v, tmp + sizeof(tmp));

	if (v < 0)
		*--p = '-';
	jw_raw(w, key, p);
}

void jw_u64s(struct jw *w, const char *key, const u64 *v, size_t n)
{
	char tmp[24];
	size_t i;

	jw_member(w, key);
	jw_putc(w, '[');
	for (i = 0; i < n; i++) {
		if (i)
			jw_putc(w, ',');
		jw_puts(w, jw_digits(v[i], tmp + sizeof(tmp)));
	}
	jw_putc(w, ']');
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_raw(w, key, v ? "true" : "false");
}

void jw_null(struct jw *w, const char *key)
{
	jw_raw(w, key, "null");
}

void jw_hex(struct jw *w, const char *key, u64 v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[24], *p = tmp + sizeof(tmp);

	*--p = 0;
	*--p = '"';
	do {
		*--p = hex[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	jw_raw(w, key, p);
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

	if (!den || places > 18 || den > ~0ull / 10) {
		fmt_decimal(tmp, sizeof(tmp), num, den, places);
		jw_raw(w, key, tmp);
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
	*--p = 0;
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
	jw_raw(w, key, p);
}

const char *jw_finish(struct jw *w)
{
	if (w->depth || !w->cap)
		w->overflow = true;
	if (w->cap)
		w->buf[w->len] = '\0';
	return w->overflow ? NULL : w->buf;
}
