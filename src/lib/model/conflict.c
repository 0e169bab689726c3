// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a scored layout loses: the sets with the most misses, their
 * heaviest lines, and the pairs of functions that fight over over-full
 * sets (cachepin score's report, and what diff and whatif compare).
 */
#include <uthash.h>
#include "cachepin/score.h"
#include "internal.h"

#define PAIR_TOP 8	/* per set, only its PAIR_TOP most-missing functions pair up */
#define SET_FUNCS 64	/* distinct functions looked at per set */

static inline uint32_t line_set(const struct cachepin_score *s, size_t i)
{
	return (uint32_t)s->line_no[i] & (s->cache.sets - 1);
}

int cachepin_score__worst_sets(const struct cachepin_score *s, uint32_t **order)
{
	uint32_t i, sets = s->cache.sets;
	struct cachepin_set_misses *k = malloc((size_t)sets * sizeof(*k));
	uint32_t *o = malloc((size_t)sets * sizeof(*o) + 1);

	if (!k || !o) {
		free(k);
		free(o);
		return -ENOMEM;
	}
	for (i = 0; i < sets; i++)
		k[i] = (struct cachepin_set_misses){ s->sets[i].miss[CACHEPIN_REPL_LRU], i };
	sort_n(k, sets, sizeof(*k), cachepin_cmp_set_misses);
	for (i = 0; i < sets; i++)
		o[i] = k[i].set;
	free(k);
	*order = o;
	return 0;
}

size_t cachepin_score__set_lines(const struct cachepin_score *s, uint32_t set, size_t *out,
				 size_t max)
{
	size_t i, n = 0, kept = 0, j;

	for (i = 0; i < s->nr_lines; i++) {
		if (line_set(s, i) != set)
			continue;
		n++;
		if (!max)
			continue;
		if (kept < max) {
			j = kept++;
		} else {
			if (s->line_weight[i] <= s->line_weight[out[max - 1]])
				continue;
			j = max - 1;
		}
		while (j > 0 && s->line_weight[out[j - 1]] < s->line_weight[i]) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = i;
	}
	return n;
}

/* Lines bucketed by set (counting sort): set S has lines idx[start[S]..start[S+1]). */
static int lines_by_set(const struct cachepin_score *s, size_t **idx_out, size_t **start_out)
{
	uint32_t sets = s->cache.sets, k;
	size_t *start = calloc((size_t)sets + 1, sizeof(*start));
	size_t *idx = malloc((s->nr_lines + 1) * sizeof(*idx));
	size_t *fillp = calloc((size_t)sets + 1, sizeof(*fillp));
	size_t i;

	if (!start || !idx || !fillp) {
		free(start);
		free(idx);
		free(fillp);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_lines; i++)
		start[line_set(s, i) + 1]++;
	for (k = 0; k < sets; k++)
		start[k + 1] += start[k];
	for (i = 0; i < s->nr_lines; i++) {
		uint32_t set = line_set(s, i);

		idx[start[set] + fillp[set]++] = i;
	}
	free(fillp);
	*idx_out = idx;
	*start_out = start;
	return 0;
}

struct set_func {
	uint32_t func;
	uint64_t miss;
};

/*
 * The functions with missing lines in the set whose lines are
 * IDX[0..N), by their misses there: the PAIR_TOP with most misses
 * first (ties: lower function index).  Returns how many, at most PAIR_TOP.
 */
static size_t set_funcs(const struct cachepin_score *s, const size_t *idx, size_t n,
			struct set_func *fl)
{
	size_t nf = 0, i, j, k;

	for (i = 0; i < n; i++) {
		uint32_t f = s->line_func[idx[i]];

		if (f == UINT32_MAX || !s->line_miss[idx[i]])
			continue;
		for (j = 0; j < nf && fl[j].func != f; j++)
			;
		if (j == nf) {
			if (nf == SET_FUNCS)
				continue;
			fl[nf++] = (struct set_func){ f, 0 };
		}
		fl[j].miss += s->line_miss[idx[i]];
	}
	/* selection of the PAIR_TOP first (nf <= SET_FUNCS) */
	for (j = 0; j < nf && j < PAIR_TOP; j++) {
		size_t best = j;

		for (k = j + 1; k < nf; k++)
			if (fl[k].miss > fl[best].miss ||
			    (fl[k].miss == fl[best].miss && fl[k].func < fl[best].func))
				best = k;
		if (best != j) {
			struct set_func t = fl[j];

			fl[j] = fl[best];
			fl[best] = t;
		}
	}
	return nf > PAIR_TOP ? PAIR_TOP : nf;
}

struct pair_ent {
	uint64_t key;		/* func a << 32 | func b, a < b */
	uint64_t miss;
	uint32_t sets;
	UT_hash_handle hh;
};

struct pair_table {
	struct pair_ent *hash, *pool;	/* the pool is never moved */
	size_t n, cap;
};

static void pair_add(struct pair_table *t, const struct set_func *x, const struct set_func *y)
{
	uint32_t a = x->func < y->func ? x->func : y->func;
	uint32_t b = x->func < y->func ? y->func : x->func;
	uint64_t key = (uint64_t)a << 32 | b;
	struct pair_ent *pe;

	HASH_FIND(hh, t->hash, &key, sizeof(key), pe);
	if (!pe) {
		if (t->n == t->cap)
			return;
		pe = &t->pool[t->n++];
		pe->key = key;
		HASH_ADD(hh, t->hash, key, sizeof(pe->key), pe);
	}
	pe->miss += x->miss < y->miss ? x->miss : y->miss;
	pe->sets++;
}

static int cmp_pairs(const void *x, const void *y)
{
	const struct cachepin_score_pair *a = x, *b = y;

	if (a->miss != b->miss)
		return a->miss < b->miss ? 1 : -1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->b > b->b) - (a->b < b->b);
}

int cachepin_score__pairs(const struct cachepin_score *s, struct cachepin_score_pair **pairs,
			  size_t *nr)
{
	struct pair_table t = { 0 };
	struct cachepin_score_pair *out = NULL;
	struct set_func fl[SET_FUNCS];
	struct pair_ent *pe, *tmp;
	size_t *idx = NULL, *start = NULL, n, i, j, k;
	uint32_t set;
	int err = -ENOMEM;

	*pairs = NULL;
	*nr = 0;
	if (!s->line_no)
		return -EINVAL;
	if (lines_by_set(s, &idx, &start))
		return -ENOMEM;
	/* at most PAIR_TOP*(PAIR_TOP-1)/2 pairs per set */
	t.cap = (size_t)s->cache.sets * PAIR_TOP * (PAIR_TOP - 1) / 2 + 1;
	t.pool = calloc(t.cap, sizeof(*t.pool));
	if (!t.pool)
		goto out;
	for (set = 0; set < s->cache.sets; set++) {
		if (s->sets[set].lines <= s->cache.ways || !s->sets[set].miss[CACHEPIN_REPL_LRU])
			continue;
		n = set_funcs(s, idx + start[set], start[set + 1] - start[set], fl);
		for (j = 0; j < n; j++)
			for (k = j + 1; k < n; k++)
				pair_add(&t, &fl[j], &fl[k]);
	}
	n = HASH_COUNT(t.hash);
	out = malloc((n + 1) * sizeof(*out));
	if (!out)
		goto out;
	i = 0;
	HASH_ITER(hh, t.hash, pe, tmp)
		out[i++] = (struct cachepin_score_pair){ (uint32_t)(pe->key >> 32), (uint32_t)pe->key,
							 pe->miss, pe->sets };
	sort_n(out, n, sizeof(*out), cmp_pairs);
	*pairs = out;
	*nr = n;
	err = 0;
out:
	HASH_CLEAR(hh, t.hash);
	free(t.pool);
	free(idx);
	free(start);
	return err;
}
