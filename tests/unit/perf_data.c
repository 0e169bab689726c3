// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the perf.data reader on hand-built files: every sample
 * layout, ids of several events, maps and frames, byte orders, pipe mode,
 * zstd records, and truncated or mutated input.  Temporary files go to
 * the current directory and are removed.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "cachepin/perf.h"
#include "unit.h"

#define ARRAY_SIZE_T(a) (sizeof(a) / sizeof((a)[0]))

#include "perf-format.h"

/* every sample_type bit, every read_format bit */
#define ST_EVERY	((ST_WEIGHT_STRUCT << 1) - 1)
#define RF_EVERY	(RF_TOTAL_TIME_ENABLED | RF_TOTAL_TIME_RUNNING | RF_ID | RF_GROUP | \
			 RF_LOST)

/* unique per process: several test runs may share the directory */
static char tmpfile_name[64];

/* ---- a byte writer in either order ---------------------------------------- */

struct wb {
	uint8_t *b;
	size_t n, cap;
	bool be;
};

static void w_bytes(struct wb *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 64;
		w->b = realloc(w->b, w->cap);
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void w_uint(struct wb *w, uint64_t v, int width)
{
	uint8_t t[8];
	int i;

	for (i = 0; i < width; i++)
		t[w->be ? width - 1 - i : i] = v >> (8 * i);
	w_bytes(w, t, width);
}

static void w8(struct wb *w, uint64_t v) { w_uint(w, v, 1); }
static void w16(struct wb *w, uint64_t v) { w_uint(w, v, 2); }
static void w32(struct wb *w, uint64_t v) { w_uint(w, v, 4); }
static void w64(struct wb *w, uint64_t v) { w_uint(w, v, 8); }

static void w_pad(struct wb *w, size_t n)
{
	while (n--)
		w8(w, 0);
}

/* Patch a u16 at OFF (record sizes). */
static void w_put16(struct wb *w, size_t off, uint16_t v)
{
	w->b[off + (w->be ? 1 : 0)] = v;
	w->b[off + (w->be ? 0 : 1)] = v >> 8;
}

static void w_put64(struct wb *w, size_t off, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		w->b[off + (w->be ? 7 - i : i)] = v >> (8 * i);
}

static size_t rec_begin(struct wb *w, uint32_t type, uint16_t misc)
{
	size_t at = w->n;

	w32(w, type);
	w16(w, misc);
	w16(w, 0);
	return at;
}

static void rec_end(struct wb *w, size_t at)
{
	w_put16(w, at + 6, w->n - at);
}

static uint64_t bitrev64(uint64_t v)
{
	uint64_t r = 0;
	int i;

	for (i = 0; i < 64; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

struct attr_spec {
	uint64_t sample_type, read_format, flags, period, branch, regs_user, regs_intr;
	uint64_t ids[4];
	int nr_ids;
	const char *name;
};

/* A perf_event_attr of ATTR_SIZE_VER7 bytes. */
static void w_attr(struct wb *w, const struct attr_spec *a)
{
	w32(w, ATTR_TYPE_SOFTWARE);
	w32(w, ATTR_SIZE_VER7);
	w64(w, 0);			/* config */
	w64(w, a->period);
	w64(w, a->sample_type);
	w64(w, a->read_format);
	w64(w, w->be ? bitrev64(a->flags) : a->flags);
	w32(w, 0);
	w32(w, 0);
	w64(w, 0);
	w64(w, 0);
	w64(w, a->branch);		/* 72 */
	w64(w, a->regs_user);		/* 80 */
	w32(w, 0);
	w32(w, 0);
	w64(w, a->regs_intr);		/* 96 */
	w_pad(w, ATTR_SIZE_VER7 - 104);
}

static void w_string(struct wb *w, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 7) & ~7UL;

	w32(w, padded);
	w_bytes(w, s, n);
	w_pad(w, padded - n);
}

/* The CACHE feature section make_file() adds, in its byte order; none if NULL. */
static const struct wb *cache_feat;

/*
 * A file-mode perf.data with attrs ATTRS and the record stream DATA
 * (written in the same byte order), plus HOSTNAME, EVENT_DESC and
 * cache_feat.
 */
static struct wb make_file(bool be, const struct attr_spec *attrs, int nr,
			   const struct wb *data, bool bitmap32)
{
	struct wb w = { .be = be };
	size_t attr_size = ATTR_SIZE_VER7 + 16, attrs_off = FILE_HEADER_SIZE, ids_off, feat, sec;
	uint64_t bitmap = 1ULL << FEAT_HOSTNAME | 1ULL << FEAT_EVENT_DESC |
			  (cache_feat ? 1ULL << FEAT_CACHE : 0);
	int i, j;

	w_bytes(&w, be ? MAGIC_V2_BE : MAGIC_V2, MAGIC_SIZE);
	w64(&w, FILE_HEADER_SIZE);
	w64(&w, attr_size);
	w64(&w, attrs_off);
	w64(&w, attr_size * nr);
	w64(&w, 0);			/* data offset: patched */
	w64(&w, data->n);
	w64(&w, 0);
	w64(&w, 0);
	if (bitmap32) {			/* a 32-bit host's 8 u32 words */
		w32(&w, bitmap);
		w32(&w, bitmap >> 32);
	} else {
		w64(&w, bitmap);
	}
	w_pad(&w, 24);
	ids_off = attrs_off + attr_size * nr;
	for (i = 0; i < nr; i++) {
		w_attr(&w, &attrs[i]);
		w64(&w, ids_off);
		w64(&w, 8 * attrs[i].nr_ids);
		ids_off += 8 * attrs[i].nr_ids;
	}
	for (i = 0; i < nr; i++)
		for (j = 0; j < attrs[i].nr_ids; j++)
			w64(&w, attrs[i].ids[j]);
	w_put64(&w, 40, w.n);
	w_bytes(&w, data->b, data->n);

	feat = w.n;
	w_pad(&w, cache_feat ? 48 : 32);
	sec = w.n;
	w_string(&w, "unit-host");
	w_put64(&w, feat, sec);
	w_put64(&w, feat + 8, w.n - sec);
	sec = w.n;
	w32(&w, nr);
	w32(&w, ATTR_SIZE_VER7);
	for (i = 0; i < nr; i++) {
		w_attr(&w, &attrs[i]);
		w32(&w, attrs[i].nr_ids);
		w_string(&w, attrs[i].name ? attrs[i].name : "ev");
		for (j = 0; j < attrs[i].nr_ids; j++)
			w64(&w, attrs[i].ids[j]);
	}
	w_put64(&w, feat + 16, sec);
	w_put64(&w, feat + 24, w.n - sec);
	if (cache_feat) {
		w_put64(&w, feat + 32, w.n);
		w_put64(&w, feat + 40, cache_feat->n);
		w_bytes(&w, cache_feat->b, cache_feat->n);
	}
	return w;
}

static void write_tmp(const struct wb *w)
{
	FILE *f = fopen(tmpfile_name, "wb");

	if (!f || fwrite(w->b, 1, w->n, f) != w->n || fclose(f)) {
		perror(tmpfile_name);
		exit(1);
	}
}

/* ---- collecting what the reader delivers -------------------------------- */

#define MAXS 16

struct got {
	int nr;
	struct cachepin_sample s[MAXS];
	struct cachepin_frame f[MAXS][16];
	char dso[MAXS][16][32];
	char ev[MAXS][32];
};

static int collect(void *ctx, const struct cachepin_sample *s)
{
	struct got *g = ctx;
	uint32_t i;

	if (g->nr >= MAXS)
		return 0;
	g->s[g->nr] = *s;
	for (i = 0; i < s->nr && i < 16; i++) {
		g->f[g->nr][i] = s->frames[i];
		snprintf(g->dso[g->nr][i], 32, "%s", s->frames[i].dso ? s->frames[i].dso : "-");
	}
	snprintf(g->ev[g->nr], 32, "%s", s->event ? s->event : "-");
	g->nr++;
	return 0;
}

static char last_msg[512];

static int capture_print(enum cachepin_print_level level, const char *fmt, va_list ap)
{
	if (level == CACHEPIN_WARN)
		vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	return 0;
}

/* Read the temp file; returns for_each's result (or -1000 if open failed). */
static int read_tmp(struct got *g, struct cachepin_perf **keep)
{
	struct cachepin_perf *p;
	int err;

	memset(g, 0, sizeof(*g));
	last_msg[0] = 0;
	p = cachepin_perf__open(tmpfile_name);
	if (!p)
		return -1000;
	err = cachepin_perf__for_each_sample(p, collect, g);
	if (keep)
		*keep = p;
	else
		cachepin_perf__free(p);
	return err;
}

/* ---- tests ----------------------------------------------------------------- */

/*
 * A sample with every field.  Returns the record's offset in D; the
 * field values are fixed so that checks can find them.
 */
static size_t w_full_sample(struct wb *d, uint64_t st, uint64_t branch, bool abi0)
{
	size_t at = rec_begin(d, REC_SAMPLE, CPUMODE_KERNEL);
	int i;

	if (st & ST_IDENTIFIER)
		w64(d, 99);
	if (st & ST_IP)
		w64(d, 0xffffffff81001000ULL);
	if (st & ST_TID) {
		w32(d, 1234);
		w32(d, 1235);
	}
	if (st & ST_TIME)
		w64(d, 5000);
	if (st & ST_ADDR)
		w64(d, 0xdead);
	if (st & ST_ID)
		w64(d, 99);
	if (st & ST_STREAM_ID)
		w64(d, 98);
	if (st & ST_CPU) {
		w32(d, 3);
		w32(d, 0);
	}
	if (st & ST_PERIOD)
		w64(d, 777);
	if (st & ST_READ) {		/* GROUP|ID|LOST|ENABLED|RUNNING, 2 members */
		w64(d, 2);
		w64(d, 10);
		w64(d, 11);
		for (i = 0; i < 2; i++) {
			w64(d, 100 + i);
			w64(d, 99);
			w64(d, 0);
		}
	}
	if (st & ST_CALLCHAIN) {
		w64(d, 8);
		w64(d, CTX_KERNEL);
		w64(d, 0xffffffff81001000ULL);	/* duplicate of ip */
		w64(d, 0xffffffff81002000ULL);
		w64(d, CTX_USER);
		w64(d, 0x401000);
		w64(d, CTX_USER_DEFERRED);
		w64(d, 0x12345);		/* cookie */
		w64(d, 0x402000);
	}
	if (st & ST_RAW) {
		w32(d, 12);
		w_pad(d, 12);
	}
	if (st & ST_BRANCH_STACK) {
		w64(d, 2);
		if (branch & BST_HW_INDEX)
			w64(d, 7);
		for (i = 0; i < 2 * 3; i++)
			w64(d, 0x1000 + i);
		if (branch & BST_COUNTERS)
			for (i = 0; i < 2; i++)
				w64(d, 5);
	}
	if (st & ST_REGS_USER) {
		w64(d, abi0 ? 0 : 2);
		if (!abi0)
			for (i = 0; i < 3; i++)	/* popcount(0x13) */
				w64(d, i);
	}
	if (st & ST_STACK_USER) {
		w64(d, abi0 ? 0 : 16);
		if (!abi0) {
			w_pad(d, 16);
			w64(d, 16);
		}
	}
	if (st & (ST_WEIGHT | ST_WEIGHT_STRUCT))
		w64(d, 1);
	if (st & ST_DATA_SRC)
		w64(d, 2);
	if (st & ST_TRANSACTION)
		w64(d, 3);
	if (st & ST_REGS_INTR) {
		w64(d, abi0 ? 0 : 2);
		if (!abi0)
			for (i = 0; i < 2; i++)	/* popcount(0x6) */
				w64(d, i);
	}
	if (st & ST_PHYS_ADDR)
		w64(d, 4);
	if (st & ST_CGROUP)
		w64(d, 5);
	if (st & ST_DATA_PAGE_SIZE)
		w64(d, 6);
	if (st & ST_CODE_PAGE_SIZE)
		w64(d, 7);
	if (st & ST_AUX) {
		w64(d, 8);
		w_pad(d, 8);
	}
	rec_end(d, at);
	return at;
}

static void test_layouts(void)
{
	static const struct {
		uint64_t st, branch;
		bool abi0;
	} t[] = {
		{ ST_IP, 0, false },
		{ ST_IP | ST_TID | ST_TIME | ST_PERIOD | ST_CALLCHAIN, 0, false },
		{ ST_EVERY, 0, false },
		{ ST_EVERY, BST_HW_INDEX, false },
		{ ST_EVERY, BST_HW_INDEX | BST_COUNTERS, false },
		{ ST_EVERY, BST_COUNTERS, true },
		{ ST_IP | ST_TID | ST_BRANCH_STACK | ST_REGS_USER | ST_STACK_USER | ST_CALLCHAIN, 0, true },
		{ ST_TID | ST_READ | ST_CALLCHAIN | ST_RAW | ST_AUX, 0, false },
	};
	size_t i;
	int be;

	for (be = 0; be < 2; be++) {
		for (i = 0; i < ARRAY_SIZE_T(t); i++) {
			struct attr_spec a = {
				.sample_type = t[i].st, .read_format = RF_EVERY,
				.branch = t[i].branch, .regs_user = 0x13, .regs_intr = 0x6,
				.period = 4000, .flags = AF_FREQ | AF_SAMPLE_ID_ALL, .ids = { 99 },
				.nr_ids = 1, .name = "cpu-clock",
			};
			struct wb d = { .be = be }, f;
			struct got g;
			bool chain = t[i].st & ST_CALLCHAIN, ip = t[i].st & ST_IP;
			int err;

			w_full_sample(&d, t[i].st, t[i].branch, t[i].abi0);
			f = make_file(be, &a, 1, &d, false);
			write_tmp(&f);
			err = read_tmp(&g, NULL);
			CHECK(err == 0 && g.nr == 1, "layout %zu be %d: err %d nr %d (%s)",
			      i, be, err, g.nr, last_msg);
			if (g.nr != 1)
				goto next;
			CHECK(g.s[0].period == (t[i].st & ST_PERIOD ? 777 : 1),
			      "layout %zu be %d: period %llu", i, be,
			      (unsigned long long)g.s[0].period);
			if (t[i].st & ST_TID)
				CHECK(g.s[0].pid == 1234 && g.s[0].tid == 1235,
				      "layout %zu be %d: pid %u tid %u", i, be, g.s[0].pid, g.s[0].tid);
			if (chain && ip) {
				CHECK(g.s[0].nr == 4, "layout %zu be %d: %u frames", i, be, g.s[0].nr);
				CHECK(g.f[0][0].ip == 0xffffffff81001000ULL &&
				      g.f[0][1].ip == 0xffffffff81002000ULL &&
				      g.f[0][2].ip == 0x401000 && g.f[0][3].ip == 0x402000,
				      "layout %zu be %d: frame ips", i, be);
				CHECK((g.f[0][1].flags & CACHEPIN_FRAME_KERNEL) &&
				      !(g.f[0][2].flags & CACHEPIN_FRAME_KERNEL) &&
				      !(g.f[0][3].flags & CACHEPIN_FRAME_KERNEL),
				      "layout %zu be %d: frame contexts", i, be);
			} else if (chain) {
				/* no ip: the first callchain entry is the sample ip */
				CHECK(g.s[0].nr == 4 && g.f[0][0].ip == 0xffffffff81001000ULL,
				      "layout %zu be %d: no-ip frames %u", i, be, g.s[0].nr);
			} else {
				CHECK(g.s[0].nr == 1, "layout %zu be %d: %u frames", i, be, g.s[0].nr);
			}
			CHECK(g.f[0][0].flags & CACHEPIN_FRAME_KERNEL || !ip,
			      "layout %zu be %d: kernel cpumode", i, be);
			CHECK(!strcmp(g.ev[0], "cpu-clock"), "layout %zu be %d: event '%s'",
			      i, be, g.ev[0]);

			/* one u64 less: the sample is too short for its sample_type */
			free(f.b);
			d.n -= 8;
			w_put16(&d, 6, d.n);
			f = make_file(be, &a, 1, &d, false);
			write_tmp(&f);
			err = read_tmp(&g, NULL);
			CHECK(err < 0 && strstr(last_msg, "truncated sample at offset 0x"),
			      "layout %zu be %d: short sample gave %d '%s'", i, be, err, last_msg);
next:
			free(f.b);
			free(d.b);
		}
	}
}

/* Several events: each sample takes the period of the attr its id names. */
static void test_ids(void)
{
	int be, ident;

	for (be = 0; be < 2; be++) {
		for (ident = 0; ident < 2; ident++) {
			uint64_t st = ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN |
				      (ident ? ST_IDENTIFIER : ST_ID);
			struct attr_spec a[2] = {
				{ .sample_type = st, .period = 111, .flags = AF_SAMPLE_ID_ALL,
				  .ids = { 5, 6 }, .nr_ids = 2, .name = "alpha" },
				{ .sample_type = st, .period = 222, .flags = AF_SAMPLE_ID_ALL,
				  .ids = { 7 }, .nr_ids = 1, .name = "beta" },
			};
			static const uint64_t order[] = { 7, 5, 6, 7 };
			struct wb d = { .be = be }, f;
			struct got g;
			size_t at, k;
			int err;

			for (k = 0; k < ARRAY_SIZE_T(order); k++) {
				at = rec_begin(&d, REC_SAMPLE, CPUMODE_USER);
				if (ident)
					w64(&d, order[k]);
				w64(&d, 0x401000 + k);
				w32(&d, 1);
				w32(&d, 1);
				w64(&d, 10 + k);
				if (!ident)
					w64(&d, order[k]);
				w64(&d, 0);
				rec_end(&d, at);
			}
			/* a COMM with a trailer naming id 7 */
			at = rec_begin(&d, REC_COMM, 0);
			w32(&d, 1);
			w32(&d, 1);
			w_bytes(&d, "prog\0\0\0\0", 8);
			w32(&d, 1);
			w32(&d, 1);
			w64(&d, 9);
			w64(&d, 7);
			rec_end(&d, at);
			f = make_file(be, a, 2, &d, be);
			write_tmp(&f);
			err = read_tmp(&g, NULL);
			CHECK(err == 0 && g.nr == 4, "ids be %d ident %d: err %d nr %d (%s)",
			      be, ident, err, g.nr, last_msg);
			for (k = 0; k < 4 && (int)k < g.nr; k++) {
				CHECK(g.s[k].period == (order[k] == 7 ? 222 : 111),
				      "ids be %d ident %d: sample %zu period %llu", be, ident, k,
				      (unsigned long long)g.s[k].period);
				CHECK(!strcmp(g.ev[k], order[k] == 7 ? "beta" : "alpha"),
				      "ids be %d ident %d: sample %zu event '%s'", be, ident, k,
				      g.ev[k]);
				CHECK(g.s[k].nr == 1 && g.f[k][0].ip == 0x401000 + k,
				      "ids be %d ident %d: sample %zu ip", be, ident, k);
			}
			free(f.b);
			free(d.b);
		}
	}
}

/* BE attr flags are bit-reversed: freq decides whether sample_period is a period. */
static void test_be_flags(void)
{
	int be, freq;

	for (be = 0; be < 2; be++) {
		for (freq = 0; freq < 2; freq++) {
			struct attr_spec a = {
				.sample_type = ST_IP | ST_TID, .period = 1000,
				.flags = freq ? AF_FREQ : 0, .ids = { 1 }, .nr_ids = 1,
			};
			struct wb d = { .be = be }, f;
			struct got g;
			size_t at;
			int err;

			at = rec_begin(&d, REC_SAMPLE, CPUMODE_USER);
			w64(&d, 0x400000);
			w32(&d, 1);
			w32(&d, 2);
			rec_end(&d, at);
			f = make_file(be, &a, 1, &d, false);
			write_tmp(&f);
			err = read_tmp(&g, NULL);
			CHECK(err == 0 && g.nr == 1 && g.s[0].period == (freq ? 1 : 1000),
			      "flags be %d freq %d: err %d period %llu", be, freq, err,
			      g.nr ? (unsigned long long)g.s[0].period : 0ULL);
			free(f.b);
			free(d.b);
		}
	}
}

static size_t w_mmap2(struct wb *d, uint32_t pid, uint16_t misc, uint64_t start,
		      uint64_t len, uint64_t pgoff, const char *name, uint64_t time)
{
	size_t at = rec_begin(d, REC_MMAP2, misc), n = strlen(name) + 1;

	w32(d, pid);
	w32(d, pid);
	w64(d, start);
	w64(d, len);
	w64(d, pgoff);
	w32(d, 8);
	w32(d, 1);
	w64(d, 42);
	w64(d, 0);
	w32(d, 5);
	w32(d, 2);
	w_bytes(d, name, n);
	w_pad(d, ((n + 7) & ~7UL) - n);
	w32(d, pid);		/* trailer: TID, TIME */
	w32(d, pid);
	w64(d, time);
	rec_end(d, at);
	return at;
}

/* Maps: kernel, module and user frames get their dso and file offset. */
static void test_maps(void)
{
	struct attr_spec a = {
		.sample_type = ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN | ST_PERIOD,
		.flags = AF_FREQ | AF_SAMPLE_ID_ALL, .period = 4000, .ids = { 3 }, .nr_ids = 1,
		.name = "cpu-clock",
	};
	const struct cachepin_perf_meta *m;
	struct cachepin_perf *p = NULL;
	struct wb d = { .be = false }, f;
	struct got g;
	size_t at;
	int err, k, be;

	for (be = 0; be < 2; be++) {
		d.n = 0;
		d.be = be;
		/* kernel map (MMAP, pid -1), a module, then samples of pid 42 */
		at = rec_begin(&d, REC_MMAP, CPUMODE_KERNEL);
		w32(&d, -1);
		w32(&d, 0);
		w64(&d, 0xffffffff81000000ULL);
		w64(&d, 0x1000000);
		w64(&d, 0xffffffff81000000ULL);
		w_bytes(&d, "[kernel.kallsyms]_text\0\0", 24);
		w_pad(&d, 16);
		rec_end(&d, at);
		w_mmap2(&d, -1, CPUMODE_KERNEL, 0xffffffffa0000000ULL, 0x10000, 0,
			"[nf_conntrack]", 0);
		/* the sample comes before its map in the file (another CPU) */
		for (k = 0; k < 2; k++) {
			at = rec_begin(&d, REC_SAMPLE, CPUMODE_KERNEL);
			w64(&d, 0xffffffff81000100ULL);
			w32(&d, 42);
			w32(&d, 43);
			w64(&d, 100 + 100 * k);
			w64(&d, 500);
			w64(&d, 6);
			w64(&d, CTX_KERNEL);
			w64(&d, 0xffffffffa0000010ULL);
			w64(&d, CTX_USER);
			w64(&d, 0x400010);
			w64(&d, 0x500020);
			w64(&d, 0x700000);
			rec_end(&d, at);
			if (!k)
				w_mmap2(&d, 42, CPUMODE_USER, 0x400000, 0x1000, 0x2000,
					"/bin/prog", 50);
		}
		/* an exec maps other files over the same range later */
		w_mmap2(&d, 42, CPUMODE_USER, 0x400000, 0x1000, 0, "/bin/other", 150);
		w_mmap2(&d, 42, CPUMODE_USER, 0x500000, 0x1000, 0, "/lib/libc.so", 10);
		f = make_file(be, &a, 1, &d, false);
		write_tmp(&f);
		err = read_tmp(&g, &p);
		CHECK(err == 0 && g.nr == 2, "maps be %d: err %d nr %d (%s)", be, err, g.nr, last_msg);
		if (g.nr == 2) {
			CHECK(g.s[0].nr == 5, "maps: %u frames", g.s[0].nr);
			CHECK(!strcmp(g.dso[0][0], "[kernel.kallsyms]") &&
			      (g.f[0][0].flags & CACHEPIN_FRAME_KERNEL), "maps: kernel frame '%s'",
			      g.dso[0][0]);
			CHECK(!strcmp(g.dso[0][1], "[nf_conntrack]") &&
			      (g.f[0][1].flags & CACHEPIN_FRAME_KERNEL), "maps: module frame '%s'",
			      g.dso[0][1]);
			CHECK(!strcmp(g.dso[0][2], "/bin/prog") && g.f[0][2].file_off == 0x2010 &&
			      (g.f[0][2].flags & CACHEPIN_FRAME_HAS_FOFF) &&
			      !(g.f[0][2].flags & CACHEPIN_FRAME_KERNEL),
			      "maps: user frame '%s' %#llx", g.dso[0][2],
			      (unsigned long long)g.f[0][2].file_off);
			CHECK(!strcmp(g.dso[0][3], "/lib/libc.so") && g.f[0][3].file_off == 0x20,
			      "maps: libc frame '%s'", g.dso[0][3]);
			CHECK(!strcmp(g.dso[0][4], "-") &&
			      !(g.f[0][4].flags & CACHEPIN_FRAME_HAS_FOFF),
			      "maps: unmapped frame '%s'", g.dso[0][4]);
			CHECK(!strcmp(g.dso[1][2], "/bin/other") && g.f[1][2].file_off == 0x10,
			      "maps: frame after exec '%s'", g.dso[1][2]);
			CHECK(g.s[0].period == 500, "maps: period");
		}
		if (p) {
			m = cachepin_perf__meta(p);
			CHECK(m->has_kernel_map && m->kernel_ref_sym &&
			      !strcmp(m->kernel_ref_sym, "_text") &&
			      m->kernel_ref_addr == 0xffffffff81000000ULL,
			      "maps: kernel reference");
			CHECK(m->nr_kmaps == 2 && !strcmp(m->kmaps[1].name, "[nf_conntrack]"),
			      "maps: %zu kmaps", m->nr_kmaps);
			CHECK(m->hostname && !strcmp(m->hostname, "unit-host"), "maps: hostname");
			CHECK(m->event && !strcmp(m->event, "cpu-clock"), "maps: event");
			CHECK(m->nr_samples == 2 && m->period_sum == 1000 && m->big_endian == be,
			      "maps: meta totals");
			/* a second pass delivers the same */
			memset(&g, 0, sizeof(g));
			err = cachepin_perf__for_each_sample(p, collect, &g);
			CHECK(err == 0 && g.nr == 2 && m->nr_samples == 2, "maps: second pass");
			cachepin_perf__free(p);
			p = NULL;
		}
		free(f.b);
	}
	free(d.b);
}

/* An MMAP2 with a build-id (perf record --buildid-mmap) of BSIZE bytes 0x11, 0x12, ... */
static void w_mmap2_bid(struct wb *d, uint32_t pid, uint16_t misc, uint64_t start,
			uint8_t bsize, const char *name)
{
	size_t at = rec_begin(d, REC_MMAP2, misc | MISC_MMAP_BUILD_ID), n = strlen(name) + 1;
	int i;

	w32(d, pid);
	w32(d, pid);
	w64(d, start);
	w64(d, 0x1000);
	w64(d, 0);
	w8(d, bsize);
	w_pad(d, 3);
	for (i = 0; i < 20; i++)
		w8(d, 0x11 + i);
	w32(d, 5);
	w32(d, 2);
	w_bytes(d, name, n);
	w_pad(d, ((n + 7) & ~7UL) - n);
	rec_end(d, at);
}

/* Build-ids from MMAP2 records: one per file, the kernel's by its name, sizes bounded. */
static void test_mmap_buildid(void)
{
	struct attr_spec a = { .sample_type = ST_IP | ST_TID | ST_PERIOD };
	const struct cachepin_perf_meta *m;
	struct cachepin_perf *p = NULL;
	struct wb d = { .be = false }, w;
	struct got g;
	size_t at;
	int err;

	w_mmap2_bid(&d, UINT32_MAX, CPUMODE_KERNEL, 0xffffffff81000000ULL, 20, KALLSYMS "_text");
	w_mmap2_bid(&d, 7, CPUMODE_USER, 0x400000, 20, "/bin/copy");
	w_mmap2_bid(&d, 7, CPUMODE_USER, 0x500000, 20, "/bin/copy");
	w_mmap2_bid(&d, 7, CPUMODE_USER, 0x600000, 0xff, "/lib/big.so");
	w_mmap2_bid(&d, 7, CPUMODE_USER, 0x700000, 16, "/lib/md5.so");
	at = rec_begin(&d, REC_SAMPLE, CPUMODE_USER);
	w64(&d, 0x400010);
	w32(&d, 7);
	w32(&d, 7);
	w64(&d, 5);
	rec_end(&d, at);
	w = make_file(false, &a, 1, &d, false);
	write_tmp(&w);
	err = read_tmp(&g, &p);
	CHECK(err == 0 && g.nr == 1 && !strcmp(g.dso[0][0], "/bin/copy"), "mmap2 build-id: err %d nr %d",
	      err, g.nr);
	m = p ? cachepin_perf__meta(p) : NULL;
	CHECK(m && m->nr_buildids == 4, "mmap2 build-id: %zu build-ids", m ? m->nr_buildids : 0);
	if (m && m->nr_buildids == 4) {
		CHECK(!strcmp(m->buildids[0].name, KALLSYMS) && m->buildids[0].size == 20,
		      "kernel build-id: '%s'", m->buildids[0].name);
		CHECK(!strcmp(m->buildids[1].name, "/bin/copy") && m->buildids[1].size == 20 &&
		      m->buildids[1].id[0] == 0x11 && m->buildids[1].id[19] == 0x24, "/bin/copy build-id");
		CHECK(!strcmp(m->buildids[2].name, "/lib/big.so") && m->buildids[2].size == 20,
		      "size 255: %u", m->buildids[2].size);
		CHECK(!strcmp(m->buildids[3].name, "/lib/md5.so") && m->buildids[3].size == 16 &&
		      m->buildids[3].id[15] == 0x20 && m->buildids[3].id[16] == 0, "a 16-byte build-id");
	}
	cachepin_perf__free(p);
	free(w.b);
	free(d.b);
}

struct cache_spec {
	uint32_t level, line, sets, ways;
	const char *type, *size;
};

/* HEADER_CACHE: VERSION, NR (the count it claims), then N entries. */
static void w_cache_feat(struct wb *w, uint32_t version, uint32_t nr,
			 const struct cache_spec *c, int n)
{
	int i;

	w32(w, version);
	w32(w, nr);
	for (i = 0; i < n; i++) {
		w32(w, c[i].level);
		w32(w, c[i].line);
		w32(w, c[i].sets);
		w32(w, c[i].ways);
		w_string(w, c[i].type);
		w_string(w, c[i].size);
		w_string(w, "0-1");
	}
}

/* Read a file-mode perf.data of one sample whose CACHE section is F. */
static const struct cachepin_perf_meta *read_cache_feat(const struct wb *f, struct cachepin_perf **p)
{
	struct attr_spec a = { .sample_type = ST_IP | ST_TID | ST_PERIOD };
	struct wb d = { .be = f->be }, w;
	struct got g;
	size_t at;
	int err;

	at = rec_begin(&d, REC_SAMPLE, CPUMODE_USER);
	w64(&d, 0x1000);
	w32(&d, 7);
	w32(&d, 7);
	w64(&d, 5);
	rec_end(&d, at);
	cache_feat = f;
	w = make_file(f->be, &a, 1, &d, false);
	cache_feat = NULL;
	write_tmp(&w);
	err = read_tmp(&g, p);
	free(w.b);
	free(d.b);
	CHECK(err == 0 && g.nr == 1, "cache feature: err %d nr %d (%s)", err, g.nr, last_msg);
	return *p ? cachepin_perf__meta(*p) : NULL;
}

/* HEADER_CACHE: both byte orders, then versions, counts and strings that do not fit. */
static void test_cache(void)
{
	static const struct cache_spec two[] = {
		{ 1, 64, 64, 12, "Data", "48K" },
		{ 1, 64, 64, 8, "Instruction", "32K" },
		{ 2, 64, 1024, 16, "Unified", "1024K" },
	};
	const struct cachepin_perf_meta *m;
	const struct cachepin_perf_cache *c;
	struct cachepin_perf *p = NULL;
	struct wb f = { 0 }, cut;
	size_t n, full;
	int be;

	for (be = 0; be < 2; be++) {
		f.be = be;
		f.n = 0;
		w_cache_feat(&f, 1, 3, two, 3);
		m = read_cache_feat(&f, &p);
		CHECK(m && m->nr_caches == 3, "be %d: %zu caches (%s)", be, m ? m->nr_caches : 0, last_msg);
		c = m ? cachepin_perf_meta__l1i(m) : NULL;
		CHECK(c && c->level == 1 && c->sets == 64 && c->ways == 8 && c->line == 64 &&
		      !strcmp(c->type, "Instruction") && !strcmp(c->size, "32K"),
		      "be %d: the L1 Instruction cache", be);
		CHECK(m && m->nr_caches == 3 && m->caches[2].level == 2 && m->caches[2].sets == 1024 &&
		      !strcmp(m->caches[2].type, "Unified"), "be %d: the L2 cache", be);
		cachepin_perf__free(p);
		p = NULL;
	}

	/* only data and unified caches: no L1 Instruction */
	f.be = false;
	f.n = 0;
	w_cache_feat(&f, 1, 1, two, 1);
	m = read_cache_feat(&f, &p);
	CHECK(m && m->nr_caches == 1 && !cachepin_perf_meta__l1i(m), "no L1 Instruction cache");
	cachepin_perf__free(p);
	p = NULL;

	/* bad sections are dropped whole with a warning, and the file still reads */
	{
		static const struct {
			uint32_t version, nr;
			int n;
			const char *msg;
		} bad[] = {
			{ 2, 2, 2, "bad CACHE feature section (unknown version), ignored" },
			{ 1, UINT32_MAX, 2, "bad CACHE feature section (more caches than the section holds), ignored" },
			{ 1, 9, 2, "bad CACHE feature section (more caches than the section holds), ignored" },
			{ 1, 3, 2, "bad CACHE feature section (truncated), ignored" },
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE_T(bad); i++) {
			f.n = 0;
			w_cache_feat(&f, bad[i].version, bad[i].nr, two, bad[i].n);
			if (i == 3)	/* the third cut inside its fixed part */
				w_pad(&f, 10);
			m = read_cache_feat(&f, &p);
			CHECK(m && m->nr_caches == 0 && strstr(last_msg, bad[i].msg),
			      "bad %zu: %zu caches, '%s'", i, m ? m->nr_caches : 0, last_msg);
			cachepin_perf__free(p);
			p = NULL;
		}
	}
	/* a string length past the section */
	f.n = 0;
	w_cache_feat(&f, 1, 1, two, 1);
	w_put16(&f, 8 + 16, 0xfff0);
	m = read_cache_feat(&f, &p);
	CHECK(m && m->nr_caches == 0 &&
	      strstr(last_msg, "bad CACHE feature section (a string runs past the section), ignored"),
	      "string length: '%s'", last_msg);
	cachepin_perf__free(p);
	p = NULL;

	/* every cut of the section: all caches or none, never a crash */
	f.n = 0;
	w_cache_feat(&f, 1, 2, two, 2);
	full = f.n;
	cut = f;
	for (n = 0; n < full; n++) {
		cut.n = n;
		m = read_cache_feat(&cut, &p);
		CHECK(m && m->nr_caches == 0 && strstr(last_msg, "bad CACHE feature section"),
		      "cut at %zu: %zu caches '%s'", n, m ? m->nr_caches : 0, last_msg);
		cachepin_perf__free(p);
		p = NULL;
	}
	free(f.b);
}

/* Pipe mode: HEADER_ATTR, HEADER_FEATURE (unaligned), payload-carrying records. */
static struct wb make_pipe(bool be, bool compress, bool v2)
{
	struct attr_spec a = {
		.sample_type = ST_IP | ST_TID | ST_PERIOD | ST_CALLCHAIN,
		.flags = AF_FREQ, .period = 4000,
	};
	struct wb w = { .be = be }, r = { .be = be };
	size_t at, i;
	int k;

	w_bytes(&w, be ? MAGIC_V2_BE : MAGIC_V2, MAGIC_SIZE);
	w64(&w, PIPE_HEADER_SIZE);
	at = rec_begin(&w, REC_HEADER_ATTR, 0);
	w_attr(&w, &a);
	w64(&w, 11);
	w64(&w, 12);
	rec_end(&w, at);
	/* EVENT_DESC as perf 6.1 writes it: not padded to 8 */
	at = rec_begin(&w, REC_HEADER_FEATURE, 0);
	w64(&w, FEAT_EVENT_DESC);
	w32(&w, 1);
	w32(&w, ATTR_SIZE_VER7);
	w_attr(&w, &a);
	w32(&w, 1);
	w32(&w, 5);
	w_bytes(&w, "pipe\0", 5);
	w64(&w, 12);
	rec_end(&w, at);
	at = rec_begin(&w, REC_HEADER_FEATURE, 0);
	w64(&w, FEAT_ARCH);
	w32(&w, 4);
	w_bytes(&w, "mips", 4);
	w8(&w, 0);		/* odd size: the next record is unaligned */
	rec_end(&w, at);
	/* tracing data: 13 bytes, ALIGN(13, 8) = 16 follow uncounted */
	at = rec_begin(&w, REC_HEADER_TRACING_DATA, 0);
	w32(&w, 13);
	w32(&w, 0);
	rec_end(&w, at);
	w_pad(&w, 16);
	/* auxtrace: 24 bytes follow */
	at = rec_begin(&w, REC_AUXTRACE, 0);
	w64(&w, 24);
	w64(&w, 0);
	w64(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	rec_end(&w, at);
	w_pad(&w, 24);
	at = rec_begin(&w, REC_LOST_SAMPLES, 0);
	w64(&w, 3);
	rec_end(&w, at);
	at = rec_begin(&w, REC_LOST, 0);
	w64(&w, 11);
	w64(&w, 4);
	rec_end(&w, at);

	for (k = 0; k < 6; k++) {
		at = rec_begin(&r, REC_SAMPLE, CPUMODE_USER);
		w64(&r, 0x1000 + k);
		w32(&r, 7);
		w32(&r, 7);
		w64(&r, 10 * (k + 1));
		w64(&r, 2);
		w64(&r, CTX_USER);
		w64(&r, 0x2000 + k);
		rec_end(&r, at);
	}
	if (!compress) {
		w_bytes(&w, r.b, r.n);
	} else {
		size_t cap = ZSTD_compressBound(r.n), n, cut[3];
		uint8_t *z = malloc(cap);

		n = ZSTD_compress(z, cap, r.b, r.n, 3);
		/* three chunks of one stream; records straddle them */
		cut[0] = 0;
		cut[1] = n / 3;
		cut[2] = 2 * n / 3;
		for (i = 0; i < 3; i++) {
			size_t end = i == 2 ? n : cut[i + 1];

			at = rec_begin(&w, v2 ? REC_COMPRESSED2 : REC_COMPRESSED, 0);
			if (v2)
				w64(&w, end - cut[i]);
			w_bytes(&w, z + cut[i], end - cut[i]);
			if (v2)
				w_pad(&w, ((w.n - at + 7) & ~7UL) - (w.n - at));
			rec_end(&w, at);
		}
		free(z);
	}
	free(r.b);
	return w;
}

static void test_pipe(void)
{
	struct cachepin_perf *p = NULL;
	const struct cachepin_perf_meta *m;
	struct got g;
	int be, z, err, k;

	for (be = 0; be < 2; be++) {
		for (z = 0; z < 3; z++) {
			struct wb w = make_pipe(be, z > 0, z == 2);

			write_tmp(&w);
			err = read_tmp(&g, &p);
			CHECK(err == 0 && g.nr == 6, "pipe be %d z %d: err %d nr %d (%s)",
			      be, z, err, g.nr, last_msg);
			for (k = 0; k < g.nr; k++) {
				CHECK(g.s[k].period == 10u * (k + 1) && g.s[k].nr == 2 &&
				      g.f[k][0].ip == 0x1000u + k && g.f[k][1].ip == 0x2000u + k,
				      "pipe be %d z %d: sample %d", be, z, k);
			}
			if (p) {
				m = cachepin_perf__meta(p);
				CHECK(m->pipe && m->event && !strcmp(m->event, "pipe"),
				      "pipe be %d z %d: event", be, z);
				CHECK(m->arch && !strcmp(m->arch, "mips"), "pipe: arch");
				CHECK(m->nr_lost == 7, "pipe: lost %llu", (unsigned long long)m->nr_lost);
				CHECK(m->compressed == (z > 0), "pipe: compressed flag");
				cachepin_perf__free(p);
				p = NULL;
			}
			free(w.b);
		}
	}
}

/* Errors: the message names the problem; truncations never crash. */
static void test_errors(void)
{
	struct wb w = make_pipe(false, true, false), bad;
	struct got g;
	size_t n;
	int err;

	bad = w;
	bad.b = malloc(w.n);
	memcpy(bad.b, w.b, w.n);
	memcpy(bad.b, "PERFILE3", 8);
	write_tmp(&bad);
	err = read_tmp(&g, NULL);
	CHECK(err == -1000 && strstr(last_msg, "': not a perf.data file (bad magic)"),
	      "bad magic: '%s'", last_msg);

	/* the first record after the header with size 4 */
	memcpy(bad.b, w.b, w.n);
	bad.b[16 + 6] = 4;
	bad.b[16 + 7] = 0;
	write_tmp(&bad);
	err = read_tmp(&g, NULL);
	CHECK(err < 0 && strstr(last_msg, "truncated record at offset 0x10"),
	      "record size 4: %d '%s'", err, last_msg);

	/* garbage in the zstd stream */
	memcpy(bad.b, w.b, w.n);
	memset(bad.b + w.n - 20, 0x5a, 12);
	write_tmp(&bad);
	err = read_tmp(&g, NULL);
	CHECK(err < 0 || g.nr < 6, "bad zstd: %d", err);

	/* every truncation of a pipe file */
	cachepin_set_print(NULL);
	for (n = 0; n < w.n; n++) {
		bad.n = n;
		write_tmp(&bad);
		memcpy(bad.b, w.b, w.n);
		err = read_tmp(&g, NULL);
		CHECK(err <= 0 && g.nr <= 6, "cut at %zu: %d", n, err);
	}
	cachepin_set_print(capture_print);
	bad.n = 20;
	write_tmp(&bad);
	err = read_tmp(&g, NULL);
	CHECK(err < 0 && strstr(last_msg, "truncated record at offset 0x10"),
	      "cut header: '%s'", last_msg);
	bad.n = 10;
	write_tmp(&bad);
	err = read_tmp(&g, NULL);
	CHECK(err == -1000, "10-byte file opened");
	free(bad.b);
	free(w.b);
}

/* Random mutations of small files of each kind: no crash, no hang. */
static void test_mutations(void)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct attr_spec a = {
		.sample_type = ST_EVERY, .read_format = RF_EVERY,
		.branch = BST_HW_INDEX, .regs_user = 0x13, .regs_intr = 0x6,
		.flags = AF_FREQ | AF_SAMPLE_ID_ALL, .ids = { 99 }, .nr_ids = 1,
	};
	struct wb base[4], d = { .be = false }, m = { 0 };
	struct got g;
	int i, k, b;

	w_full_sample(&d, a.sample_type, a.branch, false);
	w_mmap2(&d, 1234, CPUMODE_USER, 0x400000, 0x1000, 0, "/bin/x", 0);
	w_full_sample(&d, a.sample_type, a.branch, false);
	base[0] = make_file(false, &a, 1, &d, false);
	d.be = true;
	d.n = 0;
	w_full_sample(&d, a.sample_type, a.branch, false);
	base[1] = make_file(true, &a, 1, &d, true);
	base[2] = make_pipe(false, false, false);
	base[3] = make_pipe(true, true, true);
	free(d.b);

	cachepin_set_print(NULL);
	for (i = 0; i < 3000; i++) {
		const struct wb *src = &base[i % 4];
		int nflip;

		m.n = 0;
		w_bytes(&m, src->b, src->n);
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nflip = 1 + (seed >> 60);
		for (k = 0; k < nflip; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			b = (seed >> 33) % m.n;
			m.b[b] = (seed >> 17) & 1 ? (uint8_t)(seed >> 41) : m.b[b] ^ (1 << ((seed >> 50) & 7));
		}
		if ((seed >> 20) % 8 == 0)
			m.n = (seed >> 24) % m.n;
		write_tmp(&m);
		read_tmp(&g, NULL);
	}
	cachepin_set_print(capture_print);
	for (i = 0; i < 4; i++)
		free(base[i].b);
	free(m.b);
}

int main(void)
{
	snprintf(tmpfile_name, sizeof(tmpfile_name), "perf-data-unit.%ld.tmp", (long)getpid());
	cachepin_set_print(capture_print);
	test_layouts();
	test_ids();
	test_be_flags();
	test_maps();
	test_pipe();
	test_cache();
	test_mmap_buildid();
	test_errors();
	test_mutations();
	unlink(tmpfile_name);
	UNIT_DONE();
}
