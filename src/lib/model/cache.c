// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The I-cache model: geometry, presets and exact simulators of a
 * reference string.  Set-associative caches are simulated set by set
 * with a linear scan of the ways (ways are few); the fully associative
 * reference uses dense line ids, a linked list (LRU), a resident array
 * (random) or a lazy max-heap of next uses (Belady optimal).
 *
 * The replacement policies are one table (repl_table): each policy's
 * names and description, the planner's estimate for it, and its
 * simulators, built from its own code (what a hit does, which way
 * goes) by the steps every policy shares, inlined per policy.  The
 * simulators take the policy's row once per run.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include "cachepin/cache.h"
#include "heap.h"
#include "internal.h"
#include "repl.h"

const struct cachepin_cache_preset cachepin_cache_presets[] = {
	{ "cortex-a9-16k", 16384, 4, 32, CACHEPIN_REPL_RANDOM, "ARM Cortex-A9, 16 KiB L1I (pseudo-random)" },
	{ "cortex-a9-32k", 32768, 4, 32, CACHEPIN_REPL_RANDOM, "ARM Cortex-A9, 32 KiB L1I (pseudo-random)" },
	{ "cortex-a9-64k", 65536, 4, 32, CACHEPIN_REPL_RANDOM, "ARM Cortex-A9, 64 KiB L1I (pseudo-random)" },
	{ "cortex-a7-32k", 32768, 2, 32, CACHEPIN_REPL_RANDOM, "ARM Cortex-A7, 32 KiB 2-way L1I" },
	{ "cortex-a53-32k", 32768, 2, 64, CACHEPIN_REPL_LRU, "ARM Cortex-A53, 32 KiB 2-way 64 B L1I" },
	{ "mips-24k-32k", 32768, 4, 32, CACHEPIN_REPL_LRU, "MIPS 24K, 32 KiB 4-way L1I (LRU)" },
	{ "mips-24k-64k", 65536, 4, 32, CACHEPIN_REPL_LRU, "MIPS 24K, 64 KiB 4-way L1I (LRU)" },
	{ "mips-74k-32k", 32768, 4, 32, CACHEPIN_REPL_LRU, "MIPS 74K, 32 KiB 4-way L1I (LRU)" },
	{ "mips-74k-64k", 65536, 4, 32, CACHEPIN_REPL_LRU, "MIPS 74K, 64 KiB 4-way L1I (LRU)" },
	{ "mips-1004k-32k", 32768, 4, 32, CACHEPIN_REPL_LRU, "MIPS 1004K, 32 KiB 4-way L1I (LRU)" },
	{ "x86-64", 32768, 8, 64, CACHEPIN_REPL_LRU, "generic x86-64, 32 KiB 8-way 64 B L1I" },
	{ NULL }
};

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Bounds of a geometry: beyond them no L1 cache exists, and tables grow with sets. */
#define CACHE_MAX_SIZE (64u << 20)
#define CACHE_MAX_SETS 65536u
#define CACHE_MAX_WAYS 1024u
#define CACHE_MAX_LINE 4096u

/* A number with an optional K or M (and B, iB) suffix, at most MAX. */
static int parse_size(const char *s, uint32_t *out, uint64_t max)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	/* before the shift: a value that wraps must not pass */
	if (v == 0)
		return -EDOM;
	if (v > (max >> shift))
		return -ERANGE;
	*out = (uint32_t)(v << shift);
	return 0;
}

/* Why SIZE:WAYS:LINE is no geometry the model takes, or NULL if it is one. */
static const char *geometry_why(uint64_t size, uint64_t ways, uint64_t line)
{
	if (!size || !ways || !line)
		return "a size, way count or line size is 0";
	if (!is_pow2(line) || line < 4)
		return "LINE must be a power of two of at least 4 bytes";
	if (line > CACHE_MAX_LINE || ways > CACHE_MAX_WAYS || size > CACHE_MAX_SIZE)
		return "larger than any L1 cache (at most 64M, 1024 ways, 4096-byte lines)";
	if (size % (ways * line))
		return "SIZE must be a multiple of WAYS * LINE";
	if (!is_pow2(size / (ways * line)))
		return "the sets, SIZE / (WAYS * LINE), must be a power of two";
	if (size / (ways * line) > CACHE_MAX_SETS)
		return "at most 65536 sets";
	return NULL;
}

static void cache_fill(struct cachepin_cache *c, uint32_t size, uint32_t ways, uint32_t line)
{
	c->size = size;
	c->ways = ways;
	c->line = line;
	c->sets = size / (ways * line);
	c->way_span = size / ways;
	c->line_shift = (uint32_t)__builtin_ctz(line);
}

static int cache_set_geometry(struct cachepin_cache *c, uint32_t size, uint32_t ways,
			      uint32_t line, const char *spec)
{
	const char *why = geometry_why(size, ways, line);

	if (why) {
		pr_warn("invalid cache geometry '%s': %s\n", spec, why);
		return -EINVAL;
	}
	cache_fill(c, size, ways, line);
	return 0;
}

static void cache_name(struct cachepin_cache *c)
{
	if (c->size % 1024)
		snprintf(c->name, sizeof(c->name), "%u:%u:%u", c->size, c->ways, c->line);
	else
		snprintf(c->name, sizeof(c->name), "%uK:%u:%u", c->size / 1024, c->ways, c->line);
}

int cachepin_cache__from_sets(struct cachepin_cache *c, uint32_t sets, uint32_t ways,
			      uint32_t line, const char **why)
{
	uint64_t size = (uint64_t)sets * ways * line;

	memset(c, 0, sizeof(*c));
	*why = sets ? geometry_why(size, ways, line) : "0 sets";
	if (*why)
		return -EINVAL;
	cache_fill(c, (uint32_t)size, ways, line);
	c->repl = CACHEPIN_REPL_LRU;
	cache_name(c);
	return 0;
}

/* One field of SIZE:WAYS:LINE; 0, or -EINVAL after saying which and why. */
static int parse_field(const char *f, uint32_t *out, uint64_t max, const char *what, const char *spec)
{
	int err = parse_size(f, out, max);

	if (!err)
		return 0;
	if (err == -EDOM)
		pr_warn("invalid cache geometry '%s': %s is 0\n", spec, what);
	else if (err == -ERANGE)
		pr_warn("invalid cache geometry '%s': %s '%s' is more than %" PRIu64 "%s\n", spec, what, f,
			max >= (1u << 20) ? max >> 20 : max, max >= (1u << 20) ? "M" : "");
	else
		pr_warn("invalid cache geometry '%s': %s '%s' is not a number (digits, K or M)\n", spec,
			what, f);
	return -EINVAL;
}

int cachepin_cache__parse(struct cachepin_cache *c, const char *spec)
{
	const struct cachepin_cache_preset *p;
	char buf[64], *f[4];
	uint32_t size, ways, line;
	int nf = 0, err;
	size_t len;
	char *s;

	memset(c, 0, sizeof(*c));
	for (p = cachepin_cache_presets; p->name; p++) {
		if (strcasecmp(p->name, spec))
			continue;
		snprintf(c->name, sizeof(c->name), "%s", p->name);
		c->repl = p->repl;
		return cache_set_geometry(c, p->size, p->ways, p->line, spec);
	}
	len = strlen(spec);
	if (len >= sizeof(buf))
		goto bad;
	memcpy(buf, spec, len + 1);
	for (s = buf; nf < 4; nf++) {
		f[nf] = s;
		s = strchr(s, ':');
		if (!s) {
			nf++;
			break;
		}
		*s++ = '\0';
	}
	if (s || nf < 3)
		goto bad;
	if (parse_field(f[0], &size, CACHE_MAX_SIZE, "SIZE", spec) ||
	    parse_field(f[1], &ways, CACHE_MAX_WAYS, "WAYS", spec) ||
	    parse_field(f[2], &line, CACHE_MAX_LINE, "LINE", spec))
		return -EINVAL;
	c->repl = CACHEPIN_REPL_LRU;
	if (nf == 4) {
		/* what a CPU can do: a policy that needs the future is none */
		int r = cachepin_repl__parse(f[3], true);

		if (r < 0) {
			char names[256];

			cachepin_repl__names(names, sizeof(names), ", ", " or ", true, false);
			pr_warn("invalid cache geometry '%s': unknown policy '%s'\n", spec, f[3]);
			pr_warn("hint: %s\n", names);
			return -EINVAL;
		}
		c->repl = (enum cachepin_repl)r;
	}
	err = cache_set_geometry(c, size, ways, line, spec);
	if (err)
		return err;
	cache_name(c);
	return 0;
bad:
	pr_warn("unknown cache '%s'\n", spec);
	pr_warn("hint: use SIZE:WAYS:LINE (e.g. 32K:4:32) or a preset from 'cachepin help caches'\n");
	return -EINVAL;
}

/* Dense ids 0..*nuniq-1 for the distinct values of LINES. */
static uint32_t *dense_ids(const uint64_t *lines, size_t n, size_t *nuniq, uint64_t **uniq_out)
{
	uint64_t *u = malloc((n ? n : 1) * sizeof(*u));
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));
	size_t i, k = 0;

	if (!u || !ids) {
		free(u);
		free(ids);
		return NULL;
	}
	memcpy(u, lines, n * sizeof(*u));
	sort_n(u, n, sizeof(*u), cachepin_cmp_u64);
	for (i = 0; i < n; i++)
		if (!k || u[k - 1] != u[i])
			u[k++] = u[i];
	for (i = 0; i < n; i++) {
		size_t lo = 0, hi = k;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (u[mid] < lines[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		ids[i] = (uint32_t)lo;
	}
	*nuniq = k;
	if (uniq_out)
		*uniq_out = u;
	else
		free(u);
	return ids;
}

/* next[i]: index of the next reference to the same line, or n. */
static size_t *next_uses(const uint32_t *ids, size_t n, size_t nuniq)
{
	size_t *next = malloc((n ? n : 1) * sizeof(*next));
	size_t *last = malloc((nuniq ? nuniq : 1) * sizeof(*last));
	size_t i;

	if (!next || !last) {
		free(next);
		free(last);
		return NULL;
	}
	for (i = 0; i < nuniq; i++)
		last[i] = n;
	for (i = n; i-- > 0;) {
		next[i] = last[ids[i]];
		last[ids[i]] = i;
	}
	free(last);
	return next;
}

/* ---- the simulators' state, and the steps every policy shares ---- */

/*
 * A set-associative cache's state: tags and stamps per way, per set
 * the ways filled and a hand the policy may keep.  One step is one
 * access; the array simulator and the online one (cachepin_cache_sim)
 * share it.
 */
struct sa_state {
	const struct cachepin_cache *c;
	uint64_t *tag;
	uint64_t *stamp;	/* per way: the policy's (LRU: last use; Belady: next use) */
	uint32_t *fill;		/* per set: the ways in use */
	uint32_t *hand;		/* per set: the policy's (round-robin: the next way to go) */
	uint64_t rng;		/* the policy's (random: the victims' xorshift) */
};

static int sa_init(struct sa_state *s, const struct cachepin_cache *c, uint64_t seed)
{
	size_t slots = (size_t)c->sets * c->ways;

	s->c = c;
	s->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	s->tag = malloc(slots * sizeof(*s->tag));
	s->stamp = malloc(slots * sizeof(*s->stamp));
	s->fill = calloc(c->sets, sizeof(*s->fill));
	s->hand = calloc(c->sets, sizeof(*s->hand));
	return s->tag && s->stamp && s->fill && s->hand ? 0 : -ENOMEM;
}

static void sa_release(struct sa_state *s)
{
	free(s->tag);
	free(s->stamp);
	free(s->fill);
	free(s->hand);
}

/* A policy's victim that is no way: the line is not cached (Belady's bypass). */
#define SA_BYPASS UINT32_MAX

/* A policy's set-associative code: what a hit on way W does, which way of a full set goes. */
typedef void sa_hit_fn(uint64_t *stamp, uint32_t w, uint64_t now);
typedef uint32_t sa_victim_fn(struct sa_state *s, uint32_t set, const uint64_t *stamp,
			      uint64_t now);

/*
 * Access LINE at time NOW (for Belady: the index of its next use) with
 * a policy's HIT and VICTIM.  Returns its set with bit 31 set on a miss.
 * Always inlined, HIT and VICTIM with it: each policy has its own copy
 * (SA_DEFINE), so that no access pays for a dispatch.
 */
static inline __attribute__((always_inline)) uint32_t
sa_step(struct sa_state *s, uint64_t line, uint64_t now, sa_hit_fn *hit, sa_victim_fn *victim)
{
	const struct cachepin_cache *c = s->c;
	uint32_t set = (uint32_t)line & (c->sets - 1), w, v;
	uint64_t *t = s->tag + (size_t)set * c->ways;
	uint64_t *st = s->stamp + (size_t)set * c->ways;

	for (w = 0; w < s->fill[set]; w++)
		if (t[w] == line)
			break;
	if (w < s->fill[set]) {
		hit(st, w, now);
		return set;
	}
	if (s->fill[set] < c->ways) {
		v = s->fill[set]++;
	} else {
		v = victim(s, set, st, now);
		if (v == SA_BYPASS)
			return set | 1u << 31;
	}
	t[v] = line;
	st[v] = now;
	return set | 1u << 31;
}

/* A reference string through a set-associative cache, with its counters. */
struct sa_run {
	const uint64_t *lines;
	const size_t *next;	/* each reference's next use, for the policy that needs it */
	size_t n;
	uint64_t *set_misses;
	uint8_t *miss;
};

static inline __attribute__((always_inline)) uint64_t
sa_run(struct sa_state *s, const struct sa_run *a, sa_hit_fn *hit, sa_victim_fn *victim)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < a->n; i++) {
		/* with NEXT the stamp is the index of the next use */
		uint32_t v = sa_step(s, a->lines[i], a->next ? a->next[i] : i + 1, hit, victim);
		bool missed = v >> 31;

		if (a->miss)
			a->miss[i] = missed;
		if (!missed)
			continue;
		total++;
		if (a->set_misses)
			a->set_misses[v & ~(1u << 31)]++;
	}
	return total;
}

/*
 * A policy's set-associative simulators, its HIT and VICTIM inlined:
 * NAME_sa_run() of a reference string, NAME_sa_step() of one access
 * (SA_DEFINE_RUN alone for a policy that needs the future).
 */
#define SA_DEFINE_RUN(name, hit, victim)					\
static uint64_t name##_sa_run(struct sa_state *s, const struct sa_run *a)	\
{										\
	return sa_run(s, a, hit, victim);					\
}
#define SA_DEFINE(name, hit, victim)						\
SA_DEFINE_RUN(name, hit, victim)						\
static uint32_t name##_sa_step(struct sa_state *s, uint64_t line, uint64_t now)	\
{										\
	return sa_step(s, line, now, hit, victim);				\
}

/*
 * A fully associative cache of CAP lines on the dense IDS (N of them,
 * 0..NUNIQ-1), with the counters of cachepin_cache__simulate_refs().
 */
struct fa_run {
	const uint32_t *ids;
	size_t n, nuniq, cap;
	uint64_t *set_misses;
	uint8_t *miss;
};

static void fa_count(const struct fa_run *a, size_t i, bool missed)
{
	if (missed && a->set_misses)
		a->set_misses[0]++;
	if (a->miss)
		a->miss[i] = missed;
}

/*
 * A fully associative cache online: its residents in slots, found by
 * line through an open-addressing hash (linear probing, twice the slots,
 * deletion by backward shift); LRU keeps the slots in a list, most
 * recent first, random an array of them, as fa_lru() and fa_random() do.
 */
struct fa_online {
	uint64_t *line;		/* per slot */
	uint32_t *prev, *next;	/* per slot: LRU list */
	uint32_t *res;		/* random: resident slots */
	uint32_t *hash;		/* slot + 1, 0 empty */
	uint32_t hmask, cap, nres, head, tail;
	uint64_t rng;
};

static int fa_online_init(struct fa_online *f, const struct cachepin_cache *c, uint64_t seed)
{
	uint32_t hsize = 1;

	f->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	f->cap = c->size / c->line;
	while (hsize < 2 * f->cap)
		hsize <<= 1;
	f->hmask = hsize - 1;
	f->head = f->tail = UINT32_MAX;
	f->line = malloc(f->cap * sizeof(*f->line));
	f->prev = malloc(f->cap * sizeof(*f->prev));
	f->next = malloc(f->cap * sizeof(*f->next));
	f->res = malloc(f->cap * sizeof(*f->res));
	f->hash = calloc(hsize, sizeof(*f->hash));
	return f->line && f->prev && f->next && f->res && f->hash ? 0 : -ENOMEM;
}

static void fa_online_release(struct fa_online *f)
{
	free(f->line);
	free(f->prev);
	free(f->next);
	free(f->res);
	free(f->hash);
}

static inline uint32_t fa_hash(uint64_t line, uint32_t mask)
{
	return (uint32_t)((line * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* The slot holding LINE, or UINT32_MAX; *AT: its hash index or the free one. */
static uint32_t fa_find(const struct fa_online *f, uint64_t line, uint32_t *at)
{
	uint32_t h = fa_hash(line, f->hmask);

	for (; f->hash[h]; h = (h + 1) & f->hmask)
		if (f->line[f->hash[h] - 1] == line) {
			*at = h;
			return f->hash[h] - 1;
		}
	*at = h;
	return UINT32_MAX;
}

static void fa_unhash(struct fa_online *f, uint64_t line)
{
	uint32_t h, j, k;

	if (fa_find(f, line, &h) == UINT32_MAX)
		return;
	f->hash[h] = 0;
	/* backward shift: move up every entry that probed past the hole */
	for (j = (h + 1) & f->hmask; f->hash[j]; j = (j + 1) & f->hmask) {
		k = fa_hash(f->line[f->hash[j] - 1], f->hmask);
		if (((j - k) & f->hmask) >= ((j - h) & f->hmask)) {
			f->hash[h] = f->hash[j];
			f->hash[j] = 0;
			h = j;
		}
	}
}

/*
 * A policy's fully associative code, one access at a time: what a hit
 * on SLOT does, which slot of a full cache goes (its line still in the
 * hash), what placing a line in SLOT does (FILLED: a slot never used).
 */
typedef void fa_hit_fn(struct fa_online *f, uint32_t slot);
typedef uint32_t fa_evict_fn(struct fa_online *f);
typedef void fa_placed_fn(struct fa_online *f, uint32_t slot, bool filled);

/* Access LINE: 1u << 31 on a miss, else 0 (its one set, 0); inlined as sa_step() is. */
static inline __attribute__((always_inline)) uint32_t
fa_step(struct fa_online *f, uint64_t line, fa_hit_fn *hit, fa_evict_fn *evict,
	fa_placed_fn *placed)
{
	uint32_t h, slot = fa_find(f, line, &h);
	bool filled;

	if (slot != UINT32_MAX) {
		hit(f, slot);
		return 0;
	}
	filled = f->nres < f->cap;
	if (filled) {
		slot = f->nres++;
	} else {
		slot = evict(f);
		fa_unhash(f, f->line[slot]);
	}
	f->line[slot] = line;
	fa_find(f, line, &h);
	f->hash[h] = slot + 1;
	placed(f, slot, filled);
	return 1u << 31;
}

/* A policy's online fully associative simulator, NAME_fa_step(), its code inlined. */
#define FA_DEFINE(name, hit, evict, placed)					\
static uint32_t name##_fa_step(struct fa_online *f, uint64_t line)		\
{										\
	return fa_step(f, line, hit, evict, placed);				\
}

/* ---- the policies: each one's code, then the table of them ---- */

/* A hit changes nothing (random, round-robin). */
static inline void hit_none(uint64_t *stamp, uint32_t w, uint64_t now)
{
}

static inline void fa_hit_none(struct fa_online *f, uint32_t slot)
{
}

/* A hit stamps its way with NOW (LRU: the time; Belady: the line's next use). */
static inline void hit_stamp(uint64_t *stamp, uint32_t w, uint64_t now)
{
	stamp[w] = now;
}

/* LRU: the way used longest ago goes; fully associative, the list's last. */
static inline uint32_t lru_victim(struct sa_state *s, uint32_t set, const uint64_t *stamp,
				  uint64_t now)
{
	uint32_t w, v = 0;

	for (w = 1; w < s->c->ways; w++)
		if (stamp[w] < stamp[v])
			v = w;
	return v;
}

/* LRU: the residents in a doubly linked list, most recent first. */
static uint64_t fa_lru(const struct fa_run *a, uint64_t seed)
{
	uint8_t *in = calloc(a->nuniq + 1, 1);
	uint32_t *prev = malloc((a->nuniq + 1) * sizeof(*prev));
	uint32_t *nxt = malloc((a->nuniq + 1) * sizeof(*nxt));
	uint32_t head = UINT32_MAX, tail = UINT32_MAX, id, v;
	uint64_t total = 0;
	size_t nres = 0, i;

	if (!in || !prev || !nxt) {
		total = UINT64_MAX;
		goto out;
	}
	for (i = 0; i < a->n; i++) {
		id = a->ids[i];
		if (in[id]) {
			fa_count(a, i, false);
			if (head != id) {
				/* unlink, push front */
				nxt[prev[id]] = nxt[id];
				if (nxt[id] != UINT32_MAX)
					prev[nxt[id]] = prev[id];
				else
					tail = prev[id];
				prev[id] = UINT32_MAX;
				nxt[id] = head;
				prev[head] = id;
				head = id;
			}
			continue;
		}
		total++;
		fa_count(a, i, true);
		if (nres == a->cap) {
			v = tail;
			tail = prev[v];
			if (tail != UINT32_MAX)
				nxt[tail] = UINT32_MAX;
			else
				head = UINT32_MAX;
			in[v] = 0;
			nres--;
		}
		in[id] = 1;
		prev[id] = UINT32_MAX;
		nxt[id] = head;
		if (head != UINT32_MAX)
			prev[head] = id;
		head = id;
		if (tail == UINT32_MAX)
			tail = id;
		nres++;
	}
out:
	free(in);
	free(prev);
	free(nxt);
	return total;
}

static void lru_unlink(struct fa_online *f, uint32_t s)
{
	if (f->prev[s] != UINT32_MAX)
		f->next[f->prev[s]] = f->next[s];
	else
		f->head = f->next[s];
	if (f->next[s] != UINT32_MAX)
		f->prev[f->next[s]] = f->prev[s];
	else
		f->tail = f->prev[s];
}

static void lru_push(struct fa_online *f, uint32_t s)
{
	f->prev[s] = UINT32_MAX;
	f->next[s] = f->head;
	if (f->head != UINT32_MAX)
		f->prev[f->head] = s;
	f->head = s;
	if (f->tail == UINT32_MAX)
		f->tail = s;
}

static inline void lru_fa_hit(struct fa_online *f, uint32_t slot)
{
	if (f->head != slot) {
		lru_unlink(f, slot);
		lru_push(f, slot);
	}
}

static inline uint32_t lru_fa_evict(struct fa_online *f)
{
	uint32_t slot = f->tail;

	lru_unlink(f, slot);
	return slot;
}

static inline void lru_fa_placed(struct fa_online *f, uint32_t slot, bool filled)
{
	lru_push(f, slot);
}

SA_DEFINE(lru, hit_stamp, lru_victim)
FA_DEFINE(lru, lru_fa_hit, lru_fa_evict, lru_fa_placed)

/* Pseudo-random: a way drawn from the seeded xorshift; fully associative, a resident. */
static inline uint32_t random_victim(struct sa_state *s, uint32_t set, const uint64_t *stamp,
				     uint64_t now)
{
	return (uint32_t)(cachepin_xorshift64(&s->rng) % s->c->ways);
}

/* Random and round-robin alike: a random resident of an array goes. */
static uint64_t fa_random(const struct fa_run *a, uint64_t seed)
{
	uint8_t *in = calloc(a->nuniq + 1, 1);
	uint32_t *res = malloc((a->cap + 1) * sizeof(*res));
	uint64_t total = 0, rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	size_t nres = 0, i, k;
	uint32_t id;

	if (!in || !res) {
		total = UINT64_MAX;
		goto out;
	}
	for (i = 0; i < a->n; i++) {
		id = a->ids[i];
		if (in[id]) {
			fa_count(a, i, false);
			continue;
		}
		total++;
		fa_count(a, i, true);
		if (nres == a->cap) {
			k = (size_t)(cachepin_xorshift64(&rng) % a->cap);
			in[res[k]] = 0;
			res[k] = res[--nres];
		}
		in[id] = 1;
		res[nres++] = id;
	}
out:
	free(in);
	free(res);
	return total;
}

static inline uint32_t random_fa_evict(struct fa_online *f)
{
	uint32_t k = (uint32_t)(cachepin_xorshift64(&f->rng) % f->cap), slot = f->res[k];

	/* as fa_random(): the last resident fills the hole, the new one goes last */
	f->res[k] = f->res[f->cap - 1];
	f->res[f->cap - 1] = slot;
	return slot;
}

static inline void random_fa_placed(struct fa_online *f, uint32_t slot, bool filled)
{
	if (filled)
		f->res[slot] = slot;
}

SA_DEFINE(random, hit_none, random_victim)
FA_DEFINE(random, fa_hit_none, random_fa_evict, random_fa_placed)

/*
 * Round-robin: each set's ways go in turn.  A fully associative cache,
 * one set, has no way to rotate through: it evicts at random (the table
 * gives it random's code there).
 */
static inline uint32_t rr_victim(struct sa_state *s, uint32_t set, const uint64_t *stamp,
				 uint64_t now)
{
	uint32_t v = s->hand[set];

	s->hand[set] = (v + 1) % s->c->ways;
	return v;
}

SA_DEFINE(rr, hit_none, rr_victim)

/*
 * Belady (optimal): the way whose line is used again last goes, or none
 * when the incoming line is used again later still (bypass).  The one
 * policy that needs the future, a special case of the table: its stamps
 * are next uses, which the array simulators compute for it (FUTURE), and
 * it has no online step (no CPU can have it).
 */
static inline uint32_t opt_victim(struct sa_state *s, uint32_t set, const uint64_t *stamp,
				  uint64_t now)
{
	uint32_t w, v = 0;

	for (w = 1; w < s->c->ways; w++)
		if (stamp[w] > stamp[v])
			v = w;
	/* Bypass when the incoming line is reused last. */
	return now >= stamp[v] ? SA_BYPASS : v;
}

SA_DEFINE_RUN(opt, hit_stamp, opt_victim)

struct heap_ent {
	size_t key;	/* next use */
	uint32_t id;
};

/* A max-heap of next uses (Belady). */
#define next_later(a, b) ((a).key > (b).key)
HEAP_DEFINE(nexth, struct heap_ent, next_later)

/*
 * Belady: the residents in a max-heap of their next uses; an entry is
 * stale once its line left or was used again (CUR holds the live key).
 */
static uint64_t fa_opt(const struct fa_run *a, uint64_t seed)
{
	uint8_t *in = calloc(a->nuniq + 1, 1);
	size_t *next = next_uses(a->ids, a->n, a->nuniq);
	size_t *cur = malloc((a->nuniq + 1) * sizeof(*cur));
	struct heap_ent *heap = malloc((a->n + 1) * sizeof(*heap));
	uint64_t total = 0;
	size_t nres = 0, nh = 0, i;
	uint32_t id;

	if (!in || !next || !cur || !heap) {
		total = UINT64_MAX;
		goto out;
	}
	for (i = 0; i < a->n; i++) {
		id = a->ids[i];
		if (in[id]) {
			fa_count(a, i, false);
			cur[id] = next[i];
			nexth_push(heap, &nh, (struct heap_ent){ next[i], id });
			continue;
		}
		total++;
		fa_count(a, i, true);
		if (nres == a->cap) {
			struct heap_ent e;

			/* skip stale entries */
			do {
				e = nexth_pop(heap, &nh);
			} while (!in[e.id] || cur[e.id] != e.key);
			if (next[i] >= e.key) {
				nexth_push(heap, &nh, e);	/* bypass */
				continue;
			}
			in[e.id] = 0;
			nres--;
		}
		in[id] = 1;
		cur[id] = next[i];
		nexth_push(heap, &nh, (struct heap_ent){ next[i], id });
		nres++;
	}
out:
	free(in);
	free(next);
	free(cur);
	free(heap);
	return total;
}

/*
 * The table: a row per policy, in the order of enum cachepin_repl.  A
 * new policy is its enumerator, its code above and its row here: its
 * set-associative hit and victim (SA_DEFINE) and, if it decides on the
 * past alone, its fully associative hit, eviction and placement
 * (FA_DEFINE); a fully associative array simulator of its own (fa_run)
 * only if the online step is too slow on a whole string.  Every
 * simulator, name, parser and list below takes the policy from its row.
 */
struct repl_policy {
	const char *name;
	const char *short_name;	/* the command line's other name for it, or NULL */
	const char *what;	/* as score's report says it */
	const char *fa_name;	/* simulate's fully associative cache of it, or NULL */
	enum repl_estimate estimate;	/* the planner's estimate of a set's misses */
	bool future;		/* sa_run() needs each reference's next use */
	/* set-associative: a reference string; one access (NULL: not online) */
	uint64_t (*sa_run)(struct sa_state *s, const struct sa_run *a);
	uint32_t (*sa_step)(struct sa_state *s, uint64_t line, uint64_t now);
	/*
	 * fully associative: a reference string (NULL: the online step over
	 * it); one access (NULL: not online)
	 */
	uint64_t (*fa_run)(const struct fa_run *a, uint64_t seed);
	uint32_t (*fa_step)(struct fa_online *f, uint64_t line);
};

static const struct repl_policy repl_table[CACHEPIN_REPL__NR] = {
	[CACHEPIN_REPL_LRU] = {
		.name = "lru", .what = "LRU", .fa_name = "fa-lru", .estimate = REPL_EST_CHE,
		.sa_run = lru_sa_run, .sa_step = lru_sa_step,
		.fa_run = fa_lru, .fa_step = lru_fa_step,
	},
	[CACHEPIN_REPL_RANDOM] = {
		.name = "random", .what = "pseudo-random", .estimate = REPL_EST_RANDOM,
		.sa_run = random_sa_run, .sa_step = random_sa_step,
		.fa_run = fa_random, .fa_step = random_fa_step,
	},
	[CACHEPIN_REPL_RR] = {
		.name = "round-robin", .short_name = "rr", .what = "round-robin",
		.estimate = REPL_EST_CHE,
		.sa_run = rr_sa_run, .sa_step = rr_sa_step,
		.fa_run = fa_random, .fa_step = random_fa_step,
	},
	[CACHEPIN_REPL_OPT] = {
		.name = "optimal", .what = "optimal (same sets)", .estimate = REPL_EST_CHE,
		.future = true, .sa_run = opt_sa_run, .fa_run = fa_opt,
	},
};

/* R's row, or NULL for no policy. */
static const struct repl_policy *repl_get(enum cachepin_repl r)
{
	return (unsigned int)r < CACHEPIN_REPL__NR && repl_table[r].name ? &repl_table[r] : NULL;
}

const char *cachepin_repl_name(enum cachepin_repl r)
{
	const struct repl_policy *p = repl_get(r);

	return p ? p->name : "?";
}

const char *cachepin_repl__what(enum cachepin_repl r)
{
	const struct repl_policy *p = repl_get(r);

	return p ? p->what : "?";
}

const char *cachepin_repl__fa_name(enum cachepin_repl r)
{
	const struct repl_policy *p = repl_get(r);

	return p && p->fa_step ? p->fa_name : NULL;
}

bool cachepin_repl__online(enum cachepin_repl r)
{
	const struct repl_policy *p = repl_get(r);

	return p && p->sa_step;
}

enum repl_estimate cachepin_repl_estimate(enum cachepin_repl r)
{
	const struct repl_policy *p = repl_get(r);

	return p ? p->estimate : REPL_EST_CHE;
}

int cachepin_repl__parse(const char *name, bool online)
{
	int r;

	for (r = 0; r < CACHEPIN_REPL__NR; r++) {
		const struct repl_policy *p = repl_get((enum cachepin_repl)r);

		if (!p || (online && !p->sa_step))
			continue;
		if (!strcmp(name, p->name) || (p->short_name && !strcmp(name, p->short_name)))
			return r;
	}
	return -1;
}

const char *cachepin_repl__names(char *buf, size_t size, const char *sep, const char *last,
				 bool long_names, bool fa)
{
	const char *name[2 * CACHEPIN_REPL__NR], *full[2 * CACHEPIN_REPL__NR];
	size_t n = 0, i, at = 0;
	int r, k;

	for (r = 0; r < CACHEPIN_REPL__NR; r++) {
		const struct repl_policy *p = repl_get((enum cachepin_repl)r);

		if (!cachepin_repl__online((enum cachepin_repl)r))
			continue;
		name[n] = p->short_name ? p->short_name : p->name;
		full[n++] = p->short_name && long_names ? p->name : NULL;
	}
	for (r = 0; fa && r < CACHEPIN_REPL__NR; r++) {
		if (!cachepin_repl__fa_name((enum cachepin_repl)r))
			continue;
		name[n] = cachepin_repl__fa_name((enum cachepin_repl)r);
		full[n++] = NULL;
	}
	if (size)
		buf[0] = '\0';
	for (i = 0; i < n && at < size; i++) {
		const char *before = !i ? "" : i + 1 < n ? sep : last;

		if (full[i])
			k = snprintf(buf + at, size - at, "%s%s (%s)", before, name[i], full[i]);
		else
			k = snprintf(buf + at, size - at, "%s%s", before, name[i]);
		if (k < 0)
			break;
		at += (size_t)k;
	}
	return buf;
}

/* ---- the simulators: a policy's row, taken once per run ---- */

static uint64_t sim_set_assoc(const struct cachepin_cache *c, const struct repl_policy *p,
			      const struct cachepin_refs *r, uint64_t seed,
			      uint64_t *set_misses, uint8_t *miss)
{
	struct sa_run a = { .lines = r->lines, .n = r->n, .set_misses = set_misses, .miss = miss };
	size_t *next = NULL, nuniq = r->nuniq;
	uint32_t *ids = NULL;
	uint64_t total = UINT64_MAX;
	struct sa_state s;

	if (sa_init(&s, c, seed))
		goto out;
	if (p->future) {
		const uint32_t *use = r->ids;

		if (!use)
			use = ids = dense_ids(r->lines, r->n, &nuniq, NULL);
		next = use ? next_uses(use, r->n, nuniq) : NULL;
		if (!next)
			goto out;
		a.next = next;
	}
	total = p->sa_run(&s, &a);
out:
	sa_release(&s);
	free(ids);
	free(next);
	return total;
}

/* A policy without a fully associative array simulator: its online step over the string. */
static uint64_t fa_run_online(const struct cachepin_cache *c, const struct repl_policy *p,
			      const struct cachepin_refs *r, uint64_t seed,
			      uint64_t *set_misses, uint8_t *miss)
{
	struct fa_online f = { 0 };
	uint64_t total = UINT64_MAX;
	size_t i;

	if (fa_online_init(&f, c, seed))
		goto out;
	for (total = 0, i = 0; i < r->n; i++) {
		bool missed = p->fa_step(&f, r->lines[i]) >> 31;

		if (miss)
			miss[i] = missed;
		total += missed;
	}
	if (set_misses)
		set_misses[0] += total;
out:
	fa_online_release(&f);
	return total;
}

static uint64_t sim_fully_assoc(const struct cachepin_cache *c, const struct repl_policy *p,
				const struct cachepin_refs *r, uint64_t seed,
				uint64_t *set_misses, uint8_t *miss)
{
	size_t nuniq = r->nuniq;
	uint32_t *own = r->ids ? NULL : dense_ids(r->lines, r->n, &nuniq, NULL);
	struct fa_run a = {
		.ids = r->ids ? r->ids : own, .n = r->n, .nuniq = nuniq,
		.cap = c->size / c->line, .set_misses = set_misses, .miss = miss,
	};
	uint64_t total;

	if (!a.ids)
		return UINT64_MAX;
	total = p->fa_run(&a, seed);
	free(own);
	return total;
}

uint64_t cachepin_cache__simulate_refs(const struct cachepin_cache *c, enum cachepin_repl repl,
				       bool fully_assoc, const struct cachepin_refs *r,
				       uint64_t seed, uint64_t *set_misses, uint8_t *miss)
{
	const struct repl_policy *p = repl_get(repl);

	if (!p || (fully_assoc && !p->fa_run && !p->fa_step)) {
		/* an unknown policy is an error, never another policy's figure */
		errno = EINVAL;
		return UINT64_MAX;
	}
	if (fully_assoc && !p->fa_run)
		return fa_run_online(c, p, r, seed, set_misses, miss);
	if (fully_assoc)
		return sim_fully_assoc(c, p, r, seed, set_misses, miss);
	return sim_set_assoc(c, p, r, seed, set_misses, miss);
}

uint64_t cachepin_cache__simulate(const struct cachepin_cache *c, enum cachepin_repl repl,
				  bool fully_assoc, const uint64_t *lines, size_t n,
				  uint64_t seed, uint64_t *set_misses, uint8_t *miss)
{
	struct cachepin_refs r = { .lines = lines, .n = n };

	return cachepin_cache__simulate_refs(c, repl, fully_assoc, &r, seed, set_misses, miss);
}

/* ---- online ---- */

struct cachepin_cache_sim {
	struct cachepin_cache c;
	/* the policy's step, taken from its row once: fully associative or not */
	uint32_t (*fa_step)(struct fa_online *f, uint64_t line);
	uint32_t (*sa_step)(struct sa_state *s, uint64_t line, uint64_t now);
	bool fa;
	struct sa_state sa;
	struct fa_online f;
	uint64_t now, misses;
	uint64_t *set_misses;
};

struct cachepin_cache_sim *cachepin_cache_sim__new(const struct cachepin_cache *c,
						   enum cachepin_repl repl, bool fully_assoc,
						   uint64_t seed)
{
	const struct repl_policy *p = repl_get(repl);
	struct cachepin_cache_sim *s;

	if (!p || (fully_assoc ? !p->fa_step : !p->sa_step)) {
		errno = EINVAL;	/* none, or one that needs the future */
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->c = *c;
	s->fa = fully_assoc;
	if (fully_assoc)
		s->fa_step = p->fa_step;
	else
		s->sa_step = p->sa_step;
	s->set_misses = calloc(fully_assoc ? 1 : c->sets, sizeof(*s->set_misses));
	if (!s->set_misses)
		goto nomem;
	if (fully_assoc ? fa_online_init(&s->f, &s->c, seed) : sa_init(&s->sa, &s->c, seed))
		goto nomem;
	return s;
nomem:
	cachepin_cache_sim__free(s);
	errno = ENOMEM;
	return NULL;
}

int cachepin_cache_sim__access(struct cachepin_cache_sim *s, uint64_t line)
{
	uint32_t v = s->fa ? s->fa_step(&s->f, line) : s->sa_step(&s->sa, line, ++s->now);

	if (!(v >> 31))
		return 0;
	s->set_misses[v & ~(1u << 31)]++;
	s->misses++;
	return 1;
}

uint64_t cachepin_cache_sim__misses(const struct cachepin_cache_sim *s)
{
	return s->misses;
}

const uint64_t *cachepin_cache_sim__set_misses(const struct cachepin_cache_sim *s)
{
	return s->set_misses;
}

void cachepin_cache_sim__free(struct cachepin_cache_sim *s)
{
	if (!s)
		return;
	if (!s->fa)
		sa_release(&s->sa);
	fa_online_release(&s->f);
	free(s->set_misses);
	free(s);
}
