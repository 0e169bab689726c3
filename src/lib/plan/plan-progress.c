// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The planner's progress: what each layout it builds weighs, and the
 * step in hand passed to the callback (cachepin_set_progress()).
 */
#include "plan-int.h"

/*
 * Measured on the router-arm kernel's profile: about 0.7 s for the search
 * at 3000 moves, 0.1 s for the heat colouring, 0.05 s for density, C3
 * and keep each.  The search's weight grows with its moves, a repair
 * move counted as REPAIR_COST.
 */
uint64_t cachepin_plan_weight(const struct cachepin_plan_opts *o, bool exact,
			      enum cachepin_plan_method method)
{
	uint64_t work = cachepin_plan_search_work(cachepin_plan_iters(o), exact);

	return method == CACHEPIN_PLAN_SEARCH ?
	       1 + 7 * work / cachepin_plan_search_work(SEARCH_DEFAULT_ITERS, false) : 1;
}

void cachepin_plan_progress(const struct plan_progress *pg, unsigned int permille)
{
	if (pg)
		cachepin_progress(pg->label, pg->at * 1000 + pg->cur * (permille < 1000 ? permille : 999),
				  pg->total * 1000);
}
