/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Address to source line and inlined function, through libdwarf. */
#ifndef CACHEPIN_SRCLINE_H
#define CACHEPIN_SRCLINE_H

#include "cachepin/cachepin.h"

struct cachepin_srcline;

/*
 * Open the DWARF of PATH.  Returns NULL with errno = ENODATA if it has no
 * debug information (not an error for callers), other errno on failure.
 */
struct cachepin_srcline *cachepin_srcline__open(const char *path);

/*
 * Source of ADDR: *file (the name its line table records, without the
 * directory the table gives it), *line, and *inlined,
 * the innermost inlined function at ADDR or NULL.  Strings belong to SL.
 * Returns 0 if found, 1 if not, negative errno on error.
 */
int cachepin_srcline__lookup(struct cachepin_srcline *sl, uint64_t addr,
			     const char **file, unsigned int *line, const char **inlined);

void cachepin_srcline__free(struct cachepin_srcline *sl);

#endif
