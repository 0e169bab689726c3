// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Phases of a sampled recording.
 *
 * A recording is usually long next to what a program does at one time:
 * a benchmark repeats its workload hundreds of times, a compiler runs
 * the parser, then the optimiser, then the code generator for each
 * file.  Cut into a few stretches of the clock, every stretch holds
 * every phase and the profile's time slices come out alike; the model
 * then takes code that never runs at the same time for code that
 * competes for the same sets.  Instead, windows of a few consecutive
 * samples are grouped by the functions they hit (k-means, as SimPoint
 * groups basic-block vectors), and each group is a slice.
 *
 * Measured on the bench's nine cells (Lua, readelf, tcc at 16, 32 and
 * 64 KiB), each planned from six recordings (perf record -e cpu-clock
 * -F 20000): the median plan's cachegrind misses over the best other
 * layout, geometric mean 0.937 with time slices, 0.858 with phases (Lua
 * at 32 KiB 0.960 -> 0.766).  A QEMU log of one run of Lua, whose time
 * slices are its phases, plans to 86-104 k misses at 32 KiB against
 * 149-165 k from a recording with time slices: the phases are most of
 * what an exact trace knows beyond a recording.  The router kernel's
 * perf recordings of three lab runs planned to -39 to -46 % LRU misses
 * against stock on another run's trace (-25 to -40 % with time slices).
 */
#include <math.h>
#include "cachepin/profile.h"
#include "internal.h"
#include "phase.h"

#define FIT_MAX 8192		/* windows the phases are fitted on (strided) */
#define ITERS 30
#define SEED 0x5eed5eed5eedull

struct went {
	uint32_t feat;
	double v;		/* the feature's share of the window's hits */
};

struct wvec {
	uint32_t first, n;	/* its entries */
	double norm2;
};

struct km {
	struct wvec *w;
	struct went *e;
	uint32_t nfeat, k;
	double *c;		/* k centroids of nfeat */
	double *cn2;		/* their squared norms */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* A window's few features in order: insertion sort up to 64, qsort() past it. */
static void sort_u32(uint32_t *a, size_t n)
{
	size_t i, j;

	if (n > 64) {
		qsort(a, n, sizeof(*a), cmp_u32);
		return;
	}
	for (i = 1; i < n; i++) {
		uint32_t x = a[i];

		for (j = i; j > 0 && a[j - 1] > x; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/* The windows as sparse vectors of their features' shares. */
static int build_windows(struct km *km, const uint32_t *feat, const uint32_t *win, size_t n,
			 uint32_t nwin)
{
	uint32_t *scratch = NULL, w;
	size_t cap = 0, i = 0, ne = 0;

	km->w = calloc(nwin, sizeof(*km->w));
	km->e = malloc((n + 1) * sizeof(*km->e));
	if (!km->w || !km->e)
		return -ENOMEM;
	for (w = 0; w < nwin; w++) {
		size_t j = i, m, r;

		while (j < n && win[j] == w)
			j++;
		m = j - i;
		km->w[w].first = (uint32_t)ne;
		if (!m)
			continue;
		if (GROW(scratch, cap, m)) {
			free(scratch);
			return -ENOMEM;
		}
		memcpy(scratch, feat + i, m * sizeof(*scratch));
		sort_u32(scratch, m);
		for (r = 0; r < m;) {
			size_t s = r;

			while (r < m && scratch[r] == scratch[s])
				r++;
			km->e[ne].feat = scratch[s];
			km->e[ne].v = (double)(r - s) / (double)m;
			km->w[w].norm2 += km->e[ne].v * km->e[ne].v;
			ne++;
		}
		km->w[w].n = (uint32_t)(ne - km->w[w].first);
		i = j;
	}
	free(scratch);
	return 0;
}

static double dist2(const struct km *km, uint32_t w, uint32_t j)
{
	const struct wvec *v = &km->w[w];
	const double *c = km->c + (size_t)j * km->nfeat;
	double dot = 0;
	uint32_t i;

	for (i = 0; i < v->n; i++)
		dot += km->e[v->first + i].v * c[km->e[v->first + i].feat];
	return v->norm2 - 2 * dot + km->cn2[j];
}

static uint32_t nearest(const struct km *km, uint32_t w, uint32_t k)
{
	double best = INFINITY;
	uint32_t j, arg = 0;

	for (j = 0; j < k; j++) {
		double d = dist2(km, w, j);

		if (d < best) {
			best = d;
			arg = j;
		}
	}
	return arg;
}

static void set_centroid(struct km *km, uint32_t j, uint32_t w)
{
	const struct wvec *v = &km->w[w];
	double *c = km->c + (size_t)j * km->nfeat;
	uint32_t i;

	memset(c, 0, km->nfeat * sizeof(*c));
	for (i = 0; i < v->n; i++)
		c[km->e[v->first + i].feat] = km->e[v->first + i].v;
	km->cn2[j] = v->norm2;
}

/*
 * k-means++: each next centre drawn with probability by its squared
 * distance; fewer centres when fewer windows differ.  As many phases as
 * the slices hold: stopping where the windows are as close to the
 * centres as sampling noise allows (a window of m hits is off its
 * phase's shares by (1 - sum v^2) / m squared) found 2 to 16 phases in
 * recordings of one workload and planned worse (bench geometric mean
 * 0.898 of the best other layout, against 0.858).
 */
static uint32_t seed_centroids(struct km *km, const uint32_t *fit, uint32_t nfit, double *d2)
{
	uint64_t x = SEED;
	uint32_t j, i;

	set_centroid(km, 0, fit[cachepin_xorshift64(&x) % nfit]);
	for (i = 0; i < nfit; i++)
		d2[i] = dist2(km, fit[i], 0);
	for (j = 1; j < km->k; j++) {
		double total = 0, r;

		for (i = 0; i < nfit; i++)
			total += d2[i] > 0 ? d2[i] : 0;
		if (!(total > 1e-12))
			break;	/* fewer distinct windows than phases */
		r = (double)(cachepin_xorshift64(&x) >> 11) / 9007199254740992.0 * total;
		for (i = 0; i + 1 < nfit; i++) {
			r -= d2[i] > 0 ? d2[i] : 0;
			if (r < 0)
				break;
		}
		set_centroid(km, j, fit[i]);
		for (i = 0; i < nfit; i++) {
			double d = dist2(km, fit[i], j);

			if (d < d2[i])
				d2[i] = d;
		}
	}
	return j;
}

/* Lloyd's iterations on the fitted windows. */
static int lloyd(struct km *km, const uint32_t *fit, uint32_t nfit, uint32_t *asg, uint32_t k)
{
	uint32_t *cnt = calloc(k, sizeof(*cnt)), it, i, j;

	if (!cnt)
		return -ENOMEM;
	for (i = 0; i < nfit; i++)
		asg[i] = nearest(km, fit[i], k);
	for (it = 0; it < ITERS; it++) {
		bool moved = false;

		memset(cnt, 0, k * sizeof(*cnt));
		for (i = 0; i < nfit; i++)
			cnt[asg[i]]++;
		for (j = 0; j < k; j++)
			if (cnt[j])
				memset(km->c + (size_t)j * km->nfeat, 0, km->nfeat * sizeof(double));
		for (i = 0; i < nfit; i++) {
			const struct wvec *v = &km->w[fit[i]];
			double *c = km->c + (size_t)asg[i] * km->nfeat;

			for (j = 0; j < v->n; j++)
				c[km->e[v->first + j].feat] += km->e[v->first + j].v / cnt[asg[i]];
		}
		for (j = 0; j < k; j++) {
			const double *c = km->c + (size_t)j * km->nfeat;
			double s = 0;
			uint32_t f;

			if (!cnt[j])
				continue;	/* an empty phase keeps its centre */
			for (f = 0; f < km->nfeat; f++)
				s += c[f] * c[f];
			km->cn2[j] = s;
		}
		for (i = 0; i < nfit; i++) {
			uint32_t a = nearest(km, fit[i], k);

			moved |= a != asg[i];
			asg[i] = a;
		}
		if (!moved)
			break;
	}
	free(cnt);
	return 0;
}

/* Every window to its nearest phase, renumbered by first window. */
static uint32_t assign_all(const struct km *km, uint32_t nwin, uint32_t k, uint32_t *phase)
{
	uint32_t num[CACHEPIN_PROFILE_SLICES], w, used = 0, prev = UINT32_MAX, j;

	for (j = 0; j < k; j++)
		num[j] = UINT32_MAX;
	for (w = 0; w < nwin; w++) {
		if (!km->w[w].n) {
			phase[w] = prev;
			continue;
		}
		j = nearest(km, w, k);
		if (num[j] == UINT32_MAX)
			num[j] = used++;
		phase[w] = prev = num[j];
	}
	/* the windows before the first with hits: the first's phase */
	for (w = 0; w < nwin && phase[w] == UINT32_MAX; w++)
		;
	prev = w < nwin ? phase[w] : 0;
	for (w = 0; w < nwin && phase[w] == UINT32_MAX; w++)
		phase[w] = prev;
	return used;
}

int cachepin_phase__cluster(const uint32_t *feat, const uint32_t *win, size_t n, uint32_t nfeat,
			    uint32_t nwin, uint32_t k, uint32_t *phase)
{
	struct km km = { .nfeat = nfeat };
	uint32_t *fit = NULL, *asg = NULL, nfit = 0, w, used = 0;
	double *d2 = NULL;
	int err;

	if (k > CACHEPIN_PROFILE_SLICES)
		k = CACHEPIN_PROFILE_SLICES;
	if (k < 2 || !nfeat || nwin < k * CACHEPIN_PHASE_MIN_WINDOWS)
		return 0;
	err = build_windows(&km, feat, win, n, nwin);
	if (err)
		goto out;
	/* the windows with hits, evenly strided down to FIT_MAX */
	for (w = 0; w < nwin; w++)
		if (km.w[w].n)
			nfit++;
	if (nfit < k * CACHEPIN_PHASE_MIN_WINDOWS)
		goto out;
	err = -ENOMEM;
	fit = malloc((nfit < FIT_MAX ? nfit : FIT_MAX) * sizeof(*fit));
	if (!fit)
		goto out;
	{
		uint64_t seen = 0, step = (nfit + FIT_MAX - 1) / FIT_MAX;

		nfit = 0;
		for (w = 0; w < nwin; w++)
			if (km.w[w].n && seen++ % step == 0)
				fit[nfit++] = w;
	}
	km.k = k;
	km.c = calloc((size_t)k * nfeat, sizeof(*km.c));
	km.cn2 = calloc(k, sizeof(*km.cn2));
	d2 = malloc(nfit * sizeof(*d2));
	asg = malloc(nfit * sizeof(*asg));
	if (!km.c || !km.cn2 || !d2 || !asg)
		goto out;
	k = seed_centroids(&km, fit, nfit, d2);
	if (lloyd(&km, fit, nfit, asg, k))
		goto out;
	used = assign_all(&km, nwin, k, phase);
	err = used >= 2 ? (int)used : 0;
out:
	free(km.w);
	free(km.e);
	free(km.c);
	free(km.cn2);
	free(fit);
	free(d2);
	free(asg);
	return err;
}
