// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The perf report / perf top part of CACHEPIN_TEXT_HOTLIST (the rows of
 * which textin-hot.c reads):
 *
 *   - `perf report --stdio` rows "PCT% [PCT%] [SAMPLES] [COMM] [DSO] [k] SYM":
 *     with two percentage columns (Children, Self) the second one counts.
 *     Call-graph lines are skipped, rows with a zero weight are dropped,
 *     "[k] 0x..." unresolved symbols become address-only frames.  The
 *     "# Overhead ... Shared Object ... Symbol" header tells whether a dso
 *     column exists; without a header the token before the tag is the dso.
 *   - `perf top --stdio` screens: colour escapes are removed and a screen
 *     clear (ESC[H or ESC[2J) drops the rows seen so far, so only the last
 *     screen counts.
 */
#include "textin-int.h"

/* ---- rows ---- */

static bool is_level_tag(const struct scan_field *f)
{
	return f->e - f->p == 3 && f->p[0] == '[' && f->p[2] == ']' && strchr("k.guH", f->p[1]);
}

/*
 * The percentage and count columns after the first percentage, from Q:
 * returns where the columns after them start (NULL: nothing follows).
 */
static const char *report_counts(const char *q, const char *e, struct pframe *f)
{
	struct scan_field c, next;
	const char *q2, *q3;
	int npct = 1;
	uint64_t v;

	for (;;) {
		q2 = q;
		if (!scan_field(&q2, e, &c))
			return NULL;
		if (npct < 2 && cachepin_text_parse_pct(c.p, c.e, &v)) {
			f->period = v;	/* Self of "Children Self" */
			npct++;
		} else if (scan_u64(c.p, c.e, &v)) {
			/* a count column, unless it is the last field */
			q3 = q2;
			if (!scan_field(&q3, e, &next))
				return q;
		} else {
			return q;
		}
		q = q2;
	}
}

/* The level tag ("[k]", "[.]" ...) after Q into *TAG, the field before it into *LAST. */
static bool report_tag(const char *q, const char *e, struct scan_field *tag,
		       struct scan_field *last)
{
	last->p = last->e = NULL;
	while (scan_field(&q, e, tag)) {
		if (is_level_tag(tag))
			return true;
		*last = *tag;
	}
	return false;
}

/* What follows the tag, [p, e): the symbol, and the dso if it comes last. */
static int report_symbol(const char *p, const char *e, const struct report_cols *cols,
			 const struct scan_field *last, struct pframe *f)
{
	uint64_t v;

	if (cols->seen && cols->dso && cols->dso_after_sym) {
		const char *ls = scan_field_back(p, e);

		if (ls > p) {
			cachepin_text_frame_dso(f, ls, e);
			e = scan_rtrim(p, ls);
		}
	} else if (last->p && (!cols->seen || cols->dso)) {
		cachepin_text_frame_dso(f, last->p, last->e);
	}
	if (p >= e)
		return ROW_BAD;
	if (scan_hex0x(p, e, &v)) {
		f->ip = v;
		f->flags |= CACHEPIN_FRAME_HAS_IP;
		return ROW_OK;
	}
	cachepin_text_frame_sym(f, p, e, false);
	return ROW_OK;
}

int cachepin_text_report_row(const char *q, const char *e, uint64_t pct,
			     const struct report_cols *cols, struct pframe *f)
{
	struct scan_field tag, last;
	const char *name;

	/* percentages, then sample/period counts */
	f->period = pct;
	q = report_counts(q, e, f);
	if (!q)
		return ROW_BAD;
	name = scan_skip_ws(q, e);
	if (!report_tag(q, e, &tag, &last))	/* "PCT% NAME" */
		return cachepin_text_hot_name(name, e, f) ? ROW_OK : ROW_BAD;
	if (tag.p[1] == 'k' || tag.p[1] == 'g')
		f->flags |= CACHEPIN_FRAME_KERNEL;
	return report_symbol(scan_skip_ws(tag.e, e), e, cols, &last, f);
}

/* ---- the lines around the rows ---- */

/* perf's own lines in report/top output that carry no rows. */
bool cachepin_text_report_chatter(const char *p, const char *e)
{
	const char *q;

	if (scan_starts(p, e, "Warning:") || scan_starts(p, e, "PerfTop:") ||
	    scan_starts(p, e, "Mapped keys:") || scan_starts(p, e, "Enter selection"))
		return true;
	for (q = p; q < e && *q == '-'; q++)
		;
	return q == e && e - p >= 3;
}

bool cachepin_text_report_graph(const char *p, const char *e)
{
	p = scan_skip_ws(p, e);
	return p < e && (*p == '|' || *p == '-');
}

/* "# Samples: N  of event 'EVENT'" and the "# Overhead ... Symbol" column header. */
static void report_header(struct textin *t, const char *p, const char *e)
{
	const char *s, *ev, *ee, *sym, *dso;
	size_t n = (size_t)(e - p);

	s = memmem(p, n, "of event '", 10);
	if (s) {
		ev = s + 10;
		ee = memchr(ev, '\'', (size_t)(e - ev));
		if (ee) {
			if (t->cur_event && !scan_eq(ev, ee, t->cur_event)) {
				if (!t->other_event)
					pr_warn("'%s':%lu: more than one event; using '%s' only\n",
						t->path, t->lineno, t->cur_event);
				t->other_event = true;
			} else if (!t->cur_event) {
				cachepin_text_set_event(t, ev, ee);
			}
		}
		return;
	}
	sym = memmem(p, n, "Symbol", 6);
	if (!sym || !(memmem(p, n, "Overhead", 8) || memmem(p, n, "Self", 4)))
		return;
	dso = memmem(p, n, "Shared Object", 13);
	t->cols.seen = true;
	t->cols.dso = dso != NULL;
	t->cols.dso_after_sym = dso && dso > sym;
}

/* "PerfTop: N irqs/sec ... [4000Hz EVENT], ..." */
static void top_header(struct textin *t, const char *p, const char *e)
{
	const char *s = memmem(p, (size_t)(e - p), "Hz ", 3), *ee;

	if (!s || t->cur_event)
		return;
	s += 3;
	ee = memchr(s, ']', (size_t)(e - s));
	if (ee && ee > s)
		cachepin_text_set_event(t, s, ee);
}

bool cachepin_text_report_skip(struct textin *t, const char *p, const char *e)
{
	/*
	 * !p: UBSan's null check lets a null P run on after its report,
	 * and GCC then warns that report_header() gives memmem() a null
	 */
	if (!p || p >= e) {
		t->graph = false;
		t->warning = false;
		return true;
	}
	if (*p == '#') {
		report_header(t, p, e);
		return true;
	}
	if (scan_starts(p, e, "PerfTop:"))
		top_header(t, p, e);
	if (cachepin_text_report_chatter(p, e)) {
		t->warning = scan_starts(p, e, "Warning:");
		return true;
	}
	if (t->warning || t->graph)
		return true;
	if (cachepin_text_report_graph(p, e)) {
		t->graph = true;
		return true;
	}
	return false;
}

/* ---- perf top's screens ---- */

char *cachepin_text_top_unescape(struct textin *t, char *line, char *end)
{
	bool cleared = false;

	if (!memchr(line, 0x1b, (size_t)(end - line)))
		return end;
	end = cachepin_text_strip_escapes(line, end, &cleared);
	if (cleared) {	/* perf top redrew its screen */
		t->npf = 0;
		t->alen = 0;
		t->graph = false;
	}
	return end;
}
