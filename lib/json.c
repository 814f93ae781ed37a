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

static void jw_puts(struct jw *w, const char *s)
{
	while (*s)
		jw_putc(w, *s++);
}

static void jw_quoted(struct jw *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	jw_putc(w, '"');
	for (; *s; s++) {
		u8 c = (u8)*s;

		if (c == '"' || c == '\\') {
			jw_putc(w, '\\');
			jw_putc(w, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			jw_puts(w, "\\u00");
			jw_putc(w, hex[c >> 4]);
			jw_putc(w, hex[c & 15]);
		} else {
			jw_putc(w, (char)c);
		}
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
	char tmp[24];

	fmt_snprintf(tmp, sizeof(tmp), "\"%#llx\"", (unsigned long long)v);
	if (!v)
		fmt_snprintf(tmp, sizeof(tmp), "\"0x0\"");
	jw_raw(w, key, tmp);
}

void jw_dec(struct jw *w, const char *key, u64 num, u64 den, unsigned places)
{
	char tmp[48];

	fmt_decimal(tmp, sizeof(tmp), num, den, places);
	jw_raw(w, key, tmp);
}

const char *jw_finish(struct jw *w)
{
	if (w->depth || !w->cap)
		w->overflow = true;
	if (w->cap)
		w->buf[w->len] = '\0';
	return w->overflow ? NULL : w->buf;
}
