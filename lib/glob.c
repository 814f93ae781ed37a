/*
 * lib/glob.c - shell-style glob matching of case names (see glob.h).
 */
#include "lib/glob.h"

/* Match one [...] class at *pp against c; advances *pp past it. */
static bool class_match(const char **pp, char c, bool *matched)
{
	const char *p = *pp + 1;
	bool negate = false, hit = false;

	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	for (bool first = true; *p && (first || *p != ']'); first = false) {
		char lo = *p, hi = *p;

		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			p += 3;
		} else {
			p++;
		}
		if ((u8)c >= (u8)lo && (u8)c <= (u8)hi)
			hit = true;
	}
	if (*p != ']')
		return false;		/* unterminated: not a class */
	*pp = p + 1;
	*matched = hit != negate;
	return true;
}

/* Does pattern element *pp match c?  Advances *pp past the element. */
static bool elem_match(const char **pp, char c)
{
	bool matched;

	if (**pp == '[' && class_match(pp, c, &matched))
		return matched;
	if (**pp == '?') {
		(*pp)++;
		return true;
	}
	return *(*pp)++ == c;
}

bool glob_match(const char *pattern, const char *s)
{
	const char *p = pattern, *star_p = NULL, *star_s = NULL;

	while (*s) {
		const char *next = p;

		if (*p == '*') {
			star_p = ++p;	/* remember where to resume */
			star_s = s;
			continue;
		}
		if (*p && elem_match(&next, *s)) {
			p = next;
			s++;
			continue;
		}
		if (!star_p)
			return false;
		p = star_p;		/* let the last '*' absorb one more char */
		s = ++star_s;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}
