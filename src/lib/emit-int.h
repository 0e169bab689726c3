/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the emitters (emit.c) and the alignment file writer (align.c) share. */
#ifndef CACHEPIN_EMIT_INT_H
#define CACHEPIN_EMIT_INT_H

#include <stdio.h>
#include "cachepin/emit.h"

/* The function that names a unit: the one at its start, else its first (NULL: none). */
const struct cachepin_func *emit_unit_func(const struct cachepin_binary *bin,
					   const struct cachepin_unit *u);

/*
 * How far into U its naming function starts (0 without one): the
 * alignment file has the symbol's offset, and an assembly object's
 * .text can start with local code before its first function.
 */
static inline uint64_t emit_unit_symoff(const struct cachepin_binary *bin,
					const struct cachepin_unit *u)
{
	const struct cachepin_func *fn = emit_unit_func(bin, u);

	return fn ? fn->addr - u->addr : 0;
}

/* The header comment lines shared by the fragment and the alignment file, each led by LEAD. */
void emit_header(FILE *f, const struct cachepin_plan *plan, const struct cachepin_emit_info *info,
		 const char *lead);

#endif
