// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The planner (see cachepin/plan.h): the candidates on the held-out
 * halves and the one rule that picks among them; one search per seed
 * (the heat colouring of the hot units, local search on the exact
 * per-set LRU simulation of a shorter reference string, repair, then
 * cold fill and padding; the phases are in plan-*.c, see plan-int.h), the
 * choice among the restarts on the full model, and the evaluation of the
 * winner.
 */
#include <pthread.h>
#include <sched.h>
#include "plan-int.h"

/*
 * The methods.  The candidates by default: the search (the heat
 * colouring improved on the model's simulation), the heat colouring
 * alone, density, C3 and the link's sets kept (why: DEFAULT_METHODS).
 */
static const struct plan_method method_table[CACHEPIN_PLAN_NR_METHODS] = {
	[CACHEPIN_PLAN_SEARCH] = { "search", METHOD_DEFAULT | METHOD_COLOURS | METHOD_SEEDED,
				   cachepin_plan_search },
	[CACHEPIN_PLAN_GREEDY] = { "greedy", 0, cachepin_plan_greedy },
	[CACHEPIN_PLAN_COLOUR] = { "colour", METHOD_COLOURS | METHOD_RULES, cachepin_plan_colour },
	[CACHEPIN_PLAN_DENSITY] = { "density", METHOD_DEFAULT, cachepin_plan_density },
	[CACHEPIN_PLAN_C3] = { "c3", METHOD_DEFAULT, cachepin_plan_c3 },
	[CACHEPIN_PLAN_KEEP] = { "keep", METHOD_DEFAULT | METHOD_IN_PLACE, cachepin_plan_keep },
	[CACHEPIN_PLAN_HEAT] = { "heat", METHOD_DEFAULT | METHOD_COLOURS, cachepin_plan_heat },
	[CACHEPIN_PLAN_REFERENCE] = { "reference", METHOD_COLOURS | METHOD_BARE,
				      cachepin_plan_reference },
};

static bool has(enum cachepin_plan_method m, unsigned int flags)
{
	return (method_table[m].flags & flags) == flags;
}

const char *cachepin_plan__method_name(enum cachepin_plan_method m)
{
	return (unsigned int)m < CACHEPIN_PLAN_NR_METHODS ? method_table[m].name : NULL;
}

/* The methods of FLAGS (all of them if 0) as a mask of 1 << method. */
static unsigned int methods_with(unsigned int flags)
{
	unsigned int mask = 0;
	int k;

	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++)
		if (has((enum cachepin_plan_method)k, flags))
			mask |= 1u << k;
	return mask;
}

static int score_layout(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			const struct cachepin_plan *plan, uint64_t *miss, uint64_t *lru,
			struct cachepin_plan_eval *ev, double *v);

/*
 * A colouring: the geometry it is for first (-1: all alike), its rule
 * (plan-cand.c), and the link's misses per geometry on the model it is
 * planned on (NULL: one geometry, or not a colouring).
 */
struct variant {
	int focus;
	bool ever;
	const uint64_t *link;
};

/* The link's misses on M per geometry into LINK, if the colouring of several needs them. */
static int variant_link(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			enum cachepin_plan_method method, uint64_t *link, const uint64_t **out)
{
	*out = NULL;
	if (!has(method, METHOD_COLOURS) || o->nr_caches < 2)
		return 0;
	*out = link;
	return score_layout(m, o, NULL, link, NULL, NULL, NULL);
}

/*
 * How much a conflict of each geometry weighs in the colouring: 1 over
 * the link's misses there, so that a small cache that misses everywhere
 * does not outvote a larger one; with FOCUS >= 0 that geometry alone
 * (letting the others break its ties spreads the units over more gaps:
 * worse in the held-out halves).  Which is best differs by program
 * (measured on the bench's Lua, cachegrind at 32 and 64 KiB: coloured
 * for both 134,290 and 18,834 misses, for 64 KiB alone 128,468 and
 * 13,218), so the held-out halves choose.
 */
static void geo_weights(struct colour_rule *rule, const struct cachepin_plan_opts *o,
			const struct variant *v)
{
	size_t i;

	for (i = 0; i < o->nr_caches; i++)
		rule->weight[i] = !v->link ? 1 :
				(v->focus < 0 || (size_t)v->focus == i ? 1.0 : 0.0) /
				(double)(v->link[i] ? v->link[i] : 1);
}

/*
 * METHOD on M from SEED into PLAN, the colouring as V says, one step of
 * PG (may be NULL).  0 or a negative errno, PLAN empty.
 */
static int plan_build(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		      enum cachepin_plan_method method, const struct variant *v, uint64_t seed,
		      struct cachepin_plan *plan, struct plan_progress *pg)
{
	struct planner pl = { .m = m, .bin = m->bin, .o = o };
	struct method_args a = { .rule.ever = v->ever, .seed = seed, .prog = pg };
	struct cachepin_layout *lo;
	int err;

	if (pg) {
		pg->cur = cachepin_plan_weight(o, m->exact, method);
		cachepin_plan_progress(pg, 0);
	}
	memset(plan, 0, sizeof(*plan));
	geo_weights(&a.rule, o, v);
	if (!(err = cachepin_plan_setup(&pl, plan, !has(method, METHOD_BARE))) &&
	    (!o->prev || !(err = cachepin_plan_keep_prev(&pl, plan))) &&
	    !(err = method_table[method].place(&pl, &a, plan)) &&
	    (!pl.growth || !(err = cachepin_plan_room(&pl, plan))))
		/* emit order, cold fill, padding */
		err = cachepin_plan_fill(&pl, plan, has(method, METHOD_IN_PLACE));
	/* a block that grew past the tail's start pushes it by whole block alignments */
	lo = &plan->layout;
	if (!err && lo->tail_to && lo->block_start + lo->block_size > lo->tail_from + lo->tail_shift)
		lo->tail_shift += align_up(lo->block_start + lo->block_size - lo->tail_from - lo->tail_shift,
					   lo->block_align);
	if (!err && o->prev)
		cachepin_plan_keep_count(&pl, plan);
	plan->seed = seed;
	plan->method = method;
	if (err)
		cachepin_plan__release(plan);
	cachepin_plan_free(&pl);
	if (pg)
		pg->at += pg->cur;
	return err;
}

/*
 * Where every function of BIN goes with PLAN's block, into L (its own
 * arrays, no units: the block's are PLAN's), for a plan not placed yet
 * (a candidate): 0 or -ENOMEM.
 */
static int plan_placed(const struct cachepin_plan *plan, const struct cachepin_binary *bin,
		       struct cachepin_layout *l)
{
	int err;

	*l = plan->layout;
	l->delta = NULL;
	l->known = NULL;
	err = cachepin_layout__place(l, bin);
	l->units = NULL;
	l->nr_units = 0;
	if (err)
		cachepin_layout__release(l);
	return err;
}

/*
 * The misses of PLAN's layout (NULL: as linked) on M for every geometry
 * into MISS (the cache's policy) and LRU (may be NULL), the fetches, hot
 * lines and fully associative misses (LRU and optimal) into EV (may be
 * NULL), and *V
 * their sum in misses per fetch.  0 or a negative errno.
 */
static int score_layout(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			const struct cachepin_plan *plan, uint64_t *miss, uint64_t *lru,
			struct cachepin_plan_eval *ev, double *v)
{
	struct cachepin_layout l = { 0 };
	const struct cachepin_layout *at = plan && plan->layout.delta ? &plan->layout : &l;
	size_t i;
	int err = 0;

	if (!plan)
		at = NULL;
	else if (at == &l && plan_placed(plan, m->bin, &l))
		return -ENOMEM;
	if (v)
		*v = 0;
	for (i = 0; i < o->nr_caches && !err; i++) {
		const struct cachepin_cache *c = &o->caches[i];
		struct cachepin_score sc;

		/* the optimal limits only for EV: Belady is the slowest simulator */
		unsigned int fl = (ev ? 0 : CACHEPIN_SCORE_NO_OPT) |
				  (lru || ev ? 0 : CACHEPIN_SCORE_OWN_POLICY);

		if ((err = cachepin_score__run(m, at, c, fl, &sc)))
			break;
		miss[i] = sc.miss[c->repl];
		if (lru)
			lru[i] = sc.miss[CACHEPIN_REPL_LRU];
		if (ev) {
			ev[i].fetches = sc.fetches;
			ev[i].hot_lines = sc.distinct_lines;
			ev[i].fa_lru = sc.miss_fa_lru;
			ev[i].fa_opt = sc.miss_fa_opt;
		}
		if (v)
			*v += (double)sc.miss[c->repl] / (double)(sc.fetches ? sc.fetches : 1);
		cachepin_score__release(&sc);
	}
	cachepin_layout__release(&l);
	return err;
}

/*
 * A layout harms a geometry where its held-out misses exceed the link's
 * by more than HARM_MARGIN of them: less is the halves' own noise, where
 * the hot code fits the cache either way.  Measured: natsim (make demo),
 * planned for Cortex-A9 32 and 64 KiB, the colouring 0.5 % over the link
 * at 64 KiB in the halves and -82 % at 32 KiB; under cachegrind its plan
 * has 7,375 misses at 64 KiB against the link's 7,368, and 7,381 against
 * 1,007,364 at 32 KiB, where the link was kept before.
 */
#define HARM_MARGIN 0.01

/*
 * Does PLAN leave every line room in every geometry of O: no set with
 * more lines than ways, counting each line of its hot units whole and
 * the lines of M's fixed code that ran?  Fixed code that takes less than
 * HARM_MARGIN of the weight is not counted (a program's dynamic loader,
 * sampled twice in 29,405 samples): what it can cost is within the
 * halves' noise.  1, 0, or -1 (no memory).
 */
static int every_line_fits(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			   const struct cachepin_plan *plan)
{
	const struct cachepin_binary *bin = m->bin;
	bool *planned = calloc(bin->nr_units + 1, sizeof(*planned));
	uint64_t *lines = malloc((m->nr_items + 1) * sizeof(*lines));
	struct cachepin_layout l = { 0 };
	uint32_t *cnt = NULL;
	double fixed_w = 0;
	bool count_fixed;
	size_t gi, i, n;
	int ok = 1;

	if (!planned || !lines || plan_placed(plan, bin, &l))
		ok = -1;
	for (i = 0; ok > 0 && i < plan->layout.nr_units; i++)
		planned[plan->layout.units[i].unit] = true;
	for (i = 0; ok > 0 && i < m->nr_items; i++) {
		const struct cachepin_func *f = &bin->funcs[m->items[i].func];

		if (f->unit < 0 || !planned[f->unit])
			fixed_w += m->items[i].weight;
	}
	/* what fixed code under HARM_MARGIN of the weight can cost is within the halves' noise */
	count_fixed = fixed_w >= HARM_MARGIN * m->weight;
	for (gi = 0; gi < o->nr_caches && ok > 0; gi++) {
		const struct cachepin_cache *c = &o->caches[gi];

		free(cnt);
		if (!(cnt = calloc(c->sets, sizeof(*cnt)))) {
			ok = -1;
			break;
		}
		for (i = 0; i < plan->layout.nr_units; i++) {
			const struct cachepin_layout_unit *pu = &plan->layout.units[i];
			uint64_t a = plan->layout.block_start + pu->off, z = a + pu->size;

			if (!pu->hot || !pu->size)
				continue;
			for (a >>= c->line_shift; a <= (z - 1) >> c->line_shift; a++)
				cnt[cachepin_cache__set(c, a << c->line_shift)]++;
		}
		/* the fixed code's lines that ran: the items outside the planned units */
		for (n = 0, i = 0; count_fixed && i < m->nr_items; i++) {
			const struct cachepin_func *f = &bin->funcs[m->items[i].func];

			if (m->items[i].count && (f->unit < 0 || !planned[f->unit]))
				lines[n++] = (cachepin_layout__addr(&l, bin, m->items[i].func) +
					      m->items[i].off) >> c->line_shift;
		}
		sort_n(lines, n, sizeof(*lines), cachepin_cmp_u64);
		for (i = 0; i < n; i++)
			if (!i || lines[i] != lines[i - 1])
				cnt[cachepin_cache__set(c, lines[i] << c->line_shift)]++;
		for (i = 0; i < c->sets && ok > 0; i++)
			if (cnt[i] > c->ways)
				ok = 0;
	}
	free(cnt);
	free(lines);
	free(planned);
	cachepin_layout__release(&l);
	return ok;
}

/*
 * METHOD as V says planned on every fold's first model (FLINK[f]: the
 * link's misses there), scored on its second, into CD.
 */
static int try_variant(const struct cachepin_plan_opts *o, enum cachepin_plan_method method,
		       const struct variant *v, const uint64_t *const *flink,
		       const struct cachepin_plan *plan, struct cachepin_plan_cand *cd,
		       struct plan_progress *pg)
{
	uint64_t miss[CACHEPIN_PLAN_MAX_GEO];
	size_t f, i;
	int err;

	memset(cd, 0, sizeof(*cd));
	cd->tried = true;
	cd->focus = v->focus;
	cd->ever = v->ever;
	for (f = 0; f < o->nr_folds; f++) {
		struct variant vf = { v->focus, v->ever, flink[f] };
		struct cachepin_plan p;

		err = plan_build(o->folds[f][0], o, method, &vf, o->seed, &p, pg);
		/* -ENOENT: nothing movable is hot in this half, it stays as linked */
		if ((err && err != -ENOENT) ||
		    (err = score_layout(o->folds[f][1], o, err ? NULL : &p, miss, NULL, NULL, NULL))) {
			cachepin_plan__release(&p);
			return err;
		}
		/* the link's own sets pay what the link had between them */
		if (!err && !has(method, METHOD_IN_PLACE) && p.layout.pad - p.layout.pad_growth > p.pad_budget)
			cd->over_pad = true;
		if (!err) {
			int roomy = every_line_fits(o->folds[f][0], o, &p);

			if (roomy < 0) {
				cachepin_plan__release(&p);
				return -ENOMEM;
			}
			cd->bytes += p.layout.block_size - p.room_extra;
			cd->roomy = roomy > 0 && (f == 0 || cd->roomy);
		}
		cachepin_plan__release(&p);
		for (i = 0; i < o->nr_caches; i++)
			cd->misses[i] += miss[i];
	}
	cd->harms = false;
	cd->ratio = 0;
	for (i = 0; i < o->nr_caches; i++) {
		uint64_t link = plan->link_misses[i];

		if ((double)cd->misses[i] > (double)link * (1 + HARM_MARGIN))
			cd->harms = true;
		cd->ratio += link ? (double)cd->misses[i] / (double)link : 1;
	}
	cd->ratio /= (double)o->nr_caches;
	cd->eligible = !cd->over_pad && !cd->harms;
	return 0;
}

/*
 * METHOD's held-out verdict into PLAN->cands.  The colouring tries both
 * rules, and with several geometries each one first too, and keeps the
 * best: which is best differs by program and input (measured, plan of a
 * router kernel from its exact trace, scored on another run's trace:
 * the ways rule -52.9 %, the lightest-ever rule -57.0 %; Lua at 64 KiB
 * under cachegrind: 13,218 and 15,370 misses), and the held-out halves
 * agreed with both.  The ways rule was the better one in 7 of the
 * bench's 9 cells, and where the halves barely tell the two apart they
 * misjudge (Lua at 32 KiB: 0.2 points ahead in the halves, 22 % worse in
 * cachegrind), so the lightest-ever rule must lead by EVER_MARGIN of
 * the link's misses (the kernel: 10 points).
 */
#define EVER_MARGIN 0.03

static int try_method(const struct cachepin_plan_opts *o, enum cachepin_plan_method method,
		      struct cachepin_plan *plan, struct plan_progress *pg)
{
	struct cachepin_plan_cand *cd = &plan->cands[method], c;
	bool rules = has(method, METHOD_RULES);
	int last = rules && o->nr_caches > 1 ? (int)o->nr_caches - 1 : -1;
	uint64_t lm[2][CACHEPIN_PLAN_MAX_GEO];
	const uint64_t *link[2];
	struct variant v = { 0 };
	int rule, err;
	size_t f;

	/* the link's misses on each planning half, once for all variants */
	for (f = 0; f < o->nr_folds; f++)
		if ((err = variant_link(o->folds[f][0], o, method, lm[f], &link[f])))
			return err;
	for (rule = 0; rule <= rules; rule++)
		for (v.focus = -1; v.focus <= last; v.focus++) {
			v.ever = rule;
			if ((err = try_variant(o, method, &v, link, plan, &c, pg)))
				return err;
			if ((!rule && v.focus < 0) || (c.eligible && !cd->eligible) ||
			    (c.eligible == cd->eligible &&
			     c.ratio < cd->ratio - (rule && !cd->ever ? EVER_MARGIN : 0)))
				*cd = c;
		}
	return 0;
}

/*
 * The candidates by default: the search (the heat colouring improved on
 * the model's simulation), the heat colouring alone, density, C3 and the
 * link's sets kept.  One rule chooses among them: the fewest held-out
 * misses (see pick()).  The search once needed a lead of 20 points
 * over the layouts that do not optimise the model, when it started from
 * an all-or-nothing colouring and found the model's blind spots; started
 * from the heat colouring, it moves a unit only where the model's
 * simulation gains, and the lead went the other way (measured, the
 * shipped router-lab, 32K:4:32 LRU, scored on the second half of its
 * trace: from router.profile the search 191,986 misses against the heat
 * colouring's 209,483 with the halves level, from the first half's
 * profile 124,884 against 132,396 with the halves 6 points apart).  The
 * colouring of the hot-line count (colour), the greedy colouring and
 * the reference colouring are there when asked for.
 */
#define DEFAULT_METHODS methods_with(METHOD_DEFAULT)

/* Is K a candidate asked for and tried that moves code (keep is the link)? */
static bool in_race(const struct cachepin_plan *plan, unsigned int methods, int k)
{
	return k != CACHEPIN_PLAN_KEEP && (methods & (1u << k)) && plan->cands[k].tried;
}

/*
 * A layout in which no set of any geometry holds more lines than ways,
 * every line of the hot units counted (sampled or not) and the fixed
 * code's sampled lines, has no conflict among them.  The halves see the
 * sampled lines only, and in such a layout nothing but their first
 * fetches, which they count as well for the link and for the layouts
 * whose unsampled lines do collide.  So of the candidates that leave
 * every line room (within the padding budget), the one with the fewest
 * held-out misses is planned, whatever the link's figure there
 * (measured, the README's 15-object example at 16K:4:32, eight
 * recordings: in three the halves kept the link, 793,410 cachegrind
 * misses, or chose a colouring spread over 16,764 bytes, 1,502,778; the
 * packed plans had 2,788 to 2,802).  -1: no such candidate.
 */
static int pick_short(const struct cachepin_plan *plan, unsigned int methods)
{
	int k, best = -1;

	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
		const struct cachepin_plan_cand *cd = &plan->cands[k];

		if (!in_race(plan, methods, k) || !cd->roomy || cd->over_pad)
			continue;
		if (best < 0 || cd->ratio < plan->cands[best].ratio ||
		    (cd->ratio == plan->cands[best].ratio && cd->bytes < plan->cands[best].bytes))
			best = k;
	}
	return best;
}

/*
 * The method to plan from the candidates' verdicts: of those that beat
 * the link, the fewest held-out misses; of those within HARM_MARGIN of
 * the fewest, the one with the smallest block (the first of equals).
 * The halves cannot tell them apart, and what they do not see (lines
 * that run unsampled, code that was not sampled at all) collides less
 * in fewer bytes.  Measured on pktflow (the README's recipe, 16 KiB,
 * 4-way LRU): in two of twelve recordings the colouring and density tied
 * to the miss in the halves (848 and 848, 1,387 and 1,387), and the
 * colouring, first of equals, had spread the hot units over a block
 * 4 KiB longer with cold fill: 1,002,789 and 902,787 misses in cachegrind
 * against the link's 793,410 and 2,790 for the plans that did not.  On a
 * recorded run (plan->exact) the run itself judges: the fewest misses.
 */
static enum cachepin_plan_method pick(const struct cachepin_plan *plan, unsigned int methods)
{
	double margin = plan->exact ? 0 : HARM_MARGIN, least = 1;
	int k, best = -1;

	/* a link a plan made leaves every line room as well: it is one of them */
	if (!plan->exact && !plan->planned_link && (k = pick_short(plan, methods)) >= 0)
		return (enum cachepin_plan_method)k;

	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
		const struct cachepin_plan_cand *cd = &plan->cands[k];

		/* the others count where they beat the link */
		if (!in_race(plan, methods, k) || !cd->eligible || cd->ratio >= 1)
			continue;
		if (cd->ratio < least)
			least = cd->ratio;
	}
	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
		const struct cachepin_plan_cand *cd = &plan->cands[k];

		if (!in_race(plan, methods, k) || !cd->eligible || cd->ratio >= 1 ||
		    cd->ratio > least + margin)
			continue;
		if (best < 0 || cd->bytes < plan->cands[best].bytes)
			best = k;
	}
	if (best >= 0)
		return (enum cachepin_plan_method)best;
	/* nothing beats the link: keep it if it was a candidate, else the first asked for */
	if (methods & (1u << CACHEPIN_PLAN_KEEP))
		return CACHEPIN_PLAN_KEEP;
	return (enum cachepin_plan_method)__builtin_ctz(methods);
}

/*
 * The plan of the chosen method on the whole profile harms where the
 * full model has it (MISS) worse than the link (LINK) by more than HARM_MARGIN
 * in a geometry: then CD is no longer eligible.  The halves chose the
 * method, not this layout, and a method that does not optimise the model
 * builds another layout from the whole profile; where even the model
 * that layout was built from has it worse, it is worse.  Measured on
 * pktflow (the README's recipe, 16 KiB): C3 held out at -64 %, its plan
 * from the whole recording +80.6 % in the model, 599,507 misses in
 * cachegrind against the link's 793,410 and 2,790 for the density plan.
 */
static void whole_verdict(const struct cachepin_plan_opts *o, const uint64_t *miss,
			  const uint64_t *link, struct cachepin_plan_cand *cd)
{
	size_t i;

	for (i = 0; i < o->nr_caches; i++)
		if ((double)miss[i] > (double)link[i] * (1 + HARM_MARGIN))
			cd->whole_harms = true;
	if (cd->whole_harms)
		cd->eligible = false;
}

/* The method to plan: the best held-out one, or the search without folds. */
static int choose_method(const struct cachepin_plan_opts *o, struct cachepin_plan *plan,
			 enum cachepin_plan_method *best, struct plan_progress *pg)
{
	unsigned int cand = 0, nr_cands;
	unsigned int methods = o->methods ? o->methods : DEFAULT_METHODS;
	uint64_t miss[CACHEPIN_PLAN_MAX_GEO], start;
	int k, f, err;
	size_t i;

	*best = CACHEPIN_PLAN_SEARCH;
	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++)
		if (methods & (1u << k)) {
			*best = (enum cachepin_plan_method)k;
			break;
		}
	plan->nr_folds = o->nr_folds;
	plan->exact = o->nr_folds && o->folds[0][1]->exact;
	plan->planned_link = o->nr_folds &&
			     !cachepin_binary__sym_value(o->folds[0][1]->bin, "__cachepin_start", &start);
	if (!o->nr_folds || !(methods & (methods - 1)))
		return 0;
	for (f = 0; f < (int)o->nr_folds; f++) {
		if ((err = score_layout(o->folds[f][1], o, NULL, miss, NULL, NULL, NULL)))
			return err;
		for (i = 0; i < o->nr_caches; i++)
			plan->link_misses[i] += miss[i];
	}
	nr_cands = (unsigned int)__builtin_popcount(methods);
	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
		if (!(methods & (1u << k)))
			continue;
		snprintf(pg->label, sizeof(pg->label), "candidate %u of %u (%s)", ++cand, nr_cands,
			 method_table[k].name);
		if ((err = try_method(o, (enum cachepin_plan_method)k, plan, pg)))
			return err;
	}
	*best = pick(plan, methods);
	return 0;
}

/*
 * The work of cachepin_plan__run() for METHODS in cachepin_plan_weight()
 * units, as far as known before the choice: every variant of every
 * candidate on every fold, the restarts (the search's, if it is a
 * candidate), the final scoring.
 */
static uint64_t plan_work(const struct cachepin_plan_opts *o, bool exact, unsigned int methods)
{
	uint64_t n = 1, restarts = o->restarts ? o->restarts : 1;
	int k;

	if (o->nr_folds && (methods & (methods - 1)))
		for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++)
			if (methods & (1u << k))
				n += o->nr_folds * cachepin_plan_weight(o, exact, (enum cachepin_plan_method)k) *
				     (!has((enum cachepin_plan_method)k, METHOD_RULES) ? 1 :
				      2 * (o->nr_caches > 1 ? o->nr_caches + 1 : 1));
	if (methods & methods_with(METHOD_SEEDED))
		return n + restarts * cachepin_plan_weight(o, exact, CACHEPIN_PLAN_SEARCH);
	return n + 1;
}

/*
 * Whether any hot code of M is movable: the candidates of the held-out
 * halves each set up a planner, and each would find nothing.  0, or
 * -ENOENT after saying so once, -ENOMEM.
 */
static int movable_check(const struct cachepin_model *m, const struct cachepin_plan_opts *o)
{
	struct planner pl = { .m = m, .bin = m->bin, .o = o };
	struct cachepin_plan p = { 0 };
	int err = cachepin_plan_setup(&pl, &p, false);

	cachepin_plan__release(&p);
	cachepin_plan_free(&pl);
	if (err == -ENOENT) {
		pr_warn("no hot code is movable: nothing to plan\n");
		pr_warn("hint: build with -ffunction-sections and pass the link map (--map)\n");
	}
	return err;
}

/* The figures of PLAN for every geometry, before and after, on the whole model.  0 or -ENOMEM. */
static int plan_evals(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		      struct cachepin_plan *plan, struct plan_progress *pg)
{
	uint64_t after[CACHEPIN_PLAN_MAX_GEO], lra[CACHEPIN_PLAN_MAX_GEO];
	uint64_t before[CACHEPIN_PLAN_MAX_GEO], lrb[CACHEPIN_PLAN_MAX_GEO];
	size_t i;
	int err;

	plan->evals = calloc(o->nr_caches, sizeof(*plan->evals));
	if (!plan->evals)
		return -ENOMEM;
	plan->nr_evals = o->nr_caches;
	snprintf(pg->label, sizeof(pg->label), "scoring the plan");
	pg->cur = 1;
	cachepin_plan_progress(pg, 0);
	if ((err = score_layout(m, o, plan, after, lra, NULL, NULL)) ||
	    (err = score_layout(m, o, NULL, before, lrb, plan->evals, NULL)))
		return err;
	for (i = 0; i < o->nr_caches; i++) {
		plan->evals[i].before = before[i];
		plan->evals[i].after = after[i];
		plan->evals[i].lru_before = lrb[i];
		plan->evals[i].lru_after = lra[i];
	}
	cachepin_progress(pg->label, pg->total * 1000, pg->total * 1000);
	return 0;
}

/* What the restart from seed o->seed + I gave. */
struct restart {
	struct cachepin_plan cand;
	uint64_t miss[CACHEPIN_PLAN_MAX_GEO];
	double v;
	int err;
};

/* The restarts, and the ones a worker runs: FIRST, FIRST + STEP, ... */
struct restart_pool {
	const struct cachepin_model *m;
	const struct cachepin_plan_opts *o;
	enum cachepin_plan_method method;
	const struct variant *var;
	struct plan_progress *pg;	/* the first worker's runs only */
	struct restart *r;
	unsigned int n, step, first;
};

static void *restart_worker(void *arg)
{
	const struct restart_pool *w = arg;
	unsigned int i;

	for (i = w->first; i < w->n; i += w->step) {
		struct restart *r = &w->r[i];

		if ((r->err = plan_build(w->m, w->o, w->method, w->var, w->o->seed + i, &r->cand,
					 w->first ? NULL : w->pg)))
			continue;
		if ((r->err = score_layout(w->m, w->o, &r->cand, r->miss, NULL, NULL, &r->v)))
			cachepin_plan__release(&r->cand);
	}
	return NULL;
}

#define RESTART_THREADS 8

/* The threads the restarts may use: the CPUs this process may run on, at most RESTART_THREADS. */
static unsigned int restart_threads(unsigned int runs)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) || (n = CPU_COUNT(&set)) < 1)
		n = 1;
	if (n > RESTART_THREADS)
		n = RESTART_THREADS;
	return (unsigned int)n < runs ? (unsigned int)n : runs;
}

/*
 * RUNS searches of METHOD from seeds o->seed on, in threads: each is a
 * function of its seed, and the first with the fewest misses on the full
 * model of every geometry wins, whatever the number of threads.  The
 * winner into PLAN, its misses into PLANNED.  0 or a negative errno.
 */
static int restarts_run(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
			enum cachepin_plan_method method, const struct variant *var,
			unsigned int runs, struct plan_progress *pg, struct cachepin_plan *plan,
			uint64_t *planned)
{
	unsigned int t, nt = restart_threads(runs), i, best = 0;
	struct restart_pool pool[RESTART_THREADS];
	pthread_t tid[RESTART_THREADS];
	struct restart *r = calloc(runs, sizeof(*r));
	int err = 0;

	if (!r)
		return -ENOMEM;
	snprintf(pg->label, sizeof(pg->label), runs > 1 ? "%s on the whole profile, %u runs" :
		 "%s on the whole profile", method_table[method].name, runs);
	/* the progress follows the first worker's runs */
	pg->total = pg->at + (runs + nt - 1) / nt * cachepin_plan_weight(o, m->exact, method) + 1;
	for (t = 0; t < nt; t++)
		pool[t] = (struct restart_pool){ m, o, method, var, pg, r, runs, nt, t };
	for (t = 1; t < nt; t++)
		if (pthread_create(&tid[t], NULL, restart_worker, &pool[t]))
			break;
	restart_worker(&pool[0]);
	for (i = 1; i < t; i++)
		pthread_join(tid[i], NULL);
	for (i = t; i < nt; i++)	/* threads that did not start: their runs here */
		restart_worker(&pool[i]);
	for (i = 0; i < runs; i++) {
		if (r[i].err && !err)
			err = r[i].err;
		if (!r[i].err && r[i].v < r[best].v)
			best = i;
	}
	if (!err) {
		*plan = r[best].cand;
		memcpy(planned, r[best].miss, sizeof(r[best].miss));
	}
	for (i = 0; i < runs; i++)
		if (!r[i].err && (err || i != best))
			cachepin_plan__release(&r[i].cand);
	free(r);
	return err;
}

int cachepin_plan__run(const struct cachepin_model *m, const struct cachepin_plan_opts *o,
		       struct cachepin_plan *plan)
{
	struct plan_progress pg = {
		.total = plan_work(o, m->exact, o->methods ? o->methods : DEFAULT_METHODS)
	};
	unsigned int runs = o->restarts ? o->restarts : 1;
	struct cachepin_plan choice = { 0 };
	enum cachepin_plan_method method;
	struct variant var = { -1, false, NULL };
	uint64_t link[CACHEPIN_PLAN_MAX_GEO], whole[CACHEPIN_PLAN_MAX_GEO];
	uint64_t planned[CACHEPIN_PLAN_MAX_GEO];	/* the kept run's misses */
	int err;

	memset(plan, 0, sizeof(*plan));
	if (!o->nr_caches || o->nr_caches > CACHEPIN_PLAN_MAX_GEO)
		return -EINVAL;
	if ((err = movable_check(m, o)))
		return err;
	if ((err = choose_method(o, &choice, &method, &pg)))
		return err;
	if (choice.nr_folds && (err = score_layout(m, o, NULL, whole, NULL, NULL, NULL)))
		return err;
again:
	runs = o->restarts ? o->restarts : 1;
	var = (struct variant){ -1, false, NULL };
	if (choice.cands[method].tried)
		var = (struct variant){ choice.cands[method].focus, choice.cands[method].ever, NULL };
	if ((err = variant_link(m, o, method, link, &var.link)))
		return err;
	if (!has(method, METHOD_SEEDED))
		runs = 1;	/* the others do not depend on the seed */
	/*
	 * Do no harm: the link itself, when keeping its sets is worse than
	 * it, or when a plan made it (its block as it is: a start another
	 * multiple of the block alignment keeps every set of every geometry).
	 */
	if (method == CACHEPIN_PLAN_KEEP && choice.nr_folds &&
	    (!choice.cands[method].eligible || choice.planned_link)) {
		plan->layout.block_align = cachepin_plan_block_align(o);
		plan->method = method;
		runs = 0;
		if ((err = cachepin_plan_as_linked(m, plan)) < 0)
			goto fail;
		plan->layout.unchanged = err > 0;
		err = 0;
	}
	/* restarts: each a full search; the full model of every geometry judges */
	if (!runs)
		pg.total = pg.at + 1;
	else if ((err = restarts_run(m, o, method, &var, runs, &pg, plan, planned)))
		goto fail;
	if (runs && choice.nr_folds && choice.cands[method].eligible && !plan->layout.unchanged &&
	    !(choice.cands[method].roomy && !choice.exact))
		whole_verdict(o, planned, whole, &choice.cands[method]);
	if (runs && choice.cands[method].whole_harms) {
		enum cachepin_plan_method next = pick(&choice, o->methods ? o->methods : DEFAULT_METHODS);

		/* the next best, or the link kept; a method asked for alone stays */
		if (next != method || (method == CACHEPIN_PLAN_KEEP && !choice.cands[method].eligible)) {
			cachepin_plan__release(plan);
			method = next;
			goto again;
		}
	}
	plan->nr_folds = choice.nr_folds;
	plan->exact = m->exact;
	memcpy(plan->link_misses, choice.link_misses, sizeof(plan->link_misses));
	memcpy(plan->cands, choice.cands, sizeof(plan->cands));
	if ((err = cachepin_layout__place(&plan->layout, m->bin)) || (err = plan_evals(m, o, plan, &pg)))
		goto fail;
	return 0;
fail:
	cachepin_plan__release(plan);
	return err;
}

void cachepin_plan__release(struct cachepin_plan *plan)
{
	if (!plan)
		return;
	cachepin_layout__release(&plan->layout);
	free(plan->evals);
	memset(plan, 0, sizeof(*plan));
}

