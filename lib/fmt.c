/*
 * lib/fmt.c - printf core for the freestanding kernel: parses a format
 * string, pulls arguments from a va_list and emits characters through a
 * callback.  Integer-only; no floating point, no allocation.
 */
#include "lib/fmt.h"

#define FMT_LEFT  (1u << 0)	/* '-' */
#define FMT_ZERO  (1u << 1)	/* '0' */
#define FMT_PLUS  (1u << 2)	/* '+' */
#define FMT_SPACE (1u << 3)	/* ' ' */
#define FMT_ALT   (1u << 4)	/* '#' */

enum fmt_len { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_J, LEN_T };

struct fmt_spec {
	u32 flags;
	int width;		/* 0 when absent */
	int prec;		/* -1 when absent */
	enum fmt_len len;
	char conv;
};

struct fmt_out {
	fmt_put_fn put;
	void *arg;
	int count;
};

/* An integer conversion, ready to print. */
struct fmt_num {
	u64 mag;		/* magnitude */
	bool neg;
	bool is_signed;		/* '+' and ' ' flags apply */
	unsigned base;
	bool upper;
	bool pointer;		/* %p: "0x" prefix whenever mag != 0 */
};

static void fmt_putc(struct fmt_out *o, char c)
{
	o->put(c, o->arg);
	o->count++;
}

static void fmt_repeat(struct fmt_out *o, char c, int n)
{
	while (n-- > 0)
		fmt_putc(o, c);
}

static bool fmt_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Widths and precisions saturate at this (no int overflow anywhere). */
#define FMT_FIELD_MAX 100000000

static int fmt_clamp(int v)
{
	if (v > FMT_FIELD_MAX)
		return FMT_FIELD_MAX;
	if (v < -FMT_FIELD_MAX)
		return -FMT_FIELD_MAX;
	return v;
}

/* Parse a decimal run; saturates instead of overflowing. */
static int fmt_parse_int(const char **p)
{
	int v = 0;

	while (fmt_is_digit(**p)) {
		if (v < FMT_FIELD_MAX)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return fmt_clamp(v);
}

static u32 fmt_parse_flags(const char **p)
{
	u32 flags = 0;

	for (;; (*p)++) {
		switch (**p) {
		case '-': flags |= FMT_LEFT; break;
		case '0': flags |= FMT_ZERO; break;
		case '+': flags |= FMT_PLUS; break;
		case ' ': flags |= FMT_SPACE; break;
		case '#': flags |= FMT_ALT; break;
		default: return flags;
		}
	}
}

static enum fmt_len fmt_parse_len(const char **p)
{
	const char *s = *p;
	enum fmt_len len = LEN_NONE;

	switch (*s) {
	case 'h':
		len = s[1] == 'h' ? LEN_HH : LEN_H;
		break;
	case 'l':
		len = s[1] == 'l' ? LEN_LL : LEN_L;
		break;
	case 'z': len = LEN_Z; break;
	case 'j': len = LEN_J; break;
	case 't': len = LEN_T; break;
	default: return LEN_NONE;
	}
	*p += (len == LEN_HH || len == LEN_LL) ? 2 : 1;
	return len;
}

/* Parse everything after '%' up to and including the conversion char. */
static void fmt_parse_spec(const char **p, struct fmt_spec *sp, va_list *ap)
{
	sp->flags = fmt_parse_flags(p);
	sp->width = 0;
	if (**p == '*') {
		(*p)++;
		sp->width = fmt_clamp(va_arg(*ap, int));
		if (sp->width < 0) {
			sp->flags |= FMT_LEFT;
			sp->width = -sp->width;
		}
	} else {
		sp->width = fmt_parse_int(p);
	}
	sp->prec = -1;
	if (**p == '.') {
		(*p)++;
		if (**p == '*') {
			(*p)++;
			sp->prec = fmt_clamp(va_arg(*ap, int));
			if (sp->prec < 0)
				sp->prec = -1;
		} else {
			sp->prec = fmt_parse_int(p);
		}
	}
	sp->len = fmt_parse_len(p);
	sp->conv = **p;
	if (**p)
		(*p)++;
}

static s64 fmt_arg_signed(enum fmt_len len, va_list *ap)
{
	switch (len) {
	case LEN_HH: return (signed char)va_arg(*ap, int);
	case LEN_H: return (short)va_arg(*ap, int);
	case LEN_L: return va_arg(*ap, long);
	case LEN_LL: return va_arg(*ap, long long);
	case LEN_Z: return va_arg(*ap, long);		/* ssize_t */
	case LEN_J: return va_arg(*ap, intmax_t);
	case LEN_T: return va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, int);
	}
}

static u64 fmt_arg_unsigned(enum fmt_len len, va_list *ap)
{
	switch (len) {
	case LEN_HH: return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H: return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L: return va_arg(*ap, unsigned long);
	case LEN_LL: return va_arg(*ap, unsigned long long);
	case LEN_Z: return va_arg(*ap, size_t);
	case LEN_J: return va_arg(*ap, uintmax_t);
	case LEN_T: return (u64)va_arg(*ap, ptrdiff_t);
	default: return va_arg(*ap, unsigned int);
	}
}

/* Digits of v in reverse order; returns how many (0 for v == 0). */
static int fmt_digits(char *out, u64 v, unsigned base, bool upper)
{
	const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	while (v) {
		out[n++] = set[v % base];
		v /= base;
	}
	return n;
}

static char fmt_sign_char(const struct fmt_spec *sp, const struct fmt_num *num)
{
	if (num->neg)
		return '-';
	if (!num->is_signed)
		return 0;
	if (sp->flags & FMT_PLUS)
		return '+';
	if (sp->flags & FMT_SPACE)
		return ' ';
	return 0;
}

static void fmt_emit_num(struct fmt_out *o, const struct fmt_spec *sp,
			 const struct fmt_num *num)
{
	char digits[24];
	int nd = fmt_digits(digits, num->mag, num->base, num->upper);
	int prec = sp->prec < 0 ? 1 : sp->prec;
	int zeros = prec > nd ? prec - nd : 0;
	char sign = fmt_sign_char(sp, num);
	const char *prefix = "";
	int total, plen;

	if (num->base == 8 && (sp->flags & FMT_ALT) && zeros == 0)
		zeros = 1;	/* '#' forces a leading 0 (nd > 0 means none yet) */
	if (num->base == 16 && num->mag &&
	    ((sp->flags & FMT_ALT) || num->pointer))
		prefix = num->upper ? "0X" : "0x";
	plen = (sign ? 1 : 0) + (prefix[0] ? 2 : 0);
	total = plen + zeros + nd;
	if ((sp->flags & (FMT_ZERO | FMT_LEFT)) == FMT_ZERO && sp->prec < 0 &&
	    sp->width > total) {
		zeros += sp->width - total;
		total = sp->width;
	}
	if (!(sp->flags & FMT_LEFT))
		fmt_repeat(o, ' ', sp->width - total);
	if (sign)
		fmt_putc(o, sign);
	while (*prefix)
		fmt_putc(o, *prefix++);
	fmt_repeat(o, '0', zeros);
	while (nd > 0)
		fmt_putc(o, digits[--nd]);
	if (sp->flags & FMT_LEFT)
		fmt_repeat(o, ' ', sp->width - total);
}

/* Emit n bytes of s, padded with spaces to the field width. */
static void fmt_emit_str(struct fmt_out *o, const struct fmt_spec *sp,
			 const char *s, int n)
{
	if (!(sp->flags & FMT_LEFT))
		fmt_repeat(o, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		fmt_putc(o, s[i]);
	if (sp->flags & FMT_LEFT)
		fmt_repeat(o, ' ', sp->width - n);
}

static void fmt_conv_s(struct fmt_out *o, const struct fmt_spec *sp,
		       const char *s)
{
	int n = 0;

	if (!s) {
		/* glibc prints nothing when the precision cannot fit "(null)" */
		s = "(null)";
		if (sp->prec >= 0 && sp->prec < 6)
			s = "";
	}
	while ((sp->prec < 0 || n < sp->prec) && s[n])
		n++;
	fmt_emit_str(o, sp, s, n);
}

static void fmt_conv_p(struct fmt_out *o, const struct fmt_spec *sp,
		       const void *p)
{
	struct fmt_num num = {
		.mag = (u64)(uintptr_t)p, .is_signed = true,
		.base = 16, .pointer = true,
	};

	if (!p)
		fmt_emit_str(o, sp, "(nil)", 5);
	else
		fmt_emit_num(o, sp, &num);
}

static bool fmt_int_conv(struct fmt_spec *sp, va_list *ap, struct fmt_num *num)
{
	s64 v;

	*num = (struct fmt_num){ .base = 10 };
	switch (sp->conv) {
	case 'd':
	case 'i':
		v = fmt_arg_signed(sp->len, ap);
		num->is_signed = true;
		num->neg = v < 0;
		num->mag = v < 0 ? 0 - (u64)v : (u64)v;
		return true;
	case 'u': num->base = 10; break;
	case 'o': num->base = 8; break;
	case 'x': num->base = 16; break;
	case 'X': num->base = 16; num->upper = true; break;
	default: return false;
	}
	num->mag = fmt_arg_unsigned(sp->len, ap);
	return true;
}

static void fmt_conv(struct fmt_out *o, struct fmt_spec *sp, va_list *ap)
{
	struct fmt_num num;
	char c;

	if (fmt_int_conv(sp, ap, &num)) {
		fmt_emit_num(o, sp, &num);
		return;
	}
	switch (sp->conv) {
	case 'c':
		c = (char)(unsigned char)va_arg(*ap, int);
		fmt_emit_str(o, sp, &c, 1);
		break;
	case 's':
		fmt_conv_s(o, sp, va_arg(*ap, const char *));
		break;
	case 'p':
		fmt_conv_p(o, sp, va_arg(*ap, const void *));
		break;
	case '%':
		fmt_putc(o, '%');
		break;
	case '\0':
		fmt_putc(o, '%');	/* lone '%' at the end */
		break;
	default:
		fmt_putc(o, '%');
		fmt_putc(o, sp->conv);
		break;
	}
}

int fmt_format(fmt_put_fn put, void *arg, const char *fmt, va_list ap)
{
	struct fmt_out o = { .put = put, .arg = arg, .count = 0 };
	struct fmt_spec sp;
	va_list aq;

	va_copy(aq, ap);
	while (*fmt) {
		if (*fmt != '%') {
			fmt_putc(&o, *fmt++);
			continue;
		}
		fmt++;
		fmt_parse_spec(&fmt, &sp, &aq);
		fmt_conv(&o, &sp, &aq);
	}
	va_end(aq);
	return o.count;
}

struct fmt_buf {
	char *buf;
	size_t size;
	size_t len;
};

static void fmt_buf_put(char c, void *arg)
{
	struct fmt_buf *b = arg;

	if (b->len + 1 < b->size)
		b->buf[b->len] = c;
	b->len++;
}

int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct fmt_buf b = { .buf = buf, .size = size, .len = 0 };
	int n = fmt_format(fmt_buf_put, &b, fmt, ap);

	if (size)
		buf[b.len < size ? b.len : size - 1] = '\0';
	return n;
}

int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = fmt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Next decimal digit of r/den (r < den); leaves the new remainder in *r. */
static char fmt_next_digit(u64 *r, u64 den)
{
	unsigned __int128 x = (unsigned __int128)*r * 10;
	char d = '0';

	while (x >= den) {	/* at most 9 rounds: no 128-bit division */
		x -= den;
		d++;
	}
	*r = (u64)x;
	return d;
}

/* Add one unit in the last place; returns the carry out of frac. */
static bool fmt_round_up(char *frac, unsigned places)
{
	while (places--) {
		if (frac[places] != '9') {
			frac[places]++;
			return false;
		}
		frac[places] = '0';
	}
	return true;
}

/*
 * Long division digit by digit, so that no 128-bit division (a libgcc
 * call that uses SSE and the red zone) is ever needed.
 */
int fmt_decimal(char *buf, size_t size, u64 num, u64 den, unsigned places)
{
	char frac[20];
	u64 ip, r;

	if (!den)
		return fmt_snprintf(buf, size, "null");
	if (places > 19)
		places = 19;
	ip = num / den;
	r = num % den;
	for (unsigned i = 0; i < places; i++)
		frac[i] = fmt_next_digit(&r, den);
	frac[places] = '\0';
	/* remainder >= den/2 rounds up; ip + 1 cannot wrap as den >= 2 here */
	if (r >= den - r && fmt_round_up(frac, places))
		ip++;
	if (!places)
		return fmt_snprintf(buf, size, "%llu", (unsigned long long)ip);
	return fmt_snprintf(buf, size, "%llu.%s", (unsigned long long)ip, frac);
}
