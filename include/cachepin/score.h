/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The miss estimator (the model of cachepin-score(1)): a layout and
 * simulated caches for the reference string of cachepin/model.h.
 *
 * A layout (an address per function) maps granules to cache lines;
 * consecutive references to the same line are one fetch.  The line string
 * is then simulated exactly: set-associative LRU, pseudo-random,
 * round-robin and Belady-optimal, and fully associative LRU of the same
 * capacity.  Conflict misses = set-associative LRU - fully associative LRU.
 */
#ifndef CACHEPIN_SCORE_H
#define CACHEPIN_SCORE_H

#include "cachepin/cache.h"
#include "cachepin/layout.h"
#include "cachepin/model.h"

struct cachepin_score_set {
	uint32_t lines;		/* distinct hot lines mapping to the set */
	double weight;		/* profile weight of those lines */
	uint64_t fetches;
	uint64_t miss[CACHEPIN_REPL__NR];	/* set-associative misses */
	uint64_t miss_fa;	/* fully associative LRU misses of its lines */
};

struct cachepin_score {
	struct cachepin_cache cache;
	uint64_t fetches;		/* line fetches simulated */
	uint64_t distinct_lines;
	uint64_t miss[CACHEPIN_REPL__NR];	/* totals, set-associative */
	uint64_t miss_fa_lru, miss_fa_opt;	/* fully associative, same capacity */
	struct cachepin_score_set *sets;	/* cache.sets entries */
	uint64_t *func_miss;	/* per binary function: LRU misses (or NULL) */
	uint64_t *func_miss_fa;	/* per binary function: fully associative LRU misses */
	/* one entry per distinct line: (line number, function) for reports */
	uint64_t *line_no;
	uint32_t *line_func;
	double *line_weight;
	uint64_t *line_miss;	/* LRU misses of each line */
	size_t nr_lines;
};

enum cachepin_score_flags {
	CACHEPIN_SCORE_NO_OPT	= (1 << 0),	/* skip Belady, the policy that needs the
						 * future (the slowest) */
	CACHEPIN_SCORE_DETAIL	= (1 << 1),	/* fill sets, per-func and per-line data */
	CACHEPIN_SCORE_OWN_POLICY = (1 << 2),	/* only the cache's own policy: no other
						 * miss[], no fully associative figures */
};

/*
 * Score model M on layout L of its binary (NULL: as linked) on cache C
 * into OUT.  Returns 0, OUT to be released with
 * cachepin_score__release(); or a negative errno (-ENOMEM) with OUT
 * released already (all zero).
 */
int cachepin_score__run(const struct cachepin_model *m, const struct cachepin_layout *l,
			const struct cachepin_cache *c, unsigned int flags,
			struct cachepin_score *out);
/* Free the arrays S holds and zero it (not S itself).  S may be NULL. */
void cachepin_score__release(struct cachepin_score *s);

/* ---- where a scored layout loses (needs CACHEPIN_SCORE_DETAIL) ---- */

/*
 * The sets of S by LRU misses, most first (ties: lower set first): an
 * array of S->cache.sets set numbers in *ORDER (caller frees).  Returns
 * 0 or -ENOMEM.
 */
int cachepin_score__worst_sets(const struct cachepin_score *s, uint32_t **order);

/*
 * The lines of SET, heaviest first: the indices (into S->line_*) of its
 * MAX heaviest in OUT.  Returns how many lines the set holds (may be
 * more than MAX).
 */
size_t cachepin_score__set_lines(const struct cachepin_score *s, uint32_t set, size_t *out,
				 size_t max);

/* Two functions that share over-full sets. */
struct cachepin_score_pair {
	uint32_t a, b;		/* binary function indices, a < b */
	uint64_t miss;		/* per shared over-full set, the smaller of their misses there, summed */
	uint32_t sets;		/* over-full sets they share */
};

/*
 * The pairs of functions fighting over sets: per over-full set (more
 * hot lines than ways, and misses), its 8 functions with the most misses
 * pair up.  *PAIRS (caller frees) gets *NR pairs, most misses first
 * (ties: by a, then b).  Linear in the lines.  Returns 0, -EINVAL when S
 * was scored without CACHEPIN_SCORE_DETAIL, or -ENOMEM.
 */
int cachepin_score__pairs(const struct cachepin_score *s, struct cachepin_score_pair **pairs,
			  size_t *nr);

struct cachepin_profile;

/*
 * The LRU misses of S (CACHEPIN_SCORE_DETAIL) in the code of each other
 * object of P: a shared library's hot pages, the fixed occupants
 * "[NAME+0xPAGE]" that loading P added to BIN.  OUT[i] gets those of
 * P->objects[i] (P->nr_objects entries), PAGES[i] (unless NULL) how many
 * of its pages BIN holds: an object without any (the kernel, a library
 * whose samples had no address) has no lines.  Returns how many objects
 * have pages in BIN (counted when PAGES is given, else 0), or -EINVAL
 * when S was scored without the detail.
 */
int cachepin_score__object_misses(const struct cachepin_score *s, const struct cachepin_binary *bin,
				  const struct cachepin_profile *p, uint64_t *out, size_t *pages);

#endif
