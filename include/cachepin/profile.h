/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The normalized profile: position independent (function name + object,
 * weights per offset granule inside the function, caller->callee edges),
 * small, text, kept next to a kernel .config.  Format: cachepin-profile(5).
 */
#ifndef CACHEPIN_PROFILE_H
#define CACHEPIN_PROFILE_H

#include <stdio.h>
#include "cachepin/sample.h"
#include "cachepin/binary.h"

#define CACHEPIN_PROFILE_GRANULE 16	/* bytes; lines of 16 B and more derive from it */
/*
 * Code of other objects (shared libraries) is kept by page of this size:
 * a file is mapped at a page boundary, so where its lines fall below the
 * page size is known in every run; above it the load address decides.
 */
#define CACHEPIN_PROFILE_PAGE 4096
/*
 * Time slices: a recording in time order (perf.data, perf script, a QEMU
 * log) is cut into at most this many consecutive stretches of equal
 * sample counts, and every granule keeps its weight per stretch, so that
 * the model can replay the phases of the run and plan on some stretches
 * while scoring on the others.
 */
#define CACHEPIN_PROFILE_SLICES 16

struct cachepin_pgran {
	uint32_t off;		/* offset from the function start, multiple of the granule */
	double weight;
};

struct cachepin_pfunc {
	char *name;
	char *object;		/* qualifier for duplicate names, NULL if unique */
	double weight;		/* self weight (sum of periods of samples hitting it) */
	uint64_t samples;	/* samples hitting it */
	double incl;		/* samples anywhere on the stack */
	uint64_t size;		/* function size when profiled */
	struct cachepin_pgran *grans;	/* sorted by off; empty = uniform over the function */
	size_t nr_grans;
	size_t cap_grans;
	/*
	 * The granules' weights per time slice, when the profile has
	 * nr_slices: granule K's are slices[K * nr_slices] to
	 * slices[K * nr_slices + nr_slices - 1].  NULL without slices or
	 * granules; cap_slices is its room, in weights.
	 */
	double *slices;
	size_t cap_slices;
};

/*
 * Another object that samples hit: a shared library, the vdso, the kernel
 * for a program's profile, a module for a kernel's.  A shared library's
 * hot code is also in the functions "[NAME+0xPAGE]" (one per hot page of
 * the file, PAGE its file offset), which cachepin_profile__load() adds to
 * the binary as fixed occupants of their cache sets.
 */
struct cachepin_pobject {
	char *name;		/* base name of its file, or "[vdso]", "[kernel.kallsyms]", ... */
	uint64_t samples;	/* samples whose innermost frame is there */
	double weight;		/* their weight */
	uint64_t base;		/* runtime address of its file offset 0, if has_base */
	bool has_base;
};

enum cachepin_pedge_flags {
	CACHEPIN_PEDGE_DYNAMIC	= (1 << 0),	/* seen in callchains */
	CACHEPIN_PEDGE_STATIC	= (1 << 1),	/* seen in the static call graph */
};

struct cachepin_pedge {
	uint32_t caller, callee;	/* indices into funcs */
	uint32_t callsite;		/* offset of the return address in the caller (dynamic) */
	double weight;			/* sum of periods of samples through this edge */
	unsigned int flags;
};

struct cachepin_profile {
	char *event;
	char *build_id;		/* of the profiled binary, hex */
	char *binary;		/* its base name */
	uint32_t granule;
	uint64_t nr_samples;	/* samples read */
	uint64_t nr_matched;	/* samples whose leaf resolved to a function of the binary */
	double period_sum;	/* of all samples read */
	double matched_weight;	/* of the matched ones */
	uint32_t nr_slices;	/* time slices of the granules' weights; 0 = not in time order */
	bool phases;		/* the slices are the recording's phases, not stretches of its time */
	/*
	 * The L1 instruction cache of the recording machine, as recorded
	 * (perf.data's HEADER_CACHE), whether or not the model can take
	 * it; rec_sets 0 = not known.
	 */
	uint32_t rec_sets, rec_ways, rec_line;
	struct cachepin_pfunc *funcs;	/* sorted by weight, descending, then name */
	size_t nr_funcs, cap_funcs;
	struct cachepin_pedge *edges;	/* sorted by caller, callee, callsite */
	size_t nr_edges, cap_edges;
	struct cachepin_pobject *objects;	/* by weight, heaviest first, then name */
	size_t nr_objects;
	void *priv;
};

struct cachepin_pbuild;

enum cachepin_pbuild_flags {
	CACHEPIN_PBUILD_USER	= (1 << 0),	/* binary is a user program: take user frames */
	CACHEPIN_PBUILD_KERNEL	= (1 << 1),	/* binary is a kernel: take kernel frames */
	CACHEPIN_PBUILD_TIMED	= (1 << 2),	/* samples come in time order: keep time slices */
	CACHEPIN_PBUILD_PHASES	= (1 << 3),	/* and are samples (not every fetch): slices by phase */
};

/*
 * A profile builder for BIN (which must outlive it): feed samples with
 * cachepin_pbuild__add() (a cachepin_sample_fn_t), then take the profile
 * with cachepin_pbuild__finish(), which frees the builder.  Returns NULL
 * with errno ENOMEM.
 */
struct cachepin_pbuild *cachepin_pbuild__new(const struct cachepin_binary *bin,
					     unsigned int flags);
/*
 * KASLR: the runtime address of the kernel reference symbol REF_SYM
 * (nothing if REF_SYM is NULL, RUNTIME_ADDR 0 or BIN lacks the symbol).
 */
void cachepin_pbuild__set_kernel_ref(struct cachepin_pbuild *pb, const char *ref_sym,
				     uint64_t runtime_addr);
struct cachepin_modules;
struct cachepin_loaded;
/*
 * A kernel's modules (MODS, which must outlive PB; NULL: none): a sample
 * in a module whose file MODS has goes to that module's function, named
 * with the module's file name as its object ("nf_conntrack.ko"), instead
 * of to the module's page.  LOADED[0..NR_LOADED) (NULL: none; outliving
 * PB too), where the kernel had them loaded, puts the kernel addresses of
 * an input without maps (QEMU logs, lackey traces) in its modules.
 */
void cachepin_pbuild__set_modules(struct cachepin_pbuild *pb, struct cachepin_modules *mods,
				  const struct cachepin_loaded *loaded, size_t nr_loaded);
/*
 * Frames in DSO (a mapping's file name as the reader gives it) are code
 * of the binary whatever their name: the recording says DSO has the
 * binary's build-id (a copy, a renamed file).  Returns 0 or -ENOMEM
 * (then finish fails too).
 */
int cachepin_pbuild__add_dso(struct cachepin_pbuild *pb, const char *dso);
/* Add one sample.  Returns 0 or -ENOMEM (then finish fails too). */
int cachepin_pbuild__add(void *pb, const struct cachepin_sample *s);
/*
 * Add N samples that share S's callchain (S->frames[1..]); sample k hit
 * S->frames[0].ip + LEAF_OFF[k].  The same as N calls of
 * cachepin_pbuild__add(), in one walk of the chain per leaf function
 * (the blocks of an instruction trace).  Returns 0 or -ENOMEM.
 */
int cachepin_pbuild__add_leaves(void *pb, const struct cachepin_sample *s,
				const uint32_t *leaf_off, size_t n);
/*
 * Finish: frees the builder and returns the profile, to be freed with
 * cachepin_profile__free(), or NULL with errno (ENOMEM) if building it,
 * or any earlier add, ran out of memory.
 */
struct cachepin_profile *cachepin_pbuild__finish(struct cachepin_pbuild *pb);

/*
 * Add the static call graph edges of the binary's objects (weight 0)
 * between functions of P; flag the dynamic edges found there too.
 * Returns 0 or -ENOMEM (P then holds part of them, its edges unsorted).
 */
struct cachepin_objects;
int cachepin_profile__add_static(struct cachepin_profile *p, const struct cachepin_binary *bin,
				 const struct cachepin_objects *objs);

/*
 * Read a profile file.  Returns a new profile, to be freed with
 * cachepin_profile__free(), or NULL with errno set after a message:
 * "'F':LINE: ..." for a bad line (EINVAL), "'F': out of memory"
 * (ENOMEM), or why F cannot be opened or read.
 */
struct cachepin_profile *cachepin_profile__read(const char *path);
/* Write P in the text format.  Returns 0 or -EIO (F's error flag is set). */
int cachepin_profile__write(const struct cachepin_profile *p, FILE *f);
/* A stable digest of the profile's content (for headers). */
uint64_t cachepin_profile__digest(const struct cachepin_profile *p);

/*
 * What a sample of P's event stands for: "fetches" (instructions, as a
 * PMU or a QEMU log counts them: each an executed instruction), "time"
 * (cpu-clock, task-clock, cycles: a line weighs how long it ran, stalls
 * and waits included), or NULL (a hot list, another event).
 */
const char *cachepin_profile__event_kind(const struct cachepin_profile *p);
/* Free P and all it holds; P may be NULL. */
void cachepin_profile__free(struct cachepin_profile *p);

/*
 * A profile function resolved against a binary: index of the binary's
 * function, or -1 (unmatched).  Fills MAP[p->nr_funcs].  Returns the
 * number of matched profile functions; *unmatched_w gets their weight.
 */
ssize_t cachepin_profile__match(const struct cachepin_profile *p, const struct cachepin_binary *bin,
				int *map, double *unmatched_w);

/* ---- a profile from any input (cachepin profile, perf.data, QEMU log, text) ---- */

enum cachepin_input_kind {
	CACHEPIN_INPUT_PROFILE,	/* cachepin-profile(5) */
	CACHEPIN_INPUT_PERF,	/* perf.data, file or pipe mode ("-": standard input) */
	CACHEPIN_INPUT_TEXT,	/* perf script, hot list, perf report/top, folded stacks */
	CACHEPIN_INPUT_QEMU,	/* QEMU -d in_asm,exec,nochain log */
	CACHEPIN_INPUT_LACKEY,	/* valgrind --tool=lackey --trace-mem=yes trace */
};

struct cachepin_load_opts {
	bool kernel;		/* take kernel samples (else the program's user samples) */
	uint64_t period;	/* QEMU logs, lackey traces: instructions per sample (0 = 1) */
	const char *const *objects;	/* objects and archives: static call graph */
	size_t nr_objects;
	const struct cachepin_objects *objs;	/* those objects loaded already, or NULL */
	bool keep_idle;		/* a kernel's idle loop stays heat (see struct cachepin_load) */
	/*
	 * A kernel's modules: samples in them by function (see
	 * cachepin_pbuild__set_modules()), and a profile's module functions
	 * placed as fixed occupants at their module's recorded load address.
	 */
	struct cachepin_modules *modules;
	const struct cachepin_loaded *loaded;	/* where they were loaded (NULL: as the input says) */
	size_t nr_loaded;
	/*
	 * > 1: each module function as this many copies, one per page of a
	 * way span (cachepin_occupants__spread()), not only where the
	 * recording had it.
	 */
	unsigned int module_pages;
};

/* A profile loaded and matched against a binary. */
struct cachepin_load {
	struct cachepin_profile *profile;
	enum cachepin_input_kind kind;	/* what the input was */
	/* per profile function: index of the binary's function, or -1 */
	int *map;
	size_t nr_matched;	/* profile functions found in the binary */
	double weight;		/* self weight of all profile functions */
	double unmatched_weight;	/* of those not found */
	/*
	 * A kernel's samples that measure waiting, not fetches: those of a
	 * time event (cpu-clock, cycles) in the idle loop's functions
	 * (cachepin_kernel_idle()).  Unless opts.keep_idle, their weight
	 * and the call edges into and out of those functions are taken out
	 * of the profile, and it is said how much.
	 */
	double idle_weight;
};

/*
 * Load PATH, whatever it holds (by its first bytes; a pipe keeps them),
 * as a profile of BIN (OPTS may be NULL), add the objects' static call
 * graph and match every function against BIN.  The hot pages of shared
 * libraries the samples hit are added to BIN as fixed synthetic functions
 * (see struct cachepin_pobject; the indices of BIN's functions and units
 * stay).  Says what share of the samples other objects took, and warns
 * about what the input lost (samples, build-id, unmatched functions).  Returns 0 and
 * fills L (release with cachepin_load__release()), or a negative errno
 * after logging, also when no sample or function matched BIN (-ENOENT).
 */
int cachepin_profile__load(struct cachepin_load *l, const char *path,
			   struct cachepin_binary *bin, const struct cachepin_load_opts *opts);
void cachepin_load__release(struct cachepin_load *l);

#endif
