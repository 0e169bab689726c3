// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session (cachepin/session.h): the binary, the profile, the model,
 * the scores and the held-out folds a command needs, each made once, and
 * what goes wrong on the way said once, here.
 */
#include <stdio.h>
#include "cachepin/session.h"
#include "internal.h"

struct cachepin_session *cachepin_session__new(const struct cachepin_session_opts *opts)
{
	struct cachepin_session *s;

	if (opts->nr_caches > CACHEPIN_SESSION_MAX_CACHES) {
		pr_warn("too many caches (at most %d)\n", CACHEPIN_SESSION_MAX_CACHES);
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		pr_warn("out of memory\n");
		errno = ENOMEM;
		return NULL;
	}
	s->opts = *opts;
	if (opts->nr_caches)
		memcpy(s->caches, opts->caches, opts->nr_caches * sizeof(*s->caches));
	s->nr_caches = opts->nr_caches;
	s->opts.caches = s->caches;
	s->cache_default = opts->cache_default;
	s->mode = opts->mode;
	return s;
}

/* --ebase and --fixed on the binary just opened.  0 or a negative errno after logging. */
static int session_fix(struct cachepin_session *s)
{
	struct cachepin_binary *bin = s->bin;
	size_t i;
	int r;

	if (s->opts.has_ebase && (r = cachepin_binary__set_ebase(bin, s->opts.ebase))) {
		if (r > 0) {
			pr_warn("'%s': --ebase is for 32-bit MIPS kernels; this is %s ELF%d\n", bin->path,
				bin->arch, bin->elf_class);
			pr_warn("hint: leave --ebase out: only a MIPS vmlinux has its exception handlers at ebase\n");
		}
		return r > 0 ? -EINVAL : r;
	}
	for (i = 0; i < s->opts.nr_fixed; i++) {
		r = cachepin_binary__fix(bin, s->opts.fixed[i], "--fixed");
		if (r < 0) {
			pr_warn("out of memory\n");
			return r;
		}
		if (!r)
			pr_warn("warning: --fixed '%s' matches no function, section or object:section of '%s'\n",
				s->opts.fixed[i], bin->path);
	}
	return 0;
}

/* The binary (a symbol map's functions, or the ELF file with map, objects, ebase, fixed units). */
static int session_binary(struct cachepin_session *s)
{
	const struct cachepin_session_opts *o = &s->opts;
	int err;

	if (o->modules && !(s->mods = cachepin_modules__open(o->modules)))
		return -errno;
	if (o->proc_modules && (err = cachepin_loaded__read(o->proc_modules, &s->loaded, &s->nr_loaded)))
		return err;
	if (o->symmap) {
		s->bin = cachepin_binary__open_symmap(o->binary);
		return s->bin ? 0 : -errno;
	}
	s->bin = cachepin_binary__open(o->binary);
	if (!s->bin)
		return -errno;
	if (o->map && (err = cachepin_binary__load_map(s->bin, o->map)))
		return err;
	if (o->nr_objects && !(s->objs = cachepin_objects__load(o->objects, o->nr_objects)))
		return -errno;

	if (s->objs)
		cachepin_binary__set_aligns(s->bin, s->objs);
	if ((err = session_fix(s)))
		return err;
	if (!s->mode)
		s->mode = cachepin_binary__is_kernel(s->bin) ? 1 : 2;
	return 0;
}

/* The pages of the largest way span of the session's caches (1: none wider than a page). */
static unsigned int module_pages(const struct cachepin_session *s)
{
	uint32_t span = 0;
	size_t i;

	if (!s->opts.module_pages)
		return 1;
	for (i = 0; i < s->opts.nr_caches; i++)
		if (s->opts.caches[i].way_span > span)
			span = s->opts.caches[i].way_span;
	return span > CACHEPIN_PROFILE_PAGE ? span / CACHEPIN_PROFILE_PAGE : 1;
}

/* PATH on BIN with the session's options into L. */
static int session_load_on(struct cachepin_session *s, struct cachepin_binary *bin, const char *path,
			   struct cachepin_load *l)
{
	struct cachepin_load_opts o = {
		.kernel = s->mode == 1, .period = s->opts.period,
		.objects = s->opts.objects, .nr_objects = s->opts.nr_objects, .objs = s->objs,
		.keep_idle = s->opts.keep_idle, .modules = s->mods,
		.loaded = s->loaded, .nr_loaded = s->nr_loaded, .module_pages = module_pages(s),
	};

	return cachepin_profile__load(l, path, bin, &o);
}

int cachepin_session__load(struct cachepin_session *s, const char *path, struct cachepin_load *l)
{
	return session_load_on(s, s->bin, path, l);
}

/*
 * opts.traced: the QEMU log loaded on the link it was recorded on, its
 * functions then matched to the binary's by name.
 */
static int session_traced(struct cachepin_session *s)
{
	struct cachepin_load *l = &s->load;
	const char *path = s->opts.profile;
	int err;

	s->traced = cachepin_binary__open(s->opts.traced);
	if (!s->traced)
		return -errno;
	if ((err = session_load_on(s, s->traced, path, l)))
		return err;
	if (l->kind != CACHEPIN_INPUT_QEMU) {
		pr_warn("'%s': --traced is for a QEMU log, and this is another input\n", path);
		return -EINVAL;
	}
	free(l->map);
	l->map = calloc(l->profile->nr_funcs + 1, sizeof(*l->map));
	if (!l->map) {
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	l->nr_matched = (size_t)cachepin_profile__match(l->profile, s->bin, l->map, &l->unmatched_weight);
	return 0;
}

/*
 * Without a cache asked for: the L1 instruction cache of the machine that
 * recorded the profile in place of the default, said; a recorded cache
 * the model cannot take leaves the default, with a warning.  Once, for
 * the first profile that has one.
 */
static void session_recorded_cache(struct cachepin_session *s)
{
	const struct cachepin_profile *p = s->load.profile;
	const char *why, *path = s->opts.profile;
	const char *from = s->load.kind == CACHEPIN_INPUT_PERF ? "the HEADER_CACHE" : "the 'cache' line";
	struct cachepin_cache c;

	if (!s->cache_default || !p || !p->rec_sets)
		return;
	s->cache_default = false;
	if (cachepin_cache__from_sets(&c, p->rec_sets, p->rec_ways, p->rec_line, &why)) {
		pr_warn("warning: %s of '%s' gives an L1 Instruction cache of %u sets, %u ways, %u-byte lines, which the model cannot take (%s); using %s\n",
			from, path, p->rec_sets, p->rec_ways, p->rec_line, why, s->caches[0].name);
		pr_warn("hint: give the cache with --cache SIZE:WAYS:LINE\n");
		return;
	}
	s->caches[0] = c;
	pr_warn("cache %s from %s of '%s' (L1 Instruction of the recording machine)\n", c.name, from,
		path);
}

static int session_profile(struct cachepin_session *s)
{
	int err = s->opts.traced ? session_traced(s) : cachepin_session__load(s, s->opts.profile, &s->load);

	if (err)
		return err;
	session_recorded_cache(s);
	return 0;
}

/* The one message of a model that could not be built (errno says why). */
static int model_failed(const struct cachepin_session *s)
{
	int err = errno;

	if (s->opts.name_binary)
		pr_warn("'%s': cannot build the model: %s\n", s->opts.binary, strerror(err));
	else
		pr_warn("cannot build the model: %s\n", strerror(err));
	return err ? -err : -ENOMEM;
}

/*
 * The model: of a QEMU log in a file, the run itself, its fetches in
 * their order, where opts.run_model asks for it; else the profile's.
 */
static int session_model(struct cachepin_session *s)
{
	const struct cachepin_session_opts *o = &s->opts;
	struct cachepin_model_opts mo = o->model;
	const struct cachepin_binary *traced = s->traced ? s->traced : s->bin;
	/* the run's module code where it ran, and on every page of --module-pages every */
	struct cachepin_model_modules mm = { s->loaded, s->nr_loaded, s->mods, module_pages(s) };
	bool mods = s->mods && s->nr_loaded;
	double dropped = 0;

	if (o->run_model && s->load.kind == CACHEPIN_INPUT_QEMU && strcmp(o->profile, "-") &&
	    !o->holdout && !o->model.whole) {
		s->model = cachepin_model__from_qemu_of(s->bin, traced, o->profile,
							mods ? &mm : NULL, &dropped);
		if (s->model && dropped >= 0.01)
			pr_warn("warning: '%s': %.1f %% of the fetches of '%s' are in functions '%s' does not hold by that name and size; they are left out\n",
				o->profile, 100 * dropped, traced->path, s->bin->path);
		return s->model ? 0 : model_failed(s);
	}
	mo.half = 0;
	s->model = cachepin_model__new(s->load.profile, s->bin, s->load.map, &mo);
	return s->model ? 0 : model_failed(s);
}

/* Plan on X and score on Y, and the other way round. */
static void two_folds(struct cachepin_session *s, const struct cachepin_model *x,
		      const struct cachepin_model *y)
{
	s->folds[0][0] = s->folds[1][1] = x;
	s->folds[0][1] = s->folds[1][0] = y;
	s->nr_folds = 2;
}

/* The held-out folds (struct cachepin_session). */
static int session_folds(struct cachepin_session *s)
{
	struct cachepin_model_opts mo = s->opts.model;
	unsigned int h;
	int err;

	mo.half = 0;
	if (s->opts.holdout) {
		if ((err = cachepin_session__load(s, s->opts.holdout, &s->hload)))
			return err;
		if (!(s->half[0] = cachepin_model__new(s->hload.profile, s->bin, s->hload.map, &mo)))
			return model_failed(s);
		two_folds(s, s->model, s->half[0]);
		return 0;
	}
	if (s->model->exact) {
		/* a recorded run: its first half and its second */
		for (h = 0; h < 2; h++)
			if (!(s->half[h] = cachepin_model__trace_half(s->model, h + 1)))
				return model_failed(s);
		two_folds(s, s->half[0], s->half[1]);
		return 0;
	}
	if (!cachepin_model__can_split(s->load.profile)) {
		/* no held-out samples: the candidates meet on the full model */
		s->folds[0][0] = s->folds[0][1] = s->model;
		s->nr_folds = 1;
		return 0;
	}
	for (h = 0; h < 2; h++) {
		mo.half = h + 1;
		if (!(s->half[h] = cachepin_model__new(s->load.profile, s->bin, s->load.map, &mo)))
			return model_failed(s);
	}
	two_folds(s, s->half[0], s->half[1]);
	return 0;
}

/* The binary's layout under every cache. */
static int session_scores(struct cachepin_session *s)
{
	size_t i;

	s->scores = calloc(s->nr_caches, sizeof(*s->scores));
	if (!s->scores && s->nr_caches) {
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_caches; i++) {
		if (cachepin_score__run(s->model, NULL, &s->caches[i], s->opts.score_flags, &s->scores[i])) {
			pr_warn("out of memory\n");
			return -ENOMEM;
		}
		s->nr_scores++;
	}
	return 0;
}

int cachepin_session__open(struct cachepin_session *s, unsigned int needs)
{
	static const struct {
		unsigned int need, implied;
		int (*open)(struct cachepin_session *s);
	} steps[] = {
		{ CACHEPIN_SESSION_BINARY, CACHEPIN_SESSION_PROFILE, session_binary },
		{ CACHEPIN_SESSION_PROFILE, CACHEPIN_SESSION_MODEL, session_profile },
		{ CACHEPIN_SESSION_MODEL, CACHEPIN_SESSION_SCORES | CACHEPIN_SESSION_FOLDS, session_model },
		{ CACHEPIN_SESSION_SCORES, 0, session_scores },
		{ CACHEPIN_SESSION_FOLDS, 0, session_folds },
	};
	unsigned int want = needs;
	size_t i;
	int err;

	/* each step needs the ones before it */
	for (i = ARRAY_SIZE(steps); i-- > 0;)
		if (want & steps[i].implied)
			want |= steps[i].need;
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (!(want & steps[i].need) || (s->open & steps[i].need))
			continue;
		if ((err = steps[i].open(s)))
			return err;
		s->open |= steps[i].need;
	}
	return 0;
}

void cachepin_session__free(struct cachepin_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_scores; i++)
		cachepin_score__release(&s->scores[i]);
	free(s->scores);
	cachepin_model__free(s->half[0]);
	cachepin_model__free(s->half[1]);
	cachepin_model__free(s->model);
	cachepin_load__release(&s->hload);
	cachepin_load__release(&s->load);
	cachepin_binary__free(s->traced);
	cachepin_binary__free(s->bin);
	cachepin_objects__free(s->objs);
	cachepin_modules__free(s->mods);
	cachepin_loaded__free(s->loaded, s->nr_loaded);
	free(s);
}
