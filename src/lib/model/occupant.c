// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Code outside the binary: what share of the samples other objects took,
 * and a program's shared libraries' hot code as fixed occupants of their
 * cache sets.
 *
 * A library is mapped at a page boundary, so a line's set is the same in
 * every run below the page size (CACHEPIN_PROFILE_PAGE); the bits above
 * it come from the load address, which the loader (and ASLR) chooses per
 * run, as a kernel module's do.  The profile keeps each hot page of a
 * library as the function "[NAME+0xPAGE]"; here each becomes a synthetic
 * function of the binary at an address that is, modulo 16 MiB, where the
 * recording had it (its file offset when the recording gave no address),
 * in a stretch of the address space of its own past the binary's end.  So
 * the model and the planner count its lines in their sets, and no plan
 * moves them.  Scored, their misses are each library's.
 *
 * A kernel module whose file was given (--modules) is kept by function
 * instead, named with the module's file name as its object
 * ("nf_conntrack.ko"): each becomes a synthetic function at the module's
 * recorded load address plus its offset in the module's text as the file
 * lays it out, so a rebuilt module's functions are where they now are.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include "cachepin/modules.h"
#include "cachepin/profile.h"
#include "cachepin/score.h"
#include "internal.h"
#include "binary-int.h"
#include "profile-int.h"

#define REGION (1ULL << 24)	/* every L1 way span is far smaller */

static const char OCC_WHY[] = "code of a shared library or a kernel module: its sets are where it is loaded";

/* The object of a page function "[NAME+0xPAGE]" of P, and the page. */
static const struct cachepin_pobject *page_of(const struct cachepin_profile *p, const char *fn,
					      uint64_t *page)
{
	const char *plus = strrchr(fn, '+');
	size_t i, len;
	char *end;

	if (fn[0] != '[' || !plus || plus[1] != '0' || plus[2] != 'x')
		return NULL;
	errno = 0;
	*page = strtoull(plus + 3, &end, 16);
	if (errno || end == plus + 3 || strcmp(end, "]") || *page % CACHEPIN_PROFILE_PAGE)
		return NULL;
	len = (size_t)(plus - fn - 1);
	for (i = 0; i < p->nr_objects; i++)
		if (strlen(p->objects[i].name) == len && !memcmp(p->objects[i].name, fn + 1, len))
			return &p->objects[i];
	return NULL;
}

/* The module of P that P's function PF is in ("f NAME MODULE.ko"), or NULL. */
static const struct cachepin_pobject *module_of(const struct cachepin_profile *p,
						const struct cachepin_pfunc *pf)
{
	size_t i;

	if (!cachepin_pfunc_in_module(pf))
		return NULL;
	for (i = 0; i < p->nr_objects; i++)
		if (!strcmp(p->objects[i].name, pf->object))
			return &p->objects[i];
	return NULL;
}

/* The object of P whose code BIN's synthetic function F is, or NULL. */
static const struct cachepin_pobject *occupant_of(const struct cachepin_profile *p,
						  const struct cachepin_binary *bin,
						  const struct cachepin_func *f)
{
	const struct cachepin_unit *u = cachepin_binary__func_unit(bin, f);
	uint64_t page;
	size_t i;

	if (!(f->flags & CACHEPIN_FUNC_SYNTHETIC))
		return NULL;
	if (u && u->object) {
		for (i = 0; i < p->nr_objects; i++)
			if (!strcmp(p->objects[i].name, u->object))
				return &p->objects[i];
		return NULL;
	}
	return page_of(p, f->name, &page);
}

size_t cachepin_occupants__base_name(const char *name, unsigned int *page)
{
	const char *at = strrchr(name, '@');
	char *end;
	unsigned long a;

	*page = 0;
	if (!at || strncmp(at, "@page", 5) || !isdigit((unsigned char)at[5]))
		return strlen(name);
	a = strtoul(at + 5, &end, 10);
	if (*end || !a || a > 64)
		return strlen(name);
	*page = (unsigned int)a;
	return (size_t)(at - name);
}

char *cachepin_occupants__page_name(char *buf, size_t size, const char *name, unsigned int a)
{
	snprintf(buf, size, "%s@page%u", name, a);
	return buf;
}

int cachepin_occupants__spread(struct cachepin_profile *p, unsigned int k)
{
	size_t n = p->nr_funcs, i, g, s;
	unsigned int a;
	char name[4096];

	if (k <= 1)
		return 0;
	for (i = 0; i < n; i++) {
		struct cachepin_pfunc *pf = &p->funcs[i];

		if (!cachepin_pfunc_in_module(pf))
			continue;
		pf->weight /= k;
		pf->incl /= k;
		for (g = 0; g < pf->nr_grans; g++) {
			pf->grans[g].weight /= k;
			for (s = 0; pf->slices && s < p->nr_slices; s++)
				pf->slices[g * p->nr_slices + s] /= k;
		}
		for (a = 1; a < k; a++) {
			struct cachepin_pfunc *c;

			cachepin_occupants__page_name(name, sizeof(name), p->funcs[i].name, a);
			if (!(c = cachepin_profile_add_func(p, name, p->funcs[i].object)))
				return -ENOMEM;
			pf = &p->funcs[i];	/* the array may have moved */
			c->weight = pf->weight;
			c->samples = pf->samples;
			c->incl = pf->incl;
			c->size = pf->size;
			for (g = 0; g < pf->nr_grans; g++)
				if (cachepin_pfunc_add_gran(c, pf->grans[g].off, pf->grans[g].weight,
							    pf->slices ? &pf->slices[g * p->nr_slices] : NULL,
							    p->nr_slices))
					return -ENOMEM;
		}
	}
	return 0;
}

bool cachepin_occupants__is_page(const struct cachepin_profile *p, const char *name)
{
	uint64_t page;

	return page_of(p, name, &page) != NULL;
}

int cachepin_score__object_misses(const struct cachepin_score *s, const struct cachepin_binary *bin,
				  const struct cachepin_profile *p, uint64_t *out, size_t *pages)
{
	const struct cachepin_pobject *o;
	size_t i;
	int n = 0;

	if (!s->func_miss)
		return -EINVAL;
	for (i = 0; i < p->nr_objects; i++) {
		out[i] = 0;
		if (pages)
			pages[i] = 0;
	}
	for (i = 0; i < bin->nr_funcs; i++) {
		if (!(o = occupant_of(p, bin, &bin->funcs[i])))
			continue;
		out[o - p->objects] += s->func_miss[i];
		if (pages && !pages[o - p->objects]++)
			n++;
	}
	return n;
}

static int cmp_synth(const void *a, const void *b)
{
	const struct cachepin_synth *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

int cachepin_occupants__add(struct cachepin_binary *bin, const struct cachepin_profile *p,
			    struct cachepin_modules *mods, size_t *nr_added, size_t *nr_unplaced)
{
	struct cachepin_synth *syn;
	uint64_t region, page;
	size_t n = 0, i, k;
	int err;

	*nr_added = *nr_unplaced = 0;
	if (!p->nr_objects)
		return 0;
	syn = calloc(p->nr_funcs + 1, sizeof(*syn));
	if (!syn)
		return -ENOMEM;
	region = (cachepin_binary_end(bin) + REGION - 1) & ~(REGION - 1);
	for (k = 0; k < p->nr_objects; k++) {
		const struct cachepin_pobject *o = &p->objects[k];
		const struct cachepin_binary *mod = NULL;
		unsigned int pages = 0;
		size_t first = n;

		for (i = 0; i < p->nr_funcs; i++) {
			const struct cachepin_pfunc *pf = &p->funcs[i];
			const struct cachepin_func *fn;

			if (module_of(p, pf) == o) {
				unsigned int pg;
				size_t len = cachepin_occupants__base_name(pf->name, &pg);
				char base[4096];

				if (cachepin_binary__lookup(bin, pf->name, pf->object, NULL))
					continue;
				if (!mod && !(mod = cachepin_modules__get(mods, o->name))) {
					*nr_unplaced += !pg;
					continue;
				}
				snprintf(base, sizeof(base), "%.*s", (int)len, pf->name);
				if (!(fn = cachepin_binary__lookup(mod, base, NULL, NULL)) ||
				    (fn->flags & CACHEPIN_FUNC_SYNTHETIC)) {
					*nr_unplaced += !pg;
					continue;
				}
				syn[n].name = pf->name;
				syn[n].object = o->name;
				/* each page's copies a stretch of their own: no line shared */
				syn[n].addr = region + 2 * REGION * pg +
					      ((o->base + (uint64_t)pg * CACHEPIN_PROFILE_PAGE + fn->addr) &
					       (REGION - 1));
				if (pg > pages)
					pages = pg;
				syn[n].size = fn->size ? fn->size : 1;
				n++;
				continue;
			}
			if (page_of(p, pf->name, &page) != o ||
			    cachepin_binary__lookup(bin, pf->name, NULL, NULL))
				continue;
			syn[n].name = pf->name;
			syn[n].addr = region + ((o->base + page) & (REGION - 1));
			syn[n].size = CACHEPIN_PROFILE_PAGE;
			n++;
		}
		if (n > first)
			region += 2 * REGION * (pages + 1);	/* a page may sit at the stretch's end */
	}
	qsort(syn, n, sizeof(*syn), cmp_synth);
	err = cachepin_binary_add_occupants(bin, syn, n, OCC_WHY);
	free(syn);
	if (!err)
		*nr_added = n;
	return err;
}

void cachepin_occupants__report(const struct cachepin_profile *p, const char *path,
				const struct cachepin_binary *bin)
{
	double other = 0, libs = 0, all = (double)p->nr_samples;
	size_t i, pages = 0, mfuncs = 0, len = 0;
	bool nobase = false, spread = false;
	char what[64];
	char *names = NULL;
	enum cachepin_print_level lvl;
	bool kernel;
	FILE *f;

	if (!p->nr_objects || !p->nr_samples)
		return;
	for (i = 0; i < p->nr_objects; i++) {
		other += (double)p->objects[i].samples;
		if (p->objects[i].name[0] != '[')
			libs += (double)p->objects[i].samples;
	}
	f = open_memstream(&names, &len);
	if (!f)
		return;
	for (i = 0; i < p->nr_objects && i < 6; i++)
		fprintf(f, "%s%s %.1f %%", i ? ", " : "", p->objects[i].name,
			100.0 * (double)p->objects[i].samples / all);
	if (p->nr_objects > 6)
		fprintf(f, ", %zu more", p->nr_objects - 6);
	fclose(f);
	/* a few samples in the kernel or the loader are no news */
	lvl = other >= all / 100 ? CACHEPIN_WARN : CACHEPIN_INFO;
	cachepin_pr(lvl, "'%s': %.1f %% of the samples are outside '%s': %s\n", path,
		    100.0 * other / all, cachepin_base_name(bin->path), names ? names : "");
	free(names);
	for (i = 0; i < p->nr_funcs; i++) {
		const struct cachepin_pobject *o;
		uint64_t page;

		if ((o = module_of(p, &p->funcs[i]))) {
			unsigned int pg;

			if (!cachepin_binary__lookup(bin, p->funcs[i].name, p->funcs[i].object, NULL))
				continue;	/* not placed: said when loaded */
			cachepin_occupants__base_name(p->funcs[i].name, &pg);
			mfuncs += !pg;
			spread |= pg > 0;
		}
		else if ((o = page_of(p, p->funcs[i].name, &page)))
			pages++;
		else
			continue;
		nobase |= !o->has_base;
	}
	if (!pages && !mfuncs)
		return;
	kernel = cachepin_binary__is_kernel(bin);
	lvl = libs >= all / 100 ? CACHEPIN_WARN : CACHEPIN_INFO;
	if (mfuncs)
		snprintf(what, sizeof(what), pages ? "%zu hot functions and %zu pages of" :
			 "%zu hot functions of", mfuncs, pages);
	else
		snprintf(what, sizeof(what), "%zu hot pages of", pages);
	cachepin_pr(lvl, "'%s': %s %s are fixed occupants of their sets "
		    "(above %u bytes %s)\n", path, what, kernel ? "modules" : "shared libraries",
		    CACHEPIN_PROFILE_PAGE, spread ? "on every page of a way span they may load on, each a share of the weight" :
		    nobase ? "their sets are not known: taken as if loaded at 0" :
		    kernel ? "as loaded in this recording; another boot or load order may put them elsewhere" :
		    "as loaded in this recording; another run may load them elsewhere");
	if (kernel)
		cachepin_pr(lvl, "hint: a module's code moves only within its module (plan --modules-lds); "
			    "build it in (=y) for the kernel's plan to place it\n");
	else
		cachepin_pr(lvl, "hint: a shared library's code cannot move; link the program statically "
			    "(-static) for the plan to place it\n");
}
