/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Objects and archives through libbfd (*.o, vmlinux.a, thin built-in.a):
 * their call/jump relocations as a static call graph, and the alignment
 * of their code sections (sh_addralign), which a link map does not give.
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

/* A code section of an object, as the link map names its input section. */
struct cachepin_objsec {
	char *object;		/* as caller_object above */
	char *section;		/* ".text.foo" */
	uint64_t align;		/* sh_addralign, at least 1; of several of one name: the largest */
	bool mixed;		/* several sections of this name with other alignments */
};

struct cachepin_objects {
	struct cachepin_cgedge *edges;	/* sorted by caller, callee */
	size_t nr_edges;
	struct cachepin_objsec *secs;	/* sorted by object, section; one per name */
	size_t nr_secs;
};

/*
 * Load the objects/archives PATHS[0..N).  Returns a new set, to be freed
 * with cachepin_objects__free(), or NULL with errno set after logging.
 */
struct cachepin_objects *cachepin_objects__load(const char *const *paths, size_t n);

void cachepin_objects__free(struct cachepin_objects *objs);

/* The code section SECTION of OBJECT in OBJS; NULL if none. */
const struct cachepin_objsec *cachepin_objects__section(const struct cachepin_objects *objs,
							const char *object, const char *section);

#endif
