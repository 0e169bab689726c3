// SPDX-License-Identifier: GPL-2.0-or-later
/* The text format of a profile, cachepin-profile(5): writer and reader. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include "cachepin/profile.h"
#include "internal.h"
#include "scan.h"
#include "profile-int.h"

/* "NAME OBJECT " of a function, quoted where they need it. */
static void put_func(FILE *f, const struct cachepin_pfunc *pf)
{
	cachepin_scan_put_field(f, pf->name);
	fputc(' ', f);
	cachepin_scan_put_opt(f, pf->object);
	fputc(' ', f);
}

static void put_num(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.9g", v);
}

int cachepin_profile__write(const struct cachepin_profile *p, FILE *f)
{
	size_t i, j;

	/*
	 * version 2 adds the time slices, version 3 the recorded cache and
	 * the other objects, version 4 slices that are phases: profiles
	 * without them keep the version that reads them
	 */
	fprintf(f, "# cachepin-profile %d\n", p->phases ? 4 : p->rec_sets || p->nr_objects ? 3 :
		p->nr_slices ? 2 : 1);
	fputs("event ", f);
	cachepin_scan_put_opt(f, p->event);
	fputs("\nbinary ", f);
	cachepin_scan_put_opt(f, p->binary);
	fputc('\n', f);
	fprintf(f, "build-id %s\n", p->build_id && *p->build_id ? p->build_id : "-");
	fprintf(f, "granule %u\n", p->granule);
	fprintf(f, "samples %" PRIu64 " %" PRIu64 "\n", p->nr_samples, p->nr_matched);
	fprintf(f, "period ");
	put_num(f, p->period_sum);
	fputc(' ', f);
	put_num(f, p->matched_weight);
	fputc('\n', f);
	if (p->rec_sets)
		fprintf(f, "cache %u %u %u\n", p->rec_sets, p->rec_ways, p->rec_line);
	if (p->nr_slices)
		fprintf(f, "slices %u\n", p->nr_slices);
	if (p->nr_slices && p->phases)
		fputs("phases\n", f);
	for (i = 0; i < p->nr_objects; i++) {
		const struct cachepin_pobject *o = &p->objects[i];

		fputs("o ", f);
		cachepin_scan_put_field(f, o->name);
		fprintf(f, " %" PRIu64 " ", o->samples);
		put_num(f, o->weight);
		if (o->has_base)
			fprintf(f, " 0x%" PRIx64 "\n", o->base);
		else
			fprintf(f, " -\n");
	}
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pfunc *pf = &p->funcs[i];

		fputs("f ", f);
		put_func(f, pf);
		put_num(f, pf->weight);
		fprintf(f, " %" PRIu64 " ", pf->samples);
		put_num(f, pf->incl);
		fprintf(f, " %" PRIu64 "\n", pf->size);
		for (j = 0; j < pf->nr_grans; j++) {
			uint32_t k;

			fprintf(f, "g 0x%x ", pf->grans[j].off);
			put_num(f, pf->grans[j].weight);
			for (k = 0; k < p->nr_slices; k++) {
				fputc(' ', f);
				put_num(f, pf->slices[j * p->nr_slices + k]);
			}
			fputc('\n', f);
		}
	}
	for (i = 0; i < p->nr_edges; i++) {
		const struct cachepin_pedge *e = &p->edges[i];
		const struct cachepin_pfunc *a = &p->funcs[e->caller], *b = &p->funcs[e->callee];

		fputs("e ", f);
		put_func(f, a);
		put_func(f, b);
		if (e->callsite == UINT32_MAX)
			fprintf(f, "- ");
		else
			fprintf(f, "0x%x ", e->callsite);
		put_num(f, e->weight);
		fprintf(f, " %s%s\n", e->flags & CACHEPIN_PEDGE_DYNAMIC ? "d" : "",
			e->flags & CACHEPIN_PEDGE_STATIC ? "s" : "");
	}
	return ferror(f) ? -EIO : 0;
}

static int parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return (*end || errno || !isfinite(*v) || end == s) ? -EINVAL : 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return (*end || errno) ? -EINVAL : 0;
}

/*
 * A function's key is "NAME\tOBJECT", NULL and "-" no object, read in
 * its three parts, never copied: its bytes one by one, then -1.
 */
struct fkey {
	const char *part[3];
	int i;
};

static struct fkey fkey(const char *name, const char *obj)
{
	return (struct fkey){ .part = { name, "\t", obj ? obj : "-" } };
}

static int fkey_next(struct fkey *k)
{
	while (k->i < 3 && !*k->part[k->i])
		k->i++;
	return k->i < 3 ? (unsigned char)*k->part[k->i]++ : -1;
}

static uint64_t fkey_hash(struct fkey k)
{
	uint64_t h = FNV1A_INIT;
	int c;

	while ((c = fkey_next(&k)) >= 0) {
		h ^= (uint64_t)c;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static bool fkey_eq(struct fkey a, struct fkey b)
{
	int c;

	while ((c = fkey_next(&a)) == fkey_next(&b))
		if (c < 0)
			return true;
	return false;
}

/*
 * The reader between lines.  Line readers return 0, -ENOMEM, or -EINVAL
 * for a bad line, with WHAT saying why.
 */
struct reader {
	struct cachepin_profile *p;
	struct cachepin_pfunc *cur;	/* of the last 'f' line, for 'g' lines */
	/*
	 * The 'f' lines by fkey(): open addressing, a slot the index of a
	 * function + 1, 0 free; cap_slots a power of 2, at most half full
	 */
	uint32_t *slots;
	size_t cap_slots;
	unsigned long lineno;		/* lines read */
	const char *what;
	bool said;			/* the line reader's error, said */
	double total, gsum;		/* the weights so far, of all and of the last 'f' */
	/*
	 * The 'g' lines of the last 'f', until its granules and their
	 * slices are copied to it, each array of its own size
	 */
	struct cachepin_pgran *grans;
	size_t nr_grans, cap_grans;
	double *slices;
	size_t cap_slices;
};

static int bad_line(struct reader *r, const char *what)
{
	r->what = what;
	return -EINVAL;
}

static const char *opt_field(const char *s)
{
	return strcmp(s, "-") ? s : NULL;
}

/* Replace *DST by a copy of S (NULL: none).  Returns 0 or -ENOMEM. */
static int set_str(char **dst, const char *s)
{
	char *copy = NULL;

	if (s && !(copy = strdup(s)))
		return -ENOMEM;
	free(*dst);
	*dst = copy;
	return 0;
}

/* SETS WAYS LINE of a 'cache' line: each 1 to UINT32_MAX, as perf records them */
static int read_cache(struct reader *r, char **fv)
{
	uint64_t v[3];
	int i;

	for (i = 0; i < 3; i++)
		if (parse_u64(fv[1 + i], &v[i]) || !v[i] || v[i] > UINT32_MAX)
			return bad_line(r, "bad 'cache' line (sets, ways, line size)");
	r->p->rec_sets = (uint32_t)v[0];
	r->p->rec_ways = (uint32_t)v[1];
	r->p->rec_line = (uint32_t)v[2];
	return 0;
}

/* event, binary, build-id, granule, samples, period, cache, slices */
static int read_header(struct reader *r, char **fv, int nf)
{
	struct cachepin_profile *p = r->p;
	uint64_t u;

	if (!strcmp(fv[0], "event") && nf == 2)
		return set_str(&p->event, opt_field(fv[1]));
	if (!strcmp(fv[0], "binary") && nf == 2)
		return set_str(&p->binary, fv[1]);
	if (!strcmp(fv[0], "build-id") && nf == 2)
		return set_str(&p->build_id, opt_field(fv[1]) ? fv[1] : "");
	if (!strcmp(fv[0], "granule") && nf == 2) {
		if (parse_u64(fv[1], &u) || !u || u > 4096)
			return bad_line(r, "bad granule");
		p->granule = (uint32_t)u;
		return 0;
	}
	if (!strcmp(fv[0], "samples") && nf == 3) {
		if (parse_u64(fv[1], &p->nr_samples) || parse_u64(fv[2], &p->nr_matched))
			return bad_line(r, "bad 'samples' line");
		if (p->nr_matched > p->nr_samples)
			return bad_line(r, "'samples' has more matched samples than samples");
		return 0;
	}
	if (!strcmp(fv[0], "cache") && nf == 4)
		return read_cache(r, fv);
	if (!strcmp(fv[0], "slices") && nf == 2) {
		if (parse_u64(fv[1], &u) || u < 2 || u > CACHEPIN_PROFILE_SLICES)
			return bad_line(r, "bad 'slices' line (2 to 16 time slices)");
		if (p->nr_funcs)
			return bad_line(r, "'slices' after the first 'f' line");
		p->nr_slices = (uint32_t)u;
		return 0;
	}
	if (!strcmp(fv[0], "phases") && nf == 1) {
		if (!p->nr_slices || p->nr_funcs)
			return bad_line(r, "'phases' not right after the 'slices' line");
		p->phases = true;
		return 0;
	}
	if (!strcmp(fv[0], "period") && nf == 3) {
		if (parse_num(fv[1], &p->period_sum) || parse_num(fv[2], &p->matched_weight))
			return bad_line(r, "bad 'period' line");
		return 0;
	}
	return bad_line(r, "unknown line");
}

/* o NAME SAMPLES WEIGHT BASE: code of another object the samples hit */
static int read_object(struct reader *r, char **fv, int nf)
{
	struct cachepin_profile *p = r->p;
	struct cachepin_pobject *o, *all;
	size_t i;

	if (nf != 5)
		return bad_line(r, "'o' needs name, samples, weight, base");
	if (p->nr_funcs)
		return bad_line(r, "'o' after the first 'f' line");
	for (i = 0; i < p->nr_objects; i++)
		if (!strcmp(p->objects[i].name, fv[1]))
			return bad_line(r, "a second 'o' line for this object");
	all = realloc(p->objects, (p->nr_objects + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	p->objects = all;
	o = &all[p->nr_objects];
	memset(o, 0, sizeof(*o));
	if (!(o->name = strdup(fv[1])))
		return -ENOMEM;
	p->nr_objects++;
	o->has_base = strcmp(fv[4], "-") != 0;
	if (parse_u64(fv[2], &o->samples) || parse_num(fv[3], &o->weight) || o->weight < 0 ||
	    (o->has_base && parse_u64(fv[4], &o->base)))
		return bad_line(r, "bad number in 'o' line");
	if (o->samples > p->nr_samples)
		return bad_line(r, "'o' has more samples than the profile");
	return 0;
}

/* The slot of function NAME of OBJECT: where it is, else the free one for it. */
static uint32_t *func_slot(struct reader *r, const char *name, const char *object)
{
	struct fkey k = fkey(name, object);
	size_t mask = r->cap_slots - 1, i = (size_t)fkey_hash(k) & mask;

	for (;; i = (i + 1) & mask) {
		const struct cachepin_pfunc *pf;

		if (!r->slots[i])
			return &r->slots[i];
		pf = &r->p->funcs[r->slots[i] - 1];
		if (fkey_eq(k, fkey(pf->name, pf->object)))
			return &r->slots[i];
	}
}

/* Index the last function added, for the 'e' lines. */
static int index_func(struct reader *r)
{
	const struct cachepin_pfunc *pf = r->cur;
	size_t n = r->p->nr_funcs, i;

	if (2 * n > r->cap_slots) {
		uint32_t *old = r->slots;
		size_t cap = r->cap_slots ? 2 * r->cap_slots : 1024;

		r->slots = calloc(cap, sizeof(*r->slots));
		if (!r->slots) {
			r->slots = old;
			return -ENOMEM;
		}
		r->cap_slots = cap;
		for (i = 0; i + 1 < n; i++)
			*func_slot(r, r->p->funcs[i].name, r->p->funcs[i].object) = (uint32_t)(i + 1);
		free(old);
	}
	*func_slot(r, pf->name, pf->object) = (uint32_t)n;
	return 0;
}

/* The index of function NAME of OBJECT into *IDX: 0, or 1 if none. */
static int find_func(struct reader *r, const char *name, const char *object, uint32_t *idx)
{
	const uint32_t *slot;

	if (!r->cap_slots || !*(slot = func_slot(r, name, object)))
		return 1;
	*idx = *slot - 1;
	return 0;
}

/*
 * The granules of the last 'f' line and their slices, gathered by
 * read_gran(), into arrays of their own size: growing each function's
 * arrays by doubling (from 16 granules) left most of them unused, or
 * holes in the heap once fitted.  Returns 0 or -ENOMEM.
 */
static int end_func(struct reader *r)
{
	struct cachepin_pfunc *pf = r->cur;
	size_t n = r->nr_grans, ns = r->p->nr_slices;

	r->nr_grans = 0;
	if (!pf || !n)
		return 0;
	pf->grans = malloc(n * sizeof(*pf->grans));
	if (!pf->grans)
		return -ENOMEM;
	memcpy(pf->grans, r->grans, n * sizeof(*pf->grans));
	pf->nr_grans = pf->cap_grans = n;
	if (!ns)
		return 0;
	pf->slices = malloc(n * ns * sizeof(*pf->slices));
	if (!pf->slices)
		return -ENOMEM;
	memcpy(pf->slices, r->slices, n * ns * sizeof(*pf->slices));
	pf->cap_slices = n * ns;
	return 0;
}

/* f NAME OBJECT WEIGHT SAMPLES INCLUSIVE SIZE */
static int read_func(struct reader *r, char **fv, int nf)
{
	struct cachepin_pfunc *pf;

	uint32_t dup;
	int err;

	if (nf != 7)
		return bad_line(r, "'f' needs name, object, weight, samples, inclusive, size");
	/* two 'f' lines of one function would stay two functions */
	if ((err = find_func(r, fv[1], opt_field(fv[2]), &dup)) <= 0)
		return err < 0 ? err : bad_line(r, "a second 'f' line for this function");
	if ((err = end_func(r)))	/* before the array of functions may move */
		return err;
	pf = cachepin_profile_add_func(r->p, fv[1], opt_field(fv[2]));
	if (!pf)
		return -ENOMEM;
	r->cur = pf;
	if (parse_num(fv[3], &pf->weight) || parse_u64(fv[4], &pf->samples) ||
	    parse_num(fv[5], &pf->incl) || parse_u64(fv[6], &pf->size) || pf->weight < 0)
		return bad_line(r, "bad number in 'f' line");
	/* sums that overflow gave 0 misses everywhere and '-nan %' */
	r->total += pf->weight;
	r->gsum = 0;
	if (!isfinite(r->total))
		return bad_line(r, "the weights add up to more than a number holds (scale them down)");
	return index_func(r);
}

/* g OFFSET WEIGHT [SLICE-WEIGHT...], of the last 'f' line */
static int read_gran(struct reader *r, char **fv, int nf)
{
	uint32_t ns = r->p->nr_slices, k;
	double w, *slice;
	uint64_t off;

	if (!r->cur || nf != 3 + (int)ns || parse_u64(fv[1], &off) || parse_num(fv[2], &w) ||
	    off > UINT32_MAX || w < 0)
		return bad_line(r, ns ? "bad 'g' line (needs a preceding 'f', offset, weight, a weight per slice)" :
				"bad 'g' line (needs a preceding 'f', offset, weight)");
	if ((ns && GROW(r->slices, r->cap_slices, (r->nr_grans + 1) * ns)) ||
	    GROW(r->grans, r->cap_grans, r->nr_grans + 1))
		return -ENOMEM;
	slice = ns ? &r->slices[r->nr_grans * ns] : NULL;
	for (k = 0; k < ns; k++)
		if (parse_num(fv[3 + k], &slice[k]) || slice[k] < 0)
			return bad_line(r, "bad slice weight in 'g' line");
	r->gsum += w;
	if (!isfinite(r->gsum))
		return bad_line(r, "the weights add up to more than a number holds (scale them down)");
	r->grans[r->nr_grans++] = (struct cachepin_pgran){ .off = (uint32_t)off, .weight = w };
	return 0;
}

/* e CALLER OBJECT CALLEE OBJECT CALLSITE WEIGHT FLAGS */
static int read_edge(struct reader *r, char **fv, int nf)
{
	uint64_t cs = UINT32_MAX;
	unsigned int fl = 0;
	uint32_t a, b;
	double w;
	int err;

	if (nf != 8 || (strcmp(fv[5], "-") && parse_u64(fv[5], &cs)) || parse_num(fv[6], &w))
		return bad_line(r, "bad 'e' line (caller, object, callee, object, callsite, weight, flags)");
	if ((err = find_func(r, fv[1], fv[2], &a)) || (err = find_func(r, fv[3], fv[4], &b)))
		return err < 0 ? err : bad_line(r, "edge names a function that has no 'f' line");
	if (strchr(fv[7], 'd'))
		fl |= CACHEPIN_PEDGE_DYNAMIC;
	if (strchr(fv[7], 's'))
		fl |= CACHEPIN_PEDGE_STATIC;
	return cachepin_profile_add_edge(r->p, a, b, (uint32_t)cs, w, fl);
}

/* One line: the version line first, then comments, blank and data lines. */
static int read_line(struct reader *r, char *line)
{
	char *fv[4 + CACHEPIN_PROFILE_SLICES];
	int nf;

	if (r->lineno == 1)
		return strncmp(line, "# cachepin-profile ", 19) || !line[19] || !strchr("1234", line[19]) ||
		       (line[20] && !isspace((unsigned char)line[20])) ?
		       bad_line(r, "not a cachepin profile (no '# cachepin-profile 1' to '4' line)") : 0;
	if (line[0] == '#')
		return 0;
	nf = (int)cachepin_scan_split_fields(line, fv, ARRAY_SIZE(fv));
	if (nf < 0)
		return bad_line(r, "a quoted field without its closing '\"' (or a bad escape)");
	if (!nf)
		return 0;
	if (!strcmp(fv[0], "f"))
		return read_func(r, fv, nf);
	if (!strcmp(fv[0], "g"))
		return read_gran(r, fv, nf);
	if (!strcmp(fv[0], "e"))
		return read_edge(r, fv, nf);
	if (!strcmp(fv[0], "o"))
		return read_object(r, fv, nf);
	return read_header(r, fv, nf);
}

/*
 * Every line of F, then the checks of the whole.  Also the line reader's
 * errors (said: r->said).
 */
static int read_all(struct reader *r, FILE *f, const char *path)
{
	struct scan_reader sr = { .f = f };
	char *line;
	int err = 0;

	while ((line = cachepin_scan_text_line(&sr, path, &r->lineno, &err))) {
		err = read_line(r, line);
		if (err)
			break;
	}
	r->said = err && !line;
	cachepin_scan_release(&sr);
	if (!err)
		err = end_func(r);
	if (!err && r->lineno == 0)
		err = bad_line(r, "empty file");
	return err;
}

struct cachepin_profile *cachepin_profile__read(const char *path)
{
	struct reader r = { 0 };
	int err = -ENOMEM;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(-err));
		errno = -err;
		return NULL;
	}
	r.p = calloc(1, sizeof(*r.p));
	if (r.p) {
		r.p->granule = CACHEPIN_PROFILE_GRANULE;
		err = read_all(&r, f, path);
	}
	fclose(f);
	free(r.grans);
	free(r.slices);
	free(r.slots);
	/* the index of the names gone first: the sort's arrays take its place */
	if (!err)
		err = cachepin_profile_sort(r.p);
	if (!err)
		return r.p;
	if (r.said)
		;
	else if (r.what)
		pr_warn("'%s':%lu: %s\n", path, r.lineno ? r.lineno : 1, r.what);
	else if (err == -ENOMEM)
		pr_warn("'%s': out of memory\n", path);
	else
		pr_warn("cannot read '%s': %s\n", path, strerror(-err));
	cachepin_profile__free(r.p);
	errno = -err;
	return NULL;
}
