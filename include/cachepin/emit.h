/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The outputs of a layout's block (a plan's): a GNU ld linker-script fragment (to INCLUDE
 * inside an output section, or standalone with INSERT BEFORE .text), an
 * lld --symbol-ordering-file and a GNU ld 2.43+ --section-ordering-file.
 * The alignment file that goes with them: cachepin/align.h.
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

/*
 * Each writes the block of layout L (a plan's, an edited link's; its
 * binary is L->bin) to F; 0, or -EIO when F failed, -ENOMEM, or -EINVAL
 * after a message for a path a linker script cannot spell (one with a
 * '"').
 */
int cachepin_emit__ldscript(FILE *f, const struct cachepin_layout *l,
			    const struct cachepin_emit_info *info);
int cachepin_emit__lld_order(FILE *f, const struct cachepin_layout *l);
int cachepin_emit__section_order(FILE *f, const struct cachepin_layout *l);

#endif
