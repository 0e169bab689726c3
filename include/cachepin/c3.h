/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Call-chain clustering, C3 (Ottoni and Maher, "Optimizing Function
 * Placement for Large-Scale Data-Center Applications", CGO 2017): the
 * function order behind hfsort and lld's --call-graph-ordering-file
 * before CDSort.  The planner's c3 candidate (hot units) and the bench's
 * c3 peer (profile functions) are this one function on their own nodes.
 */
#ifndef CACHEPIN_C3_H
#define CACHEPIN_C3_H

#include "cachepin/cachepin.h"

struct cachepin_c3_node {
	double weight;		/* its own heat */
	uint64_t size;		/* bytes; 0 counts as 1 */
	int32_t pred;		/* its heaviest caller, a node index, or -1 */
};

#define CACHEPIN_C3_LIMIT 4096	/* cluster bytes: the paper's page (lld: 1 MiB) */
#define CACHEPIN_C3_DEGRADE 8	/* lld's guard: no merge that cuts the density 8 times */

/*
 * The N nodes in C3 order into ORDER (N indices).  Every node starts as
 * its own cluster; hottest first (ties: lower index), a node's cluster
 * is appended to its caller's unless both are one already, the merged
 * cluster would exceed LIMIT bytes, or (DEGRADE > 0) the merge would cut
 * the caller cluster's density by more than DEGRADE times.  Clusters
 * follow by density, densest first (ties: in the order of their heads'
 * heat), each in the order its nodes joined.  0 or -ENOMEM.
 */
int cachepin_c3__order(const struct cachepin_c3_node *nodes, size_t n, uint64_t limit,
		       double degrade, uint32_t *order);

#endif
