/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Objects and archives through libbfd (*.o, vmlinux.a, thin built-in.a):
 * their call/jump relocations as a static call graph.
 */
#ifndef CACHEPIN_OBJECTS_H
#define CACHEPIN_OBJECTS_H

#include "cachepin/cachepin.h"

struct cachepin_cgedge {
	char *caller;		/* function containing the relocation */
	char *caller_object;	/* "dir/x.o", or "lib.a(x.o)" for archive members
				 * (thin archive members: their path, as ld's map names them) */
	char *callee;		/* target symbol name */
	uint32_t count;		/* relocations from caller to callee */
	bool tail;		/* a jump (R_ARM_JUMP24, ...), not a call */
};

struct cachepin_objects {
	struct cachepin_cgedge *edges;	/* sorted by caller, callee */
	size_t nr_edges;
};

/*
 * Load the objects/archives PATHS[0..N).  Returns a new set, to be freed
 * with cachepin_objects__free(), or NULL with errno set after logging.
 */
struct cachepin_objects *cachepin_objects__load(const char *const *paths, size_t n);

void cachepin_objects__free(struct cachepin_objects *objs);

#endif
