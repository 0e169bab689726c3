// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The planner (see cachepin/plan.h): one search per seed (greedy set
 * colouring of the hot units, local search on the exact per-set LRU
 * simulation of a shorter reference string, repair, then cold fill and
 * padding; the phases are in plan-*.c, see plan-int.h), the choice among
 * the restarts on the full model, and the evaluation of the winner.
 */
#include "plan-int.h"

/* One search from SEED into PLAN.  0 or a negative errno, PLAN empty. */
static int plan_search(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		       uint64_t seed, struct cachepin_plan *plan)
{
	struct planner pl = { .m = m, .bin = m->bin, .o = o };
	int err;

	memset(plan, 0, sizeof(*plan));
	pl.rng = seed ? seed : 0x2545f4914f6cdd1dULL;
	if ((err = cachepin_plan_setup(&pl, plan)))
		goto out;
	/* 1. greedy colouring, densest first; the exact misses of its layout */
	if ((err = cachepin_plan_greedy(&pl)) || (err = cachepin_plan_sim_all(&pl)))
		goto out;
	plan->search_before = cachepin_plan_total_miss(&pl.geo[0]);
	/* 2. local search, 3. repair of the sets that still miss */
	if ((err = cachepin_plan_local_search(&pl, plan)) || (err = cachepin_plan_repair(&pl, plan)))
		goto out;
	plan->search_after = cachepin_plan_total_miss(&pl.geo[0]);
	/* 4. emit order, cold fill, padding */
	err = cachepin_plan_fill(&pl, plan);
	plan->seed = seed;
out:
	if (err)
		cachepin_plan__release(plan);
	cachepin_plan_free(&pl);
	return err;
}

/*
 * The full model's misses of PLAN's layout on every geometry into
 * plan->evals (after, lru_after), and *V their sum in misses per fetch
 * of each cache's replacement policy.  0 or a negative errno.
 */
static int judge(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		 struct cachepin_plan *plan, double *v)
{
	uint64_t *fa = cachepin_plan__faddr(plan, m->bin);
	size_t i;
	int err = 0;

	*v = 0;
	plan->evals = calloc(o->nr_caches, sizeof(*plan->evals));
	if (!fa || !plan->evals) {
		free(fa);
		return -ENOMEM;
	}
	plan->nr_evals = o->nr_caches;
	for (i = 0; i < o->nr_caches; i++) {
		const struct cachepin_cache *c = &o->caches[i];
		struct cachepin_score sc;

		if ((err = cachepin_score__run(m, fa, c, CACHEPIN_SCORE_NO_OPT, &sc)))
			break;
		plan->evals[i].after = sc.miss[c->repl];
		plan->evals[i].lru_after = sc.miss[CACHEPIN_REPL_LRU];
		*v += (double)sc.miss[c->repl] / (double)(sc.fetches ? sc.fetches : 1);
		cachepin_score__release(&sc);
	}
	free(fa);
	return err;
}

/* The as-linked side of plan->evals.  0 or a negative errno. */
static int judge_before(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			struct cachepin_plan *plan)
{
	size_t i;
	int err;

	for (i = 0; i < plan->nr_evals; i++) {
		const struct cachepin_cache *c = &o->caches[i];
		struct cachepin_score sc;

		if ((err = cachepin_score__run(m, NULL, c, CACHEPIN_SCORE_NO_OPT, &sc)))
			return err;
		plan->evals[i].fetches = sc.fetches;
		plan->evals[i].before = sc.miss[c->repl];
		plan->evals[i].lru_before = sc.miss[CACHEPIN_REPL_LRU];
		cachepin_score__release(&sc);
	}
	return 0;
}

int cachepin_plan__run(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		       struct cachepin_plan *plan)
{
	unsigned int runs = o->restarts ? o->restarts : 1, run;
	double best = 0;
	int err;

	memset(plan, 0, sizeof(*plan));
	/* restarts: each a full search; the full model of every geometry judges */
	for (run = 0; run < runs; run++) {
		struct cachepin_plan cand;
		double v;

		if ((err = plan_search(m, o, o->seed + run, &cand)))
			goto fail;
		if ((err = judge(m, o, &cand, &v))) {
			cachepin_plan__release(&cand);
			goto fail;
		}
		if (run == 0 || v < best) {
			best = v;
			cachepin_plan__release(plan);
			*plan = cand;
		} else {
			cachepin_plan__release(&cand);
		}
	}
	if (!(err = judge_before(m, o, plan)))
		return 0;
fail:
	cachepin_plan__release(plan);
	return err;
}

void cachepin_plan__release(struct cachepin_plan *plan)
{
	if (!plan)
		return;
	free(plan->units);
	free(plan->evals);
	memset(plan, 0, sizeof(*plan));
}

uint64_t *cachepin_plan__faddr(const struct cachepin_plan *plan, const struct cachepin_binary *bin)
{
	uint64_t *fa = malloc((bin->nr_funcs + 1) * sizeof(*fa));
	size_t i, j;

	if (!fa)
		return NULL;
	for (i = 0; i < bin->nr_funcs; i++)
		fa[i] = bin->funcs[i].addr;
	for (i = 0; i < plan->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[plan->units[i].unit];

		for (j = 0; j < u->nr_funcs; j++) {
			const struct cachepin_func *f = &bin->funcs[u->first_func + j];

			fa[u->first_func + j] = plan->base + plan->units[i].off + (f->addr - u->addr);
		}
	}
	return fa;
}
