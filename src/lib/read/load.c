// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A profile from any input, matched against the binary: what the input
 * is (by its first bytes), the reader for it (cachepin profile,
 * perf.data, QEMU log, text), the sample builder, the checks of what
 * was read (build-id, lost samples, unmatched functions), the static
 * call graph of the objects, and the match of every profile function.
 * As perf_session__new() opens any perf input behind one call.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cachepin/modules.h"
#include "cachepin/objects.h"
#include "cachepin/perf.h"
#include "cachepin/profile.h"
#include "cachepin/qemu.h"
#include "cachepin/textin.h"
/* a failed add marks the entry instead of exit() */
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(ke) ((ke)->oom = true)
#include <uthash.h>
#include "profile-int.h"
#include "internal.h"
#include "kernel.h"
#include "lackey.h"
#include "perf-format.h"

#define WHERE_SHOWN 3	/* mappings named when no sample matched */

#define HEAD_MAX 4095	/* bytes of an input read to tell what it is (valgrind heads a lackey trace with its own lines) */

struct sniff {
	enum cachepin_input_kind kind;
	int fd;			/* a sniffed pipe that keeps its bytes, or -1 */
	char head[HEAD_MAX + 1];
	size_t len;
};

/*
 * What PATH holds, by its first bytes.  A QEMU log, lackey trace or text
 * that is not a regular file (a pipe) keeps its descriptor and the bytes
 * read in S, so that none is lost.
 */
static int sniff(const char *path, struct sniff *s)
{
	struct stat sb;
	ssize_t n;
	int fd;

	s->fd = -1;
	s->len = 0;
	if (!strcmp(path, "-")) {
		s->kind = CACHEPIN_INPUT_PERF;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	memset(s->head, 0, sizeof(s->head));
	n = cachepin_read_full(fd, s->head, HEAD_MAX);
	if (n < 0) {
		int err = errno;

		close(fd);
		pr_warn("cannot read '%s': %s\n", path, strerror(err));
		return -err;
	}
	if (cachepin_qtrace__detect(s->head, (size_t)n))
		s->kind = CACHEPIN_INPUT_QEMU;
	else if (cachepin_lackey__detect(s->head, (size_t)n))
		s->kind = CACHEPIN_INPUT_LACKEY;
	else if (n >= 8 && (!memcmp(s->head, "PERFILE2", 8) || !memcmp(s->head, "2ELIFREP", 8) ||
			    !memcmp(s->head, "PERFFILE", 8)))
		s->kind = CACHEPIN_INPUT_PERF;
	else if (!strncmp(s->head, "# cachepin-profile", 18))
		s->kind = CACHEPIN_INPUT_PROFILE;
	else
		s->kind = CACHEPIN_INPUT_TEXT;
	if (!fstat(fd, &sb) && !S_ISREG(sb.st_mode)) {
		/* a pipe, a FIFO, <(...): what was read is gone from it */
		if (s->kind != CACHEPIN_INPUT_PERF && s->kind != CACHEPIN_INPUT_PROFILE) {
			s->len = (size_t)n;
			s->fd = fd;
			return 0;
		}
		close(fd);
		pr_warn("'%s' is not a regular file: a %s is read from a file\n", path,
			s->kind == CACHEPIN_INPUT_PERF ? "perf.data" : "cachepin profile");
		pr_warn("hint: %s\n", s->kind == CACHEPIN_INPUT_PERF ?
			"save it first, or give a pipe-mode recording (perf record -o -) on standard input as '-'" :
			"save it to a file first");
		return -EINVAL;
	}
	close(fd);
	return 0;
}

/* A recorded build-id in hex into BUF (41 bytes or more). */
static char *bid_hex(const struct cachepin_perf_buildid *b, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t j;

	for (j = 0; j < b->size && j < sizeof(b->id); j++) {
		buf[2 * j] = hex[b->id[j] >> 4];
		buf[2 * j + 1] = hex[b->id[j] & 15];
	}
	buf[2 * j] = '\0';
	return buf;
}

/*
 * Is the recorded build-id THEIRS (hex) the binary's MINE?  perf pads a
 * shorter id (an MD5 one) to 20 bytes when it does not record the size.
 */
static bool bid_equal(const char *mine, const char *theirs)
{
	size_t n = strlen(mine);

	return !strncmp(mine, theirs, n) && strspn(theirs + n, "0") == strlen(theirs + n);
}

/* The build-id perf recorded for the mapping NAME, or NULL. */
static const struct cachepin_perf_buildid *bid_of(const struct cachepin_perf_meta *m,
						  const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_buildids; i++)
		if (!strcmp(m->buildids[i].name, name))
			return &m->buildids[i];
	return NULL;
}

/* Warn when the build-id that PATH recorded for the binary is not BIN's. */
static void check_build_id(const struct cachepin_binary *bin, const struct cachepin_perf_meta *m,
			   const char *path, bool kernel)
{
	char mine[129], theirs[41];
	size_t i;

	cachepin_binary__build_id_str(bin, mine);
	if (!*mine)
		return;
	for (i = 0; i < m->nr_buildids; i++) {
		const struct cachepin_perf_buildid *b = &m->buildids[i];
		bool match = kernel ? !strcmp(b->name, KALLSYMS)
				    : !strcmp(cachepin_base_name(b->name), cachepin_base_name(bin->path));

		if (!match)
			continue;
		bid_hex(b, theirs);
		if (!bid_equal(mine, theirs))
			pr_warn("warning: build-id of '%s' (%s) differs from the one '%s' recorded (%s)\n",
				bin->path, mine, path, theirs);
		return;
	}
}

/*
 * Warn when the build-id PATH recorded for a kernel module is not that of
 * the module's file in MODS: its functions need not be where the
 * recording had them.
 */
static void check_module_build_ids(struct cachepin_modules *mods, const struct cachepin_perf_meta *m,
				   const char *path)
{
	char mine[129], theirs[41], name[256];
	size_t i;

	for (i = 0; mods && i < m->nr_buildids; i++) {
		const struct cachepin_perf_buildid *b = &m->buildids[i];
		const struct cachepin_binary *mod;

		if (cachepin_kernel_dso(b->name, strlen(b->name)) != KERNEL_DSO_MODULE ||
		    !(mod = cachepin_modules__get(mods, b->name)))
			continue;
		cachepin_binary__build_id_str(mod, mine);
		bid_hex(b, theirs);
		if (!*mine || bid_equal(mine, theirs))
			continue;
		pr_warn("warning: build-id of '%s' (%s) differs from the one '%s' recorded for %s (%s): its functions need not be where the recording had them\n",
			mod->path, mine, path, cachepin_modules__name(b->name, name, sizeof(name)), theirs);
		pr_warn("hint: give the modules built with the recorded kernel (--modules)\n");
	}
}

/* Samples per mapping of their innermost frame. */
struct dso_count {
	char *name;
	uint64_t n;
	bool oom;		/* not added: out of memory (uthash_nonfatal_oom) */
	UT_hash_handle hh;
};

struct perf_ctx {
	struct cachepin_pbuild *pb;
	struct cachepin_perf *perf;
	const struct cachepin_binary *bin;
	const char *path;
	bool kernel;
	bool ref_done, alias_done;
	struct dso_count *dsos;
};

/*
 * User mappings of another name than the binary's that perf recorded
 * with its build-id (a copy, a renamed file) are the binary's code.
 * perf writes the build-ids before the samples are read (a file's
 * header feature, a pipe's records read in the first pass).
 */
static int add_aliases(struct perf_ctx *pc)
{
	const struct cachepin_perf_meta *m = cachepin_perf__meta(pc->perf);
	const char *base = cachepin_base_name(pc->bin->path);
	char mine[129], theirs[41];
	size_t i;
	int err;

	cachepin_binary__build_id_str(pc->bin, mine);
	if (!*mine || pc->kernel)
		return 0;
	for (i = 0; i < m->nr_buildids; i++) {
		const struct cachepin_perf_buildid *b = &m->buildids[i];

		if (b->name[0] == '[' || !strcmp(cachepin_base_name(b->name), base) ||
		    !bid_equal(mine, bid_hex(b, theirs)))
			continue;
		pr_info("'%s': samples in '%s' are of '%s' (build-id %s)\n", pc->path, b->name,
			pc->bin->path, mine);
		err = cachepin_pbuild__add_dso(pc->pb, b->name);
		if (err)
			return err;
	}
	return 0;
}

static int count_dso(struct perf_ctx *pc, const struct cachepin_sample *s)
{
	const char *name = s->nr && s->frames[0].dso ? s->frames[0].dso : "[unknown]";
	struct dso_count *e;

	HASH_FIND_STR(pc->dsos, name, e);
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e || !(e->name = strdup(name))) {
			free(e);
			return -ENOMEM;
		}
		HASH_ADD_KEYPTR(hh, pc->dsos, e->name, strlen(e->name), e);
		if (e->oom) {
			free(e->name);
			free(e);
			return -ENOMEM;
		}
	}
	e->n++;
	return 0;
}

static int perf_sample(void *ctx, const struct cachepin_sample *s)
{
	struct perf_ctx *pc = ctx;
	int err;

	if (!pc->alias_done) {
		pc->alias_done = true;
		err = add_aliases(pc);
		if (err)
			return err;
	}
	err = count_dso(pc, s);
	if (err)
		return err;
	if (!pc->ref_done) {
		const struct cachepin_perf_meta *m = cachepin_perf__meta(pc->perf);

		if (m->has_kernel_map) {
			cachepin_pbuild__set_kernel_ref(pc->pb, m->kernel_ref_sym, m->kernel_ref_addr);
			pc->ref_done = true;
		}
	}
	return cachepin_pbuild__add(pc->pb, s);
}

/* What a perf.data says besides its samples, for the profile and the messages. */
struct perf_info {
	uint32_t l1i[3];	/* sets, ways, line of the recording machine; 0 = none */
	/* the mappings with the most samples, most first, and the rest */
	struct perf_where {
		char *name;
		uint64_t n;
		char bid[41];	/* "" if perf recorded none */
	} where[WHERE_SHOWN];
	size_t nr_where, nr_more;
	uint64_t more_samples;
};

static int dso_cmp(const void *a, const void *b)
{
	const struct dso_count *x = *(const struct dso_count *const *)a;
	const struct dso_count *y = *(const struct dso_count *const *)b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* PC's mappings by samples into INFO (their names taken over); frees them. */
static int take_where(struct perf_ctx *pc, struct perf_info *info)
{
	const struct cachepin_perf_meta *m = cachepin_perf__meta(pc->perf);
	size_t n = HASH_COUNT(pc->dsos), i = 0;
	struct dso_count *e, *tmp, **v = calloc(n ? n : 1, sizeof(*v));

	HASH_ITER(hh, pc->dsos, e, tmp) {
		HASH_DEL(pc->dsos, e);
		if (v) {
			v[i++] = e;
			continue;
		}
		free(e->name);
		free(e);
	}
	if (!v)
		return -ENOMEM;
	qsort(v, n, sizeof(*v), dso_cmp);
	for (i = 0; i < n; i++) {
		if (i < WHERE_SHOWN) {
			struct perf_where *w = &info->where[info->nr_where++];
			const struct cachepin_perf_buildid *b = bid_of(m, v[i]->name);

			w->name = v[i]->name;
			w->n = v[i]->n;
			if (b)
				bid_hex(b, w->bid);
		} else {
			info->nr_more++;
			info->more_samples += v[i]->n;
			free(v[i]->name);
		}
		free(v[i]);
	}
	free(v);
	return 0;
}

static int read_perf(struct cachepin_pbuild *pb, const struct cachepin_binary *bin,
		     const char *path, const struct cachepin_load_opts *o, struct perf_info *info)
{
	struct perf_ctx pc = {
		.pb = pb, .perf = cachepin_perf__open(path), .bin = bin, .path = path,
		.kernel = o->kernel,
	};
	int err;

	if (!pc.perf)
		return errno ? -errno : -EINVAL;
	err = cachepin_perf__for_each_sample(pc.perf, perf_sample, &pc);
	if (!err)
		err = take_where(&pc, info);
	if (err) {
		struct dso_count *e, *tmp;

		HASH_ITER(hh, pc.dsos, e, tmp) {
			HASH_DEL(pc.dsos, e);
			free(e->name);
			free(e);
		}
	}
	if (!err) {
		const struct cachepin_perf_meta *m = cachepin_perf__meta(pc.perf);
		const struct cachepin_perf_cache *c = cachepin_perf_meta__l1i(m);

		if (c && c->sets && c->ways && c->line) {
			info->l1i[0] = c->sets;
			info->l1i[1] = c->ways;
			info->l1i[2] = c->line;
		}
		check_build_id(bin, m, path, o->kernel);
		if (o->kernel)
			check_module_build_ids(o->modules, m, path);
		if (m->nr_lost)
			pr_warn("warning: '%s' lost %" PRIu64 " samples\n", path, m->nr_lost);
	}
	cachepin_perf__free(pc.perf);
	return err;
}

/* Report what a QEMU log held besides the blocks that became samples. */
static void qemu_report(const char *path, const struct cachepin_qtrace_stats *st)
{
	if (st->nr_unknown)
		pr_warn("warning: '%s': %" PRIu64 " of %" PRIu64 " executed blocks (%" PRIu64 " addresses, the first at line %" PRIu64 ") have no in_asm block and are not counted\n"
			"hint: keep in_asm logging on from the start ('-d in_asm,nochain') and add exec for the window\n",
			path, st->nr_unknown, st->nr_unknown + st->nr_blocks, st->nr_unknown_pcs,
			st->first_unknown_line);
	if (st->nr_partial)
		pr_warn("warning: '%s': the disassembler stopped early in %" PRIu64 " of %" PRIu64 " in_asm blocks; they count as far as it got\n",
			path, st->nr_partial, st->nr_translations);
	if (st->cut_last_line)
		pr_warn("warning: '%s': the last line is cut off; ignored\n", path);
	if (!st->nr_exec)
		pr_warn("warning: '%s': no exec lines\n"
			"hint: record with '-d in_asm,exec,nochain'\n", path);
	pr_info("'%s': %" PRIu64 " exec lines, %" PRIu64 " blocks run (%" PRIu64 " instructions), %" PRIu64 " cancelled, %" PRIu64 " cut short at a device access, %" PRIu64 " translations (%" PRIu64 " again)\n",
		path, st->nr_exec, st->nr_blocks, st->nr_insns, st->nr_stopped, st->nr_rewound,
		st->nr_translations, st->nr_retranslated);
}

static int read_qemu(struct cachepin_pbuild *pb, const struct cachepin_binary *bin,
		     const char *path, const struct cachepin_load_opts *o, struct sniff *s)
{
	struct cachepin_qsample_opts qo = { .period = o->period, .kernel = o->kernel };
	struct cachepin_qtrace *t;
	const char *const *sw;
	uint64_t (*ranges)[2] = NULL;
	size_t i, n = 0;
	int err;

	t = s->fd >= 0 ? cachepin_qtrace__open_fd(s->fd, path, s->head, s->len)
		       : cachepin_qtrace__open(path);
	s->fd = -1;	/* taken over, or closed on failure */
	if (!t)
		return errno ? -errno : -EINVAL;
	/* a task switch empties the shadow stack */
	sw = cachepin_kernel__switchers(&n);
	if (qo.kernel && n && !(ranges = calloc(n, sizeof(*ranges)))) {
		cachepin_qtrace__free(t);
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; qo.kernel && i < n; i++) {
		const struct cachepin_func *f = cachepin_binary__lookup(bin, sw[i], NULL, NULL);

		if (f && f->size) {
			ranges[qo.nr_switch_ranges][0] = f->addr;
			ranges[qo.nr_switch_ranges++][1] = f->addr + f->size;
		}
	}
	qo.switch_ranges = (const uint64_t (*)[2])ranges;
	err = cachepin_qtrace__for_each_sample(t, &qo, cachepin_pbuild__add_leaves, pb);
	if (!err)
		qemu_report(path, cachepin_qtrace__stats(t));
	cachepin_qtrace__free(t);
	free(ranges);
	return err;
}

/*
 * A lackey trace's instructions as samples: the PERIOD-th, 2*PERIOD-th,
 * ... fetch of the trace, each of period PERIOD, event "instructions",
 * in the order they ran.  Its addresses are the program's as it ran: a
 * static or non-PIE program's are its link addresses.
 */
struct lk_ctx {
	struct cachepin_pbuild *pb;
	uint64_t period, left;
	unsigned int fflags;
};

static int lk_fetch(void *ctx, uint64_t addr, uint32_t size)
{
	struct lk_ctx *c = ctx;
	struct cachepin_frame leaf = { .ip = addr };
	struct cachepin_sample smp = { .nr = 1, .frames = &leaf, .event = "instructions" };

	(void)size;
	if (--c->left)
		return 0;
	c->left = c->period;
	leaf.flags = CACHEPIN_FRAME_HAS_IP | c->fflags;
	smp.period = c->period;
	return cachepin_pbuild__add(c->pb, &smp);
}

static int read_lackey(struct cachepin_pbuild *pb, const char *path,
		       const struct cachepin_load_opts *o, struct sniff *s)
{
	struct lk_ctx c = { .pb = pb };
	struct cachepin_lackey_stats st;
	int fd = s->fd, err;

	c.period = c.left = o->period ? o->period : 1;
	c.fflags = o->kernel ? CACHEPIN_FRAME_KERNEL : 0;
	if (fd < 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	/* a pipe's sniffed head comes first (S->len is 0 for a file) */
	err = cachepin_lackey__read(fd, path, s->head, s->len, lk_fetch, &c, &st);
	close(fd);
	s->fd = -1;
	if (err)
		return err;
	if (st.cut_last_line)
		pr_warn("warning: '%s': the last line is cut off; ignored\n", path);
	if (!st.fetches) {
		pr_warn("'%s': no instruction lines\n", path);
		pr_warn("hint: record with 'valgrind --tool=lackey --trace-mem=yes'\n");
		return -EINVAL;
	}
	pr_info("'%s': %" PRIu64 " instructions, a sample every %" PRIu64 "\n", path, st.fetches,
		c.period);
	return 0;
}

/* Which mappings the samples of a perf.data hit, when none hit BIN. */
static void report_where(const struct cachepin_binary *bin, const struct perf_info *info)
{
	char mine[129];
	size_t i;

	if (!info->nr_where)
		return;
	cachepin_binary__build_id_str(bin, mine);
	if (*mine)
		pr_warn("hint: '%s' has build-id %s; the samples are in, most first:\n", bin->path, mine);
	else
		pr_warn("hint: '%s' has no build-id; the samples are in, most first:\n", bin->path);
	for (i = 0; i < info->nr_where; i++) {
		const struct perf_where *w = &info->where[i];

		if (*w->bid)
			pr_warn("hint:   '%s': %" PRIu64 " sample%s, build-id %s\n", w->name, w->n,
				w->n == 1 ? "" : "s", w->bid);
		else
			pr_warn("hint:   '%s': %" PRIu64 " sample%s, no build-id recorded\n", w->name,
				w->n, w->n == 1 ? "" : "s");
	}
	if (info->nr_more)
		pr_warn("hint:   %zu more mapping%s: %" PRIu64 " sample%s\n", info->nr_more,
			info->nr_more == 1 ? "" : "s", info->more_samples,
			info->more_samples == 1 ? "" : "s");
}

/* Samples from a perf.data, a QEMU log or a text input, to a profile of BIN. */
static struct cachepin_profile *load_samples(const struct cachepin_binary *bin, const char *path,
					     const struct cachepin_load_opts *o, struct sniff *s)
{
	unsigned int flags = o->kernel ? CACHEPIN_PBUILD_KERNEL : CACHEPIN_PBUILD_USER;
	struct perf_info info = { { 0 } };
	struct cachepin_pbuild *pb;
	struct cachepin_profile *p;
	char *event = NULL;
	size_t i;
	int err;

	/*
	 * Recordings come in time order; hot lists and folded stacks do not.
	 * A recording's samples are few next to its fetches: its slices are
	 * its phases.  A QEMU log or a lackey trace has every fetch, and its
	 * time slices stay, also when it is sampled (--every): the router
	 * lab's trace sampled every 30th instruction planned to 117,358 LRU
	 * misses on the other half with time slices, 172,971 with phases.
	 */
	if (s->kind != CACHEPIN_INPUT_TEXT ||
	    cachepin_text__detect(s->head, strnlen(s->head, HEAD_MAX)) == CACHEPIN_TEXT_PERF_SCRIPT)
		flags |= CACHEPIN_PBUILD_TIMED;
	if ((flags & CACHEPIN_PBUILD_TIMED) && s->kind != CACHEPIN_INPUT_QEMU &&
	    s->kind != CACHEPIN_INPUT_LACKEY)
		flags |= CACHEPIN_PBUILD_PHASES;
	pb = cachepin_pbuild__new(bin, flags);
	if (!pb) {
		pr_warn("out of memory\n");
		errno = ENOMEM;
		return NULL;
	}
	if (flags & CACHEPIN_PBUILD_KERNEL)
		cachepin_pbuild__set_modules(pb, o->modules, o->loaded, o->nr_loaded);
	if (s->kind == CACHEPIN_INPUT_PERF)
		err = read_perf(pb, bin, path, o, &info);
	else if (s->kind == CACHEPIN_INPUT_QEMU)
		err = read_qemu(pb, bin, path, o, s);
	else if (s->kind == CACHEPIN_INPUT_LACKEY)
		err = read_lackey(pb, path, o, s);
	else if (s->fd >= 0) {
		err = cachepin_text__read_fd(s->fd, path, s->head, s->len, CACHEPIN_TEXT_AUTO,
					     cachepin_pbuild__add, pb, &event);
		s->fd = -1;	/* the reader closed it */
	} else
		err = cachepin_text__read(path, CACHEPIN_TEXT_AUTO, cachepin_pbuild__add, pb, &event);
	p = cachepin_pbuild__finish(pb);
	if (err || !p) {
		for (i = 0; i < info.nr_where; i++)
			free(info.where[i].name);
		free(event);
		cachepin_profile__free(p);
		if (!p && !err)
			pr_warn("out of memory\n");
		errno = err < 0 ? -err : err ? EINVAL : ENOMEM;
		return NULL;
	}
	if (event && !p->event)
		p->event = event;
	else
		free(event);
	p->rec_sets = info.l1i[0];
	p->rec_ways = info.l1i[1];
	p->rec_line = info.l1i[2];
	if (!p->nr_matched) {
		pr_warn("'%s': no sample matched a function of '%s' (0 of %" PRIu64 " samples)\n",
			path, bin->path, p->nr_samples);
		report_where(bin, &info);
		pr_warn("hint: is '%s' the binary that was profiled? for a kernel pass the vmlinux and use --kernel; for a program, --user\n",
			bin->path);
		cachepin_profile__free(p);
		errno = ENOENT;
		p = NULL;
	}
	for (i = 0; i < info.nr_where; i++)
		free(info.where[i].name);
	return p;
}

/* Fill L's map and weights from L->profile against BIN. */
static int match(struct cachepin_load *l, const struct cachepin_binary *bin)
{
	const struct cachepin_profile *p = l->profile;
	ssize_t matched;
	size_t i;

	free(l->map);
	l->map = calloc(p->nr_funcs + 1, sizeof(*l->map));
	if (!l->map) {
		pr_warn("out of memory\n");
		return -ENOMEM;
	}
	l->unmatched_weight = 0;
	matched = cachepin_profile__match(p, bin, l->map, &l->unmatched_weight);
	l->nr_matched = matched < 0 ? 0 : (size_t)matched;
	l->weight = 0;
	for (i = 0; i < p->nr_funcs; i++)
		l->weight += p->funcs[i].weight;
	return 0;
}

/* Each module function of P on every page of a way span (opts.module_pages). */
static int spread(struct cachepin_profile *p, unsigned int pages)
{
	int err = cachepin_occupants__spread(p, pages);

	if (err) {
		pr_warn("out of memory\n");
		errno = -err;
	}
	return err;
}

/*
 * The shared libraries' and modules' hot code of P as fixed occupants of
 * BIN, the modules' functions from the files of MODS.
 */
static int add_occupants(const struct cachepin_profile *p, struct cachepin_binary *bin,
			 struct cachepin_modules *mods, const char *path)
{
	size_t n, unplaced;
	int err = cachepin_occupants__add(bin, p, mods, &n, &unplaced);

	if (err) {
		pr_warn("out of memory\n");
		errno = -err;
		return err;
	}
	if (n)
		pr_info("'%s': %zu %s of %s added as fixed occupants\n", bin->path, n,
			cachepin_binary__is_kernel(bin) ? "pages and functions" : "pages",
			cachepin_binary__is_kernel(bin) ? "modules" : "shared libraries");
	if (unplaced) {
		pr_warn("warning: '%s': %zu hot functions of modules are not in the score: %s\n", path,
			unplaced, mods ? "their modules' files under the modules' directory lack them" :
			"no module files were given");
		pr_warn("hint: --modules DIR, the kernel build tree or the directory of the modules "
			"as they were loaded\n");
	}
	return 0;
}

/* A cachepin profile read back: it must name functions of BIN. */
static struct cachepin_profile *load_profile(struct cachepin_load *l,
					     struct cachepin_binary *bin, const char *path,
					     struct cachepin_modules *mods, unsigned int pages)
{
	const struct cachepin_profile *p;
	size_t i, shown = 0, unmatched, len = 0, own = 0, mods_out = 0;
	char *names = NULL;
	FILE *f;

	l->profile = cachepin_profile__read(path);
	if (!l->profile || spread(l->profile, pages) || add_occupants(l->profile, bin, mods, path) ||
	    match(l, bin))
		return NULL;
	p = l->profile;
	/* the libraries' pages match any binary: the program's own code must */
	for (i = 0; i < p->nr_funcs; i++) {
		if (cachepin_pfunc_in_module(&p->funcs[i])) {
			/* said by add_occupants() when not placed */
			if (l->map[i] < 0) {
				mods_out++;
				l->unmatched_weight -= p->funcs[i].weight;
			}
			continue;
		}
		if (l->map[i] >= 0 && !cachepin_occupants__is_page(p, p->funcs[i].name))
			own++;
	}
	if (!own || l->unmatched_weight >= l->weight) {
		pr_warn("'%s': none of its %zu hot functions is in '%s' (%zu functions matched, 0 %% of the weight)\n",
			path, p->nr_funcs, bin->path, own);
		pr_warn("hint: the profile was made for '%s'; pass that binary or one built from the same source\n",
			p->binary ? p->binary : "?");
		errno = ENOENT;
		return NULL;
	}
	unmatched = p->nr_funcs - l->nr_matched - mods_out;
	if (l->unmatched_weight <= 0 || !unmatched)
		return l->profile;
	f = open_memstream(&names, &len);
	for (i = 0; f && i < p->nr_funcs && shown < 5; i++)
		if (l->map[i] < 0 && p->funcs[i].weight > 0 && !cachepin_pfunc_in_module(&p->funcs[i])) {
			fprintf(f, " %s", p->funcs[i].name);
			shown++;
		}
	if (f)
		fclose(f);
	pr_warn("warning: '%s': %zu of %zu functions (%.2f %% of the weight) are not in '%s':%s%s\n",
		path, unmatched, p->nr_funcs - mods_out, 100.0 * l->unmatched_weight / l->weight, bin->path,
		names ? names : "", unmatched > shown ? " ..." : "");
	free(names);
	return l->profile;
}

/* The static call graph of the objects, as edges of weight 0. */
static int add_objects(struct cachepin_profile *p, const struct cachepin_binary *bin,
		       const struct cachepin_load_opts *o)
{
	struct cachepin_objects *objs = NULL;
	int err;

	if (!o->objs && !o->nr_objects)
		return 0;
	if (!o->objs && !(objs = cachepin_objects__load(o->objects, o->nr_objects)))
		return errno ? -errno : -EINVAL;
	err = cachepin_profile__add_static(p, bin, o->objs ? o->objs : objs);
	cachepin_objects__free(objs);
	if (err)
		pr_warn("out of memory\n");
	return err;
}

/*
 * Samples that wait where interrupts come back on: a sample is an
 * interrupt (a timer's; a PMU's, but for an NMI), and code run with
 * interrupts off takes none, so they land on the line after it turns
 * them on again.  Said, and kept as that line's heat: the code they
 * stand for is not known (measured on the router lab's perf window,
 * which has 17.7 % of its busy samples in _raw_spin_unlock_irqrestore:
 * the plan from it with them cut to a twentieth had 2,315,345 LRU
 * misses on the traced window, 2,256,269 with them kept).  Said from
 * IRQS_ON_WARN up: an exact trace of the lab's window has 1.1 % there;
 * cpu-clock recordings of routers 5.6 % (examples/router-arm), 30.2 %
 * (examples/router-lab) and 38.1 % (the lab in host time).
 */
#define IRQS_ON_WARN 5.0	/* % of the busy samples */

static void irqs_on_note(const struct cachepin_load *l, const char *path,
			 const struct cachepin_binary *bin)
{
	const struct cachepin_profile *p = l->profile;
	double busy = 0, on = 0, top = 0, share;
	const char *top_name = NULL;
	size_t i, n = 0;

	if (!cachepin_binary__is_kernel(bin) || l->kind == CACHEPIN_INPUT_QEMU)
		return;
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *f = &p->funcs[i];
		const struct cachepin_func *bf = l->map[i] >= 0 ? &bin->funcs[l->map[i]] : NULL;

		if (bf && cachepin_kernel_idle(bin, bf))
			continue;	/* waiting, kept or not */
		busy += f->weight;
		if (!bf || !cachepin_kernel_irqs_on(bf->name))
			continue;
		on += f->weight;
		n += f->weight > 0;
		if (f->weight > top) {
			top = f->weight;
			top_name = f->name;
		}
	}
	if (on <= 0 || busy <= 0)
		return;
	share = 100.0 * on / busy;
	if (share >= IRQS_ON_WARN)
		pr_warn("'%s': %.1f %% of the busy samples are where interrupts come back on (%s%s): code that runs with interrupts off takes no sample, and its samples wait there; they stay that line's heat\n",
			path, share, top_name, n > 1 ? " and more" : "");
}

/*
 * A kernel's samples of a time event in its idle loop measure waiting,
 * not fetches (80 % of the router lab's perf window, on the line where
 * arch_cpu_idle takes the interrupt that ends a WFI): their weight out
 * of the profile, with the call edges into and out of the idle
 * functions (an interrupt taken there, the idle loop's calls), and said.
 * A sample of an instruction count is a fetch, also in the idle loop:
 * its share is said (with -v), and it stays heat.  0 or -ENOMEM.
 */
static int idle_out(struct cachepin_load *l, const char *path, const struct cachepin_binary *bin)
{
	struct cachepin_profile *p = l->profile;
	double all = 0, top = 0, fetched = 0;
	const char *top_name = NULL, *kind;
	size_t i, k, n = 0, nidle = 0;
	bool *idle, fetches;

	if (!cachepin_binary__is_kernel(bin))
		return 0;
	kind = cachepin_profile__event_kind(p);
	fetches = kind && !strcmp(kind, "fetches");
	idle = calloc(p->nr_funcs + 1, sizeof(*idle));
	if (!idle)
		return -ENOMEM;
	for (i = 0; i < p->nr_funcs; i++) {
		struct cachepin_pfunc *f = &p->funcs[i];

		all += f->weight;
		if (l->map[i] < 0 || !cachepin_kernel_idle(bin, &bin->funcs[l->map[i]]))
			continue;
		nidle += f->weight > 0;
		if (f->weight > top) {
			top = f->weight;
			top_name = f->name;
		}
		if (fetches) {
			fetched += f->weight;
			continue;
		}
		idle[i] = true;
		l->idle_weight += f->weight;
		f->weight = 0;
		for (k = 0; k < f->nr_grans; k++)
			f->grans[k].weight = 0;
		if (f->slices)
			memset(f->slices, 0, f->nr_grans * p->nr_slices * sizeof(*f->slices));
	}
	for (i = 0; i < p->nr_edges; i++)
		if (!idle[p->edges[i].caller] && !idle[p->edges[i].callee])
			p->edges[n++] = p->edges[i];
	p->nr_edges = n;
	free(idle);
	if (fetched > 0 && all > 0)
		cachepin_pr(CACHEPIN_INFO, "'%s': %.1f %% of the samples are in the idle loop (%s%s): "
			    "they count fetches, so they are heat\n", path, 100.0 * fetched / all, top_name,
			    nidle > 1 ? " and more" : "");
	if (l->idle_weight > 0 && all > 0) {
		double share = 100.0 * l->idle_weight / all;

		cachepin_pr(share >= 1 ? CACHEPIN_WARN : CACHEPIN_INFO,
			    "'%s': %.1f %% of the samples wait in the idle loop (%s%s), not fetch code: they are not heat\n",
			    path, share, top_name, nidle > 1 ? " and more" : "");
		if (share >= 1)
			cachepin_pr(CACHEPIN_WARN, "hint: --keep-idle counts them as heat\n");
	}
	return 0;
}

int cachepin_profile__load(struct cachepin_load *l, const char *path,
			   struct cachepin_binary *bin, const struct cachepin_load_opts *opts)
{
	static const struct cachepin_load_opts none;
	const struct cachepin_load_opts *o = opts ? opts : &none;
	struct sniff s;
	int err;

	memset(l, 0, sizeof(*l));
	err = sniff(path, &s);
	if (err)
		return err;
	l->kind = s.kind;
	if (s.kind == CACHEPIN_INPUT_PROFILE) {
		if (!load_profile(l, bin, path, o->modules, o->module_pages))
			goto fail;
	} else {
		l->profile = load_samples(bin, path, o, &s);
		if (s.fd >= 0)
			close(s.fd);
		if (!l->profile || spread(l->profile, o->module_pages) ||
		    add_occupants(l->profile, bin, o->modules, path))
			goto fail;
	}
	cachepin_occupants__report(l->profile, path, bin);
	/* static edges add no function: a profile read back is matched already */
	err = add_objects(l->profile, bin, o);
	if (err || (!l->map && match(l, bin)))
		goto fail;
	if (!o->keep_idle && (err = idle_out(l, path, bin))) {
		errno = -err;
		goto fail;
	}
	irqs_on_note(l, path, bin);
	return 0;
fail:
	err = errno && errno != EINTR ? -errno : -EINVAL;
	cachepin_load__release(l);
	return err;
}

void cachepin_load__release(struct cachepin_load *l)
{
	cachepin_profile__free(l->profile);
	free(l->map);
	memset(l, 0, sizeof(*l));
}
