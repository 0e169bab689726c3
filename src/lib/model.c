// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reference-string model: from a profile to a layout-independent
 * string of granule fetches in execution order (see cachepin/model.h
 * and cachepin-score(1) for the model).
 */
#include <math.h>
#include <stdio.h>
#include "cachepin/model.h"
#include "internal.h"

#define DEFAULT_REFS (2u << 20)
#define HOLE 2	/* unsampled granules taken as sampling noise (default) */
#define CALL_BLOCK 3	/* granules before a call site that run with the call */

struct mchild {
	uint32_t callee;	/* model function index */
	uint32_t callsite;
	double weight;
};

struct mfunc {
	uint32_t bf;		/* binary function */
	double incl, weight;
	uint32_t first_item, nr_items;
	struct mchild *kids;
	size_t nr_kids, cap_kids;
	bool has_caller, visited;
};

static int cmp_child(const void *a, const void *b)
{
	const struct mchild *x = a, *y = b;

	if (x->callsite != y->callsite)
		return x->callsite < y->callsite ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

/* Functions by inclusive weight, descending; stable on index. */
struct root_key {
	double incl, weight;
	uint32_t idx;		/* model function */
};

static int cmp_root(const void *a, const void *b)
{
	const struct root_key *x = a, *y = b;

	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

struct dfs_frame {
	uint32_t f, item, kid;
};

/* Depth-first walk from F: assign ranks to items. */
static int model_walk(struct cachepin_model *m, struct mfunc *mf, uint32_t start, uint32_t *rank)
{
	struct dfs_frame *st = NULL;
	size_t nst = 0, cap = 0;

	if (mf[start].visited)
		return 0;
	if (GROW(st, cap, 1))
		return -ENOMEM;
	st[nst++] = (struct dfs_frame){ start, 0, 0 };
	mf[start].visited = true;
	while (nst) {
		struct dfs_frame *fr = &st[nst - 1];
		struct mfunc *f = &mf[fr->f];
		uint32_t next_site = fr->kid < f->nr_kids ? f->kids[fr->kid].callsite : UINT32_MAX;

		if (fr->item < f->nr_items &&
		    m->items[f->first_item + fr->item].off <= next_site) {
			m->items[f->first_item + fr->item].rank = (*rank)++;
			fr->item++;
			continue;
		}
		if (fr->kid < f->nr_kids) {
			uint32_t c = f->kids[fr->kid++].callee;

			if (mf[c].visited)
				continue;
			mf[c].visited = true;
			if (GROW(st, cap, nst + 1)) {
				free(st);
				return -ENOMEM;
			}
			st[nst++] = (struct dfs_frame){ c, 0, 0 };
			continue;
		}
		if (fr->item < f->nr_items)
			continue;	/* only items after the last call site remain */
		nst--;
	}
	free(st);
	return 0;
}

static void radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	size_t cnt[256], i;
	int pass;

	for (pass = 0; pass < 8; pass++) {
		int sh = pass * 8;
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(a[i] >> sh) & 0xff]++;
		for (i = 0; i < 256; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[(a[i] >> sh) & 0xff]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

uint32_t *cachepin_model__string(const struct cachepin_model *m, size_t L, size_t *n)
{
	uint64_t *keys, *tmp;
	uint32_t *refs;
	size_t nk = 0, i;

	for (i = 0; i < m->nr_items; i++) {
		double c = (double)L * m->items[i].weight / m->weight;

		nk += c >= 0.5 ? (size_t)llround(c) : 0;
	}
	keys = malloc((nk + 1) * sizeof(*keys));
	tmp = malloc((nk + 1) * sizeof(*tmp));
	refs = malloc((nk + 1) * sizeof(*refs));
	if (!keys || !tmp || !refs) {
		free(keys);
		free(tmp);
		free(refs);
		errno = ENOMEM;
		return NULL;
	}
	nk = 0;
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *it = &m->items[i];
		double c = (double)L * it->weight / m->weight;
		uint32_t count = c >= 0.5 ? (uint32_t)llround(c) : 0, k;
		double phase = (double)it->rank / (double)m->nr_items;

		for (k = 0; k < count; k++) {
			double t = ((double)k + phase) / (double)count;
			uint64_t q = (uint64_t)(t * 4294967296.0);

			if (q > UINT32_MAX)
				q = UINT32_MAX;
			keys[nk++] = q << 32 | (uint64_t)i;
		}
	}
	radix_sort(keys, tmp, nk);
	for (i = 0; i < nk; i++)
		refs[i] = (uint32_t)keys[i];
	free(keys);
	free(tmp);
	*n = nk;
	return refs;
}

void cachepin_model__free(struct cachepin_model *m)
{
	if (!m)
		return;
	free(m->items);
	free(m->refs);
	free(m);
}

struct cachepin_model *cachepin_model__new(const struct cachepin_profile *p,
					   const struct cachepin_binary *bin, const int *map,
					   const struct cachepin_model_opts *opts)
{
	size_t L = opts && opts->refs ? opts->refs : DEFAULT_REFS;
	bool whole_all = opts && opts->whole;
	struct cachepin_model *m = calloc(1, sizeof(*m));
	struct mfunc *mf = NULL;
	int32_t *p2m = NULL;
	struct root_key *order = NULL;
	uint32_t rank = 0, gran = p->granule ? p->granule : CACHEPIN_PROFILE_GRANULE;
	size_t nmf = 0, cap_items = 0, i, j, k;
	double *entry_w = NULL, *site_w = NULL;
	size_t *edge_lo = NULL, *edge_hi = NULL;
	int err = -ENOMEM;

	if (!m)
		return NULL;
	m->bin = bin;
	m->granule = gran;
	mf = calloc(p->nr_funcs + 1, sizeof(*mf));
	p2m = malloc((p->nr_funcs + 1) * sizeof(*p2m));
	if (!mf || !p2m)
		goto fail;

	/*
	 * 0. Call sites are hot lines too: a caller fetches the line of its
	 * call each time it calls, as often as the callee's entry runs, even
	 * when sampling gave the caller little time of its own.
	 */
	entry_w = calloc(p->nr_funcs + 1, sizeof(*entry_w));
	site_w = calloc(p->nr_edges + 1, sizeof(*site_w));
	edge_lo = malloc((p->nr_funcs + 1) * sizeof(*edge_lo));
	edge_hi = malloc((p->nr_funcs + 1) * sizeof(*edge_hi));
	if (!entry_w || !site_w || !edge_lo || !edge_hi)
		goto fail;
	/* the outgoing edges of each function: edges are sorted by caller */
	for (i = 0, j = 0; i < p->nr_funcs; i++) {
		while (j < p->nr_edges && p->edges[j].caller < i)
			j++;
		for (k = j; k < p->nr_edges && p->edges[k].caller == i; k++)
			;
		edge_lo[i] = j;
		edge_hi[i] = k;
	}
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];

		if (pf->nr_grans)
			entry_w[i] = pf->grans[0].weight;
		else if (pf->weight > 0 && map[i] >= 0)
			entry_w[i] = pf->weight * gran / (double)(bin->funcs[map[i]].size ? bin->funcs[map[i]].size : gran);
	}
	for (i = 0; i < p->nr_edges; i++)
		if (p->edges[i].callsite != UINT32_MAX && p->edges[i].callsite > 0)
			site_w[i] = entry_w[p->edges[i].callee];

	/* 1. items: granules of every matched function, in offset order */
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];
		const struct cachepin_func *bf;
		uint64_t size, nslot;
		double rem = pf->weight, sites = 0;
		struct mfunc *f;
		size_t e0, e1;
		uint64_t hole;
		bool whole;

		p2m[i] = -1;
		if (map[i] < 0)
			continue;
		e0 = edge_lo[i];
		e1 = edge_hi[i];
		for (k = e0; k < e1; k++)
			sites += site_w[k];
		if (pf->weight <= 0 && sites <= 0)
			continue;
		bf = &bin->funcs[map[i]];
		/*
		 * A synthetic function is the room a handler may take, not its
		 * code (the divec interrupt jump is 8 of 0x800 bytes): only
		 * what got samples is hot, also with --whole-functions, and
		 * weight without offsets (hot lists) is its entry's.
		 */
		whole = whole_all && !(bf->flags & CACHEPIN_FUNC_SYNTHETIC);
		hole = whole ? UINT64_MAX / 2 : HOLE;
		size = bf->size ? bf->size : gran;
		nslot = (size + gran - 1) / gran;
		if (nslot > (1u << 20))
			nslot = 1u << 20;
		f = &mf[nmf];
		f->bf = (uint32_t)map[i];
		f->incl = pf->incl > pf->weight ? pf->incl : pf->weight;
		f->weight = pf->weight;
		f->first_item = (uint32_t)m->nr_items;
		for (j = 0; j < pf->nr_grans; j++)
			rem -= pf->grans[j].weight;
		if (rem < pf->weight * 1e-9)
			rem = 0;
		/* merge explicit granules with the uniform remainder, slot by slot */
		{
			size_t g = 0;
			uint64_t s, last = 0, t;
			double *w = calloc(nslot + 1, sizeof(*w));
			bool any = false;

			if (!w)
				goto fail;
			for (s = 0; s < nslot; s++) {
				if (bf->flags & CACHEPIN_FUNC_SYNTHETIC)
					w[s] = s == 0 ? rem : 0;	/* a vector's entry */
				else
					w[s] = rem > 0 ? rem / (double)nslot : 0;
				while (g < pf->nr_grans && pf->grans[g].off / gran < s)
					g++;
				while (g < pf->nr_grans && pf->grans[g].off / gran == s)
					w[s] += pf->grans[g++].weight;
				for (k = e0; k < e1; k++)
					if (site_w[k] > 0 && (p->edges[k].callsite - 1) / gran == s)
						w[s] += site_w[k];
			}
			/*
			 * The block that ends in a call runs with it: the granules
			 * just before a call site (argument set-up, the loop around
			 * the call) are fetched as often as the call.
			 */
			for (k = e0; k < e1; k++) {
				uint64_t cs, t0;

				if (site_w[k] <= 0)
					continue;
				cs = (p->edges[k].callsite - 1) / gran;
				if (cs >= nslot)
					continue;
				t0 = cs > CALL_BLOCK ? cs - CALL_BLOCK : 0;
				for (t = t0; t < cs; t++)
					if (w[t] <= 0)
						w[t] = site_w[k];
			}
			/* granules past the end of the (shrunk) function: last slot */
			for (; g < pf->nr_grans; g++)
				w[nslot - 1] += pf->grans[g].weight;
			/*
			 * Sampling misses short stretches of straight code: a hole of
			 * at most HOLE granules between sampled ones, or before the
			 * function's end, ran as often as its neighbours.
			 */
			for (s = 0; s < nslot; s++) {
				if (w[s] <= 0)
					continue;
				if (any && s - last > 1 && s - last - 1 <= hole) {
					double fillw = w[s] < w[last] ? w[s] : w[last];

					for (t = last + 1; t < s; t++)
						w[t] = fillw;
				}
				any = true;
				last = s;
			}
			if (any && nslot - 1 - last <= hole)
				for (t = last + 1; t < nslot; t++)
					w[t] = w[last];
			if (any && whole)
				for (t = 0; t < nslot && w[t] <= 0; t++)
					w[t] = w[nslot - 1];
			for (s = 0; s < nslot; s++) {
				if (w[s] <= 0)
					continue;
				if (GROW(m->items, cap_items, m->nr_items + 1)) {
					free(w);
					goto fail;
				}
				m->items[m->nr_items++] = (struct cachepin_model_item){
					.func = f->bf, .off = (uint32_t)(s * gran), .weight = w[s],
				};
				m->weight += w[s];
			}
			free(w);
		}
		f->nr_items = (uint32_t)(m->nr_items - f->first_item);
		if (!f->nr_items)
			continue;
		p2m[i] = (int32_t)nmf++;
	}

	/* 2. call graph among modelled functions */
	for (i = 0; i < p->nr_edges; i++) {
		const struct cachepin_pedge *e = &p->edges[i];
		int32_t a = p2m[e->caller], b = p2m[e->callee];
		struct mfunc *f;

		if (a < 0 || b < 0 || a == b)
			continue;
		f = &mf[a];
		if (GROW(f->kids, f->cap_kids, f->nr_kids + 1))
			goto fail;
		f->kids[f->nr_kids++] = (struct mchild){ (uint32_t)b, e->callsite, e->weight };
		if (e->flags & CACHEPIN_PEDGE_DYNAMIC)
			mf[b].has_caller = true;
		m->ordered = true;
	}
	for (i = 0; i < nmf; i++)
		if (mf[i].nr_kids)
			sort_n(mf[i].kids, mf[i].nr_kids, sizeof(*mf[i].kids), cmp_child);

	/* 3. execution order: roots first (heaviest), then the rest */
	order = malloc((nmf + 1) * sizeof(*order));
	if (!order)
		goto fail;
	for (i = 0; i < nmf; i++)
		order[i] = (struct root_key){ mf[i].incl, mf[i].weight, (uint32_t)i };
	sort_n(order, nmf, sizeof(*order), cmp_root);
	for (i = 0; i < nmf; i++)
		if (!mf[order[i].idx].has_caller && (err = model_walk(m, mf, order[i].idx, &rank)))
			goto fail;
	for (i = 0; i < nmf; i++)
		if ((err = model_walk(m, mf, order[i].idx, &rank)))
			goto fail;
	err = -ENOMEM;

	/* 4. rates and the interleaved string */
	for (i = 0; i < m->nr_items; i++) {
		struct cachepin_model_item *it = &m->items[i];
		double c = (double)L * it->weight / m->weight;

		it->count = c >= 0.5 ? (uint32_t)llround(c) : 0;
		if (!it->count)
			m->dropped += it->weight;
	}
	m->refs = cachepin_model__string(m, L, &m->nr_refs);
	if (m->refs)
		err = 0;
fail:
	free(order);
	if (mf)
		for (i = 0; i < nmf; i++)
			free(mf[i].kids);
	free(mf);
	free(p2m);
	free(entry_w);
	free(site_w);
	free(edge_lo);
	free(edge_hi);
	if (err) {
		cachepin_model__free(m);
		errno = -err;
		return NULL;
	}
	return m;
}
