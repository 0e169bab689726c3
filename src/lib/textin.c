// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text profile inputs.
 *
 * CACHEPIN_TEXT_PERF_SCRIPT reads what `perf script` prints:
 *
 *   - sample header lines "COMM PID[/TID] [CPU] SEC.USEC: [PERIOD] EVENT:",
 *     found by anchoring on the time stamp (COMM may hold spaces and its
 *     padding differs with and without callchains; --ns times have nine
 *     digits; a lone number before the time is perf's default TID and is
 *     used for both pid and tid).  Fields perf leaves out (cpu, period,
 *     time, event) are optional; the period defaults to 1.
 *   - frame lines "ADDR SYM+0xOFF (DSO)": the dso is taken from the last,
 *     balanced parentheses, "+0xOFF", SYM and DSO are optional, and a SYM
 *     of "[unknown]" means "no symbol".  Indented frame lines after a
 *     header, or tab-indented ones without a header (-F ip,sym,... -g),
 *     form a callchain that ends at a blank line; a frame on the header
 *     line itself (-G, or a profile without callchains) or a frame line
 *     indented by spaces only (-F ip,sym,symoff,dso without callchains)
 *     is a sample of its own.
 *   - Addresses: perf 6.1 prints user frames of a callchain relative to
 *     their dso (map_ip: ip - map start + pgoff; for a non-PIE x86-64
 *     executable 0x40117e prints as 117e) while the single ip printed
 *     without a callchain is the absolute runtime address.  Kernel frames
 *     and frames without a map ("[unknown]") are absolute in both.  So
 *     CACHEPIN_FRAME_DSO_REL is set on callchain frames that name a user
 *     dso, and on nothing else.
 *
 * CACHEPIN_TEXT_HOTLIST reads, one row per line:
 *
 *   - hot lists: "NAME", "NAME WEIGHT", "PCT% NAME" or "NAME PCT%", where
 *     NAME is a symbol, optionally qualified by its object as
 *     "NAME@OBJECT" (e.g. "fib_table_lookup@net/ipv4/fib_trie.o",
 *     "nf_ct_get@[nf_conntrack]", "memcpy@vmlinux").  An '@' followed by
 *     '@' or an upper-case letter is a symbol version and stays part of
 *     the name (memcpy@@GLIBC_2.14).  NAME may hold spaces only inside
 *     (), <> or [] (C++ signatures); a NAME of "0xHEX" is an address.
 *     WEIGHT is a decimal integer, 1 if absent.  '#' starts a comment.
 *   - `perf report --stdio` rows "PCT% [PCT%] [SAMPLES] [COMM] [DSO] [k] SYM":
 *     with two percentage columns (Children, Self) the second one counts.
 *     Call-graph lines are skipped, rows with a zero weight are dropped,
 *     "[k] 0x..." unresolved symbols become address-only frames.  The
 *     "# Overhead ... Shared Object ... Symbol" header tells whether a dso
 *     column exists; without a header the token before the tag is the dso.
 *   - `perf top --stdio` screens: colour escapes are removed and a screen
 *     clear (ESC[H or ESC[2J) drops the rows seen so far, so only the last
 *     screen counts.
 *   Percentages become parts per million: 12.34% is a period of 123400.
 *   Rows are delivered after the whole input is read, one sample each.
 *
 * CACHEPIN_TEXT_FOLDED reads "COMM;ROOT;...;LEAF COUNT" (FlameGraph's
 * stackcollapse): the first element is the command name and is dropped
 * unless it is the only one; "_[k]" marks kernel frames, other "_[x]"
 * annotations are removed; frames are delivered leaf first.
 *
 * cachepin_text__detect() returns CACHEPIN_TEXT_AUTO when nothing fits.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include "cachepin/textin.h"
#include "internal.h"

#define DETECT_BYTES	(64 * 1024)
#define DETECT_LINES	200
#define NO_STR		((size_t)-1)

/* ---- small scanners on [p, e) ranges ---- */

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && is_ws(*p))
		p++;
	return p;
}

static const char *rtrim(const char *p, const char *e)
{
	while (e > p && is_ws(e[-1]))
		e--;
	return e;
}

/* Next whitespace-separated token at or after *p; false at the end. */
static bool next_token(const char **p, const char *e, const char **ts, const char **te)
{
	const char *q = skip_ws(*p, e);

	if (q >= e)
		return false;
	*ts = q;
	while (q < e && !is_ws(*q))
		q++;
	*te = q;
	*p = q;
	return true;
}

static bool slice_eq(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) == n && !memcmp(p, s, n);
}

static bool slice_starts(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) >= n && !memcmp(p, s, n);
}

static bool parse_hex(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (p >= e || e - p > 16)
		return false;
	for (; p < e; p++) {
		int d = hexval(*p);

		if (d < 0)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

static bool parse_u64(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;

	if (p >= e)
		return false;
	for (; p < e; p++) {
		if (!is_digit(*p))
			return false;
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return true;
}

/* "12.34%" -> 123400 (parts per million); rounds beyond four decimals. */
static bool parse_pct(const char *p, const char *e, uint64_t *ppm)
{
	uint64_t ip = 0, frac = 0;
	int nfrac = 0, round = 0;

	if (e - p < 2 || e[-1] != '%')
		return false;
	e--;
	if (!is_digit(*p))
		return false;
	for (; p < e && is_digit(*p); p++) {
		if (ip > 100000000)
			return false;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (p < e && *p == '.') {
		p++;
		if (p >= e)
			return false;
		for (; p < e && is_digit(*p); p++) {
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

/* "123", "123/456", "-1": perf's pid and tid columns. */
static bool parse_pid(const char *p, const char *e, uint32_t *pid, uint32_t *tid)
{
	const char *slash = memchr(p, '/', (size_t)(e - p));
	uint64_t a, b;

	if (slice_eq(p, e, "-1")) {
		*pid = *tid = UINT32_MAX;
		return true;
	}
	if (!slash) {
		if (!parse_u64(p, e, &a) || a > UINT32_MAX)
			return false;
		*pid = *tid = (uint32_t)a;
		return true;
	}
	if (!parse_u64(p, slash, &a) || !parse_u64(slash + 1, e, &b) ||
	    a > UINT32_MAX || b > UINT32_MAX)
		return false;
	*pid = (uint32_t)a;
	*tid = (uint32_t)b;
	return true;
}

static bool is_cpu_token(const char *p, const char *e)
{
	uint64_t v;

	return e - p >= 3 && p[0] == '[' && e[-1] == ']' && parse_u64(p + 1, e - 1, &v);
}

/* "403.480208:" or "403.480208645:" */
static bool is_time_token(const char *p, const char *e)
{
	const char *q = p;

	if (e - p < 4 || e[-1] != ':')
		return false;
	e--;
	while (q < e && is_digit(*q))
		q++;
	if (q == p || q >= e || *q != '.')
		return false;
	p = ++q;
	while (q < e && is_digit(*q))
		q++;
	return q > p && q == e;
}

static bool is_event_token(const char *p, const char *e)
{
	return e - p >= 2 && e[-1] == ':' && e[-2] != ':';
}

/* perf's user-space special maps, which look like "[module]" names. */
static const char *const user_special_maps[] = {
	"unknown", "vdso", "vsyscall", "vvar", "heap", "stack", "anon",
	"vectors", "sigpage", "uprobes", "sigreturn", "vdso32", "vdso64",
};

static bool dso_is_kernel(const char *d, size_t n)
{
	const char *base;
	size_t i, bn;

	if (n >= 3 && d[0] == '[' && d[n - 1] == ']') {
		const char *in = d + 1;
		size_t inn = n - 2;

		for (i = 0; i < ARRAY_SIZE(user_special_maps); i++)
			if (slice_eq(in, in + inn, user_special_maps[i]))
				return false;
		if (slice_starts(in, in + inn, "stack:") || slice_starts(in, in + inn, "anon:") ||
		    slice_starts(in, in + inn, "JIT"))
			return false;
		return true;
	}
	if (n >= 3 && !memcmp(d + n - 3, ".ko", 3))
		return true;
	for (i = 0; i + 4 <= n; i++)
		if (!memcmp(d + i, ".ko.", 4))
			return true;
	base = d + n;
	while (base > d && base[-1] != '/')
		base--;
	bn = (size_t)(d + n - base);
	return slice_eq(base, base + bn, "vmlinux") || slice_starts(base, base + bn, "vmlinux-");
}

/* ---- frames ---- */

struct pframe {
	uint64_t ip, symoff, period;
	const char *sym, *sym_end;	/* NULL: none */
	const char *dso, *dso_end;
	unsigned int flags;
};

static void pframe_set_sym(struct pframe *f, const char *p, const char *e, bool offsets)
{
	const char *q;
	uint64_t off;

	if (p >= e || slice_eq(p, e, "[unknown]"))
		return;
	if (offsets) {
		for (q = e; q > p && q[-1] != '+'; q--)
			;
		if (q > p + 1 && e - q > 2 && q[0] == '0' && q[1] == 'x' &&
		    parse_hex(q, e, &off)) {
			f->symoff = off;
			f->flags |= CACHEPIN_FRAME_HAS_OFF;
			e = q - 1;
		}
	}
	f->sym = p;
	f->sym_end = e;
	f->flags |= CACHEPIN_FRAME_HAS_SYM;
}

static void pframe_set_dso(struct pframe *f, const char *p, const char *e)
{
	if (p >= e || slice_eq(p, e, "[unknown]"))
		return;
	f->dso = p;
	f->dso_end = e;
	if (dso_is_kernel(p, (size_t)(e - p)))
		f->flags |= CACHEPIN_FRAME_KERNEL;
}

/* "ADDR [SYM[+0xOFF]] [(DSO)]" */
static bool frame_parse(const char *p, const char *e, struct pframe *f)
{
	const char *ts, *te, *q;
	int depth;

	memset(f, 0, sizeof(*f));
	e = rtrim(p, e);
	if (!next_token(&p, e, &ts, &te) || !parse_hex(ts, te, &f->ip))
		return false;
	f->flags = CACHEPIN_FRAME_HAS_IP;
	p = skip_ws(te, e);
	if (p < e && e[-1] == ')') {
		depth = 0;
		for (q = e - 1; q >= p; q--) {
			if (*q == ')')
				depth++;
			else if (*q == '(' && --depth == 0)
				break;
		}
		if (q < p)
			return false;
		pframe_set_dso(f, q + 1, e - 1);
		e = rtrim(p, q);
	}
	pframe_set_sym(f, p, e, true);
	return true;
}

/* ---- perf script headers ---- */

struct phdr {
	uint32_t pid, tid;
	uint64_t period;
	const char *ev, *ev_end;	/* NULL: no event column */
	const char *rest, *rest_end;
};

static bool header_parse(const char *p, const char *e, struct phdr *h)
{
	bool evonly = p < e && *p != '\t';	/* frame lines start with a tab */
	const char *ts, *te, *t1s = NULL, *t1e = NULL, *t2s = NULL, *t2e = NULL;
	const char *q = p, *pid_s = NULL, *pid_e = NULL;
	const char *ps, *pe, *es, *ee, *r;
	bool found = false, timed = false;

	memset(h, 0, sizeof(*h));
	h->period = 1;
	e = rtrim(p, e);
	while (next_token(&q, e, &ts, &te)) {
		if (is_time_token(ts, te)) {
			found = timed = true;
		} else if (evonly && is_event_token(ts, te) && t1s &&
			   (is_cpu_token(t1s, t1e) || parse_pid(t1s, t1e, &h->pid, &h->tid))) {
			found = true;
		}
		if (found)
			break;
		t2s = t1s;
		t2e = t1e;
		t1s = ts;
		t1e = te;
	}
	if (!found)
		return false;
	if (t1s && is_cpu_token(t1s, t1e)) {
		pid_s = t2s;
		pid_e = t2e;
	} else {
		pid_s = t1s;
		pid_e = t1e;
	}
	if (!pid_s || !parse_pid(pid_s, pid_e, &h->pid, &h->tid))
		h->pid = h->tid = 0;
	if (!timed) {
		/* the token found is the event itself */
		h->ev = ts;
		h->ev_end = te - 1;
		h->rest = skip_ws(te, e);
		h->rest_end = e;
		return true;
	}
	r = te;
	q = te;
	if (next_token(&q, e, &ps, &pe)) {
		uint64_t v;

		if (is_event_token(ps, pe)) {
			h->ev = ps;
			h->ev_end = pe - 1;
			r = pe;
		} else if (parse_u64(ps, pe, &v)) {
			const char *q2 = q;

			if (!next_token(&q2, e, &es, &ee)) {
				h->period = v;
				r = pe;
			} else if (is_event_token(es, ee)) {
				h->period = v;
				h->ev = es;
				h->ev_end = ee - 1;
				r = ee;
			}
		}
	}
	h->rest = skip_ws(r, e);
	h->rest_end = e;
	return true;
}

/* ---- hot list and perf report rows ---- */

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
		if (!is_digit((char)c) && c != '.')
			digits = false;
	}
	return !digits;
}

/* NAME[@OBJECT] into f; false if NAME is no symbol name. */
static bool hot_name_parse(const char *p, const char *e, struct pframe *f)
{
	const char *at = memchr(p, '@', (size_t)(e - p));
	uint64_t ip;

	if (!hot_name_ok(p, e))
		return false;
	if (at && at > p && at + 1 < e && at[1] != '@' && !(at[1] >= 'A' && at[1] <= 'Z')) {
		pframe_set_dso(f, at + 1, e);
		e = at;
	}
	if (e - p > 2 && p[0] == '0' && p[1] == 'x' && parse_hex(p, e, &ip)) {
		f->ip = ip;
		f->flags |= CACHEPIN_FRAME_HAS_IP;
		return true;
	}
	pframe_set_sym(f, p, e, false);
	return f->flags & CACHEPIN_FRAME_HAS_SYM;
}

static bool is_level_tag(const char *p, const char *e)
{
	return e - p == 3 && p[0] == '[' && p[2] == ']' && strchr("k.guH", p[1]);
}

enum { ROW_NONE, ROW_OK, ROW_BAD };

struct report_cols {
	bool seen;		/* a "# Overhead"/"# Children" header was read */
	bool dso;		/* it has a Shared Object column */
	bool dso_after_sym;
};

/*
 * A perf report/top row or a hot-list line into f (f->period is the
 * weight).  ROW_NONE: not a row (graph line etc.), ROW_BAD: unparsable.
 */
static int row_parse(const char *p, const char *e, const struct report_cols *cols,
		     struct pframe *f)
{
	const char *q, *ts, *te, *last_s = NULL, *last_e = NULL, *name_s;
	uint64_t v, pct;
	int npct = 0;

	memset(f, 0, sizeof(*f));
	p = skip_ws(p, e);
	e = rtrim(p, e);
	if (p >= e)
		return ROW_NONE;
	q = p;
	next_token(&q, e, &ts, &te);
	if (!parse_pct(ts, te, &pct)) {
		/* NAME [WEIGHT|PCT%] */
		const char *ls = e;

		while (ls > p && !is_ws(ls[-1]))
			ls--;
		f->period = 1;
		if (ls > p) {
			if (parse_u64(ls, e, &v)) {
				f->period = v;
				e = rtrim(p, ls);
			} else if (parse_pct(ls, e, &v)) {
				f->period = v;
				e = rtrim(p, ls);
			}
		}
		return hot_name_parse(p, e, f) ? ROW_OK : ROW_BAD;
	}
	/* percentages, then sample/period counts */
	f->period = pct;
	npct = 1;
	for (;;) {
		const char *q2 = q;

		if (!next_token(&q2, e, &ts, &te))
			return ROW_BAD;
		if (npct < 2 && parse_pct(ts, te, &v)) {
			f->period = v;	/* Self of "Children Self" */
			npct++;
		} else if (parse_u64(ts, te, &v)) {
			/* a count column, unless it is the last token */
			const char *q3 = q2, *xs, *xe;

			if (!next_token(&q3, e, &xs, &xe))
				break;
		} else {
			break;
		}
		q = q2;
	}
	name_s = skip_ws(q, e);
	last_s = last_e = NULL;
	/* find the level tag */
	for (;;) {
		if (!next_token(&q, e, &ts, &te)) {
			ts = NULL;
			break;
		}
		if (is_level_tag(ts, te))
			break;
		last_s = ts;
		last_e = te;
	}
	if (!ts)		/* "PCT% NAME" */
		return hot_name_parse(name_s, e, f) ? ROW_OK : ROW_BAD;
	if (ts[1] == 'k' || ts[1] == 'g')
		f->flags |= CACHEPIN_FRAME_KERNEL;
	p = skip_ws(te, e);
	if (cols->seen && cols->dso && cols->dso_after_sym) {
		const char *ls = e;

		while (ls > p && !is_ws(ls[-1]))
			ls--;
		if (ls > p) {
			pframe_set_dso(f, ls, e);
			e = rtrim(p, ls);
		}
	} else if (last_s && (!cols->seen || cols->dso)) {
		pframe_set_dso(f, last_s, last_e);
	}
	if (p >= e)
		return ROW_BAD;
	if (e - p > 2 && p[0] == '0' && p[1] == 'x' && parse_hex(p, e, &v)) {
		f->ip = v;
		f->flags |= CACHEPIN_FRAME_HAS_IP;
		return ROW_OK;
	}
	pframe_set_sym(f, p, e, false);
	return ROW_OK;
}

/* perf's own lines in report/top output that carry no rows. */
static bool is_perf_chatter(const char *p, const char *e)
{
	const char *q;

	if (slice_starts(p, e, "Warning:") || slice_starts(p, e, "PerfTop:") ||
	    slice_starts(p, e, "Mapped keys:") || slice_starts(p, e, "Enter selection"))
		return true;
	for (q = p; q < e && *q == '-'; q++)
		;
	return q == e && e - p >= 3;
}

static bool is_graph_line(const char *p, const char *e)
{
	p = skip_ws(p, e);
	return p < e && (*p == '|' || *p == '-');
}

/* ---- folded stacks ---- */

/* One "f1;f2;...;leaf" element into f. */
static void folded_frame(const char *p, const char *e, struct pframe *f)
{
	uint64_t ip;

	memset(f, 0, sizeof(*f));
	if (e - p > 4 && e[-4] == '_' && e[-3] == '[' && e[-1] == ']') {
		if (e[-2] == 'k')
			f->flags |= CACHEPIN_FRAME_KERNEL;
		e -= 4;
	}
	if (e - p > 2 && p[0] == '0' && p[1] == 'x' && parse_hex(p, e, &ip)) {
		f->ip = ip;
		f->flags |= CACHEPIN_FRAME_HAS_IP;
		return;
	}
	pframe_set_sym(f, p, e, true);
}

static bool folded_split(const char *p, const char *e, const char **stack_end, uint64_t *count)
{
	const char *ls;

	e = rtrim(p, e);
	ls = e;
	while (ls > p && !is_ws(ls[-1]))
		ls--;
	if (ls == p || !parse_u64(ls, e, count))
		return false;
	*stack_end = rtrim(p, ls);
	return *stack_end > p;
}

/* ---- detection ---- */

enum line_class {
	LC_SKIP, LC_SCRIPT, LC_FOLDED, LC_REPORT, LC_HOT, LC_BAD,
};

static bool has_ctl(const char *p, const char *e)
{
	for (; p < e; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t' && *p != '\r' && *p != 0x1b) ||
		    *p == 0x7f)
			return true;
	return false;
}

/* Remove ANSI escapes in place; returns the new end and whether the screen was cleared. */
static char *strip_escapes(char *p, char *e, bool *cleared)
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

static enum line_class classify(const char *p, const char *e)
{
	struct report_cols cols = { 0 };
	struct pframe f;
	struct phdr h;
	const char *q, *se, *s;
	uint64_t cnt;
	bool tab;

	e = rtrim(p, e);
	tab = p < e && *p == '\t';
	q = skip_ws(p, e);
	if (q >= e || *q == '#')
		return LC_SKIP;
	if (has_ctl(q, e))
		return LC_BAD;
	if (memchr(q, 0x1b, (size_t)(e - q))) {
		enum line_class lc;
		bool cleared;
		char *copy = strndup(q, (size_t)(e - q));

		if (!copy)
			return LC_SKIP;
		lc = classify(copy, strip_escapes(copy, copy + (e - q), &cleared));
		free(copy);
		return lc;
	}
	if (is_perf_chatter(q, e))
		return LC_SKIP;
	if (header_parse(p, e, &h))
		return LC_SCRIPT;
	if (frame_parse(q, e, &f) && (tab || f.dso || (f.flags & CACHEPIN_FRAME_HAS_OFF)))
		return LC_SCRIPT;
	if (memchr(q, ';', (size_t)(e - q)) && folded_split(q, e, &se, &cnt))
		return LC_FOLDED;
	switch (row_parse(q, e, &cols, &f)) {
	case ROW_OK:
		s = q;
		next_token(&s, e, &q, &se);
		return parse_pct(q, se, &cnt) ? LC_REPORT : LC_HOT;
	case ROW_NONE:
		return LC_SKIP;
	default:
		return is_graph_line(p, e) ? LC_SKIP : LC_BAD;
	}
}

enum cachepin_text_format cachepin_text__detect(const char *buf, size_t len)
{
	const char *p = buf, *e = buf + len, *nl;
	int lines = 0, hot = 0, bad = 0;

	if (!buf)
		return CACHEPIN_TEXT_AUTO;
	if (len >= 8 && !memcmp(buf, "PERFILE2", 8))
		return CACHEPIN_TEXT_AUTO;
	while (p < e && lines < DETECT_LINES) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			nl = e;
		if (memchr(p, '\0', (size_t)(nl - p)))
			return CACHEPIN_TEXT_AUTO;
		switch (classify(p, nl)) {
		case LC_SCRIPT:
			return CACHEPIN_TEXT_PERF_SCRIPT;
		case LC_FOLDED:
			return CACHEPIN_TEXT_FOLDED;
		case LC_REPORT:
			return CACHEPIN_TEXT_HOTLIST;
		case LC_HOT:
			hot++;
			lines++;
			break;
		case LC_BAD:
			bad++;
			lines++;
			break;
		default:
			break;
		}
		p = nl + 1;
	}
	/* a few bad lines in a hot list are better reported by line number */
	return hot && (!bad || (hot >= 2 && hot >= 2 * bad)) ? CACHEPIN_TEXT_HOTLIST :
							       CACHEPIN_TEXT_AUTO;
}

/* ---- line reader: getline-like, but lets detection peek at stdin ---- */

struct line_reader {
	FILE *f;
	char *buf;
	size_t cap, start, end, scanned;
	bool eof, error;
};

static int lr_read_more(struct line_reader *lr)
{
	size_t n;

	if (lr->start) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->scanned -= lr->start;
		lr->start = 0;
	}
	if (lr->cap - lr->end < 4096 + 1) {
		size_t ncap = lr->cap ? lr->cap * 2 : 256 * 1024;
		char *nb = realloc(lr->buf, ncap);

		if (!nb)
			return -ENOMEM;
		lr->buf = nb;
		lr->cap = ncap;
	}
	n = fread(lr->buf + lr->end, 1, lr->cap - lr->end - 1, lr->f);
	if (!n) {
		lr->eof = true;
		if (ferror(lr->f))
			lr->error = true;
	}
	lr->end += n;
	return 0;
}

/* The next line, NUL-terminated, without its '\n'; NULL at the end. */
static char *lr_next(struct line_reader *lr, size_t *len, int *err)
{
	char *line, *nl;

	*err = 0;
	for (;;) {
		nl = lr->buf ? memchr(lr->buf + lr->scanned, '\n', lr->end - lr->scanned) : NULL;
		if (nl) {
			line = lr->buf + lr->start;
			*nl = '\0';
			*len = (size_t)(nl - line);
			lr->start = lr->scanned = (size_t)(nl + 1 - lr->buf);
			return line;
		}
		lr->scanned = lr->end;
		if (lr->eof) {
			if (lr->start == lr->end || !lr->buf)
				return NULL;
			line = lr->buf + lr->start;
			lr->buf[lr->end] = '\0';
			*len = lr->end - lr->start;
			lr->start = lr->scanned = lr->end;
			return line;
		}
		*err = lr_read_more(lr);
		if (*err)
			return NULL;
	}
}

/* ---- the reader ---- */

struct pend {
	uint64_t ip, symoff, period;
	size_t sym, dso;	/* arena offsets or NO_STR */
	unsigned int flags;
};

struct textin {
	const char *path;
	unsigned long lineno;
	bool cut_line;		/* the current line is a last line without its newline */
	cachepin_sample_fn_t fn;
	void *ctx;
	char *event;		/* first event named by the input */
	char *cur_event;	/* event of the sample being built */

	/* the sample (script, folded) or the rows (hot list) being built */
	uint64_t period;
	uint32_t pid, tid;
	bool pending;		/* a header or callchain block is open */
	bool warning;		/* inside a multi-line perf warning */
	struct pend *pf;
	size_t npf, pf_cap;
	char *arena;
	size_t alen, acap;
	struct cachepin_frame *frames;
	size_t frames_cap;

	/* perf report state */
	struct report_cols cols;
	bool graph, other_event;
};

static int textin_error(struct textin *t, const char *what)
{
	/* output cut off in the middle of its last line: keep what came before */
	if (t->cut_line) {
		pr_info("'%s':%lu: ignoring the cut-off last line\n", t->path, t->lineno);
		return 0;
	}
	pr_warn("'%s':%lu: %s\n", t->path, t->lineno, what);
	return -EINVAL;
}

static size_t arena_add(struct textin *t, const char *p, const char *e)
{
	size_t n = (size_t)(e - p), off = t->alen;

	if (GROW(t->arena, t->acap, t->alen + n + 1))
		return NO_STR - 1;
	memcpy(t->arena + off, p, n);
	t->arena[off + n] = '\0';
	t->alen += n + 1;
	return off;
}

static int textin_add(struct textin *t, const struct pframe *f)
{
	struct pend *pe;

	if (GROW(t->pf, t->pf_cap, t->npf + 1))
		return -ENOMEM;
	pe = &t->pf[t->npf];
	pe->ip = f->ip;
	pe->symoff = f->symoff;
	pe->period = f->period;
	pe->flags = f->flags;
	pe->sym = pe->dso = NO_STR;
	if (f->sym && (pe->sym = arena_add(t, f->sym, f->sym_end)) == NO_STR - 1)
		return -ENOMEM;
	if (f->dso && (pe->dso = arena_add(t, f->dso, f->dso_end)) == NO_STR - 1)
		return -ENOMEM;
	t->npf++;
	return 0;
}

static void pend_to_frame(const struct textin *t, const struct pend *pe, struct cachepin_frame *fr)
{
	fr->ip = pe->ip;
	fr->file_off = 0;
	fr->sym = pe->sym == NO_STR ? NULL : t->arena + pe->sym;
	fr->symoff = pe->symoff;
	fr->dso = pe->dso == NO_STR ? NULL : t->arena + pe->dso;
	fr->flags = pe->flags;
}

static void textin_reset(struct textin *t)
{
	t->npf = 0;
	t->alen = 0;
	t->pending = false;
	t->period = 1;
	t->pid = t->tid = 0;
}

/* Deliver the frames collected as one sample (innermost first). */
static int textin_flush(struct textin *t, bool reverse)
{
	struct cachepin_sample s;
	size_t i;
	int err;

	if (!t->npf) {
		if (t->pending)
			pr_debug("'%s':%lu: sample without frames skipped\n", t->path, t->lineno);
		textin_reset(t);
		return 0;
	}
	if (GROW(t->frames, t->frames_cap, t->npf))
		return -ENOMEM;
	for (i = 0; i < t->npf; i++)
		pend_to_frame(t, &t->pf[i], &t->frames[reverse ? t->npf - 1 - i : i]);
	s.period = t->period;
	s.pid = t->pid;
	s.tid = t->tid;
	s.nr = (uint32_t)t->npf;
	s.frames = t->frames;
	s.event = t->cur_event;
	err = t->fn(t->ctx, &s);
	textin_reset(t);
	return err;
}

static int textin_set_event(struct textin *t, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);

	if (t->cur_event && strlen(t->cur_event) == n && !memcmp(t->cur_event, p, n))
		return 0;
	free(t->cur_event);
	t->cur_event = strndup(p, n);
	if (!t->cur_event)
		return -ENOMEM;
	if (!t->event) {
		t->event = strdup(t->cur_event);
		if (!t->event)
			return -ENOMEM;
	}
	return 0;
}

/* srcline lines that perf prints under frames with -F +srcline */
static bool is_srcline(const char *p, const char *e)
{
	const char *c = e;
	uint64_t v;

	while (c > p && c[-1] != ':')
		c--;
	return c > p + 1 && parse_u64(c, e, &v);
}

static int script_line(struct textin *t, char *line, size_t len)
{
	const char *p = line, *e = rtrim(line, line + len), *q;
	struct pframe f;
	struct phdr h;
	int err;

	q = skip_ws(p, e);
	if (q >= e)			/* a blank line ends a sample */
		return textin_flush(t, false);
	if (q == p && *p == '#')
		return 0;
	if (q == p && slice_starts(p, e, "Warning:")) {
		t->warning = true;
		return 0;
	}
	if (header_parse(p, e, &h)) {
		t->warning = false;
		err = textin_flush(t, false);
		if (err)
			return err;
		if (h.ev && (err = textin_set_event(t, h.ev, h.ev_end)))
			return err;
		t->period = h.period;
		t->pid = h.pid;
		t->tid = h.tid;
		t->pending = true;
		if (h.rest < h.rest_end && frame_parse(h.rest, h.rest_end, &f)) {
			err = textin_add(t, &f);
			return err ? err : textin_flush(t, false);
		}
		return 0;
	}
	if (frame_parse(q, e, &f)) {
		bool chain = t->pending || memchr(p, '\t', (size_t)(q - p));

		if (t->warning && q == p && !f.dso)
			return 0;
		t->warning = false;

		if (q == p && !chain && !f.dso)
			return textin_error(t, "not a perf script sample header or frame line");
		if (!chain) {
			err = textin_flush(t, false);
			if (err)
				return err;
			err = textin_add(t, &f);
			return err ? err : textin_flush(t, false);
		}
		if (f.dso && !(f.flags & CACHEPIN_FRAME_KERNEL))
			f.flags |= CACHEPIN_FRAME_DSO_REL;
		t->pending = true;
		return textin_add(t, &f);
	}
	/* perf's warnings span lines and blank lines, up to the next sample */
	if (t->warning || (q > p && is_srcline(q, e)))
		return 0;
	if (q > p)
		return textin_error(t, "cannot parse perf script frame line");
	return textin_error(t, "not a perf script sample header or frame line");
}

static void report_header(struct textin *t, const char *p, const char *e)
{
	const char *s, *ev, *ee, *sym, *dso;
	size_t n = (size_t)(e - p);

	s = memmem(p, n, "of event '", 10);
	if (s) {
		ev = s + 10;
		ee = memchr(ev, '\'', (size_t)(e - ev));
		if (ee) {
			if (t->cur_event && !slice_eq(ev, ee, t->cur_event)) {
				if (!t->other_event)
					pr_warn("'%s':%lu: more than one event; using '%s' only\n",
						t->path, t->lineno, t->cur_event);
				t->other_event = true;
			} else if (!t->cur_event) {
				textin_set_event(t, ev, ee);
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

static void top_header(struct textin *t, const char *p, const char *e)
{
	const char *s = memmem(p, (size_t)(e - p), "Hz ", 3), *ee;

	if (!s || t->cur_event)
		return;
	s += 3;
	ee = memchr(s, ']', (size_t)(e - s));
	if (ee && ee > s)
		textin_set_event(t, s, ee);
}

static int hot_line(struct textin *t, char *line, size_t len)
{
	char *end = line + len;
	const char *p, *e;
	struct pframe f;
	bool cleared = false;

	if (memchr(line, 0x1b, len)) {
		end = strip_escapes(line, end, &cleared);
		if (cleared) {	/* perf top redrew its screen */
			t->npf = 0;
			t->alen = 0;
			t->graph = false;
		}
	}
	e = rtrim(line, end);
	p = skip_ws(line, e);
	if (p >= e) {
		t->graph = false;
		t->warning = false;
		return 0;
	}
	if (*p == '#') {
		report_header(t, p, e);
		return 0;
	}
	if (slice_starts(p, e, "PerfTop:"))
		top_header(t, p, e);
	if (is_perf_chatter(p, e)) {
		t->warning = slice_starts(p, e, "Warning:");
		return 0;
	}
	if (t->warning || t->graph)
		return 0;
	if (is_graph_line(p, e)) {
		t->graph = true;
		return 0;
	}
	switch (row_parse(p, e, &t->cols, &f)) {
	case ROW_NONE:
		return 0;
	case ROW_BAD:
		if (has_ctl(p, e))
			return textin_error(t, "binary data in a hot list");
		return textin_error(t, "expected 'NAME [WEIGHT]', 'PCT% NAME' or a perf report row");
	}
	if (!f.period || t->other_event)
		return 0;
	return textin_add(t, &f);
}

static int hot_finish(struct textin *t)
{
	struct pend *rows = t->pf;
	size_t i, n = t->npf;
	struct cachepin_sample s = { 0 };
	int err = 0;

	if (GROW(t->frames, t->frames_cap, 1))
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		pend_to_frame(t, &rows[i], &t->frames[0]);
		s.period = rows[i].period;
		s.nr = 1;
		s.frames = t->frames;
		s.event = t->cur_event;
		err = t->fn(t->ctx, &s);
	}
	textin_reset(t);
	return err;
}

static int folded_line(struct textin *t, char *line, size_t len)
{
	const char *p = line, *e = rtrim(line, line + len), *se, *s, *semi;
	struct pframe f;
	uint64_t count;
	int err;

	p = skip_ws(p, e);
	if (p >= e || *p == '#')
		return 0;
	if (!folded_split(p, e, &se, &count))
		return textin_error(t, "expected 'COMM;FRAME;...;FRAME COUNT'");
	if (has_ctl(p, se))
		return textin_error(t, "binary data in folded stacks");
	if (!count)
		return 0;
	textin_reset(t);
	t->period = count;
	semi = memchr(p, ';', (size_t)(se - p));
	if (semi)
		p = semi + 1;	/* drop the command name */
	while (p <= se) {
		s = memchr(p, ';', (size_t)(se - p));
		if (!s)
			s = se;
		if (s > p) {
			folded_frame(p, s, &f);
			if ((err = textin_add(t, &f)))
				return err;
		}
		p = s + 1;
	}
	return textin_flush(t, true);
}

static void textin_release(struct textin *t)
{
	free(t->event);
	free(t->cur_event);
	free(t->pf);
	free(t->arena);
	free(t->frames);
}

static const char *const format_names[] = {
	[CACHEPIN_TEXT_AUTO] = "auto",
	[CACHEPIN_TEXT_PERF_SCRIPT] = "perf script",
	[CACHEPIN_TEXT_HOTLIST] = "hot list",
	[CACHEPIN_TEXT_FOLDED] = "folded stacks",
};

int cachepin_text__read(const char *path, enum cachepin_text_format format,
			cachepin_sample_fn_t fn, void *ctx, char **event)
{
	struct line_reader lr = { 0 };
	struct textin t = { 0 };
	size_t len, dlen;
	char *line;
	int err = 0, rerr;

	if (event)
		*event = NULL;
	if (!path || !fn || (unsigned int)format >= ARRAY_SIZE(format_names))
		return -EINVAL;
	t.path = path;
	t.fn = fn;
	t.ctx = ctx;
	t.period = 1;
	if (!strcmp(path, "-")) {
		lr.f = stdin;
	} else {
		lr.f = fopen(path, "r");
		if (!lr.f) {
			err = -errno;
			pr_warn("cannot open '%s': %s\n", path, strerror(errno));
			return err;
		}
	}
	if (format == CACHEPIN_TEXT_AUTO) {
		while (!lr.eof && lr.end < DETECT_BYTES)
			if ((err = lr_read_more(&lr)))
				goto out_close;
		dlen = lr.end;
		if (!lr.eof)
			while (dlen && lr.buf[dlen - 1] != '\n')
				dlen--;
		format = cachepin_text__detect(lr.buf, dlen);
		if (format == CACHEPIN_TEXT_AUTO) {
			err = -EINVAL;
			if (lr.error)
				err = -EIO, pr_warn("cannot read '%s': %s\n", path, strerror(errno));
			else if (!lr.end)
				pr_warn("'%s': empty input, no samples\n", path);
			else if (lr.end >= 8 && !memcmp(lr.buf, "PERFILE2", 8))
				pr_warn("'%s': not a perf script output, hot list or perf report\n"
					"hint: this is a perf.data file; read it as such or convert it with 'perf script -i %s'\n",
					path, path);
			else
				pr_warn("'%s': not a perf script output, hot list or perf report\n"
					"hint: give 'perf script' or 'perf report --stdio' output, folded stacks, or a list of 'NAME [WEIGHT]' lines\n",
					path);
			goto out_close;
		}
		pr_debug("'%s': reading as %s\n", path, format_names[format]);
	}
	while ((line = lr_next(&lr, &len, &rerr))) {
		t.lineno++;
		t.cut_line = lr.eof && lr.start == lr.end && (lr.end == 0 || lr.buf[lr.end - 1] != '\n') &&
			     line + len == lr.buf + lr.end;
		if (memchr(line, '\0', len)) {
			err = textin_error(&t, "binary data (NUL byte) in a text profile");
			goto out_close;
		}
		switch (format) {
		case CACHEPIN_TEXT_PERF_SCRIPT:
			err = script_line(&t, line, len);
			break;
		case CACHEPIN_TEXT_FOLDED:
			err = folded_line(&t, line, len);
			break;
		default:
			err = hot_line(&t, line, len);
			break;
		}
		if (err)
			goto out_close;
	}
	if (rerr) {
		err = rerr;
		goto out_close;
	}
	if (lr.error) {
		err = -EIO;
		pr_warn("cannot read '%s': read error\n", path);
		goto out_close;
	}
	if (format == CACHEPIN_TEXT_HOTLIST)
		err = hot_finish(&t);
	else
		err = textin_flush(&t, false);
out_close:
	if (lr.f && lr.f != stdin)
		fclose(lr.f);
	free(lr.buf);
	if (!err && event) {
		*event = t.event;
		t.event = NULL;
	}
	textin_release(&t);
	return err;
}
