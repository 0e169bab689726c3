// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin check: after the link, every planned unit is at its planned
 * offset and set, the block start is aligned, nothing planned is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/align.h"
#include "cachepin/layout.h"
#include "cachepin/model.h"
#include "cachepin/modplan.h"
#include "cachepin/score.h"
#include "cachepin/symmap.h"
#include "tool.h"

enum { OPT_QUIET = 'q', OPT_PROFILE = 'p' };

const struct tool_opt check_opts[] = {
	{ "quiet", 'q', NULL, "print only problems", OPT_QUIET },
	{ "profile", 'p', "PROFILE", "also model the misses of this link and of the plan's layout of it (an ELF binary, with its map)", OPT_PROFILE },
	{ "map", 'm', "FILE", "GNU ld link map of the binary: the units' alignment for the plan's layout", 'm' },
	{ "modules", 0, "DIR", "check the modules under DIR, relinked, against the modules' script of plan --modules-lds (the one argument)", 1007 },
	{ NULL }
};

struct check_ctx {
	const char *binary, *profile;
	struct tool_inputs in;
	bool quiet;
	/*
	 * The last unit in place before a run of moved ones (file order is
	 * block order): the one that grew past its room, if a commit grew
	 * one; named once, before the first hot unit of the run.
	 */
	const struct cachepin_align_entry *last_ok;
	bool named;
};

static int check_opt(int id, const char *arg, void *ctx)
{
	struct check_ctx *c = ctx;

	switch (id) {
	case OPT_QUIET:
		c->quiet = true;
		return 0;
	case OPT_PROFILE:
		c->profile = arg;
		return 0;
	case 'm':
		c->in.map = arg;
		return 0;
	case 1007:
		c->in.modules = arg;
		return 0;
	}
	return EXIT_USAGE;
}

static void check_entry(void *ctx, const struct cachepin_verify_entry *v)
{
	struct check_ctx *c = ctx;
	const struct cachepin_align_entry *e = v->e;

	if (v->state == CACHEPIN_VERIFY_OK) {
		c->last_ok = e;
		c->named = false;
	} else if (v->state == CACHEPIN_VERIFY_MOVED && !c->named && c->last_ok) {
		printf("moved after: %s %s, at its planned offset +0x%" PRIx64
		       " (it grew past its room, or the link put other code after it)\n",
		       c->last_ok->hot ? "hot" : "fill", c->last_ok->symbol, c->last_ok->off);
		c->named = true;
	}

	switch (v->state) {
	case CACHEPIN_VERIFY_UNNAMED:
		return;
	case CACHEPIN_VERIFY_MISSING:
		printf("missing: %s (%s%s%s) is not in '%s'\n", e->symbol, e->object ? e->object : "",
		       e->object ? ":" : "", e->section, c->binary);
		return;
	default:
		break;
	}
	if (v->nr_names > 1 && !c->quiet)
		printf("note: '%s' names %zu symbols; %s\n", e->symbol, v->nr_names,
		       v->one_at_slot ? "one is at its planned offset" :
		       "none at its planned offset, the first is reported");
	if (v->state == CACHEPIN_VERIFY_OK || (!e->hot && !tool_verbose))
		return;
	printf("%s: %s %s planned +0x%" PRIx64 " (set %u), now +0x%" PRIx64 " (set %u)\n",
	       e->hot ? "moved" : "note: fill moved", e->hot ? "hot" : "fill", e->symbol, e->off,
	       e->first_set, v->off, v->set);
}

static void check_start(const struct cachepin_align *al, const struct cachepin_verify *v,
			const struct check_ctx *c)
{
	if (!v->have_start)
		printf("no __cachepin_start in '%s': offsets taken from '%s'\n", c->binary,
		       v->anchor ? v->anchor : "?");
	else if (v->misaligned)
		printf("misaligned: __cachepin_start at 0x%" PRIx64 " is not a multiple of %" PRIu64 "\n",
		       v->start, al->block_align);
	else if (!c->quiet)
		printf("block start 0x%" PRIx64 ", aligned to %" PRIu64 "\n", v->start, al->block_align);
}

/*
 * The kernel text after TEXT_TEXT: the plan coloured around it where the
 * hook's end alignment puts it.
 */
static void check_tail(const struct cachepin_align *al, const struct cachepin_verify *v,
		       const struct check_ctx *c)
{
	if (v->tail == CACHEPIN_TAIL_MISSING)
		printf("missing: %s (the text after the block) is not in '%s'\n", al->tail_symbol,
		       c->binary);
	else if (v->tail == CACHEPIN_TAIL_MOVED)
		printf("moved: the text after the block: %s planned at 0x%" PRIx64 " past a multiple of %" PRIu64
		       ", now at 0x%" PRIx64 " (0x%" PRIx64 "); its sets differ from the plan's "
		       "(is TEXT_TEXT ended on the block alignment? the kbuild patches and cachepin-kbuild -n do)\n",
		       al->tail_symbol, al->tail_phase, al->block_align, v->tail_addr % al->block_align,
		       v->tail_addr);
}

/* The misses of model M under cache C for layout L (NULL: as linked) into *MISS. */
static int model_misses(const struct cachepin_model *m, const struct cachepin_layout *l,
			const struct cachepin_cache *c, uint64_t *miss)
{
	struct cachepin_score sc;

	if (cachepin_score__run(m, l, c, CACHEPIN_SCORE_NO_OPT | CACHEPIN_SCORE_OWN_POLICY, &sc))
		return tool_error("out of memory");
	*miss = sc.miss[c->repl];
	cachepin_score__release(&sc);
	return 0;
}

/*
 * --profile: this link's modelled misses, and those of this link with
 * every unit of the plan at its planned offset from START, the block
 * start (where a unit grew, what the plan's sets would give), for the
 * plan's cache.  0, or 1 after a message.
 */
static int check_misses(struct check_ctx *c, const struct cachepin_align *al, const char *al_path,
			uint64_t start)
{
	struct cachepin_session_opts o = { .name_binary = true };
	struct cachepin_session *s;
	struct cachepin_layout l = { 0 };
	uint64_t now = 0, planned = 0;
	const struct cachepin_cache *cache;
	int rc = 1;

	if (tool_inputs_opt(&c->in, 'c', al->cache))
		return tool_error("'%s': cache '%s' is no geometry this cachepin knows", al_path, al->cache);
	cache = &c->in.caches[0];
	c->in.binary = c->binary;
	s = tool_session(&c->in, c->profile, &o, NEED_BINARY);
	if (!s)
		return 1;
	/* the plan is laid out unit by unit: a binary without its map has none */
	if (!s->bin->nr_units) {
		tool_error("check: '%s' has no units to lay '%s' out on without its link map", c->binary, al_path);
		tool_hint("give the link map with -m for the modelled misses (-p)");
		goto out;
	}
	if (tool_session_open(&c->in, s, tool_find_cmd("check")->needs) ||
	    model_misses(s->model, NULL, cache, &now))
		goto out;
	if (cachepin_layout__pin_align(&l, s->bin, al, start)) {
		tool_error("out of memory");
		goto out;
	}
	if (model_misses(s->model, &l, cache, &planned))
		goto out;
	printf("modelled misses (%s, %s): this link %" PRIu64 ", as planned %" PRIu64 " (%+.1f %%)\n",
	       cache->name, cachepin_repl_name(cache->repl), now, planned,
	       planned ? 100.0 * ((double)now - (double)planned) / (double)planned : 0);
	rc = 0;
out:
	cachepin_layout__release(&l);
	cachepin_session__free(s);
	return rc;
}

static void check_module_func(void *ctx, const struct cachepin_modplan_seen *s)
{
	const struct check_ctx *c = ctx;

	if (!s->found)
		printf("missing: %s: %s, planned +0x%" PRIx64 "\n", s->module, s->func, s->planned);
	else if (s->now != s->planned)
		printf("%s: %s planned +0x%" PRIx64 ", now +0x%" PRIx64 "\n", s->module, s->func,
		       s->planned, s->now);
	else if (!c->quiet && tool_verbose)
		printf("%s: %s at +0x%" PRIx64 "\n", s->module, s->func, s->now);
}

/* --modules DIR SCRIPT: the relinked modules against the modules' script. */
static int check_modules(struct check_ctx *c, const char *script)
{
	struct cachepin_modules *mods = cachepin_modules__open(c->in.modules);
	struct cachepin_modplan_verify v;
	int err;

	if (!mods)
		return 1;
	err = cachepin_modplan__verify(script, mods, check_module_func, c, &v);
	cachepin_modules__free(mods);
	if (err)
		return 1;
	if (v.moved || v.missing) {
		printf("FAILED: %zu of %zu planned functions of %zu modules in place, %zu moved, %zu missing\n",
		       v.ok, v.nr, v.modules, v.moved, v.missing);
		return 1;
	}
	if (!c->quiet)
		printf("ok: %zu of %zu planned functions of %zu modules at their planned offsets\n", v.ok, v.nr,
		       v.modules);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct cachepin_symmap *sm = NULL;
	struct cachepin_align *al = NULL;
	struct cachepin_verify v;
	struct check_ctx c = { 0 };
	int first, rc = 1;

	first = tool_parse(tool_find_cmd("check"), argc, argv, check_opt, &c);
	if (c.in.modules) {
		if (argc - first != 1 || c.profile || c.in.map) {
			tool_error("check --modules: need the modules' script of plan --modules-lds, and nothing else");
			rc = EXIT_USAGE;
		} else {
			rc = check_modules(&c, argv[first]);
		}
		goto out;
	}
	if (argc - first != 2) {
		tool_error("check: need the relinked binary (or System.map, nm output) and the alignment file");
		tool_usage(tool_find_cmd("check"), stderr);
		rc = EXIT_USAGE;
		goto out;
	}
	c.binary = argv[first];
	sm = cachepin_symmap__open(c.binary);
	if (!sm)
		goto out;
	al = cachepin_align__read(argv[first + 1]);
	if (!al)
		goto out;
	if (!al->nr) {
		if (!c.quiet)
			printf("ok: the plan moves nothing (the link stays)\n");
		rc = 0;
		goto out;
	}
	cachepin_align__anchor(al, sm, &v);
	check_start(al, &v, &c);
	if (cachepin_align__verify(al, sm, &v, check_entry, &c)) {
		check_tail(al, &v, &c);
		if (c.profile && check_misses(&c, al, argv[first + 1], v.start))
			goto out;
		printf("FAILED: %zu of %zu units in place, %zu hot moved, %zu missing%s%s\n", v.ok,
		       al->nr, v.moved, v.missing, v.misaligned ? ", block start misaligned" : "",
		       v.tail != CACHEPIN_TAIL_OK ? ", the text after the block elsewhere" : "");
		goto out;
	}
	if (c.profile && !c.quiet && check_misses(&c, al, argv[first + 1], v.start))
		goto out;
	if (!c.quiet || v.fill_moved)
		printf("ok: %zu of %zu units at their planned offsets; %zu fill units moved (cold code, -v lists them)%s\n",
		       v.ok, al->nr, v.fill_moved,
		       v.unnamed ? "; fill units without a symbol not checked" : "");
	rc = 0;
out:
	cachepin_align__free(al);
	cachepin_symmap__free(sm);
	tool_inputs_release(&c.in);
	return rc;
}
