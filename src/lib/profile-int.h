/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by pbuild.c, profile.c and profile-text.c: how the builder and
 * the reader fill a struct cachepin_profile.
 */
#ifndef CACHEPIN_PROFILE_INT_H
#define CACHEPIN_PROFILE_INT_H

#include <string.h>
#include "cachepin/profile.h"

/*
 * Append a function NAME of OBJECT (NULL if the name is unique) with all
 * its numbers 0; both strings are copied.  Returns it (valid until the
 * next append), or NULL when out of memory (P is unchanged then).
 */
struct cachepin_pfunc *cachepin_profile_add_func(struct cachepin_profile *p, const char *name,
						 const char *object);

/*
 * Append a granule at OFF of weight W to F, with its weight in each of
 * NS time slices from SLICE (NULL: 0 in each).  NS is the profile's
 * nr_slices (0: none).  Returns 0 or -ENOMEM.
 */
int cachepin_pfunc_add_gran(struct cachepin_pfunc *f, uint32_t off, double w,
			    const double *slice, uint32_t ns);

/* Append an edge between the indices CALLER and CALLEE.  Returns 0 or -ENOMEM. */
int cachepin_profile_add_edge(struct cachepin_profile *p, uint32_t caller, uint32_t callee,
			      uint32_t callsite, double w, unsigned int flags);

/*
 * Put P in its order: functions by weight, heaviest first, then name and
 * object; edges renumbered, by caller, callee, callsite.  Returns 0 or
 * -ENOMEM (P is unchanged then).
 */
int cachepin_profile_sort(struct cachepin_profile *p);

/* ---- occupant.c: code outside the binary ---- */

struct cachepin_modules;

/*
 * Add the shared libraries' and modules' hot pages of P ("[NAME+0xPAGE]"
 * functions of its objects), and its modules' functions ("f NAME
 * MODULE.ko") at their offsets in MODS's file of the module, that BIN
 * lacks to BIN as fixed synthetic functions; the indices of BIN's
 * functions and units do not change.  *NR_ADDED gets how many, and
 * *NR_UNPLACED how many module functions were not (MODS NULL or without
 * the module, or the function not in its file).  Returns 0 or -ENOMEM.
 */
int cachepin_occupants__add(struct cachepin_binary *bin, const struct cachepin_profile *p,
			    struct cachepin_modules *mods, size_t *nr_added, size_t *nr_unplaced);

/* Whether OBJECT (a function's, a unit's; may be NULL) is a kernel module's file, "NAME.ko". */
static inline bool cachepin_object_is_module(const char *object)
{
	size_t n = object ? strlen(object) : 0;

	return n > 3 && !strcmp(object + n - 3, ".ko");
}

/* Whether PF is a kernel module's function: its object a module's file, "NAME.ko". */
static inline bool cachepin_pfunc_in_module(const struct cachepin_pfunc *pf)
{
	return cachepin_object_is_module(pf->object);
}

/*
 * Every module function of P as K copies, one per page of a way span
 * its module may load on (K = the largest way span / 4096): the first
 * where the recording had it, the others "NAME@pageA" A pages on (A = 1
 * to K - 1), each with a K-th of the weight, its granules' and slices'
 * too.  A module loaded again may be on any of them; a plan made on the
 * copies keeps the kernel's lines clear of all of them alike.  K <= 1
 * changes nothing.  0 or -ENOMEM.
 */
int cachepin_occupants__spread(struct cachepin_profile *p, unsigned int k);

/* The length of NAME without its "@pageA" (cachepin_occupants__spread()), and A into *PAGE. */
size_t cachepin_occupants__base_name(const char *name, unsigned int *page);

/* NAME's copy A pages on, "NAME@pageA", into BUF of SIZE.  Returns BUF. */
char *cachepin_occupants__page_name(char *buf, size_t size, const char *name, unsigned int a);

/* Whether NAME is a page of a shared library of P ("[NAME+0xPAGE]" of an 'o' line). */
bool cachepin_occupants__is_page(const struct cachepin_profile *p, const char *name);

/* Say what share of P's samples (read from PATH) other objects took, and what is held fixed. */
void cachepin_occupants__report(const struct cachepin_profile *p, const char *path,
				const struct cachepin_binary *bin);

#endif
