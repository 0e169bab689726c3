// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf-synth: write a large, valid perf.data of kernel samples on the
 * functions of an ELF, for the benchmark.
 *
 *   perf-synth [-n SAMPLES] [-s SEED] [-c CPUS] [-z EXPONENT] [-C SETS:WAYS:LINE]
 *              [-m MODULE@ADDR [-B BUILD-ID]] [-v] VMLINUX OUT
 *
 * The file is what 'perf record -e cpu-clock -a -g' writes on a router
 * (little-endian file mode): one cpu-clock attr with sample_type
 * IP|TID|TIME|CALLCHAIN|ID|CPU|PERIOD and sample_id_all, one id per CPU,
 * the kernel MMAP "[kernel.kallsyms]_text" whose pgoff is the address of
 * _text (no KASLR), COMM records, then SAMPLES kernel samples (default
 * 1000000) of period 250000, FINISHED_ROUND records between batches, and
 * an EVENT_DESC feature naming the event.  -C adds a CACHE feature (as
 * perf writes it from sysfs) of two level-1 caches, Data and
 * Instruction, both of that geometry, whatever it is.  -m adds a kernel
 * module's MMAP, as perf synthesizes one for each module loaded when it
 * starts (the module's file name, its text's load address ADDR, 16 KiB,
 * pgoff 0), and makes every 8th sample a hit in it, at the offsets of
 * mod_offs[] in turn, called from the entry path's second function.
 * -B (with -m) adds a BUILD_ID feature with the module's build-id (hex,
 * up to 20 bytes), as perf records it for a module that got samples.
 *
 * Samples are deterministic for a SEED: leaf functions follow a Zipf
 * distribution (EXPONENT, default 1.1) over a shuffled order of the functions (so hot code is
 * scattered over the image), at offsets inside the function (half of
 * them at one of two fixed hot spots).  Every function has two fixed
 * callers drawn from a random tree, so the call graph is stable; a chain
 * is "PERF_CONTEXT_KERNEL, ip, callers..." with 3 to 12 callers, each a
 * fixed return address inside the caller.  -v prints what was written.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cachepin/binary.h"

#include "perf-format.h"

#define SAMPLE_TYPE	(ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN | ST_ID | ST_CPU | ST_PERIOD)
#define ATTR_FLAGS	(AF_DISABLED | AF_INHERIT | AF_MMAP | AF_COMM | AF_FREQ | \
			 AF_SAMPLE_ID_ALL | AF_EXCLUDE_GUEST)
#define ATTR_SIZE	ATTR_SIZE_VER7
#define TRAILER_SIZE	32	/* sample_id_all: tid, time, id, cpu */

#define PERIOD		250000	/* ns: cpu-clock at 4 kHz */
#define MIN_CALLERS	3
#define MAX_CALLERS	12
#define ROUND		4096	/* samples between FINISHED_ROUND records */

static const char *out_path;
static FILE *out;
static uint64_t written;

struct proc {
	uint32_t pid;
	const char *comm;
	unsigned int weight;
};

/* who runs on a router forwarding traffic */
static const struct proc procs[] = {
	{ 0, "swapper", 55 },
	{ 9, "ksoftirqd/0", 20 },
	{ 16, "ksoftirqd/1", 15 },
	{ 412, "hostapd", 4 },
	{ 538, "dnsmasq", 3 },
	{ 871, "iperf3", 3 },
};

#define NR_PROCS (sizeof(procs) / sizeof(procs[0]))

struct node {
	size_t func;		/* index into bin->funcs */
	uint32_t parent[2];	/* callers, as node indices; UINT32_MAX for none */
	uint32_t hot_off[2];	/* fixed hot spots inside the function */
};

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("perf-synth: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n > 0); the bias of the modulo is irrelevant here */
static uint64_t below(uint64_t *s, uint64_t n)
{
	return splitmix(s) % n;
}

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("cannot write '%s': %s", out_path, strerror(errno));
	written += n;
}

/* little-endian stores into a record buffer */
static uint8_t *st16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	return p + 2;
}

static uint8_t *st32(uint8_t *p, uint32_t v)
{
	p = st16(p, v);
	return st16(p, v >> 16);
}

static uint8_t *st64(uint8_t *p, uint64_t v)
{
	p = st32(p, v);
	return st32(p, v >> 32);
}

static uint8_t *st_hdr(uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	p = st32(p, type);
	p = st16(p, misc);
	return st16(p, size);
}

/* NUL-terminated, zero-padded to 8 bytes; returns the padded length */
static size_t pad_str(uint8_t *p, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + 7) & ~(size_t)7;

	memset(p, 0, len);
	memcpy(p, s, n - 1);
	return len;
}

static void write_attr(uint8_t *p, uint64_t freq)
{
	memset(p, 0, ATTR_SIZE);
	st32(p, ATTR_TYPE_SOFTWARE);
	st32(p + 4, ATTR_SIZE);
	st64(p + 8, SW_CPU_CLOCK);
	st64(p + 16, freq);
	st64(p + 24, SAMPLE_TYPE);
	st64(p + 40, ATTR_FLAGS);
	st16(p + 108, 127);		/* sample_max_stack */
}

static uint32_t cache_geom[3];	/* -C: sets, ways, line; 0 = no CACHE feature */
static uint8_t mod_bid[20];	/* -B: the module's build-id */
static size_t mod_bid_len;	/* 0: no BUILD_ID feature */

/* a perf string: u32 length, the bytes NUL-padded to 64 */
static uint8_t *st_str(uint8_t *p, const char *s)
{
	p = st32(p, 64);
	memset(p, 0, 64);
	memcpy(p, s, strlen(s));
	return p + 64;
}

/* HEADER_CACHE version 1: L1 Data, L1 Instruction; returns its size */
static size_t write_cache(uint8_t *buf)
{
	static const char *const types[2] = { "Data", "Instruction" };
	uint8_t *p = buf;
	char size[32];
	int i;

	snprintf(size, sizeof(size), "%lluK",
		 (unsigned long long)cache_geom[0] * cache_geom[1] * cache_geom[2] / 1024);
	p = st32(p, 1);
	p = st32(p, 2);
	for (i = 0; i < 2; i++) {
		p = st32(p, 1);
		p = st32(p, cache_geom[2]);
		p = st32(p, cache_geom[0]);
		p = st32(p, cache_geom[1]);
		p = st_str(p, types[i]);
		p = st_str(p, size);
		p = st_str(p, "0-1");
	}
	return p - buf;
}

static void write_header(uint64_t attrs_off, uint64_t data_off, uint64_t data_size)
{
	uint8_t h[FILE_HEADER_SIZE] = MAGIC_V2;

	st64(h + 8, FILE_HEADER_SIZE);
	st64(h + 16, ATTR_SIZE + 16);
	st64(h + 24, attrs_off);
	st64(h + 32, ATTR_SIZE + 16);
	st64(h + 40, data_off);
	st64(h + 48, data_size);
	/* 56: event_types, unused */
	st64(h + 72, 1ULL << FEAT_EVENT_DESC | (cache_geom[0] ? 1ULL << FEAT_CACHE : 0) |
		     (mod_bid_len ? 1ULL << FEAT_BUILD_ID : 0));
	put(h, sizeof(h));
}

/* A kernel MMAP as perf synthesizes it: pid -1, a zero trailer. */
static void write_kmap(const char *name, uint64_t start, uint64_t len, uint64_t pgoff)
{
	uint8_t rec[40 + 4096 + TRAILER_SIZE], *p;
	size_t n;

	if (strlen(name) >= 4000)
		die("map name too long");
	n = pad_str(rec + 40, name);
	p = st_hdr(rec, REC_MMAP, CPUMODE_KERNEL, 40 + n + TRAILER_SIZE);
	p = st32(p, UINT32_MAX);	/* pid -1: the kernel */
	p = st32(p, 0);
	p = st64(p, start);
	p = st64(p, len);
	st64(p, pgoff);
	memset(rec + 40 + n, 0, TRAILER_SIZE);
	put(rec, 40 + n + TRAILER_SIZE);
}

/* A module's text: its length, and where samples hit it (offsets, in turn). */
#define MOD_LEN 0x4000
static const uint64_t mod_offs[] = { 0x40, 0x44, 0x40, 0x1080, 0x3ffc };

static void write_comm(uint32_t pid, const char *comm)
{
	uint8_t rec[64 + TRAILER_SIZE], *p;
	size_t n = pad_str(rec + 16, comm);

	p = st_hdr(rec, REC_COMM, 0, 16 + n + TRAILER_SIZE);
	p = st32(p, pid);
	st32(p, pid);
	memset(rec + 16 + n, 0, TRAILER_SIZE);
	p = rec + 16 + n;
	p = st32(p, pid);
	st32(p, pid);
	put(rec, 16 + n + TRAILER_SIZE);
}

static void write_event_desc(uint64_t freq, const uint64_t *ids, unsigned int nr_ids)
{
	uint8_t buf[8 + ATTR_SIZE + 4 + 4 + 64 + 8 * 64], *p = buf;
	unsigned int i;

	p = st32(p, 1);
	p = st32(p, ATTR_SIZE);
	write_attr(p, freq);
	p += ATTR_SIZE;
	p = st32(p, nr_ids);
	p = st32(p, 64);		/* the name, NUL-padded to 64 as perf does */
	memset(p, 0, 64);
	memcpy(p, "cpu-clock", 9);
	p += 64;
	for (i = 0; i < nr_ids; i++)
		p = st64(p, ids[i]);
	put(buf, p - buf);
}

static int usable(const struct cachepin_binary *bin, const struct cachepin_func *f)
{
	if (f->size < 8)
		return 0;
	if (f->sec < 0 || (size_t)f->sec >= bin->nr_secs || !bin->secs[f->sec].exec)
		return 0;
	return 1;
}

/* Return address of the call from node C to node E: fixed per pair. */
static uint64_t call_site(const struct cachepin_binary *bin, const struct node *nodes,
			  uint32_t c, uint32_t e, uint64_t seed)
{
	const struct cachepin_func *f = &bin->funcs[nodes[c].func];
	uint64_t s = seed ^ ((uint64_t)c << 32 | e);

	return f->addr + 4 + 4 * below(&s, f->size / 4 - 1);
}

int main(int argc, char **argv)
{
	const char *usage =
		"usage: perf-synth [-n SAMPLES] [-s SEED] [-c CPUS] [-z EXPONENT] [-C SETS:WAYS:LINE] [-m MODULE@ADDR [-B BUILD-ID]] [-v] VMLINUX OUT\n";
	const char *mod_name = NULL;
	char kname[64];
	uint64_t mod_addr = 0, mod_samples = 0;
	uint64_t nr_samples = 1000000, seed = 1, rng, t, ids[64], ref, end = 0;
	uint64_t ids_off, attrs_off, data_off, data_end, hist[MAX_CALLERS + 1] = { 0 };
	unsigned int ncpus = 2, i, verbose = 0, proc_total = 0;
	struct cachepin_binary *bin;
	const char *ref_sym = "_text";
	struct node *nodes;
	uint32_t *hot, nr = 0;
	double *cdf, sum = 0, zipf = 1.1;
	uint8_t attr[ATTR_SIZE + 16], rec[8 * (16 + MAX_CALLERS)], cbuf[512];
	char junk;
	size_t fi;
	uint64_t k;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:c:z:C:m:B:v")) != -1) {
		char *e;

		switch (opt) {
		case 'n':
			nr_samples = strtoull(optarg, &e, 0);
			if (*e || !*optarg)
				die("bad sample count '%s'", optarg);
			break;
		case 's':
			seed = strtoull(optarg, &e, 0);
			if (*e || !*optarg)
				die("bad seed '%s'", optarg);
			break;
		case 'c':
			ncpus = strtoul(optarg, &e, 0);
			if (*e || !ncpus || ncpus > 64)
				die("bad cpu count '%s' (1 to 64)", optarg);
			break;
		case 'z':
			zipf = strtod(optarg, &e);
			if (*e || !*optarg || !(zipf > 0 && zipf < 10))
				die("bad exponent '%s' (0 to 10)", optarg);
			break;
		case 'C':
			if (sscanf(optarg, "%u:%u:%u%c", &cache_geom[0], &cache_geom[1], &cache_geom[2],
				   &junk) != 3 || !cache_geom[0])
				die("bad cache '%s' (SETS:WAYS:LINE)", optarg);
			break;
		case 'm': {
			char *at = strrchr(optarg, '@');

			if (!at || at == optarg)
				die("bad module '%s' (NAME@ADDR)", optarg);
			*at = '\0';
			mod_addr = strtoull(at + 1, &e, 0);
			if (*e || !at[1] || mod_addr % 4096)
				die("bad module address '%s' (a page)", at + 1);
			mod_name = optarg;
			break;
		}
		case 'B':
			for (mod_bid_len = 0; optarg[2 * mod_bid_len] && mod_bid_len < 20; mod_bid_len++)
				if (sscanf(optarg + 2 * mod_bid_len, "%2hhx", &mod_bid[mod_bid_len]) != 1)
					die("bad build-id '%s' (hex)", optarg);
			if (!mod_bid_len || optarg[2 * mod_bid_len])
				die("bad build-id '%s' (1 to 20 bytes of hex)", optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fputs(usage, stderr);
			return 129;
		}
	}
	if (optind + 2 != argc || (mod_bid_len && !mod_name)) {
		fputs(usage, stderr);
		return 129;
	}
	out_path = argv[optind + 1];

	bin = cachepin_binary__open(argv[optind]);
	if (!bin)
		return 1;
	if (cachepin_binary__sym_value(bin, ref_sym, &ref)) {
		ref_sym = "_stext";
		if (cachepin_binary__sym_value(bin, ref_sym, &ref))
			die("'%s': no _text or _stext symbol\nhint: pass a kernel image (vmlinux)",
			    argv[optind]);
	}

	/* the functions samples may hit, as tree nodes */
	nodes = calloc(bin->nr_funcs + 1, sizeof(*nodes));
	hot = calloc(bin->nr_funcs + 1, sizeof(*hot));
	cdf = calloc(bin->nr_funcs + 1, sizeof(*cdf));
	if (!nodes || !hot || !cdf)
		die("out of memory");
	for (fi = 0; fi < bin->nr_funcs; fi++) {
		const struct cachepin_func *f = &bin->funcs[fi];

		if (!usable(bin, f) || f->addr < ref)
			continue;
		nodes[nr++].func = fi;
		if (f->addr + f->size > end)
			end = f->addr + f->size;
	}
	if (nr < MIN_CALLERS + 2)
		die("'%s': only %u functions of 8 bytes or more", argv[optind], nr);

	/*
	 * The call tree: nodes in a shuffled order; the first three are the
	 * entry path (each calls the next), every later one is called by two
	 * random nodes before it, but not by the first two, so every node
	 * but the entry path has at least MIN_CALLERS ancestors.
	 */
	rng = seed * 0x2545f4914f6cdd1dULL + 1;
	for (i = nr - 1; i > 0; i--) {
		uint32_t j = below(&rng, i + 1);
		size_t tmp = nodes[i].func;

		nodes[i].func = nodes[j].func;
		nodes[j].func = tmp;
	}
	for (i = 0; i < nr; i++) {
		const struct cachepin_func *f = &bin->funcs[nodes[i].func];
		unsigned int w;

		for (w = 0; w < 2; w++) {
			if (i == 0)
				nodes[i].parent[w] = UINT32_MAX;
			else if (i < MIN_CALLERS)
				nodes[i].parent[w] = i - 1;
			else
				nodes[i].parent[w] = 2 + below(&rng, i - 2);
			nodes[i].hot_off[w] = 4 * below(&rng, f->size / 4);
		}
	}

	/* hotness: Zipf over another shuffle of the nodes past the entry path */
	for (i = 0; i < nr - MIN_CALLERS; i++)
		hot[i] = i + MIN_CALLERS;
	for (i = nr - MIN_CALLERS - 1; i > 0; i--) {
		uint32_t j = below(&rng, i + 1), tmp = hot[i];

		hot[i] = hot[j];
		hot[j] = tmp;
	}
	for (i = 0; i < nr - MIN_CALLERS; i++) {
		sum += 1.0 / pow(i + 1, zipf);
		cdf[i] = sum;
	}

	out = fopen(out_path, "wb");
	if (!out)
		die("cannot create '%s': %s", out_path, strerror(errno));
	setvbuf(out, NULL, _IOFBF, 1 << 20);

	/* header, ids, the attr (with its ids section), then the data */
	ids_off = FILE_HEADER_SIZE;
	attrs_off = ids_off + 8 * ncpus;
	data_off = attrs_off + sizeof(attr);
	write_header(attrs_off, data_off, 0);
	for (i = 0; i < ncpus; i++) {
		ids[i] = 1000 + i;
		st64(rec, ids[i]);
		put(rec, 8);
	}
	write_attr(attr, 1000000000 / PERIOD);
	st64(attr + ATTR_SIZE, ids_off);
	st64(attr + ATTR_SIZE + 8, 8 * ncpus);
	put(attr, sizeof(attr));

	/* the kernel's map: its pgoff is the runtime address of the reference symbol */
	snprintf(kname, sizeof(kname), KALLSYMS "%s", ref_sym);
	write_kmap(kname, ref, ((end + 0xfff) & ~0xfffULL) - ref, ref);
	if (mod_name)
		write_kmap(mod_name, mod_addr, MOD_LEN, 0);
	for (i = 0; i < NR_PROCS; i++) {
		write_comm(procs[i].pid, procs[i].comm);
		proc_total += procs[i].weight;
	}

	t = 100ULL * 1000000000;
	for (k = 0; k < nr_samples; k++) {
		double u = (splitmix(&rng) >> 11) * (1.0 / 9007199254740992.0) * sum;
		uint32_t lo = 0, hi = nr - MIN_CALLERS - 1, leaf, n, c, w, callers;
		const struct cachepin_func *f;
		unsigned int cpu = k % ncpus, pw;
		const struct proc *pr = procs;
		uint64_t ip, r = splitmix(&rng);
		uint8_t *p;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		leaf = hot[lo];
		f = &bin->funcs[nodes[leaf].func];
		if (r & 1)
			ip = f->addr + nodes[leaf].hot_off[(r >> 1) & 1];
		else
			ip = f->addr + 4 * ((r >> 2) % (f->size / 4));
		if (mod_name && k % 8 == 7) {
			/* in the module, called where the entry path's first function calls its second */
			ip = mod_addr + mod_offs[(k / 8) % (sizeof(mod_offs) / sizeof(mod_offs[0]))];
			leaf = 1;
			mod_samples++;
		}
		r = splitmix(&rng);
		callers = MIN_CALLERS + r % (MAX_CALLERS - MIN_CALLERS + 1);
		r /= MAX_CALLERS - MIN_CALLERS + 1;
		pw = r % proc_total;
		r /= proc_total;
		while (pw >= pr->weight) {
			pw -= pr->weight;
			pr++;
		}

		p = rec + 8;
		p = st64(p, ip);
		p = st32(p, pr->pid);
		p = st32(p, pr->pid);
		p = st64(p, t);
		p = st64(p, ids[cpu]);
		p = st32(p, cpu);
		p = st32(p, 0);
		p = st64(p, PERIOD);
		p += 8;				/* nr, below */
		p = st64(p, CTX_KERNEL);
		p = st64(p, ip);
		n = 2;
		/* the leaf's own caller is its second one a quarter of the time */
		w = (r & 3) == 0;
		for (c = leaf; n < 2 + callers && nodes[c].parent[w] != UINT32_MAX; n++) {
			uint32_t up = nodes[c].parent[w];

			p = st64(p, call_site(bin, nodes, up, c, seed));
			c = up;
			w = 0;
		}
		hist[n - 2]++;
		st64(rec + 8 + 6 * 8, n);
		st_hdr(rec, REC_SAMPLE, CPUMODE_KERNEL, p - rec);
		put(rec, p - rec);
		t += PERIOD / ncpus;

		if ((k + 1) % ROUND == 0 || k + 1 == nr_samples) {
			st_hdr(rec, REC_FINISHED_ROUND, 0, 8);
			put(rec, 8);
		}
	}
	data_end = written;

	/* feature table (an entry per bit, in bit order), then the sections */
	{
		uint64_t desc = 8 + ATTR_SIZE + 8 + 64 + 8 * ncpus;
		uint64_t nfeat = 1 + !!cache_geom[0] + !!mod_bid_len, at = data_end + 16 * nfeat;
		size_t csize = cache_geom[0] ? write_cache(cbuf) : 0;
		uint8_t bid[36 + 256];
		size_t bsize = 0;

		if (mod_bid_len) {	/* the module's build_id record */
			size_t n = strlen(mod_name) + 1;

			if (n > 256)
				die("module name '%s' too long", mod_name);
			bsize = 36 + (n + 7) / 8 * 8;
			memset(bid, 0, sizeof(bid));
			st_hdr(bid, 0, 1 | MISC_BUILD_ID_SIZE, (uint16_t)bsize);	/* misc: kernel */
			st32(bid + 8, UINT32_MAX);
			memcpy(bid + 12, mod_bid, mod_bid_len);
			bid[32] = (uint8_t)mod_bid_len;
			memcpy(bid + 36, mod_name, n);
			st64(rec, at);
			st64(rec + 8, bsize);
			put(rec, 16);
			at += bsize;
		}
		st64(rec, at);
		st64(rec + 8, desc);
		put(rec, 16);
		at += desc;
		if (csize) {
			st64(rec, at);
			st64(rec + 8, csize);
			put(rec, 16);
		}
		if (bsize)
			put(bid, bsize);
		write_event_desc(1000000000 / PERIOD, ids, ncpus);
		if (csize)
			put(cbuf, csize);
	}

	if (fseeko(out, 0, SEEK_SET))
		die("cannot seek '%s': %s", out_path, strerror(errno));
	write_header(attrs_off, data_off, data_end - data_off);
	if (fclose(out))
		die("cannot write '%s': %s", out_path, strerror(errno));

	if (verbose) {
		fprintf(stderr, "perf-synth: %" PRIu64 " samples on %u of %zu functions, "
			"%" PRIu64 " bytes of data, kernel %s at %#" PRIx64 "\n",
			nr_samples, nr, bin->nr_funcs, data_end - data_off, ref_sym, ref);
		if (mod_name)
			fprintf(stderr, "perf-synth: %" PRIu64 " samples in '%s' at %#" PRIx64 "\n",
				mod_samples, mod_name, mod_addr);
		fprintf(stderr, "perf-synth: callers per sample:");
		for (i = 0; i <= MAX_CALLERS; i++)
			if (hist[i])
				fprintf(stderr, " %u:%" PRIu64, i, hist[i]);
		fputc('\n', stderr);
	}
	free(nodes);
	free(hot);
	free(cdf);
	cachepin_binary__free(bin);
	return 0;
}
