// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sample a text profile reader builds: the fields of its frames as
 * parsed (symbol, offset, dso and whether the dso is the kernel), the
 * frames kept with copies of their strings until the sample is complete,
 * its event, the delivery to the caller's function, and the messages
 * about a line.
 */
#include "kernel.h"
#include "textin-int.h"

void cachepin_text_frame_sym(struct pframe *f, const char *p, const char *e, bool offsets)
{
	const char *q;
	uint64_t off;

	if (p >= e || scan_eq(p, e, "[unknown]"))
		return;
	if (offsets) {
		for (q = e; q > p && q[-1] != '+'; q--)
			;
		if (q > p + 1 && scan_hex0x(q, e, &off)) {
			f->symoff = off;
			f->flags |= CACHEPIN_FRAME_HAS_OFF;
			e = q - 1;
		}
	}
	f->sym = p;
	f->sym_end = e;
	f->flags |= CACHEPIN_FRAME_HAS_SYM;
}

void cachepin_text_frame_dso(struct pframe *f, const char *p, const char *e)
{
	if (p >= e || scan_eq(p, e, "[unknown]"))
		return;
	f->dso = p;
	f->dso_end = e;
	if (cachepin_kernel_dso(p, (size_t)(e - p)) != KERNEL_DSO_NONE)
		f->flags |= CACHEPIN_FRAME_KERNEL;
}

int cachepin_text_error(struct textin *t, const char *what)
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

int cachepin_text_add(struct textin *t, const struct pframe *f)
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

void cachepin_text_reset(struct textin *t)
{
	t->npf = 0;
	t->alen = 0;
	t->pending = false;
	t->period = 1;
	t->pid = t->tid = 0;
}

int cachepin_text_flush(struct textin *t, bool reverse)
{
	struct cachepin_sample s;
	size_t i;
	int err;

	if (!t->npf) {
		if (t->pending)
			pr_debug("'%s':%lu: sample without frames skipped\n", t->path, t->lineno);
		cachepin_text_reset(t);
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
	cachepin_text_reset(t);
	return err;
}

int cachepin_text_flush_rows(struct textin *t)
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
	cachepin_text_reset(t);
	return err;
}

int cachepin_text_set_event(struct textin *t, const char *p, const char *e)
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

void cachepin_text_release(struct textin *t)
{
	free(t->event);
	free(t->cur_event);
	free(t->pf);
	free(t->arena);
	free(t->frames);
}
