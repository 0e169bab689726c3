/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two builds of one code base under one profile (cachepin diff): which
 * hot functions changed cache set, which pairs of functions now share
 * over-full sets and which no longer do, and the modelled misses of
 * each build, from a score of each (cachepin/score.h, with
 * CACHEPIN_SCORE_DETAIL) on the same cache.
 */
#ifndef CACHEPIN_DIFF_H
#define CACHEPIN_DIFF_H

#include "cachepin/binary.h"
#include "cachepin/score.h"

/* A hot function of either build that both builds name once. */
struct cachepin_diff_func {
	const char *name;		/* OLD's */
	uint32_t old_func, new_func;	/* indices in each binary */
	uint64_t old_addr, new_addr;
	uint32_t old_set, new_set;	/* the set of its first byte */
	uint64_t old_miss, new_miss;	/* modelled LRU misses of its lines */
	double weight;			/* profile weight of its lines (the larger of the two) */
};

/* A pair of functions that share over-full sets in one build only. */
struct cachepin_diff_pair {
	const char *a, *b;		/* a < b (strcmp) */
	uint64_t miss;			/* what cachepin_score__pairs() gives it in that build */
	uint32_t sets;
	bool added;			/* in NEW, not in OLD (else the reverse) */
};

struct cachepin_diff {
	struct cachepin_diff_func *funcs;	/* by impact: |new_miss - old_miss|, then weight */
	size_t nr_funcs;
	size_t nr_moved;		/* of them, in another set */
	size_t nr_unmatched;		/* hot functions whose name is not once in each build */
	struct cachepin_diff_pair *pairs;	/* most misses first */
	size_t nr_pairs;
};

/*
 * Compare OLD (scored as OS) with NEW (scored as NS): both on the same
 * cache.  OLD_L and NEW_L (may be NULL: as linked) are the layouts the
 * scores were made on (cachepin_score__run()'s L): two layouts of one
 * binary compare as two builds.  Returns 0 (D to be released with cachepin_diff__release()),
 * -EINVAL when a score lacks CACHEPIN_SCORE_DETAIL or the caches differ,
 * -ENOMEM.
 */
int cachepin_diff__run(const struct cachepin_binary *old, const struct cachepin_score *os,
		       const struct cachepin_layout *old_l, const struct cachepin_binary *new,
		       const struct cachepin_score *ns, const struct cachepin_layout *new_l,
		       struct cachepin_diff *d);

void cachepin_diff__release(struct cachepin_diff *d);

#endif
