/*
 * lib/string.c - string and memory helpers (no libc).
 *
 * Simple loops.  Memory is set and copied eight bytes a step: under a
 * software hypervisor every guest instruction costs about a microsecond,
 * and the bench framework clears a result per case and the pio suite a
 * few KiB of buffer per data check.  The libc-named functions are built
 * only for the kernel.
 */
#include "lib/string.h"

/*
 * Stop gcc from recognising the loops below as memset/memcpy idioms and
 * compiling them into calls to the very functions being defined (clang
 * already refuses to do that inside functions with these names).
 */
#if defined(__clang__)
#define STRING_NO_IDIOM
#else
#define STRING_NO_IDIOM __attribute__((optimize("no-tree-loop-distribute-patterns")))
#endif

size_t kstrlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int kstrcmp(const char *a, const char *b)
{
	const u8 *x = (const u8 *)a, *y = (const u8 *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return (int)*x - (int)*y;
}

int kstrncmp(const char *a, const char *b, size_t n)
{
	const u8 *x = (const u8 *)a, *y = (const u8 *)b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return (int)*x - (int)*y;
		if (!*x)
			break;
	}
	return 0;
}

/* A word at any address (x86 loads and stores unaligned words). */
typedef u64 __attribute__((may_alias, aligned(1))) string_word;

STRING_NO_IDIOM void *kmemset(void *dst, int c, size_t n)
{
	u8 *d = dst;
	u64 w = (u8)c * 0x0101010101010101ull;

	for (; n >= 8; n -= 8, d += 8)
		*(string_word *)d = w;
	while (n--)
		*d++ = (u8)c;
	return dst;
}

STRING_NO_IDIOM void *kmemcpy(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	for (; n >= 8; n -= 8, d += 8, s += 8)
		*(string_word *)d = *(const string_word *)s;
	while (n--)
		*d++ = *s++;
	return dst;
}

int kmemcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return (int)*x - (int)*y;
	}
	return 0;
}

#ifndef TM_HOST
STRING_NO_IDIOM void *memset(void *dst, int c, size_t n)
{
	return kmemset(dst, c, n);
}

STRING_NO_IDIOM void *memcpy(void *dst, const void *src, size_t n)
{
	return kmemcpy(dst, src, n);
}

STRING_NO_IDIOM void *memmove(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	/* forward, a word a step, is right for d below s: each step loads
	 * before it stores, and stores below what later steps load */
	if (d <= s || d >= s + n)
		return kmemcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	return kmemcmp(a, b, n);
}
#endif
