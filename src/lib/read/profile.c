// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The normalized profile: its construction and sort order, its static
 * call graph edges, its digest, and its match against another build of
 * the binary by name (and object for duplicates).
 */
#include <sys/types.h>
#include <uthash.h>
#include "cachepin/profile.h"
#include "cachepin/objects.h"
#include "internal.h"
#include "profile-int.h"

static int cmp_pfunc(const void *a, const void *b)
{
	const struct cachepin_pfunc *x = a, *y = b;
	int r;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	r = strcmp(x->name, y->name);
	if (r)
		return r;
	return strcmp(x->object ? x->object : "", y->object ? y->object : "");
}

static int cmp_pedge(const void *a, const void *b)
{
	const struct cachepin_pedge *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return (x->callsite > y->callsite) - (x->callsite < y->callsite);
}

struct cachepin_pfunc *cachepin_profile_add_func(struct cachepin_profile *p, const char *name,
						 const char *object)
{
	struct cachepin_pfunc *f;

	if (GROW(p->funcs, p->cap_funcs, p->nr_funcs + 1))
		return NULL;
	f = &p->funcs[p->nr_funcs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->object = object ? strdup(object) : NULL;
	if (!f->name || (object && !f->object)) {
		zfree(&f->name);
		zfree(&f->object);
		return NULL;
	}
	p->nr_funcs++;
	return f;
}

int cachepin_pfunc_add_gran(struct cachepin_pfunc *f, uint32_t off, double w,
			    const double *slice, uint32_t ns)
{
	struct cachepin_pgran *g;

	if (ns && GROW(f->slices, f->cap_slices, (f->nr_grans + 1) * ns))
		return -ENOMEM;
	if (GROW(f->grans, f->cap_grans, f->nr_grans + 1))
		return -ENOMEM;
	if (ns) {
		double *s = &f->slices[f->nr_grans * ns];

		memset(s, 0, ns * sizeof(*s));
		if (slice)
			memcpy(s, slice, (ns < CACHEPIN_PROFILE_SLICES ? ns : CACHEPIN_PROFILE_SLICES) *
			       sizeof(*slice));
	}
	g = &f->grans[f->nr_grans++];
	memset(g, 0, sizeof(*g));
	g->off = off;
	g->weight = w;
	return 0;
}

int cachepin_profile_add_edge(struct cachepin_profile *p, uint32_t caller, uint32_t callee,
			      uint32_t callsite, double w, unsigned int flags)
{
	struct cachepin_pedge *e;

	if (GROW(p->edges, p->cap_edges, p->nr_edges + 1))
		return -ENOMEM;
	e = &p->edges[p->nr_edges++];
	e->caller = caller;
	e->callee = callee;
	e->callsite = callsite;
	e->weight = w;
	e->flags = flags;
	return 0;
}

/* cmp_pfunc() of the functions of FUNCS at two indices, ties in index order */
static int cmp_pfunc_idx(const void *a, const void *b, void *funcs)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct cachepin_pfunc *f = funcs;
	int r = cmp_pfunc(&f[x], &f[y]);

	return r ? r : (x > y) - (x < y);
}

/*
 * The functions' indices sorted, then the functions moved in place cycle
 * by cycle: 8 bytes a function besides them, not a copy of each.
 */
int cachepin_profile_sort(struct cachepin_profile *p)
{
	struct cachepin_pfunc tmp;
	uint32_t *from, *perm;
	size_t i, j, k;

	from = malloc((p->nr_funcs + 1) * sizeof(*from));
	perm = malloc((p->nr_funcs + 1) * sizeof(*perm));
	if (!from || !perm) {
		free(from);
		free(perm);
		return -ENOMEM;
	}
	/* from[i]: the old index of the function that goes to i; perm: the inverse */
	for (i = 0; i < p->nr_funcs; i++)
		from[i] = (uint32_t)i;
	if (p->nr_funcs > 1)
		qsort_r(from, p->nr_funcs, sizeof(*from), cmp_pfunc_idx, p->funcs);
	for (i = 0; i < p->nr_funcs; i++)
		perm[from[i]] = (uint32_t)i;
	/* along each cycle; a place done gets from[j] = j */
	for (i = 0; i < p->nr_funcs; i++) {
		if (from[i] == i)
			continue;
		tmp = p->funcs[i];
		for (j = i; (k = from[j]) != i; j = k) {
			p->funcs[j] = p->funcs[k];
			from[j] = (uint32_t)j;
		}
		p->funcs[j] = tmp;
		from[j] = (uint32_t)j;
	}
	for (i = 0; i < p->nr_edges; i++) {
		p->edges[i].caller = perm[p->edges[i].caller];
		p->edges[i].callee = perm[p->edges[i].callee];
	}
	sort_n(p->edges, p->nr_edges, sizeof(*p->edges), cmp_pedge);
	free(from);
	free(perm);
	return 0;
}

void cachepin_profile__free(struct cachepin_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_funcs; i++) {
		free(p->funcs[i].name);
		free(p->funcs[i].object);
		free(p->funcs[i].grans);
		free(p->funcs[i].slices);
	}
	free(p->funcs);
	free(p->edges);
	for (i = 0; i < p->nr_objects; i++)
		free(p->objects[i].name);
	free(p->objects);
	free(p->event);
	free(p->build_id);
	free(p->binary);
	free(p);
}

/* Static call graph: add edges (flag STATIC) between profiled functions. */
int cachepin_profile__add_static(struct cachepin_profile *p, const struct cachepin_binary *bin,
				 const struct cachepin_objects *objs)
{
	struct name_ent {
		const char *name;
		uint32_t idx;
		UT_hash_handle hh;
	} *byname = NULL, *n, *tmp;
	size_t i, j;
	int err = 0;

	for (i = 0; i < p->nr_funcs; i++) {
		HASH_FIND_STR(byname, p->funcs[i].name, n);
		if (n)
			continue;
		n = calloc(1, sizeof(*n));
		if (!n) {
			err = -ENOMEM;
			goto out;
		}
		n->name = p->funcs[i].name;
		n->idx = (uint32_t)i;
		HASH_ADD_KEYPTR(hh, byname, n->name, strlen(n->name), n);
	}
	for (i = 0; i < objs->nr_edges; i++) {
		const struct cachepin_cgedge *ce = &objs->edges[i];
		struct name_ent *a, *b;
		bool found = false;

		HASH_FIND_STR(byname, ce->caller, a);
		HASH_FIND_STR(byname, ce->callee, b);
		if (!a || !b || a->idx == b->idx)
			continue;
		for (j = 0; j < p->nr_edges; j++) {
			if (p->edges[j].caller == a->idx && p->edges[j].callee == b->idx) {
				p->edges[j].flags |= CACHEPIN_PEDGE_STATIC;
				found = true;
			}
		}
		if (!found && (err = cachepin_profile_add_edge(p, a->idx, b->idx, UINT32_MAX, 0,
							       CACHEPIN_PEDGE_STATIC)))
			goto out;
	}
	sort_n(p->edges, p->nr_edges, sizeof(*p->edges), cmp_pedge);
out:
	HASH_ITER(hh, byname, n, tmp) {
		HASH_DEL(byname, n);
		free(n);
	}
	(void)bin;
	return err;
}

uint64_t cachepin_profile__digest(const struct cachepin_profile *p)
{
	uint64_t h = FNV1A_INIT;
	size_t i, j;

	for (i = 0; i < p->nr_objects; i++) {
		h = cachepin_fnv1a(h, p->objects[i].name, strlen(p->objects[i].name) + 1);
		h = cachepin_fnv1a(h, &p->objects[i].weight, sizeof(p->objects[i].weight));
	}
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *f = &p->funcs[i];

		h = cachepin_fnv1a(h, f->name, strlen(f->name) + 1);
		if (f->object)
			h = cachepin_fnv1a(h, f->object, strlen(f->object) + 1);
		h = cachepin_fnv1a(h, &f->weight, sizeof(f->weight));
		for (j = 0; j < f->nr_grans; j++) {
			h = cachepin_fnv1a(h, &f->grans[j].off, sizeof(f->grans[j].off));
			h = cachepin_fnv1a(h, &f->grans[j].weight, sizeof(f->grans[j].weight));
			if (p->nr_slices)
				h = cachepin_fnv1a(h, &f->slices[j * p->nr_slices],
						   p->nr_slices * sizeof(double));
		}
	}
	for (i = 0; i < p->nr_edges; i++)
		h = cachepin_fnv1a(h, &p->edges[i].weight, sizeof(p->edges[i].weight));
	return h;
}

const char *cachepin_profile__event_kind(const struct cachepin_profile *p)
{
	static const char *const time[] = {
		"cpu-clock", "task-clock", "cycles", "cpu-cycles", "ref-cycles", "bus-cycles",
	};
	const char *e = p->event;
	size_t i, n;

	if (!e)
		return NULL;
	if (!strncmp(e, "instructions", 12) || !strncmp(e, "inst_retired", 12))
		return "fetches";
	for (i = 0; i < ARRAY_SIZE(time); i++) {
		n = strlen(time[i]);
		/* "cycles:u", "cpu-clock:ppp" */
		if (!strncmp(e, time[i], n) && (!e[n] || e[n] == ':'))
			return "time";
	}
	return NULL;
}

ssize_t cachepin_profile__match(const struct cachepin_profile *p, const struct cachepin_binary *bin,
				int *map, double *unmatched_w)
{
	ssize_t matched = 0;
	size_t i;

	if (unmatched_w)
		*unmatched_w = 0;
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];
		const struct cachepin_func *f;

		f = cachepin_binary__lookup(bin, pf->name, pf->object, NULL);
		/* a module's function is no function of the kernel's of its name */
		if (!f && pf->object && !cachepin_pfunc_in_module(pf))
			f = cachepin_binary__lookup(bin, pf->name, NULL, NULL);
		map[i] = f ? (int)(f - bin->funcs) : -1;
		if (f)
			matched++;
		else if (unmatched_w)
			*unmatched_w += pf->weight;
	}
	return matched;
}
