/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Straight-line code of a function (flow.c): which of its granules end a
 * run of instructions that execute one after the other.
 */
#ifndef CACHEPIN_FLOW_H
#define CACHEPIN_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include "cachepin/binary.h"

/*
 * FN's view of an instruction after which a run stops: its first byte's
 * offset OFF and its LEN bytes; AFTER_SLOT: a MIPS branch, the run takes
 * its delay slot too.
 */
typedef void (*cachepin_flow_fn)(uint64_t off, uint32_t len, bool after_slot, void *arg);

struct cachepin_flow {
	const struct cachepin_binary *bin;
	int fd;			/* the binary, for its code */
	/* the instruction set's walker over CODE[0..SIZE) at VMA */
	void (*walk)(const struct cachepin_flow *fl, const uint8_t *code, uint64_t size,
		     uint64_t vma, cachepin_flow_fn fn, void *arg);
	int (*decode)(uint32_t word);	/* fixed width: enum flow_kind of one instruction */
	void *x86_print;		/* x86: libopcodes' disassembler, for bin's class */
	uint32_t align;			/* where an instruction may start (4, or 1 for x86) */
};

/* The decoder for BIN's instruction set: 0, -ENOTSUP (not decoded) or -errno. */
int cachepin_flow__open(struct cachepin_flow *fl, const struct cachepin_binary *bin);
void cachepin_flow__close(struct cachepin_flow *fl);

/* Whether FL decodes code of many instruction lengths (x86). */
static inline bool cachepin_flow__variable(const struct cachepin_flow *fl)
{
	return fl->align == 1;
}

/* Whether FL decodes its binary's code (open succeeded). */
static inline bool cachepin_flow__decodes(const struct cachepin_flow *fl)
{
	return fl->fd >= 0 && fl->walk;
}

/*
 * Call FN for every instruction in the first MAX bytes of F after which
 * its run stops.  Data in the code (literal pools, jump tables) is
 * decoded as instructions.  0, -ENOTSUP (Thumb, no code in the file),
 * -EIO or -ENOMEM.
 */
int cachepin_flow__walk(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint64_t max, cachepin_flow_fn fn, void *arg);

/*
 * ENDS[g] for every granule g (of GRAN bytes, NSLOT of them) of F: 0, or
 * if it holds an instruction after which its run stops (a branch, jump
 * or return; a MIPS branch's delay slot), one more than the offset in g
 * of the last such instruction's last byte (at most 255).  0, -ENOTSUP (Thumb, no code
 * in the file), -EIO or -ENOMEM.
 */
int cachepin_flow__ends(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint32_t gran, uint64_t nslot, uint8_t *ends);

#endif
