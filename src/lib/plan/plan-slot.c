// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a hot unit may go: the placed intervals of the block (sorted),
 * the lowest free slot at a phase, the small gaps a slot would strand,
 * and placing or removing a unit (its intervals, item addresses and set
 * members).
 */
#include "plan-int.h"

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

bool cachepin_plan_slot_free(const struct planner *pl, uint64_t lo, uint64_t hi)
{
	return span_free(pl, lo, hi);
}

int64_t cachepin_plan_find_slot(const struct planner *pl, const struct hunit *h, uint64_t phase)
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
uint64_t cachepin_plan_slot_waste(const struct planner *pl, uint64_t at, const struct hunit *h)
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

int cachepin_plan_place(struct planner *pl, struct hunit *h, uint64_t off)
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
			if ((err = cachepin_plan_member_add(&pl->geo[gi],
							    addr_set(&pl->geo[gi], it->addr),
							    h->first_item + i)))
				return err;
	}
	return 0;
}

void cachepin_plan_unplace(struct planner *pl, struct hunit *h)
{
	size_t gi;
	uint32_t i;

	span_del(pl, (uint64_t)h->off);
	for (i = 0; i < h->nr_items; i++) {
		struct sitem *it = &pl->it[h->first_item + i];

		for (gi = 0; gi < pl->nr_geo; gi++)
			cachepin_plan_member_del(&pl->geo[gi], addr_set(&pl->geo[gi], it->addr),
						 h->first_item + i);
	}
	h->off = -1;
}

int cachepin_plan_fixed_lines(const struct planner *pl, size_t gi,
			      int (*fn)(void *ctx, uint32_t set, double fetches), void *ctx)
{
	const struct geo *g = &pl->geo[gi];
	uint64_t line = UINT64_MAX;
	double c = 0;
	size_t i;
	int err;

	for (i = 0; i <= pl->nr_it; i++) {
		const struct sitem *it = i < pl->nr_it ? &pl->it[i] : NULL;

		if (it && it->hunit >= 0)
			continue;
		if (it && it->addr >> g->c->line_shift == line) {
			c += it->rate;
			continue;
		}
		if (line != UINT64_MAX && (err = fn(ctx, addr_set(g, line << g->c->line_shift), c)))
			return err;
		if (!it)
			break;
		line = it->addr >> g->c->line_shift;
		c = it->rate;
	}
	return 0;
}
