// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin simulate: the I-cache misses of a recorded fetch stream (a
 * QEMU log, a lackey trace), on the traced layout or remapped to a plan
 * or a relink.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachepin/align.h"
#include "cachepin/simulate.h"
#include "tool.h"

enum {
	OPT_POLICY = 'p',
	OPT_SEED = 2001,
	OPT_RANGE,
	OPT_CPU,
	OPT_LAYOUT,
	OPT_RELINK,
	OPT_SETS,
	OPT_RELINK_MODS,
};

/* "lru,random,rr,fa-lru": the policies simulate runs, as the policy table has them. */
static const char *sim_policy_list(void)
{
	static char buf[256];

	return cachepin_repl__names(buf, sizeof(buf), ",", ",", false, true);
}

const struct tool_opt simulate_opts[] = {
	TOOL_CACHE_OPT,
	{ "policy", 'p', "LIST", "replacement policies: %s (default all)", OPT_POLICY, sim_policy_list },
	{ "seed", 0, "N", "seed of the random policy (default 1)", OPT_SEED },
	{ "range", 0, "LO-HI", "fetch only instructions at [LO, HI) as traced (a kernel's text)", OPT_RANGE },
	{ "cpu", 0, "N", "QEMU logs of SMP guests: only this cpu's blocks", OPT_CPU },
	{ "layout", 0, "FILE", "remap to the layout of a plan (its alignment file) on BINARY", OPT_LAYOUT },
	{ "relink", 0, "ELF", "remap to a relink of BINARY, function by function name", OPT_RELINK },
	{ "modules", 0, "DIR", "the traced kernel's modules (*.ko) by name under DIR", 1007 },
	{ "proc-modules", 0, "FILE", "a copy of the traced kernel's /proc/modules: where its modules were", 1008 },
	{ "relink-modules", 0, "DIR", "remap the modules' code to their files under DIR, another link of them, function by function name (with --modules, --proc-modules)", OPT_RELINK_MODS },
	{ "map", 'm', "FILE", "GNU ld link map of BINARY (--layout needs it)", 'm' },
	{ "sets", 0, "N", "the N sets with the most misses of each geometry and policy, and their lines (named by BINARY if given)", OPT_SETS },
	{ "json", 0, NULL, "print JSON", TOOL_OPT_JSON },
	{ NULL }
};

struct sim_args {
	struct tool_inputs in;
	struct cachepin_simulate_opts o;
	const char *layout, *relink;
	const char *relink_modules;	/* --relink-modules DIR */
	struct tool_report rep;	/* --json */
};

static int parse_range(const char *arg, uint64_t *lo, uint64_t *hi)
{
	char *end;

	errno = 0;
	*lo = strtoull(arg, &end, 0);
	if (errno || end == arg || *end != '-' || *arg == '-')
		return -1;
	arg = end + 1;
	*hi = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *arg == '-' || *hi <= *lo)
		return -1;
	return 0;
}

static int parse_policies(const char *arg, unsigned int *pol)
{
	char *dup = strdup(arg), *s, *save = NULL, names[256];
	enum cachepin_repl r;
	bool fa;

	if (!dup)
		return tool_error("out of memory");
	*pol = 0;
	for (s = strtok_r(dup, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		if (cachepin_sim_policy_parse(s, &r, &fa)) {
			cachepin_repl__names(names, sizeof(names), ", ", " or ", true, true);
			tool_error("simulate: unknown policy '%s'", s);
			tool_hint("use %s, comma-separated", names);
			free(dup);
			return EXIT_USAGE;
		}
		*pol |= CACHEPIN_SIM_BIT(r, fa);
	}
	free(dup);
	if (!*pol)
		return tool_error("simulate: no policy in '%s'", arg) * EXIT_USAGE;
	return 0;
}

static int simulate_opt(int id, const char *arg, void *ctx)
{
	struct sim_args *a = ctx;
	uint64_t v;
	int r = tool_inputs_opt(&a->in, id, arg);

	if (r >= 0)
		return r;
	switch (id) {
	case OPT_POLICY:
		return parse_policies(arg, &a->o.policies);
	case OPT_SEED:
		return tool_parse_u64(arg, &a->o.seed, "--seed");
	case OPT_RANGE:
		if (parse_range(arg, &a->o.lo, &a->o.hi)) {
			tool_error("simulate: bad range '%s'", arg);
			tool_hint("use LO-HI, e.g. 0xc0008000-0xc0800000");
			return EXIT_USAGE;
		}
		a->o.range = true;
		return 0;
	case OPT_CPU:
		if ((r = tool_parse_u64(arg, &v, "--cpu")))
			return r;
		if (v > UINT32_MAX)
			return tool_error("simulate: bad --cpu '%s'", arg) * EXIT_USAGE;
		a->o.cpu = (int64_t)v;
		return 0;
	case OPT_LAYOUT:
		a->layout = arg;
		return 0;
	case OPT_RELINK:
		a->relink = arg;
		return 0;
	case OPT_RELINK_MODS:
		a->relink_modules = arg;
		return 0;
	case OPT_SETS:
		if ((r = tool_parse_u64(arg, &v, "--sets")))
			return r;
		if (!v || v > 65536) {
			tool_error("simulate: bad --sets '%s'", arg);
			tool_hint("give how many sets to show, from 1 to 65536");
			return EXIT_USAGE;
		}
		a->o.worst_sets = (uint32_t)v;
		return 0;
	}
	r = tool_report_opt(&a->rep, id, arg);
	return r < 0 ? EXIT_USAGE : r;
}

/* The function of BIN holding traced address ADDR, or NULL (no binary, no function). */
static const struct cachepin_func *code_at(const struct cachepin_binary *bin, uint64_t addr)
{
	return bin ? cachepin_binary__find_func(bin, addr) : NULL;
}

static void print_sets_text(const struct cachepin_binary *bin, const struct cachepin_simulation *s)
{
	size_t i, j;
	uint32_t k;

	for (i = 0; i < s->nr_rows; i++) {
		const struct cachepin_simulate_row *r = &s->rows[i];

		if (!r->nr_worst)
			continue;
		if (r->nr_worst == 1)
			printf("\n%s %s: the set with the most misses\n", r->cache->name,
			       cachepin_sim_policy_name(r->repl, r->fully_assoc));
		else
			printf("\n%s %s: the %zu sets with the most misses\n", r->cache->name,
			       cachepin_sim_policy_name(r->repl, r->fully_assoc), r->nr_worst);
		for (j = 0; j < r->nr_worst; j++) {
			const struct cachepin_simulate_set *ws = &r->worst[j];
			uint64_t rest = ws->misses;

			printf("  set %-5u %10" PRIu64 " misses, %u lines\n", ws->set, ws->misses, ws->nr_lines);
			for (k = 0; k < ws->shown; k++) {
				const struct cachepin_simulate_line *ln = &ws->lines[k];
				const struct cachepin_func *f = code_at(bin, ln->traced);

				rest -= ln->misses;
				printf("    %10" PRIu64 "  0x%08" PRIx64, ln->misses, ln->addr);
				if (f)
					printf("  %s+0x%" PRIx64, f->name, ln->traced - f->addr);
				else if (ln->traced != ln->addr)
					printf("  (traced at 0x%" PRIx64 ")", ln->traced);
				printf("\n");
			}
			if (ws->shown < ws->nr_lines)
				printf("    %10" PRIu64 "  in %u more lines\n", rest, ws->nr_lines - ws->shown);
		}
	}
}

static void print_text(const char *trace, const struct sim_args *a,
		       const struct cachepin_simulation *s, const struct cachepin_binary *bin)
{
	size_t i;

	printf("# simulate '%s' (%s): %" PRIu64 " %s, %" PRIu64 " instructions", trace,
	       s->format == CACHEPIN_TRACE_QEMU ? "qemu" : "lackey", s->blocks,
	       s->format == CACHEPIN_TRACE_QEMU ? "blocks" : "fetches", s->insns);
	if (s->format == CACHEPIN_TRACE_QEMU)
		printf(", %" PRIu64 " blocks without in_asm", s->unknown_blocks);
	printf("\n");
	if (a->o.range)
		printf("# range 0x%" PRIx64 "-0x%" PRIx64 "\n", a->o.lo, a->o.hi);
	if (a->layout || a->relink)
		printf("# layout '%s': %" PRIu64 " instructions remapped, %" PRIu64 " where they ran\n",
		       a->layout ? a->layout : a->relink, s->remapped, s->kept);
	printf("%-16s %-12s %12s %12s %12s %8s\n", "cache", "policy", "accesses", "misses",
	       "instructions", "mpki");
	for (i = 0; i < s->nr_rows; i++) {
		const struct cachepin_simulate_row *r = &s->rows[i];

		printf("%-16s %-12s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %8.3f\n", r->cache->name,
		       cachepin_sim_policy_name(r->repl, r->fully_assoc), r->accesses, r->misses, s->insns,
		       s->insns ? 1000.0 * (double)r->misses / (double)s->insns : 0.0);
	}
	print_sets_text(bin, s);
}

static void print_sets_json(struct tool_json *j, const struct cachepin_binary *bin,
			    const struct cachepin_simulate_row *r)
{
	size_t i;
	uint32_t k;

	tool_json_open(j, "worst_sets", '[', false);
	for (i = 0; i < r->nr_worst; i++) {
		const struct cachepin_simulate_set *ws = &r->worst[i];

		tool_json_open(j, NULL, '{', false);
		tool_json_u64(j, "set", ws->set);
		tool_json_u64(j, "misses", ws->misses);
		tool_json_u64(j, "lines_missed", ws->nr_lines);
		tool_json_open(j, "lines", '[', false);
		for (k = 0; k < ws->shown; k++) {
			const struct cachepin_simulate_line *ln = &ws->lines[k];
			const struct cachepin_func *f = code_at(bin, ln->traced);

			tool_json_open(j, NULL, '{', true);
			tool_json_u64(j, "address", ln->addr);
			tool_json_u64(j, "traced", ln->traced);
			tool_json_u64(j, "misses", ln->misses);
			if (f) {
				tool_json_str(j, "function", f->name);
				tool_json_u64(j, "offset", ln->traced - f->addr);
			}
			tool_json_close(j);
		}
		tool_json_close(j);
		tool_json_close(j);
	}
	tool_json_close(j);
}

static void print_json(const char *trace, const struct sim_args *a,
		       const struct cachepin_simulation *s, const struct cachepin_binary *bin)
{
	struct tool_json j;
	size_t i;

	tool_json_init(&j, stdout);
	tool_json_open(&j, NULL, '{', false);
	tool_json_str(&j, "trace", trace);
	tool_json_str(&j, "format", s->format == CACHEPIN_TRACE_QEMU ? "qemu" : "lackey");
	tool_json_u64(&j, "blocks", s->blocks);
	tool_json_u64(&j, "instructions", s->insns);
	tool_json_u64(&j, "unknown_blocks", s->unknown_blocks);
	tool_json_u64(&j, "cancelled_blocks", s->cancelled);
	if (a->o.range) {
		tool_json_open(&j, "range", '[', true);
		tool_json_u64(&j, NULL, a->o.lo);
		tool_json_u64(&j, NULL, a->o.hi);
		tool_json_close(&j);
	}
	if (a->layout || a->relink) {
		tool_json_str(&j, "layout", a->layout ? a->layout : a->relink);
		tool_json_u64(&j, "remapped", s->remapped);
		tool_json_u64(&j, "kept", s->kept);
	}
	tool_json_open(&j, "results", '[', false);
	for (i = 0; i < s->nr_rows; i++) {
		const struct cachepin_simulate_row *r = &s->rows[i];

		tool_json_open(&j, NULL, '{', false);
		tool_json_str(&j, "cache", r->cache->name);
		tool_json_u64(&j, "size", r->cache->size);
		tool_json_u64(&j, "ways", r->cache->ways);
		tool_json_u64(&j, "line", r->cache->line);
		tool_json_str(&j, "policy", cachepin_sim_policy_name(r->repl, r->fully_assoc));
		tool_json_u64(&j, "accesses", r->accesses);
		tool_json_u64(&j, "misses", r->misses);
		tool_json_num(&j, "mpki", 3, s->insns ? 1000.0 * (double)r->misses / (double)s->insns : 0.0);
		if (r->worst)
			print_sets_json(&j, bin, r);
		tool_json_close(&j);
	}
	tool_json_end(&j);
}

/* What the run left out or could not see, as warnings. */
static void warn_run(const char *trace, const struct sim_args *a, const struct cachepin_simulation *s)
{
	if (s->unknown_blocks)
		tool_warn("'%s': %" PRIu64 " executed blocks (%" PRIu64 " addresses) have no in_asm block and are not simulated",
			  trace, s->unknown_blocks, s->unknown_pcs);
	if (s->nr_cpus > 1 && a->o.cpu < 0)
		tool_warn("'%s' holds %u cpus; their fetches are simulated as one stream (see --cpu)", trace,
			  s->nr_cpus);
	if (s->other_lines)
		tool_warn("'%s': %" PRIu64 " lines are neither lackey's nor valgrind's (the first is line %" PRIu64 "); skipped",
			  trace, s->other_lines, s->first_other);
	if (s->cut_last_line)
		tool_warn("'%s': the last line is cut off; ignored", trace);
	if ((a->layout || a->relink) && s->kept) {
		tool_warn("'%s': %" PRIu64 " of %" PRIu64 " instructions ran outside the functions whose place '%s' gives and stay where they ran",
			  trace, s->kept, s->kept + s->remapped, a->layout ? a->layout : a->relink);
		/* a tenth of the run outside known code: another binary than the traced one? */
		if (s->kept * 10 > s->kept + s->remapped)
			tool_hint("is '%s' the binary that was traced? only code it names can move", a->in.binary);
	}
}

/*
 * A run that fetched nothing has no figures: say why (the cpu asked for
 * ran no block, the range holds no instruction, the trace none).  0 or 1.
 */
static int nothing_run(const char *trace, const struct sim_args *a, const struct cachepin_simulation *s)
{
	if (s->insns)
		return 0;
	if (a->o.cpu >= 0 && s->other_cpu)
		tool_error("'%s': cpu %" PRId64 " ran no block (%u cpus ran %" PRIu64 ")", trace, a->o.cpu,
			   s->nr_cpus, s->other_cpu);
	else if (a->o.range)
		tool_error("'%s': no instruction ran in --range 0x%" PRIx64 "-0x%" PRIx64, trace, a->o.lo,
			   a->o.hi);
	else
		tool_error("'%s': no instruction ran (a QEMU log needs exec lines: -d in_asm,exec,nochain)",
			   trace);
	return 1;
}

/* The layout to remap to, from --layout or --relink on BIN.  0 or 1. */
static int open_layout(struct sim_args *a, const struct cachepin_binary *bin,
		       struct cachepin_layout *l)
{
	struct cachepin_binary *new;
	struct cachepin_align *al;
	int err;

	if (a->layout) {
		al = cachepin_align__read(a->layout);
		if (!al)
			return 1;
		err = cachepin_layout__from_align(l, bin, al, a->layout);
		cachepin_align__free(al);
		return err ? 1 : 0;
	}
	new = cachepin_binary__open(a->relink);
	if (!new)
		return 1;
	err = cachepin_layout__from_relink(l, bin, new);
	cachepin_binary__free(new);
	return err ? 1 : 0;
}

/* What the options ask for, checked against each other.  0, or an exit code after a message. */
static int sim_check(struct sim_args *a)
{
	if (a->layout && a->relink) {
		tool_error("simulate: --layout and --relink both give the layout; give one");
		return EXIT_USAGE;
	}
	/* a binary remaps the trace, or names the lines of --sets as traced */
	if ((a->layout || a->relink) && !a->in.binary) {
		tool_error("simulate: --%s needs the traced binary after the trace", a->layout ? "layout" : "relink");
		return EXIT_USAGE;
	}
	if (a->in.binary && !(a->layout || a->relink || a->relink_modules) && !a->o.worst_sets) {
		tool_error("simulate: a binary is only needed to remap the trace (--layout, --relink) or to name the lines of --sets");
		return EXIT_USAGE;
	}
	if (a->in.map && !a->in.binary) {
		tool_error("simulate: -m is the map of the traced binary, which only --layout needs");
		return EXIT_USAGE;
	}
	if (a->relink_modules && (!a->in.modules || !a->in.proc_modules || !a->in.binary)) {
		tool_error("simulate: --relink-modules needs the traced modules (--modules), where they were (--proc-modules) and the traced binary");
		return EXIT_USAGE;
	}
	if ((a->in.modules || a->in.proc_modules) && !a->relink_modules) {
		tool_error("simulate: --modules and --proc-modules are for --relink-modules");
		return EXIT_USAGE;
	}
	if (tool_default_cache(&a->in))
		return 1;
	a->o.caches = a->in.caches;
	a->o.nr_caches = a->in.nr_caches;
	return 0;
}

/*
 * --relink-modules: the traced modules' code (S's files, where S's copy of
 * /proc/modules had them) remapped to their files under the directory
 * given, into *REMAP and A's options.  0, or 1 after a message.
 */
static int open_mod_remap(struct sim_args *a, const struct cachepin_session *s,
			  struct cachepin_remap **remap)
{
	struct cachepin_modules *new = cachepin_modules__open(a->relink_modules);
	size_t missing;
	int err;

	if (!new)
		return 1;
	err = cachepin_modules__remap(s->loaded, s->nr_loaded, s->mods, new, remap,
				      &a->o.nr_mod_remap, &missing);
	cachepin_modules__free(new);
	if (err)
		return tool_error("out of memory");
	a->o.mod_remap = *remap;
	if (missing)
		tool_warn("%zu functions of the traced modules are not once in the modules of '%s': their code stays where it ran",
			  missing, a->relink_modules);
	return 0;
}

/* TRACE simulated (remapped to L when given), said with -v, and printed.  0 or 1. */
static int sim_run(const char *trace, struct sim_args *a, const struct cachepin_binary *bin)
{
	struct cachepin_simulation s;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cachepin_simulate__run(trace, &a->o, &s))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (tool_verbose) {
		double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

		fprintf(stderr, "cachepin: %" PRIu64 " instructions, %" PRIu64 " line accesses in %.2f s (%.1f M accesses/s)\n",
			s.insns, s.nr_rows ? s.rows[0].accesses : 0, dt,
			dt > 0 && s.nr_rows ? (double)s.rows[0].accesses / dt / 1e6 : 0.0);
	}
	warn_run(trace, a, &s);
	if (nothing_run(trace, a, &s)) {
		cachepin_simulate__release(&s);
		return 1;
	}
	if (a->rep.json)
		print_json(trace, a, &s, bin);
	else
		print_text(trace, a, &s, bin);
	cachepin_simulate__release(&s);
	return fflush(stdout) || ferror(stdout) ? tool_error("simulate: cannot write the output") : 0;
}

int cmd_simulate(int argc, char **argv)
{
	const struct tool_cmd *cmd = tool_find_cmd("simulate");
	struct sim_args a = { .o.cpu = -1 };
	struct cachepin_session_opts so = { 0 };
	struct cachepin_session *s = NULL;
	struct cachepin_layout l = { 0 };
	struct cachepin_remap *remap = NULL;
	int first, rc;

	first = tool_parse(cmd, argc, argv, simulate_opt, &a);
	if (argc - first < 1 || argc - first > 2) {
		tool_error("simulate: need a trace, and the traced binary to remap it");
		tool_usage(cmd, stderr);
		tool_inputs_release(&a.in);
		return EXIT_USAGE;
	}
	a.in.binary = argc - first == 2 ? argv[first + 1] : NULL;
	if ((rc = sim_check(&a)))
		goto out;
	rc = 1;
	/* a binary remaps the trace or names its lines */
	if (a.in.binary) {
		s = tool_session(&a.in, NULL, &so, cmd->needs);
		if (!s)
			goto out;
		if (a.layout || a.relink) {
			if (open_layout(&a, s->bin, &l))
				goto out;
			a.o.layout = &l;
		}
		if (a.relink_modules && open_mod_remap(&a, s, &remap))
			goto out;
	}
	rc = sim_run(argv[first], &a, s ? s->bin : NULL);
out:
	cachepin_layout__release(&l);
	free(remap);
	cachepin_session__free(s);
	tool_inputs_release(&a.in);
	return rc;
}
