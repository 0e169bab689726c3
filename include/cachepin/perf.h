/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Native perf.data reader: file and pipe mode, either byte order,
 * zstd-compressed records.  No dependency on the perf binary.
 */
#ifndef CACHEPIN_PERF_H
#define CACHEPIN_PERF_H

#include "cachepin/sample.h"

struct cachepin_perf;

struct cachepin_perf_buildid {
	char *name;		/* "[kernel.kallsyms]", module or file path */
	uint8_t id[20];
	uint8_t size;
};

struct cachepin_perf_kmap {
	char *name;		/* "[kernel.kallsyms]_text" or a module name/path */
	uint64_t start, len, pgoff;
};

/* One cache of the recording machine (HEADER_CACHE, from sysfs cpu0 first). */
struct cachepin_perf_cache {
	uint32_t level, line, sets, ways;
	char *type;		/* "Instruction", "Data", "Unified" */
	char *size;		/* as sysfs says it: "32K" */
};

struct cachepin_perf_meta {
	bool big_endian, pipe, compressed;
	char *event;		/* name of the first sampling event, or NULL */
	char *arch, *osrelease, *hostname;
	uint64_t nr_samples;	/* samples delivered */
	uint64_t period_sum;	/* sum of their periods */
	uint64_t nr_lost;	/* from LOST / LOST_SAMPLES records */
	/*
	 * Kernel image reference: the suffix of "[kernel.kallsyms]<sym>"
	 * ("_text", "_stext") and its runtime address (MMAP pgoff); 0 if
	 * the producer hid it (kptr_restrict).
	 */
	char *kernel_ref_sym;
	uint64_t kernel_ref_addr;
	bool has_kernel_map;
	struct cachepin_perf_kmap *kmaps;	/* kernel and module maps */
	size_t nr_kmaps;
	struct cachepin_perf_buildid *buildids;
	size_t nr_buildids;
	struct cachepin_perf_cache *caches;	/* HEADER_CACHE, in perf's order */
	size_t nr_caches;
};

/*
 * The recording machine's L1 instruction cache from HEADER_CACHE (the
 * first level-1 "Instruction" entry), or NULL if the file has none.
 */
const struct cachepin_perf_cache *cachepin_perf_meta__l1i(const struct cachepin_perf_meta *m);

/*
 * Open PATH ("-" for standard input, which must be pipe mode).  Returns
 * a reader to be released with cachepin_perf__free(), or NULL with errno
 * set after logging "'PATH': <problem>".
 */
struct cachepin_perf *cachepin_perf__open(const char *path);

/*
 * Read all records, calling FN for every sample.  Header features and
 * metadata records are absorbed into the meta data.  Returns 0, FN's
 * non-zero value, or a negative errno after logging the file and the
 * offset of the problem (truncated file, bad record size, bad zstd).
 */
int cachepin_perf__for_each_sample(struct cachepin_perf *p,
				   cachepin_sample_fn_t fn, void *ctx);

/* Metadata; complete after cachepin_perf__for_each_sample(). */
const struct cachepin_perf_meta *cachepin_perf__meta(const struct cachepin_perf *p);

void cachepin_perf__free(struct cachepin_perf *p);

#endif
