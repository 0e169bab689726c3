// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Native perf.data reader: file and pipe mode, little- and big-endian
 * producers, zstd-compressed records (COMPRESSED and COMPRESSED2).
 *
 * The file is mapped (or, for standard input, read into memory) and
 * walked once per cachepin_perf__for_each_sample() call.  Every field is
 * loaded with an explicit byte order; every variable-length part of a
 * record is checked against the record size before it is used.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uthash.h>
#include <zstd.h>
#include "cachepin/perf.h"
#include "internal.h"
#include "kernel.h"

#include "perf-format.h"

/* perf's stop value for callbacks, distinct from any errno */
#define WALK_STOP		1

struct perf_attr {
	uint64_t sample_type, read_format, flags, sample_period;
	uint64_t branch_sample_type;
	unsigned int nr_regs_user, nr_regs_intr;
	char *name;
};

struct perf_id {
	uint64_t id;
	size_t attr;
	UT_hash_handle hh;
};

/*
 * A user map, valid from TIME on; from DEAD on, a newer map overlaps it
 * somewhere (the lookup then compares candidates).  Records are not
 * time-ordered across CPUs, so maps are collected in a first pass over
 * the file and matched to samples by time, as perf does after sorting.
 */
struct perf_map {
	uint64_t start, end, pgoff;
	uint64_t time, dead;
	size_t seq;		/* file order, breaks ties of time */
	char *name;
};

/* Is map (or fork) A older than B: by time, then by file order. */
#define OLDER(a, b) ((a)->time < (b)->time || ((a)->time == (b)->time && (a)->seq < (b)->seq))

#define PROC_HOT 4

struct perf_fork {
	uint32_t pid, ppid;
	uint64_t time;
	size_t seq;
};

struct perf_proc {
	uint32_t pid;
	struct perf_map *maps;
	size_t nr, cap;
	size_t hot[PROC_HOT];	/* recently hit maps */
	unsigned int hot_next;
	UT_hash_handle hh;
};

struct cachepin_perf {
	char *path;
	const uint8_t *buf;
	size_t len;
	bool mapped;
	bool be;

	uint64_t data_off, data_end;	/* record stream [data_off, data_end) */

	struct perf_attr *attrs;
	size_t nr_attrs, cap_attrs, nr_file_attrs;
	struct perf_id *ids;
	uint64_t id_cache_id;
	size_t id_cache_attr;
	bool id_cache_valid;
	int id_pos, is_pos;		/* perf's positions, from attrs[0] */
	bool ids_identifier;

	struct perf_proc *procs;
	struct perf_proc *last_proc;
	struct perf_fork *forks;
	size_t nr_forks, cap_forks;
	size_t seq;			/* map and fork records seen */
	ssize_t kernel_idx;		/* into meta.kmaps, -1 if none */
	uint64_t mod_lo, mod_hi;	/* bounding box of module maps */
	size_t kmap_last;
	size_t cap_kmaps, cap_buildids, cap_caches;

	struct cachepin_frame *frames;
	size_t cap_frames;

	ZSTD_DCtx *zctx;
	uint8_t *zbuf;
	size_t zlen, zcap;

	bool stopped;
	int stop_val;
	ssize_t first_attr;		/* attr of the first sample */
	int pass;			/* 1: metadata records, 2: samples */
	bool meta_done;

	struct cachepin_perf_meta meta;
};

static inline uint16_t ld16(const struct cachepin_perf *p, const uint8_t *q)
{
	return get_u16(q, p->be);
}

static inline uint32_t ld32(const struct cachepin_perf *p, const uint8_t *q)
{
	return get_u32(q, p->be);
}

static inline uint64_t ld64(const struct cachepin_perf *p, const uint8_t *q)
{
	uint64_t v;

	if (!p->be) {
		memcpy(&v, q, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		return v;
#else
		return __builtin_bswap64(v);
#endif
	}
	return get_u64(q, true);
}

static uint64_t bitreverse64(uint64_t v)
{
	uint64_t r = 0;
	int i;

	for (i = 0; i < 64; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

/* Copy a perf "string" (u32 len + NUL-padded bytes) at q; *adv gets its size. */
static char *perf_string(const struct cachepin_perf *p, const uint8_t *q,
			 size_t avail, size_t *adv)
{
	uint32_t n;
	char *s;

	if (avail < 4)
		return NULL;
	n = ld32(p, q);
	if (n > avail - 4)
		return NULL;
	s = strndup((const char *)q + 4, n);
	if (s && adv)
		*adv = 4 + (size_t)n;
	return s;
}

/*
 * Decode a perf_event_attr of AVAIL bytes at Q, honouring its own size
 * field: read what it covers, treat the rest as zero.
 */
static void attr_decode(const struct cachepin_perf *p, const uint8_t *q,
			size_t avail, struct perf_attr *a)
{
	uint8_t raw[ATTR_SIZE_VER8];
	uint32_t size;
	size_t n;

	memset(raw, 0, sizeof(raw));
	size = avail >= 8 ? ld32(p, q + 4) : 0;
	if (size == 0)
		size = ATTR_SIZE_VER0;
	n = size < avail ? size : avail;
	if (n > sizeof(raw))
		n = sizeof(raw);
	memcpy(raw, q, n);

	memset(a, 0, sizeof(*a));
	a->sample_period = ld64(p, raw + 16);
	a->sample_type = ld64(p, raw + 24);
	a->read_format = ld64(p, raw + 32);
	a->flags = ld64(p, raw + 40);
	/* big-endian compilers allocate bitfields from the most significant bit */
	if (p->be)
		a->flags = bitreverse64(a->flags);
	a->branch_sample_type = ld64(p, raw + 72);
	a->nr_regs_user = __builtin_popcountll(ld64(p, raw + 80));
	a->nr_regs_intr = __builtin_popcountll(ld64(p, raw + 96));
}

static int perf_add_attr(struct cachepin_perf *p, const struct perf_attr *a)
{
	if (GROW(p->attrs, p->cap_attrs, p->nr_attrs + 1))
		return -ENOMEM;
	p->attrs[p->nr_attrs++] = *a;
	if (p->nr_attrs == 1) {
		uint64_t st = a->sample_type;

		p->ids_identifier = st & ST_IDENTIFIER;
		p->id_pos = !!(st & ST_IP) + !!(st & ST_TID) + !!(st & ST_TIME) +
			    !!(st & ST_ADDR);
		p->is_pos = 1 + !!(st & ST_CPU) + !!(st & ST_STREAM_ID);
	}
	return 0;
}

static int perf_add_id(struct cachepin_perf *p, uint64_t id, size_t attr)
{
	struct perf_id *e;

	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	if (e) {
		e->attr = attr;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->id = id;
	e->attr = attr;
	HASH_ADD(hh, p->ids, id, sizeof(e->id), e);
	p->id_cache_valid = false;
	return 0;
}

static struct perf_attr *perf_attr_by_id(struct cachepin_perf *p, uint64_t id)
{
	struct perf_id *e;

	if (p->id_cache_valid && p->id_cache_id == id)
		return &p->attrs[p->id_cache_attr];
	HASH_FIND(hh, p->ids, &id, sizeof(id), e);
	if (!e)
		return &p->attrs[0];
	p->id_cache_valid = true;
	p->id_cache_id = id;
	p->id_cache_attr = e->attr;
	return &p->attrs[e->attr];
}

/* ---- maps ---------------------------------------------------------------- */

static struct perf_proc *proc_find(struct cachepin_perf *p, uint32_t pid, bool create)
{
	struct perf_proc *pr;

	if (p->last_proc && p->last_proc->pid == pid)
		return p->last_proc;
	HASH_FIND(hh, p->procs, &pid, sizeof(pid), pr);
	if (!pr && create) {
		pr = calloc(1, sizeof(*pr));
		if (!pr)
			return NULL;
		pr->pid = pid;
		HASH_ADD(hh, p->procs, pid, sizeof(pr->pid), pr);
	}
	if (pr)
		p->last_proc = pr;
	return pr;
}

static int proc_add_map(struct perf_proc *pr, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *name, uint64_t time, size_t seq)
{
	struct perf_map *m;

	if (GROW(pr->maps, pr->cap, pr->nr + 1))
		return -ENOMEM;
	m = &pr->maps[pr->nr];
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	m->start = start;
	m->end = start + len < start ? UINT64_MAX : start + len;
	m->pgoff = pgoff;
	m->time = time;
	m->seq = seq;
	m->dead = UINT64_MAX;
	pr->nr++;
	return 0;
}

static void proc_clear(struct perf_proc *pr)
{
	size_t i;

	for (i = 0; i < pr->nr; i++)
		free(pr->maps[i].name);
	pr->nr = 0;
}

static void perf_free_procs(struct cachepin_perf *p)
{
	struct perf_proc *pr, *tmp;

	HASH_ITER(hh, p->procs, pr, tmp) {
		HASH_DEL(p->procs, pr);
		proc_clear(pr);
		free(pr->maps);
		free(pr);
	}
	p->last_proc = NULL;
}

/* After the first pass: when does a newer overlapping map shadow each map? */
static void proc_settle(struct perf_proc *pr)
{
	size_t i, j;

	for (i = 0; i < pr->nr; i++) {
		struct perf_map *m = &pr->maps[i];

		m->dead = UINT64_MAX;
		for (j = 0; j < pr->nr; j++) {
			const struct perf_map *n = &pr->maps[j];

			if (j == i || n->start >= m->end || n->end <= m->start)
				continue;
			if (OLDER(m, n)) {
				if (n->time < m->dead)
					m->dead = n->time;
			}
		}
	}
	for (i = 0; i < PROC_HOT; i++)
		pr->hot[i] = SIZE_MAX;
}

/* The newest map that covers IP at time T. */
static const struct perf_map *proc_lookup(struct perf_proc *pr, uint64_t ip, uint64_t t)
{
	const struct perf_map *m, *best = NULL;
	size_t i, bi = 0;

	for (i = 0; i < PROC_HOT; i++) {
		if (pr->hot[i] >= pr->nr)
			continue;
		m = &pr->maps[pr->hot[i]];
		if (ip >= m->start && ip < m->end && m->time <= t && t < m->dead)
			return m;
	}
	for (i = 0; i < pr->nr; i++) {
		m = &pr->maps[i];
		if (ip < m->start || ip >= m->end || m->time > t)
			continue;
		if (!best || OLDER(best, m)) {
			best = m;
			bi = i;
		}
	}
	if (best) {
		pr->hot[pr->hot_next] = bi;
		pr->hot_next = (pr->hot_next + 1) % PROC_HOT;
	}
	return best;
}

static int perf_add_kmap(struct cachepin_perf *p, const char *name, uint64_t start,
			 uint64_t len, uint64_t pgoff)
{
	struct cachepin_perf_meta *meta = &p->meta;
	struct cachepin_perf_kmap *k;
	const char *ref = cachepin_kernel_mmap_ref(name);

	if (GROW(meta->kmaps, p->cap_kmaps, meta->nr_kmaps + 1))
		return -ENOMEM;
	k = &meta->kmaps[meta->nr_kmaps];
	k->name = strdup(name);
	if (!k->name)
		return -ENOMEM;
	k->start = start;
	k->len = len;
	k->pgoff = pgoff;
	if (ref) {
		free(meta->kernel_ref_sym);
		meta->kernel_ref_sym = strdup(ref);
		if (!meta->kernel_ref_sym)
			return -ENOMEM;
		meta->kernel_ref_addr = pgoff;
		meta->has_kernel_map = true;
		p->kernel_idx = meta->nr_kmaps;
	} else {
		uint64_t end = start + len < start ? UINT64_MAX : start + len;

		if (p->mod_lo == p->mod_hi) {
			p->mod_lo = start;
			p->mod_hi = end;
		} else {
			if (start < p->mod_lo)
				p->mod_lo = start;
			if (end > p->mod_hi)
				p->mod_hi = end;
		}
	}
	meta->nr_kmaps++;
	return 0;
}

/*
 * The dso of kernel address IP: a module's map (its name, and into *MOD
 * the map, whose start is the module text's), the kernel image
 * (KALLSYMS, *MOD NULL), or NULL.
 */
static const char *perf_kernel_dso(struct cachepin_perf *p, uint64_t ip,
				   const struct cachepin_perf_kmap **mod)
{
	const struct cachepin_perf_meta *meta = &p->meta;
	const struct cachepin_perf_kmap *k;
	size_t i;

	*mod = NULL;
	if (ip >= p->mod_lo && ip < p->mod_hi) {
		k = &meta->kmaps[p->kmap_last < meta->nr_kmaps ? p->kmap_last : 0];
		if ((ssize_t)p->kmap_last != p->kernel_idx &&
		    ip >= k->start && ip - k->start < k->len) {
			*mod = k;
			return k->name;
		}
		for (i = 0; i < meta->nr_kmaps; i++) {
			k = &meta->kmaps[i];
			if ((ssize_t)i == p->kernel_idx)
				continue;
			if (ip >= k->start && ip - k->start < k->len) {
				p->kmap_last = i;
				*mod = k;
				return k->name;
			}
		}
	}
	if (p->kernel_idx < 0)
		return KALLSYMS;
	k = &meta->kmaps[p->kernel_idx];
	/* old ARM kernels record a length up to the end of the address space */
	if (ip >= k->start && ip - k->start < k->len)
		return KALLSYMS;
	return NULL;
}

static bool ctx_known(uint64_t v)
{
	return v == CTX_HV || v == CTX_KERNEL || v == CTX_USER || v == CTX_USER_DEFERRED ||
	       v == CTX_GUEST || v == CTX_GUEST_KERNEL || v == CTX_GUEST_USER;
}

/* ---- errors ---------------------------------------------------------------- */

static int perf_truncated(struct cachepin_perf *p, uint64_t off, uint64_t need,
			  uint64_t have)
{
	pr_warn("'%s': truncated record at offset 0x%" PRIx64 " (need %" PRIu64
		" bytes, have %" PRIu64 ")\n", p->path, off, need, have);
	return -EINVAL;
}

/* ---- samples --------------------------------------------------------------- */

/* The attr of a non-sample record, from its sample_id_all trailer. */
static struct perf_attr *perf_record_attr(struct cachepin_perf *p, const uint8_t *rec,
					  uint16_t size)
{
	const struct perf_attr *a0;
	size_t back;

	if (!p->nr_attrs)
		return NULL;	/* pipe mode, before any HEADER_ATTR: no attrs array yet */
	a0 = &p->attrs[0];
	if (p->nr_attrs == 1 || !(a0->flags & AF_SAMPLE_ID_ALL))
		return &p->attrs[0];
	if (p->ids_identifier)
		back = 1;
	else if (a0->sample_type & ST_ID)
		back = p->is_pos;
	else
		return &p->attrs[0];
	if (8 * back > (size_t)size - 8)
		return &p->attrs[0];
	return perf_attr_by_id(p, ld64(p, rec + size - 8 * back));
}

/* The TIME of a non-sample record from its trailer, or 0. */
static uint64_t trailer_time(const struct cachepin_perf *p, const struct perf_attr *a,
			     const uint8_t *rec, uint16_t size)
{
	uint64_t st = a ? a->sample_type : 0;
	size_t back;

	if (!a || !(a->flags & AF_SAMPLE_ID_ALL) || !(st & ST_TIME))
		return 0;
	back = 1 + !!(st & ST_IDENTIFIER) + !!(st & ST_CPU) + !!(st & ST_STREAM_ID) +
	       !!(st & ST_ID);
	if (8 * back > (size_t)size - 8)
		return 0;
	return ld64(p, rec + size - 8 * back);
}

static size_t trailer_len(const struct perf_attr *a)
{
	if (!a || !(a->flags & AF_SAMPLE_ID_ALL))
		return 0;
	return 8 * __builtin_popcountll(a->sample_type & (ST_TID | ST_TIME | ST_ID |
			ST_STREAM_ID | ST_CPU | ST_IDENTIFIER));
}

/*
 * One PERF_RECORD_SAMPLE, decoded (perf's struct perf_sample, which
 * evsel__parse_sample() fills).  A field the attr's sample_type lacks
 * keeps its default: zero, TIME all ones, PERIOD the attr's.  The
 * pointers point into the record, at data in the file's byte order.
 */
struct perf_sample {
	const struct perf_attr *attr;
	uint16_t misc;
	bool has_ip, has_period;
	uint64_t ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t read_nr;		/* counters: group members, or 1 */
	const uint8_t *read;		/* the block, laid out by read_format */
	uint64_t nr_chain;
	const uint8_t *chain;		/* nr_chain u64, context markers included */
	uint32_t raw_size;
	const uint8_t *raw;
	uint64_t nr_branch, branch_hw_idx;
	const uint8_t *branch;		/* nr_branch entries, then their counters */
	uint64_t user_abi, intr_abi;	/* 0: no registers follow */
	const uint8_t *user_regs, *intr_regs;
	uint64_t stack_size, stack_dyn_size;
	const uint8_t *stack;
	uint64_t weight, data_src, transaction;
	uint64_t phys_addr, cgroup, data_page_size, code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
};

/* A cursor over a record: a read past its end marks it short and yields zeros. */
struct rd {
	const struct cachepin_perf *p;
	const uint8_t *q, *end;
	bool bad;
};

/* Take N bytes; NULL if fewer are left. */
static const uint8_t *rd_take(struct rd *r, uint64_t n)
{
	const uint8_t *at = r->q;

	if (r->bad || (uint64_t)(r->end - r->q) < n) {
		r->bad = true;
		return NULL;
	}
	r->q += n;
	return at;
}

/* Take NR entries of SIZE bytes each (NR * SIZE may overflow). */
static const uint8_t *rd_array(struct rd *r, uint64_t nr, uint64_t size)
{
	if (r->bad || nr > (uint64_t)(r->end - r->q) / size) {
		r->bad = true;
		return NULL;
	}
	return rd_take(r, nr * size);
}

static uint64_t rd_u64(struct rd *r)
{
	const uint8_t *at = rd_take(r, 8);

	return at ? ld64(r->p, at) : 0;
}

static uint32_t rd_u32(struct rd *r)
{
	const uint8_t *at = rd_take(r, 4);

	return at ? ld32(r->p, at) : 0;
}

/* The attr of sample REC: by its id when there are several. */
static int sample_attr(struct cachepin_perf *p, const uint8_t *rec, uint16_t size,
		       uint64_t off, const struct perf_attr **a)
{
	size_t pos = p->ids_identifier ? 0 : (size_t)p->id_pos;

	if (!p->nr_attrs) {
		pr_warn("'%s': sample before any event description at offset 0x%" PRIx64 "\n",
			p->path, off);
		return -EINVAL;
	}
	if (p->nr_attrs == 1 ||
	    (!p->ids_identifier && !(p->attrs[0].sample_type & ST_ID))) {
		*a = &p->attrs[0];
		return 0;
	}
	if ((size_t)size - 8 < 8 * (pos + 1))
		return perf_truncated(p, off, 8 + 8 * (pos + 1), size);
	*a = perf_attr_by_id(p, ld64(p, rec + 8 + 8 * pos));
	return 0;
}

/* The fields before the counters: ids, ip, pid and tid, time, cpu, period. */
static void parse_head(struct rd *r, struct perf_sample *s, uint64_t st)
{
	if (st & ST_IDENTIFIER)
		s->id = rd_u64(r);
	if (st & ST_IP)
		s->ip = rd_u64(r);
	if (st & ST_TID) {
		s->pid = rd_u32(r);
		s->tid = rd_u32(r);
	}
	if (st & ST_TIME)
		s->time = rd_u64(r);
	if (st & ST_ADDR)
		s->addr = rd_u64(r);
	if (st & ST_ID)
		s->id = rd_u64(r);
	if (st & ST_STREAM_ID)
		s->stream_id = rd_u64(r);
	if (st & ST_CPU) {
		s->cpu = rd_u32(r);
		rd_u32(r);	/* reserved */
	}
	if (st & ST_PERIOD)
		s->period = rd_u64(r);
}

/* The counter values of ST_READ, one group or one counter. */
static void parse_read(struct rd *r, struct perf_sample *s)
{
	uint64_t rf = s->attr->read_format;
	uint64_t per = 1 + !!(rf & RF_ID) + !!(rf & RF_LOST);
	uint64_t hdr = !!(rf & RF_TOTAL_TIME_ENABLED) + !!(rf & RF_TOTAL_TIME_RUNNING);

	s->read = r->q;
	if (rf & RF_GROUP) {
		s->read_nr = rd_u64(r);
		rd_array(r, hdr, 8);
		rd_array(r, s->read_nr, 8 * per);
	} else {
		s->read_nr = 1;
		rd_array(r, per + hdr, 8);
	}
}

/* Callchain, raw data and branch stack. */
static void parse_chain(struct rd *r, struct perf_sample *s, uint64_t st)
{
	uint64_t bst = s->attr->branch_sample_type;

	if (st & ST_CALLCHAIN) {
		s->nr_chain = rd_u64(r);
		s->chain = rd_array(r, s->nr_chain, 8);
	}
	if (st & ST_RAW) {
		s->raw_size = rd_u32(r);
		s->raw = rd_take(r, s->raw_size);
	}
	if (st & ST_BRANCH_STACK) {
		s->nr_branch = rd_u64(r);
		if (bst & BST_HW_INDEX)
			s->branch_hw_idx = rd_u64(r);
		s->branch = rd_array(r, s->nr_branch, bst & BST_COUNTERS ? 32 : 24);
	}
}

/* Registers and user stack, weight and the other u64 extras, AUX data. */
static void parse_tail(struct rd *r, struct perf_sample *s, uint64_t st)
{
	const struct perf_attr *a = s->attr;

	if (st & ST_REGS_USER) {
		s->user_abi = rd_u64(r);
		if (s->user_abi)
			s->user_regs = rd_array(r, a->nr_regs_user, 8);
	}
	if (st & ST_STACK_USER) {
		s->stack_size = rd_u64(r);
		if (s->stack_size) {
			s->stack = rd_take(r, s->stack_size);
			s->stack_dyn_size = rd_u64(r);
		}
	}
	if (st & (ST_WEIGHT | ST_WEIGHT_STRUCT))
		s->weight = rd_u64(r);
	if (st & ST_DATA_SRC)
		s->data_src = rd_u64(r);
	if (st & ST_TRANSACTION)
		s->transaction = rd_u64(r);
	if (st & ST_REGS_INTR) {
		s->intr_abi = rd_u64(r);
		if (s->intr_abi)
			s->intr_regs = rd_array(r, a->nr_regs_intr, 8);
	}
	if (st & ST_PHYS_ADDR)
		s->phys_addr = rd_u64(r);
	if (st & ST_CGROUP)
		s->cgroup = rd_u64(r);
	if (st & ST_DATA_PAGE_SIZE)
		s->data_page_size = rd_u64(r);
	if (st & ST_CODE_PAGE_SIZE)
		s->code_page_size = rd_u64(r);
	if (st & ST_AUX) {
		s->aux_size = rd_u64(r);
		s->aux = rd_take(r, s->aux_size);
	}
}

/*
 * Decode sample REC into S (perf's evsel__parse_sample()): every field
 * its attr's sample_type names, in perf's order, each checked against
 * the record size.  Returns 0, or -EINVAL after logging the offset.
 */
static int sample_parse(struct cachepin_perf *p, const uint8_t *rec, uint16_t misc,
			uint16_t size, uint64_t off, struct perf_sample *s)
{
	struct rd r = { .p = p, .q = rec + 8, .end = rec + size };
	const struct perf_attr *a;
	uint64_t st;
	int err;

	err = sample_attr(p, rec, size, off, &a);
	if (err)
		return err;
	st = a->sample_type;
	memset(s, 0, sizeof(*s));
	s->attr = a;
	s->misc = misc;
	s->has_ip = st & ST_IP;
	s->has_period = st & ST_PERIOD;
	s->time = UINT64_MAX;
	parse_head(&r, s, st);
	if (st & ST_READ)
		parse_read(&r, s);
	parse_chain(&r, s, st);
	parse_tail(&r, s, st);
	if (r.bad) {
		pr_warn("'%s': truncated sample at offset 0x%" PRIx64
			" (%u bytes is too short for its sample_type 0x%" PRIx64 ")\n",
			p->path, off, size, st);
		return -EINVAL;
	}
	if (!s->has_period) {
		s->period = (a->flags & AF_FREQ) ? 1 : a->sample_period;
		if (!s->period)
			s->period = 1;
	}
	return 0;
}

/*
 * The frames of sample S into p->frames: the sample ip, then the
 * callchain without its context markers, each frame kernel or user by
 * the marker before it (the ip by the cpumode).  *NF gets how many, at
 * least 1.  Returns 0 or -ENOMEM.
 */
static int sample_frames(struct cachepin_perf *p, const struct perf_sample *s, size_t *nf)
{
	bool kern = (s->misc & CPUMODE_MASK) == CPUMODE_KERNEL;
	bool dup_checked = !s->has_ip;
	size_t n = 0;
	uint64_t i;

	if (s->nr_chain + 1 > p->cap_frames) {
		size_t want = s->nr_chain + 1;

		if (GROW(p->frames, p->cap_frames, want))
			return -ENOMEM;
	}
	if (s->has_ip) {
		p->frames[0].ip = s->ip;
		p->frames[0].flags = (kern ? CACHEPIN_FRAME_KERNEL : 0) | CACHEPIN_FRAME_HAS_IP;
		n = 1;
	}
	for (i = 0; i < s->nr_chain; i++) {
		uint64_t v = ld64(p, s->chain + 8 * i);

		if (v >= CTX_MAX) {
			if (!ctx_known(v))
				break;	/* perf drops such a chain; keep what we have */
			kern = v == CTX_KERNEL;
			if (v == CTX_USER_DEFERRED)
				i++;	/* the cookie */
			continue;
		}
		if (!dup_checked) {
			/* perf callchains repeat the sample ip first */
			dup_checked = true;
			if (v == s->ip)
				continue;
		}
		p->frames[n].ip = v;
		p->frames[n].flags = (kern ? CACHEPIN_FRAME_KERNEL : 0) | CACHEPIN_FRAME_HAS_IP;
		n++;
	}
	if (!n) {
		p->frames[0].ip = 0;
		p->frames[0].flags = kern ? CACHEPIN_FRAME_KERNEL : 0;
		n = 1;
	}
	*nf = n;
	return 0;
}

/*
 * Memory with no file behind it: JIT code ("//anon", which perf reads
 * symbols for from /tmp/perf-PID.map), the stack, the heap, SysV and
 * hugetlb memory.  perf maps such addresses to themselves, so its frames
 * there are the runtime address; so are ours (no file offset).
 */
static bool map_is_anon(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "[stack", 6) ||
	       !strcmp(name, "[heap]") || !strncmp(name, "/SYSV", 5);
}

/*
 * The dso of each of the NF frames of sample S: kernel frames by the
 * kernel and module maps, user frames by the maps of the sample's
 * process at its time, which also give the file offset.
 */
static void frames_resolve(struct cachepin_perf *p, const struct perf_sample *s, size_t nf)
{
	struct perf_proc *pr = NULL;
	size_t i;

	for (i = 0; i < nf; i++) {
		struct cachepin_frame *f = &p->frames[i];
		const struct perf_map *m;

		f->sym = NULL;
		f->symoff = 0;
		f->file_off = 0;
		f->dso = NULL;
		if (!(f->flags & CACHEPIN_FRAME_HAS_IP))
			continue;
		if (f->flags & CACHEPIN_FRAME_KERNEL) {
			const struct cachepin_perf_kmap *mod;

			f->dso = perf_kernel_dso(p, f->ip, &mod);
			/* a module's text is loaded page-aligned at its map's start */
			if (mod) {
				f->file_off = f->ip - mod->start;
				f->flags |= CACHEPIN_FRAME_HAS_FOFF;
			}
			continue;
		}
		if (!pr) {
			pr = proc_find(p, s->pid, false);
			if (!pr)
				continue;
		}
		m = proc_lookup(pr, f->ip, s->time);
		if (m) {
			f->dso = m->name;
			if (map_is_anon(m->name))
				continue;
			f->file_off = f->ip - m->start + m->pgoff;
			f->flags |= CACHEPIN_FRAME_HAS_FOFF;
		}
	}
}

/* Count sample S of NF frames and pass it to FN; WALK_STOP if FN says stop. */
static int sample_deliver(struct cachepin_perf *p, const struct perf_sample *s, size_t nf,
			  cachepin_sample_fn_t fn, void *ctx)
{
	struct cachepin_sample cs;
	int ret;

	if (p->first_attr < 0)
		p->first_attr = s->attr - p->attrs;
	p->meta.nr_samples++;
	p->meta.period_sum += s->period;

	cs.period = s->period;
	cs.pid = s->pid;
	cs.tid = s->tid;
	cs.nr = nf;
	cs.frames = p->frames;
	cs.event = s->attr->name;
	ret = fn ? fn(ctx, &cs) : 0;
	if (ret) {
		p->stopped = true;
		p->stop_val = ret;
		return WALK_STOP;
	}
	return 0;
}

/* A SAMPLE record: decode it, make its frames, resolve them, deliver it. */
static int perf_sample(struct cachepin_perf *p, const uint8_t *rec, uint16_t misc,
		       uint16_t size, uint64_t off,
		       cachepin_sample_fn_t fn, void *ctx)
{
	struct perf_sample s;
	size_t nf;
	int err;

	err = sample_parse(p, rec, misc, size, off, &s);
	if (err)
		return err;
	err = sample_frames(p, &s, &nf);
	if (err)
		return err;
	frames_resolve(p, &s, nf);
	return sample_deliver(p, &s, nf, fn, ctx);
}

/* ---- metadata ------------------------------------------------------------- */

static int perf_buildid(struct cachepin_perf *p, const uint8_t *q, size_t size)
{
	struct cachepin_perf_meta *meta = &p->meta;
	struct cachepin_perf_buildid *b;
	uint16_t misc = ld16(p, q + 4);

	if (size < 36)
		return 0;
	if (GROW(meta->buildids, p->cap_buildids, meta->nr_buildids + 1))
		return -ENOMEM;
	b = &meta->buildids[meta->nr_buildids];
	memcpy(b->id, q + 12, 20);
	b->size = (misc & MISC_BUILD_ID_SIZE) ? q[32] : 20;
	if (b->size > 20)
		b->size = 20;
	b->name = strndup((const char *)q + 36, size - 36);
	if (!b->name)
		return -ENOMEM;
	meta->nr_buildids++;
	return 0;
}

static int perf_set_string(struct cachepin_perf *p, char **dst, const uint8_t *q,
			   size_t len)
{
	char *s = perf_string(p, q, len, NULL);

	if (!s) {
		pr_warn("'%s': bad string in feature section, ignored\n", p->path);
		return 0;
	}
	free(*dst);
	*dst = s;
	return 0;
}

static int perf_event_desc(struct cachepin_perf *p, const uint8_t *q, size_t len)
{
	uint32_t nr, attr_sz, i, j, nr_ids;
	size_t pos = 8, adv;
	char *name;

	if (len < 8)
		return 0;
	nr = ld32(p, q);
	attr_sz = ld32(p, q + 4);
	for (i = 0; i < nr; i++) {
		struct perf_attr *a = NULL;

		if (len - pos < (uint64_t)attr_sz + 4)
			goto out_bad;
		pos += attr_sz;
		nr_ids = ld32(p, q + pos);
		pos += 4;
		name = perf_string(p, q + pos, len - pos, &adv);
		if (!name)
			goto out_bad;
		pos += adv;
		if (nr_ids > (len - pos) / 8) {
			free(name);
			goto out_bad;
		}
		for (j = 0; j < nr_ids && !a; j++) {
			struct perf_id *e;
			uint64_t id = ld64(p, q + pos + 8 * j);

			HASH_FIND(hh, p->ids, &id, sizeof(id), e);
			if (e)
				a = &p->attrs[e->attr];
		}
		if (!a && i < p->nr_attrs)
			a = &p->attrs[i];
		pos += 8 * (size_t)nr_ids;
		if (a && !a->name)
			a->name = name;
		else
			free(name);
	}
	return 0;

out_bad:
	pr_warn("'%s': bad EVENT_DESC feature section, ignored\n", p->path);
	return 0;
}

static void perf_free_caches(struct cachepin_perf_meta *m)
{
	size_t i;

	for (i = 0; i < m->nr_caches; i++) {
		free(m->caches[i].type);
		free(m->caches[i].size);
	}
	m->nr_caches = 0;
}

/*
 * HEADER_CACHE: u32 version (1), u32 nr, then per cache u32 level,
 * line_size, sets, ways and the strings type, size and map.  Like perf,
 * a section that does not parse is dropped as a whole; it only says
 * what the recording machine was.
 */
static int perf_cache_feat(struct cachepin_perf *p, const uint8_t *q, size_t len)
{
	struct cachepin_perf_meta *m = &p->meta;
	const char *why = NULL;
	uint32_t version, nr, i;
	size_t pos = 8, adv;
	char *map;

	perf_free_caches(m);
	if (len < 8) {
		why = "shorter than its header";
		goto out_bad;
	}
	version = ld32(p, q);
	nr = ld32(p, q + 4);
	if (version != CACHE_FEAT_VERSION) {
		why = "unknown version";
		goto out_bad;
	}
	if (nr > (len - 8) / CACHE_ENTRY_MIN) {
		why = "more caches than the section holds";
		goto out_bad;
	}
	if (GROW(m->caches, p->cap_caches, nr))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct cachepin_perf_cache *c = &m->caches[i];

		memset(c, 0, sizeof(*c));
		if (len - pos < 16) {
			why = "truncated";
			goto out_bad;
		}
		c->level = ld32(p, q + pos);
		c->line = ld32(p, q + pos + 4);
		c->sets = ld32(p, q + pos + 8);
		c->ways = ld32(p, q + pos + 12);
		pos += 16;
		m->nr_caches++;		/* its strings are freed with it */
		c->type = perf_string(p, q + pos, len - pos, &adv);
		if (c->type)
			pos += adv;
		c->size = c->type ? perf_string(p, q + pos, len - pos, &adv) : NULL;
		if (c->size)
			pos += adv;
		map = c->size ? perf_string(p, q + pos, len - pos, &adv) : NULL;
		if (!map) {
			why = "a string runs past the section";
			goto out_bad;
		}
		pos += adv;
		free(map);
	}
	return 0;

out_bad:
	perf_free_caches(m);
	pr_warn("warning: '%s': bad CACHE feature section (%s), ignored\n", p->path, why);
	return 0;
}

const struct cachepin_perf_cache *cachepin_perf_meta__l1i(const struct cachepin_perf_meta *m)
{
	size_t i;

	for (i = 0; i < m->nr_caches; i++)
		if (m->caches[i].level == 1 && m->caches[i].type &&
		    !strcmp(m->caches[i].type, "Instruction"))
			return &m->caches[i];
	return NULL;
}

static int perf_feature(struct cachepin_perf *p, unsigned int feat,
			const uint8_t *q, size_t len)
{
	struct cachepin_perf_meta *meta = &p->meta;
	size_t pos;
	int err;

	switch (feat) {
	case FEAT_BUILD_ID:
		for (pos = 0; len - pos >= 8;) {
			uint16_t sz = ld16(p, q + pos + 6);

			if (sz < 8 || sz > len - pos)
				break;
			err = perf_buildid(p, q + pos, sz);
			if (err)
				return err;
			pos += sz;
		}
		return 0;
	case FEAT_HOSTNAME:
		return perf_set_string(p, &meta->hostname, q, len);
	case FEAT_OSRELEASE:
		return perf_set_string(p, &meta->osrelease, q, len);
	case FEAT_ARCH:
		return perf_set_string(p, &meta->arch, q, len);
	case FEAT_EVENT_DESC:
		return perf_event_desc(p, q, len);
	case FEAT_CACHE:
		return perf_cache_feat(p, q, len);
	case FEAT_COMPRESSED:
		meta->compressed = true;
		return 0;
	}
	return 0;
}

/*
 * An MMAP2 that carries its file's build-id (perf record --buildid-mmap,
 * which writes no BUILD_ID feature then): one entry per file name.
 */
static int perf_mmap_buildid(struct cachepin_perf *p, const char *name, const uint8_t *rec)
{
	struct cachepin_perf_meta *meta = &p->meta;
	struct cachepin_perf_buildid *b;
	size_t i;

	/* the kernel's map names its reference symbol; its build-id is the image's */
	if (!strncmp(name, KALLSYMS, strlen(KALLSYMS)))
		name = KALLSYMS;
	for (i = 0; i < meta->nr_buildids; i++)
		if (!strcmp(meta->buildids[i].name, name))
			return 0;
	if (GROW(meta->buildids, p->cap_buildids, meta->nr_buildids + 1))
		return -ENOMEM;
	b = &meta->buildids[meta->nr_buildids];
	b->size = rec[40] > 20 ? 20 : rec[40];
	memset(b->id, 0, sizeof(b->id));
	memcpy(b->id, rec + 44, b->size);
	b->name = strdup(name);
	if (!b->name)
		return -ENOMEM;
	meta->nr_buildids++;
	return 0;
}

static int perf_mmap(struct cachepin_perf *p, uint32_t type, const uint8_t *rec,
		     uint16_t misc, uint16_t size, uint64_t off)
{
	size_t name_off = type == REC_MMAP ? 40 : 72, tl, nend;
	uint64_t start, len, pgoff;
	uint32_t pid;
	const char *name;
	char buf[4096];
	struct perf_proc *pr;
	struct perf_attr *a;

	if (size < name_off)
		return perf_truncated(p, off, name_off, size);
	a = perf_record_attr(p, rec, size);
	tl = trailer_len(a);
	nend = size - name_off > tl ? size - tl : size;
	pid = ld32(p, rec + 8);
	start = ld64(p, rec + 16);
	len = ld64(p, rec + 24);
	pgoff = ld64(p, rec + 32);
	name = (const char *)rec + name_off;
	nend = strnlen(name, nend - name_off);
	if (nend >= sizeof(buf))
		nend = sizeof(buf) - 1;
	memcpy(buf, name, nend);
	buf[nend] = 0;

	if (type == REC_MMAP2 && (misc & MISC_MMAP_BUILD_ID) && buf[0] && rec[40]) {
		int err = perf_mmap_buildid(p, buf, rec);

		if (err)
			return err;
	}
	if ((misc & CPUMODE_MASK) == CPUMODE_KERNEL || pid == UINT32_MAX)
		return perf_add_kmap(p, buf, start, len, pgoff);
	pr = proc_find(p, pid, true);
	if (!pr)
		return -ENOMEM;
	return proc_add_map(pr, start, len, pgoff, buf, trailer_time(p, a, rec, size),
			    p->seq++);
}

/*
 * A FORK: the child inherits the maps its parent had at that time.  The
 * parent's maps may come later in the file than the FORK, so forks are
 * applied after the first pass, in time order (perf_apply_forks()).
 */
static int perf_fork(struct cachepin_perf *p, const uint8_t *rec, uint16_t size,
		     uint64_t off)
{
	struct perf_fork *f;
	uint32_t pid, ppid;

	if (size < 32)
		return perf_truncated(p, off, 32, size);
	pid = ld32(p, rec + 8);
	ppid = ld32(p, rec + 12);
	if (pid == ppid)
		return 0;	/* a new thread shares the maps */
	if (GROW(p->forks, p->cap_forks, p->nr_forks + 1))
		return -ENOMEM;
	f = &p->forks[p->nr_forks];
	f->pid = pid;
	f->ppid = ppid;
	f->time = ld64(p, rec + 24);
	f->seq = p->seq++;
	p->nr_forks++;
	return 0;
}

static int fork_cmp(const void *a, const void *b)
{
	const struct perf_fork *x = a, *y = b;

	return OLDER(x, y) ? -1 : OLDER(y, x);
}

static int perf_apply_forks(struct cachepin_perf *p)
{
	struct perf_proc *parent, *child;
	size_t k, i, nr;
	int err;

	if (!p->nr_forks)
		return 0;
	sort_n(p->forks, p->nr_forks, sizeof(*p->forks), fork_cmp);
	for (k = 0; k < p->nr_forks; k++) {
		const struct perf_fork *f = &p->forks[k];

		parent = proc_find(p, f->ppid, false);
		if (!parent || !parent->nr)
			continue;
		child = proc_find(p, f->pid, true);
		if (!child)
			return -ENOMEM;
		nr = parent->nr;
		for (i = 0; i < nr; i++) {
			const struct perf_map *m = &parent->maps[i];

			if (OLDER(f, m))
				continue;
			/* the copy dates from the fork: the child's own maps are newer */
			err = proc_add_map(child, m->start, m->end - m->start, m->pgoff,
					   m->name, f->time, f->seq);
			if (err)
				return err;
		}
	}
	p->nr_forks = 0;
	return 0;
}

static int perf_header_attr(struct cachepin_perf *p, const uint8_t *rec,
			    uint16_t size, uint64_t off)
{
	struct perf_attr a;
	uint32_t asz;
	size_t i, n;
	int err;

	if (size < 8 + ATTR_SIZE_VER0)
		return perf_truncated(p, off, 8 + ATTR_SIZE_VER0, size);
	asz = ld32(p, rec + 12);
	if (!asz)
		asz = ATTR_SIZE_VER0;
	if (asz > (size_t)size - 8)
		return perf_truncated(p, off, 8 + (uint64_t)asz, size);
	attr_decode(p, rec + 8, asz, &a);
	err = perf_add_attr(p, &a);
	if (err)
		return err;
	n = ((size_t)size - 8 - asz) / 8;
	for (i = 0; i < n; i++) {
		err = perf_add_id(p, ld64(p, rec + 8 + asz + 8 * i), p->nr_attrs - 1);
		if (err)
			return err;
	}
	return 0;
}

/* ---- the record stream ------------------------------------------------------ */

static int perf_walk(struct cachepin_perf *p, const uint8_t *buf, size_t len,
		     uint64_t base, bool nested, size_t *consumed,
		     cachepin_sample_fn_t fn, void *ctx);

/*
 * Feed N bytes of the file's zstd stream; decoded records go to the
 * walker as they complete.  A record can straddle two compressed
 * records, so the tail is kept for the next call.  The buffer stays
 * bounded: records are at most 64 KiB and consumed after every step.
 */
#define ZBUF_SIZE (1 << 20)

static int perf_zstd_feed(struct cachepin_perf *p, const uint8_t *src, size_t n,
			  uint64_t off, cachepin_sample_fn_t fn, void *ctx)
{
	ZSTD_inBuffer in = { src, n, 0 };
	size_t used, r;
	int err;

	if (!p->zctx) {
		p->zctx = ZSTD_createDCtx();
		if (!p->zctx)
			return -ENOMEM;
	}
	if (!p->zbuf) {
		p->zbuf = malloc(ZBUF_SIZE);
		if (!p->zbuf)
			return -ENOMEM;
		p->zcap = ZBUF_SIZE;
	}
	for (;;) {
		ZSTD_outBuffer out = { p->zbuf, p->zcap, p->zlen };

		r = ZSTD_decompressStream(p->zctx, &out, &in);
		if (ZSTD_isError(r)) {
			pr_warn("'%s': bad compressed record at offset 0x%" PRIx64 ": %s\n",
				p->path, off, ZSTD_getErrorName(r));
			return -EINVAL;
		}
		p->zlen = out.pos;
		err = perf_walk(p, p->zbuf, p->zlen, off, true, &used, fn, ctx);
		if (err)
			return err;
		memmove(p->zbuf, p->zbuf + used, p->zlen - used);
		p->zlen -= used;
		/* a full buffer may leave output inside zstd */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	return 0;
}

/* Handle one record; *extra gets the bytes that follow it uncounted. */
static int perf_record(struct cachepin_perf *p, const uint8_t *rec, uint32_t type,
		       uint16_t misc, uint16_t size, uint64_t off, bool nested,
		       uint64_t *extra, cachepin_sample_fn_t fn, void *ctx)
{
	uint64_t n;

	*extra = 0;
	switch (type) {
	case REC_SAMPLE:
		if (p->pass == 2)
			return perf_sample(p, rec, misc, size, off, fn, ctx);
		return 0;
	case REC_HEADER_TRACING_DATA:
	case REC_AUXTRACE:
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		break;
	default:
		if (p->pass == 2)
			return 0;
	}

	switch (type) {
	case REC_MMAP:
	case REC_MMAP2:
		return perf_mmap(p, type, rec, misc, size, off);
	case REC_FORK:
		return perf_fork(p, rec, size, off);
	case REC_LOST:
		if (size < 24)
			return perf_truncated(p, off, 24, size);
		p->meta.nr_lost += ld64(p, rec + 16);
		return 0;
	case REC_LOST_SAMPLES:
		if (size < 16)
			return perf_truncated(p, off, 16, size);
		p->meta.nr_lost += ld64(p, rec + 8);
		return 0;
	case REC_HEADER_ATTR:
		return perf_header_attr(p, rec, size, off);
	case REC_HEADER_FEATURE:
		if (size < 16)
			return perf_truncated(p, off, 16, size);
		n = ld64(p, rec + 8);
		return perf_feature(p, n < FEAT_BITS ? (unsigned int)n : FEAT_BITS, rec + 16,
				    size - 16);
	case REC_HEADER_BUILD_ID:
		return perf_buildid(p, rec, size);
	case REC_HEADER_TRACING_DATA:
		if (size < 12)
			return perf_truncated(p, off, 12, size);
		*extra = ((uint64_t)ld32(p, rec + 8) + 7) & ~7ULL;
		return 0;
	case REC_AUXTRACE:
		if (size < 16)
			return perf_truncated(p, off, 16, size);
		*extra = ld64(p, rec + 8);
		return 0;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (nested) {
			pr_warn("'%s': compressed record inside compressed data at offset 0x%"
				PRIx64 "\n", p->path, off);
			return -EINVAL;
		}
		p->meta.compressed = true;
		if (type == REC_COMPRESSED)
			return perf_zstd_feed(p, rec + 8, size - 8, off, fn, ctx);
		if (size < 16)
			return perf_truncated(p, off, 16, size);
		n = ld64(p, rec + 8);
		if (n > (uint64_t)size - 16)
			return perf_truncated(p, off, 16 + n, size);
		return perf_zstd_feed(p, rec + 16, n, off, fn, ctx);
	}
	return 0;
}

static int perf_walk(struct cachepin_perf *p, const uint8_t *buf, size_t len,
		     uint64_t base, bool nested, size_t *consumed,
		     cachepin_sample_fn_t fn, void *ctx)
{
	size_t pos = 0;
	uint64_t extra;
	int err = 0;

	while (len - pos >= 8 || (!nested && pos < len)) {
		const uint8_t *rec = buf + pos;
		uint64_t off = nested ? base : base + pos;
		uint32_t type;
		uint16_t misc, size;

		if (len - pos < 8) {
			err = perf_truncated(p, off, 8, len - pos);
			break;
		}
		type = ld32(p, rec);
		misc = ld16(p, rec + 4);
		size = ld16(p, rec + 6);
		if (size < 8) {
			pr_warn("'%s': truncated record at offset 0x%" PRIx64
				" (size %u is smaller than the 8-byte header)\n",
				p->path, off, size);
			err = -EINVAL;
			break;
		}
		if (size > len - pos) {
			if (nested)
				break;
			err = perf_truncated(p, off, size, len - pos);
			break;
		}
		err = perf_record(p, rec, type, misc, size, off, nested, &extra, fn, ctx);
		if (err)
			break;
		pos += size;
		if (extra) {
			if (extra > len - pos) {
				err = perf_truncated(p, off, size + extra, size + (len - pos));
				break;
			}
			pos += extra;
		}
	}
	*consumed = pos;
	return err;
}

/* ---- open ------------------------------------------------------------------- */

static int perf_read_all(struct cachepin_perf *p, int fd)
{
	uint8_t *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t r;

	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			pr_warn("cannot read '%s': %s\n", p->path, strerror(errno));
			free(buf);
			return r;
		}
		if (!r)
			break;
		len += r;
	}
	p->buf = buf;
	p->len = len;
	p->mapped = false;
	return 0;
}

static int perf_load(struct cachepin_perf *p, const char *path)
{
	struct stat st;
	int fd, err = 0;
	void *m;

	if (!strcmp(path, "-"))
		return perf_read_all(p, STDIN_FILENO);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		err = perf_read_all(p, fd);
		goto out_close;
	}
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		err = perf_read_all(p, fd);
		goto out_close;
	}
	madvise(m, st.st_size, MADV_SEQUENTIAL);
	p->buf = m;
	p->len = st.st_size;
	p->mapped = true;
out_close:
	close(fd);
	return err;
}

static int perf_bad_header(struct cachepin_perf *p, const char *what)
{
	pr_warn("'%s': truncated or corrupt perf.data header (%s)\n", p->path, what);
	return -EINVAL;
}

static int perf_features(struct cachepin_perf *p)
{
	uint64_t words[4] = { 0 }, sec = p->data_end;
	const uint8_t *bm = p->buf + 72;
	unsigned int i;
	int err;

	for (i = 0; i < 4; i++)
		words[i] = ld64(p, bm + 8 * i);
	if (p->be && !(words[0] & (1ULL << FEAT_HOSTNAME))) {
		/* a 32-bit big-endian host writes 8 u32 words */
		for (i = 0; i < 4; i++)
			words[i] = ld32(p, bm + 8 * i) | (uint64_t)ld32(p, bm + 8 * i + 4) << 32;
	}
	for (i = 0; i < FEAT_BITS; i++) {
		uint64_t off, size;

		if (!(words[i / 64] & (1ULL << (i % 64))))
			continue;
		if (sec > p->len || p->len - sec < 16) {
			pr_warn("'%s': feature section table is truncated, ignored\n", p->path);
			return 0;
		}
		off = ld64(p, p->buf + sec);
		size = ld64(p, p->buf + sec + 8);
		sec += 16;
		if (off > p->len || size > p->len - off) {
			pr_warn("'%s': feature %u lies outside the file, ignored\n", p->path, i);
			continue;
		}
		err = perf_feature(p, i, p->buf + off, size);
		if (err)
			return err;
	}
	return 0;
}

static int perf_file_header(struct cachepin_perf *p)
{
	uint64_t attr_size, attrs_off, attrs_size, data_off, data_size, i, j;
	uint64_t hsize = ld64(p, p->buf + 8);
	int err;

	if (hsize == PIPE_HEADER_SIZE) {
		p->meta.pipe = true;
		p->data_off = PIPE_HEADER_SIZE;
		p->data_end = p->len;
		return 0;
	}
	if (p->len < FILE_HEADER_SIZE)
		return perf_bad_header(p, "file is shorter than the 104-byte header");
	attr_size = ld64(p, p->buf + 16);
	attrs_off = ld64(p, p->buf + 24);
	attrs_size = ld64(p, p->buf + 32);
	data_off = ld64(p, p->buf + 40);
	data_size = ld64(p, p->buf + 48);
	if (attr_size < 16 + ATTR_SIZE_VER0 || attr_size > 1 << 16)
		return perf_bad_header(p, "bad attr size");
	if (attrs_off > p->len || attrs_size > p->len - attrs_off)
		return perf_bad_header(p, "attrs section lies outside the file");
	if (data_off > p->len || (data_size && data_size > p->len - data_off))
		return perf_bad_header(p, "data section lies outside the file");
	p->data_off = data_off;
	p->data_end = data_size ? data_off + data_size : p->len;

	for (i = 0; i < attrs_size / attr_size; i++) {
		const uint8_t *q = p->buf + attrs_off + i * attr_size;
		uint64_t ids_off, ids_size;
		struct perf_attr a;

		attr_decode(p, q, attr_size - 16, &a);
		err = perf_add_attr(p, &a);
		if (err)
			return err;
		ids_off = ld64(p, q + attr_size - 16);
		ids_size = ld64(p, q + attr_size - 8);
		if (ids_off > p->len || ids_size > p->len - ids_off)
			return perf_bad_header(p, "attr ids lie outside the file");
		for (j = 0; j < ids_size / 8; j++) {
			err = perf_add_id(p, ld64(p, p->buf + ids_off + 8 * j), i);
			if (err)
				return err;
		}
	}
	if (!p->nr_attrs)
		return perf_bad_header(p, "no events");
	p->nr_file_attrs = p->nr_attrs;
	if (data_size)
		return perf_features(p);
	return 0;
}

struct cachepin_perf *cachepin_perf__open(const char *path)
{
	struct cachepin_perf *p;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->kernel_idx = -1;
	p->first_attr = -1;
	p->path = strdup(path);
	if (!p->path) {
		err = -ENOMEM;
		goto out_free;
	}
	err = perf_load(p, path);
	if (err)
		goto out_free;
	if (p->len < PIPE_HEADER_SIZE) {
		err = perf_bad_header(p, "file is shorter than 16 bytes");
		goto out_free;
	}
	if (!memcmp(p->buf, MAGIC_V2, MAGIC_SIZE)) {
		p->be = false;
	} else if (!memcmp(p->buf, MAGIC_V2_BE, MAGIC_SIZE)) {
		p->be = true;
	} else if (!memcmp(p->buf, MAGIC_V1, MAGIC_SIZE)) {
		pr_warn("'%s': legacy perf.data version 1 is not supported\n"
			"hint: convert it with 'perf inject -i OLD -o NEW'\n", path);
		err = -ENOTSUP;
		goto out_free;
	} else {
		pr_warn("'%s': not a perf.data file (bad magic)\n", path);
		err = -EINVAL;
		goto out_free;
	}
	p->meta.big_endian = p->be;
	err = perf_file_header(p);
	if (err)
		goto out_free;
	if (!strcmp(path, "-") && !p->meta.pipe) {
		/* we have it all in memory anyway; accept it */
		pr_debug("'%s': file-mode data read from standard input\n", path);
	}
	return p;

out_free:
	cachepin_perf__free(p);
	errno = -err;
	return NULL;
}

/* Forget what the metadata pass collected from the record stream. */
static void perf_reset_meta(struct cachepin_perf *p)
{
	struct cachepin_perf_meta *m = &p->meta;
	size_t i;

	perf_free_procs(p);
	p->nr_forks = 0;
	p->seq = 0;
	for (i = 0; i < m->nr_kmaps; i++)
		free(m->kmaps[i].name);
	m->nr_kmaps = 0;
	p->kernel_idx = -1;
	p->mod_lo = p->mod_hi = 0;
	p->kmap_last = 0;
	zfree(&m->kernel_ref_sym);
	m->kernel_ref_addr = 0;
	m->has_kernel_map = false;
	m->nr_lost = 0;
	p->meta_done = false;
	if (m->pipe) {
		struct perf_id *e, *tmp;

		HASH_ITER(hh, p->ids, e, tmp) {
			HASH_DEL(p->ids, e);
			free(e);
		}
		for (i = 0; i < p->nr_attrs; i++)
			free(p->attrs[i].name);
		p->nr_attrs = 0;
		p->id_cache_valid = false;
		for (i = 0; i < m->nr_buildids; i++)
			free(m->buildids[i].name);
		m->nr_buildids = 0;
		perf_free_caches(m);
	}
}

static int perf_pass(struct cachepin_perf *p, int pass, cachepin_sample_fn_t fn,
		     void *ctx)
{
	size_t used;
	int err;

	p->pass = pass;
	p->zlen = 0;
	if (p->zctx)
		ZSTD_DCtx_reset(p->zctx, ZSTD_reset_session_only);
	err = perf_walk(p, p->buf + p->data_off, p->data_end - p->data_off,
			p->data_off, false, &used, fn, ctx);
	if (err)
		return err;
	if (p->zlen && pass == 1)
		pr_warn("'%s': compressed data ends inside a record (%zu bytes left)\n",
			p->path, p->zlen);
	return 0;
}

int cachepin_perf__for_each_sample(struct cachepin_perf *p,
				   cachepin_sample_fn_t fn, void *ctx)
{
	struct cachepin_perf_meta *m = &p->meta;
	struct perf_proc *pr, *tmp;
	int err;

	if (!p->meta_done) {
		perf_reset_meta(p);
		err = perf_pass(p, 1, NULL, NULL);
		if (!err)
			err = perf_apply_forks(p);
		if (err)
			return err;
		HASH_ITER(hh, p->procs, pr, tmp)
			proc_settle(pr);
		p->meta_done = true;
	}

	m->nr_samples = m->period_sum = 0;
	zfree(&m->event);
	p->first_attr = -1;
	p->stopped = false;
	err = perf_pass(p, 2, fn, ctx);
	if (p->stopped)
		return p->stop_val;
	if (err)
		return err;
	if (p->first_attr >= 0 && p->attrs[p->first_attr].name) {
		m->event = strdup(p->attrs[p->first_attr].name);
		if (!m->event)
			return -ENOMEM;
	}
	return 0;
}

const struct cachepin_perf_meta *cachepin_perf__meta(const struct cachepin_perf *p)
{
	return &p->meta;
}

void cachepin_perf__free(struct cachepin_perf *p)
{
	struct perf_id *e, *tmp;
	size_t i;

	if (!p)
		return;
	perf_reset_meta(p);
	free(p->meta.event);
	HASH_ITER(hh, p->ids, e, tmp) {
		HASH_DEL(p->ids, e);
		free(e);
	}
	for (i = 0; i < p->nr_attrs; i++)
		free(p->attrs[i].name);
	free(p->attrs);
	for (i = 0; i < p->meta.nr_buildids; i++)
		free(p->meta.buildids[i].name);
	free(p->meta.buildids);
	perf_free_caches(&p->meta);
	free(p->meta.caches);
	free(p->meta.kmaps);
	free(p->meta.arch);
	free(p->meta.osrelease);
	free(p->meta.hostname);
	free(p->frames);
	free(p->forks);
	free(p->zbuf);
	ZSTD_freeDCtx(p->zctx);
	if (p->buf) {
		if (p->mapped)
			munmap((void *)p->buf, p->len);
		else
			free((void *)p->buf);
	}
	free(p->path);
	free(p);
}
