// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CACHEPIN_TEXT_FOLDED reads "COMM;ROOT;...;LEAF COUNT" (FlameGraph's
 * stackcollapse): the first element is the command name and is dropped
 * unless it is the only one; "_[k]" marks kernel frames, other "_[x]"
 * annotations are removed; frames are delivered leaf first.
 */
#include "textin-int.h"

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
	if (scan_hex0x(p, e, &ip)) {
		f->ip = ip;
		f->flags |= CACHEPIN_FRAME_HAS_IP;
		return;
	}
	cachepin_text_frame_sym(f, p, e, true);
}

/* "STACK COUNT": the end of STACK in *STACK_END, COUNT in *COUNT. */
static bool folded_split(const char *p, const char *e, const char **stack_end, uint64_t *count)
{
	const char *ls;

	e = scan_rtrim(p, e);
	ls = scan_field_back(p, e);
	if (ls == p || !scan_u64(ls, e, count))
		return false;
	*stack_end = scan_rtrim(p, ls);
	return *stack_end > p;
}

bool cachepin_text_folded_probe(const char *p, const char *e)
{
	const char *se;
	uint64_t cnt;

	return memchr(p, ';', (size_t)(e - p)) && folded_split(p, e, &se, &cnt);
}

int cachepin_text_folded_line(struct textin *t, char *line, size_t len)
{
	const char *p = line, *e = scan_rtrim(line, line + len), *se, *s, *semi;
	struct pframe f;
	uint64_t count;
	int err;

	p = scan_skip_ws(p, e);
	if (p >= e || *p == '#')
		return 0;
	if (!folded_split(p, e, &se, &count))
		return cachepin_text_error(t, "expected 'COMM;FRAME;...;FRAME COUNT'");
	if (cachepin_text_has_ctl(p, se))
		return cachepin_text_error(t, "binary data in folded stacks");
	if (!count)
		return 0;
	cachepin_text_reset(t);
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
			if ((err = cachepin_text_add(t, &f)))
				return err;
		}
		p = s + 1;
	}
	return cachepin_text_flush(t, true);
}
