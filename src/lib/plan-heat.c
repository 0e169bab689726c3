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
 * of its fetches evicts one of them) than among lukewarm ones.
 *
 * Then an improvement step on the same objective: every hot unit in turn
 * tried at every free slot of its size in the block, moved where that
 * lowers the sum.
 *
 * The reference rule (CACHEPIN_PLAN_REFERENCE) is the simple colouring
 * the project measures itself against, with the same scan: a line costs
 * nothing in a set of fewer than WAYS lines, else the smaller of its
 * fetches and the fewest of a line already there; no growth room, no
 * padding budget, no improvement step.
 */
#include <math.h>
#include "plan-int.h"

struct hset {
	double *r;		/* rates of its lines */
	size_t n, cap;
	double f;		/* expected misses */
	double t;		/* characteristic time (0: fewer lines than ways) */
	double minr;		/* the fewest fetches of a line */
};

struct hline {
	uint32_t set;
	double c;
	double minr;		/* its set's lightest before it came (to take it out again) */
};

struct heat {
	struct planner *pl;
	bool ref;		/* the reference rule */
	struct hset *sets[CACHEPIN_PLAN_MAX_GEO];
	struct hline *lines;
	size_t cap_lines;
};

#define CHE_ITERS 100
#define CHE_EPS 1e-9

/*
 * The expected misses of the N rates R in a set of W ways under REPL;
 * *T the characteristic time, where to start from (0: from nothing).
 */
static double che(const double *r, size_t n, uint32_t w, enum cachepin_repl repl, double *t)
{
	double sum = 0, x = *t, f = 0;
	size_t i;
	unsigned int it;

	if (n <= w) {
		*t = 0;
		return 0;
	}
	for (i = 0; i < n; i++)
		sum += r[i];
	if (x <= 0)
		x = w / sum;
	/* g(T) is increasing and concave: Newton converges to its root */
	for (it = 0; it < CHE_ITERS; it++) {
		double g = -(double)w, d = 0, nx;

		for (i = 0; i < n; i++) {
			if (repl == CACHEPIN_REPL_RANDOM) {
				double q = 1 + r[i] * x;

				g += r[i] * x / q;
				d += r[i] / (q * q);
			} else {
				double e = exp(-r[i] * x);

				g += 1 - e;
				d += r[i] * e;
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
	for (i = 0; i < n; i++)
		f += repl == CACHEPIN_REPL_RANDOM ? r[i] / (1 + r[i] * x) : r[i] * exp(-r[i] * x);
	*t = x;
	return f;
}

static int hset_push(struct hset *s, double c)
{
	if (GROW(s->r, s->cap, s->n + 1))
		return -ENOMEM;
	if (!s->n || c < s->minr)
		s->minr = c;
	s->r[s->n++] = c;
	return 0;
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
			ht->lines[n - 1].c += it->count;
			continue;
		}
		if (GROW(ht->lines, ht->cap_lines, n + 1))
			return -ENOMEM;
		line = a >> shift;
		ht->lines[n++] = (struct hline){ addr_set(g, a), it->count, 0 };
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
 * pl->weight says; with COMMIT its lines stay in their sets.  0 or
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

			if (ht->ref)
				d += ref_cost(s, ht->lines[k].c, c->ways);
			ht->lines[k].minr = s->minr;
			if ((err = hset_push(s, ht->lines[k].c)))
				return err;
			if (!ht->ref) {
				double t = s->t, f = che(s->r, s->n, c->ways, c->repl, &t);

				d += f - s->f;
				if (commit) {
					s->f = f;
					s->t = t;
				}
			}
		}
		if (!commit)	/* take them out again, last first */
			for (k = n; k-- > 0;) {
				struct hset *s = &ht->sets[gi][ht->lines[k].set];

				s->n--;
				s->minr = ht->lines[k].minr;
			}
		*cost += pl->weight[gi] * d;
	}
	return 0;
}

/* The fixed occupants, line by line, into the sets of every geometry. */
static int heat_fixed(struct heat *ht)
{
	struct planner *pl = ht->pl;
	size_t gi, i;
	uint32_t s;
	int err;

	for (gi = 0; gi < pl->nr_geo; gi++) {
		const struct geo *g = &pl->geo[gi];
		uint64_t line = UINT64_MAX;
		double c = 0;

		for (i = 0; i <= pl->nr_it; i++) {
			const struct sitem *it = i < pl->nr_it ? &pl->it[i] : NULL;

			if (it && it->hunit >= 0)
				continue;
			if (it && it->addr >> g->c->line_shift == line) {
				c += it->count;
				continue;
			}
			if (line != UINT64_MAX &&
			    (err = hset_push(&ht->sets[gi][addr_set(g, line << g->c->line_shift)], c)))
				return err;
			if (!it)
				break;
			line = it->addr >> g->c->line_shift;
			c = it->count;
		}
		for (s = 0; s < g->c->sets && !ht->ref; s++) {
			struct hset *hs = &ht->sets[gi][s];

			hs->t = 0;
			hs->f = che(hs->r, hs->n, g->c->ways, g->c->repl, &hs->t);
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
		for (s = 0; s < ht->pl->geo[gi].c->sets; s++)
			free(ht->sets[gi][s].r);
		free(ht->sets[gi]);
	}
	free(ht->lines);
}

/* Share of the cold bytes the gaps of the heat colouring may take. */
#define HEAT_FILL 0.5

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

/* Share of the cold bytes the gaps of the heat colouring may take. */
#define HEAT_FILL 0.5

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
	if (pl->method != CACHEPIN_PLAN_REFERENCE) {
		allow = (uint64_t)(HEAT_FILL * (double)cachepin_plan_fillable(pl)) +
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

int cachepin_plan_colour_heat(struct planner *pl, bool ref)
{
	struct heat ht = { .pl = pl, .ref = ref };
	size_t gi;
	int err = 0;

	for (gi = 0; gi < pl->nr_geo && !err; gi++)
		if (!(ht.sets[gi] = calloc(pl->geo[gi].c->sets, sizeof(*ht.sets[gi]))))
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

int cachepin_plan_heat(struct planner *pl)
{
	uint64_t limit = pl->limit, heat_limit;
	double scale[CACHEPIN_PLAN_MAX_GEO], heat, ref;
	int64_t *off = malloc((pl->nr_hu + 1) * sizeof(*off));
	size_t gi, k;
	int err;

	if (!off)
		return -ENOMEM;
	if ((err = cachepin_plan_colour_heat(pl, false)) || (err = cachepin_plan_sim_all(pl)))
		goto out;
	for (gi = 0; gi < pl->nr_geo; gi++)
		scale[gi] = pl->geo[gi].scale;
	heat = layout_cost(pl, scale);
	heat_limit = pl->limit;
	for (k = 0; k < pl->nr_hu; k++)
		off[k] = pl->hu[k].off;
	unplace_all(pl, limit);
	if ((err = cachepin_plan_colour_heat(pl, true)) || (err = cachepin_plan_sim_all(pl)))
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
