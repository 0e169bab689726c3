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

/* A module as the running kernel loaded it. */
struct cachepin_loaded {
	char *name;		/* its file's name, "nf_conntrack.ko" */
	uint64_t base;		/* where its text starts */
	uint64_t size;		/* of its core allocation: text, then data */
};

/*
 * The modules a kernel had loaded, from a copy of its /proc/modules
 * ("NAME SIZE REFS DEPS STATE ADDRESS [TAINTS]" per line, read as root
 * with kernel.kptr_restrict 0), into *OUT (sorted by base; free with
 * cachepin_loaded__free()) and *N.  0, or a negative errno after a
 * message naming PATH and the line: not that format, an address of 0
 * (hidden from the reader), two modules overlapping, no module.
 */
int cachepin_loaded__read(const char *path, struct cachepin_loaded **out, size_t *n);

/* The module of LOADED[0..N) whose core holds ADDR, or NULL. */
const struct cachepin_loaded *cachepin_loaded__find(const struct cachepin_loaded *loaded, size_t n,
						    uint64_t addr);

void cachepin_loaded__free(struct cachepin_loaded *loaded, size_t n);

/* A stretch of traced addresses and where another build of its code has it. */
struct cachepin_remap {
	uint64_t lo, hi;	/* [lo, hi) as traced */
	int64_t delta;		/* new address - traced address */
};

/*
 * The modules of LOADED[0..N) remapped from their files in OLD (the
 * traced build) to those in NEW (another link of the same code), as a
 * relinked vmlinux is: every function of a module's text (init code
 * apart) that both files have once by name, the range it had where the
 * module was loaded and how far it moves there.  Into *OUT (sorted, to be
 * freed), *NR; *MISSING gets the functions of OLD that NEW lacks or has
 * more than once.  A module OLD lacks stays as traced.  0 or -ENOMEM.
 */
int cachepin_modules__remap(const struct cachepin_loaded *loaded, size_t n,
			    struct cachepin_modules *old, struct cachepin_modules *new,
			    struct cachepin_remap **out, size_t *nr, size_t *missing);

/* The range of REMAP[0..N) holding ADDR, or NULL. */
const struct cachepin_remap *cachepin_remap__find(const struct cachepin_remap *remap, size_t n,
						  uint64_t addr);

#endif
