// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Another layout of a binary without linking it: from a plan's
 * alignment file (GNU ld's placement replayed on the binary's units and
 * their alignment) or from an existing relink (by function name).
 */
#include "cachepin/align.h"
#include "cachepin/layout.h"
#include "cachepin/model.h"
#include "cachepin/plan.h"
#include "cachepin/symmap.h"
#include "internal.h"
#include "kernel.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static int layout_alloc(struct cachepin_layout *l, const struct cachepin_binary *bin)
{
	memset(l, 0, sizeof(*l));
	l->bin = bin;
	l->delta = calloc(bin->nr_funcs + 1, sizeof(*l->delta));
	l->known = calloc(bin->nr_funcs + 1, sizeof(*l->known));
	if (l->delta && l->known)
		return 0;
	cachepin_layout__release(l);
	pr_warn("out of memory\n");
	return -ENOMEM;
}

void cachepin_layout__release(struct cachepin_layout *l)
{
	if (!l)
		return;
	free(l->delta);
	free(l->known);
	free(l->units);
	memset(l, 0, sizeof(*l));
}

int cachepin_layout__place(struct cachepin_layout *l, const struct cachepin_binary *bin)
{
	size_t i, j;

	l->bin = bin;
	if (!l->delta)
		l->delta = malloc((bin->nr_funcs + 1) * sizeof(*l->delta));
	if (!l->known)
		l->known = malloc((bin->nr_funcs + 1) * sizeof(*l->known));
	if (!l->delta || !l->known)
		return -ENOMEM;
	/* the rest where BIN has it, but a kernel's tail */
	for (i = 0; i < bin->nr_funcs; i++) {
		uint64_t a = bin->funcs[i].addr;

		l->delta[i] = (int64_t)(cachepin_layout__tail_addr(l, a) - a);
		l->known[i] = l->delta[i] != 0;
	}
	for (i = 0; i < l->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[l->units[i].unit];
		uint64_t to = l->block_start + l->units[i].off;

		for (j = 0; j < u->nr_funcs; j++) {
			const struct cachepin_func *f = &bin->funcs[u->first_func + j];

			l->delta[u->first_func + j] = (int64_t)(to + (f->addr - u->addr) - f->addr);
			l->known[u->first_func + j] = true;
		}
	}
	for (l->nr_known = 0, i = 0; i < bin->nr_funcs; i++)
		l->nr_known += l->known[i];
	return 0;
}

/* Is SECTION the main text a linker script's TEXT_MAIN takes (".text", ".text.foo")? */
static bool main_text(const char *section)
{
	return !strncmp(section, ".text", 5) && (!section[5] || section[5] == '.') &&
	       !cachepin_kernel_after_text(section);
}

/* The unit of entry E, and the offset of its symbol in it; NULL if none. */
static const struct cachepin_unit *entry_unit(const struct cachepin_binary *bin,
					      const struct cachepin_align_entry *e, uint64_t *symoff)
{
	const struct cachepin_func *f;
	size_t i;

	*symoff = 0;
	if (e->symbol) {
		f = cachepin_binary__lookup(bin, e->symbol, e->object, NULL);
		if (!f || f->unit < 0 || strcmp(bin->units[f->unit].section, e->section))
			return NULL;
		*symoff = f->addr - bin->units[f->unit].addr;
		return &bin->units[f->unit];
	}
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		if (!strcmp(u->section, e->section) && u->object && e->object &&
		    !strcmp(u->object, e->object))
			return u;
	}
	return NULL;
}

static bool has_map(const struct cachepin_binary *bin)
{
	size_t i;

	for (i = 0; i < bin->nr_units; i++)
		if (bin->units[i].flags & CACHEPIN_UNIT_FROM_MAP)
			return true;
	return false;
}

/*
 * Where each unit of AL goes: into the block (NEWADDR, IN_BLOCK set)
 * and the output section SEC they come from.  0 or -errno after logging.
 */
static int place_block(const struct cachepin_relink *r, const struct cachepin_align *al,
		       const char *path, uint64_t *block_off, bool *in_block, int *sec)
{
	const struct cachepin_binary *bin = r->bin;
	size_t i;

	/*
	 * The block's output section: the one its units share, or, when
	 * they are orphans of their own, the ".text" the fragment goes into
	 */
	*sec = -1;
	for (i = 0; i < al->nr && *sec < 0; i++) {
		uint64_t symoff;
		const struct cachepin_unit *u = entry_unit(bin, &al->e[i], &symoff);

		if (u && u->outsec >= 0 && !cachepin_relink__orphan(r, (uint32_t)(u - bin->units)))
			*sec = u->outsec;
	}
	for (i = 0; *sec < 0 && i < bin->nr_secs; i++)
		if (bin->secs[i].exec && !strcmp(bin->secs[i].name, ".text"))
			*sec = (int)i;
	for (i = 0; i < al->nr; i++) {
		const struct cachepin_align_entry *e = &al->e[i];
		const struct cachepin_unit *u;
		uint64_t symoff;
		size_t k;

		u = entry_unit(bin, e, &symoff);
		if (!u) {
			pr_warn("'%s': %s (%s:%s) is not a unit of '%s'\n", path,
				e->symbol ? e->symbol : "a fill unit", e->object ? e->object : "?",
				e->section, bin->path);
			pr_warn("hint: lay out a plan on the binary it was made for ('cachepin check' compares them)\n");
			return -ENOENT;
		}
		k = (size_t)(u - bin->units);
		if (in_block[k] || e->off < symoff || u->outsec < 0 ||
		    (u->outsec != *sec && !cachepin_relink__orphan(r, (uint32_t)k))) {
			pr_warn("'%s': %s (%s:%s) %s\n", path, e->symbol ? e->symbol : "a fill unit",
				e->object ? e->object : "?", e->section,
				in_block[k] ? "is listed twice" :
				e->off < symoff ? "has an offset before its unit's start" :
				"is in another output section than the plan's other units");
			return -EINVAL;
		}
		in_block[k] = true;
		block_off[k] = e->off - symoff;
	}
	return 0;
}

int cachepin_layout__from_align(struct cachepin_layout *l, const struct cachepin_binary *bin,
				const struct cachepin_align *al, const char *path)
{
	struct cachepin_relink r;
	uint32_t culprit;
	int err;

	memset(l, 0, sizeof(*l));
	if ((err = cachepin_relink__from_align(&r, bin, al, path)))
		return err;
	if ((err = cachepin_relink__lay(&r, &culprit))) {
		if (culprit != UINT32_MAX)
			pr_warn("'%s': %s does not fit where the plan puts it\n", path,
				bin->units[culprit].section);
	} else {
		err = cachepin_relink__layout(&r, l);
		l->block_start = r.block_start;
		l->block_size = r.block_size;
	}
	cachepin_relink__release(&r);
	return err;
}

int cachepin_relink__from_align(struct cachepin_relink *rl, const struct cachepin_binary *bin,
				const struct cachepin_align *al, const char *path)
{
	struct cachepin_relink r = { 0 };
	uint64_t *block_off = NULL, start, end;
	const struct cachepin_func *tf;
	bool *in_block = NULL;
	size_t i, ins;
	uint32_t first = UINT32_MAX, prev = UINT32_MAX;
	int sec, err;

	memset(rl, 0, sizeof(*rl));

	if (!al->nr)
		return cachepin_relink__init(rl, bin);	/* the plan moves nothing */
	if (!has_map(bin)) {
		pr_warn("'%s': laying out a plan needs the link map of '%s' (the units' alignment)\n",
			path, bin->path);
		pr_warn("hint: give it with -m\n");
		return -EINVAL;
	}
	if ((err = cachepin_relink__init(&r, bin)))
		return err;
	err = -ENOMEM;
	block_off = calloc(bin->nr_units + 1, sizeof(*block_off));
	in_block = calloc(bin->nr_units + 1, sizeof(*in_block));
	if (!block_off || !in_block) {
		pr_warn("out of memory\n");
		goto out;
	}
	if ((err = place_block(&r, al, path, block_off, in_block, &sec)))
		goto out;
	/* the block goes where the section's main text begins */
	for (ins = 0; ins < bin->nr_units; ins++)
		if (bin->units[ins].outsec == sec && main_text(bin->units[ins].section))
			break;
	if (ins == bin->nr_units)
		for (ins = 0; ins < bin->nr_units && bin->units[ins].outsec != sec; ins++)
			;
	/*
	 * What comes before the block stays, so its start is known: the
	 * block's units at their offsets from it, in offset order, before
	 * the main text's first unit; the rest follows as linked.
	 */
	start = align_up(bin->units[ins].addr - r.pad[ins], al->block_align);
	for (;;) {
		uint32_t next = UINT32_MAX;

		for (i = 0; i < bin->nr_units; i++)
			if (in_block[i] && (prev == UINT32_MAX || block_off[i] > block_off[prev] ||
					    (block_off[i] == block_off[prev] && i > prev)) &&
			    (next == UINT32_MAX || block_off[i] < block_off[next] ||
			     (block_off[i] == block_off[next] && i < next)))
				next = (uint32_t)i;
		if (next == UINT32_MAX)
			break;
		if (first == UINT32_MAX) {
			cachepin_relink__move(&r, next, (uint32_t)ins, false);
			first = next;
		} else {
			cachepin_relink__move(&r, next, prev, true);
		}
		r.at[next] = start + block_off[next];
		r.pad[next] = 0;
		r.sec[next] = sec;
		prev = next;
	}
	/* the main text's first unit now follows the block: no gap of its own */
	if (!in_block[ins])
		r.pad[ins] = 0;
	tf = al->tail_symbol ? cachepin_binary__lookup(bin, al->tail_symbol, NULL, NULL) : NULL;
	if (tf && tf->unit >= 0 && bin->units[tf->unit].outsec == sec && !in_block[tf->unit]) {
		r.pad[tf->unit] = 0;
		if (r.align[tf->unit] < al->block_align)
			r.align[tf->unit] = al->block_align;
	}
	for (i = 0, end = start; i < bin->nr_units; i++)
		if (in_block[i] && start + block_off[i] + bin->units[i].size > end)
			end = start + block_off[i] + bin->units[i].size;
	r.block_start = start;
	r.block_size = end - start;
	r.block_align = al->block_align;
	err = 0;
out:
	free(block_off);
	free(in_block);
	if (err)
		cachepin_relink__release(&r);
	else
		*rl = r;
	return err;
}

/* ---- the editable link ---- */

/* qsort()'s context: the binary whose sections are sorted */
static const struct cachepin_binary *sec_bin;

static int cmp_sec_addr(const void *pa, const void *pb)
{
	const struct cachepin_section *a = &sec_bin->secs[*(const uint32_t *)pa];
	const struct cachepin_section *b = &sec_bin->secs[*(const uint32_t *)pb];

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

bool cachepin_relink__orphan(const struct cachepin_relink *r, uint32_t u)
{
	const struct cachepin_unit *un = &r->bin->units[u];

	return un->outsec >= 0 && !strcmp(r->bin->secs[un->outsec].name, un->section);
}

int cachepin_relink__init(struct cachepin_relink *r, const struct cachepin_binary *bin)
{
	size_t n = bin->nr_units + 1, i;
	uint64_t end = 0;
	int last_sec = -1;

	memset(r, 0, sizeof(*r));
	r->bin = bin;
	r->order = malloc(n * sizeof(*r->order));
	r->size = calloc(n, sizeof(*r->size));
	r->align = calloc(n, sizeof(*r->align));
	r->pad = calloc(n, sizeof(*r->pad));
	r->at = calloc(n, sizeof(*r->at));
	r->addr = calloc(n, sizeof(*r->addr));
	r->sec = calloc(n, sizeof(*r->sec));
	r->secs = calloc(bin->nr_secs + 1, sizeof(*r->secs));
	if (!r->order || !r->size || !r->align || !r->pad || !r->at || !r->addr || !r->sec || !r->secs) {
		cachepin_relink__release(r);
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	/* units are sorted by address: that is the link order */
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];
		uint64_t a = u->align ? u->align : 1;

		r->size[i] = u->size;
		r->align[i] = a;
		r->addr[i] = u->addr;
		r->sec[i] = u->outsec;
		if (u->outsec < 0 || !bin->secs[u->outsec].exec)
			continue;
		if (u->outsec != last_sec)
			end = bin->secs[u->outsec].addr;
		last_sec = u->outsec;
		/* the gap beyond the alignment is the script's: keep it */
		if (u->addr > align_up(end, a))
			r->pad[i] = u->addr - end;
		r->order[r->nr++] = (uint32_t)i;
		if (u->addr + u->size > end)
			end = u->addr + u->size;
	}
	for (i = 0; i < bin->nr_secs; i++)
		if (bin->secs[i].exec)
			r->secs[r->nr_secs++] = (uint32_t)i;
	sec_bin = bin;
	sort_n(r->secs, r->nr_secs, sizeof(*r->secs), cmp_sec_addr);
	return 0;
}

int cachepin_relink__lay(struct cachepin_relink *r, uint32_t *culprit)
{
	const struct cachepin_binary *bin = r->bin;
	uint64_t pos = 0, prev_end = 0, a;
	uint32_t *had = calloc(bin->nr_secs + 1, sizeof(*had));
	size_t i, si = 0;
	int sec = -1;

	*culprit = UINT32_MAX;
	if (!had) {
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	/* the sections that held units (laid there now or not) */
	for (i = 0; i < r->nr; i++)
		had[bin->units[r->order[i]].outsec]++;
	for (i = 0; i < r->nr; i++) {
		uint32_t k = r->order[i];

		if (r->sec[k] != sec) {
			const struct cachepin_section *s = &bin->secs[r->sec[k]];
			bool first = sec < 0;

			/*
			 * A section starts its original distance after the end of
			 * the sections before it, as laid now: what they grew
			 * moves it, what left them (orphans pulled into a script's
			 * section) gives its room back
			 */
			while (si < r->nr_secs && bin->secs[r->secs[si]].addr < s->addr) {
				uint32_t ti = r->secs[si++];
				const struct cachepin_section *t = &bin->secs[ti];

				/* a section without units stays in the gap before this one */
				if (had[ti] && t->addr + t->size > prev_end)
					prev_end = t->addr + t->size;
			}
			if (first)
				pos = s->addr;
			else
				pos = align_up(pos + (s->addr > prev_end ? s->addr - prev_end : 0), s->align);
			sec = r->sec[k];
		}
		a = align_up(pos + r->pad[k], r->align[k]);
		if (r->at[k]) {
			if (r->at[k] < pos) {
				*culprit = k;
				free(had);
				return -ERANGE;
			}
			a = r->at[k];
		}
		r->addr[k] = a;
		pos = a + r->size[k];
	}
	free(had);
	return 0;
}

void cachepin_relink__move(struct cachepin_relink *r, uint32_t u, uint32_t ref, bool after)
{
	size_t i, from = r->nr, to;

	for (i = 0; i < r->nr; i++)
		if (r->order[i] == u)
			from = i;
	if (from == r->nr || u == ref)
		return;
	memmove(r->order + from, r->order + from + 1, (r->nr - from - 1) * sizeof(*r->order));
	for (to = 0; to < r->nr - 1 && r->order[to] != ref; to++)
		;
	if (after && to < r->nr - 1)
		to++;
	memmove(r->order + to + 1, r->order + to, (r->nr - 1 - to) * sizeof(*r->order));
	r->order[to] = u;
}

int cachepin_relink__layout(const struct cachepin_relink *r, struct cachepin_layout *l)
{
	const struct cachepin_binary *bin = r->bin;
	size_t i;
	int err;

	if ((err = layout_alloc(l, bin)))
		return err;
	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i];

		if (f->unit < 0)
			continue;
		l->delta[i] = (int64_t)(r->addr[f->unit] - bin->units[f->unit].addr);
		l->known[i] = true;
		l->nr_known++;
	}
	return 0;
}

void cachepin_relink__release(struct cachepin_relink *r)
{
	free(r->order);
	free(r->size);
	free(r->align);
	free(r->pad);
	free(r->at);
	free(r->addr);
	free(r->sec);
	free(r->secs);
	memset(r, 0, sizeof(*r));
}

int cachepin_layout__from_relink(struct cachepin_layout *l, const struct cachepin_binary *bin,
				 const struct cachepin_binary *new)
{
	size_t i;
	int err;

	if ((err = layout_alloc(l, bin)))
		return err;
	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i], *g;
		bool amb_old = false, amb_new = false;

		cachepin_binary__lookup(bin, f->name, NULL, &amb_old);
		g = cachepin_binary__lookup(new, f->name, NULL, &amb_new);
		if (!g || amb_old || amb_new || g->size != f->size)
			continue;
		l->delta[i] = (int64_t)(g->addr - f->addr);
		l->known[i] = true;
		l->nr_known++;
	}
	return 0;
}

int cachepin_layout__from_symmap(struct cachepin_layout *l, const struct cachepin_binary *bin,
				 const struct cachepin_symmap *sm, size_t *missing)
{
	size_t i;
	int err;

	*missing = 0;
	if ((err = layout_alloc(l, bin)))
		return err;
	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i];
		bool amb = false;
		uint64_t a;

		if (f->flags & CACHEPIN_FUNC_SYNTHETIC) {
			l->known[i] = true;	/* placed at run time: where it is */
			l->nr_known++;
			continue;
		}
		cachepin_binary__lookup(bin, f->name, NULL, &amb);
		if (amb || cachepin_symmap__lookup(sm, f->name, &a)) {
			(*missing)++;
			continue;
		}
		/* a Thumb symbol's address has bit 0 set; the function's has not */
		if (f->flags & CACHEPIN_FUNC_THUMB)
			a &= ~1ULL;
		l->delta[i] = (int64_t)(a - f->addr);
		l->known[i] = true;
		l->nr_known++;
	}
	return 0;
}

int64_t cachepin_layout__delta(const struct cachepin_layout *l, uint64_t addr, bool *known,
			       const struct cachepin_func **hint)
{
	const struct cachepin_func *f = hint ? *hint : NULL;
	size_t k;

	if (!f || addr < f->addr || addr >= f->addr + f->size) {
		f = cachepin_binary__find_func(l->bin, addr);
		if (hint)
			*hint = f;
	}
	k = f ? (size_t)(f - l->bin->funcs) : 0;
	if (known)
		*known = f && l->known[k];
	return f && l->known[k] ? l->delta[k] : 0;
}

int cachepin_layout__pin_align(struct cachepin_layout *l, const struct cachepin_binary *bin,
				const struct cachepin_align *al, uint64_t start)
{
	size_t i, k;
	int err;

	if ((err = layout_alloc(l, bin)))
		return err;
	l->block_start = start;
	for (i = 0; i < al->nr; i++) {
		const struct cachepin_align_entry *e = &al->e[i];
		struct cachepin_align_entry anyobj = *e;
		const struct cachepin_unit *u;
		uint64_t symoff, to;

		/* a fill unit without a symbol is cold: where it is costs nothing */
		if (!e->symbol)
			continue;
		/* a build in another directory names its objects otherwise */
		anyobj.object = NULL;
		u = entry_unit(bin, e, &symoff);
		if (!u)
			u = entry_unit(bin, &anyobj, &symoff);
		if (!u || e->off < symoff)
			continue;
		to = start + e->off - symoff;
		for (k = 0; k < u->nr_funcs; k++) {
			size_t fi = u->first_func + k;

			l->delta[fi] = (int64_t)(to - u->addr);
			if (!l->known[fi])
				l->nr_known++;
			l->known[fi] = true;
		}
		if (to + u->size - start > l->block_size)
			l->block_size = to + u->size - start;
	}
	return 0;
}

/* The lowest set bit of V, at most MAX (MAX for 0). */
static uint64_t low_bit(uint64_t v, uint64_t max)
{
	uint64_t a = v & -v;

	return !a || a > max ? max : a;
}

int cachepin_relink__block(const struct cachepin_relink *r, const struct cachepin_model *m,
			   uint64_t max_align, struct cachepin_layout *l)
{
	const struct cachepin_binary *bin = r->bin;
	size_t i, first = r->nr, last = 0, k;
	double *w;
	int sec;

	/* a block of its own; where L puts every function stays */
	free(l->units);
	*l = (struct cachepin_layout){ .bin = bin, .delta = l->delta, .known = l->known,
				       .nr_known = l->nr_known };
	for (i = 0; i < r->nr; i++) {
		uint32_t u = r->order[i];

		if (r->addr[u] == bin->units[u].addr && r->size[u] == bin->units[u].size)
			continue;
		if (first == r->nr)
			first = i;
		last = i;
	}
	if (first == r->nr) {
		l->unchanged = true;
		return 0;
	}
	/* the block starts where the fragment goes: the section's main text */
	sec = r->sec[r->order[first]];
	for (i = 0; i < r->nr; i++)
		if (r->sec[r->order[i]] == sec && main_text(bin->units[r->order[i]].section))
			break;
	if (i < first)
		first = i;
	w = calloc(bin->nr_funcs + 1, sizeof(*w));
	l->units = calloc(last - first + 2, sizeof(*l->units));
	if (!w || !l->units) {
		free(w);
		free(l->units);
		l->units = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < m->nr_items; i++)
		if (m->items[i].func < bin->nr_funcs)
			w[m->items[i].func] += m->items[i].weight;
	l->block_start = r->addr[r->order[first]];
	/* a plan's block keeps the plan's alignment: its sets in every cache it was planned for */
	l->block_align = low_bit(l->block_start, r->block_align > max_align ? r->block_align : max_align);
	for (i = first; i <= last; i++) {
		uint32_t u = r->order[i];
		const struct cachepin_unit *un = &bin->units[u];
		struct cachepin_layout_unit *pu;

		if (r->sec[u] != sec)
			break;
		pu = &l->units[l->nr_units++];
		pu->unit = u;
		pu->off = r->addr[u] - l->block_start;
		pu->size = r->size[u];
		pu->align = r->align[u];
		for (k = 0; k < un->nr_funcs; k++)
			pu->weight += w[un->first_func + k];
		pu->hot = pu->weight > 0;
		l->nr_hot += pu->hot;
		l->nr_fill += !pu->hot;
		l->block_size = pu->off + pu->size;
	}
	free(w);
	return 0;
}
