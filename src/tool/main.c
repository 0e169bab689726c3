// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin: command dispatch (git-style table), option parsing generated
 * from each command's option table, help.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

int tool_verbose;

static const struct tool_opt no_opts[] = { { NULL } };

extern const struct tool_opt profile_opts[], score_opts[], plan_opts[], check_opts[],
	simulate_opts[], diff_opts[], whatif_opts[];

const struct tool_cmd tool_cmds[] = {
	{ "profile", cmd_profile, "turn perf samples or a hot list into a cachepin profile",
	  "[options] BINARY INPUT", profile_opts, NEED_BINARY },
	{ "score", cmd_score, "estimate the I-cache misses of the binary's layout",
	  "[options] BINARY PROFILE", score_opts, NEED_BINARY | NEED_PROFILE | NEED_MODEL | NEED_SCORES },
	{ "plan", cmd_plan, "plan a set-aware layout: linker-script fragment and alignment file",
	  "[options] BINARY PROFILE", plan_opts, NEED_BINARY | NEED_PROFILE | NEED_MODEL | NEED_FOLDS },
	{ "check", cmd_check, "verify a relinked binary against the alignment file",
	  "[options] BINARY|SYSTEM.MAP ALIGN-FILE", check_opts, NEED_BINARY | NEED_PROFILE | NEED_MODEL },
	{ "diff", cmd_diff, "compare two builds under one profile: what moved, what now fights",
	  "[options] OLD NEW PROFILE", diff_opts, NEED_BINARY | NEED_PROFILE | NEED_MODEL | NEED_SCORES },
	{ "whatif", cmd_whatif, "edit the layout (move, align, grow...) and see what the model says",
	  "[options] BINARY PROFILE EDIT...", whatif_opts, NEED_BINARY | NEED_PROFILE | NEED_MODEL },
	{ "simulate", cmd_simulate, "count the I-cache misses of a recorded trace, on any layout",
	  "[options] TRACE [BINARY]", simulate_opts, NEED_BINARY },
	{ "help", cmd_help, "show help for a command, or the cache presets ('help caches')",
	  "[COMMAND|caches]", no_opts },
	{ "version", cmd_version, "print the version", "", no_opts },
	{ NULL }
};

static int print_lib(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	if ((int)level > tool_verbose)
		return 0;
	tool_progress_clear();
	if (strncmp(fmt, "hint:", 5))
		fputs("cachepin: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* PREFIX, the message, a newline: the tool's own messages on standard error. */
static void report(const char *prefix, const char *fmt, va_list ap)
{
	tool_progress_clear();
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int tool_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("cachepin: ", fmt, ap);
	va_end(ap);
	return 1;
}

void tool_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("cachepin: warning: ", fmt, ap);
	va_end(ap);
}

void tool_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report("hint: ", fmt, ap);
	va_end(ap);
}

/* O's help, what its list returns in place of its "%s". */
static void tool_opt_help(const struct tool_opt *o, FILE *f)
{
	const char *at = o->list ? strstr(o->help, "%s") : NULL;

	if (!at) {
		fputs(o->help, f);
		return;
	}
	fprintf(f, "%.*s%s%s", (int)(at - o->help), o->help, o->list(), at + 2);
}

#define MAX_OPTS 64

/*
 * The rows of table T from the Nth of OUT on, those of the tables it
 * includes in their place; MAX at most.  The number of rows in OUT.
 */
static size_t opt_rows(const struct tool_opt *t, const struct tool_opt **out, size_t n, size_t max)
{
	for (; t && (t->name || t->include); t++) {
		if (t->include)
			n = opt_rows(t->include, out, n, max);
		else if (n < max)
			out[n++] = t;
	}
	return n;
}

void tool_usage(const struct tool_cmd *cmd, FILE *f)
{
	const struct tool_opt *opts[MAX_OPTS];
	size_t n = opt_rows(cmd->opts, opts, 0, ARRAY_LEN(opts)), i;

	fprintf(f, "usage: cachepin %s %s\n\n%s\n", cmd->name, cmd->usage, cmd->summary);
	if (n)
		fprintf(f, "\n");
	for (i = 0; i < n; i++) {
		const struct tool_opt *o = opts[i];
		char left[64];

		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "    %-28s ", left);
		tool_opt_help(o, f);
		fprintf(f, "\n");
	}
	fprintf(f, "    %-28s %s\n", "-v, --verbose", "more progress messages (repeat for debug)");
	fprintf(f, "    %-28s %s\n", "-h, --help", "show this help");
}

int tool_parse(const struct tool_cmd *cmd, int argc, char **argv,
	       int (*on_opt)(int id, const char *arg, void *ctx), void *ctx)
{
	const struct tool_opt *opts[MAX_OPTS];
	struct option lo[MAX_OPTS + 3];
	char so[160];
	size_t nr = opt_rows(cmd->opts, opts, 0, ARRAY_LEN(opts)), n = 0, ns = 0, i;
	int c, err;

	for (i = 0; i < nr; i++) {
		const struct tool_opt *o = opts[i];

		lo[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->id };
		if (o->short_name && ns < sizeof(so) - 3) {
			so[ns++] = (char)o->short_name;
			if (o->arg)
				so[ns++] = ':';
		}
	}
	lo[n++] = (struct option){ "verbose", no_argument, NULL, 'v' };
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	so[ns++] = 'v';
	so[ns++] = 'h';
	so[ns] = '\0';
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c == 'v') {
			tool_verbose++;
			continue;
		}
		if (c == 'h') {
			tool_usage(cmd, stdout);
			exit(0);
		}
		if (c == '?' || c == ':') {
			if (optopt)
				tool_error("%s: unknown option '-%c' or missing argument", cmd->name, optopt);
			else
				tool_error("%s: unknown option or missing argument '%s'", cmd->name,
					   argv[optind - 1]);
			tool_usage(cmd, stderr);
			exit(EXIT_USAGE);
		}
		/* a short option whose id is not its letter */
		for (i = 0; i < nr; i++)
			if (opts[i]->short_name && opts[i]->short_name == c && opts[i]->id != c) {
				c = opts[i]->id;
				break;
			}
		err = on_opt(c, optarg, ctx);
		if (err)
			exit(err > 0 ? err : 1);
	}
	return optind;
}

int tool_parse_u64(const char *arg, uint64_t *v, const char *what)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 0);
	if (errno || *end || end == arg || *arg == '-')
		return tool_error("bad %s '%s'", what, arg) * EXIT_USAGE;
	return 0;
}

static int no_opt(int id, const char *arg, void *ctx)
{
	return EXIT_USAGE;
}

int cmd_version(int argc, char **argv)
{
	tool_parse(tool_find_cmd("version"), argc, argv, no_opt, NULL);
	printf("cachepin %s\n", cachepin_version());
	return 0;
}

static void main_usage(FILE *f)
{
	const struct tool_cmd *c;

	fprintf(f, "usage: cachepin [--version] [--help] <command> [<args>]\n\n");
	fprintf(f, "Place hot code so that it stops fighting over instruction-cache sets.\n\n");
	fprintf(f, "commands:\n");
	for (c = tool_cmds; c->name; c++)
		fprintf(f, "   %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nSee 'cachepin help <command>' or 'man cachepin-<command>'.\n");
}

const struct tool_cmd *tool_find_cmd(const char *name)
{
	const struct tool_cmd *c;

	for (c = tool_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_help(int argc, char **argv)
{
	const struct tool_cmd *c;
	int first = tool_parse(tool_find_cmd("help"), argc, argv, no_opt, NULL);

	argc -= first - 1;
	argv += first - 1;
	if (argc < 2) {
		main_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "caches")) {
		const struct cachepin_cache_preset *p;

		printf("%-16s %-14s %s\n", "preset", "size:ways:line", "what");
		for (p = cachepin_cache_presets; p->name; p++) {
			char g[32];

			snprintf(g, sizeof(g), "%uK:%u:%u", p->size / 1024, p->ways, p->line);
			printf("%-16s %-14s %s\n", p->name, g, p->what);
		}
		return 0;
	}
	c = tool_find_cmd(argv[1]);
	if (!c) {
		tool_error("'%s' is not a cachepin command", argv[1]);
		return EXIT_USAGE;
	}
	tool_usage(c, stdout);
	return 0;
}

/* Levenshtein distance, for "did you mean". */
static int edit_distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b), i, j;
	int d[32][32];

	if (la > 30 || lb > 30)
		return 99;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

int main(int argc, char **argv)
{
	const struct tool_cmd *c;

	tool_term_guard();
	cachepin_set_print(print_lib);
	if (argc < 2) {
		main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		return 0;
	}
	c = tool_find_cmd(argv[1]);
	if (!c) {
		const struct tool_cmd *best = NULL;
		int bd = 3;

		tool_error("'%s' is not a cachepin command; see 'cachepin --help'", argv[1]);
		for (c = tool_cmds; c->name; c++) {
			int d = edit_distance(argv[1], c->name);

			if (d < bd)
				bd = d, best = c;
		}
		if (best)
			tool_hint("did you mean '%s'?", best->name);
		return EXIT_USAGE;
	}
	return c->fn(argc - 1, argv + 1);
}
