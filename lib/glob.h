/*
 * lib/glob.h - the glob language of the kernel word case=.
 */
#ifndef LIB_GLOB_H
#define LIB_GLOB_H

#include "lib/types.h"

/*
 * Shell-style match of the whole string: '*' any run, '?' any one char,
 * [abc] [a-z] [!a] (also [^a]) classes; an unterminated '[' is literal.
 * Iterative, O(len(pattern) * len(s)) worst case.
 */
bool glob_match(const char *pattern, const char *s);

#endif
