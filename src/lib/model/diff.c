// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin diff's engine: the hot functions of two scored builds,
 * matched by name, and the pairs fighting over sets in one build only.
 */
#include <math.h>
#include <uthash.h>
#include "cachepin/diff.h"
#include "internal.h"

/* Per function of a build: weight of its lines. */
static double *func_weights(const struct cachepin_binary *bin, const struct cachepin_score *s)
{
	double *w = calloc(bin->nr_funcs + 1, sizeof(*w));
	size_t i;

	if (!w)
		return NULL;
	for (i = 0; i < s->nr_lines; i++)
		if (s->line_func[i] < bin->nr_funcs)
			w[s->line_func[i]] += s->line_weight[i];
	return w;
}

/* The function named once in BIN by NAME, or UINT32_MAX. */
static uint32_t unique(const struct cachepin_binary *bin, const char *name)
{
	bool amb = false;
	const struct cachepin_func *f = cachepin_binary__lookup(bin, name, NULL, &amb);

	return f && !amb ? (uint32_t)(f - bin->funcs) : UINT32_MAX;
}

static int cmp_impact(const void *pa, const void *pb)
{
	const struct cachepin_diff_func *a = pa, *b = pb;
	uint64_t da = a->new_miss > a->old_miss ? a->new_miss - a->old_miss : a->old_miss - a->new_miss;
	uint64_t db = b->new_miss > b->old_miss ? b->new_miss - b->old_miss : b->old_miss - b->new_miss;

	if (da != db)
		return da > db ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Pairs of one build by name, to look up the other's in. */
struct pair_ent {
	char *key;		/* "a\0b" hashed as a string of KLEN bytes */
	size_t klen;
	uint64_t miss;
	uint32_t sets;
	const char *a, *b;
	bool seen;
	UT_hash_handle hh;
};

static void free_pairs(struct pair_ent **h)
{
	struct pair_ent *e, *t;

	HASH_ITER(hh, *h, e, t) {
		HASH_DEL(*h, e);
		free(e->key);
		free(e);
	}
}

/* The pairs of S in BIN into *H.  0 or -ENOMEM. */
static int load_pairs(const struct cachepin_binary *bin, const struct cachepin_score *s,
		      struct pair_ent **h)
{
	struct cachepin_score_pair *p = NULL;
	size_t n = 0, i;
	int err;

	if ((err = cachepin_score__pairs(s, &p, &n)))
		return err;
	for (i = 0; i < n; i++) {
		const char *a = bin->funcs[p[i].a].name, *b = bin->funcs[p[i].b].name, *t;
		struct pair_ent *e, *old;
		size_t la, lb;

		if (strcmp(a, b) > 0)
			t = a, a = b, b = t;
		la = strlen(a);
		lb = strlen(b);
		e = calloc(1, sizeof(*e));
		if (!e || !(e->key = malloc(la + lb + 2))) {
			free(e);
			free(p);
			return -ENOMEM;
		}
		memcpy(e->key, a, la + 1);
		memcpy(e->key + la + 1, b, lb + 1);
		e->klen = la + lb + 2;
		e->a = a;
		e->b = b;
		e->miss = p[i].miss;
		e->sets = p[i].sets;
		HASH_FIND(hh, *h, e->key, e->klen, old);
		if (old) {
			/* two static functions of one name: one pair, the misses summed */
			old->miss += e->miss;
			old->sets += e->sets;
			free(e->key);
			free(e);
			continue;
		}
		HASH_ADD_KEYPTR(hh, *h, e->key, e->klen, e);
	}
	free(p);
	return 0;
}

static int cmp_pair(const void *pa, const void *pb)
{
	const struct cachepin_diff_pair *a = pa, *b = pb;
	int c;

	if (a->miss != b->miss)
		return a->miss > b->miss ? -1 : 1;
	if (a->added != b->added)
		return a->added ? -1 : 1;
	if ((c = strcmp(a->a, b->a)))
		return c;
	return strcmp(a->b, b->b);
}

/* Pairs of one build only: of *ONLY (not seen in the other), added or not. */
static int collect_pairs(struct cachepin_diff *d, struct pair_ent *only, bool added, size_t *cap)
{
	struct pair_ent *e, *t;

	HASH_ITER(hh, only, e, t) {
		if (e->seen)
			continue;
		if (GROW(d->pairs, *cap, d->nr_pairs + 1))
			return -ENOMEM;
		d->pairs[d->nr_pairs++] = (struct cachepin_diff_pair){
			.a = e->a, .b = e->b, .miss = e->miss, .sets = e->sets, .added = added,
		};
	}
	return 0;
}

static int diff_pairs(const struct cachepin_binary *old, const struct cachepin_score *os,
		      const struct cachepin_binary *new, const struct cachepin_score *ns,
		      struct cachepin_diff *d)
{
	struct pair_ent *ho = NULL, *hn = NULL, *e, *t, *f;
	size_t cap = 0;
	int err;

	if ((err = load_pairs(old, os, &ho)) || (err = load_pairs(new, ns, &hn)))
		goto out;
	HASH_ITER(hh, hn, e, t) {
		HASH_FIND(hh, ho, e->key, e->klen, f);
		if (f)
			e->seen = f->seen = true;
	}
	if ((err = collect_pairs(d, hn, true, &cap)) || (err = collect_pairs(d, ho, false, &cap)))
		goto out;
	sort_n(d->pairs, d->nr_pairs, sizeof(*d->pairs), cmp_pair);
out:
	/* names point into the binaries, not into the entries */
	free_pairs(&ho);
	free_pairs(&hn);
	return err;
}

int cachepin_diff__run(const struct cachepin_binary *old, const struct cachepin_score *os,
		       const struct cachepin_layout *old_l, const struct cachepin_binary *new,
		       const struct cachepin_score *ns, const struct cachepin_layout *new_l,
		       struct cachepin_diff *d)
{
	const struct cachepin_cache *c = &os->cache;
	double *wo = NULL, *wn = NULL;
	size_t i, cap = 0;
	int err = -ENOMEM;

	memset(d, 0, sizeof(*d));
	if (!os->func_miss || !ns->func_miss || !os->line_func || !ns->line_func ||
	    c->size != ns->cache.size || c->ways != ns->cache.ways || c->line != ns->cache.line)
		return -EINVAL;
	wo = func_weights(old, os);
	wn = func_weights(new, ns);
	if (!wo || !wn)
		goto out;
	/* every hot function of OLD, then those hot only in NEW */
	for (i = 0; i < old->nr_funcs + new->nr_funcs; i++) {
		bool second = i >= old->nr_funcs;	/* OLD and NEW may be one binary */
		const struct cachepin_binary *b = second ? new : old;
		size_t k = second ? i - old->nr_funcs : i;
		uint32_t fo, fn;
		struct cachepin_diff_func *df;

		if ((second ? wn : wo)[k] <= 0)
			continue;
		fo = unique(old, b->funcs[k].name);
		fn = unique(new, b->funcs[k].name);
		if (second && fo != UINT32_MAX && wo[fo] > 0)
			continue;	/* counted with OLD */
		if (fo == UINT32_MAX || fn == UINT32_MAX) {
			d->nr_unmatched++;
			continue;
		}
		if (GROW(d->funcs, cap, d->nr_funcs + 1))
			goto out;
		df = &d->funcs[d->nr_funcs++];
		df->name = old->funcs[fo].name;
		df->old_func = fo;
		df->new_func = fn;
		df->old_addr = cachepin_layout__addr(old_l, old, fo);
		df->new_addr = cachepin_layout__addr(new_l, new, fn);
		df->old_set = cachepin_cache__set(c, df->old_addr);
		df->new_set = cachepin_cache__set(c, df->new_addr);
		df->old_miss = os->func_miss[fo];
		df->new_miss = ns->func_miss[fn];
		df->weight = fmax(wo[fo], wn[fn]);
		d->nr_moved += df->old_set != df->new_set;
	}
	sort_n(d->funcs, d->nr_funcs, sizeof(*d->funcs), cmp_impact);
	err = diff_pairs(old, os, new, ns, d);
out:
	free(wo);
	free(wn);
	if (err)
		cachepin_diff__release(d);
	return err;
}

void cachepin_diff__release(struct cachepin_diff *d)
{
	if (!d)
		return;
	free(d->funcs);
	free(d->pairs);
	memset(d, 0, sizeof(*d));
}
