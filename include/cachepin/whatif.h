/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Edits of a layout for what-if analysis (cachepin whatif): each names
 * a function (its unit moves with it) and changes the editable link of
 * cachepin/layout.h as a commit or a linker script would.
 *
 *   move FUNC ADDR|+N|-N   start FUNC's unit at ADDR (or N bytes from where it is)
 *   after FUNC OTHER       place FUNC's unit right after OTHER's
 *   swap FUNC OTHER        exchange the two units' places in the link order
 *   align FUNC N           align FUNC's unit to N bytes (a power of two)
 *   grow FUNC N            FUNC's unit N bytes longer (its code after it moves)
 *   shrink FUNC N          N bytes shorter
 *   pad FUNC N             N bytes of padding before FUNC's unit
 *   pin FUNC               FUNC's unit stays at its address whatever moves before it
 *
 * FUNC is a function name, or OBJECT:NAME when the name is not unique.
 */
#ifndef CACHEPIN_WHATIF_H
#define CACHEPIN_WHATIF_H

#include "cachepin/layout.h"

enum cachepin_edit_kind {
	CACHEPIN_EDIT_MOVE,
	CACHEPIN_EDIT_AFTER,
	CACHEPIN_EDIT_SWAP,
	CACHEPIN_EDIT_ALIGN,
	CACHEPIN_EDIT_GROW,
	CACHEPIN_EDIT_SHRINK,
	CACHEPIN_EDIT_PAD,
	CACHEPIN_EDIT_PIN,
};

struct cachepin_edit {
	enum cachepin_edit_kind kind;
	char *text;		/* the edit as written */
	char *where;		/* "argument 3", "FILE:LINE": for messages */
	char *func, *other;
	uint64_t n;		/* bytes, alignment or address */
	bool relative;		/* move by +-N */
	bool backwards;		/* move by -N */
};

/*
 * Parse TEXT (one edit) into E, WHERE naming it in messages.  Returns 0,
 * or -EINVAL after logging "WHERE: bad edit 'TEXT': <why>" with a hint,
 * or -ENOMEM.
 */
int cachepin_edit__parse(struct cachepin_edit *e, const char *text, const char *where);

void cachepin_edit__release(struct cachepin_edit *e);

/*
 * The edits of the file PATH, one a line ('#' starts a comment; blank
 * lines are skipped), each parsed as cachepin_edit__parse() does with
 * "'PATH':LINE" for WHERE, appended to *EDITS (*NR of them, *CAP its
 * room; the caller releases each and frees the array, also on error).
 * Binary data (a NUL byte) or a line longer than a text line may be is
 * an error.  Returns 0, or a negative errno after a message.
 */
int cachepin_edit__read(const char *path, struct cachepin_edit **edits, size_t *nr, size_t *cap);

/*
 * Apply the N edits E to R in order and lay R out.  Returns 0, or
 * -EINVAL after logging "WHERE: EDIT: <why>" (an unknown or ambiguous
 * function, fixed code, a unit of another output section, an address
 * inside fixed code or outside the code, overlapping moves); R is then
 * in an unknown state.
 */
int cachepin_edit__apply(struct cachepin_relink *r, const struct cachepin_edit *e, size_t n);

#endif
