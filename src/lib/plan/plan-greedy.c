// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The greedy colouring: hot units, densest first, each to the free slot
 * whose phase adds the least set pressure; and that pressure (the
 * proxy), which the local search also uses as a cheap filter.
 */
#include <math.h>
#include "plan-int.h"

/*
 * ---- greedy proxy: a set with more than WAYS hot lines costs all its rate ----
 *
 * A set holding exactly WAYS sampled lines has no room for the lines that
 * run but got no samples (a profile never sees them all): it costs a
 * little (HEADROOM_GREEDY of its rate), so that where the hot lines fit
 * with room to spare, the greedy spreads them instead of filling sets to
 * the brim.  The local search weighs the same risk against the exact
 * misses (HEADROOM_EXACT in plan-search.c).
 */
#define HEADROOM_GREEDY 0.05

static double proxy_f(uint32_t cnt, double rate, uint32_t ways)
{
	return cnt > ways ? rate : cnt == ways ? HEADROOM_GREEDY * rate : 0;
}

/* A line is counted once per geometry. */
double cachepin_plan_proxy_cost(struct planner *pl, const struct hunit *h, uint64_t phase,
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
				double r = it->rate;

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

/* The slot for H at the phase of least pressure, or -1 if it fits at no phase. */
static int64_t greedy_slot(struct planner *pl, const struct hunit *h)
{
	uint64_t step = phase_step(pl, h), phase, best_phase = 0;
	double best = INFINITY;

	for (phase = 0; phase < pl->span_bytes; phase += step) {
		int64_t at = cachepin_plan_find_slot(pl, h, phase);
		double cost;

		if (at < 0)
			continue;
		/* among equal pressures, prefer slots that leave no small gap */
		cost = cachepin_plan_proxy_cost(pl, h, phase, false, 0) +
		       1e-6 * (double)cachepin_plan_slot_waste(pl, (uint64_t)at, h);
		if (cost < best) {
			best = cost;
			best_phase = phase;
		}
	}
	return best < INFINITY ? cachepin_plan_find_slot(pl, h, best_phase) : -1;
}

/* Every hot unit, densest first, where it adds the least pressure. */
int cachepin_plan_greedy(struct planner *pl, const struct method_args *a,
			 struct cachepin_plan *plan)
{
	size_t k;
	int err;

	/* pl->hu is in density order */
	for (k = 0; k < pl->nr_hu; k++) {
		struct hunit *h = &pl->hu[k];
		int64_t slot;

		if (h->off >= 0)
			continue;	/* kept from the previous plan */
		slot = greedy_slot(pl, h);
		if (slot < 0) {
			/* no room at any phase: extend the block by a way span */
			pl->limit += pl->span_bytes;
			k--;
			continue;
		}
		cachepin_plan_proxy_cost(pl, h, (uint64_t)slot, true, +1);
		if ((err = cachepin_plan_place(pl, h, (uint64_t)slot)))
			return err;
	}
	return 0;
}
