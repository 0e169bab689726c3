// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace-sim: count the L1 instruction-cache misses of a QEMU execution
 * log (-d in_asm,exec,nochain), on libcachepin's trace reader and exact
 * simulators.
 *
 *   trace-sim [-c SPEC[,SPEC...]]... [--range LO-HI] [--cpu N] [--seed N]
 *             [--remap OLD:NEW] [--json] LOG
 *
 * The fetch stream: every executed block, in order, touches each cache
 * line its bytes span, once (a line access).  With --range only the part
 * of a block inside [LO, HI) is fetched, and only the instructions there
 * are counted (a kernel's text, without user space).  --cpu keeps the
 * blocks of one cpu of an SMP guest (each has its own L1I).  SPEC is what
 * cachepin parses: SIZE:WAYS:LINE or a preset (default 32K:4:32); its
 * policy suffix is ignored, as every geometry is simulated with LRU,
 * pseudo-random (seeded, default seed 1), round-robin and, for
 * reference, a fully associative LRU cache of the same size.
 *
 * Output, one row per geometry and policy:
 *
 *   # trace-sim 'LOG': B blocks, I instructions, U blocks without in_asm
 *   # range 0xLO-0xHI                             (with --range)
 *   cache            policy          accesses       misses instructions     mpki
 *   32K:4:32         lru                 1234          567        89012    6.370
 *
 * --remap OLD:NEW scores the traced run on another layout of the same
 * code: OLD is the ELF that was traced, NEW a relink of it.  Every
 * instruction in a function of OLD is fetched at the same offset in the
 * function of that name in NEW; instructions outside functions, and in
 * functions whose name is not unique in OLD or NEW or that NEW lacks,
 * stay where they are (counted on standard error).  --range then selects
 * instructions by their address in OLD.
 *
 * mpki = misses per 1000 instructions.  A line accessed again right after
 * itself always hits (in all four policies): such repeats are counted as
 * accesses but not kept in the simulated string, which holds 8 bytes per
 * other access.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/binary.h"
#include "cachepin/cache.h"
#include "cachepin/qemu.h"

#define MAX_CACHES 16

struct stream {
	uint32_t shift;		/* line size */
	uint64_t *lines;	/* without immediate repeats */
	size_t n, cap;
	uint64_t accesses;
	uint64_t last;
	bool any;
};

/* OLD's functions moved to NEW's addresses. */
struct remap {
	struct cachepin_binary *old, *new;
	int64_t *delta;		/* per OLD function: NEW address - OLD address */
	bool *moved;		/* delta is known */
	const struct cachepin_func *last;	/* the function of the last lookup */
	uint64_t insns, kept;	/* instructions remapped, left where they were */
};

struct sim {
	struct stream st[MAX_CACHES];
	struct remap *rm;
	size_t nr_st;
	uint64_t lo, hi;
	bool range;
	long cpu;		/* -1: all */
	uint64_t insns, blocks, other_cpu;
};

static int print_lib(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	if (level != CACHEPIN_WARN)
		return 0;
	if (strncmp(fmt, "hint:", 5))
		fputs("trace-sim: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

static int push(struct stream *s, uint64_t line)
{
	s->accesses++;
	if (s->any && s->last == line)
		return 0;
	s->any = true;
	s->last = line;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1u << 16;
		uint64_t *l = realloc(s->lines, ncap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		s->lines = l;
		s->cap = ncap;
	}
	s->lines[s->n++] = line;
	return 0;
}

/* Fetch the lines of [a, z) in every stream. */
static int fetch(struct sim *sm, uint64_t a, uint64_t z)
{
	uint64_t l;
	size_t i;
	int err;

	for (i = 0; a < z && i < sm->nr_st; i++) {
		struct stream *s = &sm->st[i];

		for (l = a >> s->shift; l <= (z - 1) >> s->shift; l++)
			if ((err = push(s, l)))
				return err;
	}
	return 0;
}

/* Where the instruction at A of OLD is in NEW: A plus the returned delta. */
static int64_t remap_delta(struct remap *rm, uint64_t a, bool *moved)
{
	const struct cachepin_func *f = rm->last;

	if (!f || a < f->addr || a >= f->addr + f->size)
		f = rm->last = cachepin_binary__find_func(rm->old, a);
	*moved = f && rm->moved[f - rm->old->funcs];
	return *moved ? rm->delta[f - rm->old->funcs] : 0;
}

/*
 * A block of OLD fetched in NEW: runs of instructions that stay together
 * (the same delta, one after the other) are fetched as one range, so a
 * block inside one function is fetched as it is, moved.
 */
static int remap_block(struct sim *sm, const struct cachepin_qblock *b)
{
	uint64_t ra = 0, rz = 0;
	int64_t rd = 0;
	bool open = false, moved;
	size_t i;
	int err;

	for (i = 0; i < b->nr_insns; i++) {
		uint64_t ia = b->pc + b->insn_off[i];
		uint64_t iz = b->pc + (i + 1 < b->nr_insns ? b->insn_off[i + 1] : b->size);
		int64_t d;

		if (sm->range && (ia < sm->lo || ia >= sm->hi))
			continue;
		sm->insns++;
		d = remap_delta(sm->rm, ia, &moved);
		if (moved)
			sm->rm->insns++;
		else
			sm->rm->kept++;
		if (open && d == rd && ia == rz) {
			rz = iz;
			continue;
		}
		if (open && (err = fetch(sm, ra + (uint64_t)rd, rz + (uint64_t)rd)))
			return err;
		open = true;
		ra = ia;
		rz = iz;
		rd = d;
	}
	return open ? fetch(sm, ra + (uint64_t)rd, rz + (uint64_t)rd) : 0;
}

/* Open OLD:NEW in SPEC and find each OLD function in NEW.  0, or 1 after a message. */
static int remap_open(struct remap *rm, const char *spec)
{
	char *old = strdup(spec), *colon = old ? strchr(old, ':') : NULL;
	size_t i;

	if (!colon || colon == old || !colon[1]) {
		fprintf(stderr, "trace-sim: bad --remap '%s'\nhint: give OLD:NEW, the traced ELF and its relink\n",
			spec);
		free(old);
		return 1;
	}
	*colon = '\0';
	rm->old = cachepin_binary__open(old);
	rm->new = rm->old ? cachepin_binary__open(colon + 1) : NULL;
	free(old);
	if (!rm->new)
		return 1;
	rm->delta = calloc(rm->old->nr_funcs + 1, sizeof(*rm->delta));
	rm->moved = calloc(rm->old->nr_funcs + 1, sizeof(*rm->moved));
	if (!rm->delta || !rm->moved) {
		fprintf(stderr, "trace-sim: out of memory\n");
		return 1;
	}
	for (i = 0; i < rm->old->nr_funcs; i++) {
		const struct cachepin_func *f = &rm->old->funcs[i], *g;
		bool amb_old = false, amb_new = false;

		cachepin_binary__lookup(rm->old, f->name, NULL, &amb_old);
		g = cachepin_binary__lookup(rm->new, f->name, NULL, &amb_new);
		if (!g || amb_old || amb_new || g->size != f->size)
			continue;
		rm->delta[i] = (int64_t)(g->addr - f->addr);
		rm->moved[i] = true;
	}
	return 0;
}

static void remap_free(struct remap *rm)
{
	cachepin_binary__free(rm->old);
	cachepin_binary__free(rm->new);
	free(rm->delta);
	free(rm->moved);
}

static int on_block(void *ctx, const struct cachepin_qblock *b)
{
	struct sim *sm = ctx;
	uint64_t a = b->pc, z = b->pc + b->size, l;
	size_t i;
	int err;

	if (sm->cpu >= 0 && b->cpu != (uint64_t)sm->cpu) {
		sm->other_cpu++;
		return 0;
	}
	sm->blocks++;
	if (sm->rm)
		return remap_block(sm, b);
	if (sm->range) {
		for (i = 0; i < b->nr_insns; i++) {
			uint64_t ia = b->pc + b->insn_off[i];

			sm->insns += ia >= sm->lo && ia < sm->hi;
		}
		if (a < sm->lo)
			a = sm->lo;
		if (z > sm->hi)
			z = sm->hi;
	} else {
		sm->insns += b->nr_insns;
	}
	if (a >= z)
		return 0;
	for (i = 0; i < sm->nr_st; i++) {
		struct stream *s = &sm->st[i];

		for (l = a >> s->shift; l <= (z - 1) >> s->shift; l++)
			if ((err = push(s, l)))
				return err;
	}
	return 0;
}

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

static void usage(FILE *f)
{
	fprintf(f, "usage: trace-sim [-c SPEC[,SPEC...]]... [--range LO-HI] [--cpu N] [--seed N] [--remap OLD:NEW] [--json] LOG\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "range", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "remap", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct {
		const char *name;
		enum cachepin_repl repl;
		bool fa;
	} pol[] = {
		{ "lru", CACHEPIN_REPL_LRU, false },
		{ "random", CACHEPIN_REPL_RANDOM, false },
		{ "round-robin", CACHEPIN_REPL_RR, false },
		{ "fa-lru", CACHEPIN_REPL_LRU, true },
	};
	struct cachepin_cache caches[MAX_CACHES];
	size_t nr_caches = 0, i, j, k;
	struct sim sm = { .cpu = -1 };
	struct remap rm = { 0 };
	const char *remap = NULL;
	const struct cachepin_qtrace_stats *qs;
	struct cachepin_qtrace *t;
	uint64_t seed = 1;
	bool json = false;
	char *end;
	int c, err;

	cachepin_set_print(print_lib);
	while ((c = getopt_long(argc, argv, "c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': {
			char *dup = strdup(optarg), *s, *save = NULL;

			for (s = strtok_r(dup, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
				if (nr_caches == MAX_CACHES) {
					fprintf(stderr, "trace-sim: too many caches (at most %d)\n", MAX_CACHES);
					return 129;
				}
				if (cachepin_cache__parse(&caches[nr_caches++], s))
					return 129;
			}
			free(dup);
			break;
		}
		case 'r':
			if (parse_range(optarg, &sm.lo, &sm.hi)) {
				fprintf(stderr, "trace-sim: bad range '%s'\nhint: use LO-HI, e.g. 0xc0008000-0xc0800000\n",
					optarg);
				return 129;
			}
			sm.range = true;
			break;
		case 'C':
			errno = 0;
			sm.cpu = strtol(optarg, &end, 0);
			if (errno || *end || end == optarg || sm.cpu < 0) {
				fprintf(stderr, "trace-sim: bad cpu '%s'\n", optarg);
				return 129;
			}
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg || *optarg == '-') {
				fprintf(stderr, "trace-sim: bad seed '%s'\n", optarg);
				return 129;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'm':
			remap = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 129;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 129;
	}
	if (!nr_caches && cachepin_cache__parse(&caches[nr_caches++], "32K:4:32"))
		return 1;
	for (i = 0; i < nr_caches; i++) {
		for (j = 0; j < sm.nr_st && sm.st[j].shift != caches[i].line_shift; j++)
			;
		if (j == sm.nr_st)
			sm.st[sm.nr_st++].shift = caches[i].line_shift;
	}

	if (remap) {
		if (remap_open(&rm, remap)) {
			remap_free(&rm);
			return 1;
		}
		sm.rm = &rm;
	}
	t = cachepin_qtrace__open(argv[optind]);
	if (!t) {
		remap_free(&rm);
		return 1;
	}
	err = cachepin_qtrace__for_each_block(t, on_block, &sm);
	if (err) {
		if (err == -ENOMEM)
			fprintf(stderr, "trace-sim: out of memory\n");
		cachepin_qtrace__free(t);
		return 1;
	}
	qs = cachepin_qtrace__stats(t);
	if (qs->nr_unknown)
		fprintf(stderr, "trace-sim: warning: '%s': %" PRIu64 " executed blocks (%" PRIu64 " addresses) have no in_asm block and are not simulated\n",
			argv[optind], qs->nr_unknown, qs->nr_unknown_pcs);
	if (qs->nr_cpus > 1 && sm.cpu < 0)
		fprintf(stderr, "trace-sim: warning: '%s' holds %u cpus; their fetches are simulated as one stream (see --cpu)\n",
			argv[optind], qs->nr_cpus);
	if (qs->cut_last_line)
		fprintf(stderr, "trace-sim: warning: '%s': the last line is cut off; ignored\n", argv[optind]);
	if (remap && rm.kept)
		fprintf(stderr, "trace-sim: '%s': %" PRIu64 " of %" PRIu64 " instructions ran outside the functions that '%s' names once in both and stay where they ran\n",
			argv[optind], rm.kept, rm.kept + rm.insns, remap);

	if (json) {
		printf("{\"log\": \"");
		for (end = argv[optind]; *end; end++)
			printf((*end == '"' || *end == '\\') ? "\\%c" : "%c", *end);
		printf("\", \"blocks\": %" PRIu64 ", \"instructions\": %" PRIu64
		       ", \"unknown_blocks\": %" PRIu64 ", \"cancelled_blocks\": %" PRIu64 ", ",
		       sm.blocks, sm.insns, qs->nr_unknown, qs->nr_stopped);
		if (sm.range)
			printf("\"range\": [%" PRIu64 ", %" PRIu64 "], ", sm.lo, sm.hi);
		printf("\"results\": [");
	} else {
		printf("# trace-sim '%s': %" PRIu64 " blocks, %" PRIu64 " instructions, %" PRIu64 " blocks without in_asm\n",
		       argv[optind], sm.blocks, sm.insns, qs->nr_unknown);
		if (sm.range)
			printf("# range 0x%" PRIx64 "-0x%" PRIx64 "\n", sm.lo, sm.hi);
		printf("%-16s %-12s %12s %12s %12s %8s\n", "cache", "policy", "accesses", "misses",
		       "instructions", "mpki");
	}
	for (i = 0; i < nr_caches; i++) {
		const struct cachepin_cache *cc = &caches[i];
		const struct stream *s = NULL;

		for (j = 0; j < sm.nr_st; j++)
			if (sm.st[j].shift == cc->line_shift)
				s = &sm.st[j];
		for (k = 0; k < sizeof(pol) / sizeof(pol[0]); k++) {
			uint64_t m = cachepin_cache__simulate(cc, pol[k].repl, pol[k].fa, s->lines, s->n,
							      seed, NULL, NULL);
			double mpki = sm.insns ? 1000.0 * (double)m / (double)sm.insns : 0;

			if (m == UINT64_MAX) {
				fprintf(stderr, "trace-sim: out of memory\n");
				cachepin_qtrace__free(t);
				return 1;
			}
			if (json)
				printf("%s{\"cache\": \"%s\", \"size\": %u, \"ways\": %u, \"line\": %u, \"policy\": \"%s\", "
				       "\"accesses\": %" PRIu64 ", \"misses\": %" PRIu64 ", \"instructions\": %" PRIu64
				       ", \"mpki\": %.3f}", i || k ? ", " : "", cc->name, cc->size, cc->ways, cc->line,
				       pol[k].name, s->accesses, m, sm.insns, mpki);
			else
				printf("%-16s %-12s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %8.3f\n", cc->name,
				       pol[k].name, s->accesses, m, sm.insns, mpki);
		}
	}
	if (json)
		printf("]}\n");
	for (j = 0; j < sm.nr_st; j++)
		free(sm.st[j].lines);
	cachepin_qtrace__free(t);
	remap_free(&rm);
	return fflush(stdout) ? 1 : 0;
}
