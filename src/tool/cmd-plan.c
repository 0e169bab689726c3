// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin plan: a set-aware layout of the hot units, emitted as a GNU ld
 * fragment, an alignment file, and lld / GNU ld ordering files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachepin/align.h"
#include "cachepin/modplan.h"
#include "cachepin/plan.h"
#include "cachepin/score.h"
#include "tool.h"

enum {
	OPT_GROWTH = 3001, OPT_PREV, OPT_MAXPAD, OPT_SEED, OPT_ITERS, OPT_FIRST, OPT_REFS, OPT_RESTARTS, OPT_WHOLE, OPT_MAXHOT,
	OPT_HOLDOUT, OPT_METHOD, OPT_TRACED, OPT_MODLDS,
};

const struct tool_opt plan_opts[] = {
	{ "cache", 'c', "SPEC", "cache geometry SIZE:WAYS:LINE[:%s] or preset; comma list for several, "
	  "the first planned for; the policy's simulator judges the candidates", 'c', tool_cpu_policies },
	TOOL_OPT_INCLUDE(tool_link_out_opts),
	{ "growth", 0, "BYTES", "any one unit of the block may grow by BYTES and no hot unit moves (default 64; 0 packs tight)", OPT_GROWTH },
	{ "max-pad", 0, "BYTES", "padding budget per way span (default 512)", OPT_MAXPAD },
	{ "seed", 0, "N", "seed of the search (default 1); same inputs and seed, same plan", OPT_SEED },
	{ "iterations", 0, "N", "local-search moves (default 3000)", OPT_ITERS },
	{ "restarts", 0, "N", "searches from seeds SEED..SEED+N-1, in threads; the best on the full model wins (default 8)", OPT_RESTARTS },
	{ "holdout", 0, "PROFILE", "score the candidates on a second recording (default: on half of the samples)", OPT_HOLDOUT },
	{ "traced", 0, "ELF", "the QEMU log was recorded on ELF, another link of the binary's code: its fetches go to the binary's functions by name", OPT_TRACED },
	{ "method", 0, "LIST", "candidates: search,heat,density,c3,keep; greedy,colour,reference; or all (default: the first five)", OPT_METHOD },
	{ "keep", 0, "OLD.align", "re-plan from a previous plan: its hot units that still fit stay at their offsets and sets, the search places the rest", OPT_PREV },
	{ "keep-first", 0, "OBJECT", "emit OBJECT's .text first (MIPS <= 6.12 head.o)", OPT_FIRST },
	{ "refs", 0, "N", "length of the modelled reference string (default 2097152)", OPT_REFS },
	{ "max-hot", 0, "N", "place at most the N densest hot units (default 4000); the rest stay", OPT_MAXHOT },
	{ "whole-functions", 0, NULL, "take every line of a sampled function as hot, not only sampled ones", OPT_WHOLE },
	{ "modules-lds", 0, "FILE", "plan the modules too (--modules): their hot functions' order, as a script for their link (LDFLAGS_MODULE=\"-T FILE\")", OPT_MODLDS },
	TOOL_INPUT_OPTS,
	TOOL_IDLE_OPT,
	TOOL_MODULE_PAGES_OPT,
	{ NULL }
};

struct plan_args {
	struct tool_inputs in;
	struct tool_link_outputs lo;	/* the fragment NULL: standard output */
	const char *first, *holdout, *prev, *traced;
	const char *modules_lds;	/* --modules-lds FILE */
	struct cachepin_plan_opts po;
	size_t refs;
	bool whole;
};

/* "hint: methods: search, heat, ..., or all", from the library's table. */
static void method_hint(void)
{
	char names[256];
	size_t len = 0, k;

	names[0] = '\0';
	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS && len < sizeof(names); k++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s, ",
					cachepin_plan__method_name((enum cachepin_plan_method)k));
	tool_hint("methods: %sor all", names);
}

/* A comma list of method names (or "all") into *METHODS. */
static int parse_methods(const char *arg, unsigned int *methods)
{
	const char *p = arg;

	*methods = 0;
	do {
		size_t n = strcspn(p, ","), k;
		unsigned int bit = 0;

		if (n == 3 && !strncmp(p, "all", 3))
			bit = (1u << CACHEPIN_PLAN_NR_METHODS) - 1;
		for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
			const char *name = cachepin_plan__method_name((enum cachepin_plan_method)k);

			if (strlen(name) == n && !strncmp(p, name, n))
				bit = 1u << k;
		}
		if (!bit) {
			tool_error("--method: unknown method '%.*s'", (int)n, p);
			method_hint();
			return EXIT_USAGE;
		}
		*methods |= bit;
		p += n;
	} while (*p++ == ',');
	return 0;
}

static int plan_opt(int id, const char *arg, void *ctx)
{
	struct plan_args *a = ctx;
	uint64_t v;
	int r;

	switch (id) {
	case OPT_FIRST:
		a->first = arg;
		return 0;
	case OPT_GROWTH:
		/* more room than a way span of the largest cache plans nothing useful */
		if ((r = tool_parse_u64(arg, &a->po.growth, "--growth")))
			return r;
		if (a->po.growth > 65536)
			return tool_error("bad --growth '%s': at most 65536 bytes", arg) * EXIT_USAGE;
		return 0;
	case OPT_MAXPAD:
		if ((r = tool_parse_u64(arg, &a->po.max_pad, "--max-pad")))
			return r;
		if (a->po.max_pad > (1u << 24))
			return tool_error("bad --max-pad '%s': at most 16777216 bytes", arg) * EXIT_USAGE;
		return 0;
	case OPT_SEED:
		return tool_parse_u64(arg, &a->po.seed, "--seed");
	case OPT_ITERS:
		if ((r = tool_parse_count(arg, &v, "--iterations", 100000000)))
			return r;
		a->po.iterations = (unsigned int)v;
		return 0;
	case OPT_MAXHOT:
		if ((r = tool_parse_count(arg, &v, "--max-hot", 10000000)))
			return r;
		a->po.max_hot = (size_t)v;
		return 0;
	case OPT_WHOLE:
		a->whole = true;
		return 0;
	case OPT_HOLDOUT:
		a->holdout = arg;
		return 0;
	case OPT_TRACED:
		a->traced = arg;
		return 0;
	case OPT_MODLDS:
		a->modules_lds = arg;
		return 0;
	case OPT_PREV:
		a->prev = arg;
		return 0;
	case OPT_METHOD:
		return parse_methods(arg, &a->po.methods);
	case OPT_RESTARTS:
		if ((r = tool_parse_u64(arg, &v, "--restarts")) || !v || v > 64)
			return r ? r : tool_error("--restarts takes 1 to 64") * EXIT_USAGE;
		a->po.restarts = (unsigned int)v;
		return 0;
	case OPT_REFS:
		/* as score bounds it: 20 bytes a reference while it is built */
		if ((r = tool_parse_count(arg, &v, "--refs", 1ULL << 27)))
			return r;
		a->refs = (size_t)v;
		return 0;
	}
	if (!tool_link_out_opt(id, arg, &a->lo))
		return 0;
	r = tool_inputs_opt(&a->in, id, arg);
	return r < 0 ? EXIT_USAGE : r;
}

static double elapsed(const struct timespec *t0, const struct timespec *t1)
{
	return (double)(t1->tv_sec - t0->tv_sec) + (double)(t1->tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * More hot lines than the cache holds (sets * ways): the figures above
 * include capacity misses, and no layout gets below a fully associative
 * cache's optimal replacement; the conflict part (LRU - fully
 * associative LRU) is what a plan mainly removes.
 */
static void capacity_note(const struct cachepin_cache *c, const struct cachepin_plan_eval *e)
{
	uint64_t cap = (uint64_t)c->sets * c->ways;

	if (e->hot_lines <= cap)
		return;
	fprintf(stderr, "cachepin: %s is capacity-bound: %" PRIu64 " hot lines, more than the %" PRIu64
		" it holds (%u sets x %u ways), so its figures include capacity misses no layout removes"
		" (no layout gets below %" PRIu64 "); ",
		c->name, e->hot_lines, cap, c->sets, c->ways, e->fa_opt);
	if (e->fa_lru < e->lru_before)
		fprintf(stderr, "a plan removes mainly the conflict part, %" PRIu64 " of the link's LRU misses\n",
			e->lru_before - e->fa_lru);
	else
		fprintf(stderr, "the link's LRU misses have no conflict part for a plan to remove\n");
}

/*
 * The search's own figures (-v): its objective is the LRU misses of the
 * first geometry on the search string, not the modelled misses above.
 */
static void search_note(const struct plan_args *a, const struct cachepin_plan *plan)
{
	if (plan->method != CACHEPIN_PLAN_SEARCH || tool_verbose < 1)
		return;
	fprintf(stderr, "cachepin: search: LRU misses of %s on its %zu-reference search string %" PRIu64
		" after the heat colouring, %" PRIu64 " after the local search; %u of %u moves simulated, %u kept\n",
		a->in.caches[0].name, plan->search_refs, plan->search_before, plan->search_after,
		plan->moves_simulated, plan->moves_tried, plan->moves_taken);
}

/* --keep: what stayed, what was placed again, how many sets changed. */
static void prev_report(const struct plan_args *a, const struct cachepin_plan *plan)
{
	const struct cachepin_align *al = a->po.prev;
	const struct cachepin_cache *c = &a->in.caches[0];

	fprintf(stderr, "cachepin: kept %zu hot units of '%s' at their offsets; placed %zu again (grown into the next kept one, or aligned otherwise), %zu new; %zu no longer hot; ",
		plan->nr_kept, a->prev, plan->nr_replaced, plan->nr_new, plan->nr_gone);
	if (al->sets == c->sets && al->line == c->line)
		fprintf(stderr, "%zu of the hot units in both plans in another set\n", plan->nr_set_changed);
	else
		fprintf(stderr, "sets not compared (it was planned for %s)\n", al->cache);
}

/*
 * What the sampling event means for the plan: the planner weighs a line
 * by its samples, and a time event's samples pile up where the CPU
 * stalls, not where it fetches.  Said for time events only.
 */
static void event_note(const struct cachepin_profile *prof)
{
	const char *kind = cachepin_profile__event_kind(prof);

	if (!kind || strcmp(kind, "time"))
		return;
	fprintf(stderr, "cachepin: the samples are %s, which counts time: a line weighs the time spent on it, so code that stalls (a device's registers, misses) weighs more than its fetches; -e instructions samples fetches\n",
		prof->event);
}

/* The figures of the plan on standard error; SC gets the header lines' scores. */
static void plan_report(const struct plan_args *a, const struct cachepin_plan *plan, double secs,
			struct cachepin_emit_score *sc)
{
	const struct cachepin_layout *lo = &plan->layout;
	size_t i;

	for (i = 0; i < plan->nr_evals; i++) {
		const struct cachepin_plan_eval *e = &plan->evals[i];
		const struct cachepin_cache *c = &a->in.caches[i];

		sc[i] = (struct cachepin_emit_score){
			.cache = c->name, .fetches = e->fetches, .before = e->before,
			.after = e->after, .repl = cachepin_repl_name(c->repl),
		};
		fprintf(stderr, "cachepin: %s (%s): modelled misses %" PRIu64 " -> %" PRIu64 " (%+.1f %%), LRU %" PRIu64 " -> %" PRIu64 "\n",
			c->name, sc[i].repl, sc[i].before, sc[i].after,
			sc[i].before ? 100.0 * ((double)sc[i].after - (double)sc[i].before) / (double)sc[i].before : 0,
			e->lru_before, e->lru_after);
		capacity_note(c, e);
	}
	if (lo->unchanged) {
		fprintf(stderr, "cachepin: no layout: no candidate beats the link, and keeping its sets in a block is worse than it; nothing moves (in %.2f s)\n",
			secs);
		return;
	}
	if (plan->as_linked) {
		fprintf(stderr, "cachepin: no candidate beats the link, which a plan made (it has __cachepin_start): its block is planned again as it is, %zu hot and %zu fill units at their offsets (in %.2f s)\n",
			lo->nr_hot, lo->nr_fill, secs);
		return;
	}
	fprintf(stderr, "cachepin: %zu hot units (%zu fixed hot granules stay), %zu fill units, %" PRIu64
		" bytes, %" PRIu64 " bytes of padding", lo->nr_hot, plan->nr_unplaceable, lo->nr_fill,
		lo->block_size, lo->pad);
	if (lo->growth)
		fprintf(stderr, " (%" PRIu64 " of them room for %" PRIu64 " bytes of growth)",
			lo->pad_growth, lo->growth);
	fprintf(stderr, "; %s in %.2f s\n", cachepin_plan__method_name(plan->method), secs);
	if (lo->growth < a->po.growth)
		fprintf(stderr, "cachepin: growth: the %s method keeps no room for it: a unit that grows moves the hot units after it\n",
			cachepin_plan__method_name(plan->method));
	search_note(a, plan);
	if (a->prev)
		prev_report(a, plan);
	if (lo->tail_shift)
		fprintf(stderr, "cachepin: the kernel text after TEXT_TEXT (from 0x%" PRIx64
			") is taken 0x%" PRIx64 " bytes later, on the block alignment, where a relink with the plan puts it\n",
			lo->tail_from, lo->tail_shift);
	if (lo->pad - lo->pad_growth > plan->pad_budget) {
		fprintf(stderr, "cachepin: the relinked text grows by %" PRIu64 " bytes of padding besides growth's, more than the %" PRIu64
			" of --max-pad %" PRIu64 " per way span: too few small cold units are known to fill the gaps\n",
			lo->pad - lo->pad_growth, plan->pad_budget, a->po.max_pad);
		tool_hint("accept it if the text may grow by that much; else raise --max-pad, or give --objects or --map so that more cold units are known");
	}
}

/* How each candidate did on the held-out folds, on standard error. */
static void cand_report(const struct plan_args *a, const struct cachepin_plan *plan,
			const struct cachepin_profile *prof)
{
	size_t i, k;

	if (!plan->nr_folds) {
		/* plan_model() asks for none only where one method is asked for */
		fprintf(stderr, "cachepin: method %s (not compared: %s)\n",
			cachepin_plan__method_name(plan->method),
			a->prev ? "--keep re-plans with the search alone" : "the one asked for");
		return;
	}
	if (plan->nr_folds == 1)
		fprintf(stderr, "cachepin: modelled misses of the candidates, in-sample (the profile has no samples to hold out)\n");
	else if (plan->exact)
		fprintf(stderr, "cachepin: held-out misses (the run simulated: planned on its first half, scored on its second, and back):\n");
	else if (a->holdout)
		fprintf(stderr, "cachepin: held-out misses (planned on one recording, scored on the other, and back):\n");
	else if (cachepin_model__split_by_slices(prof))
		fprintf(stderr, "cachepin: held-out misses (planned on the even time slices, scored on the odd ones, and back):\n");
	else
		fprintf(stderr, "cachepin: held-out misses (planned on half of each line's samples, scored on the other half, and back):\n");
	fprintf(stderr, "cachepin:   %-8s", "method");
	for (i = 0; i < a->in.nr_caches; i++)
		fprintf(stderr, " %14s", a->in.caches[i].name);
	fprintf(stderr, "  mean change\n");
	fprintf(stderr, "cachepin:   %-8s", "link");
	for (i = 0; i < a->in.nr_caches; i++)
		fprintf(stderr, " %14" PRIu64, plan->link_misses[i]);
	fprintf(stderr, "%s\n", plan->layout.unchanged || plan->as_linked ? "             <- planned" : "");
	for (k = 0; k < CACHEPIN_PLAN_NR_METHODS; k++) {
		const struct cachepin_plan_cand *cd = &plan->cands[k];

		if (!cd->tried)
			continue;
		fprintf(stderr, "cachepin:   %-8s", cachepin_plan__method_name((enum cachepin_plan_method)k));
		for (i = 0; i < a->in.nr_caches; i++)
			fprintf(stderr, " %14" PRIu64, cd->misses[i]);
		fprintf(stderr, "  %+6.1f %%", 100 * (cd->ratio - 1));
		if (cd->focus >= 0)
			fprintf(stderr, "  (for %s first)", a->in.caches[cd->focus].name);
		if (cd->ever)
			fprintf(stderr, "  (lightest-ever rule)");
		fprintf(stderr, "%s%s%s%s\n",
			cd->over_pad ? "  (padding over the budget)" : "",
			cd->harms ? "  (worse than the link somewhere)" : "",
			cd->whole_harms ? "  (its plan from the whole profile worse than the link)" : "",
			k == plan->method && !plan->layout.unchanged && !plan->as_linked ? "  <- planned" : "");
	}
	if (!plan->layout.unchanged && !plan->as_linked && !plan->exact && plan->cands[plan->method].roomy)
		fprintf(stderr, "cachepin: %s leaves every line of the hot units a way of its own, sampled or not: of such layouts the fewest misses is planned, whatever the link's (the samples see nothing there but first fetches)\n",
			cachepin_plan__method_name(plan->method));
}

/* The alignment file, the ordering files asked for, then the fragment. */
static int write_modules_lds(FILE *f, void *ctx)
{
	return cachepin_modplan__write_lds(f, ctx);
}

static int plan_write(const struct plan_args *a, const struct cachepin_plan *plan,
		      const struct cachepin_model *m, const struct cachepin_profile *prof,
		      const struct cachepin_emit_score *sc, struct cachepin_modplan *mp)
{
	struct cachepin_emit_info info = {
		.version = cachepin_version(), .scores = sc, .nr_scores = plan->nr_evals,
		.standalone = a->lo.standalone, .head_object = a->first,
		.profile_digest = cachepin_profile__digest(prof),
	};
	struct tool_link_layout l = { &plan->layout, m, &a->in.caches[0], &info };
	struct tool_link_outputs lo = a->lo;
	struct tool_outputs os = { .n = 0 };

	if (!lo.path[TOOL_OUT_FRAGMENT])
		lo.path[TOOL_OUT_FRAGMENT] = "-";
	cachepin_binary__build_id_str(m->bin, info.build_id);
	/* all or nothing: a fragment never goes with another plan's alignment file */
	if (tool_link_outputs_add(&os, &lo, &l) ||
	    (a->modules_lds && tool_outputs_add(&os, a->modules_lds, write_modules_lds, mp)))
		return 1;
	return tool_outputs_commit(&os);
}

/*
 * --modules-lds: the modules planned first, among themselves, and their
 * hot functions moved where planned, so that the kernel's plan made
 * after them avoids their lines.  0, or 1 after a message.
 */
static int plan_modules(const struct plan_args *a, struct cachepin_session *s,
			struct cachepin_modplan *mp)
{
	size_t i, moved;

	if (!a->modules_lds)
		return 0;
	if (!s->mods) {
		tool_error("--modules-lds needs the modules' files: --modules DIR");
		return 1;
	}
	if (cachepin_modplan__run(s->model, s->mods, a->in.caches, a->in.nr_caches, mp))
		return tool_error("out of memory");
	for (i = 0; i < mp->nr_mods; i++) {
		const struct cachepin_modplan_mod *mm = &mp->mods[i];

		if (mm->why_not)
			tool_warn("%s: not planned: %s", mm->name, mm->why_not);
		else
			fprintf(stderr, "cachepin: %s: %zu hot functions from +0x%" PRIx64 ", after %zu of its cold ones\n",
				mm->name, mm->nr_hot, mm->hot_start, mm->nr_funcs - mm->nr_hot);
	}
	cachepin_modplan__apply(mp, s->bin, &moved);
	return 0;
}

/*
 * The kernel's plan's modelled misses with the modules as built: MP's
 * moves undone on the plan's layout (the kernel was planned around the
 * modules as planned, so this is what the modules' plan is worth to that
 * kernel plan, not to another).
 */
static int modules_report(const struct plan_args *a, const struct cachepin_session *s,
			  const struct cachepin_plan *plan, const struct cachepin_modplan *mp)
{
	struct cachepin_score built = { 0 }, planned = { 0 };
	struct cachepin_layout back = plan->layout;
	size_t i, n = 0;
	int err = 0;

	if (!a->modules_lds || !mp->layout.delta)
		return 0;
	back.delta = malloc((s->bin->nr_funcs + 1) * sizeof(*back.delta));
	if (!back.delta)
		return tool_error("out of memory");
	memcpy(back.delta, plan->layout.delta, s->bin->nr_funcs * sizeof(*back.delta));
	for (i = 0; i < s->bin->nr_funcs; i++)
		if (mp->layout.known[i] && mp->layout.delta[i])
			back.delta[i] -= mp->layout.delta[i];
	for (i = 0; i < mp->nr_mods; i++)
		n += !mp->mods[i].why_not;
	for (i = 0; i < a->in.nr_caches && !err; i++) {
		const struct cachepin_cache *c = &a->in.caches[i];
		enum cachepin_repl r = c->repl;

		if ((err = cachepin_score__run(s->model, &back, c, 0, &built)) ||
		    (err = cachepin_score__run(s->model, &plan->layout, c, 0, &planned)))
			break;
		fprintf(stderr, "cachepin: %s (%s): this plan with the modules as built %" PRIu64 ", as planned %" PRIu64
			" (%+.1f %%; %zu of %zu modules planned, %s)\n",
			c->name, cachepin_repl_name(r), built.miss[r], planned.miss[r],
			built.miss[r] ? 100.0 * ((double)planned.miss[r] - (double)built.miss[r]) / (double)built.miss[r] : 0,
			n, mp->nr_mods, s->opts.module_pages ? "a share of their lines on every page of a way span" :
			"at the load addresses of the recording");
		cachepin_score__release(&built);
		cachepin_score__release(&planned);
	}
	cachepin_score__release(&built);
	free(back.delta);
	return err ? tool_error("out of memory") : 0;
}

/*
 * A plan of another program keeps nothing: most of its hot functions are
 * not in BIN at all (a rebuild keeps their names).  Said, not refused.
 */
static void prev_other(const char *path, const struct cachepin_align *al, const struct cachepin_binary *bin)
{
	size_t hot = 0, absent = 0, i;

	for (i = 0; i < al->nr; i++) {
		if (!al->e[i].hot || !al->e[i].symbol)
			continue;
		hot++;
		if (!cachepin_binary__lookup(bin, al->e[i].symbol, NULL, NULL))
			absent++;
	}
	if (hot && absent * 2 > hot) {
		tool_warn("'%s': %zu of its %zu hot functions are not in '%s': a plan of another program?", path,
			  absent, hot, bin->path);
		tool_hint("--keep takes the plan of an earlier build of this binary");
	}
}

/*
 * --keep: the previous plan into *PREV and A->po; the search alone
 * places around its units.  0, 1 after the message, or EXIT_USAGE.
 * Its alignment file may be an output: read whole first, it is
 * replaced only when the new plan is written.
 */
static int plan_prev(struct plan_args *a, struct cachepin_align **prev, const struct cachepin_binary *bin)
{
	const unsigned int search = 1u << CACHEPIN_PLAN_SEARCH | 1u << CACHEPIN_PLAN_GREEDY;

	if (a->po.methods & ~search)
		return tool_error("--keep places around the old plan with the search: --method may be search or greedy")
		       * EXIT_USAGE;
	if (!a->po.methods)
		a->po.methods = 1u << CACHEPIN_PLAN_SEARCH;
	*prev = cachepin_align__read(a->prev);
	if (!*prev)
		return 1;
	prev_other(a->prev, *prev, bin);
	a->po.prev = *prev;
	return 0;
}

/* No output of plan may be one of its inputs or another output. */
static int plan_check_outputs(const struct plan_args *a, const char *profile)
{
	const char *in[64], *out[TOOL_LINK_NR_OUTPUTS];
	size_t ni = 0, no = tool_link_outputs_paths(&a->lo, out), i;

	in[ni++] = a->in.binary;
	in[ni++] = profile;
	if (a->in.map)
		in[ni++] = a->in.map;
	if (a->holdout)
		in[ni++] = a->holdout;
	if (a->traced)
		in[ni++] = a->traced;
	for (i = 0; i < a->in.nr_objects && ni < ARRAY_LEN(in); i++)
		in[ni++] = a->in.objects[i];
	return tool_check_outputs(in, ni, out, no);
}

/*
 * The command line's checks before anything is read: the caches, the
 * growth room against them, the alignment file's name, no output over an
 * input.  0, or an exit code after a message.
 */
static int plan_setup(struct plan_args *a, char **argv, int first, char **align_name)
{
	uint32_t span = 0;
	size_t k;

	if (tool_default_cache(&a->in))
		return EXIT_USAGE;
	for (k = 0; k < a->in.nr_caches; k++)
		if (a->in.caches[k].way_span > span)
			span = a->in.caches[k].way_span;
	/* room past a way span puts the next unit in every set anew */
	if (a->po.growth > span) {
		tool_error("bad --growth '%" PRIu64 "': more than the largest way span, %u bytes", a->po.growth,
			   span);
		return EXIT_USAGE;
	}
	if (!a->lo.path[TOOL_OUT_ALIGN]) {
		if (!a->lo.path[TOOL_OUT_FRAGMENT] || !strcmp(a->lo.path[TOOL_OUT_FRAGMENT], "-")) {
			tool_error("plan: --align-file is needed when the fragment goes to standard output");
			return EXIT_USAGE;
		}
		a->lo.path[TOOL_OUT_ALIGN] = *align_name = tool_align_name(a->lo.path[TOOL_OUT_FRAGMENT]);
		if (!a->lo.path[TOOL_OUT_ALIGN])
			return tool_error("out of memory");
	}
	a->in.binary = argv[first];
	return plan_check_outputs(a, argv[first + 1]);
}

/*
 * The session's binary and profile (a QEMU log of another link with
 * --traced) into *S, and --keep's plan.  0, or an exit code.
 */
static int plan_inputs(struct plan_args *a, const char *profile, struct cachepin_session **s,
		       struct cachepin_align **prev)
{
	struct cachepin_session_opts o = {
		.model = { .refs = a->refs, .whole = a->whole },
		.traced = a->traced, .holdout = a->holdout, .run_model = true,
	};

	*s = tool_session(&a->in, profile, &o, NEED_BINARY | NEED_PROFILE);
	if (!*s)
		return 1;
	return a->prev ? plan_prev(a, prev, (*s)->bin) : 0;
}

/*
 * The rest of the session: the model to plan on and the held-out folds
 * the candidates are judged on (none where one method is asked for:
 * nothing to choose), into A->po.  0 or 1 after the message.
 */
static int plan_model(struct plan_args *a, struct cachepin_session *s)
{
	unsigned int needs = tool_find_cmd("plan")->needs;

	if (a->po.methods && !(a->po.methods & (a->po.methods - 1)))
		needs &= ~NEED_FOLDS;
	if (tool_session_open(&a->in, s, needs))
		return 1;
	a->po.caches = a->in.caches;
	a->po.nr_caches = a->in.nr_caches;
	memcpy(a->po.folds, s->folds, sizeof(a->po.folds));
	a->po.nr_folds = s->nr_folds;
	return 0;
}

/* What the planner's ERR means, said. */
static void plan_failed(const struct plan_args *a, int err, const struct cachepin_align *prev)
{
	if (err == -ENOMEM)
		tool_error("out of memory");
	if (err == -EXDEV) {
		tool_error("'%s': planned for %s, a block aligned to %" PRIu64 " bytes: its offsets do not give the sets of a plan for %s",
			   a->prev, prev->cache, prev->block_align, a->in.caches[0].name);
		tool_hint("plan for the caches it was planned for, or without --keep");
	}
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args a = { .po = { .max_pad = 512, .seed = 1, .max_hot = 4000, .restarts = 8,
				       .growth = 64 } };
	struct cachepin_emit_score sc[ARRAY_LEN(a.in.caches)];
	struct cachepin_session *s = NULL;
	struct cachepin_plan plan = { 0 };
	struct cachepin_modplan mp = { 0 };
	struct timespec t0, t1;
	char *align_name = NULL;
	struct cachepin_align *prev = NULL;
	int first, rc = 1, err;

	first = tool_parse(tool_find_cmd("plan"), argc, argv, plan_opt, &a);
	if (argc - first != 2) {
		tool_error("plan: need a binary and a profile");
		tool_usage(tool_find_cmd("plan"), stderr);
		tool_inputs_release(&a.in);
		return EXIT_USAGE;
	}
	if ((rc = plan_setup(&a, argv, first, &align_name)) ||
	    (rc = plan_inputs(&a, argv[first + 1], &s, &prev)))
		goto out;
	rc = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (plan_model(&a, s))
		goto out;
	if (plan_modules(&a, s, &mp))
		goto out;
	tool_progress_start("plan");
	err = cachepin_plan__run(s->model, &a.po, &plan);
	tool_progress_stop();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err) {
		plan_failed(&a, err, prev);
		goto out;
	}
	cand_report(&a, &plan, s->load.profile);
	event_note(s->load.profile);
	plan_report(&a, &plan, elapsed(&t0, &t1), sc);
	if (modules_report(&a, s, &plan, &mp))
		goto out;
	rc = plan_write(&a, &plan, s->model, s->load.profile, sc, &mp);
out:
	free(align_name);
	cachepin_align__free(prev);
	cachepin_plan__release(&plan);
	cachepin_modplan__release(&mp);
	cachepin_session__free(s);
	tool_inputs_release(&a.in);
	return rc;
}
