/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the emitters (emit.c) and the alignment file writer (align.c) share. */
#ifndef CACHEPIN_EMIT_INT_H
#define CACHEPIN_EMIT_INT_H

#include <stdio.h>
#include "cachepin/emit.h"

/* The function that names a unit: the one at its start, else its first (NULL: none). */
const struct cachepin_func *emit_unit_func(const struct cachepin_binary *bin,
					   const struct cachepin_unit *u);

/* The header comment lines shared by the fragment and the alignment file, each led by LEAD. */
void emit_header(FILE *f, const struct cachepin_plan *plan, const struct cachepin_emit_info *info,
		 const char *lead);

#endif
