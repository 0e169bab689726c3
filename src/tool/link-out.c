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
 * The outputs, in the order they are staged: the fragment last, as plan
 * always did.
 */
static const struct {
	size_t path;	/* offset of its path in struct tool_link_outputs */
	int (*write)(FILE *f, void *ctx);
} link_outs[TOOL_LINK_NR_OUTPUTS] = {
	{ offsetof(struct tool_link_outputs, align), write_align },
	{ offsetof(struct tool_link_outputs, lld), write_lld },
	{ offsetof(struct tool_link_outputs, secorder), write_secorder },
	{ offsetof(struct tool_link_outputs, fragment), write_fragment },
};

static const char *out_path(const struct tool_link_outputs *lo, size_t i)
{
	return *(const char *const *)((const char *)lo + link_outs[i].path);
}

enum {
	OPT_FRAGMENT = 'o', OPT_ALIGN = 'a', OPT_LLD = 4001, OPT_SECORDER, OPT_STANDALONE,
};

const struct tool_opt tool_link_out_opts[] = {
	{ "output", 'o', "FILE", "write the layout as a linker-script fragment to FILE", OPT_FRAGMENT },
	{ "align-file", 'a', "FILE", "write the alignment file (default: the fragment's name with .align)", OPT_ALIGN },
	{ "lld-order", 0, "FILE", "also write an lld --symbol-ordering-file", OPT_LLD },
	{ "section-order", 0, "FILE", "also write a GNU ld 2.43+ --section-ordering-file", OPT_SECORDER },
	{ "standalone", 0, NULL, "emit a complete script to add with -T: the block starts .text (INSERT BEFORE .text)", OPT_STANDALONE },
	{ NULL }
};

int tool_link_out_opt(int id, const char *arg, struct tool_link_outputs *lo)
{
	switch (id) {
	case OPT_FRAGMENT:
		lo->fragment = arg;
		return 0;
	case OPT_ALIGN:
		lo->align = arg;
		return 0;
	case OPT_LLD:
		lo->lld = arg;
		return 0;
	case OPT_SECORDER:
		lo->secorder = arg;
		return 0;
	case OPT_STANDALONE:
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
		const char *path = out_path(lo, (k + nr - 1) % nr);

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
