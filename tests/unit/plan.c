// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The planner on hand-built binaries whose hot functions, as linked, all
 * sit in one set: it finds the arrangements that leave only cold misses
 * where there is one (a direct-mapped cache with a fixed occupant, a
 * 2-way cache with exactly two hot lines per set), its evaluation agrees
 * with the scorer, the same seed gives the same plan, and restarts keep
 * the first best of the single searches from their seeds; its alignment
 * file reads back as the plan it was written from.  Every other candidate
 * places every hot unit in block order, the link's own sets kept ("keep")
 * miss exactly as the link does, and the choice among candidates takes
 * the lowest ratio among those that beat the link, the search over the
 * others that move code only with its lead.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "cachepin/align.h"
#include "cachepin/plan.h"
#include "unit.h"

#define MAXF 32
#define BASE 0x10000

struct fspec {
	uint64_t size;
	double weight;		/* 0: cold */
	bool fixed;
};

struct scene {
	const char *what;
	const char *caches[2];
	unsigned int iterations;	/* 0: the default */
	uint64_t stride;	/* as linked: functions this far apart */
	uint64_t want_after;	/* misses of the plan on caches[0]; 0: only fewer than before */
	bool fits;		/* no set of caches[0] holds more hot lines than it has ways */
	bool varied;		/* the seeds of the restarts do not all find the same layout */
	size_t nr;
	struct fspec f[MAXF];
};

static const struct scene scenes[] = {
	{
		/* set 0 is taken: the 2-line unit goes to sets 1-2 or 2-3, the others to the rest */
		"direct-mapped, a fixed occupant", { "64:1:16" }, 0, 64, 4, true, false, 4,
		{ { 16, 10, true }, { 32, 10, false }, { 16, 10, false }, { 16, 0, false } },
	},
	{
		"2-way, eight hot lines in four sets", { "128:2:16" }, 0, 64, 8, true, false, 8,
		{ { 16, 10 }, { 16, 9 }, { 16, 8 }, { 16, 7 }, { 16, 6 }, { 16, 5 }, { 16, 4 },
		  { 16, 3 } },
	},
	{
		"over capacity, two geometries", { "256:2:16", "512:4:16" }, 300, 256, 0, false, true,
		24,
		{ { 48, 31 }, { 16, 7 }, { 64, 19 }, { 32, 3 }, { 16, 0 }, { 80, 23 }, { 16, 11 },
		  { 32, 5 }, { 48, 29 }, { 16, 0 }, { 16, 2 }, { 64, 13 }, { 32, 17 }, { 16, 1 },
		  { 96, 37 }, { 32, 0 }, { 16, 9 }, { 48, 4 }, { 32, 41 }, { 16, 6 }, { 64, 0 },
		  { 16, 14 }, { 32, 8, true }, { 48, 12 } },
	},
};

struct world {
	char names[MAXF][16], secs[MAXF][24];
	struct cachepin_func funcs[MAXF];
	struct cachepin_unit units[MAXF];
	struct cachepin_pfunc pfuncs[MAXF];
	int map[MAXF];
	struct cachepin_binary bin;
	struct cachepin_profile prof;
	struct cachepin_model *m;
	struct cachepin_cache caches[2];
	struct cachepin_plan_opts po;
};

static int build(struct world *w, const struct scene *sc)
{
	struct cachepin_model_opts mo = { .refs = 1 << 16 };
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < sc->nr; i++) {
		const struct fspec *f = &sc->f[i];
		uint64_t addr = BASE + i * sc->stride;

		snprintf(w->names[i], sizeof(w->names[i]), "f%u", (unsigned int)i);
		snprintf(w->secs[i], sizeof(w->secs[i]), ".text.f%u", (unsigned int)i);
		w->funcs[i] = (struct cachepin_func){
			.name = w->names[i], .addr = addr, .size = f->size, .sec = -1, .unit = (int)i,
		};
		w->units[i] = (struct cachepin_unit){
			.section = w->secs[i], .object = "p.o", .addr = addr, .size = f->size,
			.align = 16, .outsec = -1, .flags = f->fixed ? 0 : CACHEPIN_UNIT_MOVABLE,
			.first_func = i, .nr_funcs = 1,
		};
		w->pfuncs[i] = (struct cachepin_pfunc){
			.name = w->names[i], .weight = f->weight, .incl = f->weight, .size = f->size,
		};
		w->map[i] = (int)i;
	}
	w->bin = (struct cachepin_binary){
		.path = "synthetic", .funcs = w->funcs, .nr_funcs = sc->nr, .units = w->units,
		.nr_units = sc->nr,
	};
	w->prof = (struct cachepin_profile){ .granule = 16, .funcs = w->pfuncs, .nr_funcs = sc->nr };
	for (i = 0; i < 2 && sc->caches[i]; i++)
		if (cachepin_cache__parse(&w->caches[i], sc->caches[i]))
			return -1;
	w->po = (struct cachepin_plan_opts){
		.caches = w->caches, .nr_caches = i, .max_pad = 512, .seed = 1,
		.iterations = sc->iterations,
	};
	w->m = cachepin_model__new(&w->prof, &w->bin, w->map, &mo);
	return w->m ? 0 : -1;
}

/* The restarts' judgement of PLAN: misses per fetch summed over the geometries. */
static double judged(const struct world *w, const struct cachepin_plan *plan)
{
	double v = 0;
	size_t i;

	if (!plan->layout.delta)
		return -1;
	for (i = 0; i < w->po.nr_caches; i++) {
		const struct cachepin_cache *c = &w->caches[i];
		struct cachepin_score s;

		if (cachepin_score__run(w->m, &plan->layout, c, CACHEPIN_SCORE_NO_OPT, &s))
			return -1;
		v += (double)s.miss[c->repl] / (double)(s.fetches ? s.fetches : 1);
		cachepin_score__release(&s);
	}
	return v;
}

static bool same_plan(const struct cachepin_plan *a, const struct cachepin_plan *b)
{
	const struct cachepin_layout *x = &a->layout, *y = &b->layout;

	return x->nr_units == y->nr_units && a->nr_evals == b->nr_evals &&
	       x->block_start == y->block_start && x->block_size == y->block_size && x->pad == y->pad &&
	       a->seed == b->seed &&
	       a->search_before == b->search_before && a->search_after == b->search_after &&
	       a->moves_tried == b->moves_tried && a->moves_simulated == b->moves_simulated &&
	       a->moves_taken == b->moves_taken &&
	       !memcmp(x->units, y->units, x->nr_units * sizeof(*x->units)) &&
	       x->delta && y->delta &&
	       !memcmp(x->delta, y->delta, x->bin->nr_funcs * sizeof(*x->delta)) &&
	       !memcmp(a->evals, b->evals, a->nr_evals * sizeof(*a->evals));
}

/* The evaluation in PLAN is what the scorer says of both layouts. */
static void check_evals(const char *what, const struct world *w, const struct cachepin_plan *plan)
{
	bool laid = plan->layout.delta && plan->layout.bin == &w->bin;
	size_t i;

	CHECK(laid && plan->nr_evals == w->po.nr_caches, "%s: %zu evaluations", what, plan->nr_evals);
	for (i = 0; laid && i < plan->nr_evals; i++) {
		const struct cachepin_cache *c = &w->caches[i];
		const struct cachepin_plan_eval *e = &plan->evals[i];
		struct cachepin_score b, a;

		if (cachepin_score__run(w->m, NULL, c, CACHEPIN_SCORE_NO_OPT, &b) ||
		    cachepin_score__run(w->m, &plan->layout, c, CACHEPIN_SCORE_NO_OPT, &a)) {
			CHECK(0, "%s: score", what);
			break;
		}
		CHECK(e->fetches == b.fetches && e->before == b.miss[c->repl] &&
		      e->after == a.miss[c->repl] && e->lru_before == b.miss[CACHEPIN_REPL_LRU] &&
		      e->lru_after == a.miss[CACHEPIN_REPL_LRU],
		      "%s: %s: evaluation %llu -> %llu, the scorer %llu -> %llu", what, c->name,
		      (unsigned long long)e->before, (unsigned long long)e->after,
		      (unsigned long long)b.miss[c->repl], (unsigned long long)a.miss[c->repl]);
		cachepin_score__release(&b);
		cachepin_score__release(&a);
	}
}

/* Hot units in block order, aligned, apart; how many hot lines each set of C gets. */
static void check_layout(const struct scene *sc, const struct world *w,
			 const struct cachepin_plan *plan)
{
	const struct cachepin_cache *c = &w->caches[0];
	uint32_t lines[64] = { 0 };
	uint64_t end = 0, a;
	size_t i, hot = 0;

	for (i = 0; i < sc->nr; i++)
		hot += sc->f[i].weight > 0 && !sc->f[i].fixed;
	CHECK(plan->layout.nr_hot == hot, "%s: %zu of %zu hot units placed", sc->what, plan->layout.nr_hot, hot);
	CHECK(plan->layout.block_start % plan->layout.block_align == 0, "%s: block at 0x%llx", sc->what,
	      (unsigned long long)plan->layout.block_start);
	for (i = 0; i < plan->layout.nr_units; i++) {
		const struct cachepin_layout_unit *pu = &plan->layout.units[i];
		const struct fspec *f = &sc->f[pu->unit];

		CHECK(pu->off >= end && pu->off % pu->align == 0, "%s: unit %u at %llu", sc->what,
		      pu->unit, (unsigned long long)pu->off);
		CHECK(pu->hot == (f->weight > 0) && !f->fixed, "%s: unit %u", sc->what, pu->unit);
		end = pu->off + pu->size;
		if (pu->hot)
			for (a = 0; a < pu->size; a += c->line)
				lines[cachepin_cache__set(c, plan->layout.block_start + pu->off + a)]++;
	}
	for (i = 0; i < sc->nr; i++)
		if (sc->f[i].fixed && sc->f[i].weight > 0)
			for (a = 0; a < sc->f[i].size; a += c->line)
				lines[cachepin_cache__set(c, w->funcs[i].addr + a)]++;
	for (i = 0; sc->fits && i < c->sets; i++)
		CHECK(lines[i] <= c->ways, "%s: set %zu holds %u hot lines", sc->what, i, lines[i]);
}

/* The alignment file of PLAN, written and read back, holds the plan's units. */
static void check_align_round_trip(const struct scene *sc, const struct world *w,
				   const struct cachepin_plan *plan)
{
	struct cachepin_emit_info info = { .version = "0" };
	char path[4096];
	struct cachepin_align *al;
	FILE *f;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/plan-unit.XXXXXX", P_tmpdir);
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		CHECK(0, "%s: cannot create a temporary file", sc->what);
		return;
	}
	CHECK(cachepin_align__write(f, &plan->layout, w->m, &w->caches[0], &info) == 0,
	      "%s: alignment file written", sc->what);
	fclose(f);
	al = cachepin_align__read(path);
	unlink(path);
	CHECK(al && al->nr == plan->layout.nr_units && al->block_align == plan->layout.block_align &&
	      al->line == w->caches[0].line && al->sets == w->caches[0].sets,
	      "%s: alignment file read back", sc->what);
	for (i = 0; al && i < al->nr && i < plan->layout.nr_units; i++) {
		const struct cachepin_layout_unit *pu = &plan->layout.units[i];
		const struct cachepin_align_entry *e = &al->e[i];

		CHECK(e->symbol && !strcmp(e->symbol, w->names[pu->unit]) &&
		      !strcmp(e->section, w->secs[pu->unit]) && e->object &&
		      !strcmp(e->object, "p.o") && e->off == pu->off && e->align == pu->align &&
		      e->hot == pu->hot &&
		      e->first_set == cachepin_cache__set(&w->caches[0], plan->layout.block_start + pu->off),
		      "%s: entry %zu (%s at 0x%llx)", sc->what, i, e->symbol ? e->symbol : "-",
		      (unsigned long long)e->off);
	}
	cachepin_align__free(al);
}

/* Each candidate alone, then the choice among all of them on the whole model. */
static void check_candidates(const struct scene *sc, struct world *w)
{
	struct cachepin_plan plan;
	unsigned int k;
	size_t i;

	w->po.restarts = 1;
	for (k = CACHEPIN_PLAN_SEARCH + 1; k < CACHEPIN_PLAN_NR_METHODS; k++) {
		const char *name = cachepin_plan__method_name(k);

		w->po.methods = 1u << k;
		if (cachepin_plan__run(w->m, &w->po, &plan)) {
			CHECK(0, "%s: %s: plan", sc->what, name);
			continue;
		}
		CHECK(plan.method == k, "%s: %s: method %d", sc->what, name, plan.method);
		check_evals(name, w, &plan);
		/* the layout checks, without the fit: only some candidates fit */
		{
			struct scene loose = *sc;

			loose.fits = false;
			check_layout(&loose, w, &plan);
		}
		for (i = 0; k == CACHEPIN_PLAN_KEEP && i < plan.nr_evals; i++)
			CHECK(plan.evals[i].after == plan.evals[i].before,
			      "%s: keep misses as the link does (%llu, %llu)", sc->what,
			      (unsigned long long)plan.evals[i].after,
			      (unsigned long long)plan.evals[i].before);
		cachepin_plan__release(&plan);
	}
	/* the choice: held out on the model itself, every method */
	w->po.methods = 0;
	w->po.folds[0][0] = w->po.folds[0][1] = w->m;
	w->po.nr_folds = 1;
	if (cachepin_plan__run(w->m, &w->po, &plan) == 0) {
		const struct cachepin_plan_cand *c = plan.cands, *won = &c[plan.method];

		CHECK(plan.nr_folds == 1 && won->tried && won->eligible, "%s: chose %s", sc->what,
		      cachepin_plan__method_name(plan.method));
		CHECK(c[CACHEPIN_PLAN_KEEP].tried && c[CACHEPIN_PLAN_KEEP].ratio == 1,
		      "%s: keep's ratio is 1 (%g)", sc->what, c[CACHEPIN_PLAN_KEEP].ratio);
		for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++)
			CHECK(!c[k].over_pad || !c[k].eligible, "%s: %s over the padding budget chosen",
			      sc->what, cachepin_plan__method_name(k));
		/* harm: more than 1 % over the link's held-out misses at a geometry */
		for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
			bool harm = false;

			if (!c[k].tried)
				continue;
			for (i = 0; i < w->po.nr_caches; i++)
				harm |= (double)c[k].misses[i] > 1.01 * (double)plan.link_misses[i];
			CHECK(c[k].eligible == (!harm && !c[k].over_pad),
			      "%s: %s eligible %d, harm %d, over the padding %d", sc->what,
			      cachepin_plan__method_name(k), c[k].eligible, harm, c[k].over_pad);
		}
		/* one rule: the fewest held-out misses, of those within 1 % of it the smallest block */
		for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
			if (!c[k].eligible || k == plan.method)
				continue;
			if (k == CACHEPIN_PLAN_KEEP || c[k].ratio >= 1) {
				/* the link: whatever is planned does not lose to it */
				CHECK(won->ratio <= c[CACHEPIN_PLAN_KEEP].ratio, "%s: %s (%g) lost to the link",
				      sc->what, cachepin_plan__method_name(plan.method), won->ratio);
				continue;
			}
			CHECK(won->ratio <= c[k].ratio + 0.01, "%s: %s (%g) beat %s (%g) by more than 1 %%",
			      sc->what, cachepin_plan__method_name(k), c[k].ratio,
			      cachepin_plan__method_name(plan.method), won->ratio);
			CHECK(c[k].ratio > won->ratio + 0.01 || won->bytes <= c[k].bytes,
			      "%s: %s (%g, %llu bytes) as good as %s (%g, %llu bytes) in fewer bytes",
			      sc->what, cachepin_plan__method_name(k), c[k].ratio,
			      (unsigned long long)c[k].bytes, cachepin_plan__method_name(plan.method),
			      won->ratio, (unsigned long long)won->bytes);
		}
		cachepin_plan__release(&plan);
	} else {
		CHECK(0, "%s: plan with candidates", sc->what);
	}
	w->po.nr_folds = 0;
}

/* What the progress callback was told: calls, and whether always forward. */
static struct {
	unsigned int calls;
	bool back, over, labelled;
	uint64_t done, total;
} prog;

static void record_progress(const char *label, uint64_t done, uint64_t total)
{
	/* done of total, the fraction never falling */
	if (prog.calls && done * prog.total < prog.done * total)
		prog.back = true;
	if (done > total || !total)
		prog.over = true;
	if (!label || !*label)
		prog.labelled = false;
	prog.calls++;
	prog.done = done;
	prog.total = total;
}

/* The progress of a plan: it moves forward, ends at its total, changes nothing. */
static void check_progress(const char *what, struct world *w, const struct cachepin_plan *plan)
{
	struct cachepin_plan again;

	memset(&prog, 0, sizeof(prog));
	prog.labelled = true;
	cachepin_set_progress(record_progress);
	CHECK(cachepin_plan__run(w->m, &w->po, &again) == 0 && same_plan(plan, &again),
	      "%s: the same plan with a progress callback", what);
	cachepin_set_progress(NULL);
	CHECK(prog.calls >= 2 && !prog.back && !prog.over && prog.labelled,
	      "%s: progress: %u calls, %s, %s", what, prog.calls, prog.back ? "went back" : "forward",
	      prog.over ? "past its total" : "within it");
	CHECK(prog.done == prog.total, "%s: progress ends at %llu of %llu", what,
	      (unsigned long long)prog.done, (unsigned long long)prog.total);
	cachepin_plan__release(&again);
}

static void check_scene(const struct scene *sc)
{
	struct cachepin_plan plan, again, best = { 0 }, one;
	double v[4], vbest = 0;
	struct world w;
	unsigned int i, first = 0;
	bool varied = false;

	if (build(&w, sc)) {
		CHECK(0, "%s: cannot build the model", sc->what);
		return;
	}
	CHECK(cachepin_plan__run(w.m, &w.po, &plan) == 0, "%s: plan", sc->what);
	CHECK(plan.nr_evals && plan.evals[0].after < plan.evals[0].before,
	      "%s: the plan misses less", sc->what);
	if (sc->want_after)
		CHECK(plan.nr_evals && plan.evals[0].after == sc->want_after,
		      "%s: %llu misses, want %llu (cold only)", sc->what,
		      (unsigned long long)(plan.nr_evals ? plan.evals[0].after : 0),
		      (unsigned long long)sc->want_after);
	check_evals(sc->what, &w, &plan);
	check_layout(sc, &w, &plan);
	check_align_round_trip(sc, &w, &plan);
	CHECK(plan.seed == 1, "%s: seed %llu", sc->what, (unsigned long long)plan.seed);
	check_progress(sc->what, &w, &plan);

	/* the same seed, the same plan; restarts = 1 is the default */
	w.po.restarts = 1;
	CHECK(cachepin_plan__run(w.m, &w.po, &again) == 0 && same_plan(&plan, &again),
	      "%s: the same seed gives the same plan", sc->what);
	cachepin_plan__release(&again);

	/* restarts: the first of the best single searches from seed..seed+3 */
	for (i = 0; i < 4; i++) {
		w.po.seed = 1 + i;
		w.po.restarts = 1;
		if (cachepin_plan__run(w.m, &w.po, &one)) {
			CHECK(0, "%s: plan from seed %u", sc->what, 1 + i);
			break;
		}
		v[i] = judged(&w, &one);
		if (i && v[i] != v[0])
			varied = true;
		if (!i || v[i] < vbest) {
			vbest = v[i];
			first = i;
			cachepin_plan__release(&best);
			best = one;
		} else {
			cachepin_plan__release(&one);
		}
	}
	CHECK(!sc->varied || varied, "%s: all seeds find the same (%g)", sc->what, v[0]);
	w.po.seed = 1;
	w.po.restarts = 4;
	CHECK(cachepin_plan__run(w.m, &w.po, &again) == 0, "%s: plan with restarts", sc->what);
	CHECK(again.seed == 1 + first && same_plan(&again, &best),
	      "%s: restarts chose seed %llu, the first best is %u", sc->what,
	      (unsigned long long)again.seed, 1 + first);
	CHECK(judged(&w, &again) <= v[0], "%s: restarts no worse than one search", sc->what);
	cachepin_plan__release(&again);
	cachepin_plan__release(&best);
	cachepin_plan__release(&plan);
	check_candidates(sc, &w);
	cachepin_model__free(w.m);
}

int main(void)
{
	static const struct scene none = {
		"nothing movable", { "64:1:16" }, 0, 64, 0, false, false, 2,
		{ { 16, 10, true }, { 16, 10, true } },
	};
	struct cachepin_plan plan;
	struct world w;
	size_t i;

	for (i = 0; i < sizeof(scenes) / sizeof(scenes[0]); i++)
		check_scene(&scenes[i]);

	/* no hot code is movable: ENOENT, an empty plan */
	cachepin_set_print(NULL);
	CHECK(build(&w, &none) == 0, "build");
	CHECK(cachepin_plan__run(w.m, &w.po, &plan) == -ENOENT && !plan.layout.units && !plan.evals,
	      "nothing movable: ENOENT");
	w.po.nr_caches = 0;
	CHECK(cachepin_plan__run(w.m, &w.po, &plan) == -EINVAL, "no geometry: EINVAL");
	cachepin_model__free(w.m);
	UNIT_DONE();
}
