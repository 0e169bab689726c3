// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inputs shared by the commands: the binary (with map and objects) and
 * the profile from any source (cachepin profile, perf.data, text).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cachepin/objects.h"
#include "cachepin/perf.h"
#include "cachepin/qemu.h"
#include "cachepin/textin.h"
#include "tool.h"

static int push(const char ***arr, size_t *n, const char *v)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	a[(*n)++] = v;
	*arr = a;
	return 0;
}

int tool_inputs_opt(struct tool_inputs *in, int id, const char *arg)
{
	switch (id) {
	case 'm':
		in->map = arg;
		return 0;
	case 1001:
		return push(&in->objects, &in->nr_objects, arg) ? 1 : 0;
	case 1002:
		in->mode = 1;
		return 0;
	case 1003:
		in->mode = 2;
		return 0;
	case 1004:
		return push(&in->fixed, &in->nr_fixed, arg) ? 1 : 0;
	case 1005: {
		char *end;

		errno = 0;
		in->ebase = strtoull(arg, &end, 16);
		if (errno || *end || end == arg || *arg == '-')
			return tool_error("bad --ebase '%s': not a hex address", arg) * EXIT_USAGE;
		in->has_ebase = true;
		return 0;
	}
	case 'c': {
		char *dup = strdup(arg), *s, *save = NULL;

		if (!dup)
			return 1;
		for (s = strtok_r(dup, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
			if (in->nr_caches == ARRAY_LEN(in->caches)) {
				free(dup);
				return tool_error("too many caches (at most %zu)", ARRAY_LEN(in->caches));
			}
			if (cachepin_cache__parse(&in->caches[in->nr_caches], s)) {
				free(dup);
				return EXIT_USAGE;
			}
			in->nr_caches++;
		}
		free(dup);
		return 0;
	}
	}
	return -1;	/* not ours */
}

void tool_inputs_release(struct tool_inputs *in)
{
	free(in->objects);
	free(in->fixed);
	in->objects = in->fixed = NULL;
	in->nr_objects = in->nr_fixed = 0;
}

int tool_default_cache(struct tool_inputs *in)
{
	if (in->nr_caches)
		return 0;
	return cachepin_cache__parse(&in->caches[in->nr_caches++], "cortex-a9-32k");
}

struct cachepin_binary *tool_open_binary(struct tool_inputs *in)
{
	struct cachepin_binary *bin = cachepin_binary__open(in->binary);
	size_t i;
	int r;

	if (!bin)
		return NULL;
	if (in->map && cachepin_binary__load_map(bin, in->map)) {
		cachepin_binary__free(bin);
		return NULL;
	}
	if (in->has_ebase && (r = cachepin_binary__set_ebase(bin, in->ebase))) {
		if (r > 0) {
			tool_error("'%s': --ebase is for 32-bit MIPS kernels; this is %s ELF%d", bin->path,
				   bin->arch, bin->elf_class);
			tool_hint("leave --ebase out: only a MIPS vmlinux has its exception handlers at ebase");
		}
		cachepin_binary__free(bin);
		return NULL;
	}
	for (i = 0; i < in->nr_fixed; i++)
		cachepin_binary__fix(bin, in->fixed[i], "--fixed");
	if (!in->mode) {
		uint64_t v;

		in->mode = cachepin_binary__sym_value(bin, "start_kernel", &v) == 0 ? 1 : 2;
	}
	return bin;
}

enum input_kind { IN_PROFILE, IN_PERF, IN_TEXT, IN_QEMU };

/*
 * What PATH holds, by its first bytes.  A QEMU log that is not a regular
 * file (a pipe) keeps its descriptor and the bytes read in *HEAD_FD and
 * HEAD (*HEAD_LEN), so that none is lost.
 */
static int input_kind(const char *path, enum input_kind *kind, int *head_fd, char *head,
		      size_t *head_len)
{
	char magic[256] = "";
	struct stat sb;
	ssize_t n;
	int fd;

	if (!strcmp(path, "-")) {
		*kind = IN_PERF;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tool_error("cannot open '%s': %s", path, strerror(errno));
	/* a pipe may give less than asked for: read on up to the buffer's end */
	for (n = 0; n < (ssize_t)sizeof(magic) - 1;) {
		ssize_t r = read(fd, magic + n, sizeof(magic) - 1 - (size_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				n = -1;
			break;
		}
		n += r;
	}
	if (n < 0) {
		close(fd);
		return tool_error("cannot read '%s': %s", path, strerror(errno));
	}
	if (cachepin_qtrace__detect(magic, (size_t)n)) {
		*kind = IN_QEMU;
		if (!fstat(fd, &sb) && !S_ISREG(sb.st_mode)) {
			memcpy(head, magic, (size_t)n);
			*head_len = (size_t)n;
			*head_fd = fd;
			return 0;
		}
		close(fd);
		return 0;
	}
	close(fd);
	if (n >= 8 && (!memcmp(magic, "PERFILE2", 8) || !memcmp(magic, "2ELIFREP", 8) ||
		       !memcmp(magic, "PERFFILE", 8)))
		*kind = IN_PERF;
	else if (!strncmp(magic, "# cachepin-profile", 18))
		*kind = IN_PROFILE;
	else
		*kind = IN_TEXT;
	return 0;
}

struct perf_ctx {
	struct cachepin_pbuild *pb;
	struct cachepin_perf *perf;
	bool ref_done;
};

static int perf_sample(void *ctx, const struct cachepin_sample *s)
{
	struct perf_ctx *pc = ctx;

	if (!pc->ref_done) {
		const struct cachepin_perf_meta *m = cachepin_perf__meta(pc->perf);

		if (m->has_kernel_map) {
			cachepin_pbuild__set_kernel_ref(pc->pb, m->kernel_ref_sym, m->kernel_ref_addr);
			pc->ref_done = true;
		}
	}
	return cachepin_pbuild__add(pc->pb, s);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static void check_build_id(const struct cachepin_binary *bin, const struct cachepin_perf_meta *m,
			   const char *path, bool kernel)
{
	char mine[129], theirs[129];
	size_t i, j;

	cachepin_binary__build_id_str(bin, mine);
	if (!*mine)
		return;
	for (i = 0; i < m->nr_buildids; i++) {
		const struct cachepin_perf_buildid *b = &m->buildids[i];
		bool match = kernel ? !strcmp(b->name, "[kernel.kallsyms]")
				    : !strcmp(base_name(b->name), base_name(bin->path));

		if (!match)
			continue;
		for (j = 0; j < b->size && j < 64; j++)
			sprintf(theirs + 2 * j, "%02x", b->id[j]);
		theirs[2 * j] = '\0';
		if (strcmp(mine, theirs))
			fprintf(stderr, "cachepin: warning: build-id of '%s' (%s) differs from the one '%s' recorded (%s)\n",
				bin->path, mine, path, theirs);
		return;
	}
}

/* Report what a QEMU log held besides the blocks that became samples. */
static void qemu_report(const char *path, const struct cachepin_qtrace_stats *st)
{
	if (st->nr_unknown)
		fprintf(stderr, "cachepin: warning: '%s': %" PRIu64 " of %" PRIu64 " executed blocks (%" PRIu64 " addresses, the first at line %" PRIu64 ") have no in_asm block and are not counted\n"
			"hint: keep in_asm logging on from the start ('-d in_asm,nochain') and add exec for the window\n",
			path, st->nr_unknown, st->nr_unknown + st->nr_blocks, st->nr_unknown_pcs,
			st->first_unknown_line);
	if (st->nr_partial)
		fprintf(stderr, "cachepin: warning: '%s': the disassembler stopped early in %" PRIu64 " of %" PRIu64 " in_asm blocks; they count as far as it got\n",
			path, st->nr_partial, st->nr_translations);
	if (st->cut_last_line)
		fprintf(stderr, "cachepin: warning: '%s': the last line is cut off; ignored\n", path);
	if (!st->nr_exec)
		fprintf(stderr, "cachepin: warning: '%s': no exec lines\n"
			"hint: record with '-d in_asm,exec,nochain'\n", path);
	if (tool_verbose)
		fprintf(stderr, "cachepin: '%s': %" PRIu64 " exec lines, %" PRIu64 " blocks run (%" PRIu64 " instructions), %" PRIu64 " cancelled, %" PRIu64 " translations (%" PRIu64 " again)\n",
			path, st->nr_exec, st->nr_blocks, st->nr_insns, st->nr_stopped,
			st->nr_translations, st->nr_retranslated);
}

static struct cachepin_profile *load_samples(struct tool_inputs *in, struct cachepin_binary *bin,
					     const char *path, enum input_kind kind, int head_fd,
					     const char *head, size_t head_len)
{
	unsigned int flags = in->mode == 1 ? CACHEPIN_PBUILD_KERNEL : CACHEPIN_PBUILD_USER;
	struct cachepin_pbuild *pb = cachepin_pbuild__new(bin, flags);
	struct cachepin_profile *p;
	char *event = NULL;
	int err;

	if (!pb) {
		tool_error("out of memory");
		return NULL;
	}
	if (kind == IN_PERF) {
		struct perf_ctx pc = { pb, cachepin_perf__open(path), false };

		if (!pc.perf) {
			cachepin_profile__free(cachepin_pbuild__finish(pb));
			return NULL;
		}
		err = cachepin_perf__for_each_sample(pc.perf, perf_sample, &pc);
		if (!err) {
			const struct cachepin_perf_meta *m = cachepin_perf__meta(pc.perf);

			check_build_id(bin, m, path, in->mode == 1);
			if (m->nr_lost)
				fprintf(stderr, "cachepin: warning: '%s' lost %" PRIu64 " samples\n",
					path, m->nr_lost);
		}
		cachepin_perf__free(pc.perf);
	} else if (kind == IN_QEMU) {
		/* where a kernel switches tasks (ARM, MIPS, x86-64, arm64) */
		static const char *const switchers[] = { "__switch_to", "__switch_to_asm", "resume",
							 "cpu_switch_to" };
		struct cachepin_qsample_opts o = { .period = in->period, .kernel = in->mode == 1 };
		struct cachepin_qtrace *t = head_fd >= 0 ? cachepin_qtrace__open_fd(head_fd, path, head, head_len)
							 : cachepin_qtrace__open(path);
		uint64_t sw[ARRAY_LEN(switchers)][2];
		size_t i;

		for (i = 0; o.kernel && i < ARRAY_LEN(switchers); i++) {
			const struct cachepin_func *f = cachepin_binary__lookup(bin, switchers[i], NULL, NULL);

			if (f && f->size) {
				sw[o.nr_switch_ranges][0] = f->addr;
				sw[o.nr_switch_ranges++][1] = f->addr + f->size;
			}
		}
		o.switch_ranges = sw;
		if (!t) {
			cachepin_profile__free(cachepin_pbuild__finish(pb));
			return NULL;
		}
		err = cachepin_qtrace__for_each_sample(t, &o, cachepin_pbuild__add_leaves, pb);
		if (!err)
			qemu_report(path, cachepin_qtrace__stats(t));
		cachepin_qtrace__free(t);
	} else {
		err = cachepin_text__read(path, CACHEPIN_TEXT_AUTO, cachepin_pbuild__add, pb, &event);
	}
	p = cachepin_pbuild__finish(pb);
	if (err || !p) {
		free(event);
		cachepin_profile__free(p);
		if (!p && !err)
			tool_error("out of memory");
		return NULL;
	}
	if (event && !p->event)
		p->event = event;
	else
		free(event);
	if (!p->nr_matched) {
		tool_error("'%s': no sample matched a function of '%s' (0 of %" PRIu64 " samples)",
			   path, bin->path, p->nr_samples);
		tool_hint("is '%s' the binary that was profiled? for a kernel pass the vmlinux and use --kernel; for a program, --user",
			  bin->path);
		cachepin_profile__free(p);
		return NULL;
	}
	return p;
}

struct cachepin_profile *tool_load_profile(struct tool_inputs *in, struct cachepin_binary *bin,
					   const char *path)
{
	struct cachepin_profile *p;
	enum input_kind kind = IN_TEXT;
	char head[256];
	size_t head_len = 0;
	int head_fd = -1;

	if (input_kind(path, &kind, &head_fd, head, &head_len))
		return NULL;
	if (kind == IN_PROFILE) {
		double uw = 0, total;
		int *map;
		ssize_t matched;
		size_t i;

		p = cachepin_profile__read(path);
		if (!p)
			return NULL;
		map = calloc(p->nr_funcs + 1, sizeof(*map));
		if (!map) {
			cachepin_profile__free(p);
			return NULL;
		}
		matched = cachepin_profile__match(p, bin, map, &uw);
		total = 0;
		for (i = 0; i < p->nr_funcs; i++)
			total += p->funcs[i].weight;
		if (matched <= 0 || uw >= total) {
			free(map);
			tool_error("'%s': none of its %zu hot functions is in '%s' (%zd functions matched, 0 %% of the weight)",
				   path, p->nr_funcs, bin->path, matched < 0 ? 0 : matched);
			tool_hint("the profile was made for '%s'; pass that binary or one built from the same source",
				  p->binary ? p->binary : "?");
			cachepin_profile__free(p);
			return NULL;
		}
		if (uw > 0) {
			size_t shown = 0;

			fprintf(stderr, "cachepin: warning: '%s': %zd of %zu functions (%.2f %% of the weight) are not in '%s':",
				path, (ssize_t)p->nr_funcs - matched, p->nr_funcs, 100.0 * uw / total, bin->path);
			for (i = 0; i < p->nr_funcs && shown < 5; i++)
				if (map[i] < 0 && p->funcs[i].weight > 0) {
					fprintf(stderr, " %s", p->funcs[i].name);
					shown++;
				}
			fprintf(stderr, "%s\n", (ssize_t)p->nr_funcs - matched > (ssize_t)shown ? " ..." : "");
		}
		free(map);
	} else {
		p = load_samples(in, bin, path, kind, head_fd, head, head_len);
		if (!p)
			return NULL;
	}
	if (in->nr_objects) {
		struct cachepin_objects *objs = cachepin_objects__load(in->objects, in->nr_objects);

		if (!objs) {
			cachepin_profile__free(p);
			return NULL;
		}
		if (cachepin_profile__add_static(p, bin, objs)) {
			cachepin_objects__free(objs);
			cachepin_profile__free(p);
			tool_error("out of memory");
			return NULL;
		}
		cachepin_objects__free(objs);
	}
	return p;
}

int tool_write_file(const char *path, int (*fn)(FILE *f, void *ctx), void *ctx)
{
	struct stat st;
	char *tmp = NULL;
	FILE *f;
	int fd, err;

	if (!path || !strcmp(path, "-")) {
		err = fn(stdout, ctx);
		if (fflush(stdout) || err)
			return tool_error("cannot write output: %s", strerror(err ? -err : errno));
		return 0;
	}
	/*
	 * A device or a pipe (/dev/null, a FIFO) is written in place: renaming
	 * a temporary file over it would replace the device node.  A regular
	 * file is written to a temporary one renamed over it when complete.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w");
		if (!f)
			return tool_error("cannot write '%s': %s", path, strerror(errno));
	} else {
		if (asprintf(&tmp, "%s.tmpXXXXXX", path) < 0)
			return tool_error("out of memory");
		fd = mkstemp(tmp);
		if (fd < 0) {
			err = errno;
			free(tmp);
			return tool_error("cannot create '%s': %s", path, strerror(err));
		}
		f = fdopen(fd, "w");
		if (!f) {
			close(fd);
			unlink(tmp);
			free(tmp);
			return tool_error("cannot write '%s'", path);
		}
	}
	err = fn(f, ctx);
	if (fflush(f) || ferror(f))
		err = err ? err : -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (tmp && !err && rename(tmp, path))
		err = -errno;
	if (tmp && err)
		unlink(tmp);
	if (tmp && !err)
		chmod(path, 0644);
	free(tmp);
	if (err)
		return tool_error("cannot write '%s': %s", path, strerror(-err));
	return 0;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
