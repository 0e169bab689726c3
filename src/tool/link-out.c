// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The linker outputs of a layout (plan, whatif): one table of what each
 * is and which emitter writes it, staged together so that a fragment
 * never goes out with another layout's alignment file.
 */
#include <errno.h>
#include "cachepin/align.h"
#include "cachepin/emit.h"
#include "tool.h"

/* The emitters' -EINVAL follows their message. */
static int said(int err)
{
	return err == -EINVAL ? TOOL_SAID : err;
}

static int write_align(FILE *f, void *ctx)
{
	const struct tool_link_layout *l = ctx;

	return cachepin_align__write(f, l->plan, l->m, l->c, l->info);
}

static int write_lld(FILE *f, void *ctx)
{
	const struct tool_link_layout *l = ctx;

	return cachepin_emit__lld_order(f, l->plan, l->m->bin);
}

static int write_secorder(FILE *f, void *ctx)
{
	const struct tool_link_layout *l = ctx;

	return said(cachepin_emit__section_order(f, l->plan, l->m->bin));
}

static int write_fragment(FILE *f, void *ctx)
{
	const struct tool_link_layout *l = ctx;

	return said(cachepin_emit__ldscript(f, l->plan, l->m->bin, l->info));
}

int tool_link_outputs_add(struct tool_outputs *os, const struct tool_link_outputs *lo,
			  const struct tool_link_layout *l)
{
	/* in the order they are staged: the fragment last, as plan always did */
	const struct {
		const char *path;
		int (*write)(FILE *f, void *ctx);
	} outs[] = {
		{ lo->align, write_align },
		{ lo->lld, write_lld },
		{ lo->secorder, write_secorder },
		{ lo->fragment, write_fragment },
	};
	size_t i;

	for (i = 0; i < ARRAY_LEN(outs); i++)
		if (outs[i].path && tool_outputs_add(os, outs[i].path, outs[i].write, (void *)l))
			return 1;
	return 0;
}
