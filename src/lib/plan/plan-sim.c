// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exact per-set simulation of the planner: the members of a set (the
 * search-string items whose lines map to it, hot or fixed) are merged in
 * time order and run through an LRU stack of the set's ways.
 */
#include "heap.h"
#include "plan-int.h"

int cachepin_plan_member_add(struct geo *g, uint32_t set, uint32_t item)
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

void cachepin_plan_member_del(struct geo *g, uint32_t set, uint32_t item)
{
	uint32_t i;

	for (i = 0; i < g->nmem[set]; i++)
		if (g->members[set][i] == item) {
			g->members[set][i] = g->members[set][--g->nmem[set]];
			return;
		}
}

/* Room in pl->heap for a heap of N keys and N cursors.  0 or -ENOMEM. */
static int heap_reserve(struct planner *pl, uint32_t n)
{
	uint64_t *h;

	if (((size_t)n + 1) * 2 <= pl->cap_heap)
		return 0;
	h = realloc(pl->heap, ((size_t)n + 1) * 2 * sizeof(*h));
	if (!h)
		return -ENOMEM;
	pl->heap = h;
	pl->cap_heap = ((size_t)n + 1) * 2;
	return 0;
}

/* A min-heap of (position << 24 | member) keys: the next reference first. */
#define pos_earlier(a, b) ((a) < (b))
HEAP_DEFINE(posh, uint64_t, pos_earlier)

/*
 * Reference LINE in the LRU stack LRU (*FILL lines of at most WAYS,
 * lru[0] the most recent).  Returns 1 on a miss.
 */
static unsigned int lru_touch(uint64_t *lru, uint32_t *fill, uint32_t ways, uint64_t line)
{
	unsigned int miss = 0;
	uint32_t w;

	for (w = 0; w < *fill && lru[w] != line; w++)
		;
	if (w == *fill) {
		miss = 1;
		if (*fill < ways)
			(*fill)++;
		w = *fill - 1;
	}
	for (; w > 0; w--)
		lru[w] = lru[w - 1];
	lru[0] = line;
	return miss;
}

uint64_t cachepin_plan_sim_set(struct planner *pl, const struct geo *g, const uint32_t *items,
			       uint32_t n)
{
	uint32_t ways = g->c->ways, fill = 0, k, shift = g->c->line_shift;
	uint64_t miss = 0, *h, *cur, key;
	size_t nh = 0;

	if (!n)
		return 0;
	if (heap_reserve(pl, n))
		return UINT64_MAX;
	/*
	 * A heap of (position << 24 | k), k < 2^24 the member's index; the
	 * members' cursors live in the upper half of the heap buffer.
	 */
	h = pl->heap;
	cur = h + pl->cap_heap / 2;
	for (k = 0; k < n; k++) {
		const struct sitem *it = &pl->it[items[k]];

		cur[k] = 0;
		if (it->count)
			posh_push(h, &nh, (uint64_t)pl->pos[it->first_pos] << 24 | k);
	}
	while (nh) {
		uint32_t kk = (uint32_t)(h[0] & 0xffffff);
		const struct sitem *it = &pl->it[items[kk]];

		miss += lru_touch(pl->lru, &fill, ways, it->addr >> shift);
		/* advance this member's cursor */
		if (++cur[kk] < it->count)
			key = (uint64_t)pl->pos[it->first_pos + cur[kk]] << 24 | kk;
		else
			key = h[--nh];
		posh_replace_top(h, nh, key);
	}
	return miss;
}

uint64_t cachepin_plan_total_miss(const struct geo *g)
{
	uint64_t t = 0;
	uint32_t s;

	for (s = 0; s < g->c->sets; s++)
		t += g->set_miss[s];
	return t;
}

int cachepin_plan_sim_all(struct planner *pl)
{
	size_t gi;
	uint32_t s;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];
		uint64_t t;

		for (s = 0; s < g->c->sets; s++) {
			g->set_miss[s] = cachepin_plan_sim_set(pl, g, g->members[s], g->nmem[s]);
			if (g->set_miss[s] == UINT64_MAX)
				return -ENOMEM;
		}
		t = cachepin_plan_total_miss(g);
		g->scale = 1.0 / (double)(t ? t : 1);
	}
	return 0;
}
