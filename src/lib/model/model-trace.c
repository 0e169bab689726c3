// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model of a recorded run (cachepin/model.h): a QEMU log's executed
 * blocks as the reference string itself, granule by granule in the order
 * they ran, instead of a string built from counts.  The order is what
 * decides LRU: code that runs once per packet cycles through its lines,
 * and a count says nothing of it.  Planned on and scored by such a model,
 * a layout is judged by exact simulation of the run (the halves: its
 * first half and its second).
 */
#include "cachepin/layout.h"
#include "cachepin/model.h"
#include "cachepin/modules.h"
#include "cachepin/qemu.h"
#include "internal.h"
#include "profile-int.h"

struct tbuild {
	const struct cachepin_binary *bin;
	const struct cachepin_binary *traced;	/* the log's binary: BIN, or a relink of it */
	struct cachepin_layout relink;	/* where TRACED's functions are in BIN, if another */
	const struct cachepin_func *last_t;	/* traced's function of the last fetch */
	uint64_t fetches, dropped;
	struct cachepin_model *m;
	uint32_t **slot;	/* per function: its granules' item + 1 (0: none yet) */
	uint8_t *gshift;	/* per function: log2 of its granule */
	size_t cap_items, cap_refs;
	const struct cachepin_func *last;	/* the function of the last fetch */
	uint32_t last_item;
	const struct cachepin_model_modules *mm;	/* NULL: no module code */
	uint64_t mlo, mhi;	/* the module function of the last fetch in one, as traced */
	const struct cachepin_func *mocc;	/* and its occupant in BIN (NULL: none yet) */
};

/*
 * The granule of F: as large as keeps it inside one line in every layout,
 * 16 bytes at most.  A unit moves by multiples of its alignment, so a
 * granule as aligned as the function and the unit never straddles a line
 * boundary it did not straddle before; the kernel's text after the block
 * moves by a multiple of 4 at least.
 */
static uint8_t granule_shift(const struct cachepin_binary *bin, const struct cachepin_func *f)
{
	uint64_t a = f->unit >= 0 && bin->units[f->unit].align ? bin->units[f->unit].align : 4;
	uint8_t sh = 0;

	if (a > 4 && f->unit >= 0 && (bin->units[f->unit].flags & CACHEPIN_UNIT_FIXED))
		a = 4;
	while (sh < 4 && !((f->addr | a) & (1u << sh)))
		sh++;
	return sh;
}

/* The item of the granule at OFF in function F, made on first sight.  UINT32_MAX on ENOMEM. */
static uint32_t item_of(struct tbuild *t, const struct cachepin_func *f, uint64_t off)
{
	struct cachepin_model *m = t->m;
	size_t fi = (size_t)(f - t->bin->funcs);
	uint32_t g;

	if (!t->slot[fi]) {
		uint64_t n;

		t->gshift[fi] = granule_shift(t->bin, f);
		n = (f->size >> t->gshift[fi]) + 1;
		if (!(t->slot[fi] = calloc(n, sizeof(**t->slot))))
			return UINT32_MAX;
	}
	g = (uint32_t)(off >> t->gshift[fi]);
	if (!t->slot[fi][g]) {
		if (GROW(m->items, t->cap_items, m->nr_items + 1))
			return UINT32_MAX;
		m->items[m->nr_items] = (struct cachepin_model_item){
			.func = (uint32_t)fi, .off = g << t->gshift[fi], .rank = (uint32_t)m->nr_items,
		};
		t->slot[fi][g] = (uint32_t)++m->nr_items;
	}
	return t->slot[fi][g] - 1;
}

/*
 * Whether A is in a function of a module's text as the traced kernel had
 * it loaded, with an occupant in BIN: then it is the last module
 * function (t->mlo, t->mhi, t->mocc).
 */
static bool in_module(struct tbuild *t, uint64_t a)
{
	const struct cachepin_loaded *ld;
	const struct cachepin_binary *mod;
	const struct cachepin_func *mf, *occ;

	if (!t->mm || !(ld = cachepin_loaded__find(t->mm->loaded, t->mm->nr_loaded, a)) ||
	    !(mod = cachepin_modules__get(t->mm->mods, ld->name)) ||
	    !(mf = cachepin_binary__find_func(mod, a - ld->base)) || !mf->size ||
	    !(occ = cachepin_binary__lookup(t->bin, mf->name, ld->name, NULL)) ||
	    occ->size < mf->size)
		return false;
	t->mlo = ld->base + mf->addr;
	t->mhi = t->mlo + mf->size;
	t->mocc = occ;
	return true;
}

/* A fetch of the granule ITEM: a reference, unless straight code in one granule.  0 or -ENOMEM. */
static int fetch(struct tbuild *t, uint32_t item)
{
	struct cachepin_model *m = t->m;

	if (item == UINT32_MAX)
		return -ENOMEM;
	if (m->nr_refs && item == t->last_item)
		return 0;
	if (GROW(m->refs, t->cap_refs, m->nr_refs + 1))
		return -ENOMEM;
	m->refs[m->nr_refs++] = item;
	t->last_item = item;
	return 0;
}

static int on_block(void *ctx, const struct cachepin_qblock *b)
{
	struct tbuild *t = ctx;
	uint32_t k;
	int err;

	for (k = 0; k < b->nr_insns; k++) {
		uint64_t a = b->pc + b->insn_off[k];
		const struct cachepin_func *f = t->last_t;

		if (!f || a < f->addr || a >= f->addr + f->size) {
			/* the last module function again, else the binary's, else a module's */
			bool in_last = t->mocc && a >= t->mlo && a < t->mhi;

			f = in_last ? NULL : cachepin_binary__find_func(t->traced, a);
			if (!f || !f->size) {
				if (in_last || in_module(t, a)) {
					t->fetches++;
					if ((err = fetch(t, item_of(t, t->mocc, a - t->mlo))))
						return err;
				}
				continue;
			}
			t->last_t = f;
			t->last = f;
			if (t->traced != t->bin) {
				size_t fi = (size_t)(f - t->traced->funcs);

				t->last = !t->relink.known[fi] ? NULL :
					  cachepin_binary__find_func(t->bin, f->addr + t->relink.delta[fi]);
			}
		}
		t->fetches++;
		if (!t->last) {
			t->dropped++;	/* no function of BIN by that name and size */
			continue;
		}
		if ((err = fetch(t, item_of(t, t->last, a - f->addr))))
			return err;
	}
	return 0;
}

/*
 * The twin of module item I in copy K: the same granule of the
 * occupant's copy K pages on (NAME@pageK, cachepin_occupants__spread()),
 * or I itself if there is none.  UINT32_MAX on ENOMEM.
 */
static uint32_t twin_of(struct tbuild *t, uint32_t i, unsigned int k)
{
	const struct cachepin_model_item *it = &t->m->items[i];
	const struct cachepin_func *f = &t->bin->funcs[it->func], *c;
	const struct cachepin_unit *u = cachepin_binary__func_unit(t->bin, f);
	char name[4096];

	c = cachepin_binary__lookup(t->bin, cachepin_occupants__page_name(name, sizeof(name), f->name, k),
				    u ? u->object : NULL, NULL);
	if (!c || c->size < f->size)
		return i;
	return item_of(t, c, it->off);
}

/*
 * The run on every page of T->mm->pages: the string once more for each
 * page after the recorded one, its module items (of occupants, the only
 * synthetic functions it fetches) by their twins there.  0 or -ENOMEM.
 */
static int page_copies(struct tbuild *t)
{
	struct cachepin_model *m = t->m;
	unsigned int P = t->mm->pages, k;
	size_t base = m->nr_items, run = m->nr_refs, i;

	m->twin = malloc((size_t)(P - 1) * base * sizeof(*m->twin));
	if (!m->twin || GROW(m->refs, t->cap_refs, run * P))
		return -ENOMEM;
	for (k = 1; k < P; k++)
		for (i = 0; i < base; i++) {
			uint32_t *tw = &m->twin[(k - 1) * base + i];

			*tw = (uint32_t)i;
			if ((t->bin->funcs[m->items[i].func].flags & CACHEPIN_FUNC_SYNTHETIC) &&
			    (*tw = twin_of(t, (uint32_t)i, k)) == UINT32_MAX)
				return -ENOMEM;
		}
	for (k = 1; k < P; k++)
		for (i = 0; i < run; i++)
			m->refs[k * run + i] = m->twin[(k - 1) * base + m->refs[i]];
	m->nr_refs = run * P;
	m->copies = P;
	m->run_items = base;
	return 0;
}

/* Counts and weights of M's items from its string. */
static void count_refs(struct cachepin_model *m)
{
	size_t i;

	for (i = 0; i < m->nr_items; i++)
		m->items[i].count = 0;
	for (i = 0; i < m->nr_refs; i++)
		m->items[m->refs[i]].count++;
	for (i = 0; i < m->nr_items; i++)
		m->items[i].weight = m->items[i].count;
	m->weight = (double)m->nr_refs;
}

struct cachepin_model *cachepin_model__from_qemu(const struct cachepin_binary *bin,
						 const char *path)
{
	return cachepin_model__from_qemu_of(bin, bin, path, NULL, NULL);
}

struct cachepin_model *cachepin_model__from_qemu_of(const struct cachepin_binary *bin,
						    const struct cachepin_binary *traced,
						    const char *path,
						    const struct cachepin_model_modules *mm,
						    double *dropped)
{
	struct tbuild t = { .bin = bin, .traced = traced, .mm = mm };
	struct cachepin_qtrace *q;
	size_t i;
	int err = -ENOMEM;

	t.m = calloc(1, sizeof(*t.m));
	t.slot = calloc(bin->nr_funcs + 1, sizeof(*t.slot));
	t.gshift = calloc(bin->nr_funcs + 1, sizeof(*t.gshift));
	/* BIN as a relink of TRACED: its functions by name, once in both, of the same size */
	if (!t.m || !t.slot || !t.gshift ||
	    (traced != bin && (err = cachepin_layout__from_relink(&t.relink, traced, bin))))
		goto out;
	t.m->bin = bin;
	t.m->granule = CACHEPIN_PROFILE_GRANULE;
	t.m->exact = true;
	t.last_item = UINT32_MAX;
	if (!(q = cachepin_qtrace__open(path))) {
		err = errno ? -errno : -EINVAL;
		goto out;
	}
	err = cachepin_qtrace__for_each_block(q, on_block, &t);
	cachepin_qtrace__free(q);
	if (!err && !t.m->nr_refs)
		err = -ENODATA;
	t.m->copies = 1;
	t.m->run_refs = t.m->nr_refs;
	if (!err && mm && mm->pages > 1)
		err = page_copies(&t);
	if (!err)
		count_refs(t.m);
	if (!err && dropped)
		*dropped = t.fetches ? (double)t.dropped / (double)t.fetches : 0;
out:
	for (i = 0; t.slot && i < bin->nr_funcs; i++)
		free(t.slot[i]);
	free(t.slot);
	free(t.gshift);
	cachepin_layout__release(&t.relink);
	if (err) {
		cachepin_model__free(t.m);
		errno = -err;
		return NULL;
	}
	return t.m;
}

struct cachepin_model *cachepin_model__trace_half(const struct cachepin_model *m, unsigned int half)
{
	size_t mid = m->run_refs / 2, lo = half == 2 ? mid : 0, hi = half == 2 ? m->run_refs : mid;
	size_t n = hi - lo, k, i;
	struct cachepin_model *h;

	if (!m->exact || (half != 1 && half != 2)) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		goto enomem;
	*h = (struct cachepin_model){ .bin = m->bin, .granule = m->granule, .exact = true,
				      .copies = m->copies, .run_refs = n, .run_items = m->run_items,
				      .nr_refs = m->copies * n };
	h->items = malloc((m->nr_items + 1) * sizeof(*h->items));
	h->refs = malloc((h->nr_refs + 1) * sizeof(*h->refs));
	if (!h->items || !h->refs)
		goto enomem;
	memcpy(h->items, m->items, m->nr_items * sizeof(*h->items));
	h->nr_items = m->nr_items;
	memcpy(h->refs, m->refs + lo, n * sizeof(*h->refs));
	if (m->copies > 1) {
		/* the half in every copy, by the twins of the first */
		size_t nt = (m->copies - 1) * m->run_items;

		if (!(h->twin = malloc(nt * sizeof(*h->twin))))
			goto enomem;
		memcpy(h->twin, m->twin, nt * sizeof(*h->twin));
		for (k = 1; k < m->copies; k++)
			for (i = 0; i < n; i++)
				h->refs[k * n + i] = m->twin[(k - 1) * m->run_items + h->refs[i]];
	}
	count_refs(h);
	return h;
enomem:
	cachepin_model__free(h);
	errno = ENOMEM;
	return NULL;
}
