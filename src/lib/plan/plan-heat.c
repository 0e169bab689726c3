// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Heat-balancing line colouring: the planner's core.
 *
 * Hot units densest first, each at the offset within the next way span
 * that adds the least expected misses to the sets its lines land in.  A
 * set's expected misses are those of its lines as independent references
 * at their rates (the profile's fetches of each line): Che's
 * approximation for LRU (the characteristic time T with
 * sum(1 - exp(-r T)) = WAYS; a line misses with exp(-r T)) and the
 * stationary figure for random replacement (hit ratio r T / (1 + r T)
 * with the same sum).  Unlike an all-or-nothing count of hot lines per
 * set, this tells a set of four hot lines and some lukewarm ones, which
 * keeps the hot ones resident, from a set of five equally hot lines,
 * which thrashes; and a lukewarm line costs more among hot lines (each
 * of its fetches evicts one of them) than among lukewarm ones.  A line
 * a unit shares with the one before it (packed, the one ends where the
 * other starts) is one line of its set, its rate the sum.  The search
 * (plan-search.c) improves the layout on the model's simulation.  Which
 * of the two estimates a policy takes, its row in the policy table
 * (model/cache.c) says.
 *
 * The reference rule (CACHEPIN_PLAN_REFERENCE) is the simple colouring
 * the project measures itself against, with the same scan: a line costs
 * nothing in a set of fewer than WAYS lines, else the smaller of its
 * fetches and the fewest of a line already there; no growth room, no
 * padding budget, no improvement step.
 */
#include <math.h>
#include "plan-int.h"
#include "repl.h"

struct hset {
	double *r;		/* rates of its lines */
	uint64_t *ln;		/* and their line numbers (UINT64_MAX: a fixed line) */
	size_t n, cap, cap_ln;
	double f;		/* expected misses */
	double t;		/* characteristic time (0: no more lines than ways) */
	double d, e;		/* at T: the constraint's slope, and minus the misses' */
	double minr;		/* the fewest fetches of a line */
};

struct hline {
	uint32_t set;
	uint64_t ln;		/* line number (address >> line shift) */
	double c;
	double minr;		/* its set's lightest before it came (to take it out again) */
	bool shared;		/* in its set already (the unit before ends in it) */
};

struct heat {
	struct planner *pl;
	const struct colour_rule *rule;
	bool ref;		/* the reference rule */
	bool budget;		/* the gaps within the fill and padding budget */
	struct hset *sets[CACHEPIN_PLAN_MAX_GEO];
	struct hline *lines;
	size_t cap_lines;
	double *scratch;	/* the most ways plus one rates */
};

#define CHE_ITERS 100
#define CHE_EPS 1e-6

/*
 * The lines of a set as independent references at rates R[0..N) in W ways:
 * the characteristic time T where the lines' hit probabilities add up to
 * W, h(r) = 1 - exp(-r T) for LRU (Che's approximation), r T / (1 + r T)
 * for random replacement (its stationary distribution), and at T the
 * expected misses F = sum r (1 - h(r)), the slope D of sum h(r), and E,
 * minus the slope of F.  S->t is where the search for T starts (0: from
 * nothing); no more lines than ways: all zero.
 */
static void che(struct hset *s, uint32_t w, enum cachepin_repl repl)
{
	const double *r = s->r;
	double sum = 0, x = s->t, f = 0, d = 0, e = 0;
	bool rnd = cachepin_repl_estimate(repl) == REPL_EST_RANDOM;
	size_t i;
	unsigned int it;

	s->f = s->t = s->d = s->e = 0;
	if (s->n <= w)
		return;
	for (i = 0; i < s->n; i++)
		sum += r[i];
	if (x <= 0)
		x = w / sum;
	/* sum h(r) - W is increasing and concave in T: Newton converges to its root */
	for (it = 0; it < CHE_ITERS; it++) {
		double g = -(double)w, nx;

		for (d = 0, i = 0; i < s->n; i++) {
			if (rnd) {
				double q = 1 + r[i] * x;

				g += r[i] * x / q;
				d += r[i] / (q * q);
			} else {
				double ex = exp(-r[i] * x);

				g += 1 - ex;
				d += r[i] * ex;
			}
		}
		if (d <= 0)
			break;
		nx = x - g / d;
		if (nx <= 0)
			nx = x / 2;
		if (fabs(nx - x) <= CHE_EPS * x) {
			x = nx;
			break;
		}
		x = nx;
	}
	for (d = 0, i = 0; i < s->n; i++) {
		if (rnd) {
			double q = 1 + r[i] * x;

			f += r[i] / q;
			d += r[i] / (q * q);
			e += r[i] * r[i] / (q * q);
		} else {
			double ex = exp(-r[i] * x);

			f += r[i] * ex;
			d += r[i] * ex;
			e += r[i] * r[i] * ex;
		}
	}
	s->f = f;
	s->t = x;
	s->d = d;
	s->e = e;
}

/*
 * The misses a line of rate C adds to S, to first order in T: the new
 * T' = T + dT from the constraint's slope, the line's own misses at T',
 * and -E dT for the others.  Exact for a set that has no more lines than
 * ways yet (solved with the line in it).
 */
static double che_add(struct hset *s, double c, uint32_t w, enum cachepin_repl repl,
		      double *scratch)
{
	double t = s->t, dt, h, slope;
	bool rnd = cachepin_repl_estimate(repl) == REPL_EST_RANDOM;

	if (s->n + 1 <= w)
		return 0;
	if (t <= 0) {	/* n == w: SCRATCH holds w + 1 */
		struct hset x = *s;

		memcpy(scratch, s->r, s->n * sizeof(*scratch));
		scratch[s->n] = c;
		x.r = scratch;
		x.n = s->n + 1;
		x.t = 0;
		che(&x, w, repl);
		return x.f;
	}
	if (rnd) {
		double q = 1 + c * t;

		h = c * t / q;
		slope = s->d + c / (q * q);
	} else {
		double ex = exp(-c * t);

		h = 1 - ex;
		slope = s->d + c * ex;
	}
	dt = -h / slope;
	if (t + dt <= 0)
		dt = -t / 2;
	return (rnd ? c / (1 + c * (t + dt)) : c * exp(-c * (t + dt))) -
	       s->e * dt;
}

static int hset_push(struct hset *s, double c, uint64_t ln)
{
	if (GROW(s->r, s->cap, s->n + 1) || GROW(s->ln, s->cap_ln, s->n + 1))
		return -ENOMEM;
	if (!s->n || c < s->minr)
		s->minr = c;
	s->ln[s->n] = ln;
	s->r[s->n++] = c;
	return 0;
}

/*
 * Where line LN is in S already (the unit before ends in the line this
 * one starts in), its index; else -1.  The last lines pushed are the
 * likeliest.
 */
static ssize_t hset_find(const struct hset *s, uint64_t ln)
{
	size_t i;

	for (i = s->n; i-- > 0;)
		if (s->ln[i] == ln)
			return (ssize_t)i;
	return -1;
}

/* Line I of S fetched C more often (the reference rule's sets). */
static void hset_raise(struct hset *s, size_t i, double c)
{
	size_t k;

	s->r[i] += c;
	for (s->minr = s->r[0], k = 1; k < s->n; k++)
		if (s->r[k] < s->minr)
			s->minr = s->r[k];
}

/* The misses S gains when its line I fetches C more often; without COMMIT S stays as it was. */
static double hset_more(struct hset *s, size_t i, double c, uint32_t w, enum cachepin_repl repl,
			bool commit)
{
	struct hset was = *s;
	double after;

	s->r[i] += c;
	che(s, w, repl);
	after = s->f;
	if (!commit) {
		s->r[i] -= c;
		*s = was;
	}
	return after - was.f;
}

/* The lines of H at OFF in geometry GI, their fetches summed, into ht->lines. */
static int unit_lines(struct heat *ht, const struct hunit *h, uint64_t off, size_t gi, size_t *nr)
{
	const struct planner *pl = ht->pl;
	const struct geo *g = &pl->geo[gi];
	uint32_t shift = g->c->line_shift, i;
	uint64_t line = UINT64_MAX;
	size_t n = 0;

	for (i = 0; i < h->nr_items; i++) {
		const struct sitem *it = &pl->it[h->first_item + i];
		uint64_t a = item_addr_at(pl, it, off);

		if (a >> shift == line) {
			ht->lines[n - 1].c += it->rate;
			continue;
		}
		if (GROW(ht->lines, ht->cap_lines, n + 1))
			return -ENOMEM;
		line = a >> shift;
		ht->lines[n++] = (struct hline){ addr_set(g, a), line, it->rate, 0, false };
	}
	*nr = n;
	return 0;
}

/* What adding line C to S costs under the reference rule. */
static double ref_cost(const struct hset *s, double c, uint32_t ways)
{
	if (s->n < ways)
		return 0;
	return c < s->minr ? c : s->minr;
}

/*
 * The expected misses H at OFF adds, over every geometry, weighed as
 * the colouring's rule says; with COMMIT its lines stay in their sets.  0 or
 * -ENOMEM.
 */
static int unit_cost(struct heat *ht, const struct hunit *h, uint64_t off, bool commit,
		     double *cost)
{
	struct planner *pl = ht->pl;
	size_t gi, n, k;
	int err;

	*cost = 0;
	for (gi = 0; gi < pl->nr_geo; gi++) {
		const struct cachepin_cache *c = pl->geo[gi].c;
		double d = 0;

		if ((err = unit_lines(ht, h, off, gi, &n)))
			return err;
		for (k = 0; k < n; k++) {
			struct hset *s = &ht->sets[gi][ht->lines[k].set];
			ssize_t at = hset_find(s, ht->lines[k].ln);

			ht->lines[k].shared = at >= 0;
			if (at >= 0) {	/* one line with the unit before: no new line */
				if (!ht->ref)
					d += hset_more(s, (size_t)at, ht->lines[k].c, c->ways, c->repl,
						       commit);
				else if (commit)
					hset_raise(s, (size_t)at, ht->lines[k].c);
				continue;
			}
			if (!ht->ref && !commit) {
				d += che_add(s, ht->lines[k].c, c->ways, c->repl, ht->scratch);
				continue;
			}
			if (ht->ref)
				d += ref_cost(s, ht->lines[k].c, c->ways);
			ht->lines[k].minr = s->minr;
			if ((err = hset_push(s, ht->lines[k].c, ht->lines[k].ln)))
				return err;
			if (!ht->ref) {
				double before = s->f;

				che(s, c->ways, c->repl);
				d += s->f - before;
			}
		}
		if (ht->ref && !commit)	/* take them out again, last first */
			for (k = n; k-- > 0;) {
				struct hset *s = &ht->sets[gi][ht->lines[k].set];

				if (ht->lines[k].shared)
					continue;
				s->n--;
				s->minr = ht->lines[k].minr;
			}
		*cost += ht->rule->weight[gi] * d;
	}
	return 0;
}

static int fixed_line(void *ctx, uint32_t set, double fetches)
{
	return hset_push((struct hset *)ctx + set, fetches, UINT64_MAX);
}

/* The fixed occupants, line by line, into the sets of every geometry. */
static int heat_fixed(struct heat *ht)
{
	struct planner *pl = ht->pl;
	size_t gi;
	uint32_t s;
	int err;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		const struct geo *g = &pl->geo[gi];

		if ((err = cachepin_plan_fixed_lines(pl, gi, fixed_line, ht->sets[gi])))
			return err;
		for (s = 0; s < g->c->sets && !ht->ref; s++) {
			ht->sets[gi][s].t = 0;
			che(&ht->sets[gi][s], g->c->ways, g->c->repl);
		}
	}
	return 0;
}

static void heat_free(struct heat *ht)
{
	size_t gi;
	uint32_t s;

	for (gi = 0; gi < ht->pl->nr_geo; gi++) {
		if (!ht->sets[gi])
			continue;
		for (s = 0; s < ht->pl->geo[gi].c->sets; s++) {
			free(ht->sets[gi][s].r);
			free(ht->sets[gi][s].ln);
		}
		free(ht->sets[gi]);
	}
	free(ht->lines);
	free(ht->scratch);
}

/*
 * The offset for H from FIRST on, WINDOW bytes at most (the next way
 * span), that adds the least (the first of equal cost, the first that
 * adds nothing), at a free slot; past slots taken by kept units.
 */
static int heat_slot(struct heat *ht, const struct hunit *h, uint64_t first, uint64_t window,
		     uint64_t *best_at)
{
	struct planner *pl = ht->pl;
	uint64_t step = h->align < 4 ? 4 : h->align, at;
	double best = -1, cost;
	int err;

	if (step > pl->span_bytes)
		step = pl->span_bytes;
	for (;;) {
		while (first + window + h->room > pl->limit)
			pl->limit += pl->span_bytes;
		for (at = first; at < first + window; at += step) {
			if (!cachepin_plan_slot_free(pl, at, at + h->room))
				continue;
			if ((err = unit_cost(ht, h, at, false, &cost)))
				return err;
			if (best < 0 || cost < best - 1e-9 * best) {
				best = cost;
				*best_at = at;
			}
			if (best <= 0)
				return 0;
		}
		if (best >= 0)
			return 0;
		first = align_up(first + window, h->align);	/* all taken: further on */
	}
}

/*
 * Share of the cold bytes the gaps of the heat colouring may take.  From
 * a recorded run (the model exact) the cold units are cold: the gaps may
 * be wide.  From samples some "cold" units ran unsampled, and every gap
 * puts them among the hot sets, where the model does not see them: the
 * gaps stay narrow (measured, the bench's programs, cachegrind misses of
 * the plan for one geometry, HEAT_FILL 0.5 against 0.1: readelf 16K
 * 282,614 and 81,005, 32K 16,809 and 13,735, lua 32K 197,686 and
 * 162,468, tcc 64K 33,754 and 29,013, lua 16K 1,032,181 and 1,017,798,
 * tcc 32K 255,267 and 258,776; router-lab from router.profile 180,834
 * and 183,248, from the first half's log 92,298 and 96,034).  On a
 * second set of the bench's recordings the tenth had fewer misses in 3
 * of 9 cells (readelf 16K 153,566 and 104,375) and 5.7 % more in the
 * geometric mean; the first set's cells 26 % fewer.
 */
#define HEAT_FILL 0.1
#define HEAT_FILL_EXACT 0.5

/* Every hot unit not placed yet, densest first, where it adds the least.  0 or -ENOMEM. */
static int heat_construct(struct heat *ht)
{
	struct planner *pl = ht->pl;
	uint64_t cur = 0, allow = UINT64_MAX, gaps = 0, at;
	double cost;
	size_t k;
	int err = 0;

	/* the units kept from a previous plan first, where they are */
	for (k = 0; k < pl->nr_hu && !err; k++)
		if (pl->hu[k].off >= 0)
			err = unit_cost(ht, &pl->hu[k], (uint64_t)pl->hu[k].off, true, &cost);
	/* the gaps are filled with cold units or padded: as many as there are, and the budget */
	if (ht->budget) {
		allow = (uint64_t)((pl->m->exact ? HEAT_FILL_EXACT : HEAT_FILL) *
				   (double)cachepin_plan_fillable(pl)) +
			pl->o->max_pad * (pl->limit / pl->span_bytes + 1);
		if (allow > pl->fit_slack)
			allow = pl->fit_slack;	/* the block within the smallest cache */
	}
	for (k = 0; k < pl->nr_hu && !err; k++) {
		struct hunit *h = &pl->hu[k];
		uint64_t first = align_up(cur, h->align);
		uint64_t window = allow > gaps ? allow - gaps : 0;

		if (h->off >= 0)
			continue;
		window = window >= pl->span_bytes ? pl->span_bytes : window + 1;
		if ((err = heat_slot(ht, h, first, window, &at)) ||
		    (err = unit_cost(ht, h, at, true, &cost)) ||
		    (err = cachepin_plan_place(pl, h, at)))
			break;
		gaps += at > first ? at - first : 0;
		if (at + h->room > cur)
			cur = at + h->room;
	}
	return err;
}

/*
 * The hot units not placed yet coloured by heat balancing, or with REF
 * by the reference rule; with BUDGET the gaps within the fill and the
 * padding budget.  0 or -ENOMEM.
 */
static int colour_heat(struct planner *pl, const struct colour_rule *rule, bool ref, bool budget)
{
	struct heat ht = { .pl = pl, .rule = rule, .ref = ref, .budget = budget };
	uint32_t ways = 0;
	size_t gi;
	int err = 0;

	for (gi = 0; gi < pl->nr_geo && !err; gi++) {
		if (!(ht.sets[gi] = calloc(pl->geo[gi].c->sets, sizeof(*ht.sets[gi]))))
			err = -ENOMEM;
		if (pl->geo[gi].c->ways > ways)
			ways = pl->geo[gi].c->ways;
	}
	if (!err && !(ht.scratch = malloc((ways + 1) * sizeof(*ht.scratch))))
		err = -ENOMEM;
	if (!err)
		err = heat_fixed(&ht);
	if (!err)
		err = heat_construct(&ht);
	heat_free(&ht);
	return err;
}

/* The misses of the layout on the search string, each geometry's weighed by SCALE. */
static double layout_cost(const struct planner *pl, const double *scale)
{
	double v = 0;
	size_t gi;

	for (gi = 0; gi < pl->nr_geo; gi++)
		v += scale[gi] * (double)cachepin_plan_total_miss(&pl->geo[gi]);
	return v;
}

/* Take the units not kept out of the block again; the block as long as LIMIT. */
static void unplace_all(struct planner *pl, uint64_t limit)
{
	size_t k;

	for (k = 0; k < pl->nr_hu; k++)
		if (!pl->hu[k].frozen && pl->hu[k].off >= 0)
			cachepin_plan_unplace(pl, &pl->hu[k]);
	pl->limit = limit;
}

int cachepin_plan_reference(struct planner *pl, const struct method_args *a,
			    struct cachepin_plan *plan)
{
	return colour_heat(pl, &a->rule, true, false);
}

int cachepin_plan_heat(struct planner *pl, const struct method_args *a,
		       struct cachepin_plan *plan)
{
	uint64_t limit = pl->limit, heat_limit;
	double scale[CACHEPIN_PLAN_MAX_GEO], heat, ref;
	int64_t *off = malloc((pl->nr_hu + 1) * sizeof(*off));
	size_t gi, k;
	int err;

	if (!off)
		return -ENOMEM;
	if ((err = colour_heat(pl, &a->rule, false, true)) || (err = cachepin_plan_sim_all(pl)))
		goto out;
	for (gi = 0; gi < pl->nr_geo; gi++)
		scale[gi] = pl->geo[gi].scale;
	heat = layout_cost(pl, scale);
	heat_limit = pl->limit;
	for (k = 0; k < pl->nr_hu; k++)
		off[k] = pl->hu[k].off;
	unplace_all(pl, limit);
	if ((err = colour_heat(pl, &a->rule, true, true)) || (err = cachepin_plan_sim_all(pl)))
		goto out;
	ref = layout_cost(pl, scale);
	if (heat <= ref) {	/* the heat colouring back */
		unplace_all(pl, heat_limit);
		for (k = 0; k < pl->nr_hu && !err; k++)
			if (!pl->hu[k].frozen)
				err = cachepin_plan_place(pl, &pl->hu[k], (uint64_t)off[k]);
		if (!err)
			err = cachepin_plan_sim_all(pl);
	}
	pr_debug("heat colouring: %.0f misses on the search string, the reference rule %.0f\n",
		 heat / scale[0], ref / scale[0]);
out:
	free(off);
	return err;
}
