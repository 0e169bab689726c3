// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fields the text grammars share: a percentage, a function name
 * with its object (hot lists and perf report/top rows), control bytes,
 * and the terminal escapes of perf top's screens.
 */
#include "textin-int.h"

/* "12.34%" -> 123400 (parts per million); rounds beyond four decimals. */
bool cachepin_text_parse_pct(const char *p, const char *e, uint64_t *ppm)
{
	uint64_t ip = 0, frac = 0;
	int nfrac = 0, round = 0;

	if (e - p < 2 || e[-1] != '%')
		return false;
	e--;
	if (!scan_is_digit(*p))
		return false;
	for (; p < e && scan_is_digit(*p); p++) {
		if (ip > 100000000)
			return false;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (p < e && *p == '.') {
		p++;
		if (p >= e)
			return false;
		for (; p < e && scan_is_digit(*p); p++) {
			if (nfrac < 4) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				nfrac++;
			} else if (nfrac == 4) {
				round = *p >= '5';
				nfrac++;
			}
		}
	}
	if (p != e)
		return false;
	for (; nfrac < 4; nfrac++)
		frac *= 10;
	*ppm = ip * 10000 + frac + (uint64_t)round;
	return true;
}

/* Whitespace only inside (), <> and []. */
static bool hot_name_ok(const char *p, const char *e)
{
	int depth = 0;
	bool digits = true;
	const char *q;

	if (p >= e)
		return false;
	for (q = p; q < e; q++) {
		unsigned char c = (unsigned char)*q;

		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == '(' || c == '<' || c == '[')
			depth++;
		else if ((c == ')' || c == '>' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0)
			return false;
		if (!scan_is_digit((char)c) && c != '.')
			digits = false;
	}
	return !digits;
}

/* NAME[@OBJECT] into f; false if NAME is no symbol name. */
bool cachepin_text_hot_name(const char *p, const char *e, struct pframe *f)
{
	const char *at = memchr(p, '@', (size_t)(e - p));
	uint64_t ip;

	if (!hot_name_ok(p, e))
		return false;
	if (at && at > p && at + 1 < e && at[1] != '@' && !(at[1] >= 'A' && at[1] <= 'Z')) {
		cachepin_text_frame_dso(f, at + 1, e);
		e = at;
	}
	if (scan_hex0x(p, e, &ip)) {
		f->ip = ip;
		f->flags |= CACHEPIN_FRAME_HAS_IP;
		return true;
	}
	cachepin_text_frame_sym(f, p, e, false);
	return f->flags & CACHEPIN_FRAME_HAS_SYM;
}

/* Control characters other than tab, CR and ESC (perf top's colours). */
bool cachepin_text_has_ctl(const char *p, const char *e)
{
	for (; p < e; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t' && *p != '\r' && *p != 0x1b) ||
		    *p == 0x7f)
			return true;
	return false;
}

/* Terminal escapes removed in place: the new end; *CLEARED if one cleared the screen. */
char *cachepin_text_strip_escapes(char *p, char *e, bool *cleared)
{
	char *w = p, *r = p;

	*cleared = false;
	while (r < e) {
		if (*r != 0x1b) {
			*w++ = *r++;
			continue;
		}
		r++;
		if (r < e && *r == '[') {
			char *s = ++r;

			while (r < e && ((*r >= '0' && *r <= '9') || *r == ';' || *r == '?'))
				r++;
			if (r < e) {
				if ((*r == 'H' && r == s) || (*r == 'J' && r - s == 1 && *s == '2'))
					*cleared = true;
				r++;
			}
		} else if (r < e) {
			r++;
		}
	}
	return w;
}
