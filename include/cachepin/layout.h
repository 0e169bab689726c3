/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Another layout of a binary's code, without linking it: where every
 * unit and function of the binary would be in a relink with a plan
 * (its alignment file), or where they are in a relink that exists.
 * It is what every scorer takes: cachepin score, diff and whatif score
 * a model on it, cachepin check the plan as planned, and cachepin
 * simulate remaps a trace with it (an address of the traced binary goes
 * to its function and offset, then to that function's address in the
 * layout).  A plan holds one (its block of units at planned offsets),
 * and its alignment file, a relink, an edited link and another build's
 * symbols each give one.  The emitters (cachepin/emit.h) write a
 * layout's block, and the alignment file (cachepin/align.h) is its
 * serialisation.
 */
#ifndef CACHEPIN_LAYOUT_H
#define CACHEPIN_LAYOUT_H

#include "cachepin/binary.h"

struct cachepin_align;

/* A unit of a layout's block, at its offset from the block start. */
struct cachepin_layout_unit {
	uint32_t unit;		/* index into bin->units */
	uint64_t off;		/* offset from the block start */
	uint64_t size, align;
	bool hot;		/* placed for its hot lines (else: cold fill) */
	double weight;		/* profile weight of its functions */
	uint32_t hot_lines;	/* distinct hot lines (primary cache) */
};

struct cachepin_layout {
	const struct cachepin_binary *bin;	/* the binary laid out again */
	int64_t *delta;		/* per function of BIN: new address - address */
	bool *known;		/* per function: DELTA holds (else it stays where it is) */
	size_t nr_known;	/* functions with a known place */
	/*
	 * The block: where it starts (a plan's: the start assumed for
	 * scoring, aligned) and its size, and for a layout the emitters
	 * write (a plan's, an edited link's) its units in block order,
	 * which the fragment, the ordering files and the alignment file
	 * (its serialisation, cachepin-plan(5)) spell out.
	 */
	uint64_t block_start, block_size;
	struct cachepin_layout_unit *units;
	size_t nr_units, nr_hot, nr_fill;
	uint64_t block_align;	/* the block starts at a multiple of this */
	/*
	 * Kernels: the text after TEXT_TEXT, [tail_from, tail_to), starts on
	 * the block alignment in a relink with the block (the hook ends
	 * TEXT_TEXT there), so it moves by tail_shift bytes; 0: nothing moves.
	 */
	uint64_t tail_from, tail_to, tail_shift;
	uint64_t pad;		/* bytes of padding in the block */
	uint64_t pad_growth;	/* of them, kept free for growth */
	/*
	 * The growth any one unit may take without moving a hot one (a
	 * plan's opts.growth, or less where the hot units fit the smallest
	 * cache packed and would not with that much room).
	 */
	uint64_t growth;
	/*
	 * Nothing moves: no units; the fragment names nothing and has no
	 * ALIGN, so a relink with it is the link.
	 */
	bool unchanged;
};

/* Is A (an address of L's binary) in the kernel text after TEXT_TEXT that L's block moves? */
static inline bool cachepin_layout__in_tail(const struct cachepin_layout *l, uint64_t a)
{
	return a >= l->tail_from && a < l->tail_to;
}

/* Where the code at A outside L's block is in a relink with it (the kernel's tail moves). */
static inline uint64_t cachepin_layout__tail_addr(const struct cachepin_layout *l, uint64_t a)
{
	return cachepin_layout__in_tail(l, a) ? a + l->tail_shift : a;
}

/*
 * Where every function of BIN goes with L's block (L->bin = BIN): each
 * function of a unit of the block at the block start plus the unit's
 * offset, a kernel's text after TEXT_TEXT moved by tail_shift, the rest
 * where BIN has it; into L's DELTA and KNOWN.  0 or -ENOMEM.
 */
int cachepin_layout__place(struct cachepin_layout *l, const struct cachepin_binary *bin);

/*
 * The layout a link of BIN with the plan AL (read from AL_PATH, named in
 * messages) gives, as GNU ld lays it out: the block of the plan's units
 * at the first multiple of its alignment where the binary's main text
 * (the first ".text" or ".text.*" input section of the plan's output
 * section) begins, each unit at its offset; then the rest of that
 * section's units in the binary's order, each at its alignment, a
 * kernel's text after TEXT_TEXT (the plan's 'tail') from the next
 * multiple of the block alignment, as the hook ends TEXT_TEXT; later
 * executable sections moved by what the section grew, at their
 * alignment.  Units before the block stay.  BIN needs its link map (the
 * units' alignment).  Returns 0, or a negative errno after logging
 * "'AL_PATH': ..." (-ENOENT: a unit of the plan is not in BIN, with a
 * hint), with L released.
 */
int cachepin_layout__from_align(struct cachepin_layout *l, const struct cachepin_binary *bin,
				const struct cachepin_align *al, const char *al_path);

/*
 * The layout of NEW, a relink of BIN: each function of BIN whose name
 * BIN and NEW hold once each, with the same size, at its address in NEW;
 * the others stay.  Returns 0 or -ENOMEM.
 */
int cachepin_layout__from_relink(struct cachepin_layout *l, const struct cachepin_binary *bin,
				 const struct cachepin_binary *new);

/*
 * The plan AL's sets on BIN as it is linked: every unit of AL that BIN
 * holds (by symbol and object, or by symbol alone where the object is
 * named otherwise) at START (the block start) plus its planned offset, whatever
 * its size now, the rest where BIN has it.  Where a unit grew past its
 * room the units overlap: no link gives this, but its lines are in the
 * sets the plan chose for them (cachepin check --profile scores it as
 * "as planned").  0 or -ENOMEM.
 */
int cachepin_layout__pin_align(struct cachepin_layout *l, const struct cachepin_binary *bin,
			       const struct cachepin_align *al, uint64_t start);

/* ---- an editable link ---- */

/*
 * The units of BIN's executable output sections in link order, each with
 * its size, alignment, the padding before it and, if it must start at a
 * given address (a linker script's ". = ADDR"), that address; laid out
 * again as GNU ld lays out input sections: each at the next multiple of
 * its alignment after the padding, later output sections moved by what
 * earlier ones grew.  As read from the binary the padding is each unit's
 * gap to the one before it beyond its alignment (a script's ALIGN(),
 * linker stubs), so that laying it out unchanged gives the link.
 */
struct cachepin_relink {
	const struct cachepin_binary *bin;
	uint32_t *order;	/* unit indices, link order (executable sections only) */
	size_t nr;
	uint64_t *size, *align, *pad, *at;	/* per unit of BIN; at 0: anywhere */
	uint64_t *addr;		/* per unit: where cachepin_relink__lay() put it */
	int *sec;		/* per unit: the output section it is laid in (an orphan
				 * ".text.foo" pulled into a script's .text leaves its own) */
	uint32_t *secs;		/* executable output sections by address */
	size_t nr_secs;
	uint64_t block_start, block_size, block_align;	/* from a plan: its block */
};

/* The link of BIN as it is.  0, or -ENOMEM after logging (R released). */
int cachepin_relink__init(struct cachepin_relink *r, const struct cachepin_binary *bin);

/*
 * The link a plan's alignment file AL (read from PATH) gives, as
 * cachepin_layout__from_align() describes it, not laid out yet.  0 or a
 * negative errno after logging (R released).
 */
int cachepin_relink__from_align(struct cachepin_relink *r, const struct cachepin_binary *bin,
				const struct cachepin_align *al, const char *path);

/*
 * Lay R out into R->addr.  Returns 0, -ERANGE when a unit's AT is below
 * the end of what comes before it (*CULPRIT: that unit), or -ENOMEM
 * after logging (*CULPRIT UINT32_MAX).
 */
int cachepin_relink__lay(struct cachepin_relink *r, uint32_t *culprit);

/*
 * Is unit U an orphan: an input section ld put in an output section of
 * its own name (".text.foo" with no script rule for it), which a script
 * rule, such as a plan's fragment, can pull into another?
 */
bool cachepin_relink__orphan(const struct cachepin_relink *r, uint32_t u);

/* Move unit U in the order to just before (AFTER false) or after unit REF. */
void cachepin_relink__move(struct cachepin_relink *r, uint32_t u, uint32_t ref, bool after);

/* The layout R gives (after cachepin_relink__lay()).  0 or -ENOMEM. */
int cachepin_relink__layout(const struct cachepin_relink *r, struct cachepin_layout *l);

/*
 * R (laid out) as the block the emitters write, into L's block (L->bin
 * becomes R's binary; its DELTA, if any, stays): every unit from the
 * start of the main text of the output section that changed to the last
 * unit that moved or changed size, each at its offset, hot where model M
 * has weight; the block aligned as far as its start address is, up to
 * MAX_ALIGN (the largest way span) or, for R from a plan, the plan's
 * block alignment if that is more.  L->unchanged when nothing moved.
 * 0 or -ENOMEM.
 */
struct cachepin_model;
int cachepin_relink__block(const struct cachepin_relink *r, const struct cachepin_model *m,
			   uint64_t max_align, struct cachepin_layout *l);

void cachepin_relink__release(struct cachepin_relink *r);

struct cachepin_symmap;
/*
 * The layout a symbol map SM (System.map, nm output, or an ELF's
 * symbols) of another build of BIN gives: each function of BIN whose
 * name BIN and SM hold once each at SM's address; the others stay (how
 * many: *MISSING).  Returns 0 or -ENOMEM.
 */
int cachepin_layout__from_symmap(struct cachepin_layout *l, const struct cachepin_binary *bin,
				 const struct cachepin_symmap *sm, size_t *missing);

/*
 * Where the byte at ADDR of BIN is in L: ADDR plus the returned delta;
 * *KNOWN (may be NULL) false when ADDR is outside the functions whose
 * place L knows (delta 0).  *HINT (may be NULL) caches the last
 * function looked up: start it NULL.
 */
int64_t cachepin_layout__delta(const struct cachepin_layout *l, uint64_t addr, bool *known,
			       const struct cachepin_func **hint);

/* The address of function F of BIN in L; L NULL: BIN as linked. */
static inline uint64_t cachepin_layout__addr(const struct cachepin_layout *l,
					     const struct cachepin_binary *bin, size_t f)
{
	return bin->funcs[f].addr + (l ? (uint64_t)l->delta[f] : 0);
}

void cachepin_layout__release(struct cachepin_layout *l);

#endif
