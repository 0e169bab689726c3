/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel's modules planned: where each module's hot functions go in
 * its text, and the linker-script fragment that puts them there.  They
 * are planned first, the kernel after them: the kernel's plan is free to
 * move thousands of units around the modules' lines, a module only its
 * own functions within its pages.
 *
 * A module's text is loaded page-aligned, so a line's offset below the
 * page (4 KiB) gives its set in every load, and the bits of the set above
 * the page come from the load address, which changes when modules load
 * in another order: a way span of 8 KiB (32K:4:32) leaves two sets a
 * line may be in, one of 16 KiB four.  The plan packs each module's hot
 * functions, hottest first, after cold functions of the same module
 * chosen to start them at the page offset where the expected load of
 * the modules placed before it (every alias of a set weighed alike) is
 * lightest.  No padding: the module is no bigger for it.
 */
#ifndef CACHEPIN_MODPLAN_H
#define CACHEPIN_MODPLAN_H

#include "cachepin/cache.h"
#include "cachepin/layout.h"
#include "cachepin/model.h"
#include "cachepin/modules.h"

#define CACHEPIN_MODPLAN_PAGE 4096u	/* a module's text starts on a page */

struct cachepin_modplan_func {
	const char *name;	/* the function, as the module's file has it */
	const char *section;	/* its input section (".text.nf_conntrack_in") */
	uint64_t off;		/* planned offset in the module's text */
	uint64_t file_off;	/* its offset in the text of the file as built */
	uint64_t size;
	bool hot;		/* a hot function (else cold code that leads them in) */
};

struct cachepin_modplan_mod {
	const char *name;	/* "nf_conntrack.ko" */
	const char *object;	/* the object the module's link takes ("nf_conntrack.o") */
	struct cachepin_modplan_func *funcs;	/* in the planned order */
	size_t nr_funcs, nr_hot;
	uint64_t hot_start;	/* the first hot function's offset */
	const char *why_not;	/* the module is not planned, because (NULL: planned) */
};

struct cachepin_modplan {
	struct cachepin_modplan_mod *mods;	/* heaviest first */
	size_t nr_mods;
	/*
	 * The binary as it is, but every hot module function that a planned
	 * module moves at its planned offset from the module's recorded load
	 * address (cachepin_modplan__apply()).
	 */
	struct cachepin_layout layout;
};

/*
 * Plan the modules whose hot functions M's binary holds as fixed
 * occupants (cachepin_occupants__add(): "MODULE.ko" units), their files
 * from MODS, among themselves (the kernel is planned after them, around
 * their lines), for CACHES[0..NR) (each weighs alike).  A module whose hot code is not in
 * sections of its own (built without -ffunction-sections) keeps its
 * layout (why_not says so).  Returns 0 and fills OUT (release with
 * cachepin_modplan__release()), or -ENOMEM.
 */
int cachepin_modplan__run(const struct cachepin_model *m, struct cachepin_modules *mods,
			  const struct cachepin_cache *caches, size_t nr, struct cachepin_modplan *out);

/*
 * The plan as a GNU ld script fragment for the modules' link (kbuild's
 * LDFLAGS_MODULE="-T FILE": ld takes it with scripts/module.lds): one
 * .text output section whose statements name each planned module's
 * sections by its object, in the planned order.  0 or -EIO.
 */
int cachepin_modplan__write_lds(FILE *f, const struct cachepin_modplan *mp);

void cachepin_modplan__release(struct cachepin_modplan *mp);

/*
 * Move BIN's module occupants (the functions MP plans, hot ones) to
 * their planned places, for a kernel plan made after them: their
 * addresses and their units' change, their indices stay, so a model of
 * BIN stays valid; BIN's address order no longer holds among them (no
 * lookup by address of module code on BIN after this).  *MOVED gets how
 * many moved.
 */
void cachepin_modplan__apply(const struct cachepin_modplan *mp, struct cachepin_binary *bin,
			     size_t *moved);

/* One planned function of a module's script, as a relinked module has it. */
struct cachepin_modplan_seen {
	const char *module;	/* "nf_conntrack.ko" */
	const char *func;	/* the function its section holds */
	uint64_t planned;	/* its planned offset in the module's text */
	uint64_t now;		/* where the module's file has it, if found */
	bool found;		/* the module's file has the function */
};

struct cachepin_modplan_verify {
	size_t nr, ok, moved, missing;	/* planned functions, and how they are */
	size_t modules;			/* planned modules checked */
};

/*
 * Check the modules under MODS (relinked with the script at PATH, which
 * cachepin_modplan__write_lds() wrote) against it: each planned function
 * at its planned offset in its module's text as Linux lays it out.  FN
 * (may be NULL) sees every planned function.  Returns 0 with *OUT filled,
 * or a negative errno after a message naming PATH (and the line): not
 * such a script, a module MODS lacks.
 */
int cachepin_modplan__verify(const char *path, struct cachepin_modules *mods,
			     void (*fn)(void *ctx, const struct cachepin_modplan_seen *s), void *ctx,
			     struct cachepin_modplan_verify *out);

#endif
