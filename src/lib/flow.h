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

/* What an instruction does to its run (cachepin_flow__walk()), or-ed. */
enum {
	CACHEPIN_FLOW_END = 1,	/* a jump, return or trap: the run stops */
	CACHEPIN_FLOW_COND = 2,	/* a conditional branch: it goes on when not taken */
	CACHEPIN_FLOW_SLOT = 4,	/* MIPS: after the delay slot */
};

struct cachepin_flow {
	const struct cachepin_binary *bin;
	int fd;			/* the binary, for its code */
	int (*decode)(uint32_t word);	/* CACHEPIN_FLOW_* of one instruction */
	bool x86;		/* variable length: decoded by libopcodes */
};

/* Whether FL decodes its binary's code (cachepin_flow__open() gave 0). */
static inline bool cachepin_flow__decoded(const struct cachepin_flow *fl)
{
	return fl->fd >= 0 && (fl->decode || fl->x86);
}

/*
 * The decoder for BIN's instruction set: 0, -ENOTSUP (not decoded) or
 * -errno.  cachepin_flow__close() releases it, also after an error.
 */
int cachepin_flow__open(struct cachepin_flow *fl, const struct cachepin_binary *bin);
void cachepin_flow__close(struct cachepin_flow *fl);

/*
 * Call FN for every instruction in the first MAX bytes of F that ends
 * or may end its run, with its offset and what it does
 * (CACHEPIN_FLOW_*): an unconditional jump or branch, a return or a trap
 * ends it; a conditional branch may; calls do not.  Data in the code
 * (literal pools, jump tables) is decoded as instructions; on x86 the
 * decoding stops at the first bytes that are none.  0, -ENOTSUP (Thumb,
 * no code in the file), -EIO or -ENOMEM.
 */
int cachepin_flow__walk(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint64_t max, void (*fn)(uint64_t off, unsigned int kind, void *arg),
			void *arg);

/*
 * ENDS[g] for every granule g (of GRAN bytes, NSLOT of them) of F: the
 * CACHEPIN_FLOW_END and CACHEPIN_FLOW_COND of the instructions it holds
 * (a MIPS branch counts in the granule of its delay slot).  0, -ENOTSUP
 * (Thumb, no code in the file), -EIO or -ENOMEM.
 */
int cachepin_flow__ends(const struct cachepin_flow *fl, const struct cachepin_func *f,
			uint32_t gran, uint64_t nslot, uint8_t *ends);

#endif
