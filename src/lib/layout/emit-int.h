/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the emitters (emit.c) and the alignment file writer (align.c) share. */
#ifndef CACHEPIN_EMIT_INT_H
#define CACHEPIN_EMIT_INT_H

#include <stdio.h>
#include "cachepin/emit.h"

void emit_header(FILE *f, const struct cachepin_layout *l, const struct cachepin_emit_info *info,
		 const char *lead);

#endif
