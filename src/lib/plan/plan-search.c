// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The local search after the heat colouring: relocations of hot units
 * to free slots, accepted on the exact per-set simulation (plus a
 * headroom term for full sets), a little annealing early on; then a
 * repair pass that moves hot units out of the sets that still miss.
 */
#include <math.h>
#include "plan-int.h"

/*
 * The local search weighs the risk of sets holding WAYS sampled lines
 * (see HEADROOM_GREEDY in plan-greedy.c) against the exact misses with
 * HEADROOM_EXACT misses per fetch of the lines of full sets.
 */
#define HEADROOM_EXACT 0.002

/* The search's own state: its random numbers and its progress. */
struct search {
	struct planner *pl;
	struct cachepin_plan *plan;	/* the moves are counted there */
	struct plan_progress *prog;	/* may be NULL */
	uint64_t rng;
};

static uint64_t rnd(struct search *s)
{
	return cachepin_xorshift64(&s->rng);
}

static double full_f(uint32_t cnt, double rate, uint32_t ways)
{
	return cnt >= ways ? rate : 0;
}

/* DONE local-search moves' worth of the search's work done, to the progress. */
static void search_progress(const struct search *s, uint64_t done)
{
	uint64_t work = cachepin_plan_search_work(cachepin_plan_iters(s->pl->o), s->pl->m->exact);

	cachepin_plan_progress(s->prog, (unsigned int)(done * 1000 / work));
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
 * Simulate the touched sets of every geometry into g->newmiss and add
 * the scaled change of their misses to *DELTA.  0 or -ENOMEM.
 */
static int sim_touched(struct planner *pl, double *delta)
{
	size_t gi;
	uint32_t i;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		struct geo *g = &pl->geo[gi];
		double before = 0, after = 0;

		for (i = 0; i < g->ntouched; i++) {
			uint32_t s = g->sets[i];

			g->newmiss[i] = cachepin_plan_sim_set(pl, g, g->members[s], g->nmem[s]);
			if (g->newmiss[i] == UINT64_MAX)
				return -ENOMEM;
			before += (double)g->set_miss[s];
			after += (double)g->newmiss[i];
		}
		*delta += g->scale * (after - before);
	}
	return 0;
}

/*
 * Try moving H to NEWOFF: exact delta over the touched sets of every
 * geometry, plus the headroom term.  Keeps the move (with the greedy
 * proxy's counts) if it lowers the objective (or, with TEMP, by the
 * annealing rule); otherwise puts everything back.
 */
static int try_move(struct search *s, struct hunit *h, uint64_t newoff, double temp,
		    bool *taken)
{
	struct planner *pl = s->pl;
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
	cachepin_plan_proxy_cost(pl, h, oldoff, true, -1);
	cachepin_plan_proxy_cost(pl, h, newoff, true, +1);
	headroom_term(pl, &delta, +1);
	cachepin_plan_unplace(pl, h);
	if ((err = cachepin_plan_place(pl, h, newoff)) || (err = sim_touched(pl, &delta)))
		return err;
	if (delta < 0 ||
	    (temp > 0 && delta > 0 && (double)(rnd(s) % 1000000) / 1e6 < exp(-delta / temp))) {
		for (gi = 0; gi < pl->nr_geo; gi++) {
			struct geo *g = &pl->geo[gi];

			for (i = 0; i < g->ntouched; i++)
				g->set_miss[g->sets[i]] = g->newmiss[i];
		}
		*taken = true;
		return 0;
	}
	cachepin_plan_proxy_cost(pl, h, newoff, true, -1);
	cachepin_plan_proxy_cost(pl, h, oldoff, true, +1);
	cachepin_plan_unplace(pl, h);
	return cachepin_plan_place(pl, h, oldoff);
}

/*
 * The cheap filter before the exact simulation: the set-pressure delta
 * of moving H to SLOT.  Only moves that do not add pressure (and a few
 * that do, early on) are worth simulating.
 */
static bool worth_simulating(struct search *s, const struct hunit *h, uint64_t slot,
			     unsigned int it_no, unsigned int iters)
{
	struct planner *pl = s->pl;
	uint64_t off = (uint64_t)h->off;
	double d;

	cachepin_plan_proxy_cost(pl, h, off, true, -1);
	d = cachepin_plan_proxy_cost(pl, h, slot, false, 0) -
	    cachepin_plan_proxy_cost(pl, h, off, false, 0);
	cachepin_plan_proxy_cost(pl, h, off, true, +1);
	return !(d > 0 && (it_no > iters / 4 || rnd(s) % 8));
}

/* Relocate a unit to a free offset, keep what lowers misses. */
static int local_search(struct search *s)
{
	struct planner *pl = s->pl;
	struct cachepin_plan *plan = s->plan;
	unsigned int iters = cachepin_plan_iters(pl->o), it_no;
	int err;

	for (it_no = 0; it_no < iters && pl->nr_hu; it_no++) {
		struct hunit *h;
		uint64_t step, phase;
		int64_t slot;
		double temp = 0;
		bool taken;
		size_t k;

		if (!(it_no % 64))
			search_progress(s, it_no);
		/* pick a unit: half the time one of the 64 densest */
		k = (rnd(s) & 1) && pl->nr_hu > 64 ? rnd(s) % 64 : rnd(s) % pl->nr_hu;
		h = &pl->hu[k];
		if (h->frozen)
			continue;
		step = phase_step(pl, h);
		phase = (rnd(s) % (pl->span_bytes / step)) * step;
		slot = cachepin_plan_find_slot(pl, h, phase);
		plan->moves_tried++;
		if (slot < 0 || (uint64_t)slot == (uint64_t)h->off)
			continue;
		/* moves that strand small gaps would cost padding */
		if (cachepin_plan_slot_waste(pl, (uint64_t)slot, h))
			continue;
		if (!worth_simulating(s, h, (uint64_t)slot, it_no, iters))
			continue;
		/* a little annealing early on: a couple of misses of the target */
		if (it_no < iters / 4)
			temp = 2.0 * pl->geo[0].scale * (1.0 - (double)it_no / (iters / 4));
		plan->moves_simulated++;
		if ((err = try_move(s, h, (uint64_t)slot, temp, &taken)))
			return err;
		plan->moves_taken += taken;
	}
	return 0;
}

/*
 * A set of G picked in proportion to its misses beyond its cold misses
 * (one per member), or -1 if no set misses more.
 */
static int64_t missing_set(struct search *s, const struct geo *g)
{
	uint64_t total = 0, pick, acc = 0;
	uint32_t set;

	for (set = 0; set < g->c->sets; set++)
		total += g->set_miss[set] > g->nmem[set] ? g->set_miss[set] - g->nmem[set] : 0;
	if (!total)
		return -1;
	pick = rnd(s) % total;
	for (set = 0; set < g->c->sets; set++) {
		acc += g->set_miss[set] > g->nmem[set] ? g->set_miss[set] - g->nmem[set] : 0;
		if (acc > pick)
			break;
	}
	return set;
}

/* A random hot unit with a line in SET of G, or NULL if only fixed code is there. */
static struct hunit *hot_member(struct search *s, const struct geo *g, uint32_t set)
{
	struct planner *pl = s->pl;
	uint32_t nh = 0, j;
	uint64_t pick;

	for (j = 0; j < g->nmem[set]; j++)
		if (pl->it[g->members[set][j]].hunit >= 0)
			nh++;
	if (!nh)
		return NULL;
	pick = rnd(s) % nh;
	for (j = 0; j < g->nmem[set]; j++)
		if (pl->it[g->members[set][j]].hunit >= 0 && !pick--)
			return &pl->hu[pl->it[g->members[set][j]].hunit];
	return NULL;
}

/* The three free slots for H that add the least pressure, best first (INFINITY: none). */
static void best_slots(struct planner *pl, const struct hunit *h, uint64_t best_off[3],
		       double best_cost[3])
{
	uint64_t step = phase_step(pl, h), phase, off = (uint64_t)h->off;

	cachepin_plan_proxy_cost(pl, h, off, true, -1);
	for (phase = 0; phase < pl->span_bytes; phase += step) {
		int64_t at = cachepin_plan_find_slot(pl, h, phase);
		double cost;
		int r;

		if (at < 0 || cachepin_plan_slot_waste(pl, (uint64_t)at, h))
			continue;
		cost = cachepin_plan_proxy_cost(pl, h, phase, false, 0);
		for (r = 2; r >= 0 && cost < best_cost[r]; r--) {
			if (r < 2) {
				best_cost[r + 1] = best_cost[r];
				best_off[r + 1] = best_off[r];
			}
			best_cost[r] = cost;
			best_off[r] = (uint64_t)at;
		}
	}
	cachepin_plan_proxy_cost(pl, h, off, true, +1);
}

/*
 * Repair: take the sets that still miss beyond their cold misses (in
 * proportion), and move one of their hot units to the offsets with the
 * least added pressure; keep what the simulation approves.
 */
static int repair(struct search *s)
{
	struct planner *pl = s->pl;
	struct cachepin_plan *plan = s->plan;
	unsigned int iters = cachepin_plan_repairs(cachepin_plan_iters(pl->o), pl->m->exact), it_no;
	int err;

	for (it_no = 0; it_no < iters; it_no++) {
		const struct geo *g = &pl->geo[it_no % pl->nr_geo];
		uint64_t best_off[3] = { 0 };
		double best_cost[3] = { INFINITY, INFINITY, INFINITY };
		int64_t set;
		struct hunit *h;
		uint32_t j;

		if (!(it_no % 8))
			search_progress(s, cachepin_plan_iters(pl->o) + (uint64_t)REPAIR_COST * it_no);
		set = missing_set(s, g);
		if (set < 0)
			break;
		h = hot_member(s, g, (uint32_t)set);
		if (!h || h->frozen)
			continue;
		best_slots(pl, h, best_off, best_cost);
		for (j = 0; j < 3 && best_cost[j] < INFINITY; j++) {
			bool taken;

			if (best_off[j] == (uint64_t)h->off)
				continue;
			plan->moves_simulated++;
			if ((err = try_move(s, h, best_off[j], 0, &taken)))
				return err;
			if (taken) {
				plan->moves_taken++;
				break;
			}
		}
	}
	return 0;
}

/*
 * The search: the heat colouring of the units not kept, with the exact
 * misses of its layout; local search; repair of the sets that still miss.
 */
int cachepin_plan_search(struct planner *pl, const struct method_args *a,
			 struct cachepin_plan *plan)
{
	struct search s = { pl, plan, a->prog, a->seed ? a->seed : 0x2545f4914f6cdd1dULL };
	size_t k;
	int err;

	if ((err = cachepin_plan_heat(pl, a, plan)))
		return err;
	for (k = 0; k < pl->nr_hu; k++)
		if (!pl->hu[k].frozen)
			cachepin_plan_proxy_cost(pl, &pl->hu[k], (uint64_t)pl->hu[k].off, true, +1);
	plan->search_before = cachepin_plan_total_miss(&pl->geo[0]);
	if ((err = local_search(&s)) || (err = repair(&s)))
		return err;
	plan->search_after = cachepin_plan_total_miss(&pl->geo[0]);
	return 0;
}
