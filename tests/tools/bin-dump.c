// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Print what the library read from a binary, a link map, objects or
 * DWARF, one record a line, for the shell tests:
 *   bin-dump funcs FILE [MAP]     addr size name unit-object unit-section flags
 *   bin-dump units FILE [MAP]     addr size section object align flags nr-funcs why
 *   bin-dump secs FILE            addr size align exec name
 *   bin-dump info FILE            arch class endianness type build-id
 *   bin-dump lookup FILE MAP|- NAME [OBJECT]
 *   bin-dump sym FILE NAME
 *   bin-dump find FILE ADDR...
 *   bin-dump off FILE OFFSET...
 *   bin-dump fix FILE MAP|- PATTERN
 *   bin-dump objects FILE...      edge CALLER CALLER-OBJ CALLEE COUNT call|tail,
 *                                 then sec OBJECT SECTION ALIGN [mixed]
 *   bin-dump srcline FILE ADDR... ADDR FILE:LINE [INLINED]
 *   bin-dump time FILE MAP        seconds for open + load_map, to stderr
 *   bin-dump flow FILE            name offset [slot] for every instruction
 *                                 after which a function's straight run ends
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cachepin/binary.h"
#include "cachepin/objects.h"
#include "cachepin/srcline.h"
#include "flow.h"

static void usage(void)
{
	fprintf(stderr, "usage: bin-dump funcs|units|secs|info|lookup|sym|find|off|fix|"
		"objects|srcline|time|flow FILE ...\n");
	exit(2);
}

static struct cachepin_binary *open_bin(const char *path, const char *map)
{
	struct cachepin_binary *bin = cachepin_binary__open(path);

	if (!bin)
		exit(1);
	if (map && strcmp(map, "-") && cachepin_binary__load_map(bin, map)) {
		cachepin_binary__free(bin);
		exit(1);
	}
	return bin;
}

static void print_flags(unsigned int fl)
{
	static const char *const names[] = { "local", "weak", "thumb", "dupname", "nosize",
					     "synthetic" };
	const char *sep = "";
	size_t i;

	for (i = 0; i < 6; i++)
		if (fl & (1u << i)) {
			printf("%s%s", sep, names[i]);
			sep = ",";
		}
	if (!*sep)
		printf("-");
}

static void print_unit_flags(unsigned int fl)
{
	static const char *const names[] = { "movable", "fixed", "whole", "map", "synthetic" };
	const char *sep = "";
	size_t i;

	for (i = 0; i < 5; i++)
		if (fl & (1u << i)) {
			printf("%s%s", sep, names[i]);
			sep = ",";
		}
	if (!*sep)
		printf("-");
}

static int cmd_funcs(struct cachepin_binary *bin)
{
	size_t i;

	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i];
		const struct cachepin_unit *u = cachepin_binary__func_unit(bin, f);

		printf("%llx %llx %s %s %s ", (unsigned long long)f->addr,
		       (unsigned long long)f->size, f->name,
		       u && u->object ? u->object : "-", u ? u->section : "-");
		print_flags(f->flags);
		putchar('\n');
	}
	return 0;
}

static int cmd_units(struct cachepin_binary *bin)
{
	size_t i;

	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		printf("%llx %llx %s %s %llu ", (unsigned long long)u->addr,
		       (unsigned long long)u->size, u->section, u->object ? u->object : "-",
		       (unsigned long long)u->align);
		print_unit_flags(u->flags);
		printf(" %zu %s\n", u->nr_funcs, u->fixed_why ? u->fixed_why : "-");
	}
	return 0;
}

static int cmd_objects(const char *const *paths, size_t n)
{
	struct cachepin_objects *objs = cachepin_objects__load(paths, n);
	size_t i;

	if (!objs)
		return 1;
	for (i = 0; i < objs->nr_edges; i++) {
		const struct cachepin_cgedge *e = &objs->edges[i];

		printf("edge %s %s %s %u %s\n", e->caller, e->caller_object, e->callee,
		       e->count, e->tail ? "tail" : "call");
	}
	for (i = 0; i < objs->nr_secs; i++) {
		const struct cachepin_objsec *s = &objs->secs[i];

		printf("sec %s %s %" PRIu64 "%s\n", s->object, s->section, s->align,
		       s->mixed ? " mixed" : "");
	}
	cachepin_objects__free(objs);
	return 0;
}

static int cmd_srcline(const char *path, char **addrs, int n)
{
	struct cachepin_srcline *sl = cachepin_srcline__open(path);
	int i;

	if (!sl) {
		perror(path);
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t a = strtoull(addrs[i], NULL, 16);
		const char *file, *inl;
		unsigned int line;
		int r = cachepin_srcline__lookup(sl, a, &file, &line, &inl);

		if (r < 0) {
			cachepin_srcline__free(sl);
			return 1;
		}
		if (r)
			printf("%llx ??:0\n", (unsigned long long)a);
		else
			printf("%llx %s:%u%s%s\n", (unsigned long long)a, file, line,
			       inl ? " " : "", inl ? inl : "");
	}
	cachepin_srcline__free(sl);
	return 0;
}

/* An instruction that ends a run: its function, offset, length (and "slot" before a delay slot). */
static void print_end(uint64_t off, uint32_t len, bool after_slot, void *arg)
{
	printf("%s %llx %u%s\n", (const char *)arg, (unsigned long long)off, len,
	       after_slot ? " slot" : "");
}

static int cmd_flow(const char *path)
{
	struct cachepin_binary *bin = open_bin(path, NULL);
	struct cachepin_flow fl;
	size_t i;
	int err;

	if ((err = cachepin_flow__open(&fl, bin))) {
		fprintf(stderr, "bin-dump: '%s': %s\n", path, strerror(-err));
		cachepin_binary__free(bin);
		return 1;
	}
	for (i = 0; i < bin->nr_funcs && !err; i++) {
		err = cachepin_flow__walk(&fl, &bin->funcs[i], UINT64_MAX, print_end,
					  bin->funcs[i].name);
		if (err == -ENOTSUP)
			err = 0;
	}
	cachepin_flow__close(&fl);
	cachepin_binary__free(bin);
	return err ? 1 : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct cachepin_binary *bin;
	const char *cmd;
	char buf[160];
	int i, rc = 0;

	if (argc < 3)
		usage();
	cmd = argv[1];
	if (!strcmp(cmd, "objects"))
		return cmd_objects((const char *const *)argv + 2, (size_t)argc - 2);
	if (!strcmp(cmd, "flow"))
		return cmd_flow(argv[2]);
	if (!strcmp(cmd, "srcline"))
		return cmd_srcline(argv[2], argv + 3, argc - 3);
	if (!strcmp(cmd, "time")) {
		double t0 = now(), t1;

		if (argc < 4)
			usage();
		bin = open_bin(argv[2], NULL);
		t1 = now();
		if (cachepin_binary__load_map(bin, argv[3]))
			return 1;
		fprintf(stderr, "open %.3f s, load_map %.3f s, %zu functions, %zu units\n",
			t1 - t0, now() - t1, bin->nr_funcs, bin->nr_units);
		cachepin_binary__free(bin);
		return 0;
	}

	if (!strcmp(cmd, "funcs") || !strcmp(cmd, "units")) {
		bin = open_bin(argv[2], argc > 3 ? argv[3] : NULL);
		rc = cmd[0] == 'f' ? cmd_funcs(bin) : cmd_units(bin);
	} else if (!strcmp(cmd, "secs")) {
		bin = open_bin(argv[2], NULL);
		for (i = 0; i < (int)bin->nr_secs; i++)
			printf("%llx %llx %llu %d %s\n", (unsigned long long)bin->secs[i].addr,
			       (unsigned long long)bin->secs[i].size,
			       (unsigned long long)bin->secs[i].align, bin->secs[i].exec,
			       bin->secs[i].name);
	} else if (!strcmp(cmd, "info")) {
		bin = open_bin(argv[2], NULL);
		printf("%s %d %s %s %s\n", bin->arch, bin->elf_class,
		       bin->big_endian ? "be" : "le", bin->relocatable ? "rel" : "linked",
		       bin->build_id_len ? cachepin_binary__build_id_str(bin, buf) : "-");
	} else if (!strcmp(cmd, "lookup")) {
		const struct cachepin_func *f;
		bool amb;

		if (argc < 5)
			usage();
		bin = open_bin(argv[2], argv[3]);
		f = cachepin_binary__lookup(bin, argv[4], argc > 5 ? argv[5] : NULL, &amb);
		if (f)
			printf("%llx %s%s\n", (unsigned long long)f->addr, f->name,
			       amb ? " ambiguous" : "");
		else
			printf("none\n");
	} else if (!strcmp(cmd, "sym")) {
		uint64_t v;

		if (argc < 4)
			usage();
		bin = open_bin(argv[2], NULL);
		if (cachepin_binary__sym_value(bin, argv[3], &v))
			printf("none\n");
		else
			printf("%llx\n", (unsigned long long)v);
	} else if (!strcmp(cmd, "find") || !strcmp(cmd, "off")) {
		bin = open_bin(argv[2], NULL);
		for (i = 3; i < argc; i++) {
			uint64_t a = strtoull(argv[i], NULL, 16), v;
			const struct cachepin_func *f;

			if (cmd[0] == 'o') {
				if (cachepin_binary__off_to_addr(bin, a, &v))
					printf("%llx none\n", (unsigned long long)a);
				else
					printf("%llx %llx\n", (unsigned long long)a,
					       (unsigned long long)v);
				continue;
			}
			f = cachepin_binary__find_func(bin, a);
			printf("%llx %s\n", (unsigned long long)a, f ? f->name : "none");
		}
	} else if (!strcmp(cmd, "fix")) {
		if (argc < 5)
			usage();
		bin = open_bin(argv[2], argv[3]);
		i = cachepin_binary__fix(bin, argv[4], "test");
		printf("fixed %d\n", i);
		cmd_units(bin);
	} else {
		usage();
	}
	cachepin_binary__free(bin);
	return rc;
}
