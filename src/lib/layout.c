// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Another layout of a binary without linking it: from a plan's
 * alignment file (GNU ld's placement replayed on the binary's units and
 * their alignment) or from an existing relink (by function name).
 */
#include "cachepin/layout.h"
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
	memset(l, 0, sizeof(*l));
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
static int place_block(const struct cachepin_binary *bin, const struct cachepin_align *al,
		       const char *path, uint64_t *block_off, bool *in_block, int *sec)
{
	size_t i;

	*sec = -1;
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
		if (in_block[k] || e->off < symoff || u->outsec < 0 || (*sec >= 0 && u->outsec != *sec)) {
			pr_warn("'%s': %s (%s:%s) %s\n", path, e->symbol ? e->symbol : "a fill unit",
				e->object ? e->object : "?", e->section,
				in_block[k] ? "is listed twice" :
				e->off < symoff ? "has an offset before its unit's start" :
				"is in another output section than the plan's other units");
			return -EINVAL;
		}
		*sec = u->outsec;
		in_block[k] = true;
		block_off[k] = e->off - symoff;
	}
	return 0;
}

int cachepin_layout__from_align(struct cachepin_layout *l, const struct cachepin_binary *bin,
				const struct cachepin_align *al, const char *path)
{
	uint64_t *newaddr = NULL, *block_off = NULL, start, pos, end = 0;
	const struct cachepin_func *tf;
	const struct cachepin_section *s;
	bool *in_block = NULL, *placed = NULL;
	size_t i, ins, tail = SIZE_MAX;
	int64_t grown;
	int sec, err;

	if ((err = layout_alloc(l, bin)))
		return err;
	if (!al->nr) {
		/* the plan moves nothing: every function stays */
		for (i = 0; i < bin->nr_funcs; i++)
			l->known[i] = true;
		l->nr_known = bin->nr_funcs;
		return 0;
	}
	if (!has_map(bin)) {
		pr_warn("'%s': laying out a plan needs the link map of '%s' (the units' alignment)\n",
			path, bin->path);
		pr_warn("hint: give it with -m\n");
		err = -EINVAL;
		goto out;
	}
	err = -ENOMEM;
	newaddr = calloc(bin->nr_units + 1, sizeof(*newaddr));
	block_off = calloc(bin->nr_units + 1, sizeof(*block_off));
	in_block = calloc(bin->nr_units + 1, sizeof(*in_block));
	placed = calloc(bin->nr_units + 1, sizeof(*placed));
	if (!newaddr || !block_off || !in_block || !placed) {
		pr_warn("out of memory\n");
		goto out;
	}
	if ((err = place_block(bin, al, path, block_off, in_block, &sec)))
		goto out;
	s = &bin->secs[sec];
	/* the block goes where the section's main text begins */
	for (ins = 0; ins < bin->nr_units; ins++)
		if (bin->units[ins].outsec == sec && main_text(bin->units[ins].section))
			break;
	if (ins == bin->nr_units)
		for (ins = 0; ins < bin->nr_units && bin->units[ins].outsec != sec; ins++)
			;
	tf = al->tail_symbol ? cachepin_binary__lookup(bin, al->tail_symbol, NULL, NULL) : NULL;
	if (tf && tf->unit >= 0 && bin->units[tf->unit].outsec == sec)
		tail = (size_t)tf->unit;
	start = align_up(bin->units[ins].addr, al->block_align);
	end = start;
	for (i = 0; i < bin->nr_units; i++) {
		if (!in_block[i])
			continue;
		newaddr[i] = start + block_off[i];
		placed[i] = true;
		if (newaddr[i] + bin->units[i].size > end)
			end = newaddr[i] + bin->units[i].size;
	}
	l->block_start = start;
	l->block_size = end - start;
	/* before the block: as linked; after it, the rest in order */
	for (i = 0, pos = end; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		if (u->outsec != sec || in_block[i])
			continue;
		placed[i] = true;
		if (i < ins) {
			newaddr[i] = u->addr;
			continue;
		}
		if (i == tail)
			pos = align_up(pos, al->block_align);
		pos = align_up(pos, u->align);
		newaddr[i] = pos;
		pos += u->size;
	}
	/* later executable sections move by what this one grew */
	grown = (int64_t)(pos - (s->addr + s->size));
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];
		const struct cachepin_section *t;

		if (placed[i] || u->outsec < 0)
			continue;
		t = &bin->secs[u->outsec];
		placed[i] = true;
		newaddr[i] = u->addr;
		if (t->exec && t->addr > s->addr && grown > 0)
			newaddr[i] = u->addr + (align_up(t->addr + (uint64_t)grown, t->align) - t->addr);
	}
	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i];

		if (f->unit < 0 || !placed[f->unit])
			continue;
		l->delta[i] = (int64_t)(newaddr[f->unit] - bin->units[f->unit].addr);
		l->known[i] = true;
		l->nr_known++;
	}
	err = 0;
out:
	free(newaddr);
	free(block_off);
	free(in_block);
	free(placed);
	if (err)
		cachepin_layout__release(l);
	return err;
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

uint64_t *cachepin_layout__faddr(const struct cachepin_layout *l)
{
	uint64_t *fa = malloc((l->bin->nr_funcs + 1) * sizeof(*fa));
	size_t i;

	if (!fa)
		return NULL;
	for (i = 0; i < l->bin->nr_funcs; i++)
		fa[i] = l->bin->funcs[i].addr + (uint64_t)l->delta[i];
	return fa;
}
