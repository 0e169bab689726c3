/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reference-string model (the input of cachepin-score(1) and of the
 * planner).
 *
 * A profile says how often each 16-byte granule of each function runs
 * and, through callchains, which functions run inside which.  The model
 * turns that into a layout-independent reference string:
 *
 *  1. Execution order: a depth-first walk of the call graph from its
 *     roots (heaviest first); inside a function its granules run in
 *     address order and each callee runs at its call site.  Functions
 *     the walk does not reach follow, heaviest first.
 *  2. Rates: granule i is fetched n_i = round(L * w_i / W) times in a
 *     string of L references (weights are time, so a granule's share of
 *     samples is its share of fetches).
 *  3. Interleaving: occurrence k of granule i happens at time
 *     (k + phase_i) / n_i, phase_i being its rank in the execution order
 *     divided by the number of granules.  Code that runs once per packet
 *     therefore cycles through its lines in program order, as it does on
 *     the router: five such lines in one 4-way LRU set miss every time.
 *  4. Time: a profile of a recording in time order has its weights per
 *     time slice (cachepin-profile(5)).  The string then replays the
 *     slices in order, each interleaved as in 3 from its own weights and
 *     as long as its share of the weight, so that code of one phase of
 *     the run does not compete with code of another.  Between two
 *     samples the cache turns over many times, so the order inside a
 *     slice is the model's, the order of the slices the recording's.
 *     A granule that no sample hit (a hole, a call site) runs in the
 *     slices of the granule or function it was inferred from.
 *
 * cachepin/score.h maps the string to cache lines for a layout and
 * simulates it.
 */
#ifndef CACHEPIN_MODEL_H
#define CACHEPIN_MODEL_H

#include "cachepin/binary.h"
#include "cachepin/profile.h"

struct cachepin_loaded;
struct cachepin_modules;

struct cachepin_model_item {
	uint32_t func;		/* binary function index */
	uint32_t off;		/* granule offset in the function */
	double weight;
	uint32_t count;		/* fetches in the reference string */
	uint32_t rank;		/* execution-order rank */
};

struct cachepin_model_edge {	/* a call edge seen in callchains */
	uint32_t caller, callee;	/* binary function indices */
	double weight;
};

struct cachepin_model {
	const struct cachepin_binary *bin;
	struct cachepin_model_item *items;
	size_t nr_items;
	uint32_t *refs;		/* reference string of item indices */
	size_t nr_refs;
	double weight;		/* total weight modelled */
	double dropped;		/* weight of granules too cold for one fetch */
	uint32_t granule;
	bool ordered;		/* the order came from call edges */
	struct cachepin_model_edge *edges;	/* for call-graph orders (C3) */
	size_t nr_edges;
	bool exact;		/* the string is a recorded run's (cachepin_model__from_qemu()) */
	/*
	 * A recorded run is its string COPIES times, each RUN_REFS long: once,
	 * or with its modules on each page a module may load on, copy K with
	 * their code K pages on (TWIN[(K - 1) * run_items + I]: the item in
	 * copy K of item I of the first copy, which has RUN_ITEMS items).
	 */
	uint32_t copies;
	size_t run_refs, run_items;
	uint32_t *twin;
	uint32_t nr_slices;	/* time slices replayed (0: one, no time order) */
	double *slice_w;	/* nr_items x nr_slices: each item's weight per slice */
};

struct cachepin_model_opts {
	size_t refs;		/* L; 0 = default (2 M) */
	bool whole;		/* every line of a sampled function is hot (from its first
				 * sampled granule to its end), not only the sampled ones */
	unsigned int half;	/* 0: all of the profile; 1 or 2: one of two halves
				 * for held-out scoring (see below) */
};

/*
 * Held-out halves (opts.half): with 4 time slices or more, half 1 is the
 * even slices and half 2 the odd ones, so both see every phase of the
 * run; otherwise, and when the slices are phases (profile->phases),
 * every granule's samples are split between the halves at random
 * (binomial thinning with a fixed seed, which turns the sampling noise
 * of one recording into two independent ones), each half keeping the
 * granule's share of every phase.
 * cachepin_model__can_split() says whether P has either: a hot list
 * without offsets (one sample per function) has not.
 */
bool cachepin_model__can_split(const struct cachepin_profile *p);
/* Whether P's halves are its even and odd time slices (else thinned samples). */
bool cachepin_model__split_by_slices(const struct cachepin_profile *p);

/*
 * Build the model of profile P on BIN (MAP from cachepin_profile__match;
 * OPTS may be NULL for the defaults).  The model points to BIN, which
 * must outlive it; P and MAP are not kept.  Returns the model, to be
 * released with cachepin_model__free(), or NULL with errno set (ENOMEM)
 * on failure.
 */
struct cachepin_model *cachepin_model__new(const struct cachepin_profile *p,
					   const struct cachepin_binary *bin, const int *map,
					   const struct cachepin_model_opts *opts);

/*
 * The model of a recorded run, the QEMU `-d in_asm,exec,nochain` log at
 * PATH (a file; "-" for standard input), on BIN: every granule of BIN's
 * functions that ran is an item, and the string is the order in which
 * they ran (straight code in one granule one fetch); no call edges, no
 * slices.  Scoring a layout with it is simulating the run on that layout.
 * NULL with errno set on failure (after logging for a file that cannot be
 * read; ENODATA: no fetch of BIN's code).
 */
struct cachepin_model *cachepin_model__from_qemu(const struct cachepin_binary *bin,
						 const char *path);

/*
 * A traced kernel's modules: where it had them (a copy of its
 * /proc/modules) and their files.
 */
struct cachepin_model_modules {
	const struct cachepin_loaded *loaded;
	size_t nr_loaded;
	struct cachepin_modules *mods;
	unsigned int pages;	/* >1: the occupants' copies on every page of a way span */
};

/*
 * The same of a log recorded on TRACED, another link of BIN's code (a
 * stock kernel traced, a tree with the text-layout hook planned): each
 * fetch of a function that TRACED and BIN hold once by name, with the
 * same size, is that function's in BIN at the same offset; fetches of
 * other code are dropped, and their share goes to *DROPPED (may be
 * NULL).  With MM (may be NULL), a fetch in a module's text as the
 * kernel had it loaded is one of the function's occupant in BIN
 * (cachepin_occupants__add(): a function of a module at the address it
 * ran at, modulo the region), so that the run's module code contends for
 * the sets it had in the run; module code without an occupant is left
 * out.  With MM->pages P > 1 (cachepin_occupants__spread()), the string is
 * the run P times, its module code on the recorded page in the first
 * copy and K pages on in copy K: each page a module may load on weighs
 * alike.  NULL with errno set (ENODATA: no fetch of such a function).
 */
struct cachepin_model *cachepin_model__from_qemu_of(const struct cachepin_binary *bin,
						    const struct cachepin_binary *traced,
						    const char *path,
						    const struct cachepin_model_modules *mm,
						    double *dropped);

/*
 * HALF (1: the first, 2: the second) of the run of M, a model from
 * cachepin_model__from_qemu(): the same items, the run's half (in every
 * copy of a run on several pages).  NULL
 * with errno set (EINVAL: M is no recorded run).
 */
struct cachepin_model *cachepin_model__trace_half(const struct cachepin_model *m,
						  unsigned int half);

/* Free M and what it holds (not its binary).  M may be NULL. */
void cachepin_model__free(struct cachepin_model *m);

/*
 * The reference string of M for another length L (the planner searches on
 * a shorter one): item indices, *N of them; of a recorded run, the L
 * references in the middle of it, in their order.  Caller frees; NULL
 * with errno ENOMEM on failure.
 */
uint32_t *cachepin_model__string(const struct cachepin_model *m, size_t L, size_t *n);

#endif
