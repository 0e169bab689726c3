// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin simulate's engine: a recorded fetch stream (QEMU log or
 * lackey trace) through online simulators, one stream of lines per line
 * size, each feeding the caches of that line size.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>
#include <uthash.h>
#include "cachepin/modules.h"
#include "cachepin/qemu.h"
#include "cachepin/simulate.h"
#include "internal.h"
#include "lackey.h"

#define HEAD 4096

const char *cachepin_sim_policy_name(enum cachepin_repl r, bool fully_assoc)
{
	if (fully_assoc)
		return cachepin_repl__fa_name(r);
	return cachepin_repl__online(r) ? cachepin_repl_name(r) : NULL;
}

int cachepin_sim_policy_parse(const char *name, enum cachepin_repl *r, bool *fully_assoc)
{
	int p;

	for (p = 0; p < CACHEPIN_REPL__NR; p++) {
		const char *fa = cachepin_repl__fa_name((enum cachepin_repl)p);

		if (fa && !strcmp(name, fa)) {
			*r = (enum cachepin_repl)p;
			*fully_assoc = true;
			return 0;
		}
	}
	p = cachepin_repl__parse(name, true);
	if (p < 0)
		return -1;
	*r = (enum cachepin_repl)p;
	*fully_assoc = false;
	return 0;
}

/* Every policy simulate runs, as CACHEPIN_SIM_BIT()s. */
static unsigned int sim_policies_all(void)
{
	unsigned int all = 0;
	int p;

	for (p = 0; p < CACHEPIN_REPL__NR; p++) {
		if (cachepin_sim_policy_name((enum cachepin_repl)p, false))
			all |= CACHEPIN_SIM_BIT(p, false);
		if (cachepin_sim_policy_name((enum cachepin_repl)p, true))
			all |= CACHEPIN_SIM_BIT(p, true);
	}
	return all;
}

/* A line that missed (opts.worst_sets): its misses per simulator of its stream. */
struct mline {
	uint64_t line;
	uint64_t traced;
	UT_hash_handle hh;
	uint64_t misses[];
};

/* The lines of one line size and the simulators that take them. */
struct stream {
	uint32_t shift;
	uint64_t last, accesses;
	bool any;
	struct cachepin_cache_sim **sims;
	size_t *row;		/* per sim: its row */
	size_t nr;
	struct mline *lines;	/* opts.worst_sets: every line that missed */
	bool oom;
};

struct engine {
	const struct cachepin_simulate_opts *o;
	struct cachepin_simulation *out;
	struct stream st[16];
	size_t nr_st;
	const struct cachepin_func *hint;	/* the layout's last function */
};

/* Line L of S missed in simulator K; the code fetched into it was traced at TRACED. */
static void line_missed(struct stream *s, size_t k, uint64_t l, uint64_t traced)
{
	struct mline *m;

	HASH_FIND(hh, s->lines, &l, sizeof(l), m);
	if (!m) {
		m = calloc(1, sizeof(*m) + s->nr * sizeof(m->misses[0]));
		if (!m) {
			s->oom = true;
			return;
		}
		m->line = l;
		m->traced = traced;
		HASH_ADD(hh, s->lines, line, sizeof(m->line), m);
	}
	m->misses[k]++;
}

/* Fetch [A, Z) of the simulated layout, traced at A - D. */
static inline void fetch(struct engine *en, uint64_t a, uint64_t z, int64_t d)
{
	size_t i, k;
	uint64_t l;

	for (i = 0; a < z && i < en->nr_st; i++) {
		struct stream *s = &en->st[i];

		for (l = a >> s->shift; l <= (z - 1) >> s->shift; l++) {
			s->accesses++;
			if (s->any && s->last == l)
				continue;
			s->any = true;
			s->last = l;
			for (k = 0; k < s->nr; k++)
				if (cachepin_cache_sim__access(s->sims[k], l) && en->o->worst_sets) {
					uint64_t f = l << s->shift;

					line_missed(s, k, l, (f > a ? f : a) - (uint64_t)d);
				}
		}
	}
}

static inline bool in_range(const struct cachepin_simulate_opts *o, uint64_t a)
{
	return !o->range || (a >= o->lo && a < o->hi);
}

/* Where traced address A goes: its module's remap, else the layout's; *KNOWN if either knows it. */
static int64_t sim_delta(struct engine *en, uint64_t a, bool *known)
{
	const struct cachepin_simulate_opts *o = en->o;
	const struct cachepin_remap *r;

	if (o->nr_mod_remap && (r = cachepin_remap__find(o->mod_remap, o->nr_mod_remap, a))) {
		*known = true;
		return r->delta;
	}
	if (!o->layout) {
		*known = false;
		return 0;
	}
	return cachepin_layout__delta(o->layout, a, known, &en->hint);
}

/*
 * A block through the layout: runs of instructions that stay together
 * (one delta, one after the other) are fetched as one range.
 */
static void remap_block(struct engine *en, const struct cachepin_qblock *b)
{
	uint64_t ra = 0, rz = 0;
	int64_t rd = 0;
	bool open = false, known;
	size_t i;

	for (i = 0; i < b->nr_insns; i++) {
		uint64_t ia = b->pc + b->insn_off[i];
		uint64_t iz = b->pc + (i + 1 < b->nr_insns ? b->insn_off[i + 1] : b->size);
		int64_t d;

		if (!in_range(en->o, ia))
			continue;
		en->out->insns++;
		d = sim_delta(en, ia, &known);
		if (known)
			en->out->remapped++;
		else
			en->out->kept++;
		if (open && d == rd && ia == rz) {
			rz = iz;
			continue;
		}
		if (open)
			fetch(en, ra + (uint64_t)rd, rz + (uint64_t)rd, rd);
		open = true;
		ra = ia;
		rz = iz;
		rd = d;
	}
	if (open)
		fetch(en, ra + (uint64_t)rd, rz + (uint64_t)rd, rd);
}

static int on_block(void *ctx, const struct cachepin_qblock *b)
{
	struct engine *en = ctx;
	const struct cachepin_simulate_opts *o = en->o;
	uint64_t a = b->pc, z = b->pc + b->size;
	size_t i;

	if (o->cpu >= 0 && b->cpu != (uint64_t)o->cpu) {
		en->out->other_cpu++;
		return 0;
	}
	en->out->blocks++;
	if (o->layout || o->nr_mod_remap) {
		remap_block(en, b);
		return 0;
	}
	if (o->range) {
		for (i = 0; i < b->nr_insns; i++)
			en->out->insns += in_range(o, b->pc + b->insn_off[i]);
		if (a < o->lo)
			a = o->lo;
		if (z > o->hi)
			z = o->hi;
	} else {
		en->out->insns += b->nr_insns;
	}
	if (a < z)
		fetch(en, a, z, 0);
	return 0;
}

static int on_fetch(void *ctx, uint64_t addr, uint32_t size)
{
	struct engine *en = ctx;
	int64_t d = 0;
	bool known;

	if (!in_range(en->o, addr))
		return 0;
	en->out->blocks++;
	en->out->insns++;
	if (en->o->layout || en->o->nr_mod_remap) {
		d = sim_delta(en, addr, &known);
		if (known)
			en->out->remapped++;
		else
			en->out->kept++;
	}
	fetch(en, addr + (uint64_t)d, addr + (uint64_t)d + size, d);
	return 0;
}

/* The stream of C's line size, made if new; NULL with *ERR -EINVAL (too many) or -ENOMEM. */
static struct stream *engine_stream(struct engine *en, const struct cachepin_cache *c, size_t n,
				    int *err)
{
	struct stream *s;
	size_t j;

	for (j = 0; j < en->nr_st; j++)
		if (en->st[j].shift == c->line_shift)
			return &en->st[j];
	*err = -EINVAL;
	if (en->nr_st == ARRAY_SIZE(en->st))
		return NULL;
	*err = -ENOMEM;
	s = &en->st[en->nr_st++];
	s->shift = c->line_shift;
	s->sims = calloc(n + 1, sizeof(*s->sims));
	s->row = calloc(n + 1, sizeof(*s->row));
	return s->sims && s->row ? s : NULL;
}

/*
 * Streams and simulators for every cache and policy asked; rows in
 * order: per cache the set-associative policies in the table's order,
 * then the fully associative ones.
 */
static int engine_init(struct engine *en, const struct cachepin_simulate_opts *o,
		       struct cachepin_simulation *out)
{
	unsigned int pol = o->policies ? o->policies : sim_policies_all();
	size_t i, n = 0;
	int err = 0, b;

	memset(en, 0, sizeof(*en));
	en->o = o;
	en->out = out;
	n = o->nr_caches * (size_t)__builtin_popcount(pol);
	out->rows = calloc(n + 1, sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	for (i = 0; i < o->nr_caches; i++) {
		const struct cachepin_cache *c = &o->caches[i];
		struct stream *s = engine_stream(en, c, n, &err);

		if (!s)
			return err;
		for (b = 0; b < 2 * CACHEPIN_REPL__NR; b++) {
			struct cachepin_simulate_row *r;

			if (!((pol >> b) & 1))
				continue;
			r = &out->rows[out->nr_rows];
			r->cache = c;
			r->fully_assoc = b >= CACHEPIN_REPL__NR;
			r->repl = (enum cachepin_repl)(b % CACHEPIN_REPL__NR);
			s->sims[s->nr] = cachepin_cache_sim__new(c, r->repl, r->fully_assoc,
								  o->seed ? o->seed : 1);
			if (!s->sims[s->nr])
				return -ENOMEM;
			s->row[s->nr++] = out->nr_rows++;
		}
	}
	return 0;
}

/* LN into the few kept of WS: most misses first, then lowest address. */
static void keep_line(struct cachepin_simulate_set *ws, const struct cachepin_simulate_line *ln)
{
	uint32_t at;

	ws->nr_lines++;
	for (at = ws->shown; at > 0; at--) {
		const struct cachepin_simulate_line *p = &ws->lines[at - 1];

		if (p->misses > ln->misses || (p->misses == ln->misses && p->addr < ln->addr))
			break;
		if (at < CACHEPIN_SIM_SET_LINES)
			ws->lines[at] = *p;
	}
	if (at < CACHEPIN_SIM_SET_LINES) {
		ws->lines[at] = *ln;
		if (ws->shown < CACHEPIN_SIM_SET_LINES)
			ws->shown++;
	}
}

/* The worst sets of simulator K of S into row R: -ENOMEM or 0. */
static int worst_sets(const struct engine *en, struct stream *s, size_t k,
		      struct cachepin_simulate_row *r)
{
	const struct cachepin_cache *c = r->cache;
	struct cachepin_set_misses *key;
	struct mline *m, *tmp;
	uint32_t set, n = en->o->worst_sets, *rank;
	size_t j;

	if (r->fully_assoc)
		return 0;
	key = calloc(c->sets, sizeof(*key));
	rank = malloc(c->sets * sizeof(*rank));
	if (!key || !rank) {
		free(key);
		free(rank);
		return -ENOMEM;
	}
	for (set = 0; set < c->sets; set++)
		key[set].set = set;
	HASH_ITER(hh, s->lines, m, tmp)
		key[cachepin_cache__set(c, m->line << s->shift)].misses += m->misses[k];
	qsort(key, c->sets, sizeof(*key), cachepin_cmp_set_misses);
	if (n > c->sets)
		n = c->sets;
	while (n && !key[n - 1].misses)
		n--;
	r->worst = calloc(n + 1, sizeof(*r->worst));
	if (!r->worst) {
		free(key);
		free(rank);
		return -ENOMEM;
	}
	/* each set's place among the worst (n: not one of them), then one pass over the lines */
	for (set = 0; set < c->sets; set++)
		rank[set] = n;
	for (j = 0; j < n; j++) {
		r->worst[j].set = key[j].set;
		r->worst[j].misses = key[j].misses;
		rank[key[j].set] = (uint32_t)j;
	}
	HASH_ITER(hh, s->lines, m, tmp) {
		uint64_t a = m->line << s->shift;
		uint32_t w = rank[cachepin_cache__set(c, a)];

		if (w < n && m->misses[k])
			keep_line(&r->worst[w], &(struct cachepin_simulate_line){ a, m->traced, m->misses[k] });
	}
	r->nr_worst = n;
	free(key);
	free(rank);
	return 0;
}

static int engine_finish(struct engine *en)
{
	size_t i, k;
	int err = 0;

	for (i = 0; i < en->nr_st; i++) {
		struct stream *s = &en->st[i];

		if (s->oom)
			err = -ENOMEM;
		for (k = 0; k < s->nr; k++) {
			struct cachepin_simulate_row *r = &en->out->rows[s->row[k]];

			r->accesses = s->accesses;
			r->misses = cachepin_cache_sim__misses(s->sims[k]);
			if (!err && en->o->worst_sets)
				err = worst_sets(en, s, k, r);
		}
	}
	if (err)
		pr_warn("out of memory\n");
	return err;
}

static void engine_release(struct engine *en)
{
	struct mline *m, *tmp;
	size_t i, k;

	for (i = 0; i < en->nr_st; i++) {
		for (k = 0; k < en->st[i].nr; k++)
			cachepin_cache_sim__free(en->st[i].sims[k]);
		free(en->st[i].sims);
		free(en->st[i].row);
		HASH_ITER(hh, en->st[i].lines, m, tmp) {
			HASH_DEL(en->st[i].lines, m);
			free(m);
		}
	}
}

static int run_qemu(struct engine *en, int fd, const char *path, const char *head, size_t len)
{
	struct cachepin_simulation *out = en->out;
	const struct cachepin_qtrace_stats *qs;
	struct cachepin_qtrace *t;
	int err;

	t = cachepin_qtrace__open_fd(fd, path, head, len);
	if (!t)
		return -errno;
	err = cachepin_qtrace__for_each_block(t, on_block, en);
	qs = cachepin_qtrace__stats(t);
	out->unknown_blocks = qs->nr_unknown;
	out->unknown_pcs = qs->nr_unknown_pcs;
	out->cancelled = qs->nr_stopped;
	out->nr_cpus = qs->nr_cpus;
	out->cut_last_line = qs->cut_last_line;
	cachepin_qtrace__free(t);
	return err;
}

int cachepin_simulate__run(const char *path, const struct cachepin_simulate_opts *o,
			   struct cachepin_simulation *out)
{
	struct cachepin_lackey_stats ls;
	struct engine en;
	char *head = malloc(HEAD);
	bool std = !strcmp(path, "-");
	ssize_t len;
	int fd = -1, err;

	memset(out, 0, sizeof(*out));
	if (!head) {
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	if (o->policies & ~sim_policies_all()) {
		pr_warn("'%s': a policy simulate cannot run (bits 0x%x)\n", path,
			o->policies & ~sim_policies_all());
		free(head);
		return -EINVAL;
	}
	if ((err = engine_init(&en, o, out))) {
		if (err == -EINVAL)
			pr_warn("'%s': at most %zu line sizes in one simulation\n", path, ARRAY_SIZE(en.st));
		else
			pr_warn("out of memory\n");
		goto out;
	}
	fd = std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		goto out;
	}
	len = cachepin_read_full(fd, head, HEAD);
	if (len < 0) {
		err = -errno;
		pr_warn("cannot read '%s': %s\n", path, strerror(errno));
		goto out;
	}
	if (!len) {
		pr_warn("'%s': empty trace\n", path);
		err = -EINVAL;
		goto out;
	}
	if (cachepin_qtrace__detect(head, (size_t)len)) {
		out->format = CACHEPIN_TRACE_QEMU;
		err = run_qemu(&en, fd, path, head, (size_t)len);
		fd = -1;	/* the reader closed it */
	} else if (cachepin_lackey__detect(head, (size_t)len)) {
		out->format = CACHEPIN_TRACE_LACKEY;
		err = cachepin_lackey__read(fd, path, head, (size_t)len, on_fetch, &en, &ls);
		out->other_lines = ls.other;
		out->first_other = ls.first_other;
		out->cut_last_line = ls.cut_last_line;
	} else {
		pr_warn("'%s': not a QEMU in_asm/exec log nor a valgrind lackey trace\n", path);
		pr_warn("hint: record with 'qemu-... -d in_asm,exec,nochain -D FILE' or "
			"'valgrind --tool=lackey --trace-mem=yes --log-file=FILE'\n");
		err = -EINVAL;
	}
	if (!err)
		err = engine_finish(&en);
out:
	if (fd > 0)
		close(fd);
	engine_release(&en);
	free(head);
	if (err)
		cachepin_simulate__release(out);
	return err;
}

void cachepin_simulate__release(struct cachepin_simulation *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_rows; i++)
		free(s->rows[i].worst);
	free(s->rows);
	memset(s, 0, sizeof(*s));
}
