// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Setting up a search: the target geometries and the block alignment,
 * the hot units (movable units holding modelled items, densest first),
 * the shorter search string with its items (hot ones by unit, fixed
 * ones by address) and, per geometry, the set tables with the fixed
 * occupants the planner colours around.
 */
#include "plan-int.h"
#include "kernel.h"

#define SEARCH_REFS_MIN (128u << 10)
#define SEARCH_REFS_MAX (512u << 10)
#define SEARCH_REFS_PER_ITEM 32	/* so that most granules get a fetch */

uint64_t cachepin_plan_block_align(const struct cachepin_plan_opts *o)
{
	uint64_t a = 0;
	size_t i;

	for (i = 0; i < o->nr_caches; i++)
		if (o->caches[i].way_span > a)
			a = o->caches[i].way_span;
	return a;
}

/* The geometries of the options; the block alignment; *MAXWAYS. */
static int setup_geos(struct planner *pl, struct cachepin_plan *plan, uint32_t *maxways)
{
	const struct cachepin_plan_opts *o = pl->o;
	size_t i;

	if (!o->nr_caches || o->nr_caches > CACHEPIN_PLAN_MAX_GEO)
		return -EINVAL;
	pl->nr_geo = o->nr_caches;
	for (i = 0; i < o->nr_caches; i++) {
		pl->geo[i].c = &o->caches[i];
		pl->geo[i].scale = 1;
		if (o->caches[i].ways > *maxways)
			*maxways = o->caches[i].ways;
	}
	/* offsets repeat their sets, in every geometry, after the largest way span */
	plan->layout.block_align = cachepin_plan_block_align(o);
	pl->span_bytes = plan->layout.block_align;
	return 0;
}

static int cmp_density(const void *a, const void *b)
{
	const struct hunit *x = a, *y = b;
	double dx = x->weight / (double)(x->size ? x->size : 1);
	double dy = y->weight / (double)(y->size ? y->size : 1);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return (x->unit > y->unit) - (x->unit < y->unit);
}

/*
 * Hot units: movable units holding modelled items, each with the weight
 * of its items, into pl->hu (UNIT_HU: unit -> index); *LOWEST the lowest
 * address among them.  0 or -ENOMEM.
 */
static int collect_hot(struct planner *pl, struct cachepin_plan *plan, int32_t *unit_hu,
		       uint64_t *lowest)
{
	const struct cachepin_model *m = pl->m;
	const struct cachepin_binary *bin = pl->bin;
	size_t i, cap_hu = 0;

	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *mi = &m->items[i];
		const struct cachepin_func *f = &bin->funcs[mi->func];
		const struct cachepin_unit *u = cachepin_binary__func_unit(bin, f);
		struct hunit *h;

		if (!mi->count)
			continue;
		if (!u || !(u->flags & CACHEPIN_UNIT_MOVABLE) || (u->flags & CACHEPIN_UNIT_FIXED)) {
			plan->hot_weight_fixed += mi->weight;
			continue;
		}
		plan->hot_weight_placed += mi->weight;
		if (unit_hu[f->unit] < 0) {
			if (GROW(pl->hu, cap_hu, pl->nr_hu + 1))
				return -ENOMEM;
			h = &pl->hu[pl->nr_hu];
			*h = (struct hunit){
				.unit = (uint32_t)f->unit, .size = u->size,
				.align = u->align ? u->align : 4, .off = -1,
			};
			unit_hu[f->unit] = (int32_t)pl->nr_hu++;
			if (u->addr < *lowest)
				*lowest = u->addr;
		}
		pl->hu[unit_hu[f->unit]].weight += mi->weight;
	}
	return 0;
}

/*
 * A kernel's text after TEXT_TEXT (SCHED_TEXT and on) starts at a
 * multiple of the block alignment in a relink with any plan, as the hook
 * ends TEXT_TEXT there (see the kbuild patches): from the lowest such
 * unit above the hot units to the end of its output section, the code
 * moves by the distance to that multiple.  Unplanned links have it
 * elsewhere: 0x1598 bytes off on the router kernel, which put its
 * hottest fixed code (the spinlocks) in other sets than the planner
 * coloured around.
 */
static void setup_tail(struct planner *pl, struct cachepin_plan *plan, uint64_t lowest)
{
	const struct cachepin_binary *bin = pl->bin;
	const struct cachepin_unit *t = NULL;
	size_t i;

	if (!cachepin_binary__is_kernel(bin))
		return;
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		if (u->addr > lowest && u->outsec >= 0 && cachepin_kernel_after_text(u->section) &&
		    (!t || u->addr < t->addr))
			t = u;
	}
	if (!t)
		return;
	plan->layout.tail_from = t->addr;
	plan->layout.tail_to = bin->secs[t->outsec].addr + bin->secs[t->outsec].size;
	plan->layout.tail_shift = align_up(t->addr, plan->layout.block_align) - t->addr;
}

/*
 * The alignment of hot unit H with G bytes of room for growth after each.
 * With a line of room or more no two hot units share a line, and one
 * that starts inside a line spends a line more than it needs at its
 * start, or at its end: they start on lines of the smallest line size
 * (measured, router-lab, 32K:4:32 LRU on the second half of trace.log,
 * with 64 bytes of room: the plan from router.profile 206,797 misses
 * with hot units at any 4-byte offset, 180,834 at line starts; from the
 * first half's log 93,520 and 92,298; from its profile 122,223 and
 * 114,618; the bench's programs, cachegrind, the plan for each of 9
 * cells: 5 fewer misses, 4 more, +1.3 % in the geometric mean, within
 * what one recording moves them).  With less room two units may share
 * a line: their own.
 */
static uint64_t hot_align(const struct planner *pl, const struct hunit *h, uint64_t g)
{
	uint64_t line = UINT64_MAX;
	size_t gi;

	for (gi = 0; gi < pl->nr_geo; gi++)
		if (pl->geo[gi].c->line < line)
			line = pl->geo[gi].c->line;
	return g >= line && h->align < line ? line : h->align;
}

/*
 * The bytes of the hot units packed in density order, as the density
 * candidate packs them: each at its alignment after the one before and
 * G bytes of room after it, rounded to its own alignment.
 */
static uint64_t packed_bytes(const struct planner *pl, uint64_t g)
{
	uint64_t cur = 0;
	size_t i;

	for (i = 0; i < pl->nr_hu; i++) {
		uint64_t a = hot_align(pl, &pl->hu[i], g);

		cur = align_up(cur, a) + align_up(pl->hu[i].size + g, a);
	}
	return cur;
}

/* The smallest cache planned for. */
static uint64_t smallest_cache(const struct planner *pl)
{
	uint64_t smallest = UINT64_MAX;
	size_t i;

	for (i = 0; i < pl->o->nr_caches; i++)
		if (pl->o->caches[i].size < smallest)
			smallest = pl->o->caches[i].size;
	return smallest;
}

/*
 * The hot units to place, densest first (at most max_hot of them), into
 * pl->hu and UNIT_HU; the block base and the room it starts with, with
 * ROOM each unit's room for growth.  0, -ENOENT (nothing hot is movable), or -ENOMEM.
 */
static int setup_hot(struct planner *pl, struct cachepin_plan *plan, int32_t *unit_hu, bool room)
{
	const struct cachepin_plan_opts *o = pl->o;
	uint64_t hot_bytes = 0, lowest = UINT64_MAX, packed;
	size_t i;
	int err;

	for (i = 0; i < pl->bin->nr_units; i++)
		unit_hu[i] = -1;
	if ((err = collect_hot(pl, plan, unit_hu, &lowest)))
		return err;
	if (!pl->nr_hu)
		return -ENOENT;	/* said once, by cachepin_plan__run() */
	sort_n(pl->hu, pl->nr_hu, sizeof(*pl->hu), cmp_density);
	if (o->max_hot && pl->nr_hu > o->max_hot)
		pl->nr_hu = o->max_hot;
	for (i = 0; i < pl->bin->nr_units; i++)
		unit_hu[i] = -1;
	/*
	 * The methods place the units packed, each on a line of its own
	 * where there is room for growth of a line or more, and the room
	 * is made after them (plan-room.c) without a change of set.
	 */
	plan->layout.growth = pl->growth = room ? o->growth : 0;
	for (i = 0; i < pl->nr_hu; i++) {
		struct hunit *h = &pl->hu[i];

		h->align = hot_align(pl, h, pl->growth);
		h->room = align_up(h->size, h->align);
		unit_hu[h->unit] = (int32_t)i;
		hot_bytes += h->room;
	}
	plan->layout.block_start = align_up(lowest, plan->layout.block_align);
	pl->base = plan->layout.block_start;
	setup_tail(pl, plan, lowest);
	/* room: the hot bytes plus a way span of freedom, in whole way spans */
	pl->limit = align_up(hot_bytes + hot_bytes / 4, pl->span_bytes) + pl->span_bytes;
	/*
	 * Where they fit the smallest cache packed, a block no longer than
	 * it gives every line of them a way of its own, sampled or not: the
	 * colourings keep their gaps within that (measured, the README's
	 * 15-object example at 16K:4:32, one recording in eight: the heat
	 * colouring's block of 16,764 bytes, 1,502,778 cachegrind misses
	 * against the link's 793,410 and 2,802 for the packed one).
	 */
	packed = packed_bytes(pl, 0);
	pl->fit_slack = packed <= smallest_cache(pl) ? smallest_cache(pl) - packed : UINT64_MAX;
	return 0;
}

/* The hot unit of model item I (pl->nr_hu: none, or no weight). */
static size_t item_hu(const struct planner *pl, const int32_t *unit_hu, size_t i)
{
	const struct cachepin_model_item *mi = &pl->m->items[i];
	const struct cachepin_func *f = &pl->bin->funcs[mi->func];

	if (!(mi->weight > 0) || f->unit < 0 || unit_hu[f->unit] < 0)
		return pl->nr_hu;
	return (size_t)unit_hu[f->unit];
}

/*
 * The items of the search string: hot ones grouped by unit, in unit
 * offset order; then fixed ones.  CNT: references of each model item in
 * the search string; MAP gets model item -> search item.  Every granule
 * with a weight is an item, also where the string (a window of the run,
 * or too short for a granule of a few samples) does not reference it:
 * the colourings place by the whole profile's rates (measured, the
 * router-lab perf profile: its 128 Ki-reference string referenced 718
 * of the 1,958 hot lines).  A unit's items are in offset order, also
 * where it holds several functions, so that the items of one line are
 * neighbours.  NREFS: the string's length; KEYS: room for nr_items, and
 * FIRST for nr_hu + 1.
 */
static void setup_items(struct planner *pl, struct cachepin_plan *plan, const int32_t *unit_hu,
			const uint32_t *cnt, uint32_t *map, size_t nrefs, uint64_t *keys,
			size_t *first)
{
	const struct cachepin_model *m = pl->m;
	const struct cachepin_binary *bin = pl->bin;
	double scale = m->weight > 0 ? (double)nrefs / m->weight : 0;
	size_t nit = 0, i, k;

	/* the hot units' items grouped by unit (counting sort), each group by offset */
	memset(first, 0, (pl->nr_hu + 1) * sizeof(*first));
	for (i = 0; i < m->nr_items; i++)
		if ((k = item_hu(pl, unit_hu, i)) < pl->nr_hu)
			first[k + 1]++;
	for (k = 0; k < pl->nr_hu; k++)
		first[k + 1] += first[k];
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *mi = &m->items[i];
		const struct cachepin_func *f = &bin->funcs[mi->func];

		if ((k = item_hu(pl, unit_hu, i)) >= pl->nr_hu)
			continue;
		/* a unit is far smaller than 4 GiB: its offset, then the item */
		keys[first[k]++] = (f->addr - bin->units[f->unit].addr + mi->off) << 32 | i;
	}
	for (k = pl->nr_hu; k > 0; k--)
		first[k] = first[k - 1];
	first[0] = 0;
	for (k = 0; k < pl->nr_hu; k++) {
		struct hunit *h = &pl->hu[k];

		sort_n(keys + first[k], first[k + 1] - first[k], sizeof(*keys), cachepin_cmp_u64);
		h->first_item = (uint32_t)nit;
		for (i = first[k]; i < first[k + 1]; i++) {
			uint32_t x = (uint32_t)keys[i];
			const struct cachepin_model_item *mi = &m->items[x];

			map[x] = (uint32_t)nit;
			pl->it[nit++] = (struct sitem){
				.func = mi->func, .hunit = (int32_t)k, .uoff = keys[i] >> 32,
				.count = cnt[x], .rate = scale * mi->weight,
			};
		}
		h->nr_items = (uint32_t)(nit - h->first_item);
	}
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *mi = &m->items[i];
		const struct cachepin_func *f = &bin->funcs[mi->func];

		if (!(mi->weight > 0) || (f->unit >= 0 && unit_hu[f->unit] >= 0))
			continue;
		map[i] = (uint32_t)nit;
		pl->it[nit] = (struct sitem){
			.func = mi->func, .hunit = -1, .count = cnt[i], .rate = scale * mi->weight,
			.addr = cachepin_layout__tail_addr(&plan->layout, f->addr + mi->off),
		};
		/*
		 * Where the block grows past the tail's start, the relink
		 * takes the tail whole block alignments further (its sets
		 * stay): searched, it is far from any block, so that no line
		 * of the block is taken for one of the tail's.
		 */
		if (cachepin_layout__in_tail(&plan->layout, f->addr + mi->off))
			pl->it[nit].addr += TAIL_FAR;
		nit++;
		plan->nr_unplaceable++;
	}
	pl->nr_it = nit;
}

/*
 * The search string of REFS (NREFS model items) as pl->it and, per
 * item, the positions of its references (CSR, in string order).
 * 0 or -ENOMEM.
 */
static int setup_string(struct planner *pl, struct cachepin_plan *plan, const int32_t *unit_hu,
			const uint32_t *refs, size_t nrefs)
{
	size_t nr_items = pl->m->nr_items, i, k;
	uint32_t *cnt = calloc(nr_items + 1, sizeof(*cnt));
	uint32_t *map = malloc((nr_items + 1) * sizeof(*map));
	uint32_t *fillp = NULL;
	uint64_t *keys = malloc((nr_items + 1) * sizeof(*keys));
	size_t *first = malloc((pl->nr_hu + 2) * sizeof(*first));
	int err = -ENOMEM;

	pl->it = calloc(nr_items + 1, sizeof(*pl->it));
	pl->pos = malloc((nrefs + 1) * sizeof(*pl->pos));
	if (!cnt || !map || !pl->it || !pl->pos || !keys || !first)
		goto out;
	for (i = 0; i < nrefs; i++)
		cnt[refs[i]]++;
	setup_items(pl, plan, unit_hu, cnt, map, nrefs, keys, first);
	for (i = 0, k = 0; i < pl->nr_it; i++) {
		pl->it[i].first_pos = (uint32_t)k;
		k += pl->it[i].count;
	}
	fillp = calloc(pl->nr_it + 1, sizeof(*fillp));
	if (!fillp)
		goto out;
	for (i = 0; i < nrefs; i++) {
		uint32_t ii = map[refs[i]];

		pl->pos[pl->it[ii].first_pos + fillp[ii]++] = (uint32_t)i;
	}
	err = 0;
out:
	free(fillp);
	free(keys);
	free(first);
	free(cnt);
	free(map);
	return err;
}

/* Per geometry: the set tables, and the fixed items as members.  0 or -ENOMEM. */
static int setup_tables(struct planner *pl, uint32_t maxways)
{
	size_t gi, i;
	int err;

	pl->lru = calloc(maxways + 1, sizeof(*pl->lru));
	if (!pl->lru)
		return -ENOMEM;
	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];
		uint32_t sets = g->c->sets;

		g->members = calloc(sets, sizeof(*g->members));
		g->nmem = calloc(sets, sizeof(*g->nmem));
		g->capmem = calloc(sets, sizeof(*g->capmem));
		g->set_miss = calloc(sets, sizeof(*g->set_miss));
		g->cnt = calloc(sets, sizeof(*g->cnt));
		g->rate = calloc(sets, sizeof(*g->rate));
		g->sets = malloc((size_t)sets * 2 * sizeof(*g->sets));
		g->newmiss = malloc((size_t)sets * 2 * sizeof(*g->newmiss));
		if (!g->members || !g->nmem || !g->capmem || !g->set_miss || !g->cnt || !g->rate ||
		    !g->sets || !g->newmiss)
			return -ENOMEM;
		/* fixed occupants */
		for (i = 0; i < pl->nr_it; i++) {
			const struct sitem *it = &pl->it[i];
			uint32_t set = addr_set(g, it->addr);

			if (it->hunit >= 0)
				continue;
			if ((err = cachepin_plan_member_add(g, set, (uint32_t)i)))
				return err;
			g->cnt[set]++;
			g->rate[set] += it->rate;
		}
	}
	return 0;
}

int cachepin_plan_setup(struct planner *pl, struct cachepin_plan *plan, bool room)
{
	const struct cachepin_model *m = pl->m;
	int32_t *unit_hu = NULL;
	uint32_t *refs = NULL, maxways = 0;
	size_t nrefs = 0, L = m->nr_items * SEARCH_REFS_PER_ITEM;
	int err;

	if ((err = setup_geos(pl, plan, &maxways)))
		return err;
	unit_hu = malloc((pl->bin->nr_units + 1) * sizeof(*unit_hu));
	if (!unit_hu)
		return -ENOMEM;
	if ((err = setup_hot(pl, plan, unit_hu, room)))
		goto out;
	L = L < SEARCH_REFS_MIN ? SEARCH_REFS_MIN : L > SEARCH_REFS_MAX ? SEARCH_REFS_MAX : L;
	refs = cachepin_model__string(m, L, &nrefs);
	err = refs ? setup_string(pl, plan, unit_hu, refs, nrefs) : -ENOMEM;
	plan->search_refs = nrefs;
	if (!err)
		err = setup_tables(pl, maxways);
out:
	free(unit_hu);
	free(refs);
	return err;
}

void cachepin_plan_free(struct planner *pl)
{
	size_t gi;
	uint32_t s;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];

		if (g->members)
			for (s = 0; s < g->c->sets; s++)
				free(g->members[s]);
		free(g->members);
		free(g->nmem);
		free(g->capmem);
		free(g->set_miss);
		free(g->cnt);
		free(g->rate);
		free(g->sets);
		free(g->newmiss);
	}
	free(pl->spans);
	free(pl->hu);
	free(pl->it);
	free(pl->pos);
	free(pl->heap);
	free(pl->lru);
}
