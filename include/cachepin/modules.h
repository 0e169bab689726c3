/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A kernel's modules (*.ko) as binaries: found by name under a directory
 * (a kernel build tree, or /lib/modules/VERSION), each opened when first
 * asked for, its text laid out as Linux loads it (see
 * cachepin_binary.kmodule).
 */
#ifndef CACHEPIN_MODULES_H
#define CACHEPIN_MODULES_H

#include "cachepin/binary.h"

struct cachepin_modules;

/*
 * The modules under DIR, searched recursively (symbolic links not
 * followed), by file name: "nf_conntrack.ko"; '-' and '_' are one, as
 * they are to the kernel.  Of two files of one name, the first path in
 * byte order.  Returns a new set, to be freed with
 * cachepin_modules__free(), or NULL with errno set after logging (DIR
 * unreadable; ENOENT: no .ko under it).
 */
struct cachepin_modules *cachepin_modules__open(const char *dir);

/*
 * The module NAME ("nf_conntrack.ko", or "[nf_conntrack]", perf's name,
 * or a path to one, compressed or not), opened on the first call; NULL
 * if MODS has no file of that name or it is not a module (said once).
 */
const struct cachepin_binary *cachepin_modules__get(struct cachepin_modules *mods,
						    const char *name);

/*
 * NAME, a module's dso or file name as above, as the module's file name
 * ("nf_conntrack.ko", '-' as '_') into BUF of SIZE.  Returns BUF.
 */
char *cachepin_modules__name(const char *name, char *buf, size_t size);

/* The directory MODS searches. */
const char *cachepin_modules__dir(const struct cachepin_modules *mods);

void cachepin_modules__free(struct cachepin_modules *mods);

#endif
