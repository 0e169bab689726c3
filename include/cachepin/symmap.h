/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Symbol addresses from an ELF, a System.map or `nm [-S]` output (for check). */
#ifndef CACHEPIN_SYMMAP_H
#define CACHEPIN_SYMMAP_H

#include "cachepin/cachepin.h"

struct cachepin_symmap;

/*
 * Read PATH: an ELF file (all its symbols) or text lines "ADDR [SIZE] TYPE
 * NAME" as System.map and nm write.  NULL with errno after logging.
 */
struct cachepin_symmap *cachepin_symmap__open(const char *path);

/* Address of NAME: 0 found, 1 not found, 2 ambiguous (several addresses). */
int cachepin_symmap__lookup(const struct cachepin_symmap *sm, const char *name, uint64_t *addr);

/*
 * Every address of NAME (several for static functions that share a name):
 * the number of addresses, *ADDRS valid until the map is freed; 0 if
 * not found.
 */
size_t cachepin_symmap__lookup_all(const struct cachepin_symmap *sm, const char *name,
				   const uint64_t **addrs);

void cachepin_symmap__free(struct cachepin_symmap *sm);

#endif
