/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The planner: where every hot movable unit goes, at cache-line
 * granularity, so that hot lines do not fight over sets.
 *
 * The hot block starts at a way-span-aligned address, so code before it
 * and unrelated code after it cannot move a hot line to another set.
 * Fixed code keeps its sets and is an occupant the planner colours
 * around.  Hot units get exact offsets inside the block; the gaps between
 * them are filled with cold movable units before padding is spent.
 *
 * Search: a greedy colouring (densest units first, each to the free
 * offset that adds the least set pressure, a set being "over-full" past
 * WAYS hot lines) followed by a local search (relocations and swaps,
 * accepted on the exact per-set simulation of the model's reference
 * string), deterministic for a given seed.  With restarts, the search
 * runs from several seeds, in threads (one per CPU the process may run
 * on, at most 8), and the full model of every geometry picks the layout
 * with the fewest misses: the first seed's among equals, so the plan does
 * not depend on the threads.
 *
 * Candidates: the search competes with the layouts a user would
 * otherwise get, built for the same hot units (enum
 * cachepin_plan_method).  With held-out folds (opts.folds: plan on one
 * half of the samples, score on the other), each method is planned on
 * every fold's first model and scored on its second; the method with the
 * lowest mean ratio to the link's held-out misses over the geometries,
 * among those no worse than the link at any of them and within the
 * padding budget (max_pad; a layout spread over padding is not one a
 * user asked for), is then planned on
 * the full model; the search and the greedy colouring, which optimise
 * the model's own pressure, must lead the others by a margin (plan.c).
 * The ratio of the link order kept ("keep") is 1 by
 * construction, so the plan is never worse than the link it replaces as
 * far as the held-out samples can tell.
 */

#ifndef CACHEPIN_PLAN_H
#define CACHEPIN_PLAN_H

#include "cachepin/score.h"

#define CACHEPIN_PLAN_MAX_GEO 8

struct cachepin_align;

enum cachepin_plan_method {
	CACHEPIN_PLAN_SEARCH,	/* the heat colouring, local search on the simulation, repair */
	CACHEPIN_PLAN_HEAT,	/* heat balancing: least expected misses per set */
	CACHEPIN_PLAN_GREEDY,	/* greedy colouring by hot-line counts alone */
	CACHEPIN_PLAN_COLOUR,	/* line colouring: each unit in the next way span, least conflict */
	CACHEPIN_PLAN_DENSITY,	/* hot-first by density, packed */
	CACHEPIN_PLAN_C3,	/* call-chain clustering (hfsort, lld), packed */
	CACHEPIN_PLAN_KEEP,	/* link order, every hot unit at its old set phase */
	CACHEPIN_PLAN_REFERENCE,	/* the simple colouring the planner is measured against */
	CACHEPIN_PLAN_NR_METHODS,
};

/* "search", "heat", "greedy", "colour", "density", "c3", "keep", "reference"; NULL if out of range. */
const char *cachepin_plan__method_name(enum cachepin_plan_method m);

struct cachepin_plan_opts {
	const struct cachepin_cache *caches;	/* caches[0] is the primary geometry */
	size_t nr_caches;
	/*
	 * Any one unit of the block (hot or fill) may grow by this many
	 * bytes without moving a hot unit: each hot unit has the room, and
	 * the fill leaves it free before the next hot unit, alignment
	 * included.  0: packed tight.
	 */
	uint64_t growth;
	uint64_t max_pad;	/* padding budget per way span */
	uint64_t seed;
	unsigned int iterations;	/* local-search moves; 0 = default */
	size_t max_hot;		/* at most this many hot units; 0 = all */
	unsigned int restarts;	/* searches from seeds seed..seed+restarts-1; 0 = 1 */
	unsigned int methods;	/* bit per enum cachepin_plan_method tried; 0 = all but greedy */
	/*
	 * Held-out folds: folds[f][0] is planned on, folds[f][1] scores it.
	 * Models of the same binary as the planned one (cachepin_model_opts
	 * .half, or a second recording).  None: the methods are compared on
	 * the full model, which favours the search.
	 */
	const struct cachepin_model *folds[2][2];
	size_t nr_folds;
	/*
	 * Re-plan from this previous plan (cachepin plan --keep): its hot
	 * units that are hot again and still fit their slots stay there,
	 * the search (the one method that places around them) places the
	 * rest and moves none of them.  NULL: a plan from scratch.
	 */
	const struct cachepin_align *prev;
};

/* One method's held-out verdict, summed over the folds. */
struct cachepin_plan_cand {
	bool tried, eligible;	/* eligible: no geometry worse than the link by over 1 %, padding in budget */
	bool over_pad;		/* more padding than opts.max_pad allows (keep excepted) */
	bool harms;		/* a geometry worse than the link by over 1 % */
	bool whole_harms;	/* its plan from the whole profile is, in the full model */
	uint64_t misses[CACHEPIN_PLAN_MAX_GEO];	/* held-out misses per geometry */
	double ratio;		/* mean of misses / the link's, over the geometries */
	uint64_t bytes;		/* its blocks' bytes, summed over the folds */
	bool roomy;		/* no set over its ways in its layouts, every line of the hot units counted */
	int focus;		/* colour: the geometry it was planned for first, -1: all alike */
	bool ever;		/* colour: priced against the lightest line ever in a set */
};

/* The full model's verdict on a plan, for one geometry. */
struct cachepin_plan_eval {
	uint64_t fetches;	/* line fetches as linked */
	uint64_t before, after;	/* misses of the cache's replacement policy: as linked, planned */
	uint64_t lru_before, lru_after;	/* the same under LRU */
	/*
	 * The link's distinct hot lines and its fully associative misses:
	 * LRU (the capacity misses; the conflict part is LRU minus them) and
	 * optimal (no layout gets below them).  More hot lines than the
	 * cache holds (sets * ways): capacity-bound.
	 */
	uint64_t hot_lines, fa_lru, fa_opt;
};

struct cachepin_plan {
	/*
	 * The layout planned: its block (units, start, size, alignment,
	 * tail, padding, growth; unchanged when nothing moves) and, after
	 * cachepin_plan__run(), where every function of the binary goes.
	 */
	struct cachepin_layout layout;
	uint64_t room_extra;	/* block bytes added when units moved by way spans for their room */
	/*
	 * opts.prev: its hot units kept at their offsets, placed again
	 * (grown past their room), no longer hot (or unknown); hot units
	 * new to it; of the units in both, those whose first set changed
	 * (for its cache: the primary geometry's sets).
	 */
	size_t nr_kept, nr_replaced, nr_gone, nr_new, nr_set_changed;
	uint64_t pad_budget;	/* max_pad for the whole block (growth's padding aside) */
	size_t nr_unplaceable;	/* hot functions in fixed units (occupants) */
	double hot_weight_placed, hot_weight_fixed;
	unsigned int moves_tried, moves_simulated, moves_taken;
	/*
	 * The search's objective: LRU misses of the first geometry on the
	 * search string (search_refs references, shorter than the model's),
	 * after the greedy colouring and after the local search and repair.
	 */
	uint64_t search_before, search_after;
	size_t search_refs;
	uint64_t seed;		/* of the search that won */
	struct cachepin_plan_eval *evals;	/* per opts->caches entry */
	size_t nr_evals;
	enum cachepin_plan_method method;	/* the method planned (its variant: cands[method]) */
	/*
	 * layout.unchanged: no candidate beat the link, and keeping its sets
	 * was worse than the link somewhere (a kernel's text after the block
	 * moves in any relink with a plan).
	 */
	/*
	 * No candidate beat the link, and the binary was linked with a plan:
	 * its block is planned again as it is (a fragment naming nothing
	 * would undo it), every unit at its offset.
	 */
	bool as_linked;
	bool planned_link;	/* the binary was linked with a plan (__cachepin_start) */
	size_t nr_folds;	/* held-out folds the methods were scored on (0: in-sample) */
	bool exact;		/* planned on a recorded run's fetches (cachepin_model.exact) */
	uint64_t link_misses[CACHEPIN_PLAN_MAX_GEO];	/* held-out misses of the link */
	struct cachepin_plan_cand cands[CACHEPIN_PLAN_NR_METHODS];
};

/*
 * Plan the hot units of model M (built from the profile on BIN): the
 * method chosen among the candidates (see above), and for the search one
 * run per restart, each scored on the full model of every geometry (the
 * sum of misses per fetch of each cache's replacement policy); the first
 * with the lowest sum wins, and gets its evaluation per geometry.
 * Returns 0 and fills PLAN (release with cachepin_plan__release()), or a
 * negative errno with PLAN empty: -EINVAL (no geometry, or more than 8),
 * -ENOENT after logging (no hot code is movable), -EXDEV (opts.prev has
 * another block alignment: it was planned for other caches), -ENOMEM.
 */
int cachepin_plan__run(const struct cachepin_model *m, const struct cachepin_plan_opts *opts,
		       struct cachepin_plan *plan);

/* Free what PLAN holds (not PLAN itself) and empty it; NULL is fine. */
void cachepin_plan__release(struct cachepin_plan *plan);

#endif
