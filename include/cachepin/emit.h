/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The outputs of a plan: a GNU ld linker-script fragment (to INCLUDE
 * inside an output section, or standalone with INSERT BEFORE .text), the
 * alignment file that cachepin check verifies (cachepin-plan(5)), an lld
 * --symbol-ordering-file and a GNU ld 2.43+ --section-ordering-file.
 */
#ifndef CACHEPIN_EMIT_H
#define CACHEPIN_EMIT_H

#include <stdio.h>
#include "cachepin/plan.h"

struct cachepin_emit_score {
	const char *cache;	/* geometry name */
	uint64_t fetches;
	uint64_t before, after;	/* misses of the CPU's replacement policy */
	const char *repl;
};

struct cachepin_emit_info {
	const char *version;
	char build_id[129];
	uint64_t profile_digest;
	const struct cachepin_emit_score *scores;
	size_t nr_scores;
	bool standalone;
	const char *head_object;	/* MIPS <= 6.12 entry object to keep first, or NULL */
};

/* The symbol that names unit U in the alignment file (its first function). */
const char *cachepin_emit__unit_symbol(const struct cachepin_binary *bin,
				       const struct cachepin_unit *u);

int cachepin_emit__ldscript(FILE *f, const struct cachepin_plan *plan,
			    const struct cachepin_binary *bin, const struct cachepin_emit_info *info);
int cachepin_emit__alignfile(FILE *f, const struct cachepin_plan *plan,
			     const struct cachepin_model *m, const struct cachepin_cache *c,
			     const struct cachepin_emit_info *info);
int cachepin_emit__lld_order(FILE *f, const struct cachepin_plan *plan,
			     const struct cachepin_binary *bin);
int cachepin_emit__section_order(FILE *f, const struct cachepin_plan *plan,
				 const struct cachepin_binary *bin);

/* ---- the alignment file, read back (cachepin check) ---- */

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
	struct cachepin_align_entry *e;
	size_t nr;
};

/* Read an alignment file; NULL with errno after logging "'F':LINE: ...". */
struct cachepin_align *cachepin_align__read(const char *path);
void cachepin_align__free(struct cachepin_align *a);

#endif
