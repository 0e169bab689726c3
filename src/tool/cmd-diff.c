// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin diff: two builds of one code base under one profile: the
 * modelled misses of each, the hot functions that changed set, the
 * pairs of functions that now fight over sets and those that no longer
 * do, by impact.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/diff.h"
#include "cachepin/layout.h"
#include "cachepin/symmap.h"
#include "tool.h"

enum { OPT_OLD_MAP = 2001, OPT_NEW_MAP, OPT_ALL };

const struct tool_opt diff_opts[] = {
	TOOL_CACHE_OPT,
	{ "old-map", 0, "FILE", "GNU ld link map of OLD", OPT_OLD_MAP },
	{ "new-map", 0, "FILE", "GNU ld link map of NEW", OPT_NEW_MAP },
	{ "top", 0, "N", "show the N functions and pairs of most impact (default 20)", TOOL_OPT_TOP },
	{ "all", 0, NULL, "show every hot function, also those that kept their set and misses", OPT_ALL },
	TOOL_JSON_OPT,
	{ "svg", 0, "FILE", "draw the sets' pressure of both builds into FILE (SVG; the first geometry)", TOOL_OPT_SVG },
	{ "kernel", 0, NULL, "take kernel samples (default when the binary is a kernel)", 1002 },
	{ "user", 0, NULL, "take user-space samples of this program", 1003 },
	{ "modules", 0, "DIR", "the kernel's modules (*.ko) by name under DIR: their hot functions, where the recording loaded them, occupy the same sets in both builds", 1007 },
	TOOL_PROC_MODULES_OPT,
	TOOL_MODULE_PAGES_OPT,
	TOOL_IDLE_OPT,
	{ NULL }
};

struct diff_args {
	struct tool_inputs in;
	struct tool_report rep;
	const char *old_map, *new_map;
	bool all;
};

static int diff_opt(int id, const char *arg, void *ctx)
{
	struct diff_args *a = ctx;
	int r;

	switch (id) {
	case OPT_ALL:
		a->all = true;
		return 0;
	case OPT_OLD_MAP:
		a->old_map = arg;
		return 0;
	case OPT_NEW_MAP:
		a->new_map = arg;
		return 0;
	}
	if ((r = tool_report_opt(&a->rep, id, arg)) >= 0)
		return r;
	r = tool_inputs_opt(&a->in, id, arg);
	return r < 0 ? EXIT_USAGE : r;
}

/* One build: its session (binary, profile, model, a score per cache), or scores of another's model. */
struct build {
	struct cachepin_session *s;
	const struct cachepin_binary *bin;	/* the session's; NULL for scores of another's */
	struct cachepin_score *scores;
	size_t nr_scores;
	struct cachepin_layout layout;	/* a symbol map's: the other build's binary laid out */
};

/* The layout B's scores were made on: NULL for a build scored as linked. */
static const struct cachepin_layout *build_layout(const struct build *b)
{
	return b->layout.delta ? &b->layout : NULL;
}

static int build_open(struct diff_args *a, struct build *b, const char *path, const char *map,
		      const char *profile, bool elf)
{
	/* a build that left only its System.map: its symbols, no code */
	struct cachepin_session_opts o = {
		.symmap = !elf, .name_binary = true,
		.score_flags = CACHEPIN_SCORE_DETAIL | CACHEPIN_SCORE_NO_OPT,
	};

	a->in.binary = path;
	a->in.map = map;
	b->s = tool_session(&a->in, profile, &o, tool_find_cmd("diff")->needs);
	if (!b->s)
		return 1;
	b->bin = b->s->bin;
	b->scores = b->s->scores;
	b->nr_scores = b->s->nr_scores;
	return 0;
}

/*
 * Both builds' sessions read the one profile and say the same of it:
 * while the second one opens, a message the first one's said already
 * is left out, and the hint that goes with it.
 */
static struct {
	char **said;
	size_t nr, cap;
	bool second;		/* the second build's session is opening */
	bool left_out;		/* the message before a hint was */
	cachepin_print_fn_t next;
} once;

static int once_print(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	char msg[1024], **more;
	va_list aq;
	size_t i;

	va_copy(aq, ap);
	vsnprintf(msg, sizeof(msg), fmt, aq);
	va_end(aq);
	if (!strncmp(msg, "hint:", 5)) {
		if (once.left_out)
			return 0;
	} else if (once.second) {
		for (i = 0; i < once.nr && strcmp(once.said[i], msg); i++)
			;
		once.left_out = i < once.nr;
		if (once.left_out)
			return 0;
	} else {
		if (once.nr == once.cap) {
			once.cap = once.cap ? 2 * once.cap : 16;
			more = realloc(once.said, once.cap * sizeof(*more));
			if (!more)
				return once.next(level, fmt, ap);
			once.said = more;
		}
		if ((once.said[once.nr] = strdup(msg)))
			once.nr++;
	}
	return once.next(level, fmt, ap);
}

static void once_end(void)
{
	while (once.nr)
		free(once.said[--once.nr]);
	free(once.said);
	cachepin_set_print(once.next);
	memset(&once, 0, sizeof(once));
}

/* Does PATH start like an ELF file?  1, 0, or -1 after a message. */
static int is_elf(const char *path)
{
	unsigned char m[4] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -tool_error("cannot open '%s': %s", path, strerror(errno));
	n = fread(m, 1, sizeof(m), f);
	fclose(f);
	return n == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
}

/*
 * The other build given as a symbol map (System.map, nm output): the
 * functions of E's binary at its addresses, scored with E's model into
 * B's scores, on B's layout.  0 or 1 after a message.
 */
static int build_from_map(struct diff_args *a, const struct build *e, struct build *b,
			  const char *path)
{
	struct cachepin_symmap *sm = cachepin_symmap__open(path);
	size_t missing, i;
	int err;

	if (!sm)
		return 1;
	err = cachepin_layout__from_symmap(&b->layout, e->bin, sm, &missing);
	cachepin_symmap__free(sm);
	if (err)
		return tool_error("out of memory");
	if (missing)
		tool_warn("'%s': %zu functions of '%s' are not named once in it; they keep their address",
			  path, missing, e->bin->path);
	b->scores = calloc(a->in.nr_caches, sizeof(*b->scores));
	if (!b->scores)
		return tool_error("out of memory");
	for (i = 0; i < a->in.nr_caches; i++) {
		if (cachepin_score__run(e->s->model, &b->layout, &a->in.caches[i],
					CACHEPIN_SCORE_DETAIL | CACHEPIN_SCORE_NO_OPT, &b->scores[i]))
			return tool_error("out of memory");
		b->nr_scores++;
	}
	return 0;
}

static void build_close(struct build *b)
{
	size_t i;

	cachepin_layout__release(&b->layout);
	if (b->s) {
		cachepin_session__free(b->s);
		return;
	}
	for (i = 0; i < b->nr_scores; i++)
		cachepin_score__release(&b->scores[i]);
	free(b->scores);
}

static double change(uint64_t from, uint64_t to)
{
	return from ? 100.0 * ((double)to - (double)from) / (double)from : 0.0;
}

/* Sets whose hot lines or misses changed, by the change of their misses. */
struct set_change {
	uint32_t set;
	int64_t dmiss;
};

static int cmp_set_change(const void *pa, const void *pb)
{
	const struct set_change *a = pa, *b = pb;
	uint64_t da = (uint64_t)(a->dmiss < 0 ? -a->dmiss : a->dmiss);
	uint64_t db = (uint64_t)(b->dmiss < 0 ? -b->dmiss : b->dmiss);

	if (da != db)
		return da > db ? -1 : 1;
	return a->set < b->set ? -1 : a->set > b->set;
}

static void text_sets(const struct cachepin_score *os, const struct cachepin_score *ns, uint64_t top)
{
	const struct cachepin_cache *c = &os->cache;
	struct set_change *sc = calloc(c->sets, sizeof(*sc));
	size_t n = 0, i;
	uint32_t s;

	if (!sc)
		return;
	for (s = 0; s < c->sets; s++) {
		const struct cachepin_score_set *a = &os->sets[s], *b = &ns->sets[s];

		if (a->lines != b->lines || a->miss[CACHEPIN_REPL_LRU] != b->miss[CACHEPIN_REPL_LRU])
			sc[n++] = (struct set_change){
				s, (int64_t)(b->miss[CACHEPIN_REPL_LRU] - a->miss[CACHEPIN_REPL_LRU]) };
	}
	qsort(sc, n, sizeof(*sc), cmp_set_change);
	printf("sets that changed pressure (hot lines against %u ways): %zu\n", c->ways, n);
	if (n)
		printf("  %6s %14s %15s\n", "set", "hot lines", "LRU misses");
	for (i = 0; i < n && i < top; i++) {
		const struct cachepin_score_set *a = &os->sets[sc[i].set], *b = &ns->sets[sc[i].set];

		printf("  %6u %5u -> %-5u%s %10" PRIu64 " -> %" PRIu64 "\n", sc[i].set, a->lines,
		       b->lines, b->lines > c->ways && a->lines <= c->ways ? "!" :
		       a->lines > c->ways && b->lines <= c->ways ? "-" : " ",
		       a->miss[CACHEPIN_REPL_LRU], b->miss[CACHEPIN_REPL_LRU]);
	}
	free(sc);
}

void tool_diff_text(const struct cachepin_score *os, const struct cachepin_score *ns,
		    const struct cachepin_diff *d, uint64_t top, bool all)
{
	const struct cachepin_cache *c = &os->cache;
	uint64_t lo = os->miss[CACHEPIN_REPL_LRU], ln = ns->miss[CACHEPIN_REPL_LRU];
	uint64_t ro = os->miss[CACHEPIN_REPL_RANDOM], rn = ns->miss[CACHEPIN_REPL_RANDOM];
	size_t i, shown, added = 0;

	printf("\ncache %s: %u bytes, %u ways, %u-byte lines, %u sets\n", c->name, c->size, c->ways,
	       c->line, c->sets);
	printf("modelled misses: LRU %" PRIu64 " -> %" PRIu64 " (%+.1f %%), pseudo-random %" PRIu64
	       " -> %" PRIu64 " (%+.1f %%); fully associative %" PRIu64 " -> %" PRIu64 "\n",
	       lo, ln, change(lo, ln), ro, rn, change(ro, rn), os->miss_fa_lru, ns->miss_fa_lru);
	printf("hot functions: %zu in both builds, %zu in another set", d->nr_funcs, d->nr_moved);
	if (d->nr_unmatched)
		printf("; %zu not compared (a name not once in each build)", d->nr_unmatched);
	printf("\n");
	if (d->nr_funcs) {
		printf("  %8s %10s %10s %8s %8s  %s\n", "change", "old miss", "new miss", "old set",
		       "new set", "function");
		for (i = 0, shown = 0; i < d->nr_funcs && shown < top; i++) {
			const struct cachepin_diff_func *f = &d->funcs[i];

			if (f->old_set == f->new_set && f->old_miss == f->new_miss && !all)
				continue;
			printf("  %+8" PRId64 " %10" PRIu64 " %10" PRIu64 " %8u %8u  %s\n",
			       (int64_t)(f->new_miss - f->old_miss), f->old_miss, f->new_miss, f->old_set,
			       f->new_set, f->name);
			shown++;
		}
	}
	text_sets(os, ns, top);
	for (i = 0; i < d->nr_pairs; i++)
		added += d->pairs[i].added;
	printf("pairs of functions sharing over-full sets: %zu new, %zu gone\n", added,
	       d->nr_pairs - added);
	for (i = 0; i < d->nr_pairs && i < top; i++) {
		const struct cachepin_diff_pair *p = &d->pairs[i];

		printf("  %s %8" PRIu64 " misses in %u sets  %s + %s\n", p->added ? "new " : "gone",
		       p->miss, p->sets, p->a, p->b);
	}
}

/* The misses of every policy a diff simulates (the online ones: no Belady). */
static void json_misses(struct tool_json *j, const char *key, const struct cachepin_score *s)
{
	enum cachepin_repl rp;

	tool_json_open(j, key, '{', true);
	for (rp = 0; rp < CACHEPIN_REPL__NR; rp++)
		if (cachepin_repl__online(rp))
			tool_json_u64(j, cachepin_repl_name(rp), s->miss[rp]);
	tool_json_u64(j, "fully_associative_lru", s->miss_fa_lru);
	tool_json_close(j);
}

void tool_diff_json(struct tool_json *j, const struct cachepin_score *os,
		    const struct cachepin_score *ns, const struct cachepin_diff *d)
{
	size_t i;

	tool_json_cache(j, &os->cache);
	json_misses(j, "old", os);
	json_misses(j, "new", ns);
	tool_json_u64(j, "hot_functions", d->nr_funcs);
	tool_json_u64(j, "moved", d->nr_moved);
	tool_json_u64(j, "unmatched", d->nr_unmatched);
	tool_json_open(j, "functions", '[', false);
	for (i = 0; i < d->nr_funcs; i++) {
		const struct cachepin_diff_func *f = &d->funcs[i];

		tool_json_open(j, NULL, '{', true);
		tool_json_str(j, "name", f->name);
		tool_json_u64(j, "old_addr", f->old_addr);
		tool_json_u64(j, "new_addr", f->new_addr);
		tool_json_u64(j, "old_set", f->old_set);
		tool_json_u64(j, "new_set", f->new_set);
		tool_json_u64(j, "old_misses", f->old_miss);
		tool_json_u64(j, "new_misses", f->new_miss);
		tool_json_num(j, "weight", -6, f->weight);
		tool_json_close(j);
	}
	tool_json_close(j);
	tool_json_open(j, "pairs", '[', false);
	for (i = 0; i < d->nr_pairs; i++) {
		const struct cachepin_diff_pair *p = &d->pairs[i];

		tool_json_open(j, NULL, '{', true);
		tool_json_str(j, "a", p->a);
		tool_json_str(j, "b", p->b);
		tool_json_u64(j, "misses", p->miss);
		tool_json_u64(j, "sets", p->sets);
		tool_json_str(j, "state", p->added ? "new" : "gone");
		tool_json_close(j);
	}
	tool_json_close(j);
	tool_json_close(j);
}

/*
 * Both builds of NAMES (old, new, profile) into O and N: ELF files with
 * their maps, or one a symbol map that takes the other's binary and
 * model, laid out as the map has it.  0, or an exit code.
 */
static int diff_open(struct diff_args *a, char *const *names, struct build *o, struct build *n)
{
	int old_elf = is_elf(names[0]), new_elf = is_elf(names[1]);

	if (old_elf < 0 || new_elf < 0)
		return 1;
	if (!old_elf && !new_elf && (a->old_map || a->new_map)) {
		tool_error("diff: --old-map and --new-map are link maps of ELF builds; '%s' and '%s' are symbol maps",
			   names[0], names[1]);
		return EXIT_USAGE;
	}
	if (!old_elf && !new_elf)
		tool_warn("neither '%s' nor '%s' is an ELF file: function sizes come from the symbols' spacing and the model has no code (no straight runs); give the vmlinux of one build for the full model",
			  names[0], names[1]);
	/* two ELF builds: two sessions, the second one's repeats left out */
	if (old_elf && new_elf) {
		int err;

		once.next = cachepin_set_print(once_print);
		err = build_open(a, o, names[0], a->old_map, names[2], true);
		once.second = true;
		if (!err)
			err = build_open(a, n, names[1], a->new_map, names[2], true);
		once_end();
		return err;
	}
	/* a symbol map takes the other build's binary and model */
	if (old_elf ? build_open(a, o, names[0], a->old_map, names[2], true) ||
		      build_from_map(a, o, n, names[1]) :
	    new_elf ? build_open(a, n, names[1], a->new_map, names[2], true) ||
		      build_from_map(a, n, o, names[0]) :
		      build_open(a, o, names[0], a->old_map, names[2], false) ||
		      build_from_map(a, o, n, names[1]))
		return 1;
	return 0;
}

/* Every geometry of O against N, as text or JSON, on standard output.  0 or 1. */
static int diff_report(const struct diff_args *a, char *const *names, const struct build *o,
		       const struct build *n)
{
	const struct cachepin_binary *ob = o->bin ? o->bin : n->bin, *nb = n->bin ? n->bin : o->bin;
	struct cachepin_diff d;
	struct tool_json j;
	size_t i;

	tool_json_init(&j, stdout);
	if (a->rep.json) {
		tool_json_open(&j, NULL, '{', false);
		tool_json_str(&j, "old", names[0]);
		tool_json_str(&j, "new", names[1]);
		tool_json_open(&j, "caches", '[', false);
	} else
		printf("old '%s', new '%s', profile '%s': %zu and %zu functions\n", names[0], names[1],
		       names[2], ob->nr_funcs, nb->nr_funcs);
	for (i = 0; i < a->in.nr_caches; i++) {
		if (cachepin_diff__run(ob, &o->scores[i], build_layout(o), nb, &n->scores[i],
				       build_layout(n), &d))
			return tool_error("out of memory");
		if (a->rep.json)
			tool_diff_json(&j, &o->scores[i], &n->scores[i], &d);
		else
			tool_diff_text(&o->scores[i], &n->scores[i], &d, a->rep.top, a->all);
		cachepin_diff__release(&d);
	}
	if (a->rep.json)
		tool_json_end(&j);
	if (fflush(stdout) || ferror(stdout))
		return tool_error("diff: cannot write the output");
	if (a->rep.svg) {
		const struct cachepin_score *sp[2] = { &o->scores[0], &n->scores[0] };
		const char *titles[2] = { names[0], names[1] };
		const struct cachepin_binary *bins[2] = { ob, nb };

		return tool_svg_write(a->rep.svg, bins, sp, titles, 2);
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	const struct tool_cmd *cmd = tool_find_cmd("diff");
	struct diff_args a = { .rep.top = 20 };
	struct build o = { 0 }, n = { 0 };
	int first, rc;

	first = tool_parse(cmd, argc, argv, diff_opt, &a);
	if (argc - first != 3) {
		tool_error("diff: need two builds and a profile");
		tool_usage(cmd, stderr);
		tool_inputs_release(&a.in);
		return EXIT_USAGE;
	}
	if (tool_default_cache(&a.in)) {
		tool_inputs_release(&a.in);
		return EXIT_USAGE;
	}
	{
		const char *more[5] = { argv[first], argv[first + 1], argv[first + 2], a.old_map, a.new_map };
		const char *outs[1] = { a.rep.svg };

		if ((rc = tool_check_inputs_outputs(&a.in, more, 5, outs, 1)))
			goto out;
	}
	if (!(rc = diff_open(&a, argv + first, &o, &n)))
		rc = diff_report(&a, argv + first, &o, &n);
out:
	build_close(&o);
	build_close(&n);
	tool_inputs_release(&a.in);
	return rc;
}
