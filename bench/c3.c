// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * c3: call-chain clustering function order (Ottoni and Maher,
 * "Optimizing Function Placement for Large-Scale Data-Center
 * Applications", CGO 2017), the algorithm behind hfsort and lld's
 * --call-graph-ordering-file before CDSort.  The benchmark's peer layout.
 *
 *   c3 [-l LIMIT] [-d DEGRADE] PROFILE > ORDER
 *
 * Reads a cachepin profile (cachepin-profile(5), with libcachepin's
 * reader) and prints the functions in C3 order, one "name object" per
 * line.
 *
 * The algorithm: every function with samples starts as its own cluster.
 * Functions are visited in decreasing order of hotness (self weight); a
 * function's cluster is appended to the cluster of its heaviest caller
 * unless both are already one cluster, the merged cluster would exceed
 * LIMIT bytes (default 4096, the page of the paper; lld uses 1 MiB), or
 * the merge would cut the caller cluster's density by more than DEGRADE
 * times (lld's guard, default 8; 0 turns it off).  Clusters are then
 * sorted by density (weight / size), densest first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cachepin/profile.h"

struct func {
	const char *name, *obj;
	double weight;
	unsigned long size;
	int best_pred;		/* heaviest caller, -1 if none */
	double best_w;
	int cluster;		/* index of the cluster's head function */
	int next;		/* next function in the cluster, -1 at the end */
	int tail;		/* for heads: last function of the cluster */
	double cw;		/* for heads: cluster weight */
	unsigned long csize;	/* for heads: cluster size */
	int rank;		/* position in hotness order */
};

static struct func *funcs;
static int nfuncs;

static int by_hotness(const void *a, const void *b)
{
	const struct func *x = *(struct func *const *)a, *y = *(struct func *const *)b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->name, y->name);
}

static double density(const struct func *h)
{
	return h->cw / (double)(h->csize ? h->csize : 1);
}

static int by_density(const void *a, const void *b)
{
	const struct func *x = *(struct func *const *)a, *y = *(struct func *const *)b;
	double dx = density(x), dy = density(y);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return x->rank - y->rank;
}

int main(int argc, char **argv)
{
	unsigned long limit = 4096;
	double degrade = 8;
	struct cachepin_profile *prof;
	struct func **order;
	int i, n, opt, *slot;

	while ((opt = getopt(argc, argv, "l:d:")) != -1) {
		if (opt == 'l')
			limit = strtoul(optarg, NULL, 0);
		else if (opt == 'd')
			degrade = strtod(optarg, NULL);
		else
			goto usage;
	}
	if (optind + 1 != argc)
		goto usage;
	prof = cachepin_profile__read(argv[optind]);
	if (!prof)
		return 1;	/* the reader said why */
	/* functions with samples of their own; slot: profile index -> ours */
	funcs = calloc(prof->nr_funcs + 1, sizeof(*funcs));
	slot = malloc((prof->nr_funcs + 1) * sizeof(*slot));
	if (!funcs || !slot)
		return 1;
	for (i = 0; i < (int)prof->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &prof->funcs[i];
		unsigned long size = pf->size ? pf->size : 1;

		slot[i] = -1;
		if (pf->weight <= 0)
			continue;
		funcs[nfuncs] = (struct func){ pf->name, pf->object ? pf->object : "-",
			pf->weight, size, -1, 0, nfuncs, -1, nfuncs, pf->weight, size, 0 };
		slot[i] = nfuncs++;
	}
	/* each function's heaviest caller, from the callchain edges */
	for (i = 0; i < (int)prof->nr_edges; i++) {
		const struct cachepin_pedge *e = &prof->edges[i];
		int from = slot[e->caller], to = slot[e->callee];

		if (!(e->flags & CACHEPIN_PEDGE_DYNAMIC) || from < 0 || to < 0 || from == to)
			continue;
		if (e->weight > funcs[to].best_w) {
			funcs[to].best_w = e->weight;
			funcs[to].best_pred = from;
		}
	}

	order = calloc(nfuncs ? nfuncs : 1, sizeof(*order));
	if (!order)
		return 1;
	for (i = 0; i < nfuncs; i++)
		order[i] = &funcs[i];
	qsort(order, nfuncs, sizeof(*order), by_hotness);
	for (i = 0; i < nfuncs; i++)
		order[i]->rank = i;

	for (i = 0; i < nfuncs; i++) {
		struct func *fn = order[i], *hc, *hp;

		if (fn->best_pred < 0)
			continue;
		hc = &funcs[fn->cluster];
		hp = &funcs[funcs[fn->best_pred].cluster];
		if (hc == hp || hc->csize + hp->csize > limit)
			continue;
		if (degrade > 0 && (hp->cw + hc->cw) / (hp->csize + hc->csize) *
				   degrade < density(hp))
			continue;
		/* append the callee's cluster to the caller's */
		funcs[hp->tail].next = hc - funcs;
		hp->tail = hc->tail;
		hp->cw += hc->cw;
		hp->csize += hc->csize;
		for (n = hc - funcs; n >= 0; n = funcs[n].next)
			funcs[n].cluster = hp - funcs;
	}

	n = 0;
	for (i = 0; i < nfuncs; i++)
		if (funcs[i].cluster == i)
			order[n++] = &funcs[i];
	/* ties keep hotness order: rank of the head */
	qsort(order, n, sizeof(*order), by_density);
	for (i = 0; i < n; i++) {
		int k;

		for (k = order[i] - funcs; k >= 0; k = funcs[k].next)
			printf("%s %s\n", funcs[k].name, funcs[k].obj);
	}
	free(order);
	free(slot);
	free(funcs);
	cachepin_profile__free(prof);
	return 0;
usage:
	fprintf(stderr, "usage: c3 [-l LIMIT] [-d DEGRADE] PROFILE\n");
	return 129;
}
