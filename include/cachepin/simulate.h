/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace-driven simulator (cachepin simulate): the fetch stream of a
 * recorded run, a QEMU `-d in_asm,exec,nochain` log or a valgrind
 * lackey `--trace-mem=yes` trace, read as a stream and fed to online
 * cache simulators (cachepin/cache.h), on the traced layout or remapped
 * to another one (cachepin/layout.h).  Memory is the caches' state and
 * the log reader's, whatever the length of the trace.
 *
 * The fetch stream: every executed block (QEMU) or instruction (lackey)
 * touches each cache line its bytes span, in order.  A line fetched
 * right after itself always hits in every policy: it is counted as an
 * access, not simulated.
 */
#ifndef CACHEPIN_SIMULATE_H
#define CACHEPIN_SIMULATE_H

#include "cachepin/cache.h"
#include "cachepin/layout.h"

struct cachepin_remap;

/*
 * The policies simulate runs: a set-associative cache of each online
 * replacement policy (cachepin_repl__online()), and the fully associative
 * cache of those the policy table names one for ("fa-lru").  One bit
 * each in cachepin_simulate_opts.policies.
 */
#define CACHEPIN_SIM_BIT(repl, fully_assoc) \
	(1u << ((fully_assoc) ? CACHEPIN_REPL__NR + (unsigned int)(repl) : (unsigned int)(repl)))

/* "lru", "random", "round-robin", "fa-lru"; NULL for none simulate runs. */
const char *cachepin_sim_policy_name(enum cachepin_repl r, bool fully_assoc);

/* The policy named NAME ("rr" too) into *R and *FULLY_ASSOC: 0, or -1 if none. */
int cachepin_sim_policy_parse(const char *name, enum cachepin_repl *r, bool *fully_assoc);

struct cachepin_simulate_opts {
	const struct cachepin_cache *caches;
	size_t nr_caches;
	unsigned int policies;		/* CACHEPIN_SIM_BIT()s; 0: all */
	uint64_t seed;			/* random; 0 means 1 */
	bool range;			/* fetch only [lo, hi) (addresses as traced) */
	uint64_t lo, hi;
	int64_t cpu;			/* QEMU: only this cpu's blocks; -1: all */
	const struct cachepin_layout *layout;	/* remap to it; NULL: as traced */
	const struct cachepin_remap *mod_remap;	/* the modules' code remapped (before layout) */
	size_t nr_mod_remap;
	uint32_t worst_sets;		/* per set-associative row, the N sets with the
					 * most misses and their lines (0: none) */
};

#define CACHEPIN_SIM_SET_LINES 8	/* lines given of one worst set */

/* A line of a worst set: where it is in the simulated layout, the code in it. */
struct cachepin_simulate_line {
	uint64_t addr;		/* line address, in the simulated layout */
	uint64_t traced;	/* the traced address of the first fetch that missed in it */
	uint64_t misses;
};

struct cachepin_simulate_set {
	uint32_t set;
	uint64_t misses;
	uint32_t nr_lines;	/* lines that missed in it */
	/* the CACHEPIN_SIM_SET_LINES with the most misses, then by address */
	struct cachepin_simulate_line lines[CACHEPIN_SIM_SET_LINES];
	uint32_t shown;		/* of them in LINES */
};

struct cachepin_simulate_row {
	const struct cachepin_cache *cache;	/* into opts->caches */
	enum cachepin_repl repl;
	bool fully_assoc;
	uint64_t accesses, misses;
	/* opts.worst_sets of them, most misses first (then by set); none fully associative */
	struct cachepin_simulate_set *worst;
	size_t nr_worst;
};

enum cachepin_trace_format { CACHEPIN_TRACE_QEMU, CACHEPIN_TRACE_LACKEY };

struct cachepin_simulation {
	enum cachepin_trace_format format;
	uint64_t blocks;	/* QEMU blocks (lackey: instructions) simulated */
	uint64_t insns;		/* instructions fetched (inside the range) */
	uint64_t other_cpu;	/* QEMU blocks of other cpus, skipped */
	uint64_t unknown_blocks, unknown_pcs;	/* QEMU exec lines without in_asm */
	uint64_t cancelled;	/* QEMU blocks cancelled by "Stopped execution" */
	uint32_t nr_cpus;
	uint64_t other_lines, first_other;	/* lackey: lines of neither kind */
	bool cut_last_line;
	uint64_t remapped, kept;	/* with a layout: instructions moved, left where they ran */
	struct cachepin_simulate_row *rows;	/* per cache, per policy asked, in order */
	size_t nr_rows;
};

/*
 * Simulate the trace PATH ("-" for standard input; a pipe is fine) into
 * OUT (released with cachepin_simulate__release()).  Returns 0, or a
 * negative errno after logging "'PATH': <problem>" (-EINVAL: not a trace
 * or a bad line, with its number; a policy bit simulate cannot run), with
 * OUT released.
 */
int cachepin_simulate__run(const char *path, const struct cachepin_simulate_opts *o,
			   struct cachepin_simulation *out);

void cachepin_simulate__release(struct cachepin_simulation *s);

#endif
