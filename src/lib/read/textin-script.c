// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CACHEPIN_TEXT_PERF_SCRIPT: what `perf script` prints.
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
 */
#include "textin-int.h"

/* "123", "123/456", "-1": perf's pid and tid columns. */
static bool parse_pid(const char *p, const char *e, uint32_t *pid, uint32_t *tid)
{
	const char *slash = memchr(p, '/', (size_t)(e - p));
	uint64_t a, b;

	if (scan_eq(p, e, "-1")) {
		*pid = *tid = UINT32_MAX;
		return true;
	}
	if (!slash) {
		if (!scan_u64(p, e, &a) || a > UINT32_MAX)
			return false;
		*pid = *tid = (uint32_t)a;
		return true;
	}
	if (!scan_u64(p, slash, &a) || !scan_u64(slash + 1, e, &b) ||
	    a > UINT32_MAX || b > UINT32_MAX)
		return false;
	*pid = (uint32_t)a;
	*tid = (uint32_t)b;
	return true;
}

static bool is_cpu_field(const struct scan_field *f)
{
	uint64_t v;

	return f->e - f->p >= 3 && f->p[0] == '[' && f->e[-1] == ']' &&
	       scan_u64(f->p + 1, f->e - 1, &v);
}

/* "403.480208:" or "403.480208645:" */
static bool is_time_field(const struct scan_field *f)
{
	const char *p = f->p, *e = f->e, *q = p;

	if (e - p < 4 || e[-1] != ':')
		return false;
	e--;
	while (q < e && scan_is_digit(*q))
		q++;
	if (q == p || q >= e || *q != '.')
		return false;
	p = ++q;
	while (q < e && scan_is_digit(*q))
		q++;
	return q > p && q == e;
}

static bool is_event_field(const struct scan_field *f)
{
	return f->e - f->p >= 2 && f->e[-1] == ':' && f->e[-2] != ':';
}

/* "ADDR [SYM[+0xOFF]] [(DSO)]" */
static bool frame_parse(const char *p, const char *e, struct pframe *f)
{
	struct scan_field ip;
	const char *q;
	int depth;

	memset(f, 0, sizeof(*f));
	e = scan_rtrim(p, e);
	if (!scan_field(&p, e, &ip) || !scan_hex(ip.p, ip.e, &f->ip))
		return false;
	f->flags = CACHEPIN_FRAME_HAS_IP;
	p = scan_skip_ws(ip.e, e);
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
		cachepin_text_frame_dso(f, q + 1, e - 1);
		e = scan_rtrim(p, q);
	}
	cachepin_text_frame_sym(f, p, e, true);
	return true;
}

/* ---- sample headers ---- */

struct phdr {
	uint32_t pid, tid;
	uint64_t period;
	const char *ev, *ev_end;	/* NULL: no event column */
	const char *rest, *rest_end;
};

/* Where a header line was found: its anchor and the fields before it. */
struct hdr_anchor {
	struct scan_field at;		/* the time stamp, or the event if !timed */
	struct scan_field f1, f2;	/* the field before it, the one before that */
	bool timed;
};

/*
 * Find the time stamp of a header line or, on a line that starts with no
 * tab and has no time column, an "EVENT:" after a cpu or pid field.
 */
static bool header_anchor(const char *p, const char *e, struct phdr *h, struct hdr_anchor *a)
{
	bool evonly = p < e && *p != '\t';	/* frame lines start with a tab */
	struct scan_field f;
	const char *q = p;

	a->f1.p = a->f2.p = NULL;
	a->f1.e = a->f2.e = NULL;
	while (scan_field(&q, e, &f)) {
		if (is_time_field(&f)) {
			a->timed = true;
			a->at = f;
			return true;
		}
		if (evonly && is_event_field(&f) && a->f1.p &&
		    (is_cpu_field(&a->f1) || parse_pid(a->f1.p, a->f1.e, &h->pid, &h->tid))) {
			a->timed = false;
			a->at = f;
			return true;
		}
		a->f2 = a->f1;
		a->f1 = f;
	}
	return false;
}

/* What follows the time stamp at P: "[PERIOD] EVENT:" or a lone PERIOD. */
static void header_tail(const char *p, const char *e, struct phdr *h)
{
	struct scan_field f, ev;
	const char *r = p;
	uint64_t v;

	if (scan_field(&p, e, &f)) {
		if (is_event_field(&f)) {
			h->ev = f.p;
			h->ev_end = f.e - 1;
			r = f.e;
		} else if (scan_u64(f.p, f.e, &v)) {
			if (!scan_field(&p, e, &ev)) {
				h->period = v;
				r = f.e;
			} else if (is_event_field(&ev)) {
				h->period = v;
				h->ev = ev.p;
				h->ev_end = ev.e - 1;
				r = ev.e;
			}
		}
	}
	h->rest = scan_skip_ws(r, e);
	h->rest_end = e;
}

static bool header_parse(const char *p, const char *e, struct phdr *h)
{
	const struct scan_field *pid;
	struct hdr_anchor a;

	memset(h, 0, sizeof(*h));
	h->period = 1;
	e = scan_rtrim(p, e);
	if (!header_anchor(p, e, h, &a))
		return false;
	pid = a.f1.p && is_cpu_field(&a.f1) ? &a.f2 : &a.f1;
	if (!pid->p || !parse_pid(pid->p, pid->e, &h->pid, &h->tid))
		h->pid = h->tid = 0;
	if (a.timed) {
		header_tail(a.at.e, e, h);
		return true;
	}
	/* the field found is the event itself */
	h->ev = a.at.p;
	h->ev_end = a.at.e - 1;
	h->rest = scan_skip_ws(a.at.e, e);
	h->rest_end = e;
	return true;
}

bool cachepin_text_script_probe(const char *p, const char *e)
{
	const char *q = scan_skip_ws(p, e);
	bool tab = p < e && *p == '\t';
	struct pframe f;
	struct phdr h;

	if (header_parse(p, e, &h))
		return true;
	return frame_parse(q, e, &f) && (tab || f.dso || (f.flags & CACHEPIN_FRAME_HAS_OFF));
}

/* ---- the lines ---- */

/* srcline lines that perf prints under frames with -F +srcline */
static bool is_srcline(const char *p, const char *e)
{
	const char *c = e;
	uint64_t v;

	while (c > p && c[-1] != ':')
		c--;
	return c > p + 1 && scan_u64(c, e, &v);
}

/* A header starts a sample; with a frame on it (-G), the sample is complete. */
static int script_header(struct textin *t, const struct phdr *h)
{
	struct pframe f;
	int err;

	t->warning = false;
	err = cachepin_text_flush(t, false);
	if (err)
		return err;
	if (h->ev && (err = cachepin_text_set_event(t, h->ev, h->ev_end)))
		return err;
	t->period = h->period;
	t->pid = h->pid;
	t->tid = h->tid;
	t->pending = true;
	if (h->rest < h->rest_end && frame_parse(h->rest, h->rest_end, &f)) {
		err = cachepin_text_add(t, &f);
		return err ? err : cachepin_text_flush(t, false);
	}
	return 0;
}

/*
 * A frame line: part of a callchain (CHAIN: after a header or indented by
 * a tab) or a sample of its own.  INDENTED: the line starts with blanks.
 */
static int script_frame(struct textin *t, struct pframe *f, bool indented, bool chain)
{
	int err;

	if (t->warning && !indented && !f->dso)
		return 0;
	t->warning = false;

	if (!indented && !chain && !f->dso)
		return cachepin_text_error(t, "not a perf script sample header or frame line");
	if (!chain) {
		err = cachepin_text_flush(t, false);
		if (err)
			return err;
		err = cachepin_text_add(t, f);
		return err ? err : cachepin_text_flush(t, false);
	}
	if (f->dso && !(f->flags & CACHEPIN_FRAME_KERNEL))
		f->flags |= CACHEPIN_FRAME_DSO_REL;
	t->pending = true;
	return cachepin_text_add(t, f);
}

int cachepin_text_script_line(struct textin *t, char *line, size_t len)
{
	const char *p = line, *e = scan_rtrim(line, line + len), *q;
	struct pframe f;
	struct phdr h;

	q = scan_skip_ws(p, e);
	if (q >= e)			/* a blank line ends a sample */
		return cachepin_text_flush(t, false);
	if (q == p && *p == '#')
		return 0;
	if (q == p && scan_starts(p, e, "Warning:")) {
		t->warning = true;
		return 0;
	}
	if (header_parse(p, e, &h))
		return script_header(t, &h);
	if (frame_parse(q, e, &f))
		return script_frame(t, &f, q > p,
				    t->pending || memchr(p, '\t', (size_t)(q - p)) != NULL);
	/* perf's warnings span lines and blank lines, up to the next sample */
	if (t->warning || (q > p && is_srcline(q, e)))
		return 0;
	if (q > p)
		return cachepin_text_error(t, "cannot parse perf script frame line");
	return cachepin_text_error(t, "not a perf script sample header or frame line");
}
