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
 * line: the functions with samples of their own as the nodes, each
 * one's heaviest caller from the callchain edges, and the library's
 * cachepin_c3__order() (the planner's c3 candidate runs the same on its
 * hot units).  LIMIT: cluster bytes (default 4096, the page of the
 * paper; lld uses 1 MiB); DEGRADE: lld's density guard (default 8; 0
 * turns it off).  Ties in heat go by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cachepin/c3.h"
#include "cachepin/profile.h"

/* Profile functions with samples, hottest first, then by name. */
static const struct cachepin_profile *prof;

static int by_hotness(const void *a, const void *b)
{
	const struct cachepin_pfunc *x = &prof->funcs[*(const int *)a], *y = &prof->funcs[*(const int *)b];

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	unsigned long limit = CACHEPIN_C3_LIMIT;
	double degrade = CACHEPIN_C3_DEGRADE;
	struct cachepin_profile *p;
	struct cachepin_c3_node *nodes;
	double *best_w;
	uint32_t *order;
	int i, n = 0, opt, *pf, *slot;

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
	prof = p = cachepin_profile__read(argv[optind]);
	if (!p)
		return 1;	/* the reader said why */
	/* nodes: the functions with samples of their own; slot: profile index -> node */
	pf = malloc((p->nr_funcs + 1) * sizeof(*pf));
	slot = malloc((p->nr_funcs + 1) * sizeof(*slot));
	nodes = calloc(p->nr_funcs + 1, sizeof(*nodes));
	best_w = calloc(p->nr_funcs + 1, sizeof(*best_w));
	order = malloc((p->nr_funcs + 1) * sizeof(*order));
	if (!pf || !slot || !nodes || !best_w || !order)
		return 1;
	for (i = 0; i < (int)p->nr_funcs; i++)
		if (p->funcs[i].weight > 0)
			pf[n++] = i;
	qsort(pf, n, sizeof(*pf), by_hotness);
	for (i = 0; i < (int)p->nr_funcs; i++)
		slot[i] = -1;
	for (i = 0; i < n; i++) {
		slot[pf[i]] = i;
		nodes[i] = (struct cachepin_c3_node){ p->funcs[pf[i]].weight, p->funcs[pf[i]].size, -1 };
	}
	/* each function's heaviest caller, from the callchain edges (the first of equals) */
	for (i = 0; i < (int)p->nr_edges; i++) {
		const struct cachepin_pedge *e = &p->edges[i];
		int from = slot[e->caller], to = slot[e->callee];

		if (!(e->flags & CACHEPIN_PEDGE_DYNAMIC) || from < 0 || to < 0 || from == to)
			continue;
		if (e->weight > best_w[to]) {
			best_w[to] = e->weight;
			nodes[to].pred = from;
		}
	}
	if (cachepin_c3__order(nodes, (size_t)n, limit, degrade, order))
		return 1;
	for (i = 0; i < n; i++) {
		const struct cachepin_pfunc *f = &p->funcs[pf[order[i]]];

		printf("%s %s\n", f->name, f->object ? f->object : "-");
	}
	free(order);
	free(best_w);
	free(nodes);
	free(slot);
	free(pf);
	cachepin_profile__free(p);
	return 0;
usage:
	fprintf(stderr, "usage: c3 [-l LIMIT] [-d DEGRADE] PROFILE\n");
	return 129;
}
