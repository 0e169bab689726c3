// SPDX-License-Identifier: GPL-2.0-or-later
/* Call-chain clustering (see cachepin/c3.h). */
#include "cachepin/c3.h"
#include "internal.h"

struct cluster {
	int32_t head, next, tail;	/* its head, the next node, (head) its last */
	double cw;			/* (head) cluster weight */
	uint64_t csize;			/* (head) cluster bytes */
	uint32_t rank;			/* in hotness order */
};

struct c3_key {
	double key;
	uint32_t rank, idx;
};

static int cmp_key(const void *a, const void *b)
{
	const struct c3_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Merge the clusters, hottest node first. */
static void merge(const struct cachepin_c3_node *nodes, struct cluster *c, const struct c3_key *key,
		  size_t n, uint64_t limit, double degrade)
{
	size_t i;
	int32_t k;

	for (i = 0; i < n; i++) {
		const struct cachepin_c3_node *f = &nodes[key[i].idx];
		struct cluster *hc, *hp;

		if (f->pred < 0 || (size_t)f->pred >= n)
			continue;
		hc = &c[c[key[i].idx].head];
		hp = &c[c[f->pred].head];
		if (hc == hp || hc->csize + hp->csize > limit)
			continue;
		if (degrade > 0 && (hp->cw + hc->cw) / (double)(hp->csize + hc->csize) * degrade <
				   hp->cw / (double)hp->csize)
			continue;
		/* the callee's cluster goes after the caller's */
		c[hp->tail].next = (int32_t)(hc - c);
		hp->tail = hc->tail;
		hp->cw += hc->cw;
		hp->csize += hc->csize;
		for (k = (int32_t)(hc - c); k >= 0; k = c[k].next)
			c[k].head = (int32_t)(hp - c);
	}
}

int cachepin_c3__order(const struct cachepin_c3_node *nodes, size_t n, uint64_t limit,
		       double degrade, uint32_t *order)
{
	struct cluster *c = calloc(n + 1, sizeof(*c));
	struct c3_key *key = malloc((n + 1) * sizeof(*key));
	size_t i, nk = 0, at = 0;
	int32_t k;

	if (!c || !key) {
		free(c);
		free(key);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		c[i] = (struct cluster){ (int32_t)i, -1, (int32_t)i, nodes[i].weight,
					 nodes[i].size ? nodes[i].size : 1, 0 };
		key[i] = (struct c3_key){ nodes[i].weight, (uint32_t)i, (uint32_t)i };
	}
	sort_n(key, n, sizeof(*key), cmp_key);
	for (i = 0; i < n; i++)
		c[key[i].idx].rank = (uint32_t)i;
	merge(nodes, c, key, n, limit, degrade);
	/* clusters by density, densest first; ties in hotness order */
	for (i = 0; i < n; i++)
		if (c[i].head == (int32_t)i)
			key[nk++] = (struct c3_key){ c[i].cw / (double)c[i].csize, c[i].rank, (uint32_t)i };
	sort_n(key, nk, sizeof(*key), cmp_key);
	for (i = 0; i < nk; i++)
		for (k = (int32_t)key[i].idx; k >= 0; k = c[k].next)
			order[at++] = (uint32_t)k;
	free(c);
	free(key);
	return 0;
}
