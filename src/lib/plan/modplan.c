// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The modules' plan (cachepin/modplan.h): each module's hot functions
 * packed, hottest first, from the page offset where the modules planned
 * before it load their sets least, reached with the module's own cold
 * functions in front of them.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include "cachepin/modplan.h"
#include "internal.h"
#include "binary-int.h"
#include "profile-int.h"
#include "scan.h"

/* One hot function of a module: its items in the model, its place in the file. */
struct mp_item {
	uint32_t off;			/* from the function's start */
	double weight;
};

struct mp_hot {
	uint32_t func;			/* the occupant in the model's binary */
	struct mp_item *items;		/* its items of the model */
	size_t nr_items;
	const struct cachepin_func *fn;	/* the module's function */
	const struct cachepin_unit *u;	/* its section */
	double weight;
};

/* The expected load of every set of every cache. */
struct mp_load {
	const struct cachepin_cache *c;
	size_t nr;
	double **load;			/* per cache, per set */
};

static const char *occupant_module(const struct cachepin_binary *bin, uint32_t f)
{
	const struct cachepin_func *fn = &bin->funcs[f];
	const struct cachepin_unit *u;

	if (!(fn->flags & CACHEPIN_FUNC_SYNTHETIC) || !(u = cachepin_binary__func_unit(bin, fn)))
		return NULL;
	return cachepin_object_is_module(u->object) ? u->object : NULL;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static uint64_t unit_align(const struct cachepin_unit *u)
{
	return u->align ? u->align : 1;
}

/* The sets a module line at text offset OFF may be in, for cache C: *K of them into SETS. */
static void line_sets(const struct cachepin_cache *c, uint64_t off, uint32_t *sets, uint32_t *k)
{
	uint64_t page_lines = CACHEPIN_MODPLAN_PAGE >> c->line_shift, a;

	*k = c->way_span > CACHEPIN_MODPLAN_PAGE ? c->way_span / CACHEPIN_MODPLAN_PAGE : 1;
	for (a = 0; a < *k; a++)
		sets[a] = (uint32_t)(((off >> c->line_shift) + a * page_lines) & (c->sets - 1));
}

/* The expected load the items of H, its text at START, meet (ADD: then add their weight). */
static double mp_cost(struct mp_load *ld, const struct mp_hot *h, size_t nh, uint64_t start, bool add)
{
	uint32_t sets[64], k, a;
	double cost = 0;
	size_t i, j, ci;

	for (ci = 0; ci < ld->nr; ci++) {
		const struct cachepin_cache *c = &ld->c[ci];
		uint64_t off = start;

		for (j = 0; j < nh; j++) {
			off = align_up(off, unit_align(h[j].u));
			for (i = 0; i < h[j].nr_items; i++) {
				const struct mp_item *it = &h[j].items[i];

				line_sets(c, off + it->off, sets, &k);
				for (a = 0; a < k; a++) {
					if (add)
						ld->load[ci][sets[a]] += it->weight / k;
					else
						cost += it->weight * ld->load[ci][sets[a]] / k;
				}
			}
			off += h[j].fn->size;
		}
	}
	return cost;
}

static int cmp_hot(const void *a, const void *b)
{
	const struct mp_hot *x = a, *y = b;
	double dx = x->weight / (double)(x->fn->size ? x->fn->size : 1);
	double dy = y->weight / (double)(y->fn->size ? y->fn->size : 1);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->fn->name, y->fn->name);
}

/* Cold units by size, largest first. */
static int cmp_cold(const void *a, const void *b)
{
	const struct cachepin_unit *x = *(const struct cachepin_unit *const *)a;
	const struct cachepin_unit *y = *(const struct cachepin_unit *const *)b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return strcmp(x->section, y->section);
}

/*
 * The cold units of COLD[0..NC) that lead the hot code to start near
 * TARGET (largest first, each taken if it ends at or before TARGET): into
 * TAKEN (a flag each), their end returned.
 */
static uint64_t mp_fill(const struct cachepin_unit *const *cold, size_t nc, uint64_t target,
			bool *taken)
{
	uint64_t cur = 0, next;
	size_t i;

	for (i = 0; i < nc; i++) {
		next = align_up(cur, unit_align(cold[i])) + cold[i]->size;
		taken[i] = next <= target;
		if (taken[i])
			cur = next;
	}
	return cur;
}

/* Is unit U of module MOD one a plan may move: a function's section of its own? */
static bool movable(const struct cachepin_unit *u)
{
	return u && u->section && !strncmp(u->section, ".text.", 6) && u->nr_funcs == 1 &&
	       strncmp(u->section, ".text.unlikely", 14) != 0;
}

/* The hot functions of module NAME in M into *H (*NH); -ENOMEM, or 1 if one cannot move. */
static int mp_hots(const struct cachepin_model *m, const char *name, const struct cachepin_binary *mod,
		   struct mp_hot **h, size_t *nh)
{
	const struct cachepin_binary *bin = m->bin;
	struct mp_hot *v = NULL;
	size_t n = 0, i, j;

	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *it = &m->items[i];
		const char *o = occupant_module(bin, it->func);

		const struct cachepin_func *fn;
		unsigned int pg;
		char base[1024];

		if (!o || strcmp(o, name))
			continue;
		/* a function's copies on other pages (cachepin_occupants__spread()) are it */
		snprintf(base, sizeof(base), "%.*s",
			 (int)cachepin_occupants__base_name(bin->funcs[it->func].name, &pg),
			 bin->funcs[it->func].name);
		fn = cachepin_binary__lookup(mod, base, NULL, NULL);
		for (j = 0; j < n && (v[j].fn != fn || (!fn && v[j].func != it->func)); j++)
			;
		if (j == n) {
			struct mp_hot *nv = realloc(v, (n + 1) * sizeof(*v));

			if (!nv) {
				*h = v;
				*nh = n;
				return -ENOMEM;
			}
			v = nv;
			memset(&v[n], 0, sizeof(v[n]));
			v[n].func = it->func;
			v[n].fn = fn;
			v[n].u = fn ? cachepin_binary__func_unit(mod, fn) : NULL;
			n++;
		}
		v[j].weight += it->weight;
		if (!(v[j].nr_items & 15)) {
			struct mp_item *ni = realloc(v[j].items, (v[j].nr_items + 16) * sizeof(*ni));

			if (!ni) {
				*h = v;
				*nh = n;
				return -ENOMEM;
			}
			v[j].items = ni;
		}
		v[j].items[v[j].nr_items++] = (struct mp_item){ it->off, it->weight };
	}
	*h = v;
	*nh = n;
	for (j = 0; j < n; j++)
		if (!v[j].fn || !movable(v[j].u))
			return 1;
	qsort(v, n, sizeof(*v), cmp_hot);
	return 0;
}

static void free_hots(struct mp_hot *h, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(h[i].items);
	free(h);
}

/* The object the module's link takes: "nf_conntrack.o" for ".../nf_conntrack.ko". */
static char *mp_object(const char *path)
{
	const char *b = cachepin_base_name(path), *ko = strstr(b, ".ko");
	size_t n = ko ? (size_t)(ko - b) : strlen(b);
	char *s = malloc(n + 3);

	if (s)
		snprintf(s, n + 3, "%.*s.o", (int)n, b);
	return s;
}

/* Plan module NAME (file MOD) into MM against LD, and add its lines to LD. */
static int mp_module(struct mp_load *ld, const struct cachepin_model *m, const char *name,
		     const struct cachepin_binary *mod, struct cachepin_modplan_mod *mm)
{
	const struct cachepin_unit **cold = NULL;
	struct mp_hot *h = NULL;
	size_t nh = 0, nc = 0, i, k;
	uint64_t line = 1ULL << ld->c[0].line_shift, t, start, best_start = 0, fill;
	double cost, best = -1;
	bool *taken = NULL, *best_taken = NULL;
	int err;

	for (i = 1; i < ld->nr; i++)
		if ((1ULL << ld->c[i].line_shift) < line)
			line = 1ULL << ld->c[i].line_shift;
	if ((err = mp_hots(m, name, mod, &h, &nh))) {
		if (err > 0)
			mm->why_not = "its hot code is not in sections of its own (build it with -ffunction-sections)";
		free_hots(h, nh);
		return err < 0 ? err : 0;
	}
	err = -ENOMEM;
	if (!(cold = calloc(mod->nr_units + 1, sizeof(*cold))) ||
	    !(taken = calloc(mod->nr_units + 1, sizeof(*taken))) ||
	    !(best_taken = calloc(mod->nr_units + 1, sizeof(*best_taken))))
		goto out;
	for (i = 0; i < mod->nr_units; i++) {
		const struct cachepin_unit *u = &mod->units[i];

		for (k = 0; k < nh && h[k].u != u; k++)
			;
		if (k == nh && movable(u) && u->size)
			cold[nc++] = u;
	}
	qsort(cold, nc, sizeof(*cold), cmp_cold);
	for (t = 0; t < CACHEPIN_MODPLAN_PAGE; t += line) {
		fill = mp_fill(cold, nc, t, taken);
		start = align_up(fill, unit_align(h[0].u));
		if (best >= 0 && start == best_start)
			continue;
		cost = mp_cost(ld, h, nh, start, false);
		if (best < 0 || cost < best - 1e-9 * (best > 0 ? best : 1)) {
			best = cost;
			best_start = start;
			memcpy(best_taken, taken, nc * sizeof(*taken));
		}
	}
	mp_cost(ld, h, nh, best_start, true);
	if (!(mm->funcs = calloc(nc + nh + 1, sizeof(*mm->funcs))))
		goto out;
	start = 0;
	for (i = 0; i < nc; i++) {
		if (!best_taken[i])
			continue;
		start = align_up(start, unit_align(cold[i]));
		mm->funcs[mm->nr_funcs++] = (struct cachepin_modplan_func){
			.name = mod->funcs[cold[i]->first_func].name, .section = cold[i]->section,
			.off = start, .file_off = cold[i]->addr, .size = cold[i]->size,
		};
		start += cold[i]->size;
	}
	mm->hot_start = align_up(start, unit_align(h[0].u));
	for (i = 0; i < nh; i++) {
		start = align_up(start, unit_align(h[i].u));
		mm->funcs[mm->nr_funcs++] = (struct cachepin_modplan_func){
			.name = h[i].fn->name, .section = h[i].u->section, .off = start,
			.file_off = h[i].fn->addr, .size = h[i].fn->size, .hot = true,
		};
		start += h[i].fn->size;
	}
	mm->nr_hot = nh;
	err = 0;
out:
	free(cold);
	free(taken);
	free(best_taken);
	free_hots(h, nh);
	return err;
}

/* The modules of M's occupants, heaviest first, into MP->mods. */
static int mp_modules(const struct cachepin_model *m, struct cachepin_modplan *mp, double **w)
{
	size_t i, j;

	*w = NULL;
	for (i = 0; i < m->nr_items; i++) {
		const char *o = occupant_module(m->bin, m->items[i].func);

		if (!o)
			continue;
		for (j = 0; j < mp->nr_mods && strcmp(mp->mods[j].name, o); j++)
			;
		if (j == mp->nr_mods) {
			struct cachepin_modplan_mod *nm = realloc(mp->mods, (j + 1) * sizeof(*nm));
			double *nw;

			if (!nm)
				return -ENOMEM;
			mp->mods = nm;
			if (!(nw = realloc(*w, (j + 1) * sizeof(*nw))))
				return -ENOMEM;
			*w = nw;
			memset(&mp->mods[j], 0, sizeof(mp->mods[j]));
			mp->mods[j].name = o;
			(*w)[j] = 0;
			mp->nr_mods++;
		}
		(*w)[j] += m->items[i].weight;
	}
	/* heaviest first, by name on ties */
	for (i = 1; i < mp->nr_mods; i++)
		for (j = i; j > 0 && ((*w)[j] > (*w)[j - 1] ||
				      ((*w)[j] == (*w)[j - 1] &&
				       strcmp(mp->mods[j].name, mp->mods[j - 1].name) < 0)); j--) {
			struct cachepin_modplan_mod t = mp->mods[j];
			double tw = (*w)[j];

			mp->mods[j] = mp->mods[j - 1];
			(*w)[j] = (*w)[j - 1];
			mp->mods[j - 1] = t;
			(*w)[j - 1] = tw;
		}
	return 0;
}

/* MP's layout: the binary as it is but the planned modules' hot functions, moved. */
static int mp_layout(struct cachepin_modplan *mp, const struct cachepin_model *m)
{
	const struct cachepin_binary *bin = m->bin;
	struct cachepin_layout *l = &mp->layout;
	size_t i, k, f;

	l->bin = bin;
	l->delta = calloc(bin->nr_funcs + 1, sizeof(*l->delta));
	l->known = calloc(bin->nr_funcs + 1, sizeof(*l->known));
	if (!l->delta || !l->known)
		return -ENOMEM;
	/* every occupant of a planned hot function, its copies on other pages too */
	for (f = 0; f < bin->nr_funcs; f++) {
		const char *o = occupant_module(bin, (uint32_t)f);
		unsigned int pg;
		size_t len;

		if (!o)
			continue;
		len = cachepin_occupants__base_name(bin->funcs[f].name, &pg);
		for (i = 0; i < mp->nr_mods; i++) {
			if (strcmp(mp->mods[i].name, o))
				continue;
			for (k = 0; k < mp->mods[i].nr_funcs; k++) {
				const struct cachepin_modplan_func *pf = &mp->mods[i].funcs[k];

				if (!pf->hot || strlen(pf->name) != len || strncmp(pf->name, bin->funcs[f].name, len))
					continue;
				l->delta[f] = (int64_t)(pf->off - pf->file_off);
				if (!l->known[f]) {
					l->known[f] = true;
					l->nr_known++;
				}
			}
		}
	}
	return 0;
}

int cachepin_modplan__run(const struct cachepin_model *m, struct cachepin_modules *mods,
			  const struct cachepin_cache *caches, size_t nr, struct cachepin_modplan *out)
{
	struct mp_load ld = { .c = caches, .nr = nr };
	double *w = NULL;
	size_t i;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!(ld.load = calloc(nr + 1, sizeof(*ld.load))))
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (!(ld.load[i] = calloc(caches[i].sets, sizeof(**ld.load))))
			goto out;
	if ((err = mp_modules(m, out, &w)))
		goto out;
	for (i = 0; i < out->nr_mods; i++) {
		struct cachepin_modplan_mod *mm = &out->mods[i];
		const struct cachepin_binary *mod = cachepin_modules__get(mods, mm->name);

		if (!mod) {
			mm->why_not = "no file of it";
			continue;
		}
		if (!(mm->object = mp_object(mod->path)) || (err = mp_module(&ld, m, mm->name, mod, mm)))
			goto out;
	}
	err = mp_layout(out, m);
out:
	for (i = 0; i < nr && ld.load; i++)
		free(ld.load[i]);
	free(ld.load);
	free(w);
	if (err)
		cachepin_modplan__release(out);
	return err;
}

int cachepin_modplan__write_lds(FILE *f, const struct cachepin_modplan *mp)
{
	size_t i, k;

	fprintf(f, "/*\n * cachepin: the modules' hot functions at planned offsets in their text.\n"
		" * For each module's link: LDFLAGS_MODULE=\"-T <this file>\" (GNU ld takes it\n"
		" * with scripts/module.lds).  A module named nowhere here links as before.\n */\n"
		"SECTIONS\n{\n\t.text : {\n");
	for (i = 0; i < mp->nr_mods; i++) {
		const struct cachepin_modplan_mod *mm = &mp->mods[i];

		if (mm->why_not) {
			fprintf(f, "\t\t/* %s: not planned: %s */\n", mm->name, mm->why_not);
			continue;
		}
		fprintf(f, "\t\t/* %s: %zu hot functions from +0x%" PRIx64 ", %zu cold before them */\n",
			mm->name, mm->nr_hot, mm->hot_start, mm->nr_funcs - mm->nr_hot);
		for (k = 0; k < mm->nr_funcs; k++)
			fprintf(f, "\t\t*/%s(%s)\t/* +0x%" PRIx64 " */\n", mm->object, mm->funcs[k].section,
				mm->funcs[k].off);
	}
	fprintf(f, "\t}\n}\n");
	return ferror(f) ? -EIO : 0;
}

void cachepin_modplan__apply(const struct cachepin_modplan *mp, struct cachepin_binary *bin,
			     size_t *moved)
{
	size_t i;

	*moved = 0;
	for (i = 0; i < bin->nr_funcs && mp->layout.delta; i++) {
		struct cachepin_func *f = &bin->funcs[i];

		if (!mp->layout.known[i] || !mp->layout.delta[i] || !occupant_module(bin, (uint32_t)i))
			continue;
		f->addr += (uint64_t)mp->layout.delta[i];
		if (f->unit >= 0)
			bin->units[f->unit].addr += (uint64_t)mp->layout.delta[i];
		(*moved)++;
	}
}

void cachepin_modplan__release(struct cachepin_modplan *mp)
{
	size_t i;

	if (!mp)
		return;
	for (i = 0; i < mp->nr_mods; i++) {
		free(mp->mods[i].funcs);
		free((char *)mp->mods[i].object);
	}
	free(mp->mods);
	free(mp->layout.delta);
	free(mp->layout.known);
	memset(mp, 0, sizeof(*mp));
}

/* The module of a script's header comment ("NAME.ko: N hot functions"): NAME.ko into BUF, or false. */
static bool lds_module(const char *p, char *buf, size_t size)
{
	const char *colon;

	if (strncmp(p, "/* ", 3))
		return false;
	p += 3;
	colon = strstr(p, ".ko: ");
	if (!colon || (size_t)(colon + 3 - p) >= size)
		return false;
	snprintf(buf, size, "%.*s", (int)(colon + 3 - p), p);
	return !strstr(colon, ": not planned: ");
}

/* A statement (OBJ's section .text.FUNC, the offset in a comment): FUNC into BUF and the offset, or false. */
static bool lds_entry(const char *p, char *buf, size_t size, uint64_t *off)
{
	const char *sec = strstr(p, "(.text."), *end, *o;
	char *e;

	if (strncmp(p, "*/", 2) || !sec || !(end = strchr(sec, ')')) || !(o = strstr(end, "/* +0x")))
		return false;
	sec += 7;
	if ((size_t)(end - sec) >= size || end == sec)
		return false;
	snprintf(buf, size, "%.*s", (int)(end - sec), sec);
	errno = 0;
	*off = strtoull(o + 6, &e, 16);
	return !errno && e != o + 6 && !strcmp(e, " */");
}

int cachepin_modplan__verify(const char *path, struct cachepin_modules *mods,
			     void (*fn)(void *ctx, const struct cachepin_modplan_seen *s), void *ctx,
			     struct cachepin_modplan_verify *out)
{
	struct scan_reader r = { 0 };
	const struct cachepin_binary *mod = NULL;
	char module[NAME_MAX + 8] = "", func[1024];
	unsigned long lineno = 0;
	bool header = false;
	char *line;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!(r.f = fopen(path, "r"))) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	while ((line = cachepin_scan_text_line(&r, path, &lineno, &err))) {
		const char *p = scan_skip_ws(line, line + strlen(line));
		struct cachepin_modplan_seen s = { 0 };
		const struct cachepin_func *f;

		if (lineno == 2 && !strstr(line, "cachepin: the modules' hot functions")) {
			pr_warn("'%s': not a script of cachepin plan --modules-lds\n", path);
			err = -EINVAL;
			break;
		}
		if (lds_module(p, module, sizeof(module))) {
			header = true;
			if (!(mod = cachepin_modules__get(mods, module))) {
				pr_warn("'%s': line %lu: no module %s under '%s'\n", path, lineno, module,
					cachepin_modules__dir(mods));
				err = -ENOENT;
				break;
			}
			out->modules++;
			continue;
		}
		if (strncmp(p, "*/", 2) || !p[2])	/* not a statement, or the end of a comment */
			continue;
		if (!header || !lds_entry(p, func, sizeof(func), &s.planned)) {
			pr_warn("'%s': line %lu: not a statement of cachepin plan --modules-lds\n", path, lineno);
			err = -EINVAL;
			break;
		}
		s.module = module;
		s.func = func;
		f = cachepin_binary__lookup(mod, func, NULL, NULL);
		s.found = f != NULL;
		s.now = f ? f->addr : 0;
		out->nr++;
		if (!s.found)
			out->missing++;
		else if (s.now == s.planned)
			out->ok++;
		else
			out->moved++;
		if (fn)
			fn(ctx, &s);
	}
	cachepin_scan_release(&r);
	fclose(r.f);
	if (!err && !out->modules && !out->nr) {
		pr_warn("'%s': not a script of cachepin plan --modules-lds\n", path);
		err = -EINVAL;
	}
	return err;
}
