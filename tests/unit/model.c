// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The miss model on hand-built profiles: order comes from call edges,
 * a cycle of five hot lines in one 4-way set misses every time under
 * LRU, the same code spread over five sets only misses cold, and the
 * fully associative reference does not see the difference; a profile in
 * time slices replays its phases, and its halves are its even and odd
 * slices.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "cachepin/model.h"
#include "cachepin/score.h"
#include "unit.h"

#define NF 6

static struct cachepin_func funcs[NF];
static struct cachepin_binary bin = { .path = "synthetic", .funcs = funcs, .nr_funcs = NF };

/* The layout of B with every function at ADDR (DELTA: B's nr_funcs entries, the layout's). */
static const struct cachepin_layout *at(struct cachepin_layout *l, const struct cachepin_binary *b,
					const uint64_t *addr, int64_t *delta)
{
	size_t i;

	for (i = 0; i < b->nr_funcs; i++)
		delta[i] = (int64_t)(addr[i] - b->funcs[i].addr);
	*l = (struct cachepin_layout){ .bin = b, .delta = delta };
	return l;
}

static void add_func(struct cachepin_profile *p, const char *name, double w, uint64_t size)
{
	struct cachepin_pfunc *f;

	p->funcs = realloc(p->funcs, (p->nr_funcs + 1) * sizeof(*p->funcs));
	f = &p->funcs[p->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->weight = w;
	f->incl = w;
	f->size = size;
}

/*
 * A caller with no samples of its own is hot at its call site and the
 * block before it, with its edge's share of the callee's entry: here 10
 * of the 15 through both edges, so 10 * 10 / 15; the edges of a
 * function missing from the binary are nobody's.
 */
static void call_sites(void)
{
	struct cachepin_func bf[2] = {
		{ .name = "hot", .addr = 0x1000, .size = 16, .unit = -1 },
		{ .name = "caller", .addr = 0x2000, .size = 128, .unit = -1 },
	};
	struct cachepin_binary b = { .path = "synthetic", .funcs = bf, .nr_funcs = 2 };
	struct cachepin_pfunc pf[3] = {
		{ .name = "hot", .weight = 10, .incl = 10, .size = 16 },
		{ .name = "gone", .weight = 5, .incl = 5, .size = 128 },
		{ .name = "caller", .size = 128 },
	};
	struct cachepin_pedge pe[2] = {
		{ 1, 0, 0x74, 5, CACHEPIN_PEDGE_DYNAMIC },
		{ 2, 0, 0x44, 10, CACHEPIN_PEDGE_DYNAMIC },
	};
	struct cachepin_profile p = { .granule = 16, .funcs = pf, .nr_funcs = 3, .edges = pe,
				      .nr_edges = 2 };
	struct cachepin_model_opts o = { .whole = true };
	int map[3] = { 0, -1, 1 };
	struct cachepin_model *m;
	size_t i;

	m = cachepin_model__new(&p, &b, map, NULL);
	CHECK(m != NULL, "call-site model");
	if (!m)
		return;
	/* hot's entry, then caller's granules 1..3 (the call block) and 4 (the call) */
	CHECK(m->nr_items == 5, "five items (%zu)", m->nr_items);
	for (i = 1; i < m->nr_items && i < 5; i++) {
		CHECK(m->items[i].func == 1 && m->items[i].off == i * 16 &&
		      fabs(m->items[i].weight - 10.0 * 10 / 15) < 1e-9,
		      "caller granule %zu: func %u off %#x weight %g", i, m->items[i].func,
		      m->items[i].off, m->items[i].weight);
		CHECK(m->items[i].rank == i - 1, "caller granule %zu runs first (rank %u)", i,
		      m->items[i].rank);
	}
	CHECK(m->items[0].rank == 4, "hot runs at its call site (rank %u)", m->items[0].rank);
	cachepin_model__free(m);

	m = cachepin_model__new(&p, &b, map, &o);
	CHECK(m && m->nr_items == 9, "whole functions: all eight granules of caller (%zu)",
	      m ? m->nr_items : 0);
	cachepin_model__free(m);
}

/*
 * Five one-line functions in one 4-way set: in the first half of the
 * run f0..f2 run, in the second f3 and f4.  Folded together the five
 * cycle and miss every time; replayed slice by slice each phase fits.
 */
static void phases(void)
{
	struct cachepin_func bf[5];
	struct cachepin_pfunc pf[5];
	struct cachepin_pgran pg[5];
	double sl[5][4];
	struct cachepin_binary b = { .path = "synthetic", .funcs = bf, .nr_funcs = 5 };
	struct cachepin_profile p = { .granule = 16, .funcs = pf, .nr_funcs = 5, .nr_slices = 4 };
	struct cachepin_model_opts o = { 0 };
	uint64_t addr[5], miss[4];
	int64_t delta[5];
	struct cachepin_layout l;
	struct cachepin_cache c;
	int map[5], k;
	size_t i;

	cachepin_cache__parse(&c, "32K:4:32");
	memset(pg, 0, sizeof(pg));
	memset(sl, 0, sizeof(sl));
	for (i = 0; i < 5; i++) {
		static const char *const names[] = { "f0", "f1", "f2", "f3", "f4" };

		bf[i] = (struct cachepin_func){ .name = (char *)names[i], .addr = 0x10000 + i * 0x40,
						.size = 16, .unit = -1 };
		pg[i].weight = 20;
		/* f0..f2 in slices 0 and 1, f3 and f4 in slices 2 and 3 */
		sl[i][i < 3 ? 0 : 2] = 10;
		sl[i][i < 3 ? 1 : 3] = 10;
		pf[i] = (struct cachepin_pfunc){ .name = (char *)names[i], .weight = 20, .samples = 20,
						 .incl = 20, .size = 16, .grans = &pg[i], .nr_grans = 1,
						 .slices = sl[i] };
		addr[i] = 0x20000 + i * c.way_span;
		map[i] = (int)i;
	}
	CHECK(cachepin_model__can_split(&p), "four slices can be split");
	for (k = 0; k < 4; k++) {
		struct cachepin_model *m;
		struct cachepin_score s;

		/*
		 * k = 0: in time order; 1: folded (no slices); 2: half 1;
		 * 3: half 1 of the same slices taken as phases (thinned, all four kept)
		 */
		p.nr_slices = k == 1 ? 0 : 4;
		p.phases = k == 3;
		o.half = k >= 2 ? 1 : 0;
		m = cachepin_model__new(&p, &b, map, &o);
		CHECK(m && m->nr_slices == (k == 0 || k == 3 ? 4u : k == 1 ? 0u : 2u),
		      "model %d: %u slices", k, m ? m->nr_slices : 0);
		if (!m)
			return;
		CHECK(cachepin_score__run(m, at(&l, &b, addr, delta), &c, CACHEPIN_SCORE_NO_OPT, &s) == 0, "score %d", k);
		miss[k] = s.miss[CACHEPIN_REPL_LRU];
		if (k == 2)
			CHECK(m->weight == 50, "half 1 is slices 0 and 2: weight %g", m->weight);
		cachepin_score__release(&s);
		cachepin_model__free(m);
	}
	CHECK(miss[1] > 1900000, "folded, the five cycle in one set: %llu misses",
	      (unsigned long long)miss[1]);
	CHECK(miss[0] < 10, "in time order each phase fits its set: %llu misses",
	      (unsigned long long)miss[0]);
	CHECK(miss[2] < 10, "half 1 replays both phases: %llu misses", (unsigned long long)miss[2]);
	CHECK(miss[3] < 10, "half 1 of the phases replays both: %llu misses",
	      (unsigned long long)miss[3]);
}

int main(void)
{
	struct cachepin_profile p = { .granule = 16 };
	struct cachepin_cache c;
	struct cachepin_score s;
	struct cachepin_model *m;
	uint64_t addr[NF];
	int64_t delta[NF];
	struct cachepin_layout l;
	int map[NF];
	char name[16];
	size_t i;

	cachepin_cache__parse(&c, "32K:4:32");
	/* main calls f0..f4 in turn; each f is one 32-byte line, equally hot */
	funcs[0] = (struct cachepin_func){ .name = "main", .addr = 0x10000, .size = 16, .unit = -1 };
	add_func(&p, "main", 1, 16);
	for (i = 1; i < NF; i++) {
		snprintf(name, sizeof(name), "f%zu", i - 1);
		funcs[i] = (struct cachepin_func){ .name = strdup(name), .addr = 0x10000 + i * 0x40,
						   .size = 16, .unit = -1 };
		add_func(&p, name, 10, 16);
	}
	p.edges = calloc(NF, sizeof(*p.edges));
	for (i = 1; i < NF; i++)
		p.edges[p.nr_edges++] = (struct cachepin_pedge){ 0, (uint32_t)i, (uint32_t)(i * 4), 10,
								  CACHEPIN_PEDGE_DYNAMIC };
	for (i = 0; i < NF; i++)
		map[i] = (int)i;

	m = cachepin_model__new(&p, &bin, map, NULL);
	CHECK(m != NULL, "model");
	CHECK(m->ordered, "order from call edges");
	CHECK(m->nr_items == NF, "one granule per function (%zu)", m->nr_items);
	/* rank follows the call sites: main, f0, f1, ... */
	for (i = 1; i < NF; i++)
		CHECK(m->items[i].rank == i, "rank of f%zu is %u", i - 1, m->items[i].rank);

	/* f0..f4 one way span apart: one set, five lines */
	addr[0] = 0x10000 + 0x20;
	for (i = 1; i < NF; i++)
		addr[i] = 0x20000 + (i - 1) * c.way_span;
	CHECK(cachepin_score__run(m, at(&l, &bin, addr, delta), &c, CACHEPIN_SCORE_DETAIL, &s) == 0, "score");
	CHECK(s.distinct_lines == NF, "six hot lines (%llu)", (unsigned long long)s.distinct_lines);
	CHECK(s.sets[0].miss[CACHEPIN_REPL_LRU] > s.sets[0].fetches * 9 / 10,
	      "five cycling lines in one LRU set: nearly all their fetches miss (%llu of %llu)",
	      (unsigned long long)s.sets[0].miss[CACHEPIN_REPL_LRU], (unsigned long long)s.sets[0].fetches);
	CHECK(s.miss_fa_lru == NF, "fully associative: cold misses only (%llu)",
	      (unsigned long long)s.miss_fa_lru);
	CHECK(s.sets[0].lines == 5, "set 0 holds the five (%u)", s.sets[0].lines);
	CHECK(s.miss[CACHEPIN_REPL_OPT] < s.miss[CACHEPIN_REPL_RANDOM] &&
	      s.miss[CACHEPIN_REPL_RANDOM] < s.miss[CACHEPIN_REPL_LRU], "optimal < random < LRU");
	cachepin_score__release(&s);

	/* the same functions side by side: five sets */
	for (i = 1; i < NF; i++)
		addr[i] = 0x20000 + (i - 1) * 32;
	CHECK(cachepin_score__run(m, at(&l, &bin, addr, delta), &c, CACHEPIN_SCORE_DETAIL, &s) == 0, "score");
	CHECK(s.miss[CACHEPIN_REPL_LRU] == NF, "spread: cold misses only (%llu)",
	      (unsigned long long)s.miss[CACHEPIN_REPL_LRU]);
	cachepin_score__release(&s);

	/* as linked (NULL layout) is deterministic */
	{
		struct cachepin_score a, b;

		cachepin_score__run(m, NULL, &c, 0, &a);
		cachepin_score__run(m, NULL, &c, 0, &b);
		CHECK(!memcmp(a.miss, b.miss, sizeof(a.miss)), "deterministic");
		cachepin_score__release(&a);
		cachepin_score__release(&b);
	}
	cachepin_model__free(m);
	call_sites();
	phases();
	for (i = 0; i < p.nr_funcs; i++)
		free(p.funcs[i].name);
	free(p.funcs);
	free(p.edges);
	for (i = 1; i < NF; i++)
		free(funcs[i].name);
	UNIT_DONE();
}
