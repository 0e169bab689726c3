// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The linker outputs of a layout (plan, whatif): one table of what each
 * is and which emitter writes it, staged together so that a fragment
 * never goes out with another layout's alignment file.
 */
#include <errno.h>
#include <stddef.h>
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

/*
 * The outputs, a row each, in the order they are staged: the fragment
 * last, as plan always did.  An output's option (tool_link_out_opts) has
 * the id OPT_OUT + its row.
 */
enum { OUT_ALIGN, OUT_LLD, OUT_SECORDER, OUT_FRAGMENT };
enum { OPT_OUT = 4001, OPT_STANDALONE = OPT_OUT + TOOL_LINK_NR_OUTPUTS };

static const struct {
	size_t path;	/* offset of its path in struct tool_link_outputs */
	int (*write)(FILE *f, void *ctx);
} link_outs[TOOL_LINK_NR_OUTPUTS] = {
	[OUT_ALIGN] = { offsetof(struct tool_link_outputs, align), write_align },
	[OUT_LLD] = { offsetof(struct tool_link_outputs, lld), write_lld },
	[OUT_SECORDER] = { offsetof(struct tool_link_outputs, secorder), write_secorder },
	[OUT_FRAGMENT] = { offsetof(struct tool_link_outputs, fragment), write_fragment },
};

static const char **out_slot(const struct tool_link_outputs *lo, size_t i)
{
	return (const char **)((char *)lo + link_outs[i].path);
}

static const char *out_path(const struct tool_link_outputs *lo, size_t i)
{
	return *out_slot(lo, i);
}

const struct tool_opt tool_link_out_opts[] = {
	{ "output", 'o', "FILE", "write the layout as a linker-script fragment to FILE", OPT_OUT + OUT_FRAGMENT },
	{ "align-file", 'a', "FILE", "write the alignment file (default: the fragment's name with .align)", OPT_OUT + OUT_ALIGN },
	{ "lld-order", 0, "FILE", "also write an lld --symbol-ordering-file", OPT_OUT + OUT_LLD },
	{ "section-order", 0, "FILE", "also write a GNU ld 2.43+ --section-ordering-file", OPT_OUT + OUT_SECORDER },
	{ "standalone", 0, NULL, "emit a complete script to add with -T: the block starts .text (INSERT BEFORE .text)", OPT_STANDALONE },
	{ NULL }
};

int tool_link_out_opt(int id, const char *arg, struct tool_link_outputs *lo)
{
	if (id >= OPT_OUT && id < OPT_OUT + (int)ARRAY_LEN(link_outs)) {
		*out_slot(lo, (size_t)(id - OPT_OUT)) = arg;
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
	const size_t nr = ARRAY_LEN(link_outs);
	size_t k, n = 0;

	/* the fragment, staged last, first; then the others as staged */
	for (k = 0; k < nr; k++) {
		const char *path = out_path(lo, (k + OUT_FRAGMENT) % nr);

		if (path)
			paths[n++] = path;
	}
	return n;
}

int tool_link_outputs_add(struct tool_outputs *os, const struct tool_link_outputs *lo,
			  const struct tool_link_layout *l)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(link_outs); i++)
		if (out_path(lo, i) && tool_outputs_add(os, out_path(lo, i), link_outs[i].write, (void *)l))
			return 1;
	return 0;
}
