// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin whatif: edit the layout (move, align, grow a function...) as
 * the linker would lay it out, and see what the model says of it: the
 * misses before and after, the sets that changed pressure, the functions
 * that now fight or stopped; -o writes the edited layout as a fragment
 * and alignment file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/align.h"
#include "cachepin/diff.h"
#include "cachepin/emit.h"
#include "cachepin/whatif.h"
#include "tool.h"

enum { OPT_FILE = 'f', OPT_PLAN = 2001 };

const struct tool_opt whatif_opts[] = {
	TOOL_CACHE_OPT,
	{ "file", 'f', "FILE", "read edits from FILE, one a line ('#' starts a comment)", OPT_FILE },
	{ "plan", 0, "FILE", "start from the layout of a plan (its alignment file), not the binary's", OPT_PLAN },
	TOOL_OPT_INCLUDE(tool_link_out_opts),
	{ "top", 0, "N", "show the N functions, sets and pairs of most impact (default 20)", TOOL_OPT_TOP },
	TOOL_JSON_OPT,
	{ "svg", 0, "FILE", "draw the sets' pressure before and after into FILE (SVG; the first geometry)", TOOL_OPT_SVG },
	TOOL_INPUT_OPTS,
	TOOL_IDLE_OPT,
	TOOL_MODULE_PAGES_OPT,
	{ NULL }
};

struct whatif_args {
	struct tool_inputs in;
	struct tool_link_outputs lo;	/* the alignment file only with the fragment */
	struct tool_report rep;
	const char *file, *plan;
	struct cachepin_edit *edits;
	size_t nr_edits, cap;
};

static int whatif_opt(int id, const char *arg, void *ctx)
{
	struct whatif_args *a = ctx;
	int r;

	switch (id) {
	case OPT_FILE:
		a->file = arg;
		return 0;
	case OPT_PLAN:
		a->plan = arg;
		return 0;
	}
	if ((r = tool_report_opt(&a->rep, id, arg)) >= 0)
		return r;
	if (!tool_link_out_opt(id, arg, &a->lo))
		return 0;
	r = tool_inputs_opt(&a->in, id, arg);
	return r < 0 ? EXIT_USAGE : r;
}

static int add_edit(struct whatif_args *a, const char *text, const char *where)
{
	if (a->nr_edits == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 8;
		struct cachepin_edit *e = realloc(a->edits, ncap * sizeof(*e));

		if (!e)
			return tool_error("out of memory");
		a->edits = e;
		a->cap = ncap;
	}
	if (cachepin_edit__parse(&a->edits[a->nr_edits], text, where))
		return 1;
	a->nr_edits++;
	return 0;
}

/* The edits of FILE, one a line.  0 or 1 after a message. */
static int read_edits(struct whatif_args *a, const char *path)
{
	return cachepin_edit__read(path, &a->edits, &a->nr_edits, &a->cap) ? 1 : 0;
}


/* What a whatif run holds: the session (binary, profile, model), the link before and after the edits. */
struct whatif_run {
	struct cachepin_session *s;
	struct cachepin_binary *bin;	/* the session's */
	const struct cachepin_model *m;	/* the session's */
	struct cachepin_relink r;
	struct cachepin_layout lb, la;	/* before and after the edits */
	struct cachepin_align *al;	/* --plan */
	char *owned_align;		/* the alignment file's name, made from -o's */
};

/* The edits of the command line and -f, and the outputs checked.  0, or an exit code. */
static int whatif_edits(struct whatif_args *a, struct whatif_run *w, int argc, char **argv, int first)
{
	char where[32];
	size_t i;
	int rc;

	for (i = (size_t)first + 2; i < (size_t)argc; i++) {
		snprintf(where, sizeof(where), "edit %zu", i - (size_t)first - 1);
		if (add_edit(a, argv[i], where))
			return 1;
	}
	if (a->file && read_edits(a, a->file))
		return 1;
	if (!a->nr_edits && !a->plan) {
		tool_error("whatif: no edits");
		tool_hint("give edits after the profile or with -f FILE (see 'cachepin help whatif')");
		return EXIT_USAGE;
	}
	if (tool_default_cache(&a->in))
		return 1;
	a->in.binary = argv[first];
	if (a->lo.path[TOOL_OUT_FRAGMENT] && !a->lo.path[TOOL_OUT_ALIGN] &&
	    !(a->lo.path[TOOL_OUT_ALIGN] = w->owned_align = tool_align_name(a->lo.path[TOOL_OUT_FRAGMENT])))
		return tool_error("out of memory");
	{
		const char *more[3] = { argv[first + 1], a->plan, a->file };
		const char *outs[TOOL_LINK_NR_OUTPUTS + 1];
		size_t no = tool_link_outputs_paths(&a->lo, outs);

		outs[no++] = a->rep.svg;
		if ((rc = tool_check_inputs_outputs(&a->in, more, 3, outs, no)))
			return rc;
	}
	if (!a->lo.path[TOOL_OUT_FRAGMENT])
		a->lo.path[TOOL_OUT_ALIGN] = NULL;
	return 0;
}

/* The binary, profile and model; the link (or the plan's) laid out before and after the edits.  0 or 1. */
static int whatif_open(struct whatif_args *a, struct whatif_run *w, const char *profile)
{
	struct cachepin_session_opts o = { 0 };
	uint32_t culprit;

	w->s = tool_session(&a->in, profile, &o, tool_find_cmd("whatif")->needs);
	if (!w->s)
		return 1;
	w->bin = w->s->bin;
	w->m = w->s->model;
	if (a->plan) {
		w->al = cachepin_align__read(a->plan);
		if (!w->al || cachepin_relink__from_align(&w->r, w->bin, w->al, a->plan))
			return 1;
	} else if (cachepin_relink__init(&w->r, w->bin)) {
		return 1;
	}
	if (cachepin_relink__lay(&w->r, &culprit)) {
		if (culprit != UINT32_MAX)
			tool_error("'%s': %s does not fit where the plan puts it", a->plan,
				   w->bin->units[culprit].section);
		return 1;
	}
	if (cachepin_relink__layout(&w->r, &w->lb))
		return 1;
	if (cachepin_edit__apply(&w->r, a->edits, a->nr_edits))
		return 1;
	if (cachepin_relink__layout(&w->r, &w->la))
		return 1;
	return 0;
}

/* Cache I before and after, as text or JSON, and the picture of the first.  0 or 1. */
static int whatif_cache(const struct whatif_args *a, const struct whatif_run *w, struct tool_json *j,
			size_t i)
{
	struct cachepin_score sb = { 0 }, sa = { 0 };
	unsigned int fl = CACHEPIN_SCORE_DETAIL | CACHEPIN_SCORE_NO_OPT;
	struct cachepin_diff d;
	int rc = 0;

	if (cachepin_score__run(w->m, &w->lb, &a->in.caches[i], fl, &sb) ||
	    cachepin_score__run(w->m, &w->la, &a->in.caches[i], fl, &sa) ||
	    cachepin_diff__run(w->bin, &sb, &w->lb, w->bin, &sa, &w->la, &d)) {
		cachepin_score__release(&sb);
		cachepin_score__release(&sa);
		return tool_error("out of memory");
	}
	if (a->rep.json)
		tool_diff_json(j, &sb, &sa, &d);
	else
		tool_diff_text(&sb, &sa, &d, a->rep.top, false);
	if (!i && a->rep.svg) {
		const struct cachepin_score *sp[2] = { &sb, &sa };
		const char *titles[2] = { a->plan ? "the plan" : "as linked", "after the edits" };
		const struct cachepin_binary *bins[2] = { w->bin, w->bin };

		rc = tool_svg_write(a->rep.svg, bins, sp, titles, 2);
	}
	cachepin_diff__release(&d);
	cachepin_score__release(&sb);
	cachepin_score__release(&sa);
	return rc;
}

/* The edited layout into every output asked for, all or none.  0 or 1. */
static int whatif_write(const struct whatif_args *a, const struct whatif_run *w)
{
	static const enum tool_link_out orders[] = { TOOL_OUT_LLD, TOOL_OUT_SECORDER };
	struct cachepin_layout out = { 0 };
	struct cachepin_emit_info info = { .version = cachepin_version(), .standalone = a->lo.standalone };
	struct tool_link_layout l = { &out, w->m, &a->in.caches[0], &info };
	struct tool_outputs os = { .n = 0 };
	uint64_t span = 0;
	size_t i;
	int rc;

	/* the block keeps the sets of every cache asked for */
	for (i = 0; i < a->in.nr_caches; i++)
		if (a->in.caches[i].way_span > span)
			span = a->in.caches[i].way_span;
	if (cachepin_relink__block(&w->r, w->m, span, &out))
		return tool_error("out of memory");
	cachepin_binary__build_id_str(w->bin, info.build_id);
	info.profile_digest = cachepin_profile__digest(w->s->load.profile);
	rc = tool_link_outputs_add(&os, &a->lo, &l) || tool_outputs_commit(&os);
	if (!rc && !a->rep.json && a->lo.path[TOOL_OUT_FRAGMENT])
		fprintf(stderr, "cachepin: wrote '%s' and '%s': %zu units from 0x%" PRIx64 "\n",
			a->lo.path[TOOL_OUT_FRAGMENT], a->lo.path[TOOL_OUT_ALIGN], out.nr_units,
			out.block_start);
	for (i = 0; !rc && !a->rep.json && i < ARRAY_LEN(orders); i++)
		if (a->lo.path[orders[i]])
			fprintf(stderr, "cachepin: wrote '%s': the order of %zu units\n",
				a->lo.path[orders[i]], out.nr_units);
	cachepin_layout__release(&out);
	return rc;
}

static void whatif_release(struct whatif_args *a, struct whatif_run *w)
{
	size_t i;

	for (i = 0; i < a->nr_edits; i++)
		cachepin_edit__release(&a->edits[i]);
	free(a->edits);
	cachepin_layout__release(&w->lb);
	cachepin_layout__release(&w->la);
	cachepin_relink__release(&w->r);
	cachepin_align__free(w->al);
	free(w->owned_align);
	cachepin_session__free(w->s);
	tool_inputs_release(&a->in);
}

int cmd_whatif(int argc, char **argv)
{
	const struct tool_cmd *cmd = tool_find_cmd("whatif");
	struct whatif_args a = { .rep.top = 20 };
	struct whatif_run w = { 0 };
	const char *outs[TOOL_LINK_NR_OUTPUTS];
	struct tool_json j;
	int first, rc;
	size_t i;

	first = tool_parse(cmd, argc, argv, whatif_opt, &a);
	if (argc - first < 2) {
		tool_error("whatif: need a binary, a profile and edits");
		tool_usage(cmd, stderr);
		whatif_release(&a, &w);
		return EXIT_USAGE;
	}
	if ((rc = whatif_edits(&a, &w, argc, argv, first)) || (rc = whatif_open(&a, &w, argv[first + 1])))
		goto out;
	tool_json_init(&j, stdout);
	if (a.rep.json) {
		tool_json_open(&j, NULL, '{', false);
		tool_json_str(&j, "binary", w.bin->path);
		tool_json_u64(&j, "edits", a.nr_edits);
		tool_json_open(&j, "caches", '[', false);
	} else
		printf("whatif '%s' on %s: %zu edits\n", w.bin->path, a.plan ? a.plan : "its own layout",
		       a.nr_edits);
	for (i = 0; !a.rep.json && i < a.nr_edits; i++)
		printf("  %s: %s\n", a.edits[i].where, a.edits[i].text);
	for (i = 0; i < a.in.nr_caches; i++)
		if ((rc = whatif_cache(&a, &w, &j, i)))
			goto out;
	if (a.rep.json)
		tool_json_end(&j);
	if (tool_link_outputs_paths(&a.lo, outs))
		rc = whatif_write(&a, &w);
	else
		rc = fflush(stdout) || ferror(stdout) ? tool_error("whatif: cannot write the output") : 0;
out:
	whatif_release(&a, &w);
	return rc;
}
