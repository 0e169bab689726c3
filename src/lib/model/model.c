// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reference-string model: from a profile to a layout-independent
 * string of granule fetches in execution order (see cachepin/model.h
 * and cachepin-score(1) for the model).
 */
#include <math.h>
#include <stdio.h>
#include "cachepin/model.h"
#include "flow.h"
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
	uint32_t pf;		/* profile function */
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

/* Fetches of item I in slice J (J ignored without slices) in a string of L. */
static uint32_t item_count(const struct cachepin_model *m, size_t i, uint32_t j, size_t L)
{
	double w = m->nr_slices ? m->slice_w[i * m->nr_slices + j] : m->items[i].weight;
	double c = (double)L * w / m->weight;

	/* never more than the string: llround() of a huge value is undefined */
	if (!(c >= 0.5))
		return 0;
	return c >= (double)L ? (uint32_t)(L > UINT32_MAX ? UINT32_MAX : L) : (uint32_t)llround(c);
}

uint32_t *cachepin_model__string(const struct cachepin_model *m, size_t L, size_t *n)
{
	uint32_t ns = m->nr_slices ? m->nr_slices : 1, j;
	uint64_t *keys, *tmp;
	uint32_t *refs;
	size_t nk = 0, i;

	if (m->exact) {
		/* the middle of the run, the same stretch of every copy */
		size_t run = m->run_refs, each = L / m->copies, from, k;

		each = run > each ? each : run;
		from = (run - each) / 2;
		if (!(refs = malloc((m->copies * each + 1) * sizeof(*refs)))) {
			errno = ENOMEM;
			return NULL;
		}
		for (k = 0; k < m->copies; k++)
			memcpy(refs + k * each, m->refs + k * run + from, each * sizeof(*refs));
		*n = m->copies * each;
		return refs;
	}
	for (i = 0; i < m->nr_items; i++)
		for (j = 0; j < ns; j++)
			nk += item_count(m, i, j, L);
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
		double phase = (double)m->items[i].rank / (double)m->nr_items;

		/* slice J is the time [J, J + 1) of NS: the slices in order */
		for (j = 0; j < ns; j++) {
			uint32_t count = item_count(m, i, j, L), k;

			for (k = 0; k < count; k++) {
				double t = ((double)j + ((double)k + phase) / (double)count) / (double)ns;
				uint64_t q = (uint64_t)(t * 4294967296.0);

				if (q > UINT32_MAX)
					q = UINT32_MAX;
				keys[nk++] = q << 32 | (uint64_t)i;
			}
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
	free(m->twin);
	free(m->slice_w);
	free(m->edges);
	free(m);
}

/* What cachepin_model__new() works on, phase by phase. */
struct build {
	const struct cachepin_profile *p;
	const struct cachepin_binary *bin;
	const int *map;
	struct cachepin_model *m;
	size_t cap_items;
	struct mfunc *mf;	/* the modelled functions, nmf of them */
	size_t nmf;
	int32_t *p2m;		/* profile function -> model function, or -1 */
	size_t *edge_lo, *edge_hi;	/* profile function -> its outgoing edges */
	double *site_w;		/* per edge: weight of its call site */
	uint32_t gran;
	bool whole_all;
	struct cachepin_flow flow;	/* straight-line code, if it decodes */
	uint32_t slice_of[CACHEPIN_PROFILE_SLICES];	/* model slice -> profile slice */
};

/*
 * The outgoing edges of every profile function, [edge_lo, edge_hi): the
 * edges are sorted by caller, so one pass over both finds them.
 */
static int index_edges(struct build *b)
{
	const struct cachepin_profile *p = b->p;
	size_t i, e = 0, h;

	b->edge_lo = malloc((p->nr_funcs + 1) * sizeof(*b->edge_lo));
	b->edge_hi = malloc((p->nr_funcs + 1) * sizeof(*b->edge_hi));
	if (!b->edge_lo || !b->edge_hi)
		return -ENOMEM;
	for (i = 0; i < p->nr_funcs; i++) {
		while (e < p->nr_edges && p->edges[e].caller < i)
			e++;
		for (h = e; h < p->nr_edges && p->edges[h].caller == i; h++)
			;
		b->edge_lo[i] = e;
		b->edge_hi[i] = h;
	}
	return 0;
}

static bool site_known(const struct cachepin_pedge *e)
{
	return e->callsite != UINT32_MAX && e->callsite > 0;
}

/*
 * 0. Call sites are hot lines too: a caller fetches the line of its
 * call each time it calls, as often as the callee's entry runs, even
 * when sampling gave the caller little time of its own.
 */
static int call_site_weights(struct build *b)
{
	const struct cachepin_profile *p = b->p;
	double *entry_w, *in_w;
	uint32_t *in_n;
	size_t i;

	entry_w = calloc(p->nr_funcs + 1, sizeof(*entry_w));
	in_w = calloc(p->nr_funcs + 1, sizeof(*in_w));
	in_n = calloc(p->nr_funcs + 1, sizeof(*in_n));
	b->site_w = calloc(p->nr_edges + 1, sizeof(*b->site_w));
	if (!entry_w || !in_w || !in_n || !b->site_w) {
		free(entry_w);
		free(in_w);
		free(in_n);
		return -ENOMEM;
	}
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];
		int bf = b->map[i];

		if (pf->nr_grans)
			entry_w[i] = pf->grans[0].weight;
		else if (pf->weight > 0 && bf >= 0)
			entry_w[i] = pf->weight * b->gran /
				     (double)(b->bin->funcs[bf].size ? b->bin->funcs[bf].size : b->gran);
	}
	/*
	 * The callee's entry runs once per call from any of its call sites:
	 * each site gets the share of its edge in the weight of all edges
	 * into the callee (equal shares when the edges carry no weight).
	 */
	for (i = 0; i < p->nr_edges; i++)
		if (site_known(&p->edges[i])) {
			in_w[p->edges[i].callee] += p->edges[i].weight > 0 ? p->edges[i].weight : 0;
			in_n[p->edges[i].callee]++;
		}
	for (i = 0; i < p->nr_edges; i++) {
		const struct cachepin_pedge *e = &p->edges[i];

		if (!site_known(e))
			continue;
		if (in_w[e->callee] > 0)
			b->site_w[i] = entry_w[e->callee] * (e->weight > 0 ? e->weight : 0) / in_w[e->callee];
		else
			b->site_w[i] = entry_w[e->callee] / in_n[e->callee];
	}
	free(entry_w);
	free(in_w);
	free(in_n);
	return 0;
}

/*
 * The block that ends in a call runs with it: the granules just before a
 * call site of profile function I (argument set-up, the loop around the
 * call) are fetched as often as the call.
 */
static void call_blocks(const struct build *b, size_t i, double *w, uint64_t nslot)
{
	size_t k;
	uint64_t cs, t0, t;

	for (k = b->edge_lo[i]; k < b->edge_hi[i]; k++) {
		if (b->site_w[k] <= 0)
			continue;
		cs = (b->p->edges[k].callsite - 1) / b->gran;
		if (cs >= nslot)
			continue;
		t0 = cs > CALL_BLOCK ? cs - CALL_BLOCK : 0;
		for (t = t0; t < cs; t++)
			if (w[t] <= 0)
				w[t] = b->site_w[k];
	}
}

/*
 * The weight of each of the NSLOT granules of profile function I into W:
 * its explicit granules merged with the uniform remainder REM of its
 * weight, slot by slot, plus its call sites.
 */
static void slot_weights(const struct build *b, size_t i, bool synthetic, double rem,
			 double *w, uint64_t nslot)
{
	const struct cachepin_pfunc *pf = &b->p->funcs[i];
	uint32_t gran = b->gran;
	size_t g = 0, k;
	uint64_t s;

	for (s = 0; s < nslot; s++) {
		if (synthetic)
			w[s] = s == 0 ? rem : 0;	/* a vector's entry */
		else
			w[s] = rem > 0 ? rem / (double)nslot : 0;
		while (g < pf->nr_grans && pf->grans[g].off / gran < s)
			g++;
		while (g < pf->nr_grans && pf->grans[g].off / gran == s)
			w[s] += pf->grans[g++].weight;
		for (k = b->edge_lo[i]; k < b->edge_hi[i]; k++)
			if (b->site_w[k] > 0 && (b->p->edges[k].callsite - 1) / gran == s)
				w[s] += b->site_w[k];
	}
	call_blocks(b, i, w, nslot);
	/* granules past the end of the (shrunk) function: last slot */
	for (; g < pf->nr_grans; g++)
		w[nslot - 1] += pf->grans[g].weight;
}

/*
 * Sampling misses short stretches of straight code: a hole of at most
 * HOLE granules between sampled ones, or before the function's end, ran
 * as often as its neighbours.  WHOLE: the function is hot from its start.
 */
static void fill_holes(double *w, uint64_t nslot, uint64_t hole, bool whole)
{
	uint64_t s, last = 0, t;
	bool any = false;

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
}

/*
 * The code after a sampled granule runs as often as it does, up to the
 * granule where its straight run ends (ENDS, from flow.c): timer samples
 * land on a block's first instructions (measured: a router kernel's perf
 * recording under QEMU, planned and scored on an exact trace of another
 * run, 32 KiB 4-way LRU: -10.7 % from stock with the short holes alone,
 * -30.8 % with this).  A no-op on an exact trace, where all of it has
 * counts.
 *
 * SHARE: a sampled granule that holds the end of a run also starts the
 * next one where code follows the end in it, and that run takes the
 * share of the granule's weight its bytes after the end are.  Taken for
 * x86, whose granules of 16 bytes hold four instructions and often a
 * jump: on the bench (six perf recordings of Lua, readelf and tcc, each
 * cache's own plan, cachegrind) the median plan over the best other
 * layout went from 0.887 to 0.858 (geometric mean of nine cells; Lua at
 * 64 KiB 0.865 -> 0.716, readelf at 32 KiB 1.115 -> 1.008, readelf at
 * 16 KiB 0.928 -> 1.009).  Not for the fixed-width sets: under QEMU a
 * sample lands on a translation block's first instruction, before the
 * end or after it, and the router kernel's perf plan with the share had
 * 4.5 % more LRU misses on the lab's trace (median of eight seeds,
 * 156,983 -> 164,136).
 */
static void fill_runs(double *w, const uint8_t *ends, uint64_t nslot, uint32_t gran, bool share)
{
	uint64_t s, t, next = 0;

	for (s = 0; s < nslot; s++) {
		double carry = w[s];

		if (s < next || w[s] <= 0)
			continue;	/* filled from a run before, or cold */
		if (ends[s]) {
			if (!share || ends[s] >= gran)
				continue;
			carry = w[s] * (double)(gran - ends[s]) / (double)gran;
		}
		for (t = s + 1; t < nslot && w[t] <= 0; t++) {
			w[t] = carry;
			if (ends[t]) {
				t++;	/* filled, and its run ends in it */
				break;
			}
		}
		next = t;
	}
}

/* An item for every hot granule of W, in offset order, for model function F. */
static int add_items(struct build *b, const struct mfunc *f, const double *w, uint64_t nslot)
{
	struct cachepin_model *m = b->m;
	uint64_t s;

	for (s = 0; s < nslot; s++) {
		if (w[s] <= 0)
			continue;
		if (GROW(m->items, b->cap_items, m->nr_items + 1))
			return -ENOMEM;
		m->items[m->nr_items++] = (struct cachepin_model_item){
			.func = f->bf, .off = (uint32_t)(s * b->gran), .weight = w[s],
		};
		m->weight += w[s];
	}
	return 0;
}

/* 1. The items of profile function I, and a model function if it has any. */
static int func_items(struct build *b, size_t i)
{
	const struct cachepin_pfunc *pf = &b->p->funcs[i];
	const struct cachepin_func *bf;
	uint64_t size, nslot, hole;
	double rem = pf->weight, sites = 0, *w;
	struct mfunc *f;
	bool whole;
	size_t k;
	int err;

	b->p2m[i] = -1;
	if (b->map[i] < 0)
		return 0;
	for (k = b->edge_lo[i]; k < b->edge_hi[i]; k++)
		sites += b->site_w[k];
	if (pf->weight <= 0 && sites <= 0)
		return 0;
	bf = &b->bin->funcs[b->map[i]];
	/*
	 * A synthetic function is the room a handler may take, not its
	 * code (the divec interrupt jump is 8 of 0x800 bytes): only
	 * what got samples is hot, also with --whole-functions, and
	 * weight without offsets (hot lists) is its entry's.
	 */
	whole = b->whole_all && !(bf->flags & CACHEPIN_FUNC_SYNTHETIC);
	hole = whole ? UINT64_MAX / 2 : HOLE;
	size = bf->size ? bf->size : b->gran;
	nslot = (size + b->gran - 1) / b->gran;
	if (nslot > (1u << 20))
		nslot = 1u << 20;
	f = &b->mf[b->nmf];
	f->bf = (uint32_t)b->map[i];
	f->pf = (uint32_t)i;
	f->incl = pf->incl > pf->weight ? pf->incl : pf->weight;
	f->weight = pf->weight;
	f->first_item = (uint32_t)b->m->nr_items;
	for (k = 0; k < pf->nr_grans; k++)
		rem -= pf->grans[k].weight;
	if (rem < pf->weight * 1e-9)
		rem = 0;
	w = calloc(nslot + 1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	slot_weights(b, i, bf->flags & CACHEPIN_FUNC_SYNTHETIC, rem, w, nslot);
	if (cachepin_flow__decodes(&b->flow) && !whole && !(bf->flags & CACHEPIN_FUNC_SYNTHETIC)) {
		uint8_t *ends = malloc(nslot + 1);	/* cleared by flow__ends */

		if (!ends) {
			free(w);
			return -ENOMEM;
		}
		/* -ENOTSUP, -EIO: no code to read, the short holes alone */
		if ((err = cachepin_flow__ends(&b->flow, bf, b->gran, nslot, ends)) == -ENOMEM) {
			free(ends);
			free(w);
			return err;
		}
		if (!err)
			fill_runs(w, ends, nslot, b->gran, cachepin_flow__variable(&b->flow));
		free(ends);
	}
	fill_holes(w, nslot, hole, whole);
	err = add_items(b, f, w, nslot);
	free(w);
	if (err)
		return err;
	f->nr_items = (uint32_t)(b->m->nr_items - f->first_item);
	if (f->nr_items)
		b->p2m[i] = (int32_t)b->nmf++;
	return 0;
}

/* 2. The call graph among the modelled functions, callees by call site. */
static int call_graph(struct build *b)
{
	const struct cachepin_profile *p = b->p;
	struct mfunc *mf = b->mf;
	size_t i, cap = 0;

	for (i = 0; i < p->nr_edges; i++) {
		const struct cachepin_pedge *e = &p->edges[i];
		int32_t x = b->p2m[e->caller], y = b->p2m[e->callee];
		struct mfunc *f;

		if (x < 0 || y < 0 || x == y)
			continue;
		if ((e->flags & CACHEPIN_PEDGE_DYNAMIC) && e->weight > 0) {
			if (GROW(b->m->edges, cap, b->m->nr_edges + 1))
				return -ENOMEM;
			b->m->edges[b->m->nr_edges++] = (struct cachepin_model_edge){
				mf[x].bf, mf[y].bf, e->weight,
			};
		}
		f = &mf[x];
		if (GROW(f->kids, f->cap_kids, f->nr_kids + 1))
			return -ENOMEM;
		f->kids[f->nr_kids++] = (struct mchild){ (uint32_t)y, e->callsite, e->weight };
		if (e->flags & CACHEPIN_PEDGE_DYNAMIC)
			mf[y].has_caller = true;
		b->m->ordered = true;
	}
	for (i = 0; i < b->nmf; i++)
		if (mf[i].nr_kids)
			sort_n(mf[i].kids, mf[i].nr_kids, sizeof(*mf[i].kids), cmp_child);
	return 0;
}

/* 3. Execution order: roots first (heaviest), then the rest. */
static int exec_order(struct build *b)
{
	struct root_key *order = malloc((b->nmf + 1) * sizeof(*order));
	uint32_t rank = 0;
	size_t i;
	int err = 0;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < b->nmf; i++)
		order[i] = (struct root_key){ b->mf[i].incl, b->mf[i].weight, (uint32_t)i };
	sort_n(order, b->nmf, sizeof(*order), cmp_root);
	for (i = 0; i < b->nmf && !err; i++)
		if (!b->mf[order[i].idx].has_caller)
			err = model_walk(b->m, b->mf, order[i].idx, &rank);
	for (i = 0; i < b->nmf && !err; i++)
		err = model_walk(b->m, b->mf, order[i].idx, &rank);
	free(order);
	return err;
}

/*
 * 4. Time: the weight of every item per slice, from its own granule's
 * slices, else its function's (a hole, a call block), else evenly.
 */
static void item_slices(const struct build *b, const struct mfunc *f)
{
	const struct cachepin_pfunc *pf = &b->p->funcs[f->pf];
	struct cachepin_model *m = b->m;
	uint32_t ns = m->nr_slices, j;
	double fdist[CACHEPIN_PROFILE_SLICES] = { 0 }, fsum = 0;
	size_t g = 0, k, x;

	for (k = 0; k < pf->nr_grans; k++)
		for (j = 0; j < ns; j++)
			fdist[j] += pf->slices[k * b->p->nr_slices + b->slice_of[j]];
	for (j = 0; j < ns; j++)
		fsum += fdist[j];
	for (x = f->first_item; x < f->first_item + f->nr_items; x++) {
		const struct cachepin_model_item *it = &m->items[x];
		double *sw = &m->slice_w[x * ns], sum = 0;

		while (g < pf->nr_grans && pf->grans[g].off < it->off)
			g++;
		if (g < pf->nr_grans && pf->grans[g].off == it->off)
			for (j = 0; j < ns; j++)
				sum += sw[j] = pf->slices[g * b->p->nr_slices + b->slice_of[j]];
		if (sum <= 0 && fsum > 0)
			for (j = 0; j < ns; j++)
				sum += sw[j] = fdist[j];
		if (sum <= 0)
			for (j = 0; j < ns; j++)
				sum += sw[j] = 1;
		for (j = 0; j < ns; j++)
			sw[j] *= it->weight / sum;
	}
}

/* 5. Rates and the interleaved string. */
static int rates(struct build *b, size_t L)
{
	struct cachepin_model *m = b->m;
	uint32_t ns = m->nr_slices ? m->nr_slices : 1, j;
	size_t i;

	if (m->nr_slices) {
		m->slice_w = calloc(m->nr_items * ns + 1, sizeof(*m->slice_w));
		if (!m->slice_w)
			return -ENOMEM;
		for (i = 0; i < b->nmf; i++)
			item_slices(b, &b->mf[i]);
	}
	for (i = 0; i < m->nr_items; i++) {
		struct cachepin_model_item *it = &m->items[i];

		it->count = 0;
		for (j = 0; j < ns; j++)
			it->count += item_count(m, i, j, L);
		if (!it->count)
			m->dropped += it->weight;
	}
	m->refs = cachepin_model__string(m, L, &m->nr_refs);
	return m->refs ? 0 : -ENOMEM;
}

static int model_build(struct build *b, size_t L)
{
	const struct cachepin_profile *p = b->p;
	size_t i;
	int err;

	b->mf = calloc(p->nr_funcs + 1, sizeof(*b->mf));
	b->p2m = malloc((p->nr_funcs + 1) * sizeof(*b->p2m));
	if (!b->mf || !b->p2m)
		return -ENOMEM;
	if ((err = index_edges(b)) || (err = call_site_weights(b)))
		return err;
	for (i = 0; i < p->nr_funcs; i++)
		if ((err = func_items(b, i)))
			return err;
	if ((err = call_graph(b)) || (err = exec_order(b)))
		return err;
	return rates(b, L);
}

bool cachepin_model__can_split(const struct cachepin_profile *p)
{
	size_t i;

	if (p->nr_slices >= 4)
		return true;
	for (i = 0; i < p->nr_funcs; i++)
		if (p->funcs[i].nr_grans && p->funcs[i].samples > 1)
			return true;
	return false;
}

/* Phases are not split: each half needs every phase, so they are thinned. */
bool cachepin_model__split_by_slices(const struct cachepin_profile *p)
{
	return p->nr_slices >= 4 && !p->phases;
}

/* The slices of half H (1: even, 2: odd) of P's time slices, or 0 if thinned. */
static uint32_t half_mask(const struct cachepin_profile *p, unsigned int h)
{
	uint32_t k, mask = 0;

	if (!cachepin_model__split_by_slices(p))
		return 0;
	for (k = 0; k < p->nr_slices; k++)
		if (k % 2 == h - 1)
			mask |= 1u << k;
	return mask;
}

/*
 * Of N samples, how many fall into half 1: a binomial draw (normal
 * beyond 64 samples) from a generator seeded by the granule, so that
 * both halves see the same draw.
 */
static double thin(double n, uint64_t seed)
{
	uint64_t x = seed ? seed : 1;
	double k = 0;
	int i;

	if (n <= 0)
		return 0;
	if (n <= 64) {
		for (i = 0; i < (int)llround(n); i++)
			k += cachepin_xorshift64(&x) >> 63;
		return k;
	}
	{
		/* Box-Muller from two uniforms in (0, 1] */
		double u1 = ((double)(cachepin_xorshift64(&x) >> 11) + 1) / 9007199254740993.0;
		double u2 = (double)(cachepin_xorshift64(&x) >> 11) / 9007199254740992.0;
		double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		k = llround(n / 2 + z * sqrt(n) / 2);
	}
	return k < 0 ? 0 : k > n ? n : k;
}

/* Weight W of SAMPLES samples of granule OFF of PF, in half H (thinned). */
static double thin_weight(const struct cachepin_pfunc *pf, uint32_t off, double w, double samples,
			  unsigned int h)
{
	uint64_t seed = cachepin_fnv1a(FNV1A_INIT, pf->name, strlen(pf->name));
	double n, k;

	seed = cachepin_fnv1a(seed, &off, sizeof(off));
	if (samples <= 0 || w <= 0)
		return w / 2;
	n = samples;
	k = thin(n, seed);
	return w * (h == 1 ? k : n - k) / n;
}

/*
 * Half H of P into *MP: its functions and their granules copied with
 * the weights of that half (the slices of half_mask(), or thinned
 * samples); the edges are P's.  Release with masked_free().
 */
static int masked_profile(const struct cachepin_profile *p, unsigned int h,
			  struct cachepin_profile *mp)
{
	uint32_t mask = half_mask(p, h), j;
	double all = 0, sel = 0, share;
	size_t i, k;

	for (i = 0; mask && i < p->nr_funcs; i++)
		for (k = 0; k < p->funcs[i].nr_grans; k++)
			for (j = 0; j < p->nr_slices; j++) {
				double sw = p->funcs[i].slices[k * p->nr_slices + j];

				all += sw;
				if (mask & (1u << j))
					sel += sw;
			}
	share = mask ? (all > 0 ? sel / all : 0) : 0.5;
	*mp = *p;
	if (!mask && !p->phases)
		mp->nr_slices = 0;	/* too few slices to replay a half of them */
	mp->funcs = calloc(p->nr_funcs + 1, sizeof(*mp->funcs));
	if (!mp->funcs)
		return -ENOMEM;
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];
		struct cachepin_pfunc *f = &mp->funcs[i];
		/* weight per sample: the function's own, else the profile's */
		double per = pf->samples ? pf->weight / (double)pf->samples :
			     p->nr_samples ? p->period_sum / (double)p->nr_samples : 1;
		double gsum = 0, msum = 0;

		*f = *pf;
		f->slices = NULL;
		f->cap_slices = 0;
		f->grans = malloc((pf->nr_grans + 1) * sizeof(*f->grans));
		if (!f->grans)
			return -ENOMEM;
		if (mp->nr_slices && pf->nr_grans) {
			f->cap_slices = pf->nr_grans * p->nr_slices;
			f->slices = malloc(f->cap_slices * sizeof(*f->slices));
			if (!f->slices)
				return -ENOMEM;
			memcpy(f->slices, pf->slices, f->cap_slices * sizeof(*f->slices));
		}
		for (k = 0; k < pf->nr_grans; k++) {
			struct cachepin_pgran *g = &f->grans[k];
			double *sl = f->slices ? &f->slices[k * p->nr_slices] : NULL;

			*g = pf->grans[k];
			if (mask) {
				g->weight = 0;
				for (j = 0; j < p->nr_slices; j++) {
					if (mask & (1u << j))
						g->weight += sl[j];
					else
						sl[j] = 0;
				}
			} else {
				double was = g->weight;

				g->weight = thin_weight(pf, g->off, g->weight, g->weight / per, h);
				for (j = 0; p->phases && j < p->nr_slices; j++)
					sl[j] = was > 0 ? sl[j] * g->weight / was : 0;
			}
			gsum += pf->grans[k].weight;
			msum += g->weight;
		}
		if (pf->weight > gsum)
			msum += mask ? (pf->weight - gsum) * share :
				thin_weight(pf, UINT32_MAX, pf->weight - gsum, (pf->weight - gsum) / per, h);
		f->weight = msum;
		f->incl = pf->incl * share;
	}
	return 0;
}

static void masked_free(struct cachepin_profile *mp, size_t n)
{
	size_t i;

	for (i = 0; mp->funcs && i < n; i++) {
		free(mp->funcs[i].grans);
		free(mp->funcs[i].slices);
	}
	free(mp->funcs);
}

struct cachepin_model *cachepin_model__new(const struct cachepin_profile *p,
					   const struct cachepin_binary *bin, const int *map,
					   const struct cachepin_model_opts *opts)
{
	struct build b = {
		.p = p, .bin = bin, .map = map,
		.gran = p->granule ? p->granule : CACHEPIN_PROFILE_GRANULE,
		.whole_all = opts && opts->whole,
		.flow = { .fd = -1 },
	};
	unsigned int half = opts ? opts->half : 0;
	struct cachepin_profile mp = { 0 };
	uint32_t mask = UINT32_MAX, k;
	size_t i;
	int err = 0;

	b.m = calloc(1, sizeof(*b.m));
	if (!b.m)
		return NULL;
	b.m->bin = bin;
	b.m->granule = b.gran;
	if (half == 1 || half == 2) {
		err = masked_profile(p, half, &mp);
		b.p = &mp;
		mask = half_mask(p, half);
		if (!mask)
			mask = UINT32_MAX;	/* thinned: the slices it kept, all */
	}
	for (k = 0; k < b.p->nr_slices && k < CACHEPIN_PROFILE_SLICES; k++)
		if (mask & (1u << k))
			b.slice_of[b.m->nr_slices++] = k;
	if (!err && cachepin_flow__open(&b.flow, bin))
		cachepin_flow__close(&b.flow);	/* not decoded: the short holes alone */
	if (!err)
		err = model_build(&b, opts && opts->refs ? opts->refs : DEFAULT_REFS);
	cachepin_flow__close(&b.flow);
	if (b.p == &mp)
		masked_free(&mp, p->nr_funcs);
	if (b.mf)
		for (i = 0; i < b.nmf; i++)
			free(b.mf[i].kids);
	free(b.mf);
	free(b.p2m);
	free(b.edge_lo);
	free(b.edge_hi);
	free(b.site_w);
	if (err) {
		cachepin_model__free(b.m);
		errno = -err;
		return NULL;
	}
	return b.m;
}
