// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Room for growth without a cost in sets.  The methods place the hot
 * units packed, each on a line of its own; then every unit that has
 * less than G bytes free after it moves by whole way spans, the block
 * being aligned to the largest of them, to the lowest place where it
 * has: it keeps every set it had in every geometry, so the layout the
 * model judged is the layout linked.  What the room costs is block
 * length (holes the cold fill takes), not misses.
 *
 * Measured against room inside the colouring (each unit's slot G bytes
 * longer, the colouring fitting that into its sets; less room where the
 * hot units fit the smallest cache packed): the router-lab kernel at
 * 32K:4:32, plans from router.profile with four seeds scored on the
 * second half of its trace, LRU median 169,035 -> 157,624 (-6.8 %),
 * pseudo-random 143,650 -> 138,605; from the first half's log 86,055
 * -> 87,880 (+2.1 %).  The bench, each cache's own plan from six
 * recordings, cachegrind medians: geometric mean 0.990 of before over
 * nine cells, from 0.763 (readelf 16K) to 1.107 (Lua 64K, where a line
 * of its own for each of 377 units costs what sharing lines saves).
 * Where the hot code fits the cache packed, the room no longer spreads
 * it: the README's 15-object example at 16K:4:32 keeps 64 bytes after
 * each of its 56 hot units and has 2,780 cachegrind misses (the default
 * link 1,587,365); with the room inside the slots it had 1,802,800, so
 * the planner used to cut the room there.
 */
#include "plan-int.h"

struct room_iv {
	uint64_t lo, hi;
};

static int cmp_hu_ptr_off(const void *a, const void *b)
{
	const struct hunit *x = *(const struct hunit *const *)a, *y = *(const struct hunit *const *)b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->unit > y->unit) - (x->unit < y->unit);
}

/* Index of the first interval of IV[0..N) that ends after LO. */
static size_t iv_find(const struct room_iv *iv, size_t n, uint64_t lo)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (iv[mid].hi <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

static bool iv_free(const struct room_iv *iv, size_t n, uint64_t lo, uint64_t hi)
{
	size_t i = iv_find(iv, n, lo);

	return i == n || iv[i].lo >= hi;
}

/* Add [LO, HI), free, to the sorted IV of *N. */
static void iv_add(struct room_iv *iv, size_t *n, uint64_t lo, uint64_t hi)
{
	size_t i = iv_find(iv, *n, lo);

	memmove(&iv[i + 1], &iv[i], (*n - i) * sizeof(*iv));
	iv[i] = (struct room_iv){ lo, hi };
	(*n)++;
}

int cachepin_plan_room(struct planner *pl, struct cachepin_plan *plan)
{
	uint64_t g = pl->growth, span = pl->span_bytes, end = 0, packed_end = 0;
	struct hunit **order = malloc((pl->nr_hu + 1) * sizeof(*order));
	struct room_iv *iv = malloc((pl->nr_hu + 1) * sizeof(*iv));
	size_t i, n = 0, niv = 0;

	if (!order || !iv) {
		free(order);
		free(iv);
		return -ENOMEM;
	}
	for (i = 0; i < pl->nr_hu; i++)
		if (pl->hu[i].off >= 0)
			order[n++] = &pl->hu[i];
	sort_n(order, n, sizeof(*order), cmp_hu_ptr_off);
	/* the units kept from a previous plan stay: their room up to the next of them */
	for (i = 0; i < n; i++) {
		struct hunit *h = order[i];
		uint64_t lo = (uint64_t)h->off, hi = lo + h->size + g;
		size_t j;

		if (lo + h->size > packed_end)
			packed_end = lo + h->size;
		if (!h->frozen)
			continue;
		for (j = i + 1; j < n; j++)
			if (order[j]->frozen)
				break;
		if (j < n && hi > (uint64_t)order[j]->off)
			hi = (uint64_t)order[j]->off;
		iv_add(iv, &niv, lo, hi);
		if (lo + h->size > end)
			end = lo + h->size;
	}
	for (i = 0; i < n; i++) {
		struct hunit *h = order[i];
		uint64_t at = (uint64_t)h->off;

		if (h->frozen)
			continue;
		while (!iv_free(iv, niv, at, at + h->size + g))
			at += span;
		iv_add(iv, &niv, at, at + h->size + g);
		h->off = (int64_t)at;
		if (at + h->size > end)
			end = at + h->size;
	}
	free(order);
	free(iv);
	plan->room_extra = end > packed_end ? end - packed_end : 0;
	if (align_up(end + g, span) > pl->limit)
		pl->limit = align_up(end + g, span);
	return 0;
}
