// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The binary's object model: sections, functions, units and the symbol
 * values, with the lookups on them.  Readers fill it: elf.c (the ELF
 * through libelf), linkmap.c (the units of a GNU ld map), ebase.c (the
 * MIPS exception handlers).
 *
 * Function rules (cachepin_binary_add_sym() and _end_syms()):
 *  - STT_FUNC and STT_GNU_IFUNC symbols defined in executable sections;
 *  - STT_NOTYPE symbols (global, weak or local) in executable sections
 *    that look like code labels: not ARM/AArch64 mapping symbols ($a, $t,
 *    $d, $x and their "$a.N" forms), not ".L" labels, not linker-script
 *    markers (_text, _stext, _etext, __start_X, __stop_X, _X_start/_X_end
 *    ...), not strictly inside a sized STT_FUNC, not at a section's end;
 *  - ARM Thumb functions: bit 0 is cleared and CACHEPIN_FUNC_THUMB set;
 *  - aliases (several symbols at one address): one is kept, chosen by
 *    STT_FUNC over STT_NOTYPE, then non-zero size, then binding (global,
 *    weak, local), then the shorter name, then the name's byte order;
 *  - st_size 0: the size runs to the next function or the section's end
 *    (CACHEPIN_FUNC_NOSIZE);
 *  - names are kept as written (GCC clones "foo.isra.0" are their own
 *    functions); CACHEPIN_FUNC_DUPNAME marks names that occur twice.
 */
#include <elf.h>
#include <fnmatch.h>
#include <stdio.h>
#include <uthash.h>
#include "internal.h"
#include "cachepin/objects.h"
#include "binary-int.h"
#include "kernel.h"

struct name_ent {
	const char *name;	/* the first function's name */
	size_t *idx;		/* indexes into bin->funcs */
	size_t n, cap;
	UT_hash_handle hh;
};

struct sym_ent {
	char *name;
	uint64_t value;
	bool global;
	UT_hash_handle hh;
};

struct sec_ent {
	const char *name;
	int idx;
	UT_hash_handle hh;
};

/* A symbol that may become a function. */
struct cand {
	const char *name;	/* the reader's: copied when kept */
	uint64_t addr, size;
	int sec;
	unsigned int flags;
	uint8_t type, bind;
};

struct binary_priv {
	struct name_ent *names;
	struct sec_ent *secs;	/* section name -> first index, built on demand */
	bool secs_indexed;
	struct sym_ent *syms;
	char **whys;		/* reasons given to cachepin_binary__fix() */
	size_t nr_whys, cap_whys;
	struct cand *cands;	/* while the symbols are read */
	size_t nr_cands, cap_cands;
};

/* ------------------------------------------------------------------ */
/* The name index                                                     */

static void names_free(struct binary_priv *priv)
{
	struct name_ent *e, *et;

	HASH_ITER(hh, priv->names, e, et) {
		HASH_DEL(priv->names, e);
		free(e->idx);
		free(e);
	}
}

/* The name index over bin->funcs (built anew: function indices may have changed). */
static int names_build(struct cachepin_binary *bin)
{
	struct binary_priv *priv = bin->priv;
	struct name_ent *e;
	size_t i;

	names_free(priv);
	for (i = 0; i < bin->nr_funcs; i++)
		bin->funcs[i].flags &= ~CACHEPIN_FUNC_DUPNAME;

	for (i = 0; i < bin->nr_funcs; i++) {
		const char *name = bin->funcs[i].name;

		HASH_FIND_STR(priv->names, name, e);
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				return -ENOMEM;
			e->name = name;
			HASH_ADD_KEYPTR(hh, priv->names, e->name, strlen(e->name), e);
		}
		if (GROW(e->idx, e->cap, e->n + 1))
			return -ENOMEM;
		e->idx[e->n++] = i;
	}
	for (e = priv->names; e; e = e->hh.next) {
		if (e->n < 2)
			continue;
		for (i = 0; i < e->n; i++)
			bin->funcs[e->idx[i]].flags |= CACHEPIN_FUNC_DUPNAME;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Symbols and functions                                              */

struct cachepin_binary *cachepin_binary_new(const char *path)
{
	struct cachepin_binary *bin = calloc(1, sizeof(*bin));

	if (!bin || !(bin->path = strdup(path)) ||
	    !(bin->priv = calloc(1, sizeof(struct binary_priv)))) {
		cachepin_binary__free(bin);
		return NULL;
	}
	return bin;
}

int cachepin_binary_add_value(struct cachepin_binary *bin, const char *name, uint64_t value,
			      bool global)
{
	struct binary_priv *priv = bin->priv;
	struct sym_ent *e;

	HASH_FIND_STR(priv->syms, name, e);
	if (e) {
		if (global && !e->global) {
			e->value = value;
			e->global = true;
		}
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(name))) {
		free(e);
		return -ENOMEM;
	}
	e->value = value;
	e->global = global;
	HASH_ADD_KEYPTR(hh, priv->syms, e->name, strlen(e->name), e);
	return 0;
}

/* May SYM be a function: a code symbol inside an executable section? */
static bool may_be_func(const struct cachepin_binary *bin, const struct cachepin_sym *sym)
{
	const struct cachepin_section *s;

	if (sym->sec < 0 || !bin->secs[sym->sec].exec)
		return false;
	if (sym->type != STT_FUNC && sym->type != STT_GNU_IFUNC && sym->type != STT_NOTYPE)
		return false;
	if (sym->type == STT_NOTYPE &&
	    (cachepin_arch_mapping_sym(sym->name) || !strncmp(sym->name, ".L", 2) ||
	     cachepin_kernel_marker_sym(sym->name)))
		return false;
	s = &bin->secs[sym->sec];
	/* not the markers at a section's end, nor nonsense */
	return sym->addr >= s->addr && sym->addr < s->addr + s->size;
}

int cachepin_binary_add_sym(struct cachepin_binary *bin, const struct cachepin_sym *sym)
{
	struct binary_priv *priv = bin->priv;
	const struct cachepin_section *s;
	struct cand *k;

	if (!cachepin_arch_mapping_sym(sym->name) &&
	    cachepin_binary_add_value(bin, sym->name, sym->addr, sym->bind != STB_LOCAL))
		return -ENOMEM;
	if (!may_be_func(bin, sym))
		return 0;
	if (GROW(priv->cands, priv->cap_cands, priv->nr_cands + 1))
		return -ENOMEM;
	s = &bin->secs[sym->sec];
	k = &priv->cands[priv->nr_cands++];
	k->name = sym->name;
	k->addr = sym->addr;
	k->size = sym->size;
	if (k->size > s->addr + s->size - sym->addr)
		k->size = s->addr + s->size - sym->addr;
	k->sec = sym->sec;
	k->type = sym->type == STT_NOTYPE ? STT_NOTYPE : STT_FUNC;
	k->bind = sym->bind;
	k->flags = 0;
	if (sym->bind == STB_LOCAL)
		k->flags |= CACHEPIN_FUNC_LOCAL;
	if (sym->bind == STB_WEAK)
		k->flags |= CACHEPIN_FUNC_WEAK;
	if (sym->thumb)
		k->flags |= CACHEPIN_FUNC_THUMB;
	return 0;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	static const int bind_rank[] = { [STB_GLOBAL] = 0, [STB_WEAK] = 1, [STB_LOCAL] = 2 };
	int rx, ry;
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	rx = x->type == STT_NOTYPE;
	ry = y->type == STT_NOTYPE;
	if (rx != ry)
		return rx - ry;
	rx = !x->size;
	ry = !y->size;
	if (rx != ry)
		return rx - ry;
	rx = x->bind <= STB_WEAK ? bind_rank[x->bind] : 3;
	ry = y->bind <= STB_WEAK ? bind_rank[y->bind] : 3;
	if (rx != ry)
		return rx - ry;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The functions from the candidates: one per address, no labels inside functions. */
static int funcs_from_cands(struct cachepin_binary *bin)
{
	struct binary_priv *priv = bin->priv;
	uint64_t cover_start = 0, cover_end = 0;
	size_t i, fcap = 0;

	sort_n(priv->cands, priv->nr_cands, sizeof(*priv->cands), cand_cmp);
	for (i = 0; i < priv->nr_cands; i++) {
		const struct cand *k = &priv->cands[i];
		struct cachepin_func *f;

		if (bin->nr_funcs && bin->funcs[bin->nr_funcs - 1].addr == k->addr)
			continue;	/* an alias of the one kept */
		if (k->type == STT_NOTYPE && k->addr > cover_start && k->addr < cover_end)
			continue;	/* a label inside a function */
		if (k->type == STT_FUNC && k->size && k->addr + k->size > cover_end) {
			cover_start = k->addr;
			cover_end = k->addr + k->size;
		}
		if (GROW(bin->funcs, fcap, bin->nr_funcs + 1))
			return -ENOMEM;
		f = &bin->funcs[bin->nr_funcs];
		f->name = strdup(k->name);
		if (!f->name)
			return -ENOMEM;
		f->addr = k->addr;
		f->size = k->size;
		f->sec = k->sec;
		f->unit = -1;
		f->flags = k->flags;
		bin->nr_funcs++;
	}
	return 0;
}

/* Functions of size 0 run to the next function or their section's end. */
static void funcs_fill_sizes(struct cachepin_binary *bin)
{
	size_t i, j;

	for (i = 0; i < bin->nr_funcs; i++) {
		struct cachepin_func *f = &bin->funcs[i];
		const struct cachepin_section *s = &bin->secs[f->sec];
		uint64_t end = s->addr + s->size;

		if (f->size)
			continue;
		for (j = i + 1; j < bin->nr_funcs; j++)
			if (bin->funcs[j].addr > f->addr) {
				if (bin->funcs[j].addr < end)
					end = bin->funcs[j].addr;
				break;
			}
		f->size = end - f->addr;
		f->flags |= CACHEPIN_FUNC_NOSIZE;
	}
}

int cachepin_binary_end_syms(struct cachepin_binary *bin)
{
	struct binary_priv *priv = bin->priv;
	int err = funcs_from_cands(bin);

	zfree(&priv->cands);
	priv->nr_cands = priv->cap_cands = 0;
	if (err)
		return err;
	funcs_fill_sizes(bin);
	return names_build(bin);
}

/* ------------------------------------------------------------------ */
/* Units                                                              */

static int unit_cmp(const void *a, const void *b)
{
	const struct cachepin_unit *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return 0;
}

static void units_free(struct cachepin_unit *units, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(units[i].section);
		free(units[i].object);
	}
	free(units);
}

/* Sort the units, link the functions to them and set their flags. */
static void units_link(struct cachepin_binary *bin)
{
	struct cachepin_unit *units = bin->units;
	size_t i, u = 0, n = bin->nr_units;

	if (n)
		sort_n(units, n, sizeof(*units), unit_cmp);
	for (i = 0; i < n; i++) {
		units[i].first_func = 0;
		units[i].nr_funcs = 0;
	}
	for (i = 0; i < bin->nr_funcs; i++) {
		struct cachepin_func *f = &bin->funcs[i];

		f->unit = -1;
		while (u < n && units[u].addr + units[u].size <= f->addr)
			u++;
		if (u == n)
			continue;
		if (units[u].addr > f->addr || !units[u].size)
			continue;
		if (!units[u].nr_funcs)
			units[u].first_func = i;
		units[u].nr_funcs++;
		f->unit = (int)u;
	}
	for (i = 0; i < n; i++) {
		struct cachepin_unit *un = &units[i];
		const char *why;

		if (un->flags & CACHEPIN_UNIT_SYNTHETIC) {
			un->flags = CACHEPIN_UNIT_SYNTHETIC | CACHEPIN_UNIT_FIXED;
			continue;	/* its reason stays */
		}
		why = cachepin_kernel_fixed_why(bin->machine, un->section, un->object);
		un->flags &= CACHEPIN_UNIT_FROM_MAP | CACHEPIN_UNIT_ALIGN_GUESS;
		if (why) {
			un->flags |= CACHEPIN_UNIT_FIXED;
			un->fixed_why = why;
		} else {
			un->flags |= CACHEPIN_UNIT_MOVABLE;
			un->fixed_why = NULL;
		}
		if (un->nr_funcs > 1)
			un->flags |= CACHEPIN_UNIT_WHOLE;
	}
}

int cachepin_binary_set_units(struct cachepin_binary *bin, struct cachepin_unit *units,
			      size_t n)
{
	size_t i, k = 0;

	/* the synthetic units (code written at run time) are no link map's to replace */
	for (i = 0; i < bin->nr_units; i++)
		k += !!(bin->units[i].flags & CACHEPIN_UNIT_SYNTHETIC);
	if (k) {
		struct cachepin_unit *all = realloc(units, (n + k) * sizeof(*all));

		if (!all) {
			units_free(units, n);
			return -ENOMEM;
		}
		units = all;
		for (i = 0; i < bin->nr_units; i++) {
			struct cachepin_unit *old = &bin->units[i];

			if (!(old->flags & CACHEPIN_UNIT_SYNTHETIC))
				continue;
			units[n++] = *old;
			old->section = old->object = NULL;
		}
	}
	units_free(bin->units, bin->nr_units);
	bin->units = units;
	bin->nr_units = n;
	units_link(bin);
	return 0;
}

int cachepin_binary_initial_units(struct cachepin_binary *bin)
{
	struct cachepin_unit *units = NULL;
	size_t n = 0, cap = 0, i;

	for (i = 0; i < bin->nr_secs; i++) {
		const struct cachepin_section *s = &bin->secs[i];
		struct cachepin_unit *u;

		if (!s->exec || !s->size)
			continue;
		if (!bin->relocatable && strncmp(s->name, ".text.", 6))
			continue;
		if (GROW(units, cap, n + 1))
			goto nomem;
		u = &units[n++];
		u->section = strdup(s->name);
		u->object = bin->relocatable ? strdup(bin->path) : NULL;
		if (!u->section || (bin->relocatable && !u->object))
			goto nomem;
		u->addr = s->addr;
		u->size = s->size;
		u->align = s->align;
		u->outsec = (int)i;
	}
	return cachepin_binary_set_units(bin, units, n);
nomem:
	units_free(units, n);
	return -ENOMEM;
}

size_t cachepin_binary__set_aligns(struct cachepin_binary *bin,
				   const struct cachepin_objects *objs)
{
	size_t i, n = 0, stale = 0;

	for (i = 0; i < bin->nr_units; i++) {
		struct cachepin_unit *u = &bin->units[i];
		const struct cachepin_objsec *s;

		if (!(u->flags & CACHEPIN_UNIT_ALIGN_GUESS) || !u->object)
			continue;
		s = cachepin_objects__section(objs, u->object, u->section);
		if (!s || s->mixed)
			continue;
		if (u->addr & (s->align - 1)) {
			stale++;
			continue;
		}
		u->align = s->align;
		u->flags &= ~CACHEPIN_UNIT_ALIGN_GUESS;
		n++;
	}
	if (stale)
		pr_warn("warning: %zu input sections of the objects are aligned more than their "
			"units in '%s' (objects rebuilt since the link?); their alignment stays "
			"the map's guess\n", stale, bin->path);
	pr_info("'%s': alignment of %zu of %zu units from the objects\n", bin->path, n,
		bin->nr_units);
	return n;
}

int cachepin_binary_sec_by_name(const struct cachepin_binary *bin, const char *name)
{
	struct binary_priv *priv = bin->priv;
	struct sec_ent *e;
	size_t i;

	if (!priv->secs_indexed) {	/* kernels have thousands of sections */
		for (i = 0; i < bin->nr_secs; i++) {
			HASH_FIND_STR(priv->secs, bin->secs[i].name, e);
			if (e)
				continue;
			e = calloc(1, sizeof(*e));
			if (!e)
				goto linear;
			e->name = bin->secs[i].name;
			e->idx = (int)i;
			HASH_ADD_KEYPTR(hh, priv->secs, e->name, strlen(e->name), e);
		}
		priv->secs_indexed = true;
	}
	HASH_FIND_STR(priv->secs, name, e);
	return e ? e->idx : -1;
linear:
	for (i = 0; i < bin->nr_secs; i++)
		if (!strcmp(bin->secs[i].name, name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Synthetic functions                                                */

static int func_cmp(const void *a, const void *b)
{
	const struct cachepin_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cachepin_binary_add_occupants(struct cachepin_binary *bin, const struct cachepin_synth *syn,
				  size_t n, const char *why)
{
	struct cachepin_func *funcs;
	struct cachepin_unit *units;
	size_t i, k;

	if (!n)
		return 0;
	funcs = realloc(bin->funcs, (bin->nr_funcs + n) * sizeof(*funcs));
	if (!funcs)
		return -ENOMEM;
	bin->funcs = funcs;
	units = realloc(bin->units, (bin->nr_units + n) * sizeof(*units));
	if (!units)
		return -ENOMEM;
	bin->units = units;
	for (i = 0; i < n; i++) {
		char *fname = strdup(syn[i].name), *uname = strdup(syn[i].name);
		char *obj = syn[i].object ? strdup(syn[i].object) : NULL;

		if (!fname || !uname || (syn[i].object && !obj)) {
			free(fname);
			free(uname);
			free(obj);
			for (k = 0; k < i; k++) {
				free(bin->funcs[bin->nr_funcs - 1 - k].name);
				free(bin->units[bin->nr_units - 1 - k].section);
				free(bin->units[bin->nr_units - 1 - k].object);
			}
			bin->nr_funcs -= i;
			bin->nr_units -= i;
			return -ENOMEM;
		}
		funcs[bin->nr_funcs++] = (struct cachepin_func){
			.name = fname, .addr = syn[i].addr, .size = syn[i].size,
			.sec = -1, .unit = -1, .flags = CACHEPIN_FUNC_SYNTHETIC,
		};
		units[bin->nr_units++] = (struct cachepin_unit){
			.section = uname, .object = obj, .addr = syn[i].addr, .size = syn[i].size,
			.outsec = -1, .flags = CACHEPIN_UNIT_SYNTHETIC | CACHEPIN_UNIT_FIXED,
			.fixed_why = why,
		};
	}
	units_link(bin);
	return names_build(bin);
}

uint64_t cachepin_binary_end(const struct cachepin_binary *bin)
{
	uint64_t end = 0;
	size_t i;

	for (i = 0; i < bin->nr_secs; i++)
		if (bin->secs[i].addr + bin->secs[i].size > end)
			end = bin->secs[i].addr + bin->secs[i].size;
	for (i = 0; i < bin->nr_funcs; i++)
		if (bin->funcs[i].addr + bin->funcs[i].size > end)
			end = bin->funcs[i].addr + bin->funcs[i].size;
	for (i = 0; i < bin->nr_units; i++)
		if (bin->units[i].addr + bin->units[i].size > end)
			end = bin->units[i].addr + bin->units[i].size;
	return end;
}

int cachepin_binary_set_synthetic(struct cachepin_binary *bin, const struct cachepin_synth *syn,
				  size_t n, const char *why)
{
	struct cachepin_func *funcs;
	struct cachepin_unit *units;
	char **names;
	size_t nf = 0, nu = 0, i;

	funcs = malloc((bin->nr_funcs + n + 1) * sizeof(*funcs));
	units = malloc((bin->nr_units + n + 1) * sizeof(*units));
	names = calloc(2 * n + 1, sizeof(*names));
	if (!funcs || !units || !names)
		goto nomem;
	for (i = 0; i < 2 * n; i++)
		if (!(names[i] = strdup(syn[i / 2].name)))
			goto nomem;

	/* nothing fails from here: BIN changes as a whole */
	for (i = 0; i < bin->nr_funcs; i++) {
		if (bin->funcs[i].flags & CACHEPIN_FUNC_SYNTHETIC)
			free(bin->funcs[i].name);
		else
			funcs[nf++] = bin->funcs[i];
	}
	for (i = 0; i < n; i++)
		funcs[nf++] = (struct cachepin_func){
			.name = names[2 * i], .addr = syn[i].addr, .size = syn[i].size,
			.sec = -1, .unit = -1, .flags = CACHEPIN_FUNC_SYNTHETIC,
		};
	for (i = 0; i < bin->nr_units; i++) {
		if (bin->units[i].flags & CACHEPIN_UNIT_SYNTHETIC) {
			free(bin->units[i].section);
			free(bin->units[i].object);
		} else {
			units[nu++] = bin->units[i];
		}
	}
	for (i = 0; i < n; i++)
		units[nu++] = (struct cachepin_unit){
			.section = names[2 * i + 1], .addr = syn[i].addr, .size = syn[i].size,
			.outsec = -1, .flags = CACHEPIN_UNIT_SYNTHETIC | CACHEPIN_UNIT_FIXED,
			.fixed_why = why,
		};
	free(names);
	free(bin->funcs);
	free(bin->units);
	sort_n(funcs, nf, sizeof(*funcs), func_cmp);
	bin->funcs = funcs;
	bin->nr_funcs = nf;
	bin->units = units;
	bin->nr_units = nu;
	units_link(bin);
	return names_build(bin);
nomem:
	for (i = 0; names && i < 2 * n; i++)
		free(names[i]);
	free(names);
	free(funcs);
	free(units);
	return -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* Queries                                                            */

static bool func_has(const struct cachepin_func *f, uint64_t addr)
{
	return addr >= f->addr && addr - f->addr < f->size;
}

bool cachepin_binary__is_kernel(const struct cachepin_binary *bin)
{
	uint64_t v;

	return cachepin_binary__sym_value(bin, CACHEPIN_KERNEL_START_SYM, &v) == 0;
}

const struct cachepin_func *cachepin_binary__unit_func(const struct cachepin_binary *bin,
							const struct cachepin_unit *u)
{
	size_t i;

	for (i = 0; i < u->nr_funcs; i++)
		if (bin->funcs[u->first_func + i].addr == u->addr)
			return &bin->funcs[u->first_func + i];
	return u->nr_funcs ? &bin->funcs[u->first_func] : NULL;
}

uint64_t cachepin_binary__unit_symoff(const struct cachepin_binary *bin, const struct cachepin_unit *u)
{
	const struct cachepin_func *fn = cachepin_binary__unit_func(bin, u);

	return fn ? fn->addr - u->addr : 0;
}

const struct cachepin_func *cachepin_binary__find_func(const struct cachepin_binary *bin,
							uint64_t addr)
{
	size_t lo = 0, hi = bin->nr_funcs, i, k;

	while (lo < hi) {	/* first function above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (bin->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* funcs[lo - 1] starts at or below addr; a few back for nested ones */
	for (i = lo, k = 0; i > 0 && k < 8; i--, k++)
		if (func_has(&bin->funcs[i - 1], addr))
			return &bin->funcs[i - 1];
	return NULL;
}

/* Does the object name FULL end in the path SUF ("core.o" matches
 * "kernel/sched/core.o" and "vmlinux.a(core.o)")? */
static bool obj_suffix(const char *full, const char *suf)
{
	size_t lf = strlen(full), ls = strlen(suf);
	const char *p;

	if (!strcmp(full, suf))
		return true;
	if (lf > ls && full[lf - 1] == ')') {
		p = full + lf - 1 - ls;
		if (p > full && !strncmp(p, suf, ls) && (p[-1] == '(' || p[-1] == '/'))
			return true;
	}
	if (lf <= ls)
		return false;
	p = full + lf - ls;
	return !strcmp(p, suf) && (p[-1] == '/' || p[-1] == '(');
}

const struct cachepin_func *cachepin_binary__lookup(const struct cachepin_binary *bin,
						     const char *name, const char *object,
						     bool *ambiguous)
{
	struct binary_priv *priv = bin->priv;
	const struct cachepin_func *found = NULL;
	struct name_ent *e;
	size_t i, n = 0;

	if (ambiguous)
		*ambiguous = false;
	if (!priv || !name)
		return NULL;
	HASH_FIND_STR(priv->names, name, e);
	if (!e)
		return NULL;
	for (i = 0; i < e->n; i++) {
		const struct cachepin_func *f = &bin->funcs[e->idx[i]];
		const struct cachepin_unit *u = cachepin_binary__func_unit(bin, f);

		if (object && (!u || !u->object || !obj_suffix(u->object, object)))
			continue;
		if (!found)
			found = f;
		n++;
	}
	if (ambiguous)
		*ambiguous = n > 1;
	return found;
}

int cachepin_binary__sym_value(const struct cachepin_binary *bin, const char *name,
			       uint64_t *value)
{
	struct binary_priv *priv = bin->priv;
	struct sym_ent *e;

	if (!priv || !name)
		return 1;
	HASH_FIND_STR(priv->syms, name, e);
	if (!e)
		return 1;
	*value = e->value;
	return 0;
}

int cachepin_binary__off_to_addr(const struct cachepin_binary *bin, uint64_t off,
				 uint64_t *addr)
{
	size_t i;

	for (i = 0; i < bin->nr_segs; i++) {
		const struct cachepin_segment *s = &bin->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*addr = s->vaddr + (off - s->offset);
			return 0;
		}
	}
	return 1;
}

/*
 * Fix every unit whose section name, "object:section" or one of whose
 * functions' names matches PATTERN.  Returns the number of units that
 * matched (0 if none), or a negative errno.
 */
int cachepin_binary__fix(struct cachepin_binary *bin, const char *pattern, const char *why)
{
	struct binary_priv *priv = bin->priv;
	char *w, *buf = NULL;
	size_t i, j, bcap = 0;
	int n = 0;

	if (!priv)
		return -EINVAL;
	if (GROW(priv->whys, priv->cap_whys, priv->nr_whys + 1))
		return -ENOMEM;
	w = strdup(why ? why : "--fixed");
	if (!w)
		return -ENOMEM;
	priv->whys[priv->nr_whys++] = w;

	for (i = 0; i < bin->nr_units; i++) {
		struct cachepin_unit *u = &bin->units[i];
		bool match;

		if (u->flags & CACHEPIN_UNIT_SYNTHETIC)
			continue;	/* fixed already, and for a better reason */
		match = u->section && !fnmatch(pattern, u->section, 0);

		if (!match && u->object && u->section) {
			size_t need = strlen(u->object) + strlen(u->section) + 2;

			if (GROW(buf, bcap, need)) {
				free(buf);
				return -ENOMEM;
			}
			snprintf(buf, need, "%s:%s", u->object, u->section);
			match = !fnmatch(pattern, buf, 0);
		}
		for (j = 0; !match && j < u->nr_funcs; j++)
			match = !fnmatch(pattern, bin->funcs[u->first_func + j].name, 0);
		if (!match)
			continue;
		u->flags = (u->flags & ~CACHEPIN_UNIT_MOVABLE) | CACHEPIN_UNIT_FIXED;
		u->fixed_why = w;
		n++;
	}
	free(buf);
	return n;
}

char *cachepin_binary__build_id_str(const struct cachepin_binary *bin, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < bin->build_id_len && i < sizeof(bin->build_id); i++) {
		buf[2 * i] = hex[bin->build_id[i] >> 4];
		buf[2 * i + 1] = hex[bin->build_id[i] & 15];
	}
	buf[2 * i] = '\0';
	return buf;
}

void cachepin_binary__free(struct cachepin_binary *bin)
{
	struct binary_priv *priv;
	size_t i;

	if (!bin)
		return;
	priv = bin->priv;
	if (priv) {
		struct sym_ent *s, *st;
		struct sec_ent *c, *ct;

		names_free(priv);
		HASH_ITER(hh, priv->syms, s, st) {
			HASH_DEL(priv->syms, s);
			free(s->name);
			free(s);
		}
		HASH_ITER(hh, priv->secs, c, ct) {
			HASH_DEL(priv->secs, c);
			free(c);
		}
		for (i = 0; i < priv->nr_whys; i++)
			free(priv->whys[i]);
		free(priv->whys);
		free(priv->cands);
		free(priv);
	}
	for (i = 0; i < bin->nr_secs; i++)
		free(bin->secs[i].name);
	free(bin->secs);
	for (i = 0; i < bin->nr_funcs; i++)
		free(bin->funcs[i].name);
	free(bin->funcs);
	units_free(bin->units, bin->nr_units);
	free(bin->segs);
	free(bin->path);
	free(bin);
}
