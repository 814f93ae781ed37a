/*
 * lib/string.h - minimal string and memory helpers for freestanding code.
 *
 * The k* functions are always available.  The kernel build (TM_HOST not
 * defined) additionally gets real memset/memcpy/memmove/memcmp symbols,
 * because gcc may emit calls to them even with -ffreestanding; host tests
 * use the C library's versions instead.
 */
#ifndef LIB_STRING_H
#define LIB_STRING_H

#include "lib/types.h"

size_t kstrlen(const char *s);
int kstrcmp(const char *a, const char *b);
int kstrncmp(const char *a, const char *b, size_t n);
void *kmemset(void *dst, int c, size_t n);
void *kmemcpy(void *dst, const void *src, size_t n);
int kmemcmp(const void *a, const void *b, size_t n);

#ifndef TM_HOST
void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#endif

#endif
