/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between elf.c and linkmap.c (the two halves of struct cachepin_binary). */
#ifndef CACHEPIN_BINARY_INT_H
#define CACHEPIN_BINARY_INT_H

#include "cachepin/binary.h"

/*
 * Replace the units of BIN by UNITS[0..N) (taken over, also on error):
 * sorts them by address, sets fixed/whole flags and links the functions.
 */
int cachepin_binary_set_units(struct cachepin_binary *bin, struct cachepin_unit *units,
			      size_t n);

/* Index into bin->secs of the section named NAME, or -1. */
int cachepin_binary_sec_by_name(const struct cachepin_binary *bin, const char *name);

/* A function the binary has no symbol for (code the kernel writes at run time). */
struct cachepin_synth {
	const char *name;
	uint64_t addr, size;
};

/*
 * Replace the synthetic functions of BIN, and their units, by SYN[0..N):
 * each gets a fixed unit of its own, fixed for WHY (a string that outlives
 * BIN).  Function and unit indices change.  Returns 0 or -ENOMEM (BIN is
 * unchanged when the copies fail).
 */
int cachepin_binary_set_synthetic(struct cachepin_binary *bin, const struct cachepin_synth *syn,
				  size_t n, const char *why);

/*
 * Add the exception handlers of a 32-bit MIPS kernel at the default
 * exception base, skipping those the binary's own code covers (ebase.c).
 * Returns 0 (also when BIN is no such kernel) or -ENOMEM.
 */
int cachepin_binary_ebase_init(struct cachepin_binary *bin);

#endif
