/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private interface of struct cachepin_binary: the object model
 * (binary.c) and its readers (elf.c, linkmap.c, ebase.c), and the ELF
 * symbol table walker of elf.c for symmap.c.
 */
#ifndef CACHEPIN_BINARY_INT_H
#define CACHEPIN_BINARY_INT_H

#include "cachepin/binary.h"

/* ---- binary.c: filling the model ---- */

/* A binary for PATH with nothing in it yet, or NULL (out of memory). */
struct cachepin_binary *cachepin_binary_new(const char *path);

/*
 * The value of the symbol NAME, for cachepin_binary__sym_value(): the
 * first one given, unless a GLOBAL one follows local ones.  0 or -ENOMEM.
 */
int cachepin_binary_add_value(struct cachepin_binary *bin, const char *name, uint64_t value,
			      bool global);

/* A symbol of the binary, where the model has it. */
struct cachepin_sym {
	const char *name;	/* valid until cachepin_binary_end_syms() */
	uint64_t addr, size;	/* addr in the binary's layout, bit 0 of Thumb code cleared */
	int sec;		/* index into bin->secs, -1 if none */
	uint8_t type, bind;	/* STT_*, STB_* */
	bool thumb;		/* ARM Thumb code (bit 0 was set) */
};

/*
 * Take SYM: its value (unless it is a mapping symbol), and, if it may be a
 * function (binary.c's rules), a candidate for one.  0 or -ENOMEM.
 */
int cachepin_binary_add_sym(struct cachepin_binary *bin, const struct cachepin_sym *sym);

/*
 * After the last cachepin_binary_add_sym(): the candidates become
 * bin->funcs (one per address, sizes filled in, names indexed).
 * 0 or -ENOMEM.
 */
int cachepin_binary_end_syms(struct cachepin_binary *bin);

/*
 * The units before any link map: the executable output sections named
 * ".text.*" (orphans), or every executable section of a relocatable
 * object.  0 or -ENOMEM.
 */
int cachepin_binary_initial_units(struct cachepin_binary *bin);

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
	const char *object;	/* its unit's object (a module's "NAME.ko"), or NULL */
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
 * Append SYN[0..N) to BIN as synthetic functions with fixed units of their
 * own (fixed for WHY, a string that outlives BIN): SYN sorted by address,
 * every one at or past cachepin_binary_end(BIN).  The indices of the
 * functions and units before them do not change.  Returns 0 or -ENOMEM
 * (BIN may then hold some of them, its name index incomplete).
 */
int cachepin_binary_add_occupants(struct cachepin_binary *bin, const struct cachepin_synth *syn,
				  size_t n, const char *why);

/* The end of the highest section, function or unit of BIN. */
uint64_t cachepin_binary_end(const struct cachepin_binary *bin);

/* ---- ebase.c ---- */

/*
 * Add the exception handlers of a 32-bit MIPS kernel at the default
 * exception base, skipping those the binary's own code covers.
 * Returns 0 (also when BIN is no such kernel) or -ENOMEM.
 */
int cachepin_binary_ebase_init(struct cachepin_binary *bin);

/* ---- elf.c: the symbol table walker ---- */

/* A symbol of an ELF symbol table, as written. */
struct cachepin_elf_sym {
	const char *name;	/* never NULL nor "" */
	uint64_t value, size;	/* st_value, st_size */
	size_t shndx;		/* its section's index (SHN_XINDEX resolved) */
	uint16_t st_shndx;	/* as written: SHN_ABS, SHN_COMMON, ... (never SHN_UNDEF) */
	uint16_t machine;	/* the file's EM_* */
	uint8_t type, bind;	/* STT_* (never STT_SECTION or STT_FILE), STB_* */
};

/*
 * Call FN(sym, ARG) for every symbol of the ELF file PATH, open on FD,
 * that is defined, named and neither a section nor a file symbol: those
 * of .symtab, or with DYNSYM of .dynsym when there is no .symtab.
 * Returns 0, FN's first non-zero result (which ends the walk), -EINVAL
 * after logging if PATH is no ELF file, -ENOENT if it has no symbol table
 * and -ENODATA if that is unreadable (not logged).
 */
int cachepin_elf_for_each_symbol(const char *path, int fd, bool dynsym,
				 int (*fn)(const struct cachepin_elf_sym *sym, void *arg),
				 void *arg);

#endif
