// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scoring a layout: map the model's reference string to cache lines for
 * the given function addresses, then simulate the cache exactly.
 */
#include <stdio.h>
#include "cachepin/score.h"
#include "internal.h"

#define SEED 0x5eed5eedULL	/* of the random policy: scores are reproducible */


static size_t find_line(const uint64_t *u, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (u[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void cachepin_score__release(struct cachepin_score *s)
{
	if (!s)
		return;
	free(s->sets);
	free(s->func_miss);
	free(s->func_miss_fa);
	free(s->line_no);
	free(s->line_func);
	free(s->line_weight);
	free(s->line_miss);
	memset(s, 0, sizeof(*s));
}

/* The line strings of one layout, phase by phase. */
struct layout {
	const struct cachepin_model *m;
	const struct cachepin_cache *c;
	uint64_t *iline;	/* per item: its line */
	uint32_t *iid;		/* per item: the dense id of its line */
	uint64_t *uniq;		/* the distinct lines, ascending, nu of them */
	size_t nu;
	uint64_t *lines;	/* the fetch string: n line fetches, */
	uint32_t *ids;		/* their dense ids */
	uint32_t *item;		/* and the item of each */
	size_t n;
	uint8_t *miss, *miss_fa;	/* per fetch: LRU, fully associative LRU miss */
};

/* The line of every item in layout AT, and dense ids of the distinct lines. */
static int item_lines(struct layout *l, const struct cachepin_layout *at)
{
	const struct cachepin_model *m = l->m;
	size_t i;

	l->iline = malloc((m->nr_items + 1) * sizeof(*l->iline));
	l->iid = malloc((m->nr_items + 1) * sizeof(*l->iid));
	l->uniq = malloc((m->nr_items + 1) * sizeof(*l->uniq));
	if (!l->iline || !l->iid || !l->uniq)
		return -ENOMEM;
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *it = &m->items[i];
		uint64_t a = cachepin_layout__addr(at, m->bin, it->func) + it->off;

		l->iline[i] = a >> l->c->line_shift;
		l->uniq[i] = l->iline[i];
	}
	sort_n(l->uniq, m->nr_items, sizeof(*l->uniq), cachepin_cmp_u64);
	for (i = 0; i < m->nr_items; i++)
		if (!l->nu || l->uniq[l->nu - 1] != l->uniq[i])
			l->uniq[l->nu++] = l->uniq[i];
	for (i = 0; i < m->nr_items; i++)
		l->iid[i] = (uint32_t)find_line(l->uniq, l->nu, l->iline[i]);
	return 0;
}

/* The reference string as line fetches. */
static int fetch_string(struct layout *l)
{
	const struct cachepin_model *m = l->m;
	size_t i;

	l->lines = malloc((m->nr_refs + 1) * sizeof(*l->lines));
	l->ids = malloc((m->nr_refs + 1) * sizeof(*l->ids));
	l->item = malloc((m->nr_refs + 1) * sizeof(*l->item));
	if (!l->lines || !l->ids || !l->item)
		return -ENOMEM;
	for (i = 0; i < m->nr_refs; i++) {
		uint32_t k = m->refs[i];

		if (l->n && l->lines[l->n - 1] == l->iline[k])
			continue;	/* sequential code in the same line: one fetch */
		l->lines[l->n] = l->iline[k];
		l->ids[l->n] = l->iid[k];
		l->item[l->n++] = k;
	}
	return 0;
}

/* Set-associative misses under every policy (per set with DETAIL). */
static int sim_sets(const struct layout *l, const struct cachepin_refs *refs,
		    unsigned int flags, struct cachepin_score *out)
{
	const struct cachepin_cache *c = l->c;
	bool detail = flags & CACHEPIN_SCORE_DETAIL;
	enum cachepin_repl r;

	for (r = 0; r < CACHEPIN_REPL__NR; r++) {
		uint64_t *per_set = NULL, v;
		uint32_t s;

		if (!cachepin_repl__online(r) && (flags & CACHEPIN_SCORE_NO_OPT))
			continue;
		if ((flags & CACHEPIN_SCORE_OWN_POLICY) && r != c->repl)
			continue;
		if (detail) {
			per_set = calloc(c->sets, sizeof(*per_set));
			if (!per_set)
				return -ENOMEM;
		}
		v = cachepin_cache__simulate_refs(c, r, false, refs, SEED, per_set,
						  r == CACHEPIN_REPL_LRU ? l->miss : NULL);
		if (v == UINT64_MAX) {
			free(per_set);
			return -ENOMEM;
		}
		out->miss[r] = v;
		if (detail)
			for (s = 0; s < c->sets; s++)
				out->sets[s].miss[r] = per_set[s];
		free(per_set);
	}
	return 0;
}

/* Fully associative misses of the same capacity. */
static int sim_full(const struct layout *l, const struct cachepin_refs *refs,
		    unsigned int flags, struct cachepin_score *out)
{
	out->miss_fa_lru = cachepin_cache__simulate_refs(l->c, CACHEPIN_REPL_LRU, true, refs, SEED,
							 NULL, l->miss_fa);
	if (out->miss_fa_lru == UINT64_MAX)
		return -ENOMEM;
	if (!(flags & CACHEPIN_SCORE_NO_OPT)) {
		out->miss_fa_opt = cachepin_cache__simulate_refs(l->c, CACHEPIN_REPL_OPT, true, refs,
								 SEED, NULL, NULL);
		if (out->miss_fa_opt == UINT64_MAX)
			return -ENOMEM;
	}
	return 0;
}

/* Line weights from the items; the heaviest item names the line. */
static int line_weights(const struct layout *l, struct cachepin_score *out)
{
	const struct cachepin_model *m = l->m;
	double *best = calloc(l->nu + 1, sizeof(*best));
	size_t i;

	if (!best)
		return -ENOMEM;
	for (i = 0; i < l->nu; i++)
		out->line_func[i] = UINT32_MAX;
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *it = &m->items[i];
		size_t k = l->iid[i];

		if (!it->count)
			continue;
		out->line_weight[k] += it->weight;
		if (it->weight > best[k]) {
			best[k] = it->weight;
			out->line_func[k] = it->func;
		}
	}
	free(best);
	return 0;
}

/* DETAIL: the misses per set, function and line, and the lines of each set. */
static int score_detail(struct layout *l, struct cachepin_score *out)
{
	const struct cachepin_model *m = l->m;
	uint32_t set_mask = l->c->sets - 1;
	size_t nu = l->nu, i;
	int err;

	out->func_miss = calloc(m->bin->nr_funcs + 1, sizeof(*out->func_miss));
	out->func_miss_fa = calloc(m->bin->nr_funcs + 1, sizeof(*out->func_miss_fa));
	out->line_func = malloc((nu + 1) * sizeof(*out->line_func));
	out->line_weight = calloc(nu + 1, sizeof(*out->line_weight));
	out->line_miss = calloc(nu + 1, sizeof(*out->line_miss));
	if (!out->func_miss || !out->func_miss_fa || !out->line_func || !out->line_weight ||
	    !out->line_miss)
		return -ENOMEM;
	if ((err = line_weights(l, out)))
		return err;
	for (i = 0; i < l->n; i++) {
		uint32_t s = (uint32_t)l->lines[i] & set_mask;

		out->sets[s].fetches++;
		if (l->miss[i]) {
			out->line_miss[l->ids[i]]++;
			out->func_miss[m->items[l->item[i]].func]++;
		}
		if (l->miss_fa[i]) {
			out->sets[s].miss_fa++;
			out->func_miss_fa[m->items[l->item[i]].func]++;
		}
	}
	for (i = 0; i < nu; i++) {
		uint32_t s = (uint32_t)l->uniq[i] & set_mask;

		if (out->line_func[i] == UINT32_MAX)
			continue;	/* only too-cold items: not fetched */
		out->sets[s].lines++;
		out->sets[s].weight += out->line_weight[i];
	}
	out->line_no = l->uniq;
	out->nr_lines = nu;
	l->uniq = NULL;
	return 0;
}

static int score_run(struct layout *l, const struct cachepin_layout *at, unsigned int flags,
		     struct cachepin_score *out)
{
	bool detailed = flags & CACHEPIN_SCORE_DETAIL;
	struct cachepin_refs refs;
	int err;

	if ((err = item_lines(l, at)) || (err = fetch_string(l)))
		return err;
	refs = (struct cachepin_refs){ l->lines, l->ids, l->nu, l->n };
	out->fetches = l->n;
	if (detailed) {
		out->sets = calloc(l->c->sets, sizeof(*out->sets));
		l->miss = malloc(l->n + 1);
		l->miss_fa = malloc(l->n + 1);
		if (!out->sets || !l->miss || !l->miss_fa)
			return -ENOMEM;
	}
	if ((err = sim_sets(l, &refs, flags, out)) ||
	    (!(flags & CACHEPIN_SCORE_OWN_POLICY) && (err = sim_full(l, &refs, flags, out))))
		return err;
	out->distinct_lines = l->nu;
	return detailed ? score_detail(l, out) : 0;
}

int cachepin_score__run(const struct cachepin_model *m, const struct cachepin_layout *at,
			const struct cachepin_cache *c, unsigned int flags,
			struct cachepin_score *out)
{
	struct layout l = { .m = m, .c = c };
	int err;

	memset(out, 0, sizeof(*out));
	out->cache = *c;
	err = score_run(&l, at, flags, out);
	if (err)
		cachepin_score__release(out);
	free(l.uniq);
	free(l.iline);
	free(l.iid);
	free(l.lines);
	free(l.ids);
	free(l.item);
	free(l.miss);
	free(l.miss_fa);
	return err;
}
