// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The planner (see cachepin/plan.h): greedy set colouring of the hot
 * units, local search on the exact per-set LRU simulation of a shorter
 * reference string, then cold fill and padding.
 *
 * Offsets are relative to the block start, which is aligned to the
 * largest way span of the target geometries; the set of a planned line
 * depends only on its offset.  Fixed code is simulated at its address.
 */
#include <math.h>
#include <stdio.h>
#include "cachepin/plan.h"
#include "internal.h"

#define SEARCH_REFS_MIN (128u << 10)
#define SEARCH_REFS_MAX (512u << 10)
#define SEARCH_REFS_PER_ITEM 32	/* so that most granules get a fetch */
#define DEFAULT_ITERS 6000

struct hunit {			/* a hot unit being placed */
	uint32_t unit;
	uint64_t size, align, room;	/* room = size + slack */
	double weight;
	uint32_t first_item, nr_items;	/* into pl->it (items of this unit) */
	int64_t off;		/* -1 = not placed */
};

struct sitem {			/* an item of the search string */
	uint32_t func;
	int32_t hunit;		/* -1: fixed (keeps its address) */
	uint64_t uoff;		/* offset in its unit (hot) */
	uint32_t count;		/* references in the search string */
	uint32_t first_pos;	/* into pl->pos */
	uint64_t addr;		/* current address */
};

#define MAX_GEO 8

struct geo {			/* per target geometry: set members and misses */
	const struct cachepin_cache *c;
	uint32_t **members;
	uint32_t *nmem, *capmem;
	uint64_t *set_miss;
	uint32_t *cnt;		/* greedy proxy: hot lines per set */
	double *rate;		/* and their fetches */
	double scale;		/* 1 / misses after the greedy pass: geometries weigh alike */
	uint32_t *sets;		/* scratch: touched sets */
	uint64_t *newmiss;
	uint32_t ntouched;
};

struct span {			/* a placed interval of the block */
	uint64_t lo, hi;
};

struct planner {
	const struct cachepin_model *m;
	const struct cachepin_binary *bin;
	const struct cachepin_plan_opts *o;
	struct geo geo[MAX_GEO];
	size_t nr_geo;
	uint64_t base, span_bytes;	/* block base, largest way span */
	struct hunit *hu;
	size_t nr_hu;
	struct sitem *it;
	size_t nr_it;
	uint32_t *pos;		/* positions of each item's references, CSR */
	/* placed intervals, sorted */
	struct span *spans;
	size_t nr_spans, cap_spans;
	uint64_t limit;		/* block bytes available to hot units */
	uint64_t rng;
	/* scratch for merging */
	uint64_t *heap;
	size_t cap_heap;
	uint64_t *lru;
};

static uint64_t rnd(struct planner *pl)
{
	uint64_t x = pl->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return pl->rng = x;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static uint32_t addr_set(const struct geo *g, uint64_t addr)
{
	return cachepin_cache__set(g->c, addr);
}

/* Address of item IT if its unit sits at OFF. */
static uint64_t item_addr_at(const struct planner *pl, const struct sitem *it, uint64_t off)
{
	return pl->base + off + it->uoff;
}

/* ---- the exact per-set simulation ---- */

/* LRU misses of the references of ITEMS (N of them), merged in time order. */
static uint64_t sim_set(struct planner *pl, const struct geo *g, const uint32_t *items, uint32_t n)
{
	uint32_t ways = g->c->ways, fill = 0, k, w, shift = g->c->line_shift;
	uint64_t miss = 0, *h = pl->heap;
	size_t nh = 0, i;

	if (!n)
		return 0;
	/* heap of (position << 24 | k), k < 2^24 members' cursor index */
	if (((size_t)n + 1) * 2 > pl->cap_heap) {
		uint64_t *nhp = realloc(pl->heap, ((size_t)n + 1) * 2 * sizeof(*nhp));

		if (!nhp)
			return UINT64_MAX;
		pl->heap = h = nhp;
		pl->cap_heap = ((size_t)n + 1) * 2;
	}
	{
		/* cursors live in the upper half of the heap buffer */
		uint64_t *cur = h + pl->cap_heap / 2;

		for (k = 0; k < n; k++) {
			const struct sitem *it = &pl->it[items[k]];

			cur[k] = 0;
			if (!it->count)
				continue;
			/* push */
			i = nh++;
			{
				uint64_t key = (uint64_t)pl->pos[it->first_pos] << 24 | k;

				while (i && h[(i - 1) / 2] > key) {
					h[i] = h[(i - 1) / 2];
					i = (i - 1) / 2;
				}
				h[i] = key;
			}
		}
		while (nh) {
			uint64_t top = h[0];
			uint32_t kk = (uint32_t)(top & 0xffffff);
			const struct sitem *it = &pl->it[items[kk]];
			uint64_t line = it->addr >> shift, key;

			/* LRU over the ways: lru[0] is the most recent */
			for (w = 0; w < fill && pl->lru[w] != line; w++)
				;
			if (w == fill) {
				miss++;
				if (fill < ways)
					fill++;
				w = fill - 1;
			}
			for (; w > 0; w--)
				pl->lru[w] = pl->lru[w - 1];
			pl->lru[0] = line;
			/* advance this member's cursor */
			if (++cur[kk] < it->count) {
				key = (uint64_t)pl->pos[it->first_pos + cur[kk]] << 24 | kk;
			} else {
				key = h[--nh];
			}
			/* sift down */
			i = 0;
			for (;;) {
				size_t l = 2 * i + 1, r = l + 1, mm = i;
				uint64_t mk = key;

				if (l < nh && h[l] < mk)
					mm = l, mk = h[l];
				if (r < nh && h[r] < mk)
					mm = r;
				if (mm == i)
					break;
				h[i] = h[mm];
				i = mm;
			}
			if (nh)
				h[i] = key;
		}
	}
	return miss;
}

static int member_add(struct geo *g, uint32_t set, uint32_t item)
{
	if (g->nmem[set] == g->capmem[set]) {
		uint32_t nc = g->capmem[set] ? g->capmem[set] * 2 : 8;
		uint32_t *p = realloc(g->members[set], nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->members[set] = p;
		g->capmem[set] = nc;
	}
	g->members[set][g->nmem[set]++] = item;
	return 0;
}

static void member_del(struct geo *g, uint32_t set, uint32_t item)
{
	uint32_t i;

	for (i = 0; i < g->nmem[set]; i++)
		if (g->members[set][i] == item) {
			g->members[set][i] = g->members[set][--g->nmem[set]];
			return;
		}
}

/* ---- placed intervals ---- */

static size_t span_find(const struct planner *pl, uint64_t lo)
{
	size_t a = 0, b = pl->nr_spans;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (pl->spans[mid].lo < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

static bool span_free(const struct planner *pl, uint64_t lo, uint64_t hi)
{
	size_t i = span_find(pl, lo);

	if (hi > pl->limit)
		return false;
	if (i < pl->nr_spans && pl->spans[i].lo < hi)
		return false;
	if (i > 0 && pl->spans[i - 1].hi > lo)
		return false;
	return true;
}

static int span_add(struct planner *pl, uint64_t lo, uint64_t hi)
{
	size_t i = span_find(pl, lo);

	if (GROW(pl->spans, pl->cap_spans, pl->nr_spans + 1))
		return -ENOMEM;
	memmove(&pl->spans[i + 1], &pl->spans[i], (pl->nr_spans - i) * sizeof(*pl->spans));
	pl->spans[i] = (struct span){ lo, hi };
	pl->nr_spans++;
	return 0;
}

static void span_del(struct planner *pl, uint64_t lo)
{
	size_t i = span_find(pl, lo);

	if (i < pl->nr_spans && pl->spans[i].lo == lo) {
		memmove(&pl->spans[i], &pl->spans[i + 1], (pl->nr_spans - i - 1) * sizeof(*pl->spans));
		pl->nr_spans--;
	}
}

/* Lowest free offset with OFF % span == PHASE for unit H, or -1. */
static int64_t find_slot(const struct planner *pl, const struct hunit *h, uint64_t phase)
{
	uint64_t o;

	for (o = phase; o + h->room <= pl->limit; o += pl->span_bytes)
		if (span_free(pl, o, o + h->room))
			return (int64_t)o;
	return -1;
}

/*
 * Bytes a slot at AT would strand: gaps before and after it too small to
 * take a typical cold unit, which would become padding.
 */
#define SMALL_GAP 192
static uint64_t slot_waste(const struct planner *pl, uint64_t at, const struct hunit *h)
{
	size_t i = span_find(pl, at);
	uint64_t prev_end = i > 0 ? pl->spans[i - 1].hi : 0;
	uint64_t next_lo = i < pl->nr_spans ? pl->spans[i].lo : UINT64_MAX;
	uint64_t w = 0, g;

	g = at - prev_end;
	if (g && g < SMALL_GAP)
		w += g;
	if (next_lo != UINT64_MAX) {
		g = next_lo - (at + h->room);
		if (g && g < SMALL_GAP)
			w += g;
	}
	return w;
}

/*
 * ---- greedy proxy: a set with more than WAYS hot lines costs all its rate ----
 *
 * A set holding exactly WAYS sampled lines has no room for the lines that
 * run but got no samples (a profile never sees them all): it costs a
 * little (HEADROOM_GREEDY of its rate), so that where the hot lines fit
 * with room to spare, the greedy spreads them instead of filling sets to
 * the brim.  The local search weighs the same risk against the exact
 * misses with HEADROOM_EXACT misses per fetch of the lines of full sets.
 */
#define HEADROOM_GREEDY 0.05
#define HEADROOM_EXACT 0.002

static double proxy_f(uint32_t cnt, double rate, uint32_t ways)
{
	return cnt > ways ? rate : cnt == ways ? HEADROOM_GREEDY * rate : 0;
}

static double full_f(uint32_t cnt, double rate, uint32_t ways)
{
	return cnt >= ways ? rate : 0;
}

/*
 * Cost of placing H at PHASE, summed over the geometries (a line is
 * counted once); with COMMIT, add (SIGN > 0) or remove its lines instead.
 */
static double proxy_cost(struct planner *pl, const struct hunit *h, uint64_t phase,
			 bool commit, int sign)
{
	double cost = 0;
	size_t gi;
	uint32_t i;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];
		uint32_t ways = g->c->ways, shift = g->c->line_shift;
		uint64_t prev = UINT64_MAX;
		int pass;

		for (pass = 0; pass < (commit ? 1 : 2); pass++) {
			prev = UINT64_MAX;
			for (i = 0; i < h->nr_items; i++) {
				const struct sitem *it = &pl->it[h->first_item + i];
				uint64_t a = item_addr_at(pl, it, phase), line = a >> shift;
				uint32_t s = addr_set(g, a), add = line != prev;
				double r = (double)it->count;

				prev = line;
				if (commit) {
					g->cnt[s] += sign > 0 ? add : -add;
					g->rate[s] += sign > 0 ? r : -r;
				} else if (pass == 0) {
					/* look ahead: a second line in the same set sees the first */
					cost += proxy_f(g->cnt[s] + add, g->rate[s] + r, ways) -
						proxy_f(g->cnt[s], g->rate[s], ways);
					g->cnt[s] += add;
					g->rate[s] += r;
				} else {
					g->cnt[s] -= add;
					g->rate[s] -= r;
				}
			}
		}
	}
	return cost;
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

/* Place H at OFF: intervals, item addresses, set members (no miss update). */
static int place(struct planner *pl, struct hunit *h, uint64_t off)
{
	size_t gi;
	uint32_t i;
	int err;

	if ((err = span_add(pl, off, off + h->room)))
		return err;
	h->off = (int64_t)off;
	for (i = 0; i < h->nr_items; i++) {
		struct sitem *it = &pl->it[h->first_item + i];

		it->addr = item_addr_at(pl, it, off);
		for (gi = 0; gi < pl->nr_geo; gi++)
			if ((err = member_add(&pl->geo[gi], addr_set(&pl->geo[gi], it->addr),
					      h->first_item + i)))
				return err;
	}
	return 0;
}

static void unplace(struct planner *pl, struct hunit *h)
{
	size_t gi;
	uint32_t i;

	span_del(pl, (uint64_t)h->off);
	for (i = 0; i < h->nr_items; i++) {
		struct sitem *it = &pl->it[h->first_item + i];

		for (gi = 0; gi < pl->nr_geo; gi++)
			member_del(&pl->geo[gi], addr_set(&pl->geo[gi], it->addr), h->first_item + i);
	}
	h->off = -1;
}

/* Sets of G touched by H's items at OFF, added to g->sets (deduplicated). */
static void touched_sets(const struct planner *pl, struct geo *g, const struct hunit *h,
			 uint64_t off)
{
	uint32_t i, j;

	for (i = 0; i < h->nr_items; i++) {
		uint32_t s = addr_set(g, item_addr_at(pl, &pl->it[h->first_item + i], off));

		for (j = 0; j < g->ntouched && g->sets[j] != s; j++)
			;
		if (j == g->ntouched)
			g->sets[g->ntouched++] = s;
	}
}

static uint64_t total_miss(const struct geo *g)
{
	uint64_t t = 0;
	uint32_t s;

	for (s = 0; s < g->c->sets; s++)
		t += g->set_miss[s];
	return t;
}

/* Add SIGN times the headroom term of the touched sets of every geometry to *DELTA. */
static void headroom_term(const struct planner *pl, double *delta, int sign)
{
	size_t gi;
	uint32_t i;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		const struct geo *g = &pl->geo[gi];

		for (i = 0; i < g->ntouched; i++)
			*delta += sign * HEADROOM_EXACT * g->scale *
				  full_f(g->cnt[g->sets[i]], g->rate[g->sets[i]], g->c->ways);
	}
}

/*
 * Try moving H to NEWOFF: exact delta over the touched sets of every
 * geometry, plus the headroom term.  Keeps the move (with the greedy
 * proxy's counts) if it lowers the objective (or, with TEMP, by the
 * annealing rule); otherwise puts everything back.
 */
static int try_move(struct planner *pl, struct hunit *h, uint64_t newoff, double temp,
		    bool *taken)
{
	uint64_t oldoff = (uint64_t)h->off;
	double delta = 0;
	size_t gi;
	uint32_t i;
	int err;

	*taken = false;
	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];

		g->ntouched = 0;
		touched_sets(pl, g, h, oldoff);
		touched_sets(pl, g, h, newoff);
	}
	/* the headroom term: full sets before and after the move */
	headroom_term(pl, &delta, -1);
	proxy_cost(pl, h, oldoff, true, -1);
	proxy_cost(pl, h, newoff, true, +1);
	headroom_term(pl, &delta, +1);
	unplace(pl, h);
	if ((err = place(pl, h, newoff)))
		return err;
	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];
		double before = 0, after = 0;

		for (i = 0; i < g->ntouched; i++) {
			uint32_t s = g->sets[i];

			g->newmiss[i] = sim_set(pl, g, g->members[s], g->nmem[s]);
			if (g->newmiss[i] == UINT64_MAX)
				return -ENOMEM;
			before += (double)g->set_miss[s];
			after += (double)g->newmiss[i];
		}
		delta += g->scale * (after - before);
	}
	if (delta < 0 ||
	    (temp > 0 && delta > 0 && (double)(rnd(pl) % 1000000) / 1e6 < exp(-delta / temp))) {
		for (gi = 0; gi < pl->nr_geo; gi++) {
			struct geo *g = &pl->geo[gi];

			for (i = 0; i < g->ntouched; i++)
				g->set_miss[g->sets[i]] = g->newmiss[i];
		}
		*taken = true;
		return 0;
	}
	proxy_cost(pl, h, newoff, true, -1);
	proxy_cost(pl, h, oldoff, true, +1);
	unplace(pl, h);
	return place(pl, h, oldoff);
}

static void planner_free(struct planner *pl)
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

void cachepin_plan__release(struct cachepin_plan *plan)
{
	if (!plan)
		return;
	free(plan->units);
	free(plan->evals);
	memset(plan, 0, sizeof(*plan));
}

uint64_t *cachepin_plan__faddr(const struct cachepin_plan *plan, const struct cachepin_binary *bin)
{
	uint64_t *fa = malloc((bin->nr_funcs + 1) * sizeof(*fa));
	size_t i, j;

	if (!fa)
		return NULL;
	for (i = 0; i < bin->nr_funcs; i++)
		fa[i] = bin->funcs[i].addr;
	for (i = 0; i < plan->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[plan->units[i].unit];

		for (j = 0; j < u->nr_funcs; j++) {
			const struct cachepin_func *f = &bin->funcs[u->first_func + j];

			fa[u->first_func + j] = plan->base + plan->units[i].off + (f->addr - u->addr);
		}
	}
	return fa;
}

static bool generic_section(const char *sec)
{
	static const char *const generic[] = {
		".text", ".text.unlikely", ".text.hot", ".text.startup", ".text.exit", ".text.fixup",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic); i++)
		if (!strcmp(sec, generic[i]))
			return true;
	return false;
}

static bool fill_candidate(const struct cachepin_binary *bin, const struct cachepin_unit *u)
{
	if (!(u->flags & CACHEPIN_UNIT_MOVABLE) || (u->flags & CACHEPIN_UNIT_FIXED) || !u->size)
		return false;
	if (strcmp(u->section, ".text") && strncmp(u->section, ".text.", 6))
		return false;
	/*
	 * A section name many objects share (an assembly object's .text) is
	 * named through its object: only objects named by a relative path
	 * (the kernel's), not the system's libraries and start files.
	 */
	if (generic_section(u->section))
		return u->object && u->object[0] != '/';
	return true;
}

struct cold {
	uint32_t unit;
	uint64_t size, align;
};

static int cmp_cold(const void *a, const void *b)
{
	const struct cold *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (x->unit > y->unit) - (x->unit < y->unit);
}

static int cmp_hu_off(const void *a, const void *b)
{
	const struct hunit *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

static int plan_add(struct cachepin_plan *plan, size_t *cap, uint32_t unit, uint64_t off,
		    uint64_t size, uint64_t align, bool hot, double w)
{
	if (GROW(plan->units, *cap, plan->nr_units + 1))
		return -ENOMEM;
	plan->units[plan->nr_units++] = (struct cachepin_plan_unit){
		.unit = unit, .off = off, .size = size, .align = align, .hot = hot, .weight = w,
	};
	return 0;
}

/* Emit order: hot units at their offsets, gaps filled with cold units, then padding. */
static int plan_finish(struct planner *pl, struct cachepin_plan *plan)
{
	const struct cachepin_binary *bin = pl->bin;
	struct cold *cold = NULL;
	uint8_t *used = NULL, *is_hot = NULL;
	size_t ncold = 0, i, cap = 0;
	uint64_t cur = 0, budget;
	int err = -ENOMEM;

	is_hot = calloc(bin->nr_units + 1, 1);
	cold = malloc((bin->nr_units + 1) * sizeof(*cold));
	if (!is_hot || !cold)
		goto out;
	for (i = 0; i < pl->nr_hu; i++)
		is_hot[pl->hu[i].unit] = 1;
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		if (is_hot[i] || !fill_candidate(bin, u))
			continue;
		cold[ncold++] = (struct cold){ (uint32_t)i, u->size, u->align ? u->align : 1 };
	}
	sort_n(cold, ncold, sizeof(*cold), cmp_cold);
	used = calloc(ncold + 1, 1);
	if (!used)
		goto out;
	sort_n(pl->hu, pl->nr_hu, sizeof(*pl->hu), cmp_hu_off);
	budget = pl->o->max_pad * (pl->limit / pl->span_bytes + 1);
	for (i = 0; i < pl->nr_hu; i++) {
		struct hunit *h = &pl->hu[i];
		uint64_t target = (uint64_t)h->off, gap;

		if (h->off < 0)
			continue;
		/* fill [cur, target) with cold units, largest first */
		while (cur < target) {
			size_t lo = 0, hi = ncold, k;
			bool placed = false;

			gap = target - cur;
			/* largest cold unit with size <= gap */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (cold[mid].size <= gap)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (k = lo; k-- > 0;) {
				uint64_t at;

				if (used[k])
					continue;
				at = align_up(cur, cold[k].align);
				if (at + cold[k].size > target)
					continue;
				if (plan_add(plan, &cap, cold[k].unit, at, cold[k].size, cold[k].align,
					     false, 0))
					goto out;
				plan->pad += at - cur;
				used[k] = 1;
				plan->nr_fill++;
				cur = at + cold[k].size;
				placed = true;
				break;
			}
			if (!placed)
				break;
		}
		if (cur < target)
			plan->pad += target - cur;
		if (plan_add(plan, &cap, h->unit, target, h->size, h->align, true, h->weight))
			goto out;
		plan->nr_hot++;
		cur = target + h->size;
	}
	plan->size = cur;
	/*
	 * The budget is not enforced by moving hot units off their slots: at
	 * the capacity edge one misplaced unit costs more than any padding.
	 * Over budget is reported; the search already avoids small gaps.
	 */
	plan->pad_budget = budget;
	err = 0;
out:
	free(cold);
	free(used);
	free(is_hot);
	return err;
}

/* One search from SEED into PLAN.  0 or a negative errno, PLAN empty. */
static int plan_search(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		       uint64_t seed, struct cachepin_plan *plan)
{
	const struct cachepin_binary *bin = m->bin;
	struct planner pl = { .m = m, .bin = bin, .o = o };
	int32_t *unit_hu = NULL;
	uint32_t *refs = NULL, s, maxways = 0;
	uint64_t hot_bytes = 0, lowest = UINT64_MAX;
	size_t nrefs = 0, i, k, gi, cap_hu = 0;
	unsigned int iters = o->iterations ? o->iterations : DEFAULT_ITERS, it_no;
	int err = -ENOMEM;

	memset(plan, 0, sizeof(*plan));
	pl.rng = seed ? seed : 0x2545f4914f6cdd1dULL;
	if (!o->nr_caches || o->nr_caches > MAX_GEO)
		return -EINVAL;
	pl.nr_geo = o->nr_caches;
	for (i = 0; i < o->nr_caches; i++) {
		pl.geo[i].c = &o->caches[i];
		pl.geo[i].scale = 1;
		if (o->caches[i].way_span > plan->block_align)
			plan->block_align = o->caches[i].way_span;
		if (o->caches[i].ways > maxways)
			maxways = o->caches[i].ways;
	}
	/* offsets repeat their sets, in every geometry, after the largest way span */
	pl.span_bytes = plan->block_align;

	/* hot units: movable units holding modelled items */
	unit_hu = malloc((bin->nr_units + 1) * sizeof(*unit_hu));
	if (!unit_hu)
		goto out;
	for (i = 0; i < bin->nr_units; i++)
		unit_hu[i] = -1;
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *mi = &m->items[i];
		const struct cachepin_func *f = &bin->funcs[mi->func];
		const struct cachepin_unit *u = cachepin_binary__func_unit(bin, f);

		if (!mi->count)
			continue;
		if (!u || !(u->flags & CACHEPIN_UNIT_MOVABLE) || (u->flags & CACHEPIN_UNIT_FIXED)) {
			plan->hot_weight_fixed += mi->weight;
			continue;
		}
		plan->hot_weight_placed += mi->weight;
		if (unit_hu[f->unit] < 0) {
			if (GROW(pl.hu, cap_hu, pl.nr_hu + 1))
				goto out;
			pl.hu[pl.nr_hu] = (struct hunit){
				.unit = (uint32_t)f->unit, .size = u->size,
				.align = u->align ? u->align : 4, .off = -1,
			};
			pl.hu[pl.nr_hu].room = align_up(u->size + o->slack, pl.hu[pl.nr_hu].align);
			unit_hu[f->unit] = (int32_t)pl.nr_hu++;
			if (u->addr < lowest)
				lowest = u->addr;
		}
		pl.hu[unit_hu[f->unit]].weight += mi->weight;
	}
	if (!pl.nr_hu) {
		pr_warn("no hot code is movable: nothing to plan\n");
		pr_warn("hint: build with -ffunction-sections and pass the link map (--map)\n");
		err = -ENOENT;
		goto out;
	}
	sort_n(pl.hu, pl.nr_hu, sizeof(*pl.hu), cmp_density);
	if (o->max_hot && pl.nr_hu > o->max_hot)
		pl.nr_hu = o->max_hot;
	for (i = 0; i < bin->nr_units; i++)
		unit_hu[i] = -1;
	for (i = 0; i < pl.nr_hu; i++) {
		unit_hu[pl.hu[i].unit] = (int32_t)i;
		hot_bytes += pl.hu[i].room;
	}
	plan->base = align_up(lowest, plan->block_align);
	pl.base = plan->base;
	/* room: the hot bytes plus a way span of freedom, in whole way spans */
	pl.limit = align_up(hot_bytes + hot_bytes / 4, pl.span_bytes) + pl.span_bytes;

	/* the search string and its items (hot ones by unit, fixed ones by address) */
	{
		size_t L = m->nr_items * SEARCH_REFS_PER_ITEM;

		L = L < SEARCH_REFS_MIN ? SEARCH_REFS_MIN : L > SEARCH_REFS_MAX ? SEARCH_REFS_MAX : L;
		refs = cachepin_model__string(m, L, &nrefs);
	}
	pl.it = calloc(m->nr_items + 1, sizeof(*pl.it));
	pl.pos = malloc((nrefs + 1) * sizeof(*pl.pos));
	if (!refs || !pl.it || !pl.pos)
		goto out;
	{
		uint32_t *cnt = calloc(m->nr_items + 1, sizeof(*cnt));
		uint32_t *map = malloc((m->nr_items + 1) * sizeof(*map));
		uint32_t *fillp;
		size_t nit = 0;

		if (!cnt || !map) {
			free(cnt);
			free(map);
			goto out;
		}
		for (i = 0; i < nrefs; i++)
			cnt[refs[i]]++;
		/* hot items grouped by unit, in unit offset order; then fixed ones */
		for (k = 0; k < pl.nr_hu; k++) {
			struct hunit *h = &pl.hu[k];
			const struct cachepin_unit *u = &bin->units[h->unit];

			h->first_item = (uint32_t)nit;
			for (i = 0; i < m->nr_items; i++) {
				const struct cachepin_model_item *mi = &m->items[i];
				const struct cachepin_func *f = &bin->funcs[mi->func];

				if (!cnt[i] || f->unit != (int)h->unit)
					continue;
				map[i] = (uint32_t)nit;
				pl.it[nit++] = (struct sitem){
					.func = mi->func, .hunit = (int32_t)k,
					.uoff = f->addr - u->addr + mi->off, .count = cnt[i],
				};
			}
			h->nr_items = (uint32_t)(nit - h->first_item);
		}
		for (i = 0; i < m->nr_items; i++) {
			const struct cachepin_model_item *mi = &m->items[i];
			const struct cachepin_func *f = &bin->funcs[mi->func];

			if (!cnt[i] || (f->unit >= 0 && unit_hu[f->unit] >= 0))
				continue;
			map[i] = (uint32_t)nit;
			pl.it[nit] = (struct sitem){
				.func = mi->func, .hunit = -1, .count = cnt[i],
				.addr = f->addr + mi->off,
			};
			nit++;
			plan->nr_unplaceable++;
		}
		pl.nr_it = nit;
		/* CSR of positions, in string order */
		for (i = 0, k = 0; i < pl.nr_it; i++) {
			pl.it[i].first_pos = (uint32_t)k;
			k += pl.it[i].count;
		}
		fillp = calloc(pl.nr_it + 1, sizeof(*fillp));
		if (!fillp) {
			free(cnt);
			free(map);
			goto out;
		}
		for (i = 0; i < nrefs; i++) {
			uint32_t ii = map[refs[i]];

			pl.pos[pl.it[ii].first_pos + fillp[ii]++] = (uint32_t)i;
		}
		free(fillp);
		free(cnt);
		free(map);
	}

	pl.lru = calloc(maxways + 1, sizeof(*pl.lru));
	if (!pl.lru)
		goto out;
	for (gi = 0; gi < pl.nr_geo; gi++) {
		struct geo *g = &pl.geo[gi];
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
			goto out;
		/* fixed occupants */
		for (i = 0; i < pl.nr_it; i++) {
			const struct sitem *it = &pl.it[i];
			uint32_t set = addr_set(g, it->addr);

			if (it->hunit >= 0)
				continue;
			if ((err = member_add(g, set, (uint32_t)i)))
				goto out;
			g->cnt[set]++;
			g->rate[set] += it->count;
		}
	}
	err = -ENOMEM;

	/* 1. greedy colouring, densest first */
	for (k = 0; k < pl.nr_hu; k++) {
		struct hunit *h = &pl.hu[k];
		uint64_t step = h->align > 16 ? h->align : 16, phase, best_phase = 0;
		double best = INFINITY;
		int64_t slot = -1;

		if (step > pl.span_bytes)
			step = pl.span_bytes;
		for (phase = 0; phase < pl.span_bytes; phase += step) {
			int64_t at = find_slot(&pl, h, phase);
			double cost;

			if (at < 0)
				continue;
			/* among equal pressures, prefer slots that leave no small gap */
			cost = proxy_cost(&pl, h, phase, false, 0) + 1e-6 * (double)slot_waste(&pl, (uint64_t)at, h);
			if (cost < best) {
				best = cost;
				best_phase = phase;
			}
		}
		if (best < INFINITY)
			slot = find_slot(&pl, h, best_phase);
		if (slot < 0) {
			/* no room at any phase: extend the block by a way span */
			pl.limit += pl.span_bytes;
			k--;
			continue;
		}
		proxy_cost(&pl, h, (uint64_t)slot, true, +1);
		if ((err = place(&pl, h, (uint64_t)slot)))
			goto out;
	}
	for (gi = 0; gi < pl.nr_geo; gi++) {
		struct geo *g = &pl.geo[gi];
		uint64_t t;

		for (s = 0; s < g->c->sets; s++) {
			g->set_miss[s] = sim_set(&pl, g, g->members[s], g->nmem[s]);
			if (g->set_miss[s] == UINT64_MAX)
				goto out;
		}
		t = total_miss(g);
		g->scale = 1.0 / (double)(t ? t : 1);
		if (gi == 0)
			plan->search_before = t;
	}

	/* 2. local search: relocate a unit to a free offset, keep what lowers misses */
	for (it_no = 0; it_no < iters && pl.nr_hu; it_no++) {
		struct hunit *h;
		uint64_t step, phase;
		int64_t slot;
		double temp = 0;
		bool taken;

		/* pick a unit: half the time one of the 64 densest */
		k = (rnd(&pl) & 1) && pl.nr_hu > 64 ? rnd(&pl) % 64 : rnd(&pl) % pl.nr_hu;
		h = &pl.hu[k];
		step = h->align > 16 ? h->align : 16;
		if (step > pl.span_bytes)
			step = pl.span_bytes;
		phase = (rnd(&pl) % (pl.span_bytes / step)) * step;
		slot = find_slot(&pl, h, phase);
		plan->moves_tried++;
		if (slot < 0 || (uint64_t)slot == (uint64_t)h->off)
			continue;
		/* moves that strand small gaps would cost padding */
		if (slot_waste(&pl, (uint64_t)slot, h))
			continue;
		/*
		 * Cheap filter first: the set-pressure delta of the move.  Only
		 * moves that do not add pressure (and a few that do, early on)
		 * get the exact simulation.
		 */
		{
			double d;

			proxy_cost(&pl, h, (uint64_t)h->off, true, -1);
			d = proxy_cost(&pl, h, (uint64_t)slot, false, 0) -
			    proxy_cost(&pl, h, (uint64_t)h->off, false, 0);
			proxy_cost(&pl, h, (uint64_t)h->off, true, +1);
			if (d > 0 && (it_no > iters / 4 || rnd(&pl) % 8))
				continue;
		}
		/* a little annealing early on: a couple of misses of the target */
		if (it_no < iters / 4)
			temp = 2.0 * pl.geo[0].scale * (1.0 - (double)it_no / (iters / 4));
		plan->moves_simulated++;
		if ((err = try_move(&pl, h, (uint64_t)slot, temp, &taken)))
			goto out;
		plan->moves_taken += taken;
	}
	/*
	 * 3. repair: take the sets that still miss beyond their cold misses
	 * (in proportion), and move one of their hot units to the offsets
	 * with the least added pressure; keep what the simulation approves.
	 */
	for (it_no = 0; it_no < iters / 10; it_no++) {
		struct geo *g = &pl.geo[it_no % pl.nr_geo];
		uint64_t total = 0, pick, acc = 0, step, phase, best_off[3];
		double best_cost[3] = { INFINITY, INFINITY, INFINITY };
		struct hunit *h = NULL;
		uint32_t set, nh = 0, j;

		for (set = 0; set < g->c->sets; set++)
			total += g->set_miss[set] > g->nmem[set] ? g->set_miss[set] - g->nmem[set] : 0;
		if (!total)
			break;
		pick = rnd(&pl) % total;
		for (set = 0; set < g->c->sets; set++) {
			acc += g->set_miss[set] > g->nmem[set] ? g->set_miss[set] - g->nmem[set] : 0;
			if (acc > pick)
				break;
		}
		/* a random hot member of that set */
		for (j = 0; j < g->nmem[set]; j++)
			if (pl.it[g->members[set][j]].hunit >= 0)
				nh++;
		if (!nh)
			continue;
		pick = rnd(&pl) % nh;
		for (j = 0; j < g->nmem[set]; j++)
			if (pl.it[g->members[set][j]].hunit >= 0 && !pick--) {
				h = &pl.hu[pl.it[g->members[set][j]].hunit];
				break;
			}
		step = h->align > 16 ? h->align : 16;
		if (step > pl.span_bytes)
			step = pl.span_bytes;
		proxy_cost(&pl, h, (uint64_t)h->off, true, -1);
		for (phase = 0; phase < pl.span_bytes; phase += step) {
			int64_t at = find_slot(&pl, h, phase);
			double cost;
			int r;

			if (at < 0 || slot_waste(&pl, (uint64_t)at, h))
				continue;
			cost = proxy_cost(&pl, h, phase, false, 0);
			for (r = 2; r >= 0 && cost < best_cost[r]; r--) {
				if (r < 2) {
					best_cost[r + 1] = best_cost[r];
					best_off[r + 1] = best_off[r];
				}
				best_cost[r] = cost;
				best_off[r] = (uint64_t)at;
			}
		}
		proxy_cost(&pl, h, (uint64_t)h->off, true, +1);
		for (j = 0; j < 3 && best_cost[j] < INFINITY; j++) {
			bool taken;

			if (best_off[j] == (uint64_t)h->off)
				continue;
			plan->moves_simulated++;
			if ((err = try_move(&pl, h, best_off[j], 0, &taken)))
				goto out;
			if (taken) {
				plan->moves_taken++;
				break;
			}
		}
	}
	plan->search_after = total_miss(&pl.geo[0]);

	/* 3. emit order, cold fill, padding */
	if ((err = plan_finish(&pl, plan)))
		goto out;
	plan->seed = seed;
	err = 0;
out:
	if (err)
		cachepin_plan__release(plan);
	planner_free(&pl);
	free(unit_hu);
	free(refs);
	return err;
}

/*
 * The full model's misses of PLAN's layout on every geometry into
 * plan->evals (after, lru_after), and *V their sum in misses per fetch
 * of each cache's replacement policy.  0 or a negative errno.
 */
static int judge(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		 struct cachepin_plan *plan, double *v)
{
	uint64_t *fa = cachepin_plan__faddr(plan, m->bin);
	size_t i;
	int err = 0;

	*v = 0;
	plan->evals = calloc(o->nr_caches, sizeof(*plan->evals));
	if (!fa || !plan->evals) {
		free(fa);
		return -ENOMEM;
	}
	plan->nr_evals = o->nr_caches;
	for (i = 0; i < o->nr_caches; i++) {
		const struct cachepin_cache *c = &o->caches[i];
		struct cachepin_score sc;

		if ((err = cachepin_score__run(m, fa, c, CACHEPIN_SCORE_NO_OPT, &sc)))
			break;
		plan->evals[i].after = sc.miss[c->repl];
		plan->evals[i].lru_after = sc.miss[CACHEPIN_REPL_LRU];
		*v += (double)sc.miss[c->repl] / (double)(sc.fetches ? sc.fetches : 1);
		cachepin_score__release(&sc);
	}
	free(fa);
	return err;
}

/* The as-linked side of plan->evals.  0 or a negative errno. */
static int judge_before(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			struct cachepin_plan *plan)
{
	size_t i;
	int err;

	for (i = 0; i < plan->nr_evals; i++) {
		const struct cachepin_cache *c = &o->caches[i];
		struct cachepin_score sc;

		if ((err = cachepin_score__run(m, NULL, c, CACHEPIN_SCORE_NO_OPT, &sc)))
			return err;
		plan->evals[i].fetches = sc.fetches;
		plan->evals[i].before = sc.miss[c->repl];
		plan->evals[i].lru_before = sc.miss[CACHEPIN_REPL_LRU];
		cachepin_score__release(&sc);
	}
	return 0;
}

int cachepin_plan__run(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		       struct cachepin_plan *plan)
{
	unsigned int runs = o->restarts ? o->restarts : 1, run;
	double best = 0;
	int err;

	memset(plan, 0, sizeof(*plan));
	/* restarts: each a full search; the full model of every geometry judges */
	for (run = 0; run < runs; run++) {
		struct cachepin_plan cand;
		double v;

		if ((err = plan_search(m, o, o->seed + run, &cand)))
			goto fail;
		if ((err = judge(m, o, &cand, &v))) {
			cachepin_plan__release(&cand);
			goto fail;
		}
		if (run == 0 || v < best) {
			best = v;
			cachepin_plan__release(plan);
			*plan = cand;
		} else {
			cachepin_plan__release(&cand);
		}
	}
	if (!(err = judge_before(m, o, plan)))
		return 0;
fail:
	cachepin_plan__release(plan);
	return err;
}
