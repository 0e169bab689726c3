// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layouts the search competes with, built for the same hot units:
 *
 *   keep     the link order kept: hot units and the cold ones between them
 *            at their distances in the link, so every line keeps its set;
 *            the layout the plan replaces ("do no harm"), in a block
 *   density  hot-first by density (weight per byte), packed
 *   c3       call-chain clustering (Ottoni and Maher, CGO 2017: hfsort's and
 *            lld's --call-graph-ordering-file), packed
 *   colour   a greedy line colouring: densest first, each unit at the
 *            offset within the next way span that adds the least conflict,
 *            a line's conflict in a set that already holds WAYS lines being
 *            the smaller of its fetches and the lightest of the WAYS
 *            heaviest lines' there; each geometry's conflict weighed by
 *            the link's misses there, so that all count alike
 *
 * cachepin_plan__run() scores them with the search on held-out halves.
 */
#include "cachepin/c3.h"
#include "plan-int.h"

/* Extend the block by a way span: no slot at any phase. */
static void more_room(struct planner *pl)
{
	pl->limit += pl->span_bytes;
}

struct by_addr {
	uint64_t addr;
	struct hunit *h;
};

static int cmp_by_addr(const void *a, const void *b)
{
	const struct by_addr *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->h->unit > y->h->unit) - (x->h->unit < y->h->unit);
}

int cachepin_plan_keep(struct planner *pl, const struct method_args *a,
		       struct cachepin_plan *plan)
{
	struct by_addr *order = malloc((pl->nr_hu + 1) * sizeof(*order));
	uint64_t cur = 0, shift = 0, base;
	size_t k;
	int err = 0;

	if (!order)
		return -ENOMEM;
	for (k = 0; k < pl->nr_hu; k++)
		order[k] = (struct by_addr){ pl->bin->units[pl->hu[k].unit].addr, &pl->hu[k] };
	sort_n(order, pl->nr_hu, sizeof(*order), cmp_by_addr);
	/*
	 * Every unit at its distance from the way span below the lowest:
	 * the block base is a multiple of the way span, so each keeps its
	 * sets.  A gap of a way span or more between two of them shrinks
	 * by whole way spans, which moves no set; the fill puts the cold
	 * units linked just before each hot unit back in place.  The room
	 * for growth comes after placing (plan-room.c): a unit linked
	 * closer than that to the next moves by whole way spans, its sets
	 * kept, at the cost of block length.
	 */
	base = pl->nr_hu ? order[0].addr / pl->span_bytes * pl->span_bytes : 0;
	for (k = 0; k < pl->nr_hu && !err; k++) {
		struct hunit *h = order[k].h;
		uint64_t at = order[k].addr - base - shift;

		if (at >= cur + pl->span_bytes) {
			uint64_t cut = (at - cur) / pl->span_bytes * pl->span_bytes;

			at -= cut;
			shift += cut;
		}
		h->room = h->size;	/* not aligned: the next keeps its own */
		if (at < cur)
			at = align_up(cur, h->align);
		while (at + h->room > pl->limit)
			more_room(pl);
		err = cachepin_plan_place(pl, h, at);
		cur = at + h->room;
	}
	free(order);
	return err;
}

int cachepin_plan_density(struct planner *pl, const struct method_args *a,
			  struct cachepin_plan *plan)
{
	uint64_t cur = 0;
	size_t k;
	int err;

	/* pl->hu is in density order */
	for (k = 0; k < pl->nr_hu; k++) {
		struct hunit *h = &pl->hu[k];
		uint64_t at = align_up(cur, h->align);

		while (at + h->room > pl->limit)
			more_room(pl);
		if ((err = cachepin_plan_place(pl, h, at)))
			return err;
		cur = at + h->room;
	}
	return 0;
}

/* ---- C3 ---- */

/* Each hot unit's heaviest caller among the hot units, from the model's call edges. */
static int c3_preds(struct planner *pl, struct cachepin_c3_node *c)
{
	const struct cachepin_model *m = pl->m;
	int32_t *unit_hu = malloc((pl->bin->nr_units + 1) * sizeof(*unit_hu));
	double *pred_w = calloc(pl->nr_hu + 1, sizeof(*pred_w));
	size_t i;

	if (!unit_hu || !pred_w) {
		free(unit_hu);
		free(pred_w);
		return -ENOMEM;
	}
	for (i = 0; i < pl->bin->nr_units; i++)
		unit_hu[i] = -1;
	for (i = 0; i < pl->nr_hu; i++)
		unit_hu[pl->hu[i].unit] = (int32_t)i;
	for (i = 0; i < m->nr_edges; i++) {
		int cu = pl->bin->funcs[m->edges[i].caller].unit;
		int ce = pl->bin->funcs[m->edges[i].callee].unit;
		int32_t from = cu >= 0 ? unit_hu[cu] : -1, to = ce >= 0 ? unit_hu[ce] : -1;

		if (from < 0 || to < 0 || from == to)
			continue;
		/* units gather the edges of their functions */
		if (m->edges[i].weight > pred_w[to] ||
		    (m->edges[i].weight == pred_w[to] && from < c[to].pred)) {
			pred_w[to] = m->edges[i].weight;
			c[to].pred = from;
		}
	}
	free(unit_hu);
	free(pred_w);
	return 0;
}

int cachepin_plan_c3(struct planner *pl, const struct method_args *a,
		     struct cachepin_plan *plan)
{
	size_t n = pl->nr_hu, i;
	struct cachepin_c3_node *c = calloc(n + 1, sizeof(*c));
	uint32_t *order = malloc((n + 1) * sizeof(*order));
	uint64_t cur = 0;
	int err;

	if (!c || !order) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		c[i] = (struct cachepin_c3_node){ pl->hu[i].weight, pl->hu[i].size, -1 };
	if ((err = c3_preds(pl, c)) ||
	    (err = cachepin_c3__order(c, n, CACHEPIN_C3_LIMIT, CACHEPIN_C3_DEGRADE, order)))
		goto out;
	for (i = 0; i < n && !err; i++) {
		struct hunit *h = &pl->hu[order[i]];
		uint64_t at = align_up(cur, h->align);

		while (at + h->room > pl->limit)
			more_room(pl);
		err = cachepin_plan_place(pl, h, at);
		cur = at + h->room;
	}
out:
	free(c);
	free(order);
	return err;
}

/* ---- the line colouring ---- */

#define COLOUR_FILL 0.5	/* share of the cold bytes the gaps may take */

/*
 * One set of one geometry: the WAYS heaviest lines in it (they stay), and
 * the lightest of them.  A line added to a full set costs the lighter of
 * itself and that one: the loser is fetched again each time.  The other
 * rule (colour_rule.ever) prices it against the lightest line ever added
 * there: a set that holds one cold line takes hot ones cheaply.  That
 * packs hot code onto fewer sets, which a kernel's exact trace rewards
 * and user programs under perf mostly do not (see cachepin_plan_colour()).
 */
struct cset {
	uint32_t lines;		/* in top, at most the ways */
	uint32_t min;		/* index of the lightest in top */
	double *top;		/* the heaviest lines' fetches */
	uint32_t all;		/* lines ever added */
	double lightest;	/* the fewest fetches of one of them */
};

struct colour {
	struct planner *pl;
	struct cset *sets[CACHEPIN_PLAN_MAX_GEO];
	double *tops[CACHEPIN_PLAN_MAX_GEO];
};

static void cset_add(struct cset *s, double c, uint32_t ways)
{
	uint32_t i;

	if (!s->all++ || c < s->lightest)
		s->lightest = c;
	if (s->lines < ways)
		s->top[s->lines++] = c;
	else if (c > s->top[s->min])
		s->top[s->min] = c;
	else
		return;
	for (s->min = 0, i = 1; i < s->lines; i++)
		if (s->top[i] < s->top[s->min])
			s->min = i;
}

/*
 * Call FN for every line of H at OFF in geometry G: its set and its
 * fetches (the items of one line summed).
 */
static double unit_lines(struct colour *cl, const struct hunit *h, uint64_t off, size_t gi,
			 double (*fn)(struct cset *s, double c, uint32_t ways))
{
	const struct planner *pl = cl->pl;
	const struct geo *g = &pl->geo[gi];
	uint32_t shift = g->c->line_shift, i;
	uint64_t line = UINT64_MAX;
	double c = 0, cost = 0;
	uint32_t set = 0;

	for (i = 0; i <= h->nr_items; i++) {
		const struct sitem *it = i < h->nr_items ? &pl->it[h->first_item + i] : NULL;
		uint64_t a = it ? item_addr_at(pl, it, off) : 0;

		if (it && a >> shift == line) {
			c += it->rate;
			continue;
		}
		if (line != UINT64_MAX)
			cost += fn(&cl->sets[gi][set], c, g->c->ways);
		if (!it)
			break;
		line = a >> shift;
		set = addr_set(g, a);
		c = it->rate;
	}
	return cost;
}

static double line_conflict(struct cset *s, double c, uint32_t ways)
{
	double w;

	if (s->lines < ways)
		return 0;
	w = s->top[s->min];
	return c < w ? c : w;
}

static double line_conflict_ever(struct cset *s, double c, uint32_t ways)
{
	if (s->all < ways)
		return 0;
	return c < s->lightest ? c : s->lightest;
}

static double line_commit(struct cset *s, double c, uint32_t ways)
{
	cset_add(s, c, ways);
	return 0;
}

struct fixed_ctx {
	struct cset *sets;
	uint32_t ways;
};

static int fixed_line(void *ctx, uint32_t set, double fetches)
{
	struct fixed_ctx *f = ctx;

	cset_add(&f->sets[set], fetches, f->ways);
	return 0;
}

/* The fixed occupants, line by line, in every geometry. */
static void colour_fixed(struct colour *cl)
{
	size_t gi;

	for (gi = 0; gi < cl->pl->nr_geo; gi++) {
		struct fixed_ctx f = { cl->sets[gi], cl->pl->geo[gi].c->ways };

		cachepin_plan_fixed_lines(cl->pl, gi, fixed_line, &f);
	}
}

int cachepin_plan_colour(struct planner *pl, const struct method_args *a,
			 struct cachepin_plan *plan)
{
	double (*conflict)(struct cset *s, double c, uint32_t ways) =
		a->rule.ever ? line_conflict_ever : line_conflict;
	struct colour cl = { .pl = pl };
	uint64_t cur = 0, allow, gaps = 0;
	size_t gi, k;
	int err = 0;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		const struct cachepin_cache *c = pl->geo[gi].c;
		uint32_t set;

		cl.sets[gi] = calloc(c->sets, sizeof(*cl.sets[gi]));
		cl.tops[gi] = calloc((size_t)c->sets * c->ways, sizeof(*cl.tops[gi]));
		if (!cl.sets[gi] || !cl.tops[gi]) {
			err = -ENOMEM;
			goto out;
		}
		for (set = 0; set < c->sets; set++)
			cl.sets[gi][set].top = cl.tops[gi] + (size_t)set * c->ways;
	}
	colour_fixed(&cl);
	/*
	 * The gaps it leaves are filled with cold units or padded: in all
	 * at most the cold bytes there are and the padding budget, or a
	 * program with little cold code gets more padding than code
	 * (measured: tcc, 464 KB of padding for 297 KB of hot code).
	 */
	allow = (uint64_t)(COLOUR_FILL * (double)cachepin_plan_fillable(pl)) +
		pl->o->max_pad * (pl->limit / pl->span_bytes + 1);
	/* pl->hu is in density order */
	for (k = 0; k < pl->nr_hu && !err; k++) {
		struct hunit *h = &pl->hu[k];
		uint64_t step = h->align < pl->span_bytes ? h->align : pl->span_bytes;
		uint64_t first = align_up(cur, h->align), at, best_at = first;
		uint64_t window = allow > gaps ? allow - gaps + 1 : 1;
		double best = -1;

		if (window > pl->span_bytes)
			window = pl->span_bytes;
		/* the next way span (every set once), as far as gaps may go; the first of equal cost */
		for (at = first; at < first + window; at += step) {
			double cost = 0;

			for (gi = 0; gi < pl->nr_geo; gi++)
				cost += a->rule.weight[gi] * unit_lines(&cl, h, at, gi, conflict);
			if (best < 0 || cost < best) {
				best = cost;
				best_at = at;
			}
			if (best == 0)
				break;
		}
		while (best_at + h->room > pl->limit)
			more_room(pl);
		for (gi = 0; gi < pl->nr_geo; gi++)
			unit_lines(&cl, h, best_at, gi, line_commit);
		err = cachepin_plan_place(pl, h, best_at);
		gaps += best_at - first;
		cur = best_at + h->room;
	}
out:
	for (gi = 0; gi < pl->nr_geo; gi++) {
		free(cl.sets[gi]);
		free(cl.tops[gi]);
	}
	return err;
}
