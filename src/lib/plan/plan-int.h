/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared between the phases of the planner (cachepin/plan.h):
 *
 *   plan.c         the method table, the held-out choice, restarts, the evaluation
 *   plan-progress.c  what each layout the planner builds weighs, the progress callback
 *   plan-setup.c   hot units, the search string, per-geometry tables, occupants
 *   plan-slot.c    placed intervals: free slots, stranded gaps, placing a unit
 *   plan-sim.c     the exact per-set LRU simulation and set members
 *   plan-heat.c    the heat-balancing colouring, the reference colouring
 *   plan-greedy.c  the set-pressure proxy and the greedy colouring
 *   plan-search.c  the search: heat colouring, local search, repair of missing sets
 *   plan-cand.c    the other candidates: link order kept, density, C3, line colouring
 *   plan-room.c    room for growth: placed units moved by way spans, their sets kept
 *   plan-fill.c    emit order: cold fill of the gaps, padding
 *   plan-keep.c    --keep: the previous plan's units that still fit, frozen
 *
 * Offsets are relative to the block start, which is aligned to the
 * largest way span of the target geometries; the set of a planned line
 * depends only on its offset.  Fixed code is simulated at its address.
 */
#ifndef CACHEPIN_PLAN_INT_H
#define CACHEPIN_PLAN_INT_H

#include "cachepin/plan.h"
#include "internal.h"


struct hunit {			/* a hot unit being placed */
	uint32_t unit;
	uint64_t size, align, room;	/* the slot a method places: size, aligned (growth's room comes after) */
	double weight;
	uint32_t first_item, nr_items;	/* into pl->it (items of this unit) */
	int64_t off;		/* -1 = not placed */
	bool frozen;		/* kept from the previous plan: the search moves it not */
	uint32_t prev_set;	/* --keep: its first set in the old plan, or UINT32_MAX */
};

struct sitem {			/* an item of the search string */
	uint32_t func;
	int32_t hunit;		/* -1: fixed (keeps its address) */
	uint64_t uoff;		/* offset in its unit (hot) */
	uint32_t count;		/* references in the search string */
	double rate;		/* the profile's fetches, in the string's units */
	uint32_t first_pos;	/* into pl->pos */
	uint64_t addr;		/* current address */
};

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

/*
 * From the heat colouring the search needs fewer moves than it did from
 * the greedy one (measured, the shipped router-lab, 32K:4:32, planned
 * from the first half's profile and scored on the trace's second half:
 * 116,675 LRU misses at 6,000 moves, 113,789 at 3,000), and the
 * 35 k-function vmlinux plans in seconds.
 */
#define SEARCH_DEFAULT_ITERS 3000

/*
 * Where cachepin_plan__run() is, for the progress callback: of the
 * layouts it builds (a candidate on one fold, one restart, the final
 * scoring), each weighing what it costs (cachepin_plan_weight()), AT
 * of TOTAL are done; the current one weighs CUR, LABEL says what it is.
 */
struct plan_progress {
	char label[80];
	uint64_t at, total, cur;
};

/*
 * plan-progress.c: the cost of one layout of METHOD for the progress: 1,
 * the search more (on a recorded run if EXACT: its repair is longer).
 */
uint64_t cachepin_plan_weight(const struct cachepin_plan_opts *o, bool exact,
			      enum cachepin_plan_method method);

/*
 * A repair move of the search costs about REPAIR_COST local-search moves:
 * it ranks every phase and simulates up to three offsets, where a local
 * move is mostly turned away by the proxy (measured: the MIPS router's
 * trace, 8.5 ms against 0.20 ms; its perf profile, 2.3 ms against
 * 0.05 ms; the ARM router's trace, 6.8 ms against 0.18 ms).
 */
#define REPAIR_COST 40

/*
 * The repair's moves, as a share of the local search's: REPAIR_DIV_EXACT
 * on a recorded run, REPAIR_DIV on samples.  A recorded run's string is
 * the run itself, and a repair move (a set that misses, one of its hot
 * units at the offsets of least pressure, each tried on the exact
 * simulation) gains more there than a random relocation.  Measured on
 * the lab's routers at 32K:4:32, each planned from one boot's QEMU trace
 * and laid out on another boot's (ARM and MIPS, both ways, LRU): a
 * tenth, the mean change against stock -51.4 %; half, -55.2 % (-54.1,
 * -53.9, -42.4, -55.1 % became -58.0, -56.4, -46.6, -59.9 %);
 * pseudo-random -42.0 % and -45.2 %; all, -55.8 % in twice the time.
 * Four times the local search's moves with a tenth gave -54.2 %.  On
 * their perf profiles half did worse (ARM -33.4 and -33.3 % with two
 * seeds became -30.6 and -32.1 %; MIPS -42.9 and -43.6 % became -40.8
 * and -42.2 %): fitting samples harder fits their noise.
 */
#define REPAIR_DIV 10
#define REPAIR_DIV_EXACT 2

/* The search's local-search moves: --iterations, or SEARCH_DEFAULT_ITERS. */
static inline unsigned int cachepin_plan_iters(const struct cachepin_plan_opts *o)
{
	return o->iterations ? o->iterations : SEARCH_DEFAULT_ITERS;
}

/* The search's repair moves after ITERS local-search moves, on a recorded run if EXACT. */
static inline unsigned int cachepin_plan_repairs(unsigned int iters, bool exact)
{
	return iters / (exact ? REPAIR_DIV_EXACT : REPAIR_DIV);
}

/* The search's work in local-search moves: ITERS, and its repair's at REPAIR_COST each. */
static inline uint64_t cachepin_plan_search_work(unsigned int iters, bool exact)
{
	return iters + (uint64_t)REPAIR_COST * cachepin_plan_repairs(iters, exact);
}

/* PERMILLE thousandths of the current step done, to the callback; PG may be NULL. */
void cachepin_plan_progress(const struct plan_progress *pg, unsigned int permille);

/*
 * The problem every method solves and the layout it builds: the model,
 * the geometries with their set members and misses (the exact
 * simulation's, and the greedy proxy's counts), the hot units and their
 * offsets, the placed intervals.  What a method needs of its own is its
 * own: the colourings' rule (struct colour_rule), the search's random
 * numbers and progress (plan-search.c), keep's base (plan-cand.c).
 */
struct planner {
	const struct cachepin_model *m;
	const struct cachepin_binary *bin;
	const struct cachepin_plan_opts *o;
	struct geo geo[CACHEPIN_PLAN_MAX_GEO];
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
	uint64_t fit_slack;	/* the smallest cache's bytes past them, if they fit it packed */
	uint64_t growth;	/* any one unit may grow this much (plan->layout.growth): the methods
				 * place without it, cachepin_plan_room() makes its room */
	/* the exact simulation's scratch */
	uint64_t *heap;
	size_t cap_heap;
	uint64_t *lru;
};

/*
 * How a colouring weighs a conflict (plan-heat.c, and the line colouring
 * of plan-cand.c): per geometry 1 over the link's misses there, 1 alone,
 * 0 where another geometry goes first; and the line colouring's rule.
 */
struct colour_rule {
	double weight[CACHEPIN_PLAN_MAX_GEO];
	bool ever;		/* against the lightest line ever in a set, not the ways' */
};

/* What a method is given besides the set-up planner. */
struct method_args {
	struct colour_rule rule;
	uint64_t seed;		/* the search's random numbers */
	struct plan_progress *prog;	/* may be NULL */
};

/*
 * How a method places the hot units on the set-up planner PL, counting
 * the search's moves into PLAN.  0 or -ENOMEM.
 */
typedef int plan_place_fn(struct planner *pl, const struct method_args *a,
			  struct cachepin_plan *plan);

/* A method: its name, what it is (METHOD_*), its placing; plan.c has the table. */
struct plan_method {
	const char *name;
	unsigned int flags;
	plan_place_fn *place;
};

#define METHOD_DEFAULT	(1u << 0)	/* a candidate when no method is asked for */
#define METHOD_COLOURS	(1u << 1)	/* weighs several geometries by the link's misses */
#define METHOD_RULES	(1u << 2)	/* tries both line rules, and each geometry first */
#define METHOD_SEEDED	(1u << 3)	/* depends on the seed: restarts */
#define METHOD_BARE	(1u << 4)	/* no growth room, no gap budget (the reference) */
#define METHOD_IN_PLACE	(1u << 5)	/* cold units fill at their linked distance (keep) */

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static inline uint32_t addr_set(const struct geo *g, uint64_t addr)
{
	return cachepin_cache__set(g->c, addr);
}

/* Address of item IT if its unit sits at OFF. */
static inline uint64_t item_addr_at(const struct planner *pl, const struct sitem *it,
				    uint64_t off)
{
	return pl->base + off + it->uoff;
}

/* A multiple of every block alignment, farther than any block is long. */
#define TAIL_FAR (1ULL << 40)

/* Distance between the phases tried for H: its alignment, 16 at least, a way span at most. */
static inline uint64_t phase_step(const struct planner *pl, const struct hunit *h)
{
	uint64_t step = h->align > 16 ? h->align : 16;

	return step > pl->span_bytes ? pl->span_bytes : step;
}

/*
 * plan-setup.c: the planner of M for OPTS (geometries, hot units, search
 * string, per-geometry tables with the fixed occupants), counting into
 * PLAN what it finds; with ROOM, room for growth.  0, -ENOENT (after logging: nothing movable is hot),
 * -EINVAL or -ENOMEM; release PL with cachepin_plan_free() in any case.
 */
int cachepin_plan_setup(struct planner *pl, struct cachepin_plan *plan, bool room);
void cachepin_plan_free(struct planner *pl);

/*
 * plan-room.c: every placed unit with less than pl->growth bytes free
 * after it moved by whole way spans to where it has them (its sets
 * kept).  0 or -ENOMEM.
 */
int cachepin_plan_room(struct planner *pl, struct cachepin_plan *plan);

/* plan-slot.c */
/* Is [LO, HI) free and inside the block? */
bool cachepin_plan_slot_free(const struct planner *pl, uint64_t lo, uint64_t hi);
/* Lowest free offset with OFF % span == PHASE for unit H, or -1. */
int64_t cachepin_plan_find_slot(const struct planner *pl, const struct hunit *h, uint64_t phase);
/* Bytes a slot at AT for H would strand in gaps too small for a cold unit. */
uint64_t cachepin_plan_slot_waste(const struct planner *pl, uint64_t at, const struct hunit *h);
/*
 * The lines of fixed code in geometry GI, each once with its set and
 * fetches, to FN (fixed items are in address order); FN's first error.
 */
int cachepin_plan_fixed_lines(const struct planner *pl, size_t gi,
			      int (*fn)(void *ctx, uint32_t set, double fetches), void *ctx);
/* Place H at OFF: intervals, item addresses, set members (no miss update). 0 or -ENOMEM. */
int cachepin_plan_place(struct planner *pl, struct hunit *h, uint64_t off);
void cachepin_plan_unplace(struct planner *pl, struct hunit *h);

/* plan-sim.c */
/* LRU misses of the references of ITEMS (N of them) on G, or UINT64_MAX on ENOMEM. */
uint64_t cachepin_plan_sim_set(struct planner *pl, const struct geo *g, const uint32_t *items,
			       uint32_t n);
/* Simulate every set of every geometry; scale each to weigh 1.  0 or -ENOMEM. */
int cachepin_plan_sim_all(struct planner *pl);
uint64_t cachepin_plan_total_miss(const struct geo *g);
int cachepin_plan_member_add(struct geo *g, uint32_t set, uint32_t item);
void cachepin_plan_member_del(struct geo *g, uint32_t set, uint32_t item);

/* plan-greedy.c */
/*
 * Set-pressure cost of H at PHASE summed over the geometries; with
 * COMMIT, add (SIGN > 0) or remove its lines from the counts instead.
 */
double cachepin_plan_proxy_cost(struct planner *pl, const struct hunit *h, uint64_t phase,
				bool commit, int sign);

/*
 * The methods (struct plan_method's place): plan-search.c the search
 * (the heat colouring, local search on the simulation, repair: its
 * moves counted into PLAN); plan-heat.c the heat colouring (the better
 * on the search string of the heat and the reference rule, its set
 * misses simulated: cachepin_plan_sim_all()) and the reference
 * colouring; plan-greedy.c the greedy colouring; plan-cand.c the other
 * candidates.
 */
plan_place_fn cachepin_plan_search, cachepin_plan_heat, cachepin_plan_reference,
	cachepin_plan_greedy, cachepin_plan_keep, cachepin_plan_density, cachepin_plan_colour,
	cachepin_plan_c3;

/* plan-setup.c: the block alignment for OPTS' geometries, their largest way span. */
uint64_t cachepin_plan_block_align(const struct cachepin_plan_opts *o);

/* plan-fill.c: the bytes of the cold units the fill may put in gaps. */
uint64_t cachepin_plan_fillable(const struct planner *pl);

/*
 * plan-fill.c: the units of PLAN in block order, the gaps filled (with
 * IN_PLACE, the cold units linked before a hot unit at their linked
 * distance from it).  0 or -ENOMEM.
 */
int cachepin_plan_fill(struct planner *pl, struct cachepin_plan *plan, bool in_place);

/*
 * plan-keep.c: the hot units of opts.prev that still fit their slots
 * placed there, frozen, counted into PLAN (kept, placed again, gone,
 * new).  0, -EXDEV (the old block has another alignment: planned for
 * other caches; nothing logged), or -ENOMEM.
 */
int cachepin_plan_keep_prev(struct planner *pl, struct cachepin_plan *plan);
/* plan-keep.c: after the plan, the hot units of both plans in another first set, into PLAN. */
void cachepin_plan_keep_count(const struct planner *pl, struct cachepin_plan *plan);
/*
 * A binary linked with a plan (__cachepin_start and __cachepin_end): the
 * plan of its block as it is, every unit at its offset, hot where the
 * model has fetches; the caller sets the block alignment.  0, 1 where
 * BIN has no block, or -ENOMEM.
 */
int cachepin_plan_as_linked(const struct cachepin_model *m, struct cachepin_plan *plan);

#endif
