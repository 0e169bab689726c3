// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin profile: perf.data, perf script text, hot lists, QEMU execution
 * logs, lackey traces (and existing profiles) to the normalized profile of
 * cachepin-profile(5).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

enum { OPT_OUTPUT = 'o', OPT_PERIOD = 2001 };

const struct tool_opt profile_opts[] = {
	{ "output", 'o', "FILE", "write the profile to FILE (default: standard output)", OPT_OUTPUT },
	{ "every", 0, "N", "QEMU logs, lackey traces: a sample every N executed instructions (default 1: all)", OPT_PERIOD },
	{ "period", 0, "N", "the same as --every (its older name)", OPT_PERIOD },
	TOOL_INPUT_OPTS,
	{ NULL }
};

struct profile_args {
	struct tool_inputs in;
	const char *output;
};

static int profile_opt(int id, const char *arg, void *ctx)
{
	struct profile_args *a = ctx;

	if (id == OPT_OUTPUT) {
		a->output = arg;
		return 0;
	}
	if (id == OPT_PERIOD) {
		if (tool_parse_u64(arg, &a->in.period, "--every"))
			return EXIT_USAGE;
		if (!a->in.period) {
			tool_error("bad --every '%s': it must be at least 1", arg);
			return EXIT_USAGE;
		}
		return 0;
	}
	{
		int r = tool_inputs_opt(&a->in, id, arg);

		return r < 0 ? EXIT_USAGE : r;
	}
}

static int write_profile(FILE *f, void *ctx)
{
	return cachepin_profile__write(ctx, f);
}

/* Merge Q into P (same binary): used when several inputs are given. */
static int merge(struct cachepin_profile **p, struct cachepin_profile *q)
{
	if (!*p) {
		*p = q;
		return 0;
	}
	tool_error("several inputs are not supported yet; merge them with 'perf' first");
	cachepin_profile__free(q);
	return 1;
}

int cmd_profile(int argc, char **argv)
{
	struct profile_args a = { 0 };
	struct cachepin_session_opts o = { 0 };
	struct cachepin_session *s = NULL;
	struct cachepin_profile *p = NULL;
	int i, first, rc;

	first = tool_parse(tool_find_cmd("profile"), argc, argv, profile_opt, &a);
	if (argc - first < 2) {
		tool_error("profile: need a binary and at least one input");
		tool_usage(tool_find_cmd("profile"), stderr);
		rc = EXIT_USAGE;
		goto out;
	}
	a.in.binary = argv[first];
	if ((rc = tool_check_inputs_outputs(&a.in, (const char *const *)argv + first + 1,
					    (size_t)(argc - first - 1), &a.output, 1)))
		goto out;
	rc = 1;
	/* the profile keeps every sample: score and plan leave the idle loop out */
	a.in.keep_idle = true;
	if (!(s = tool_session(&a.in, NULL, &o, tool_find_cmd("profile")->needs)))
		goto out;
	for (i = first + 1; i < argc; i++) {
		struct cachepin_load l;

		if (cachepin_session__load(s, argv[i], &l))
			goto out;
		free(l.map);
		if (merge(&p, l.profile))
			goto out;
	}
	if (tool_verbose)
		fprintf(stderr, "cachepin: %" PRIu64 " of %" PRIu64 " samples matched, %zu functions, %zu edges\n",
			p->nr_matched, p->nr_samples, p->nr_funcs, p->nr_edges);
	rc = tool_write_file(a.output, write_profile, p);
out:
	cachepin_profile__free(p);
	cachepin_session__free(s);
	tool_inputs_release(&a.in);
	return rc;
}
