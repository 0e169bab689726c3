/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the planner takes from the replacement policies' table
 * (model/cache.c) besides the public names: the estimate of a set's
 * misses under each (plan-heat.c).
 */
#ifndef CACHEPIN_REPL_H
#define CACHEPIN_REPL_H

#include "cachepin/cache.h"

enum repl_estimate {
	REPL_EST_CHE,		/* Che's approximation of LRU: hit ratio 1 - exp(-r T) */
	REPL_EST_RANDOM,	/* random replacement's stationary hit ratio r T / (1 + r T) */
};

/* R's estimate (Che's for no policy). */
enum repl_estimate cachepin_repl_estimate(enum cachepin_repl r);

#endif
