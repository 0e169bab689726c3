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
