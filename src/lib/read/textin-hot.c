// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CACHEPIN_TEXT_HOTLIST reads one row per line: hot lists (here) and the
 * rows of `perf report --stdio` and `perf top --stdio` (textin-report.c).
 *
 *   - hot lists: "NAME", "NAME WEIGHT", "PCT% NAME" or "NAME PCT%", where
 *     NAME is a symbol, optionally qualified by its object as
 *     "NAME@OBJECT" (e.g. "fib_table_lookup@net/ipv4/fib_trie.o",
 *     "nf_ct_get@[nf_conntrack]", "memcpy@vmlinux").  An '@' followed by
 *     '@' or an upper-case letter is a symbol version and stays part of
 *     the name (memcpy@@GLIBC_2.14).  NAME may hold spaces only inside
 *     (), <> or [] (C++ signatures); a NAME of "0xHEX" is an address.
 *     WEIGHT is a decimal integer, 1 if absent.  '#' starts a comment.
 *   Percentages become parts per million: 12.34% is a period of 123400.
 *   Rows are delivered after the whole input is read, one sample each.
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

/* "NAME [WEIGHT|PCT%]" */
static int hot_row(const char *p, const char *e, struct pframe *f)
{
	const char *ls = scan_field_back(p, e);
	uint64_t v;

	f->period = 1;
	if (ls > p) {
		if (scan_u64(ls, e, &v)) {
			f->period = v;
			e = scan_rtrim(p, ls);
		} else if (cachepin_text_parse_pct(ls, e, &v)) {
			f->period = v;
			e = scan_rtrim(p, ls);
		}
	}
	return cachepin_text_hot_name(p, e, f) ? ROW_OK : ROW_BAD;
}

/*
 * A perf report/top row or a hot-list line into f (f->period is the
 * weight).  ROW_NONE: not a row (graph line etc.), ROW_BAD: unparsable.
 */
int cachepin_text_row(const char *p, const char *e, const struct report_cols *cols,
		      struct pframe *f)
{
	struct scan_field first;
	const char *q;
	uint64_t pct;

	memset(f, 0, sizeof(*f));
	p = scan_skip_ws(p, e);
	e = scan_rtrim(p, e);
	if (p >= e)
		return ROW_NONE;
	q = p;
	if (!scan_field(&q, e, &first) || !cachepin_text_parse_pct(first.p, first.e, &pct))
		return hot_row(p, e, f);
	return cachepin_text_report_row(q, e, pct, cols, f);
}

enum line_class cachepin_text_hot_probe(const char *p, const char *e)
{
	struct report_cols cols = { 0 };
	struct scan_field first;
	struct pframe f;
	const char *q = p;
	uint64_t pct;

	switch (cachepin_text_row(p, e, &cols, &f)) {
	case ROW_OK:
		return scan_field(&q, e, &first) && cachepin_text_parse_pct(first.p, first.e, &pct) ?
		       LC_REPORT : LC_HOT;
	case ROW_NONE:
		return LC_SKIP;
	default:
		return cachepin_text_report_graph(p, e) ? LC_SKIP : LC_BAD;
	}
}

int cachepin_text_hot_line(struct textin *t, char *line, size_t len)
{
	const char *e = scan_rtrim(line, cachepin_text_top_unescape(t, line, line + len));
	const char *p = scan_skip_ws(line, e);
	struct pframe f;

	if (cachepin_text_report_skip(t, p, e))
		return 0;
	switch (cachepin_text_row(p, e, &t->cols, &f)) {
	case ROW_NONE:
		return 0;
	case ROW_BAD:
		if (cachepin_text_has_ctl(p, e))
			return cachepin_text_error(t, "binary data in a hot list");
		return cachepin_text_error(t, "expected 'NAME [WEIGHT]', 'PCT% NAME' or a perf report row");
	}
	if (!f.period || t->other_event)
		return 0;
	return cachepin_text_add(t, &f);
}
