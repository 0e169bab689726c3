/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The binary whose layout is analysed: functions, the input sections a
 * linker script can move ("units"), and which of them are fixed.
 * Sources: the ELF (libelf) and a GNU ld link map.
 */
#ifndef CACHEPIN_BINARY_H
#define CACHEPIN_BINARY_H

#include "cachepin/cachepin.h"

enum cachepin_func_flags {
	CACHEPIN_FUNC_LOCAL	= (1 << 0),	/* STB_LOCAL */
	CACHEPIN_FUNC_WEAK	= (1 << 1),
	CACHEPIN_FUNC_THUMB	= (1 << 2),	/* ARM Thumb (bit 0 was set) */
	CACHEPIN_FUNC_DUPNAME	= (1 << 3),	/* another function has the same name */
	CACHEPIN_FUNC_NOSIZE	= (1 << 4),	/* st_size was 0: size runs to the next symbol */
	CACHEPIN_FUNC_SYNTHETIC	= (1 << 5),	/* no symbol: code the kernel writes there at run
						 * time (MIPS exception handlers at ebase) */
};

enum cachepin_unit_flags {
	CACHEPIN_UNIT_MOVABLE	= (1 << 0),	/* a linker script may place it */
	CACHEPIN_UNIT_FIXED	= (1 << 1),	/* must stay (kernel-bounded section, entry code, --fixed) */
	CACHEPIN_UNIT_WHOLE	= (1 << 2),	/* several functions in one section (asm .text): moves whole */
	CACHEPIN_UNIT_FROM_MAP	= (1 << 3),	/* described by the link map */
	CACHEPIN_UNIT_SYNTHETIC	= (1 << 4),	/* holds a synthetic function; always fixed, never
						 * in a linker script; survives a link map */
	CACHEPIN_UNIT_ALIGN_GUESS = (1 << 5),	/* align is the map's guess (the lowest set bit of
						 * its address, at most 64), not the object's */
};

struct cachepin_section {		/* an output (ELF) section */
	char *name;
	uint64_t addr, size, offset;
	uint64_t align;
	bool exec;
};

/* An input section as the linker saw it: the thing that moves. */
struct cachepin_unit {
	char *section;		/* input section name, ".text.foo" or ".text" */
	char *object;		/* object as the map names it ("kernel/sched/core.o",
				 * "lib.a(x.o)"), NULL if unknown */
	uint64_t addr, size;
	uint64_t align;		/* 0 if unknown */
	int outsec;		/* index into secs, -1 if unknown */
	unsigned int flags;	/* enum cachepin_unit_flags */
	const char *fixed_why;	/* reason when CACHEPIN_UNIT_FIXED */
	size_t first_func, nr_funcs;	/* its functions: funcs[first_func..] */
};

struct cachepin_func {
	char *name;
	uint64_t addr, size;
	int sec;		/* index into secs, -1 for synthetic functions */
	int unit;		/* index into units, -1 if none */
	unsigned int flags;	/* enum cachepin_func_flags */
};

struct cachepin_segment {	/* PT_LOAD, to turn file offsets into addresses */
	uint64_t vaddr, offset, filesz;
	bool exec;
};

struct cachepin_binary {
	char *path;
	int elf_class;		/* 32 or 64 */
	bool big_endian;
	uint16_t machine;	/* EM_* */
	const char *arch;	/* "arm", "mips", "x86_64", "aarch64", ... */
	bool relocatable;	/* ET_REL: addresses are laid out as ld would, from 0 */
	bool kmodule;		/* a Linux kernel module (.ko): laid out as the kernel
				 * loads it, its text from 0, init code apart */
	uint8_t build_id[64];
	size_t build_id_len;

	struct cachepin_section *secs;
	size_t nr_secs;
	struct cachepin_func *funcs;	/* sorted by address, no overlaps at equal addr */
	size_t nr_funcs;
	struct cachepin_unit *units;	/* sorted by address */
	size_t nr_units;
	struct cachepin_segment *segs;
	size_t nr_segs;
	uint64_t ebase;		/* 32-bit MIPS kernels: where the synthetic exception
				 * handlers are (cachepin_binary__set_ebase()); 0: none */

	void *priv;		/* name index and other private state */
};

/*
 * Open an ELF file (executable, vmlinux, shared object or relocatable
 * object; ELF32/64, either byte order).  Reads sections, functions from
 * .symtab (or .dynsym), segments and the build-id.  Units come from
 * output sections named ".text.*" (orphans) or, for relocatable objects,
 * from every executable section; a link map refines them.
 * Returns NULL with errno set after logging "'PATH': <problem>"
 * (EINVAL: not an ELF; ENOENT: no symbols, with a hint).
 */
struct cachepin_binary *cachepin_binary__open(const char *path);

/*
 * A binary from a symbol map alone (System.map, nm [-S] output): its
 * text symbols (T, t, W, w) as functions in one executable section,
 * sizes from nm -S or up to the next symbol, no code (no machine: the
 * model decodes nothing), no units.  For comparing a build that left
 * only its System.map.  NULL with errno after logging.
 */
struct cachepin_binary *cachepin_binary__open_symmap(const char *path);

/*
 * Take units from the GNU ld map PATH: every input section of every
 * executable output section, with its object and alignment.  Returns 0
 * or a negative errno after logging.
 */
int cachepin_binary__load_map(struct cachepin_binary *bin, const char *path);

struct cachepin_objects;

/*
 * The real alignment of the units the map guessed it for: their input
 * section's sh_addralign in OBJS (cachepin_objects__load() of the
 * objects of the link), found by object and section as the map names
 * them.  A unit whose section OBJS lacks, has several of with other
 * alignments, or has at an alignment its address in the link does not
 * keep (an object rebuilt since) keeps the guess.  Returns how many
 * units took the objects' alignment.
 */
size_t cachepin_binary__set_aligns(struct cachepin_binary *bin,
				   const struct cachepin_objects *objs);

/*
 * The exception base of a 32-bit MIPS kernel on cores before MIPS32 R2.
 * Linux 6.1 allocates the vectors of R2 and later cores (24K, 74K, 1004K)
 * at boot, aligned to 8 KiB (32 KiB with vectored interrupts), so this
 * default maps to the right sets of caches whose way span is at most that
 * alignment; see cachepin-score(1).
 */
#define CACHEPIN_MIPS_EBASE_DEFAULT 0x80000000ULL

/*
 * A 32-bit MIPS kernel (EM_MIPS, ELFCLASS32, defines start_kernel) copies
 * or generates its TLB refill handler, general exception vector and
 * interrupt vectors at the exception base at run time; the binary has no
 * symbol for them.  cachepin_binary__open() adds them as synthetic fixed
 * functions, each in a synthetic fixed unit ("exception handler at
 * ebase"), at CACHEPIN_MIPS_EBASE_DEFAULT:
 *
 *   [ebase.tlb_refill]  ebase + 0x000, 0x80 bytes
 *   [ebase.general]     ebase + 0x180, 0x80 bytes
 *   [ebase.interrupt]   ebase + 0x200, 0x800 bytes (the jump of a divec
 *                       CPU, or vectored interrupts 0-7, 0x100 apart)
 *
 * clipped where the binary's own executable sections begin.  This moves
 * them to EBASE (KSEG0 or KSEG1, 4 KiB aligned; the sign-extended form
 * 0xffffffff8XXXXXXX as nm prints it is taken).  Function and unit
 * indices change: call it before profiles or models are built on BIN.
 * Returns 0; 1 (nothing done) if BIN is not a 32-bit MIPS kernel;
 * -EINVAL after logging if EBASE is not an exception base or a handler
 * would start inside the binary's code; -ENOMEM.
 */
int cachepin_binary__set_ebase(struct cachepin_binary *bin, uint64_t ebase);

/* Mark the units matching the glob PATTERN ("name", "object:section") fixed. */
int cachepin_binary__fix(struct cachepin_binary *bin, const char *pattern, const char *why);

/*
 * The function that names unit U: the one at its start, else its first;
 * NULL for a unit without a function symbol (assembly fixup code).
 */
const struct cachepin_func *cachepin_binary__unit_func(const struct cachepin_binary *bin,
							const struct cachepin_unit *u);

/*
 * How far into U its naming function starts (0 without one): the
 * alignment file has the symbol's offset, and an assembly object's .text
 * can start with local code before its first function.
 */
uint64_t cachepin_binary__unit_symoff(const struct cachepin_binary *bin,
				      const struct cachepin_unit *u);

/* The function containing ADDR, or NULL. */
const struct cachepin_func *cachepin_binary__find_func(const struct cachepin_binary *bin,
							uint64_t addr);

/*
 * The function named NAME, qualified by OBJECT when not NULL (matched
 * against the unit's object, by suffix).  With several candidates and no
 * object, returns the first and sets *ambiguous if given.  NULL if none.
 */
const struct cachepin_func *cachepin_binary__lookup(const struct cachepin_binary *bin,
						     const char *name, const char *object,
						     bool *ambiguous);

/* Value of any symbol (not only functions), e.g. "_text".  0 found, 1 not. */
int cachepin_binary__sym_value(const struct cachepin_binary *bin, const char *name,
			       uint64_t *value);

/* Address of file offset OFF through the PT_LOAD segments.  0 found, 1 not. */
int cachepin_binary__off_to_addr(const struct cachepin_binary *bin, uint64_t off,
				 uint64_t *addr);

/* The unit of FUNC, or NULL. */
static inline const struct cachepin_unit *
cachepin_binary__func_unit(const struct cachepin_binary *bin, const struct cachepin_func *f)
{
	return f->unit >= 0 ? &bin->units[f->unit] : NULL;
}

/*
 * Is BIN a Linux kernel (does it define start_kernel, the C entry of
 * every kernel)?  Never fails.
 */
bool cachepin_binary__is_kernel(const struct cachepin_binary *bin);

/*
 * The names of the functions where a kernel switches tasks (ARM, arm64,
 * MIPS, x86-64): returns a static array (not to be freed) and its length
 * in *N.  Never fails.
 */
const char *const *cachepin_kernel__switchers(size_t *n);

/* Hex build-id into BUF (at least 129 bytes); "" if none. */
char *cachepin_binary__build_id_str(const struct cachepin_binary *bin, char *buf);

void cachepin_binary__free(struct cachepin_binary *bin);

#endif
