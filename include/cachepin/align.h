/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The alignment file (cachepin-plan(5)): where the plan put every unit
 * (offset from __cachepin_start, alignment, first cache set, hot lines),
 * written next to the fragment, read back by cachepin check and
 * verified against the symbols of the relinked binary.
 */
#ifndef CACHEPIN_ALIGN_H
#define CACHEPIN_ALIGN_H

#include <stdio.h>
#include "cachepin/emit.h"
#include "cachepin/symmap.h"

/*
 * Write layout L's block as an alignment file (its serialisation), with
 * the hot lines of model M (of L's binary) for cache C and INFO's header
 * lines.  Returns 0, -EIO when F failed, or -ENOMEM.
 */
int cachepin_align__write(FILE *f, const struct cachepin_layout *l,
			  const struct cachepin_model *m, const struct cachepin_cache *c,
			  const struct cachepin_emit_info *info);

struct cachepin_align_entry {
	char *symbol, *object, *section;	/* symbol NULL: a fill unit without one */
	uint64_t off, align;
	uint32_t first_set;
	bool hot;
};

struct cachepin_align {
	uint64_t block_align;
	uint32_t line, sets;
	char *cache;
	/*
	 * Kernels: the first function of the text after TEXT_TEXT, which the
	 * plan takes at TAIL_PHASE bytes past a multiple of block_align (the
	 * hook ends TEXT_TEXT on it); NULL if the file has no 'tail' line.
	 */
	char *tail_symbol;
	uint64_t tail_phase;
	struct cachepin_align_entry *e;
	size_t nr;
};

/* Read an alignment file; NULL with errno after logging "'F':LINE: ...". */
struct cachepin_align *cachepin_align__read(const char *path);
void cachepin_align__free(struct cachepin_align *a);

/* ---- verification (cachepin check) ---- */

enum cachepin_verify_state {
	CACHEPIN_VERIFY_OK,		/* at its planned offset and set */
	CACHEPIN_VERIFY_MOVED,		/* a hot unit off its slot */
	CACHEPIN_VERIFY_FILL_MOVED,	/* a fill unit elsewhere (cold code: harmless) */
	CACHEPIN_VERIFY_MISSING,	/* its symbol is not in the binary */
	CACHEPIN_VERIFY_UNNAMED,	/* a fill unit without a symbol: not checked */
};

struct cachepin_verify_entry {
	const struct cachepin_align_entry *e;
	enum cachepin_verify_state state;
	uint64_t addr;		/* where the symbol is now */
	uint64_t off;		/* its offset from the block start now */
	uint32_t set;		/* its first set now */
	size_t nr_names;	/* > 1: the name has several addresses (static functions) */
	bool one_at_slot;	/* then: one of them is at the planned offset */
};

enum cachepin_verify_tail {
	CACHEPIN_TAIL_OK,		/* where the plan took it, or no 'tail' line */
	CACHEPIN_TAIL_MOVED,		/* at another phase of the block alignment */
	CACHEPIN_TAIL_MISSING,		/* its symbol is not in the binary */
};

struct cachepin_verify {
	bool have_start;	/* the binary has __cachepin_start */
	uint64_t start;		/* the block start: __cachepin_start, or from the anchor */
	const char *anchor;	/* without __cachepin_start: the symbol the start is taken from */
	bool misaligned;	/* __cachepin_start is not a multiple of the block alignment */
	enum cachepin_verify_tail tail;	/* the 'tail' symbol */
	uint64_t tail_addr;	/* where it is now */
	size_t ok, moved, fill_moved, missing, unnamed;
};

typedef void (*cachepin_verify_fn_t)(void *ctx, const struct cachepin_verify_entry *e);

/*
 * Find the block start of AL in the symbols SM into V (counts zeroed):
 * __cachepin_start, or without it (ordering files) the first entry
 * whose symbol is found (V->anchor; NULL and start 0 if none).  Returns 0.
 */
int cachepin_align__anchor(const struct cachepin_align *al, const struct cachepin_symmap *sm,
			   struct cachepin_verify *v);

/*
 * Verify every entry of AL against SM, from V's anchor (see
 * cachepin_align__anchor()), calling FN (may be NULL) with each entry's
 * result in file order, and count them in V, and the 'tail' symbol into
 * V->tail.  Returns 0 if the block is in place (aligned, no hot unit
 * moved, nothing missing, the tail where the plan took it), 1 if not.
 */
int cachepin_align__verify(const struct cachepin_align *al, const struct cachepin_symmap *sm,
			   struct cachepin_verify *v, cachepin_verify_fn_t fn, void *ctx);

#endif
