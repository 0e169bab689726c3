// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin score: the expected misses of the layout as it is in the
 * binary, per set and in total, the worst sets and the functions that
 * fight over them (model: cachepin/model.h, cachepin-score(1)).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachepin/score.h"
#include "cachepin/srcline.h"
#include "tool.h"

enum { OPT_TOP = 2001, OPT_REFS, OPT_LINES, OPT_WHOLE, OPT_OUTPUT = 'o' };

const struct tool_opt score_opts[] = {
	TOOL_CACHE_OPT,
	TOOL_JSON_OPT,
	{ "top", 0, "N", "show the N worst sets and pairs (default 10)", OPT_TOP },
	{ "refs", 0, "N", "length of the modelled reference string (default 2097152)", OPT_REFS },
	{ "whole-functions", 0, NULL, "take every line of a sampled function as hot, not only sampled ones", OPT_WHOLE },
	{ "source-lines", 'l', NULL, "name the source line of each worst set's hottest line (DWARF)", OPT_LINES },
	{ "output", 'o', "FILE", "write the report to FILE (default: standard output)", OPT_OUTPUT },
	{ "svg", 0, "FILE", "draw the sets' pressure into FILE (SVG, a panel per geometry)", TOOL_OPT_SVG },
	TOOL_INPUT_OPTS,
	TOOL_IDLE_OPT,
	TOOL_MODULE_PAGES_OPT,
	{ NULL }
};

struct score_args {
	struct tool_inputs in;
	struct tool_report rep;	/* its --top is score's own */
	bool lines, whole;
	unsigned int top;
	size_t refs;
	const char *output;
};

/* A count from 1 to 2^31 for option WHAT. */
static int parse_count(const char *arg, size_t *v, const char *what)
{
	uint64_t n;
	int r = tool_parse_u64(arg, &n, what);

	if (r)
		return r;
	if (n == 0 || n > (1ULL << 31))
		return tool_error("bad %s '%s'", what, arg) * EXIT_USAGE;
	*v = (size_t)n;
	return 0;
}

static int score_opt(int id, const char *arg, void *ctx)
{
	struct score_args *a = ctx;
	size_t v = 0;
	int r;

	switch (id) {
	case OPT_LINES:
		a->lines = true;
		return 0;
	case OPT_WHOLE:
		a->whole = true;
		return 0;
	case OPT_TOP:
		if ((r = parse_count(arg, &v, "--top")))
			return r;
		a->top = (unsigned int)v;
		return 0;
	case OPT_REFS:
		/* 20 bytes a reference while the string is built: 2.7 GB at most */
		if ((r = parse_count(arg, &a->refs, "--refs")))
			return r;
		if (a->refs > (1u << 27))
			return tool_error("bad --refs '%s': give 1 to 134217728", arg) * EXIT_USAGE;
		return 0;
	case OPT_OUTPUT:
		a->output = arg;
		return 0;
	}
	if ((r = tool_report_opt(&a->rep, id, arg)) >= 0)
		return r;
	r = tool_inputs_opt(&a->in, id, arg);
	return r < 0 ? EXIT_USAGE : r;
}

struct report {
	struct score_args *a;
	struct cachepin_session *s;
	struct cachepin_binary *bin;
	struct cachepin_profile *prof;
	struct cachepin_model *model;
	struct cachepin_score *scores;
	size_t nr_scores;
	struct cachepin_srcline *sl;
	double secs;
};


static double per_k(uint64_t miss, uint64_t fetches)
{
	return fetches ? 1000.0 * (double)miss / (double)fetches : 0;
}

static const char *fname(const struct report *r, uint32_t f)
{
	return f == UINT32_MAX ? "?" : r->bin->funcs[f].name;
}

/*
 * Function F's name as reported, into BUF of SIZE: a kernel module's
 * function (a fixed occupant of the module's object) as "MODULE.ko:NAME",
 * the others by name.
 */
static const char *qname(const struct report *r, uint32_t f, char *buf, size_t size)
{
	const struct cachepin_unit *u;

	if (f == UINT32_MAX || !(r->bin->funcs[f].flags & CACHEPIN_FUNC_SYNTHETIC) ||
	    !(u = cachepin_binary__func_unit(r->bin, &r->bin->funcs[f])) || !u->object)
		return fname(r, f);
	snprintf(buf, size, "%s:%s", u->object, r->bin->funcs[f].name);
	return buf;
}

/*
 * More distinct hot lines than the cache holds (sets * ways): even a
 * fully associative cache of the size must evict hot lines.  Its misses
 * are the capacity misses; no layout gets below its optimal replacement's
 * (man cachepin-score: placement can still gain below its LRU's), and
 * what a layout removes is mainly the conflict part.
 */
static void capacity_note(FILE *f, const struct cachepin_cache *c, const struct cachepin_score *s)
{
	uint64_t lru = s->miss[CACHEPIN_REPL_LRU], cap = (uint64_t)c->sets * c->ways;

	if (s->distinct_lines <= cap)
		return;
	fprintf(f, "  capacity-bound: %" PRIu64 " hot lines, more than the %" PRIu64
		" the cache holds (%u sets x %u ways)\n", s->distinct_lines, cap, c->sets, c->ways);
	fprintf(f, "    capacity misses %" PRIu64 " (fully associative LRU) against %" PRIu64
		" set-associative LRU; no layout gets below %" PRIu64 " (fully associative optimal), %s\n",
		s->miss_fa_lru, lru, s->miss_fa_opt,
		s->miss_fa_lru < lru ? "and a layout removes mainly the conflict part" :
		"and there is no conflict part for a layout to remove");
}

/*
 * The misses in each shared library's hot pages into *MISS and how many
 * pages each has into *PAGES (arrays of r->prof->nr_objects, the caller
 * frees): how many libraries have pages (0: nothing to say, no arrays),
 * or -ENOMEM.
 */
static int object_misses(const struct report *r, const struct cachepin_score *s, uint64_t **miss,
			 size_t **pages)
{
	size_t n = r->prof->nr_objects;
	int k;

	*miss = NULL;
	*pages = NULL;
	if (!n)
		return 0;
	*miss = calloc(n, sizeof(**miss));
	*pages = calloc(n, sizeof(**pages));
	k = *miss && *pages ? cachepin_score__object_misses(s, r->bin, r->prof, *miss, *pages) : -ENOMEM;
	if (k <= 0) {
		free(*miss);
		free(*pages);
		*miss = NULL;
		*pages = NULL;
	}
	return k;
}

/*
 * "  shared libraries (fixed): libc.so.6 26 LRU misses, 76.5 % of all (52.8 % of the samples); ..."
 * (a kernel's: "modules (fixed)")
 */
static int text_objects(FILE *f, const struct report *r, const struct cachepin_score *s)
{
	const struct cachepin_profile *p = r->prof;
	uint64_t lru = s->miss[CACHEPIN_REPL_LRU], *miss;
	size_t i, n = 0, *pages;
	int k = object_misses(r, s, &miss, &pages);

	if (k <= 0)
		return k;
	fprintf(f, "  %s (fixed):", cachepin_binary__is_kernel(r->bin) ? "modules" : "shared libraries");
	for (i = 0; i < p->nr_objects; i++) {
		if (!pages[i])
			continue;
		fprintf(f, "%s %s %" PRIu64 "%s, %.1f %%%s (%.1f %%%s)", n ? ";" : "", p->objects[i].name,
			miss[i], n ? "" : " LRU misses", lru ? 100.0 * (double)miss[i] / (double)lru : 0,
			n ? "" : " of all",
			p->nr_samples ? 100.0 * (double)p->objects[i].samples / (double)p->nr_samples : 0,
			n ? "" : " of the samples");
		n++;
	}
	fputc('\n', f);
	free(miss);
	free(pages);
	return 0;
}

/* One geometry's report.  0, or -ENOMEM (no analysis is left out silently). */
static int text_cache(FILE *f, const struct report *r, const struct cachepin_score *s)
{
	const struct cachepin_cache *c = &s->cache;
	uint32_t *order, i, over = 0, hot = 0;
	struct cachepin_score_pair *pairs;
	size_t k, nr_pairs;
	unsigned int top = r->a->top;
	enum cachepin_repl rp;
	char qa[512], qb[512];

	fprintf(f, "\ncache %s: %u KiB, %u-way, %u B lines, %u sets, way span %u B (CPU replaces %s)\n",
		c->name, c->size / 1024, c->ways, c->line, c->sets, c->way_span,
		cachepin_repl_name(c->repl));
	fprintf(f, "  line fetches              %12" PRIu64 "   hot lines %" PRIu64 " (%.1f x capacity)\n",
		s->fetches, s->distinct_lines, (double)s->distinct_lines / (c->size / c->line));
	for (rp = 0; rp < CACHEPIN_REPL__NR; rp++)
		fprintf(f, "  misses %-19s %12" PRIu64 "   %7.2f per 1000 fetches%s\n",
			cachepin_repl__what(rp), s->miss[rp], per_k(s->miss[rp], s->fetches),
			rp == c->repl ? "   <- this CPU" : "");
	fprintf(f, "  fully associative LRU     %12" PRIu64 "   %7.2f per 1000 fetches\n", s->miss_fa_lru,
		per_k(s->miss_fa_lru, s->fetches));
	fprintf(f, "  fully associative optimal %12" PRIu64 "   %7.2f per 1000 fetches\n", s->miss_fa_opt,
		per_k(s->miss_fa_opt, s->fetches));
	fprintf(f, "  conflict part (LRU - fully associative LRU) %+" PRId64 " (%.1f %%)\n",
		(int64_t)(s->miss[CACHEPIN_REPL_LRU] - s->miss_fa_lru),
		s->miss[CACHEPIN_REPL_LRU] ? 100.0 * ((double)s->miss[CACHEPIN_REPL_LRU] - (double)s->miss_fa_lru) /
						     (double)s->miss[CACHEPIN_REPL_LRU] : 0);
	capacity_note(f, c, s);
	if (text_objects(f, r, s))
		return -ENOMEM;
	for (i = 0; i < c->sets; i++) {
		if (s->sets[i].lines)
			hot++;
		if (s->sets[i].lines > c->ways)
			over++;
	}
	fprintf(f, "  sets with hot lines %u of %u; over %u hot lines: %u\n", hot, c->sets, c->ways, over);

	if (cachepin_score__worst_sets(s, &order))
		return -ENOMEM;
	fprintf(f, "\n  worst sets (LRU misses)\n  %5s %5s %7s %9s %9s  %s\n", "set", "lines", "weight%",
		"miss-lru", "miss-rnd", "hottest lines (function+offset)");
	for (i = 0; i < top && i < c->sets; i++) {
		const struct cachepin_score_set *ss = &s->sets[order[i]];
		size_t idx[6], n, j;

		if (!ss->miss[CACHEPIN_REPL_LRU])
			break;
		n = cachepin_score__set_lines(s, order[i], idx, ARRAY_LEN(idx));
		fprintf(f, "  %5u %5u %7.2f %9" PRIu64 " %9" PRIu64 " ", order[i], ss->lines,
			r->model->weight ? 100.0 * ss->weight / r->model->weight : 0,
			ss->miss[CACHEPIN_REPL_LRU], ss->miss[CACHEPIN_REPL_RANDOM]);
		for (j = 0; j < n && j < ARRAY_LEN(idx); j++) {
			uint32_t fi = s->line_func[idx[j]];
			uint64_t a = s->line_no[idx[j]] << c->line_shift;

			fprintf(f, " %s+0x%" PRIx64, qname(r, fi, qa, sizeof(qa)),
				fi == UINT32_MAX || a < r->bin->funcs[fi].addr ? 0 : a - r->bin->funcs[fi].addr);
		}
		if (n > ARRAY_LEN(idx))
			fprintf(f, " (+%zu)", n - ARRAY_LEN(idx));
		if (r->sl && n) {
			const char *file, *inl;
			unsigned int line;
			uint64_t a = s->line_no[idx[0]] << c->line_shift;

			if (cachepin_srcline__lookup(r->sl, a, &file, &line, &inl) == 0)
				fprintf(f, "  [%s:%u%s%s]", file, line, inl ? " in " : "", inl ? inl : "");
		}
		fputc('\n', f);
	}
	free(order);

	if (cachepin_score__pairs(s, &pairs, &nr_pairs))
		return -ENOMEM;
	fprintf(f, "\n  functions fighting over sets (misses they suffer where they share over-full sets)\n");
	fprintf(f, "  %9s %5s  %s\n", "misses", "sets", "pair");
	for (k = 0; k < nr_pairs && k < top; k++)
		fprintf(f, "  %9" PRIu64 " %5u  %s <-> %s\n", pairs[k].miss, pairs[k].sets,
			qname(r, pairs[k].a, qa, sizeof(qa)), qname(r, pairs[k].b, qb, sizeof(qb)));
	if (!nr_pairs)
		fprintf(f, "  (none: no set holds more than %u hot lines)\n", c->ways);
	free(pairs);
	return 0;
}

static int write_text(FILE *f, void *ctx)
{
	const struct report *r = ctx;
	const struct cachepin_profile *p = r->prof;
	const char *kind;
	size_t i;

	fprintf(f, "binary '%s': %s, ELF%d %s, %zu functions, %zu units\n", r->bin->path, r->bin->arch,
		r->bin->elf_class, r->bin->big_endian ? "BE" : "LE", r->bin->nr_funcs, r->bin->nr_units);
	kind = cachepin_profile__event_kind(p);
	fprintf(f, "profile: %" PRIu64 " samples, %" PRIu64 " matched (%.1f %%), event %s%s%s%s, %zu functions, %zu edges\n",
		p->nr_samples, p->nr_matched, p->nr_samples ? 100.0 * (double)p->nr_matched / (double)p->nr_samples : 100.0,
		p->event ? p->event : "-", kind ? " (" : "", kind ? kind : "", kind ? ")" : "",
		p->nr_funcs, p->nr_edges);
	fprintf(f, "model: %zu reference string entries over %zu granules", r->model->nr_refs,
		r->model->nr_items);
	if (r->model->nr_slices)
		fprintf(f, " in %u %s", r->model->nr_slices, p->phases ? "phases" : "time slices");
	fprintf(f, ", order from %s; %.2f %% of the weight too cold to model\n",
		r->model->ordered ? "call edges" : "weight (no call edges)",
		r->model->weight ? 100.0 * r->model->dropped / r->model->weight : 0);
	for (i = 0; i < r->nr_scores; i++)
		if (text_cache(f, r, &r->scores[i]))
			return -ENOMEM;
	return 0;
}

/* "objects": the shared libraries with hot pages, their LRU misses and samples */
static int json_objects(struct tool_json *j, const struct report *r, const struct cachepin_score *s)
{
	const struct cachepin_profile *p = r->prof;
	uint64_t *miss;
	size_t i, *pages;
	int k = object_misses(r, s, &miss, &pages);

	if (k <= 0)
		return k;
	tool_json_open(j, "objects", '[', false);
	for (i = 0; i < p->nr_objects; i++) {
		if (!pages[i])
			continue;
		tool_json_open(j, NULL, '{', true);
		tool_json_str(j, "name", p->objects[i].name);
		tool_json_u64(j, "pages", pages[i]);
		tool_json_u64(j, "samples", p->objects[i].samples);
		tool_json_u64(j, "lru", miss[i]);
		tool_json_close(j);
	}
	tool_json_close(j);
	free(miss);
	free(pages);
	return 0;
}

static void json_misses(struct tool_json *j, const struct cachepin_score *s)
{
	enum cachepin_repl rp;

	tool_json_open(j, "misses", '{', true);
	for (rp = 0; rp < CACHEPIN_REPL__NR; rp++)
		tool_json_u64(j, cachepin_repl_name(rp), s->miss[rp]);
	tool_json_u64(j, "fully_associative_lru", s->miss_fa_lru);
	tool_json_u64(j, "fully_associative_optimal", s->miss_fa_opt);
	tool_json_i64(j, "conflict", (int64_t)(s->miss[CACHEPIN_REPL_LRU] - s->miss_fa_lru));
	tool_json_close(j);
}

static void json_sets(struct tool_json *j, const struct cachepin_score *s)
{
	enum cachepin_repl rp;
	uint32_t set;

	tool_json_open(j, "sets_detail", '[', false);
	for (set = 0; set < s->cache.sets; set++) {
		const struct cachepin_score_set *ss = &s->sets[set];

		if (!ss->lines)
			continue;
		tool_json_open(j, NULL, '{', true);
		tool_json_u64(j, "set", set);
		tool_json_u64(j, "lines", ss->lines);
		tool_json_num(j, "weight", -6, ss->weight);
		for (rp = 0; rp < CACHEPIN_REPL__NR; rp++)
			tool_json_u64(j, cachepin_repl_name(rp), ss->miss[rp]);
		tool_json_u64(j, "fully_associative_lru", ss->miss_fa);
		tool_json_close(j);
	}
	tool_json_close(j);
}

static int json_cache(struct tool_json *j, const struct report *r, const struct cachepin_score *s)
{
	struct cachepin_score_pair *pairs;
	size_t nr_pairs, k;
	char qa[512], qb[512];

	tool_json_cache(j, &s->cache);
	tool_json_u64(j, "fetches", s->fetches);
	tool_json_u64(j, "hot_lines", s->distinct_lines);
	json_misses(j, s);
	if (json_objects(j, r, s))
		return -ENOMEM;
	json_sets(j, s);
	if (cachepin_score__pairs(s, &pairs, &nr_pairs))
		return -ENOMEM;
	tool_json_open(j, "pairs", '[', false);
	for (k = 0; k < nr_pairs && k < r->a->top; k++) {
		tool_json_open(j, NULL, '{', true);
		tool_json_str(j, "a", qname(r, pairs[k].a, qa, sizeof(qa)));
		tool_json_str(j, "b", qname(r, pairs[k].b, qb, sizeof(qb)));
		tool_json_u64(j, "misses", pairs[k].miss);
		tool_json_u64(j, "sets", pairs[k].sets);
		tool_json_close(j);
	}
	free(pairs);
	tool_json_close(j);
	tool_json_close(j);
	return 0;
}

static int write_json(FILE *f, void *ctx)
{
	const struct report *r = ctx;
	struct tool_json j;
	size_t i;

	tool_json_init(&j, f);
	tool_json_open(&j, NULL, '{', false);
	tool_json_str(&j, "binary", r->bin->path);
	tool_json_str(&j, "arch", r->bin->arch);
	tool_json_u64(&j, "functions", r->bin->nr_funcs);
	tool_json_u64(&j, "samples", r->prof->nr_samples);
	tool_json_u64(&j, "matched", r->prof->nr_matched);
	tool_json_open(&j, "model", '{', true);
	tool_json_u64(&j, "refs", r->model->nr_refs);
	tool_json_u64(&j, "granules", r->model->nr_items);
	tool_json_bool(&j, "ordered", r->model->ordered);
	tool_json_u64(&j, "slices", r->model->nr_slices);
	tool_json_bool(&j, "phases", r->model->nr_slices && r->prof->phases);
	tool_json_close(&j);
	tool_json_open(&j, "caches", '[', false);
	for (i = 0; i < r->nr_scores; i++)
		if (json_cache(&j, r, &r->scores[i]))
			return -ENOMEM;
	tool_json_end(&j);
	return 0;
}

/* The session (binary, profile, model, every geometry's score) into R, and the source lines.  0 or 1. */
static int score_build(struct score_args *a, struct report *r, const char *profile)
{
	struct cachepin_session_opts o = {
		.model = { .refs = a->refs, .whole = a->whole }, .score_flags = CACHEPIN_SCORE_DETAIL,
	};

	r->s = tool_session(&a->in, profile, &o, tool_find_cmd("score")->needs);
	if (!r->s)
		return 1;
	r->bin = r->s->bin;
	r->prof = r->s->load.profile;
	r->model = r->s->model;
	r->scores = r->s->scores;
	r->nr_scores = r->s->nr_scores;
	if (!a->rep.json && a->lines) {
		r->sl = cachepin_srcline__open(a->in.binary);
		if (!r->sl && errno == ENODATA)
			tool_warn("'%s' has no DWARF line information; no source lines", a->in.binary);
	}
	return 0;
}

/* The picture of every geometry of R, a panel each.  0 or 1. */
static int score_svg(const struct score_args *a, const struct report *r)
{
	const struct cachepin_score **sp = calloc(r->nr_scores + 1, sizeof(*sp));
	const struct cachepin_binary **bins = calloc(r->nr_scores + 1, sizeof(*bins));
	const char **titles = calloc(r->nr_scores + 1, sizeof(*titles));
	size_t tl = strlen(r->bin->path) + 32, i;
	char *title = malloc(tl);
	int rc = !sp || !bins || !titles || !title;

	if (!rc) {
		snprintf(title, tl, "'%s' as linked", r->bin->path);
		for (i = 0; i < r->nr_scores; i++) {
			sp[i] = &r->scores[i];
			bins[i] = r->bin;
			titles[i] = title;
		}
		rc = tool_svg_write(a->rep.svg, bins, sp, titles, r->nr_scores);
	}
	free(sp);
	free(bins);
	free(titles);
	free(title);
	return rc;
}

int cmd_score(int argc, char **argv)
{
	struct score_args a = { .top = 10 };
	struct report r = { .a = &a };
	int first, rc = 1;

	first = tool_parse(tool_find_cmd("score"), argc, argv, score_opt, &a);
	if (argc - first != 2) {
		tool_error("score: need a binary and a profile");
		tool_usage(tool_find_cmd("score"), stderr);
		tool_inputs_release(&a.in);
		return EXIT_USAGE;
	}
	if (tool_default_cache(&a.in)) {
		tool_inputs_release(&a.in);
		return EXIT_USAGE;
	}
	a.in.binary = argv[first];
	{
		const char *outs[2] = { a.output, a.rep.svg };

		if ((rc = tool_check_inputs_outputs(&a.in, (const char *const *)argv + first + 1, 1,
						    outs, 2)))
			goto out;
		rc = 1;
	}
	if (score_build(&a, &r, argv[first + 1]))
		goto out;
	rc = tool_write_file(a.output, a.rep.json ? write_json : write_text, &r);
	if (!rc && a.rep.svg)
		rc = score_svg(&a, &r);
out:
	cachepin_srcline__free(r.sl);
	cachepin_session__free(r.s);
	tool_inputs_release(&a.in);
	return rc;
}
