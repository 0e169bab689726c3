// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The last phase of the planner: the hot units in block order at their
 * offsets, the gaps between them filled with cold movable units (largest
 * that fits first), the rest padding.
 *
 * Growth (pl->growth = G, opts.growth): any one unit of the block may grow by G
 * bytes, and no hot unit may move for it.  A hot unit is pinned at its
 * offset (. = MAX(., start + OFF)), so what protects it is the padding
 * left before it: the fill tracks how far the units of a gap would be
 * pushed if one of them, or the hot unit before them, grew by G (an
 * alignment can round the push up, a pinned fill unit absorbs it), and
 * takes a cold unit only if the push still ends before the next hot
 * unit.  That padding is plan->layout.pad_growth.
 */
#include "plan-int.h"

static bool generic_section(const char *sec)
{
	static const char *const generic[] = {
		".text", ".text.unlikely", ".text.hot", ".text.startup", ".text.exit", ".text.fixup",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic); i++)
		if (!strcmp(sec, generic[i]))
			return true;
	return false;
}

static bool fill_candidate(const struct cachepin_binary *bin, const struct cachepin_unit *u)
{
	if (!(u->flags & CACHEPIN_UNIT_MOVABLE) || (u->flags & CACHEPIN_UNIT_FIXED) || !u->size)
		return false;
	if (strcmp(u->section, ".text") && strncmp(u->section, ".text.", 6))
		return false;
	/*
	 * A section name many objects share (an assembly object's .text) is
	 * named through its object: only objects named by a relative path
	 * (the kernel's), not the system's libraries and start files.
	 */
	if (generic_section(u->section))
		return u->object && u->object[0] != '/';
	return true;
}

uint64_t cachepin_plan_fillable(const struct planner *pl)
{
	const struct cachepin_binary *bin = pl->bin;
	uint64_t n = 0, hot = 0;
	size_t i;

	for (i = 0; i < bin->nr_units; i++)
		if (fill_candidate(bin, &bin->units[i]))
			n += bin->units[i].size;
	for (i = 0; i < pl->nr_hu; i++)
		if (fill_candidate(bin, &bin->units[pl->hu[i].unit]))
			hot += pl->hu[i].size;
	return n - hot;
}

struct cold {
	uint32_t unit;
	uint64_t size, align, addr;
};

static int cmp_cold(const void *a, const void *b)
{
	const struct cold *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return (x->unit > y->unit) - (x->unit < y->unit);
}

static int cmp_hu_off(const void *a, const void *b)
{
	const struct hunit *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

struct filler {
	struct cachepin_plan *plan;
	size_t cap;		/* of plan->layout.units */
	struct cold *cold;	/* the cold candidates, smallest first */
	size_t ncold;
	uint8_t *used;		/* per candidate */
	struct cold_ref {
		uint64_t addr;
		uint32_t k;	/* index into cold */
	} *by_addr;		/* keep: the candidates in address order */
	uint64_t cur;		/* end of what is laid out */
	uint64_t growth;	/* pl->growth */
	uint64_t push;		/* how far the next unit would be pushed by growth */
};

static int plan_add(struct filler *fl, uint32_t unit, uint64_t off, uint64_t size,
		    uint64_t align, bool hot, double w)
{
	struct cachepin_plan *plan = fl->plan;

	if (GROW(plan->layout.units, fl->cap, plan->layout.nr_units + 1))
		return -ENOMEM;
	plan->layout.units[plan->layout.nr_units++] = (struct cachepin_layout_unit){
		.unit = unit, .off = off, .size = size, .align = align, .hot = hot, .weight = w,
	};
	return 0;
}

/* The cold candidates of the fill: movable text units that are not hot.  0 or -ENOMEM. */
static int cold_units(const struct planner *pl, struct filler *fl)
{
	const struct cachepin_binary *bin = pl->bin;
	uint8_t *is_hot = calloc(bin->nr_units + 1, 1);
	size_t i;

	fl->cold = malloc((bin->nr_units + 1) * sizeof(*fl->cold));
	if (!is_hot || !fl->cold) {
		free(is_hot);
		return -ENOMEM;
	}
	for (i = 0; i < pl->nr_hu; i++)
		is_hot[pl->hu[i].unit] = 1;
	for (i = 0; i < bin->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[i];

		if (is_hot[i] || !fill_candidate(bin, u))
			continue;
		fl->cold[fl->ncold++] = (struct cold){ (uint32_t)i, u->size, u->align ? u->align : 1,
						       u->addr };
	}
	free(is_hot);
	sort_n(fl->cold, fl->ncold, sizeof(*fl->cold), cmp_cold);
	fl->used = calloc(fl->ncold + 1, 1);
	return fl->used ? 0 : -ENOMEM;
}

/*
 * Where growth would push a unit aligned to ALIGN that the plan puts at
 * AT (>= fl->cur): the emitter pins it there after padding, else it
 * follows what is before it.  The push after it: that, or its own growth.
 */
static uint64_t push_after(const struct filler *fl, uint64_t at, uint64_t align)
{
	uint64_t moved = align_up(fl->cur + fl->push, align);

	if (at > fl->cur && moved < at)
		moved = at;
	return moved - at > fl->growth ? moved - at : fl->growth;
}

/* Whether a unit of SIZE and ALIGN at AT leaves room for growth before TARGET. */
static bool fits_growth(const struct filler *fl, uint64_t at, uint64_t size, uint64_t align,
			uint64_t target)
{
	return at + size + push_after(fl, at, align) <= target;
}

/* Cold candidate K at AT (>= fl->cur): the padding before it counted.  0 or -ENOMEM. */
static int fill_at(struct filler *fl, size_t k, uint64_t at)
{
	const struct cold *c = &fl->cold[k];

	if (plan_add(fl, c->unit, at, c->size, c->align, false, 0))
		return -ENOMEM;
	fl->push = push_after(fl, at, c->align);
	fl->plan->layout.pad += at - fl->cur;
	fl->used[k] = 1;
	fl->plan->layout.nr_fill++;
	fl->cur = at + c->size;
	return 0;
}

/*
 * The largest unused cold unit that fits at fl->cur (aligned) before
 * TARGET, growth's room left, added to the plan.  1 if one was, 0 if
 * none fits, or -ENOMEM.
 */
static int fill_one(struct filler *fl, uint64_t target)
{
	uint64_t gap = target - fl->cur;
	size_t lo = 0, hi = fl->ncold, k;

	/* past the largest cold unit with size <= gap */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fl->cold[mid].size <= gap)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k-- > 0;) {
		const struct cold *c = &fl->cold[k];
		uint64_t at;

		if (fl->used[k])
			continue;
		at = align_up(fl->cur, c->align);
		if (!fits_growth(fl, at, c->size, c->align, target))
			continue;
		return fill_at(fl, k, at) ? -ENOMEM : 1;
	}
	return 0;
}

static int cmp_cold_addr(const void *a, const void *b)
{
	const struct cold_ref *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* keep: fl->by_addr.  0 or -ENOMEM. */
static int cold_by_addr(struct filler *fl)
{
	size_t i;

	fl->by_addr = malloc((fl->ncold + 1) * sizeof(*fl->by_addr));
	if (!fl->by_addr)
		return -ENOMEM;
	for (i = 0; i < fl->ncold; i++)
		fl->by_addr[i] = (struct cold_ref){ fl->cold[i].addr, (uint32_t)i };
	sort_n(fl->by_addr, fl->ncold, sizeof(*fl->by_addr), cmp_cold_addr);
	return 0;
}

/*
 * The cold units linked before hot unit H, back at their places in the
 * block (keep): each at its distance from H in the link, from fl->cur on,
 * in address order, from *NEXT of fl->by_addr on.
 */
static int fill_in_place(const struct planner *pl, struct filler *fl, const struct hunit *h,
			 size_t *next)
{
	uint64_t haddr = pl->bin->units[h->unit].addr, target = (uint64_t)h->off;

	for (; *next < fl->ncold && fl->by_addr[*next].addr < haddr; (*next)++) {
		uint32_t k = fl->by_addr[*next].k;
		const struct cold *c = &fl->cold[k];
		uint64_t at;

		if (fl->used[k] || haddr - c->addr > target)
			continue;	/* taken, or before the block */
		at = target - (haddr - c->addr);
		if (at < fl->cur || !fits_growth(fl, at, c->size, c->align, target))
			continue;
		if (fill_at(fl, k, at))
			return -ENOMEM;
	}
	return 0;
}

int cachepin_plan_fill(struct planner *pl, struct cachepin_plan *plan, bool in_place)
{
	struct filler fl = { .plan = plan, .growth = pl->growth };
	size_t i, next = 0;
	int err;

	if ((err = cold_units(pl, &fl)))
		goto out;
	if (in_place && (err = cold_by_addr(&fl)))
		goto out;
	sort_n(pl->hu, pl->nr_hu, sizeof(*pl->hu), cmp_hu_off);
	for (i = 0; i < pl->nr_hu; i++) {
		struct hunit *h = &pl->hu[i];
		uint64_t target = (uint64_t)h->off;

		if (h->off < 0)
			continue;
		/* keep: the cold units linked there first */
		if (in_place && (err = fill_in_place(pl, &fl, h, &next)))
			goto out;
		/* fill [cur, target) with cold units, largest first */
		while (fl.cur < target && (err = fill_one(&fl, target)) > 0)
			;
		if (err < 0)
			goto out;
		if (fl.cur < target) {
			uint64_t pad = target - fl.cur;

			plan->layout.pad += pad;
			plan->layout.pad_growth += pad < fl.push ? pad : fl.push;
		}
		if ((err = plan_add(&fl, h->unit, target, h->size, h->align, true, h->weight)))
			goto out;
		plan->layout.nr_hot++;
		fl.cur = target + h->size;
		fl.push = fl.growth;
	}
	plan->layout.block_size = fl.cur;
	/* the holes plan-room.c left are growth's padding, as far as the fill left them */
	if (plan->layout.pad - plan->layout.pad_growth < plan->room_extra)
		plan->layout.pad_growth = plan->layout.pad;
	else
		plan->layout.pad_growth += plan->room_extra;
	/*
	 * The budget is not enforced by moving hot units off their slots: at
	 * the capacity edge one misplaced unit costs more than any padding.
	 * Over budget is reported; the search already avoids small gaps.
	 */
	plan->pad_budget = pl->o->max_pad * (pl->limit / pl->span_bytes + 1);
	err = 0;
out:
	free(fl.cold);
	free(fl.used);
	free(fl.by_addr);
	return err;
}
