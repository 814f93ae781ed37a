/*
 * lib/json.h - compact JSON object writer into a caller-supplied
 * buffer: no allocation, no floating point.  Output has no whitespace,
 * e.g. {"a":1,"b":{"c":"x"}}, and is pure ASCII: '"', '\\', control
 * characters and bytes >= 0x80 in keys and strings are written as
 * \" \\ or \u00XX.
 *
 * Errors are sticky: running out of space (or unbalanced nesting, or
 * nesting deeper than JW_MAX_DEPTH) sets overflow and jw_finish() then
 * returns NULL.
 */
#ifndef LIB_JSON_H
#define LIB_JSON_H

#include "lib/stats.h"
#include "lib/types.h"

#define JW_MAX_DEPTH 7		/* open objects; need_comma[0] is top level */

struct jw {
	char *buf;
	size_t cap;
	size_t len;
	u32 depth;		/* number of open objects */
	bool need_comma[8];	/* per depth: an element was already written */
	bool overflow;
};

void jw_init(struct jw *w, char *buf, size_t cap);	/* writes nothing yet */
/* jw_init, the top-level '{' and "type":type: how every record starts. */
void jw_record(struct jw *w, char *buf, size_t cap, const char *type);
void jw_obj_begin(struct jw *w);	/* top-level '{'; nested: jw_key_obj */
void jw_obj_end(struct jw *w);				/* '}' */
void jw_key_obj(struct jw *w, const char *key);	/* "key":{ */
void jw_str(struct jw *w, const char *key, const char *val); /* NULL -> null */
void jw_u64(struct jw *w, const char *key, u64 v);
void jw_s64(struct jw *w, const char *key, s64 v);
/* "key":[v0,v1,...]: n unsigned integers (an empty array when n is 0). */
void jw_u64s(struct jw *w, const char *key, const u64 *v, size_t n);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
void jw_hex(struct jw *w, const char *key, u64 v);	/* "0x1f0" */
/* Number num/den with `places` decimals, rounded half up; den 0 -> null. */
void jw_dec(struct jw *w, const char *key, u64 num, u64 den, unsigned places);
/* The order statistics of a struct stats that jw_stats writes, a bit each:
 * written in this order whatever the order of the bits. */
enum {
	JW_STATS_N = 1u << 0,
	JW_STATS_MIN = 1u << 1,
	JW_STATS_P10 = 1u << 2,
	JW_STATS_MEDIAN = 1u << 3,
	JW_STATS_P90 = 1u << 4,
	JW_STATS_MAX = 1u << 5,
};
/* "key":{"n":..,"min":..,"p10":..,"median":..,"p90":..,"max":..}: the
 * members `which` names, the one form of a stats block the host reads. */
void jw_stats(struct jw *w, const char *key, const struct stats *st, u32 which);
/* NUL-terminate; returns buf, or NULL after overflow or unbalanced nesting. */
const char *jw_finish(struct jw *w);

#endif
