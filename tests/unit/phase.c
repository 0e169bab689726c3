// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the phases of a recording (src/lib/read/phase.c):
 * windows of hits whose phases are known, clustered back.
 */
#include <stdbool.h>
#include <string.h>
#include "phase.h"
#include "unit.h"

#define MAXH 8192	/* 128 windows of at most 32 hits, with room */

struct hits {
	uint32_t feat[MAXH], win[MAXH];
	size_t n;
};

static void add(struct hits *h, uint32_t win, uint32_t feat, unsigned int times)
{
	while (times-- && h->n < MAXH) {
		h->feat[h->n] = feat;
		h->win[h->n++] = win;
	}
}

/* Window W of three phases that take turns every 8 windows: A, B, C, A, ... */
static unsigned int truth(uint32_t w)
{
	return (w / 8) % 3;
}

/*
 * NWIN windows of three phases, none in [EMPTY_FROM, EMPTY_TO); with
 * JITTER the windows of a phase differ a little, as samples do.
 */
static void three_phases(struct hits *h, uint32_t nwin, uint32_t empty_from, uint32_t empty_to,
			 bool jitter)
{
	uint32_t w;

	h->n = 0;
	for (w = 0; w < nwin; w++) {
		if (w >= empty_from && w < empty_to)
			continue;
		switch (truth(w)) {
		case 0:	/* A: two functions, one twice as often */
			add(h, w, 0, 20);
			add(h, w, 1, 10 + (jitter ? w % 3 : 0));
			break;
		case 1:	/* B: other functions, and one of A's now and then */
			add(h, w, 2, 16);
			add(h, w, 3, 14);
			add(h, w, 0, jitter && w % 4 == 0);
			break;
		default: /* C: one function alone */
			add(h, w, 4, 32);
		}
	}
}

static void test_three_phases(void)
{
	static const uint32_t ks[] = { 3, 4, 16 };
	static struct hits h;
	uint32_t phase[200], w, i, k;
	int n;

	/*
	 * Three phases asked for, windows that differ within a phase; or
	 * more asked for than there are kinds of window: the three come
	 * back, numbered by their first windows.
	 */
	for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		k = ks[i];
		three_phases(&h, 128, 0, 0, k == 3);
		memset(phase, 0xff, sizeof(phase));
		n = cachepin_phase__cluster(h.feat, h.win, h.n, 5, 128, k, phase);
		CHECK(n == 3, "k %u: %d phases, not 3", k, n);
		for (w = 0; w < 128; w++)
			CHECK(phase[w] == truth(w), "k %u: window %u in phase %u, not %u", k, w,
			      phase[w], truth(w));
	}
}

static void test_empty_windows(void)
{
	static struct hits h;
	uint32_t phase[96], w;
	int n;

	/* windows 0-2 and 9-11 have no hits: the first one's phase, the one before's */
	three_phases(&h, 96, 9, 12, true);
	{
		size_t i, j = 0;

		for (i = 0; i < h.n; i++)
			if (h.win[i] >= 3) {
				h.feat[j] = h.feat[i];
				h.win[j++] = h.win[i];
			}
		h.n = j;
	}
	n = cachepin_phase__cluster(h.feat, h.win, h.n, 5, 96, 3, phase);
	CHECK(n == 3, "%d phases, not 3", n);
	for (w = 0; w < 96; w++) {
		uint32_t want = w < 3 ? 0 : w >= 9 && w < 12 ? truth(8) : truth(w);

		CHECK(phase[w] == want, "window %u in phase %u, not %u", w, phase[w], want);
	}
}

static void test_too_few(void)
{
	static struct hits h;
	uint32_t phase[96];
	size_t i;
	int n;

	/* 3 phases need 24 windows */
	three_phases(&h, 23, 0, 0, true);
	n = cachepin_phase__cluster(h.feat, h.win, h.n, 5, 23, 3, phase);
	CHECK(n == 0, "23 windows: %d phases, not 0", n);
	/* every window alike: one phase is no phases */
	for (i = 0; i < h.n; i++)
		h.feat[i] = 4;
	n = cachepin_phase__cluster(h.feat, h.win, h.n, 5, 23, 2, phase);
	CHECK(n == 0, "one kind of window: %d phases, not 0", n);
}

int main(void)
{
	test_three_phases();
	test_empty_windows();
	test_too_few();
	UNIT_DONE();
}
