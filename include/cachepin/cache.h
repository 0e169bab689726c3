/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The instruction-cache model: geometry, named presets, set index, and
 * exact simulators (LRU, pseudo-random, fully associative LRU, Belady
 * optimal) of a reference string of line addresses.
 */
#ifndef CACHEPIN_CACHE_H
#define CACHEPIN_CACHE_H

#include "cachepin/cachepin.h"

/*
 * The replacement policies: the keys of one table (src/lib/model/cache.c)
 * that holds each policy's names, description and simulator steps.
 */
enum cachepin_repl {
	CACHEPIN_REPL_LRU,
	CACHEPIN_REPL_RANDOM,	/* pseudo-random victim (Cortex-A9), seeded xorshift */
	CACHEPIN_REPL_RR,	/* round-robin per set */
	CACHEPIN_REPL_OPT,	/* Belady: evict the line used furthest in the future */
	CACHEPIN_REPL__NR,
};

struct cachepin_cache {
	char name[32];		/* preset name, or "SIZE:WAYS:LINE" */
	uint32_t size;		/* bytes */
	uint32_t ways;
	uint32_t line;		/* bytes, a power of two */
	uint32_t sets;		/* size / (ways * line), a power of two */
	uint32_t way_span;	/* size / ways: addresses this far apart share a set */
	uint32_t line_shift;
	enum cachepin_repl repl;	/* what the CPU does (presets say) */
};

struct cachepin_cache_preset {
	const char *name;
	uint32_t size, ways, line;
	enum cachepin_repl repl;
	const char *what;
};

/* Presets, terminated by a NULL name. */
extern const struct cachepin_cache_preset cachepin_cache_presets[];

/*
 * Parse SPEC: a preset name ("cortex-a9-32k") or "SIZE:WAYS:LINE" with
 * optional K/M suffix and optional ":lru"/":random" ("32K:4:32").
 * Returns 0, or -EINVAL after logging "unknown cache '...'" with a hint.
 */
int cachepin_cache__parse(struct cachepin_cache *c, const char *spec);

/*
 * A geometry of SETS sets of WAYS ways of LINE-byte lines (LRU, named
 * "SIZE:WAYS:LINE"), such as a machine reports its caches.  Returns 0,
 * or -EINVAL with *WHY saying why the model cannot take it; logs nothing.
 */
int cachepin_cache__from_sets(struct cachepin_cache *c, uint32_t sets, uint32_t ways,
			      uint32_t line, const char **why);

/* Set index of ADDR. */
static inline uint32_t cachepin_cache__set(const struct cachepin_cache *c, uint64_t addr)
{
	return (uint32_t)(addr >> c->line_shift) & (c->sets - 1);
}

/* The policy's name ("lru", "round-robin"), or "?" for no policy. */
const char *cachepin_repl_name(enum cachepin_repl r);

/* What it is, as score's report says ("pseudo-random"); "?" for no policy. */
const char *cachepin_repl__what(enum cachepin_repl r);

/*
 * The policy called NAME (its name or its short name: "rr"); -1 if none.
 * With ONLINE only the policies a CPU can have: those that decide on
 * the past alone, which the online simulators run (not Belady).
 */
int cachepin_repl__parse(const char *name, bool online);

/* Whether R decides on the past alone (an online simulator runs it). */
bool cachepin_repl__online(enum cachepin_repl r);

/* The name of R's fully associative cache that cachepin simulate runs ("fa-lru"), or NULL. */
const char *cachepin_repl__fa_name(enum cachepin_repl r);

/*
 * The names of the online policies, in the table's order, into BUF
 * (SIZE bytes, cut if short): each by its short name, with "(NAME)"
 * after a short name if LONG; SEP between two, LAST before the last.
 * With FA the fully associative caches cachepin simulate runs
 * ("fa-lru") come after them.  Returns BUF.
 */
const char *cachepin_repl__names(char *buf, size_t size, const char *sep, const char *last,
				 bool long_names, bool fa);

/*
 * A reference string: N line numbers (address >> line_shift) and,
 * optionally, dense ids of them (0..nuniq-1, equal lines equal ids)
 * that the optimal and fully associative simulators need; without them
 * they are computed (a sort).
 */
struct cachepin_refs {
	const uint64_t *lines;
	const uint32_t *ids;	/* may be NULL */
	size_t nuniq;
	size_t n;
};

/*
 * Simulate R on cache C with replacement REPL (RANDOM/RR seeded by
 * SEED).  Counts misses per set into SET_MISSES (C->sets entries, may be
 * NULL) and per reference into MISS (N bools, may be NULL).  With
 * FULLY_ASSOC the cache is one set of size/line ways (round-robin there
 * is random).  Returns the total misses, or UINT64_MAX on allocation
 * failure or an unknown REPL (errno EINVAL).
 */
uint64_t cachepin_cache__simulate_refs(const struct cachepin_cache *c, enum cachepin_repl repl,
				       bool fully_assoc, const struct cachepin_refs *r,
				       uint64_t seed, uint64_t *set_misses, uint8_t *miss);

/* The same for a plain array of line numbers. */
uint64_t cachepin_cache__simulate(const struct cachepin_cache *c, enum cachepin_repl repl,
				  bool fully_assoc, const uint64_t *lines, size_t n,
				  uint64_t seed, uint64_t *set_misses, uint8_t *miss);

/*
 * The same, one access at a time, for streams too long to hold: the
 * state is the cache's own (a tag per way, and for a fully associative
 * cache a hash of its residents), whatever the length of the stream.
 * The online policies only (cachepin_repl__online(): Belady needs the
 * future).  Given the same
 * lines, an online simulator counts exactly what
 * cachepin_cache__simulate() counts.
 */
struct cachepin_cache_sim;

/*
 * A simulator of cache C (copied) with REPL and FULLY_ASSOC as above.
 * NULL with errno: EINVAL for a policy that is not online (Belady) or
 * none, ENOMEM.
 */
struct cachepin_cache_sim *cachepin_cache_sim__new(const struct cachepin_cache *c,
						   enum cachepin_repl repl, bool fully_assoc,
						   uint64_t seed);

/*
 * Access LINE (an address >> line_shift).  Returns 1 on a miss, 0 on a
 * hit; never fails (everything is allocated by cachepin_cache_sim__new()).
 */
int cachepin_cache_sim__access(struct cachepin_cache_sim *s, uint64_t line);

/* Misses so far; per set (C->sets entries, one for fully associative). */
uint64_t cachepin_cache_sim__misses(const struct cachepin_cache_sim *s);
const uint64_t *cachepin_cache_sim__set_misses(const struct cachepin_cache_sim *s);

void cachepin_cache_sim__free(struct cachepin_cache_sim *s);

#endif
