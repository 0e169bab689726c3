// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Names are bytes: a symbol, a path or a library name need not be
 * UTF-8.  What the reports need to write them as text: the length of a
 * UTF-8 sequence, and XML character data (the JSON strings are json.c's).
 */
#include "tool.h"

size_t tool_utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (u[0] < 0x80)
		return 1;
	if (u[0] < 0xc2 || u[0] > 0xf4)
		return 0;	/* a continuation byte, an overlong lead, past U+10FFFF */
	n = u[0] < 0xe0 ? 2 : u[0] < 0xf0 ? 3 : 4;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (u[0] == 0xe0)
		lo = 0xa0;
	else if (u[0] == 0xed)
		hi = 0x9f;
	else if (u[0] == 0xf0)
		lo = 0x90;
	else if (u[0] == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (u[i] < lo || u[i] > hi)
			return 0;
	return n;
}

/*
 * S as XML character data: the five special characters escaped, a byte
 * that is not UTF-8 as the code point of its number (as JSON gets it),
 * and what XML 1.0 cannot hold (control bytes but tab, U+FFFE, U+FFFF)
 * as U+FFFD.
 */
void tool_xml_str(FILE *f, const char *s)
{
	while (*s) {
		const unsigned char *u = (const unsigned char *)s;
		size_t n = tool_utf8_len(s);

		switch (u[0]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (!n)
				fprintf(f, "&#x%x;", u[0]);
			else if ((u[0] < 0x20 && u[0] != '\t') || u[0] == 0x7f ||
				 (n == 3 && u[0] == 0xef && u[1] == 0xbf && u[2] >= 0xbe))
				fputs("&#xfffd;", f);
			else
				fwrite(s, 1, n, f);
		}
		s += n ? n : 1;
	}
}
