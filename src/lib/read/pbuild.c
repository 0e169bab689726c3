// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile builder: samples resolved against a binary, folded into
 * its position-independent profile (function name + object, weights per
 * offset granule, caller->callee edges).
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/modules.h"
#include "cachepin/profile.h"
#include "internal.h"
#include "kernel.h"
#include "phase.h"
#include "profile-int.h"

struct edge_ent {
	uint64_t key;		/* caller fi << 32 | callee fi */
	uint32_t callsite;
	double weight;
	unsigned int flags;
	UT_hash_handle hh;
};

struct pb_func {
	double weight, incl, unif;	/* unif: weight without an offset */
	uint64_t samples;
	double *gran;			/* per granule, lazily allocated */
	double *sgran;			/* per granule and time slot (TIMED), with gran */
	uint32_t ngran;
	uint32_t feat;			/* its phase feature + 1 (0: no hit yet) */
	uint64_t seen;			/* sample serial, to count incl once */
};

struct pb_hit {				/* a leaf's granule, for the phases */
	uint32_t feat, g, sample;
	float w;
};

#define PB_DEPTH 64	/* stack depths with a lookup cache */
#define PB_ACACHE 4096	/* addresses with their function, direct mapped */
#define PB_VPAGES 8	/* candidate exception bases tallied */

/*
 * Code of another object (a shared library, the vdso, the kernel when the
 * binary is a program) that samples hit: counted, and for a file whose
 * offsets the frames give, its hot pages kept as the page's granules.
 */
struct pb_object {
	char *key;			/* "PID/NAME" */
	const char *name;		/* base name of the dso, in key */
	uint32_t pid;			/* of the process whose samples these are */
	uint64_t samples, base;		/* base: runtime address of file offset 0 */
	double weight;
	bool has_base;
	bool kmodule;			/* a kernel module of a kernel's profile: base is
					 * its text's load address, pages its text's */
	bool mod_tried;			/* mod looked up (kmodule) */
	const struct cachepin_binary *mod;	/* the module's file, or NULL */
	UT_hash_handle hh;
};

struct pb_page {
	struct {
		const struct pb_object *obj;
		uint64_t off;		/* file offset of the page */
	} key;
	struct pb_func f;
	UT_hash_handle hh;
};

/* a function of a kernel module (--modules), its granules from its start */
struct pb_mfunc {
	struct {
		const struct pb_object *obj;
		const struct cachepin_func *fn;	/* of the module's binary */
	} key;
	struct pb_func f;
	UT_hash_handle hh;
};

/* a process with samples in the binary: its other objects are the program's */
struct pb_pid {
	uint32_t pid;
	UT_hash_handle hh;
};

/* a library page summed over the processes, for the profile */
struct pb_mpage {
	char *name;			/* "[NAME+0xPAGE]" */
	struct pb_func f;
	UT_hash_handle hh;
};

struct pb_acache {
	uint64_t addr;		/* UINT64_MAX: empty */
	const struct cachepin_func *f;	/* NULL: no function there */
};

struct cachepin_pbuild {
	const struct cachepin_binary *bin;
	/*
	 * Consecutive samples share most of their stacks: per depth, the
	 * last function found and the last edge touched.
	 */
	const struct cachepin_func *last_func[PB_DEPTH];
	struct edge_ent *last_edge[PB_DEPTH];
	/*
	 * Instruction traces hit few addresses many times, in an order that
	 * defeats the per-depth cache: the functions of recent addresses.
	 */
	struct pb_acache acache[PB_ACACHE];
	unsigned int flags;
	const char *base;		/* binary base name, for dso matching */
	char **alias;			/* dsos of another name with the binary's build-id */
	size_t nr_alias;
	int64_t kaslr;			/* runtime - link-time address */
	uint64_t synth_lo, synth_hi;	/* the synthetic functions' span (kernel samples) */
	struct pb_vpage {		/* unmatched samples where handlers would be */
		uint64_t page, n;
	} vpage[PB_VPAGES];
	struct pb_func *f;		/* one per binary function */
	/*
	 * Time slots (CACHEPIN_PBUILD_TIMED): sample k goes to slot
	 * k / slot_len; when the slots run out, neighbours merge and
	 * slot_len doubles, so the slots end equal in samples.
	 */
	uint64_t slot_len;
	uint32_t slot;
	/*
	 * Phases (CACHEPIN_PBUILD_PHASES): every leaf's granule in sample
	 * order, its function a feature; clustered at the end (phase.c)
	 * into the slices, which then replace the time slots.
	 */
	struct pb_hit *hits;
	size_t nr_hits, cap_hits;
	struct pb_func **feat_f;
	size_t nr_feat, cap_feat;
	bool no_phases;			/* too many samples to number */
	struct edge_ent *edges;
	struct pb_object *objects;	/* by name */
	struct pb_page *pages;		/* by object and page */
	struct cachepin_modules *modules;	/* the kernel's modules, or NULL */
	const struct cachepin_loaded *loaded;	/* where they were loaded, by base */
	size_t nr_loaded;
	struct pb_mfunc *mfuncs;	/* by module and function */
	struct pb_object *last_obj;	/* of the last other-object leaf */
	struct pb_pid *ran;		/* the processes with samples in the binary */
	uint32_t last_ran;		/* the last one marked, + 1 (0: none) */
	uint64_t nr_samples, nr_matched, serial;
	double period_sum, matched_weight;
	char *event;
	int err;
};

struct cachepin_pbuild *cachepin_pbuild__new(const struct cachepin_binary *bin,
					     unsigned int flags)
{
	struct cachepin_pbuild *pb = calloc(1, sizeof(*pb));
	size_t i;

	if (!pb)
		return NULL;
	pb->f = calloc(bin->nr_funcs ? bin->nr_funcs : 1, sizeof(*pb->f));
	if (!pb->f) {
		free(pb);
		errno = ENOMEM;
		return NULL;
	}
	pb->bin = bin;
	pb->flags = flags;
	pb->slot_len = 1;
	pb->base = cachepin_base_name(bin->path);
	memset(pb->acache, 0xff, sizeof(pb->acache));
	for (i = 0; (flags & CACHEPIN_PBUILD_KERNEL) && i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i];

		if (!(f->flags & CACHEPIN_FUNC_SYNTHETIC))
			continue;
		if (pb->synth_lo == pb->synth_hi || f->addr < pb->synth_lo)
			pb->synth_lo = f->addr;
		if (f->addr + f->size > pb->synth_hi)
			pb->synth_hi = f->addr + f->size;
	}
	return pb;
}

int cachepin_pbuild__add_dso(struct cachepin_pbuild *pb, const char *dso)
{
	char **a = realloc(pb->alias, (pb->nr_alias + 1) * sizeof(*a));

	if (!a)
		return pb->err = -ENOMEM;
	pb->alias = a;
	a[pb->nr_alias] = strdup(dso);
	if (!a[pb->nr_alias])
		return pb->err = -ENOMEM;
	pb->nr_alias++;
	return 0;
}

/* Is DSO, whose base name is not the binary's, one of its aliases? */
static bool pb_is_alias(const struct cachepin_pbuild *pb, const char *dso)
{
	size_t i;

	for (i = 0; i < pb->nr_alias; i++)
		if (!strcmp(pb->alias[i], dso))
			return true;
	return false;
}

void cachepin_pbuild__set_kernel_ref(struct cachepin_pbuild *pb, const char *ref_sym,
				     uint64_t runtime_addr)
{
	uint64_t v;

	if (!ref_sym || !runtime_addr)
		return;
	if (cachepin_binary__sym_value(pb->bin, ref_sym, &v) == 0)
		pb->kaslr = (int64_t)(runtime_addr - v);
}

void cachepin_pbuild__set_modules(struct cachepin_pbuild *pb, struct cachepin_modules *mods,
				  const struct cachepin_loaded *loaded, size_t nr_loaded)
{
	pb->modules = mods;
	pb->loaded = loaded;
	pb->nr_loaded = nr_loaded;
}

/*
 * The frame's ip as an address where synthetic functions (MIPS exception
 * handlers, only ever in 32-bit kernels) could be: absolute, and without
 * a 32-bit address's sign extension.  False if the binary has none or the
 * frame has no absolute ip.
 */
static bool pb_synth_addr(const struct cachepin_pbuild *pb, const struct cachepin_frame *fr,
			  uint64_t *addr)
{
	if (pb->synth_lo == pb->synth_hi || !(fr->flags & CACHEPIN_FRAME_HAS_IP) ||
	    (fr->flags & (CACHEPIN_FRAME_DSO_REL | CACHEPIN_FRAME_HAS_FOFF)))
		return false;
	*addr = fr->ip >> 32 == 0xffffffffULL ? fr->ip & 0xffffffffULL : fr->ip;
	return true;
}

/*
 * A synthetic function holding the frame's ip (at *ADDR), or NULL.  Their
 * addresses are runtime ones (no KASLR offset), outside every map perf
 * knows: perf script prints such frames as "[unknown]", without the
 * kernel's dso.  User code never runs there (KSEG0), so the ip alone
 * decides.
 */
static const struct cachepin_func *pb_synthetic(const struct cachepin_pbuild *pb,
						const struct cachepin_frame *fr, uint64_t *addr)
{
	const struct cachepin_func *f;

	if (!pb_synth_addr(pb, fr, addr) || *addr < pb->synth_lo || *addr >= pb->synth_hi)
		return NULL;
	f = cachepin_binary__find_func(pb->bin, *addr);
	return f && (f->flags & CACHEPIN_FUNC_SYNTHETIC) ? f : NULL;
}

/*
 * A MIPS kernel's leaf that matched nothing, in KSEG0 or KSEG1 at the
 * offsets of the TLB refill handler or the general exception vector
 * from its 4 KiB page: the handlers are probably there, at another
 * exception base than the binary's.  Tallied by page.
 */
static void pb_note_vector(struct cachepin_pbuild *pb, const struct cachepin_frame *fr)
{
	uint64_t addr, off, page;
	size_t i, low = 0;

	if (!pb_synth_addr(pb, fr, &addr))
		return;
	off = addr & 0xfff;
	page = addr - off;
	if (page < 0x80000000ULL || page >= 0xc0000000ULL || page == pb->bin->ebase ||
	    !(off < 0x80 || (off >= 0x180 && off < 0x200)))
		return;
	for (i = 0; i < PB_VPAGES; i++) {
		if (pb->vpage[i].page == page) {
			pb->vpage[i].n++;
			return;
		}
		if (pb->vpage[i].n < pb->vpage[low].n)
			low = i;
	}
	/* a new page takes the place of the least hit one */
	pb->vpage[low].page = page;
	pb->vpage[low].n = 1;
}

/* Say where the handlers seem to be, if many samples point there. */
static void pb_report_vectors(const struct cachepin_pbuild *pb)
{
	const struct pb_vpage *best = &pb->vpage[0];
	size_t i;

	for (i = 1; i < PB_VPAGES; i++)
		if (pb->vpage[i].n > best->n)
			best = &pb->vpage[i];
	if (best->n < 16 || best->n * 1000 < pb->nr_samples)
		return;
	pr_warn("'%s': %" PRIu64 " kernel samples (%.2f %%) matched no function at 0x%" PRIx64
		" + 0x000..0x07f and 0x180..0x1ff, where the exception handlers are if the "
		"exception base is 0x%" PRIx64 " (not 0x%" PRIx64 ")\n"
		"hint: pass --ebase 0x%" PRIx64 " to profile, score and plan\n",
		pb->bin->path, best->n, 100.0 * (double)best->n / (double)pb->nr_samples,
		best->page, best->page, pb->bin->ebase, best->page);
}

/* Resolve a frame to a binary function and the offset into it; -1 if none. */
static long pb_resolve(struct cachepin_pbuild *pb, const struct cachepin_frame *fr,
		       uint32_t depth, uint64_t *off, bool *has_off)
{
	const struct cachepin_binary *bin = pb->bin;
	const struct cachepin_func *f = NULL;
	uint64_t addr;

	*has_off = false;
	if ((f = pb_synthetic(pb, fr, &addr))) {
		*off = addr - f->addr;
		*has_off = true;
		return f - bin->funcs;
	}
	if (fr->flags & CACHEPIN_FRAME_KERNEL) {
		if (!(pb->flags & CACHEPIN_PBUILD_KERNEL) || !cachepin_kernel_dso_is_image(fr->dso))
			return -1;
	} else if (fr->dso || !(pb->flags & CACHEPIN_PBUILD_KERNEL)) {
		/*
		 * a frame that does not say whose code it is (a hot list's
		 * "NAME WEIGHT", an [unknown] dso) is looked up in a kernel too
		 */
		if (!(pb->flags & CACHEPIN_PBUILD_USER))
			return -1;
		if (fr->dso && fr->dso[0] != '[' && strcmp(cachepin_base_name(fr->dso), pb->base) &&
		    !(pb->nr_alias && pb_is_alias(pb, fr->dso)))
			return -1;
		if (fr->dso && fr->dso[0] == '[')
			return -1;
	}
	if (fr->flags & CACHEPIN_FRAME_HAS_SYM) {
		f = cachepin_binary__lookup(bin, fr->sym, NULL, NULL);
		if (f && (fr->flags & CACHEPIN_FRAME_HAS_OFF) && fr->symoff < (f->size ? f->size : 1)) {
			*off = fr->symoff;
			*has_off = true;
		}
		if (f)
			return f - bin->funcs;
	}
	if (!(fr->flags & CACHEPIN_FRAME_HAS_IP))
		return -1;
	if (fr->flags & CACHEPIN_FRAME_KERNEL) {
		addr = fr->ip - (uint64_t)pb->kaslr;
	} else if (fr->flags & CACHEPIN_FRAME_HAS_FOFF) {
		if (cachepin_binary__off_to_addr(bin, fr->file_off, &addr))
			return -1;
	} else if (fr->flags & CACHEPIN_FRAME_DSO_REL) {
		if (cachepin_binary__off_to_addr(bin, fr->ip, &addr))
			addr = fr->ip;
	} else {
		addr = fr->ip;
	}
	if (depth < PB_DEPTH && (f = pb->last_func[depth]) &&
	    addr >= f->addr && addr - f->addr < (f->size ? f->size : 1)) {
		/* same function as this depth of the previous sample */
	} else {
		struct pb_acache *c = &pb->acache[(addr * 0x9e3779b97f4a7c15ULL) >> 52];

		if (c->addr != addr) {
			c->addr = addr;
			c->f = cachepin_binary__find_func(bin, addr);
		}
		f = c->f;
		if (!f)
			return -1;
		if (depth < PB_DEPTH)
			pb->last_func[depth] = f;
	}
	*off = addr - f->addr;
	*has_off = true;
	return f - bin->funcs;
}

/* Granule G of F took a leaf of weight W: one hit for the phases. */
static int pb_log_hit(struct cachepin_pbuild *pb, struct pb_func *f, uint32_t g, double w)
{
	if (pb->no_phases)
		return 0;
	if (pb->nr_samples > UINT32_MAX) {
		pb->no_phases = true;
		return 0;
	}
	if (!f->feat) {
		if (GROW(pb->feat_f, pb->cap_feat, pb->nr_feat + 1))
			return -ENOMEM;
		pb->feat_f[pb->nr_feat++] = f;
		f->feat = (uint32_t)pb->nr_feat;
	}
	if (GROW(pb->hits, pb->cap_hits, pb->nr_hits + 1))
		return -ENOMEM;
	pb->hits[pb->nr_hits++] = (struct pb_hit){
		.feat = f->feat - 1, .g = g, .sample = (uint32_t)pb->nr_samples, .w = (float)w,
	};
	return 0;
}

/* Weight W at OFF (if HAS_OFF) into F, of SIZE bytes. */
static int pb_add_gran(struct cachepin_pbuild *pb, struct pb_func *f, uint64_t size, uint64_t off,
		       bool has_off, double w)
{
	uint64_t g;

	f->weight += w;
	f->samples++;
	if (!has_off) {
		f->unif += w;
		return 0;
	}
	if (!f->gran) {
		uint64_t n = (size + CACHEPIN_PROFILE_GRANULE - 1) / CACHEPIN_PROFILE_GRANULE;

		if (n == 0)
			n = 1;
		if (n > (1u << 24))
			n = 1u << 24;
		f->gran = calloc(n, sizeof(*f->gran));
		if (!f->gran)
			return -ENOMEM;
		if ((pb->flags & CACHEPIN_PBUILD_TIMED) &&
		    !(f->sgran = calloc(n * CACHEPIN_PROFILE_SLICES, sizeof(*f->sgran))))
			return -ENOMEM;
		f->ngran = (uint32_t)n;
	}
	g = off / CACHEPIN_PROFILE_GRANULE;
	if (g >= f->ngran)
		g = f->ngran - 1;
	f->gran[g] += w;
	if (f->sgran)
		f->sgran[g * CACHEPIN_PROFILE_SLICES + pb->slot] += w;
	return (pb->flags & CACHEPIN_PBUILD_PHASES) ? pb_log_hit(pb, f, (uint32_t)g, w) : 0;
}

static int pb_add_weight(struct cachepin_pbuild *pb, long fi, uint64_t off, bool has_off,
			 double w)
{
	return pb_add_gran(pb, &pb->f[fi], pb->bin->funcs[fi].size, off, has_off, w);
}

/* Neighbouring time slots merged: half as many, twice as long. */
static void pb_merge_func(struct pb_func *f)
{
	double *sg = f->sgran;
	size_t g;
	uint32_t k;

	for (g = 0; sg && g < f->ngran; g++, sg += CACHEPIN_PROFILE_SLICES) {
		for (k = 0; k < CACHEPIN_PROFILE_SLICES / 2; k++)
			sg[k] = sg[2 * k] + sg[2 * k + 1];
		for (; k < CACHEPIN_PROFILE_SLICES; k++)
			sg[k] = 0;
	}
}

static void pb_merge_slots(struct cachepin_pbuild *pb)
{
	struct pb_page *pg;
	size_t i;

	for (i = 0; i < pb->bin->nr_funcs; i++)
		pb_merge_func(&pb->f[i]);
	for (pg = pb->pages; pg; pg = pg->hh.next)
		pb_merge_func(&pg->f);
	pb->slot_len *= 2;
}

/* The time slot of the next sample (the NR_SAMPLES-th read). */
static void pb_set_slot(struct cachepin_pbuild *pb)
{
	if (!(pb->flags & CACHEPIN_PBUILD_TIMED))
		return;
	while (pb->nr_samples / pb->slot_len >= CACHEPIN_PROFILE_SLICES)
		pb_merge_slots(pb);
	pb->slot = (uint32_t)(pb->nr_samples / pb->slot_len);
}

/* The callchain of a sample whose leaf resolved to FI, with weight W. */
static int pb_add_chain(struct cachepin_pbuild *pb, const struct cachepin_sample *s, long fi,
			double w)
{
	long prev;
	uint64_t off;
	bool has_off;
	uint32_t i;

	pb->serial++;
	pb->f[fi].incl += w;
	pb->f[fi].seen = pb->serial;
	/*
	 * An exception vector is entered by the exception, not called: the
	 * frames above it are the interrupted code's, not its callers.
	 */
	if (pb->bin->funcs[fi].flags & CACHEPIN_FUNC_SYNTHETIC)
		return 0;
	prev = fi;
	for (i = 1; i < s->nr; i++) {
		struct edge_ent *e;
		uint64_t key;

		fi = pb_resolve(pb, &s->frames[i], i, &off, &has_off);
		if (fi < 0)
			break;	/* left the binary (user space, a module): stop the chain */
		if (pb->f[fi].seen != pb->serial) {
			pb->f[fi].incl += w;
			pb->f[fi].seen = pb->serial;
		}
		if (fi == prev)
			continue;
		key = (uint64_t)fi << 32 | (uint64_t)prev;
		e = i < PB_DEPTH && pb->last_edge[i] && pb->last_edge[i]->key == key ? pb->last_edge[i] : NULL;
		if (!e)
			HASH_FIND(hh, pb->edges, &key, sizeof(key), e);
		if (i < PB_DEPTH)
			pb->last_edge[i] = e;
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				return pb->err = -ENOMEM;
			e->key = key;
			e->callsite = has_off ? (uint32_t)off : UINT32_MAX;
			HASH_ADD(hh, pb->edges, key, sizeof(e->key), e);
			if (i < PB_DEPTH)
				pb->last_edge[i] = e;
		} else if (has_off && off < e->callsite) {
			e->callsite = (uint32_t)off;
		}
		e->weight += w;
		e->flags |= CACHEPIN_PEDGE_DYNAMIC;
		prev = fi;
	}
	return 0;
}

/*
 * The object a leaf FR that matched no function of the binary is in, by
 * process PID (a kernel module, KMOD, is the kernel's whatever process
 * ran it), or NULL if the frame does not say (a hot list's names, an
 * unknown dso).
 */
static struct pb_object *pb_object_of(struct cachepin_pbuild *pb, const struct cachepin_frame *fr,
				      uint32_t pid, bool kmod)
{
	const char *name;
	struct pb_object *o;
	char *key, mod[256];
	size_t i, len;

	if (!fr->dso || !*fr->dso || !strcmp(fr->dso, "[unknown]"))
		return NULL;
	/* the binary's own code outside its functions (a PLT) is not another object */
	if (fr->dso[0] != '[' &&
	    (!strcmp(cachepin_base_name(fr->dso), pb->base) || pb_is_alias(pb, fr->dso)))
		return NULL;
	if (kmod)
		pid = UINT32_MAX;
	name = kmod ? cachepin_modules__name(fr->dso, mod, sizeof(mod)) :
	       fr->dso[0] == '[' ? fr->dso : cachepin_base_name(fr->dso);
	if (pb->last_obj && pb->last_obj->pid == pid && !strcmp(pb->last_obj->name, name))
		return pb->last_obj;
	len = strlen(name) + 12;
	if (!(key = malloc(len))) {
		pb->err = -ENOMEM;
		return NULL;
	}
	snprintf(key, len, "%" PRIu32 "/%s", pid, name);
	/* the profile's fields are split at whitespace */
	for (i = 0; key[i]; i++)
		if (isspace((unsigned char)key[i]) || !isprint((unsigned char)key[i]))
			key[i] = '_';
	HASH_FIND_STR(pb->objects, key, o);
	if (o) {
		free(key);
	} else {
		if (!(o = calloc(1, sizeof(*o)))) {
			free(key);
			pb->err = -ENOMEM;
			return NULL;
		}
		o->key = key;
		o->name = strchr(key, '/') + 1;
		o->pid = pid;
		o->kmodule = kmod;
		HASH_ADD_KEYPTR(hh, pb->objects, o->key, strlen(o->key), o);
	}
	pb->last_obj = o;
	return o;
}

/* The process PID had a sample in the binary. */
static int pb_mark_ran(struct cachepin_pbuild *pb, uint32_t pid)
{
	struct pb_pid *r;

	if (pb->last_ran == pid + 1)
		return 0;
	HASH_FIND(hh, pb->ran, &pid, sizeof(pid), r);
	if (!r) {
		if (!(r = calloc(1, sizeof(*r))))
			return pb->err = -ENOMEM;
		r->pid = pid;
		HASH_ADD(hh, pb->ran, pid, sizeof(r->pid), r);
	}
	pb->last_ran = pid + 1;
	return 0;
}

static bool pb_ran(const struct cachepin_pbuild *pb, uint32_t pid)
{
	struct pb_pid *r;

	HASH_FIND(hh, pb->ran, &pid, sizeof(pid), r);
	return r != NULL;
}

/*
 * A kernel frame FR in module O, whose file MOD is known: its function
 * there, by the offset into the module's text (perf.data) or by the
 * symbol perf resolved (perf script), and its granule.  1 if neither
 * gives a function of MOD, 0, or a negative errno.
 */
static int pb_add_module(struct cachepin_pbuild *pb, const struct cachepin_frame *fr,
			 struct pb_object *o, const struct cachepin_binary *mod, double w)
{
	const struct cachepin_func *fn = NULL;
	struct pb_mfunc *mf, key;
	uint64_t off = 0;
	bool has_off = true;

	if (fr->flags & CACHEPIN_FRAME_HAS_FOFF) {
		off = fr->file_off;
		fn = cachepin_binary__find_func(mod, off);
	} else if ((fr->flags & CACHEPIN_FRAME_HAS_SYM) && fr->sym &&
		   (fn = cachepin_binary__lookup(mod, fr->sym, NULL, NULL))) {
		has_off = fr->flags & CACHEPIN_FRAME_HAS_OFF;
		off = fn->addr + (has_off ? fr->symoff : 0);
		if (has_off && !o->has_base && (fr->flags & CACHEPIN_FRAME_HAS_IP) && fr->ip >= off) {
			o->base = fr->ip - off;
			o->has_base = true;
		}
	}
	if (!fn || fn->flags & CACHEPIN_FUNC_SYNTHETIC || off - fn->addr >= (fn->size ? fn->size : 1))
		return 1;
	memset(&key.key, 0, sizeof(key.key));
	key.key.obj = o;
	key.key.fn = fn;
	HASH_FIND(hh, pb->mfuncs, &key.key, sizeof(key.key), mf);
	if (!mf) {
		if (!(mf = calloc(1, sizeof(*mf))))
			return pb->err = -ENOMEM;
		mf->key = key.key;
		HASH_ADD(hh, pb->mfuncs, key, sizeof(mf->key), mf);
	}
	return pb_add_gran(pb, &mf->f, fn->size, off - fn->addr, has_off, w);
}

/*
 * A leaf in another object: counted there; a file's page offset is known
 * where the frame gives the file offset (perf.data) or an address in the
 * file (perf script's dso-relative ip), since a file is mapped at a page
 * boundary: the line's cache set below the page size is the same in every
 * run.  Its granule goes to the page's pseudo-function.  A kernel's
 * module whose file was given goes to its function instead.
 */
static int pb_add_other_in(struct cachepin_pbuild *pb, const struct cachepin_frame *fr, uint32_t pid,
			   double w)
{
	/* a kernel's module */
	bool kmod = (pb->flags & CACHEPIN_PBUILD_KERNEL) && (fr->flags & CACHEPIN_FRAME_KERNEL) &&
		    fr->dso && cachepin_kernel_dso(fr->dso, strlen(fr->dso)) == KERNEL_DSO_MODULE;
	struct pb_object *o = pb_object_of(pb, fr, pid, kmod);
	struct pb_page *pg, key_pg;
	uint64_t off;
	int r;

	if (!o)
		return pb->err;
	o->samples++;
	o->weight += w;
	/* other kernel code and perf's pseudo-maps are counted only */
	if (!kmod && ((fr->flags & CACHEPIN_FRAME_KERNEL) || fr->dso[0] == '['))
		return 0;
	if ((fr->flags & CACHEPIN_FRAME_HAS_FOFF) && !o->has_base &&
	    (fr->flags & CACHEPIN_FRAME_HAS_IP) && fr->ip >= fr->file_off) {
		o->base = fr->ip - fr->file_off;	/* of file offset 0; of a module's text */
		o->has_base = true;
	}
	if (kmod && !o->mod_tried) {
		o->mod = cachepin_modules__get(pb->modules, o->name);
		o->mod_tried = true;
	}
	if (kmod && o->mod && (r = pb_add_module(pb, fr, o, o->mod, w)) <= 0)
		return r;
	if (fr->flags & CACHEPIN_FRAME_HAS_FOFF)
		off = fr->file_off;
	else if (!kmod && (fr->flags & (CACHEPIN_FRAME_DSO_REL | CACHEPIN_FRAME_HAS_IP)) ==
			  (CACHEPIN_FRAME_DSO_REL | CACHEPIN_FRAME_HAS_IP))
		off = fr->ip;
	else
		return 0;
	memset(&key_pg.key, 0, sizeof(key_pg.key));
	key_pg.key.obj = o;
	key_pg.key.off = off & ~(uint64_t)(CACHEPIN_PROFILE_PAGE - 1);
	HASH_FIND(hh, pb->pages, &key_pg.key, sizeof(key_pg.key), pg);
	if (!pg) {
		if (!(pg = calloc(1, sizeof(*pg))))
			return pb->err = -ENOMEM;
		pg->key = key_pg.key;
		HASH_ADD(hh, pb->pages, key, sizeof(pg->key), pg);
	}
	return pb_add_gran(pb, &pg->f, CACHEPIN_PROFILE_PAGE, off & (CACHEPIN_PROFILE_PAGE - 1), true, w);
}

/*
 * A leaf outside the binary: as pb_add_other_in(), a kernel address that
 * the input gave no map of (a QEMU log, a lackey trace) in the module the
 * kernel had loaded there (cachepin_pbuild__set_modules()).
 */
static int pb_add_other(struct cachepin_pbuild *pb, const struct cachepin_frame *fr, uint32_t pid,
			double w)
{
	const struct cachepin_loaded *ld;
	struct cachepin_frame in_mod;

	/* a kernel address the input gave no map of, in a module as loaded */
	if ((pb->flags & CACHEPIN_PBUILD_KERNEL) && (fr->flags & CACHEPIN_FRAME_KERNEL) &&
	    (fr->flags & CACHEPIN_FRAME_HAS_IP) && !(fr->flags & CACHEPIN_FRAME_HAS_FOFF) &&
	    cachepin_kernel_dso_is_image(fr->dso) &&
	    (ld = cachepin_loaded__find(pb->loaded, pb->nr_loaded, fr->ip))) {
		in_mod = *fr;
		in_mod.dso = ld->name;
		in_mod.file_off = fr->ip - ld->base;
		in_mod.flags |= CACHEPIN_FRAME_HAS_FOFF;
		in_mod.flags &= ~(unsigned int)(CACHEPIN_FRAME_HAS_SYM | CACHEPIN_FRAME_HAS_OFF);
		fr = &in_mod;
	}
	return pb_add_other_in(pb, fr, pid, w);
}

int cachepin_pbuild__add(void *ctx, const struct cachepin_sample *s)
{
	static const uint32_t zero;

	return cachepin_pbuild__add_leaves(ctx, s, &zero, 1);
}

int cachepin_pbuild__add_leaves(void *ctx, const struct cachepin_sample *s,
				const uint32_t *leaf_off, size_t n)
{
	struct cachepin_pbuild *pb = ctx;
	struct cachepin_frame leaf;
	double w = (double)s->period, gw = 0;
	long fi, gfi = -1;
	uint64_t off;
	bool has_off;
	size_t k;
	int err;

	pb_set_slot(pb);
	pb->nr_samples += n;
	pb->period_sum += w * (double)n;
	if (!pb->event && s->event && !(pb->event = strdup(s->event)))
		return pb->err = -ENOMEM;
	if (!s->nr)
		return 0;
	leaf = s->frames[0];
	for (k = 0; k < n; k++) {
		leaf.ip = s->frames[0].ip + leaf_off[k];
		leaf.file_off = s->frames[0].file_off + leaf_off[k];
		fi = pb_resolve(pb, &leaf, 0, &off, &has_off);
		if (fi < 0) {
			pb_note_vector(pb, &leaf);
			if (pb_add_other(pb, &leaf, s->pid, w))
				return pb->err;
			continue;
		}
		pb->nr_matched++;
		pb->matched_weight += w;
		if (pb_mark_ran(pb, s->pid))
			return pb->err;
		if (pb_add_weight(pb, fi, off, has_off, w))
			return pb->err = -ENOMEM;
		/* leaves in one function share the rest of the chain */
		if (fi != gfi && gfi >= 0 && (err = pb_add_chain(pb, s, gfi, gw)))
			return err;
		if (fi != gfi)
			gw = 0;
		gfi = fi;
		gw += w;
	}
	return gfi >= 0 ? pb_add_chain(pb, s, gfi, gw) : 0;
}

static const char *func_object(const struct cachepin_binary *bin, const struct cachepin_func *f)
{
	const struct cachepin_unit *u = cachepin_binary__func_unit(bin, f);

	return u ? u->object : NULL;
}

static int cmp_pobject(const void *a, const void *b)
{
	const struct cachepin_pobject *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * F, the samples of a function, a page or a module's function, as P's
 * function NAME (of OBJECT, or NULL): its weights (INCL inclusive), SIZE
 * and granules.  The new function, or NULL (ENOMEM).
 */
static struct cachepin_pfunc *pb_put_func(struct cachepin_profile *p, const char *name,
					  const char *object, const struct pb_func *f, double incl,
					  uint64_t size)
{
	struct cachepin_pfunc *pf = cachepin_profile_add_func(p, name, object);
	uint32_t g;

	if (!pf)
		return NULL;
	pf->weight = f->weight;
	pf->samples = f->samples;
	pf->incl = incl;
	pf->size = size;
	for (g = 0; g < f->ngran; g++)
		if (f->gran[g] > 0 &&
		    cachepin_pfunc_add_gran(pf, g * CACHEPIN_PROFILE_GRANULE, f->gran[g],
					    f->sgran ? &f->sgran[g * CACHEPIN_PROFILE_SLICES] : NULL,
					    p->nr_slices))
			return NULL;
	return pf;
}

/* Add F's granules (of a page) into SUM, allocated as F's. */
static int pb_sum_page(struct pb_func *sum, const struct pb_func *f)
{
	uint32_t g, k;

	if (!sum->gran) {
		sum->ngran = f->ngran;
		if (!(sum->gran = calloc(f->ngran, sizeof(*sum->gran))) ||
		    (f->sgran && !(sum->sgran = calloc((size_t)f->ngran * CACHEPIN_PROFILE_SLICES,
							sizeof(*sum->sgran)))))
			return -ENOMEM;
	}
	sum->weight += f->weight;
	sum->samples += f->samples;
	for (g = 0; g < f->ngran && g < sum->ngran; g++) {
		sum->gran[g] += f->gran[g];
		for (k = 0; f->sgran && sum->sgran && k < CACHEPIN_PROFILE_SLICES; k++)
			sum->sgran[g * CACHEPIN_PROFILE_SLICES + k] += f->sgran[g * CACHEPIN_PROFILE_SLICES + k];
	}
	return 0;
}

static void pb_free_mpages(struct pb_mpage **all)
{
	struct pb_mpage *m, *tmp;

	HASH_ITER(hh, *all, m, tmp) {
		HASH_DEL(*all, m);
		free(m->name);
		free(m->f.gran);
		free(m->f.sgran);
		free(m);
	}
}

/* A program's libraries' or a kernel's modules' hot pages as the functions "[NAME+0xPAGE]". */
static int pb_finish_pages(struct cachepin_pbuild *pb, struct cachepin_profile *p)
{
	struct pb_mpage *all = NULL, *m;
	struct pb_page *pg;
	char name[PATH_MAX + 32];
	int err = -ENOMEM;

	for (pg = pb->pages; pg; pg = pg->hh.next) {
		if ((!pg->key.obj->kmodule && !pb_ran(pb, pg->key.obj->pid)) || !pg->f.gran)
			continue;
		/* a kernel's profile keeps its modules' pages, a program's its libraries' */
		if (!(pb->flags & CACHEPIN_PBUILD_USER) != pg->key.obj->kmodule)
			continue;
		snprintf(name, sizeof(name), "[%s+0x%" PRIx64 "]", pg->key.obj->name, pg->key.off);
		HASH_FIND_STR(all, name, m);
		if (!m) {
			if (!(m = calloc(1, sizeof(*m))) || !(m->name = strdup(name))) {
				free(m);
				goto out;
			}
			HASH_ADD_KEYPTR(hh, all, m->name, strlen(m->name), m);
		}
		if (pb_sum_page(&m->f, &pg->f))
			goto out;
	}
	for (m = all; m; m = m->hh.next)
		if (!pb_put_func(p, m->name, NULL, &m->f, m->f.weight, CACHEPIN_PROFILE_PAGE))
			goto out;
	err = 0;
out:
	pb_free_mpages(&all);
	return err;
}

/* The kernel's module functions, by their names and the module's file name. */
static int pb_finish_modules(struct cachepin_pbuild *pb, struct cachepin_profile *p)
{
	struct pb_mfunc *mf;

	for (mf = pb->mfuncs; mf; mf = mf->hh.next)
		if (!pb_put_func(p, mf->key.fn->name, mf->key.obj->name, &mf->f, mf->f.weight,
				 mf->key.fn->size))
			return -ENOMEM;
	return 0;
}

/*
 * The other objects of the processes that ran the binary into P (another
 * process's libraries are not the program's), and for a program their
 * libraries' hot pages.
 */
static int pb_finish_objects(struct cachepin_pbuild *pb, struct cachepin_profile *p)
{
	struct pb_object *o;
	size_t n = HASH_COUNT(pb->objects), i;

	if (!n)
		return 0;
	if (!(p->objects = calloc(n, sizeof(*p->objects))))
		return -ENOMEM;
	for (o = pb->objects; o; o = o->hh.next) {
		struct cachepin_pobject *po = NULL;

		if (!o->kmodule && !pb_ran(pb, o->pid))
			continue;
		for (i = 0; i < p->nr_objects; i++)
			if (!strcmp(p->objects[i].name, o->name))
				po = &p->objects[i];
		if (!po) {
			po = &p->objects[p->nr_objects];
			if (!(po->name = strdup(o->name)))
				return -ENOMEM;
			p->nr_objects++;
		}
		po->samples += o->samples;
		po->weight += o->weight;
		if (!po->has_base && o->has_base) {
			po->base = o->base;
			po->has_base = true;
		}
	}
	qsort(p->objects, p->nr_objects, sizeof(*p->objects), cmp_pobject);
	/* a kernel's user space is counted only */
	return pb_finish_pages(pb, p) ? -ENOMEM : pb_finish_modules(pb, p);
}

static void pb_free_objects(struct cachepin_pbuild *pb)
{
	struct pb_object *o, *otmp;
	struct pb_page *pg, *ptmp;
	struct pb_pid *r, *rtmp;
	struct pb_mfunc *mf, *mtmp;

	HASH_ITER(hh, pb->pages, pg, ptmp) {
		HASH_DEL(pb->pages, pg);
		free(pg->f.gran);
		free(pg->f.sgran);
		free(pg);
	}
	HASH_ITER(hh, pb->objects, o, otmp) {
		HASH_DEL(pb->objects, o);
		free(o->key);
		free(o);
	}
	HASH_ITER(hh, pb->ran, r, rtmp) {
		HASH_DEL(pb->ran, r);
		free(r);
	}
	HASH_ITER(hh, pb->mfuncs, mf, mtmp) {
		HASH_DEL(pb->mfuncs, mf);
		free(mf->f.gran);
		free(mf->f.sgran);
		free(mf);
	}
}

/*
 * The phases of the recording as P's slices: the hits' windows
 * clustered, each granule's weight per phase.  Too few windows (or
 * phases): the time slots stay.
 */
static int pb_phases(struct cachepin_pbuild *pb, struct cachepin_profile *p)
{
	uint32_t *feat, *win, *phase = NULL, nwin, k;
	size_t i, n = pb->nr_hits;
	int np = 0;

	if (!n || pb->no_phases || !(pb->flags & CACHEPIN_PBUILD_TIMED))
		return 0;
	nwin = pb->hits[n - 1].sample / CACHEPIN_PHASE_WINDOW + 1;
	feat = malloc(n * sizeof(*feat));
	win = malloc(n * sizeof(*win));
	if (feat && win)
		phase = malloc(nwin * sizeof(*phase));
	if (!phase) {
		np = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		feat[i] = pb->hits[i].feat;
		win[i] = pb->hits[i].sample / CACHEPIN_PHASE_WINDOW;
	}
	np = cachepin_phase__cluster(feat, win, n, (uint32_t)pb->nr_feat, nwin,
				     CACHEPIN_PROFILE_SLICES, phase);
	if (np <= 0)
		goto out;
	for (i = 0; i < pb->nr_feat; i++) {
		struct pb_func *f = pb->feat_f[i];

		memset(f->sgran, 0, (size_t)f->ngran * CACHEPIN_PROFILE_SLICES * sizeof(*f->sgran));
	}
	for (i = 0; i < n; i++) {
		const struct pb_hit *h = &pb->hits[i];

		pb->feat_f[h->feat]->sgran[(size_t)h->g * CACHEPIN_PROFILE_SLICES +
					   phase[h->sample / CACHEPIN_PHASE_WINDOW]] += h->w;
	}
	/* the hits kept their weights in single precision: the sums are the granules' */
	for (i = 0; i < pb->nr_feat; i++) {
		struct pb_func *f = pb->feat_f[i];
		uint32_t g;

		for (g = 0; g < f->ngran; g++) {
			double *sg = &f->sgran[(size_t)g * CACHEPIN_PROFILE_SLICES], sum = 0;

			for (k = 0; k < (uint32_t)np; k++)
				sum += sg[k];
			for (k = 0; sum > 0 && k < (uint32_t)np; k++)
				sg[k] *= f->gran[g] / sum;
		}
	}
	p->nr_slices = (uint32_t)np;
	p->phases = true;
out:
	free(feat);
	free(win);
	free(phase);
	return np < 0 ? np : 0;
}

struct cachepin_profile *cachepin_pbuild__finish(struct cachepin_pbuild *pb)
{
	const struct cachepin_binary *bin = pb->bin;
	struct cachepin_profile *p = calloc(1, sizeof(*p));
	struct edge_ent *e, *tmp;
	int32_t *slot = NULL;
	char bid[129];
	bool done = false;
	size_t i;
	int err = pb->err;

	slot = malloc((bin->nr_funcs + 1) * sizeof(*slot));
	if (!p || !slot || err)
		goto fail;
	pb_report_vectors(pb);
	p->granule = CACHEPIN_PROFILE_GRANULE;
	p->event = pb->event;
	pb->event = NULL;
	p->binary = strdup(pb->base);
	p->build_id = strdup(cachepin_binary__build_id_str(bin, bid));
	if (!p->binary || !p->build_id)
		goto fail;
	p->nr_samples = pb->nr_samples;
	p->nr_matched = pb->nr_matched;
	p->period_sum = pb->period_sum;
	p->matched_weight = pb->matched_weight;
	if (pb->flags & CACHEPIN_PBUILD_TIMED)
		p->nr_slices = pb->nr_samples ? pb->slot + 1 : 0;
	if (p->nr_slices < 2)
		p->nr_slices = 0;	/* one slice is no time order */
	if ((pb->flags & CACHEPIN_PBUILD_PHASES) && (err = pb_phases(pb, p)))
		goto fail;
	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *bf = &bin->funcs[i];
		const struct pb_func *f = &pb->f[i];

		slot[i] = -1;
		if (f->weight == 0 && f->incl == 0)
			continue;
		if (!pb_put_func(p, bf->name, (bf->flags & CACHEPIN_FUNC_DUPNAME) ? func_object(bin, bf) : NULL,
				 f, f->incl, bf->size))
			goto fail;
		slot[i] = (int32_t)(p->nr_funcs - 1);
	}
	HASH_ITER(hh, pb->edges, e, tmp) {
		uint32_t caller = (uint32_t)(e->key >> 32), callee = (uint32_t)e->key;

		if (slot[caller] < 0 || slot[callee] < 0)
			continue;
		if (cachepin_profile_add_edge(p, (uint32_t)slot[caller], (uint32_t)slot[callee],
					      e->callsite, e->weight, e->flags))
			goto fail;
	}
	if (pb_finish_objects(pb, p) || cachepin_profile_sort(p))
		goto fail;
	done = true;
fail:
	free(slot);
	if (!done) {
		cachepin_profile__free(p);
		p = NULL;
	}
	for (i = 0; i < bin->nr_funcs; i++) {
		free(pb->f[i].gran);
		free(pb->f[i].sgran);
	}
	HASH_ITER(hh, pb->edges, e, tmp) {
		HASH_DEL(pb->edges, e);
		free(e);
	}
	pb_free_objects(pb);
	free(pb->hits);
	free(pb->feat_f);
	free(pb->f);
	free(pb->event);
	for (i = 0; i < pb->nr_alias; i++)
		free(pb->alias[i]);
	free(pb->alias);
	free(pb);
	if (!done)
		errno = err ? -err : ENOMEM;
	return p;
}
