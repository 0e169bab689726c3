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
	const struct tool_link_layout *o = ctx;

	return cachepin_align__write(f, o->layout, o->m, o->c, o->info);
}

static int write_lld(FILE *f, void *ctx)
{
	const struct tool_link_layout *o = ctx;

	return cachepin_emit__lld_order(f, o->layout);
}

static int write_secorder(FILE *f, void *ctx)
{
	const struct tool_link_layout *o = ctx;

	return said(cachepin_emit__section_order(f, o->layout));
}

static int write_fragment(FILE *f, void *ctx)
{
	const struct tool_link_layout *o = ctx;

	return said(cachepin_emit__ldscript(f, o->layout, o->info));
}

/*
 * The outputs, a row each (enum tool_link_out).  An output's option
 * (tool_link_out_opts) has the id OPT_OUT + its row.
 */
enum { OPT_OUT = 4001, OPT_STANDALONE = OPT_OUT + TOOL_LINK_NR_OUTPUTS };

static int (*const link_write[TOOL_LINK_NR_OUTPUTS])(FILE *f, void *ctx) = {
	[TOOL_OUT_ALIGN] = write_align,
	[TOOL_OUT_LLD] = write_lld,
	[TOOL_OUT_SECORDER] = write_secorder,
	[TOOL_OUT_FRAGMENT] = write_fragment,
};

const struct tool_opt tool_link_out_opts[] = {
	{ "output", 'o', "FILE", "write the layout as a linker-script fragment to FILE", OPT_OUT + TOOL_OUT_FRAGMENT },
	{ "align-file", 'a', "FILE", "write the alignment file (default: the fragment's name with .align)", OPT_OUT + TOOL_OUT_ALIGN },
	{ "lld-order", 0, "FILE", "also write an lld --symbol-ordering-file", OPT_OUT + TOOL_OUT_LLD },
	{ "section-order", 0, "FILE", "also write a GNU ld 2.43+ --section-ordering-file", OPT_OUT + TOOL_OUT_SECORDER },
	{ "standalone", 0, NULL, "emit a complete script to add with -T: the block starts .text (INSERT BEFORE .text)", OPT_STANDALONE },
	{ NULL }
};

int tool_link_out_opt(int id, const char *arg, struct tool_link_outputs *lo)
{
	if (id >= OPT_OUT && id < OPT_OUT + TOOL_LINK_NR_OUTPUTS) {
		lo->path[id - OPT_OUT] = arg;
		return 0;
	}
	if (id == OPT_STANDALONE) {
		lo->standalone = true;
		return 0;
	}
	return -1;	/* not ours */
}

size_t tool_link_outputs_paths(const struct tool_link_outputs *lo, const char **paths)
{
	const size_t nr = TOOL_LINK_NR_OUTPUTS;
	size_t k, n = 0;

	/* the fragment, staged last, first; then the others as staged */
	for (k = 0; k < nr; k++) {
		const char *path = lo->path[(k + TOOL_OUT_FRAGMENT) % nr];

		if (path)
			paths[n++] = path;
	}
	return n;
}

int tool_link_outputs_add(struct tool_outputs *os, const struct tool_link_outputs *lo,
			  const struct tool_link_layout *l)
{
	size_t i;

	for (i = 0; i < TOOL_LINK_NR_OUTPUTS; i++)
		if (lo->path[i] && tool_outputs_add(os, lo->path[i], link_write[i], (void *)l))
			return 1;
	return 0;
}
