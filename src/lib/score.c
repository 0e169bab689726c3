// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scoring a layout: map the model's reference string to cache lines for
 * the given function addresses, then simulate the cache exactly.
 */
#include <stdio.h>
#include "cachepin/score.h"
#include "internal.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

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

int cachepin_score__run(const struct cachepin_model *m, const uint64_t *faddr,
			const struct cachepin_cache *c, unsigned int flags,
			struct cachepin_score *out)
{
	const struct cachepin_binary *bin = m->bin;
	uint64_t *lines = NULL, *uniq = NULL, *iline = NULL, seed = 0x5eed5eedULL;
	uint32_t *item = NULL, *ids = NULL, *iid = NULL;
	uint8_t *miss = NULL, *miss_fa = NULL;
	size_t n = 0, i, nu = 0;
	struct cachepin_refs refs;
	enum cachepin_repl r;
	bool detail = flags & CACHEPIN_SCORE_DETAIL;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->cache = *c;
	/* the line of every item, and dense ids of the distinct lines */
	iline = malloc((m->nr_items + 1) * sizeof(*iline));
	iid = malloc((m->nr_items + 1) * sizeof(*iid));
	uniq = malloc((m->nr_items + 1) * sizeof(*uniq));
	lines = malloc((m->nr_refs + 1) * sizeof(*lines));
	ids = malloc((m->nr_refs + 1) * sizeof(*ids));
	item = malloc((m->nr_refs + 1) * sizeof(*item));
	if (!iline || !iid || !uniq || !lines || !ids || !item)
		goto fail;
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *it = &m->items[i];
		uint64_t a = (faddr ? faddr[it->func] : bin->funcs[it->func].addr) + it->off;

		iline[i] = a >> c->line_shift;
		uniq[i] = iline[i];
	}
	sort_n(uniq, m->nr_items, sizeof(*uniq), cmp_u64);
	for (i = 0; i < m->nr_items; i++)
		if (!nu || uniq[nu - 1] != uniq[i])
			uniq[nu++] = uniq[i];
	for (i = 0; i < m->nr_items; i++)
		iid[i] = (uint32_t)find_line(uniq, nu, iline[i]);
	for (i = 0; i < m->nr_refs; i++) {
		uint32_t k = m->refs[i];

		if (n && lines[n - 1] == iline[k])
			continue;	/* sequential code in the same line: one fetch */
		lines[n] = iline[k];
		ids[n] = iid[k];
		item[n++] = k;
	}
	refs = (struct cachepin_refs){ lines, ids, nu, n };
	out->fetches = n;
	if (detail) {
		out->sets = calloc(c->sets, sizeof(*out->sets));
		miss = malloc(n + 1);
		miss_fa = malloc(n + 1);
		if (!out->sets || !miss || !miss_fa)
			goto fail;
	}
	for (r = 0; r < CACHEPIN_REPL__NR; r++) {
		uint64_t *per_set = NULL, v;

		if (r == CACHEPIN_REPL_OPT && (flags & CACHEPIN_SCORE_NO_OPT))
			continue;
		if (detail) {
			per_set = calloc(c->sets, sizeof(*per_set));
			if (!per_set)
				goto fail;
		}
		v = cachepin_cache__simulate_refs(c, r, false, &refs, seed, per_set,
						  r == CACHEPIN_REPL_LRU ? miss : NULL);
		if (v == UINT64_MAX) {
			free(per_set);
			goto fail;
		}
		out->miss[r] = v;
		if (detail) {
			uint32_t s;

			for (s = 0; s < c->sets; s++)
				out->sets[s].miss[r] = per_set[s];
		}
		free(per_set);
	}
	out->miss_fa_lru = cachepin_cache__simulate_refs(c, CACHEPIN_REPL_LRU, true, &refs, seed,
							 NULL, miss_fa);
	if (out->miss_fa_lru == UINT64_MAX)
		goto fail;
	if (!(flags & CACHEPIN_SCORE_NO_OPT)) {
		out->miss_fa_opt = cachepin_cache__simulate_refs(c, CACHEPIN_REPL_OPT, true, &refs,
								 seed, NULL, NULL);
		if (out->miss_fa_opt == UINT64_MAX)
			goto fail;
	}
	out->distinct_lines = nu;
	if (detail) {
		double *best = calloc(nu + 1, sizeof(*best));

		out->func_miss = calloc(bin->nr_funcs + 1, sizeof(*out->func_miss));
		out->func_miss_fa = calloc(bin->nr_funcs + 1, sizeof(*out->func_miss_fa));
		out->line_func = malloc((nu + 1) * sizeof(*out->line_func));
		out->line_weight = calloc(nu + 1, sizeof(*out->line_weight));
		out->line_miss = calloc(nu + 1, sizeof(*out->line_miss));
		if (!best || !out->func_miss || !out->func_miss_fa || !out->line_func ||
		    !out->line_weight || !out->line_miss) {
			free(best);
			goto fail;
		}
		for (i = 0; i < nu; i++)
			out->line_func[i] = UINT32_MAX;
		/* line weights from the items; the heaviest item names the line */
		for (i = 0; i < m->nr_items; i++) {
			const struct cachepin_model_item *it = &m->items[i];
			size_t k = iid[i];

			if (!it->count)
				continue;
			out->line_weight[k] += it->weight;
			if (it->weight > best[k]) {
				best[k] = it->weight;
				out->line_func[k] = it->func;
			}
		}
		free(best);
		for (i = 0; i < n; i++) {
			uint32_t s = (uint32_t)lines[i] & (c->sets - 1);

			out->sets[s].fetches++;
			if (miss[i]) {
				out->line_miss[ids[i]]++;
				out->func_miss[m->items[item[i]].func]++;
			}
			if (miss_fa[i]) {
				out->sets[s].miss_fa++;
				out->func_miss_fa[m->items[item[i]].func]++;
			}
		}
		for (i = 0; i < nu; i++) {
			uint32_t s = (uint32_t)uniq[i] & (c->sets - 1);

			if (out->line_func[i] == UINT32_MAX)
				continue;	/* only too-cold items: not fetched */
			out->sets[s].lines++;
			out->sets[s].weight += out->line_weight[i];
		}
		out->line_no = uniq;
		out->nr_lines = nu;
		uniq = NULL;
	}
	err = 0;
	goto out;
fail:
	cachepin_score__release(out);
out:
	free(uniq);
	free(iline);
	free(iid);
	free(lines);
	free(ids);
	free(item);
	free(miss);
	free(miss_fa);
	return err;
}
