/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A session: what a command reads and builds before it reports, made
 * once, as perf's perf_session__new() does: the binary with its link
 * map, objects and fixed units, the profile matched against it, the
 * model, a score of the binary's layout per cache geometry, the held-out
 * folds the planner chooses among its candidates on.
 *
 * A command asks for what it needs (enum cachepin_session_need), all at
 * once or step by step (what it checks in between comes in between);
 * each step says what went wrong itself.  cachepin_session__free()
 * frees everything the session opened.
 */
#ifndef CACHEPIN_SESSION_H
#define CACHEPIN_SESSION_H

#include "cachepin/binary.h"
#include "cachepin/cache.h"
#include "cachepin/model.h"
#include "cachepin/modules.h"
#include "cachepin/objects.h"
#include "cachepin/profile.h"
#include "cachepin/score.h"

/* What a command needs; each implies the steps before it. */
enum cachepin_session_need {
	CACHEPIN_SESSION_BINARY	 = (1 << 0),	/* the binary, its map, objects, fixed units */
	CACHEPIN_SESSION_PROFILE = (1 << 1),	/* the profile, matched against the binary */
	CACHEPIN_SESSION_MODEL	 = (1 << 2),	/* the model of the profile */
	CACHEPIN_SESSION_SCORES	 = (1 << 3),	/* the binary's layout scored per cache */
	CACHEPIN_SESSION_FOLDS	 = (1 << 4),	/* the held-out folds (needs the model) */
};

#define CACHEPIN_SESSION_MAX_CACHES 8

/* What to open.  The strings are the caller's and must outlive the session. */
struct cachepin_session_opts {
	const char *binary;	/* an ELF file; with symmap a System.map or nm output */
	bool symmap;		/* binary is a symbol map (cachepin_binary__open_symmap()) */
	const char *map;	/* GNU ld link map of the binary, or NULL */
	const char *const *objects;	/* objects and archives of the link */
	size_t nr_objects;
	const char *const *fixed;	/* patterns of units kept fixed (--fixed) */
	size_t nr_fixed;
	bool has_ebase;		/* 32-bit MIPS kernels: the exception base */
	uint64_t ebase;
	const char *modules;	/* a kernel's modules (*.ko) under this directory, or NULL */
	const char *proc_modules;	/* a copy of the recording kernel's /proc/modules, or NULL */
	bool module_pages;	/* modules' functions on every page of the largest way span of
				 * the caches (cachepin_load_opts.module_pages), not only where
				 * the recording had them */
	int mode;		/* 0: by the binary (a kernel's samples of a kernel); 1 kernel; 2 user */
	const char *profile;	/* any input cachepin_profile__load() reads */
	const char *traced;	/* profile is a QEMU log of this ELF, another link of the
				 * binary's code: its functions matched by name */
	const char *holdout;	/* a second recording: the folds are it and the profile */
	uint64_t period;	/* QEMU logs: instructions per sample (0 = 1) */
	bool keep_idle;		/* a kernel's idle loop stays heat */
	struct cachepin_model_opts model;	/* of the full model; .half is the session's */
	bool run_model;		/* a QEMU log in a file (no holdout, not whole) is modelled as
				 * the run itself (cachepin_model__from_qemu_of()) */
	const struct cachepin_cache *caches;	/* the geometries to score */
	size_t nr_caches;	/* at most CACHEPIN_SESSION_MAX_CACHES */
	bool cache_default;	/* caches[0] is a default: the recording machine's L1I replaces it */
	unsigned int score_flags;	/* CACHEPIN_SCORE_* */
	bool name_binary;	/* a model that cannot be built is said of the binary by name */
};

struct cachepin_session {
	struct cachepin_session_opts opts;	/* a copy; caches point to the session's own */
	unsigned int open;		/* enum cachepin_session_need: what is open */
	int mode;			/* opts.mode, or what the binary is (1 kernel, 2 user) */
	struct cachepin_binary *bin;
	struct cachepin_binary *traced;	/* opts.traced */
	struct cachepin_objects *objs;	/* opts.objects, loaded once */
	struct cachepin_modules *mods;	/* opts.modules, indexed once */
	struct cachepin_loaded *loaded;	/* opts.proc_modules, read once */
	size_t nr_loaded;
	struct cachepin_load load;	/* the profile */
	/*
	 * The geometries, the first replaced by the recording machine's L1I
	 * (said) where opts.cache_default and the profile gives one;
	 * cache_default stays set until a profile with a recorded cache came.
	 */
	struct cachepin_cache caches[CACHEPIN_SESSION_MAX_CACHES];
	size_t nr_caches;
	bool cache_default;
	struct cachepin_model *model;
	struct cachepin_score *scores;	/* one per cache, as linked */
	size_t nr_scores;
	/*
	 * The held-out folds, in the shape of struct cachepin_plan_opts:
	 * folds[f][0] is planned on, folds[f][1] scores it.  Two: the
	 * profile's halves (a recorded run's first and second half, else
	 * cachepin_model__new()'s opts.half), each planned on and scored by
	 * the other, or the profile and opts.holdout; one, the full model
	 * twice, where the profile cannot be split.
	 */
	struct cachepin_load hload;	/* opts.holdout */
	struct cachepin_model *half[2];
	const struct cachepin_model *folds[2][2];
	size_t nr_folds;
};

/*
 * A session of OPTS, nothing opened yet.  Returns it, to be freed with
 * cachepin_session__free(), or NULL with errno set after logging (EINVAL:
 * more caches than CACHEPIN_SESSION_MAX_CACHES; ENOMEM).
 */
struct cachepin_session *cachepin_session__new(const struct cachepin_session_opts *opts);

/*
 * Open what NEEDS (enum cachepin_session_need) asks for and is not open
 * yet, with the steps it implies, in order: binary, profile, model,
 * scores, folds.  Returns 0, or a negative errno after logging why (all but an
 * ENOMEM of cachepin_binary__set_ebase()); what was opened before the
 * failure stays in S, which the caller still frees.
 */
int cachepin_session__open(struct cachepin_session *s, unsigned int needs);

/*
 * Load another input PATH on the session's binary (open), with its
 * options (mode, objects, period, idle loop), into L, to be released with
 * cachepin_load__release().  The session's caches are not touched.
 * Returns 0, or a negative errno after logging.
 */
int cachepin_session__load(struct cachepin_session *s, const char *path, struct cachepin_load *l);

/* Free S and everything it opened.  S may be NULL. */
void cachepin_session__free(struct cachepin_session *s);

#endif
