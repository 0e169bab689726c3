// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Re-planning from a previous plan (cachepin plan --keep OLD.align): the
 * hot units of the old plan that are hot again and still fit their slot
 * (their room up to the next kept unit's offset) stay at their offsets,
 * so their lines keep their sets; the search places the others (new hot
 * units, and those grown past their room) around them and moves none of
 * the kept ones.  Two builds planned so stay comparable.
 */
#include <inttypes.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/align.h"
#include "plan-int.h"

struct prev_key {
	char *key;		/* object \037 section */
	uint32_t hu;
	UT_hash_handle hh;
};

static void free_keys(struct prev_key *h)
{
	struct prev_key *e, *tmp;

	HASH_ITER(hh, h, e, tmp) {
		HASH_DEL(h, e);
		free(e->key);
		free(e);
	}
}

static char *unit_key(const char *object, const char *section)
{
	char *k;

	return asprintf(&k, "%s\037%s", object ? object : "-", section) < 0 ? NULL : k;
}

/*
 * The hot units by object and section, and by section alone (BY_SEC: a
 * build in another directory names its objects otherwise).  0 or -ENOMEM.
 */
static int hot_keys(const struct planner *pl, struct prev_key **out, bool by_sec)
{
	struct prev_key *h = NULL, *e, *dup;
	size_t i;

	for (i = 0; i < pl->nr_hu; i++) {
		const struct cachepin_unit *u = &pl->bin->units[pl->hu[i].unit];

		e = calloc(1, sizeof(*e));
		if (!e || !(e->key = unit_key(by_sec ? NULL : u->object, u->section))) {
			free(e);
			free_keys(h);
			return -ENOMEM;
		}
		e->hu = (uint32_t)i;
		HASH_FIND_STR(h, e->key, dup);
		if (dup) {	/* one name for two units: neither is known by it */
			free(e->key);
			free(e);
			dup->hu = UINT32_MAX;
			continue;
		}
		HASH_ADD_KEYPTR(hh, h, e->key, strlen(e->key), e);
	}
	*out = h;
	return 0;
}

struct match {
	uint32_t hu;
	uint64_t off;		/* the unit's old offset */
};

static int cmp_match(const void *a, const void *b)
{
	const struct match *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->hu > y->hu) - (x->hu < y->hu);
}

/* The hot unit of KEYS named by OBJECT and SECTION, or UINT32_MAX. */
static uint32_t find_key(struct prev_key *keys, const char *object, const char *section)
{
	char *key = unit_key(object, section);
	struct prev_key *k;

	if (!key)
		return UINT32_MAX;
	HASH_FIND_STR(keys, key, k);
	free(key);
	return k ? k->hu : UINT32_MAX;
}

/*
 * Entry E's hot unit in PL (UINT32_MAX: none), by object and section or
 * else by a section name one hot unit has, and its unit offset into *OFF.
 */
static uint32_t entry_unit(const struct planner *pl, struct prev_key *keys[2],
			   const struct cachepin_align_entry *e, uint64_t *off)
{
	uint32_t hu = find_key(keys[0], e->object, e->section);
	uint64_t in;

	if (hu == UINT32_MAX)
		hu = find_key(keys[1], NULL, e->section);
	if (hu == UINT32_MAX)
		return UINT32_MAX;
	in = cachepin_binary__unit_symoff(pl->bin, &pl->bin->units[pl->hu[hu].unit]);
	if (e->off < in)
		return UINT32_MAX;
	*off = e->off - in;
	return hu;
}

/*
 * A map's alignment is a guess, the lowest set bit of the unit's address
 * (an upper bound of the real one); the old plan's, from its own map, is
 * another bound.  The smaller holds for both, so a unit the new link
 * happens to put at a rounder address still fits its old slot.
 */
static void tighter_align(const struct planner *pl, struct hunit *h, uint64_t old)
{
	if (!(pl->bin->units[h->unit].flags & CACHEPIN_UNIT_ALIGN_GUESS) || !old || old >= h->align)
		return;
	h->align = old;
	h->room = align_up(h->size, h->align);
}

int cachepin_plan_keep_prev(struct planner *pl, struct cachepin_plan *plan)
{
	const struct cachepin_align *al = pl->o->prev;
	struct prev_key *keys[2] = { NULL, NULL };
	struct match *mt = NULL;
	size_t nm = 0, i;
	int err;

	if (al->block_align != plan->layout.block_align)
		return -EXDEV;	/* its offsets are not this plan's sets */
	mt = malloc((al->nr + 1) * sizeof(*mt));
	if (!mt || (err = hot_keys(pl, &keys[0], false)) ||
	    (err = hot_keys(pl, &keys[1], true))) {
		free(mt);
		free_keys(keys[0]);
		return -ENOMEM;
	}
	for (i = 0; i < pl->nr_hu; i++)
		pl->hu[i].prev_set = UINT32_MAX;
	for (i = 0; i < al->nr; i++) {
		const struct cachepin_align_entry *e = &al->e[i];
		uint64_t off;
		uint32_t k;

		if (!e->hot)
			continue;
		k = entry_unit(pl, keys, e, &off);
		if (k == UINT32_MAX || pl->hu[k].prev_set != UINT32_MAX) {
			plan->nr_gone++;	/* not hot now, or not one unit */
			continue;
		}
		pl->hu[k].prev_set = e->first_set;
		mt[nm++] = (struct match){ k, off };
		tighter_align(pl, &pl->hu[k], e->align);
	}
	sort_n(mt, nm, sizeof(*mt), cmp_match);
	err = 0;
	for (i = 0; i < nm && !err; i++) {
		struct hunit *h = &pl->hu[mt[i].hu];
		uint64_t next = i + 1 < nm ? mt[i + 1].off : UINT64_MAX;

		/*
		 * Grown into the next kept unit: placed again, the next one
		 * stays.  One with less than the room for growth before the
		 * next stays too (the old plan had less room there, or none).
		 */
		if (mt[i].off + h->size > next || mt[i].off % h->align) {
			pr_debug("%s: %" PRIu64 " bytes at +0x%" PRIx64 ", the next kept unit at +0x%" PRIx64
				 ": placed again\n", pl->bin->units[h->unit].section, h->size, mt[i].off, next);
			plan->nr_replaced++;
			continue;
		}
		if (mt[i].off + h->room > next)
			h->room = next - mt[i].off;
		while (mt[i].off + h->room > pl->limit)
			pl->limit += pl->span_bytes;
		cachepin_plan_proxy_cost(pl, h, mt[i].off, true, +1);
		err = cachepin_plan_place(pl, h, mt[i].off);
		h->frozen = true;
		plan->nr_kept++;
	}
	plan->nr_new = pl->nr_hu - nm;
	free(mt);
	free_keys(keys[0]);
	free_keys(keys[1]);
	return err;
}

void cachepin_plan_keep_count(const struct planner *pl, struct cachepin_plan *plan)
{
	const struct cachepin_cache *c = &pl->o->caches[0];
	const struct cachepin_align *al = pl->o->prev;
	size_t i;

	/* first sets are comparable for the cache the old file was written for */
	if (al->sets != c->sets || al->line != c->line)
		return;
	for (i = 0; i < pl->nr_hu; i++) {
		const struct hunit *h = &pl->hu[i];
		uint64_t in = cachepin_binary__unit_symoff(pl->bin, &pl->bin->units[h->unit]);

		if (h->prev_set == UINT32_MAX || h->off < 0)
			continue;
		if (cachepin_cache__set(c, pl->base + (uint64_t)h->off + in) != h->prev_set)
			plan->nr_set_changed++;
	}
}

static int cmp_pu_off(const void *a, const void *b)
{
	const struct cachepin_layout_unit *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

int cachepin_plan_as_linked(const struct cachepin_model *m, struct cachepin_plan *plan)
{
	const struct cachepin_binary *bin = m->bin;
	uint64_t start, end, used = 0;
	double *w;
	size_t i, n = 0;

	if (cachepin_binary__sym_value(bin, "__cachepin_start", &start) ||
	    cachepin_binary__sym_value(bin, "__cachepin_end", &end) || end <= start)
		return 1;
	w = calloc(bin->nr_units + 1, sizeof(*w));
	plan->layout.units = calloc(bin->nr_units + 1, sizeof(*plan->layout.units));
	if (!w || !plan->layout.units) {
		free(w);
		return -ENOMEM;
	}
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_func *f = &bin->funcs[m->items[i].func];

		if (m->items[i].count && f->unit >= 0)
			w[f->unit] += m->items[i].weight;
	}
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		if (!u->size || u->addr < start || u->addr + u->size > end)
			continue;
		plan->layout.units[n++] = (struct cachepin_layout_unit){
			.unit = (uint32_t)i, .off = u->addr - start, .size = u->size,
			.align = u->align ? u->align : 1, .hot = w[i] > 0, .weight = w[i],
		};
		used += u->size;
		if (w[i] > 0)
			plan->layout.nr_hot++;
		else
			plan->layout.nr_fill++;
	}
	free(w);
	sort_n(plan->layout.units, n, sizeof(*plan->layout.units), cmp_pu_off);
	plan->layout.nr_units = n;
	plan->layout.block_start = start;
	plan->layout.block_size = end - start;
	plan->layout.pad = plan->layout.block_size > used ? plan->layout.block_size - used : 0;
	plan->as_linked = true;
	return 0;
}
