// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cachepin check: after the link, every planned unit is at its planned
 * offset and set, the block start is aligned, nothing planned is missing.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/emit.h"
#include "cachepin/symmap.h"
#include "tool.h"

enum { OPT_QUIET = 'q' };

const struct tool_opt check_opts[] = {
	{ "quiet", 'q', NULL, "print only problems", OPT_QUIET },
	{ NULL }
};

static int check_opt(int id, const char *arg, void *ctx)
{
	if (id == OPT_QUIET) {
		*(bool *)ctx = true;
		return 0;
	}
	return EXIT_USAGE;
}

int cmd_check(int argc, char **argv)
{
	struct cachepin_symmap *sm = NULL;
	struct cachepin_align *al = NULL;
	uint64_t start = 0, addr;
	size_t i, bad = 0, moved_fill = 0, missing = 0, ok = 0, unnamed = 0;
	bool quiet = false, have_start;
	int first, rc = 1, r;

	first = tool_parse(tool_find_cmd("check"), argc, argv, check_opt, &quiet);
	if (argc - first != 2) {
		tool_error("check: need the relinked binary (or System.map, nm output) and the alignment file");
		tool_usage(tool_find_cmd("check"), stderr);
		return EXIT_USAGE;
	}
	sm = cachepin_symmap__open(argv[first]);
	if (!sm)
		goto out;
	al = cachepin_align__read(argv[first + 1]);
	if (!al)
		goto out;
	have_start = cachepin_symmap__lookup(sm, "__cachepin_start", &start) == 0;
	if (!have_start) {
		/* ordering files carry no start symbol: anchor on the first unit */
		for (i = 0; i < al->nr; i++)
			if (al->e[i].symbol && cachepin_symmap__lookup(sm, al->e[i].symbol, &addr) == 0) {
				start = addr - al->e[i].off;
				break;
			}
		printf("no __cachepin_start in '%s': offsets taken from '%s'\n", argv[first],
		       i < al->nr ? al->e[i].symbol : "?");
	} else if (start % al->block_align) {
		printf("misaligned: __cachepin_start at 0x%" PRIx64 " is not a multiple of %" PRIu64 "\n",
		       start, al->block_align);
		bad++;
	} else if (!quiet) {
		printf("block start 0x%" PRIx64 ", aligned to %" PRIu64 "\n", start, al->block_align);
	}
	for (i = 0; i < al->nr; i++) {
		const struct cachepin_align_entry *e = &al->e[i];
		uint64_t off;
		uint32_t set_now;

		if (!e->symbol) {
			/* a fill unit without a symbol: nothing to look up */
			unnamed++;
			continue;
		}
		r = cachepin_symmap__lookup(sm, e->symbol, &addr);
		if (r == 1) {
			printf("missing: %s (%s%s%s) is not in '%s'\n", e->symbol,
			       e->object ? e->object : "", e->object ? ":" : "", e->section, argv[first]);
			missing++;
			continue;
		}
		if (r == 2) {
			/* static functions that share a name: the one at its slot */
			const uint64_t *all;
			size_t n = cachepin_symmap__lookup_all(sm, e->symbol, &all), j;

			for (j = 0; j < n; j++)
				if (all[j] - start == e->off)
					addr = all[j];
			if (!quiet)
				printf("note: '%s' names %zu symbols; %s\n", e->symbol, n,
				       addr - start == e->off ? "one is at its planned offset" :
				       "none at its planned offset, the first is reported");
		}
		off = addr - start;
		set_now = (uint32_t)((addr / al->line) % al->sets);
		if (off == e->off && (!have_start || set_now == e->first_set)) {
			ok++;
			continue;
		}
		if (e->hot || tool_verbose)
			printf("%s: %s %s planned +0x%" PRIx64 " (set %u), now +0x%" PRIx64 " (set %u)\n",
			       e->hot ? "moved" : "note: fill moved", e->hot ? "hot" : "fill", e->symbol,
			       e->off, e->first_set, off, set_now);
		if (e->hot)
			bad++;
		else
			moved_fill++;
	}
	if (bad || missing) {
		printf("FAILED: %zu of %zu units in place, %zu hot moved, %zu missing\n", ok, al->nr,
		       bad, missing);
		goto out;
	}
	if (!quiet || moved_fill)
		printf("ok: %zu of %zu units at their planned offsets; %zu fill units moved (cold code, -v lists them)%s\n",
		       ok, al->nr, moved_fill, unnamed ? "; fill units without a symbol not checked" : "");
	rc = 0;
out:
	cachepin_align__free(al);
	cachepin_symmap__free(sm);
	return rc;
}
