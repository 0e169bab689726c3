// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Emitters of a plan: the GNU ld fragment, the alignment file (and its
 * reader), the lld symbol-ordering file, the GNU ld section-ordering file.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/emit.h"
#include "internal.h"

/* The function that names a unit: the one at its start, else its first. */
static const struct cachepin_func *unit_func(const struct cachepin_binary *bin,
					     const struct cachepin_unit *u)
{
	size_t i;

	for (i = 0; i < u->nr_funcs; i++)
		if (bin->funcs[u->first_func + i].addr == u->addr)
			return &bin->funcs[u->first_func + i];
	return u->nr_funcs ? &bin->funcs[u->first_func] : NULL;
}

const char *cachepin_emit__unit_symbol(const struct cachepin_binary *bin,
				       const struct cachepin_unit *u)
{
	const struct cachepin_func *fn = unit_func(bin, u);

	return fn ? fn->name : NULL;
}

struct secname {
	const char *name;
	unsigned int n;
	UT_hash_handle hh;
};

/* How many units carry each section name: unique ones need no object. */
static struct secname *count_sections(const struct cachepin_binary *bin)
{
	struct secname *h = NULL, *e;
	size_t i;

	for (i = 0; i < bin->nr_units; i++) {
		const char *n = bin->units[i].section;

		HASH_FIND_STR(h, n, e);
		if (!e) {
			e = calloc(1, sizeof(*e));
			if (!e)
				break;
			e->name = n;
			HASH_ADD_KEYPTR(hh, h, n, strlen(n), e);
		}
		e->n++;
	}
	return h;
}

static void free_sections(struct secname *h)
{
	struct secname *e, *tmp;

	HASH_ITER(hh, h, e, tmp) {
		HASH_DEL(h, e);
		free(e);
	}
}

/* The file pattern of an object as ld's map names it: "a.a(m.o)" -> "*a.a:m.o". */
static void put_pattern(FILE *f, const struct cachepin_unit *u, struct secname *names)
{
	struct secname *e;
	const char *o = u->object, *paren;

	HASH_FIND_STR(names, u->section, e);
	if (!o || (e && e->n == 1)) {
		fprintf(f, "*(%s)", u->section);
		return;
	}
	paren = strchr(o, '(');
	if (paren && o[strlen(o) - 1] == ')')
		fprintf(f, "*%.*s:%.*s(%s)", (int)(paren - o), o,
			(int)(strlen(paren) - 2), paren + 1, u->section);
	else
		fprintf(f, "%s%s(%s)", o[0] == '/' ? "" : "*", o, u->section);
}

static void put_header(FILE *f, const struct cachepin_plan *plan,
		       const struct cachepin_emit_info *info, const char *lead)
{
	size_t i;

	fprintf(f, "%s cachepin %s; binary build-id %s; profile %016" PRIx64 "\n", lead,
		info->version, *info->build_id ? info->build_id : "-", info->profile_digest);
	fprintf(f, "%s block aligned to %" PRIu64 " bytes, %" PRIu64 " bytes: %zu hot units, %zu fill units, %" PRIu64
		" bytes of padding\n", lead, plan->block_align, plan->size, plan->nr_hot, plan->nr_fill,
		plan->pad);
	for (i = 0; i < info->nr_scores; i++) {
		const struct cachepin_emit_score *s = &info->scores[i];

		fprintf(f, "%s cache %s (%s): modelled misses before %" PRIu64 " after %" PRIu64
			" of %" PRIu64 " fetches (%+.1f %%)\n", lead, s->cache, s->repl, s->before,
			s->after, s->fetches,
			s->before ? 100.0 * ((double)s->after - (double)s->before) / (double)s->before : 0);
	}
}

int cachepin_emit__ldscript(FILE *f, const struct cachepin_plan *plan,
			    const struct cachepin_binary *bin, const struct cachepin_emit_info *info)
{
	struct secname *names = count_sections(bin);
	const char *ind = info->standalone ? "\t\t" : "";
	size_t i;

	fprintf(f, "/*\n");
	put_header(f, plan, info, " *");
	fprintf(f, " * Hot units sit at fixed offsets from __cachepin_start; cold units fill the gaps.\n */\n");
	if (info->standalone)
		fprintf(f, "SECTIONS\n{\n\t.text.hot : {\n");
	if (info->head_object)
		fprintf(f, "%s*%s(.text)\t/* entry code: must stay first */\n", ind, info->head_object);
	fprintf(f, "%s. = ALIGN(0x%" PRIx64 ");\n%s__cachepin_start = .;\n", ind, plan->block_align, ind);
	for (i = 0; i < plan->nr_units; i++) {
		const struct cachepin_plan_unit *pu = &plan->units[i];
		const struct cachepin_unit *u = &bin->units[pu->unit];

		if (pu->hot && pu->off)
			fprintf(f, "%s. = MAX(., __cachepin_start + 0x%" PRIx64 ");\n", ind, pu->off);
		fputs(ind, f);
		put_pattern(f, u, names);
		if (!pu->hot)
			fprintf(f, "\t/* fill */");
		fputc('\n', f);
	}
	fprintf(f, "%s__cachepin_end = .;\n", ind);
	if (info->standalone)
		fprintf(f, "\t}\n}\nINSERT BEFORE .text;\n");
	free_sections(names);
	return ferror(f) ? -EIO : 0;
}

/* "0-3,17,40-41" */
static void put_ranges(FILE *f, uint32_t *v, size_t n)
{
	size_t i, j;

	if (!n) {
		fputc('-', f);
		return;
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j] == v[j - 1] + 1; j++)
			;
		fprintf(f, "%s%u", i ? "," : "", v[i]);
		if (j - i > 1)
			fprintf(f, "-%u", v[j - 1]);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int cachepin_emit__alignfile(FILE *f, const struct cachepin_plan *plan,
			     const struct cachepin_model *m, const struct cachepin_cache *c,
			     const struct cachepin_emit_info *info)
{
	const struct cachepin_binary *bin = m->bin;
	int32_t *unit_pu = malloc((bin->nr_units + 1) * sizeof(*unit_pu));
	uint32_t **sets = calloc(plan->nr_units + 1, sizeof(*sets));
	size_t *nsets = calloc(plan->nr_units + 1, sizeof(*nsets));
	size_t i, j;
	int err = -ENOMEM;

	if (!unit_pu || !sets || !nsets)
		goto out;
	for (i = 0; i < bin->nr_units; i++)
		unit_pu[i] = -1;
	for (i = 0; i < plan->nr_units; i++)
		unit_pu[plan->units[i].unit] = (int32_t)i;
	/* hot lines of each placed unit, from the model's items */
	for (i = 0; i < m->nr_items; i++) {
		const struct cachepin_model_item *it = &m->items[i];
		const struct cachepin_func *fn = &bin->funcs[it->func];
		const struct cachepin_unit *u;
		int32_t k;
		uint64_t off;
		uint32_t s, *p;

		if (!it->count || fn->unit < 0 || (k = unit_pu[fn->unit]) < 0)
			continue;
		u = &bin->units[fn->unit];
		off = plan->base + plan->units[k].off + (fn->addr - u->addr) + it->off;
		s = cachepin_cache__set(c, off);
		p = realloc(sets[k], (nsets[k] + 1) * sizeof(*p));
		if (!p)
			goto out;
		sets[k] = p;
		p[nsets[k]++] = s;
	}
	fprintf(f, "# cachepin-align 1\n");
	put_header(f, plan, info, "#");
	fprintf(f, "block-align %" PRIu64 "\n", plan->block_align);
	fprintf(f, "cache %s %u %u\n", c->name, c->line, c->sets);
	fprintf(f, "# kind symbol object section offset align first-set hot-lines sets\n");
	for (i = 0; i < plan->nr_units; i++) {
		const struct cachepin_plan_unit *pu = &plan->units[i];
		const struct cachepin_unit *u = &bin->units[pu->unit];
		const struct cachepin_func *fn = unit_func(bin, u);
		/*
		 * offset and first set are the symbol's: an assembly object's
		 * .text can start with local code before its first function
		 */
		uint64_t off = pu->off + (fn ? fn->addr - u->addr : 0);
		size_t n = 0;

		sort_n(sets[i], nsets[i], sizeof(*sets[i]), cmp_u32);
		for (j = 0; j < nsets[i]; j++)
			if (!n || sets[i][n - 1] != sets[i][j])
				sets[i][n++] = sets[i][j];
		/* hot lines: distinct (set, way span) pairs are lines; count distinct lines */
		fprintf(f, "%s %s %s %s 0x%" PRIx64 " %" PRIu64 " %u %zu ", pu->hot ? "hot" : "fill",
			fn ? fn->name : "-", u->object ? u->object : "-", u->section, off, pu->align,
			cachepin_cache__set(c, plan->base + off), n);
		put_ranges(f, sets[i], n);
		fputc('\n', f);
	}
	err = ferror(f) ? -EIO : 0;
out:
	if (sets)
		for (i = 0; i < plan->nr_units; i++)
			free(sets[i]);
	free(sets);
	free(nsets);
	free(unit_pu);
	return err;
}

int cachepin_emit__lld_order(FILE *f, const struct cachepin_plan *plan,
			     const struct cachepin_binary *bin)
{
	size_t i, j;

	fprintf(f, "# lld --symbol-ordering-file: order only, no alignment or padding\n");
	for (i = 0; i < plan->nr_units; i++) {
		const struct cachepin_unit *u = &bin->units[plan->units[i].unit];

		for (j = 0; j < u->nr_funcs; j++)
			fprintf(f, "%s\n", bin->funcs[u->first_func + j].name);
	}
	return ferror(f) ? -EIO : 0;
}

int cachepin_emit__section_order(FILE *f, const struct cachepin_plan *plan,
				 const struct cachepin_binary *bin)
{
	struct secname *names = count_sections(bin);
	size_t i;

	fprintf(f, "/* GNU ld >= 2.43 --section-ordering-file: prepended to .text, no padding */\n");
	fprintf(f, ".text : {\n");
	for (i = 0; i < plan->nr_units; i++) {
		fputc('\t', f);
		put_pattern(f, &bin->units[plan->units[i].unit], names);
		fputc('\n', f);
	}
	fprintf(f, "}\n");
	free_sections(names);
	return ferror(f) ? -EIO : 0;
}

/* ---- reading the alignment file ---- */

void cachepin_align__free(struct cachepin_align *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr; i++) {
		free(a->e[i].symbol);
		free(a->e[i].object);
		free(a->e[i].section);
	}
	free(a->e);
	free(a->cache);
	free(a);
}

struct cachepin_align *cachepin_align__read(const char *path)
{
	struct cachepin_align *a = calloc(1, sizeof(*a));
	char *line = NULL, f[9][512];
	size_t cap = 0, acap = 0;
	unsigned long lineno = 0;
	const char *what = NULL;
	FILE *fp;
	int err = -EINVAL;

	if (!a)
		return NULL;
	fp = fopen(path, "r");
	if (!fp) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		free(a);
		errno = -err;
		return NULL;
	}
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long off, al;
		unsigned int fs;
		int n;

		lineno++;
		if (lineno == 1 && strncmp(line, "# cachepin-align 1", 18)) {
			what = "not a cachepin alignment file (no '# cachepin-align 1' line)";
			goto bad;
		}
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (strlen(line) >= 500) {
			what = "line too long";
			goto bad;
		}
		n = sscanf(line, "%511s %511s %511s %511s %511s %511s %511s %511s %511s", f[0], f[1],
			   f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
		if (n == 2 && !strcmp(f[0], "block-align")) {
			a->block_align = strtoull(f[1], NULL, 0);
			if (!a->block_align || (a->block_align & (a->block_align - 1))) {
				what = "bad block-align";
				goto bad;
			}
		} else if (n == 4 && !strcmp(f[0], "cache")) {
			free(a->cache);
			a->cache = strdup(f[1]);
			a->line = (uint32_t)strtoul(f[2], NULL, 0);
			a->sets = (uint32_t)strtoul(f[3], NULL, 0);
			if (!a->line || !a->sets) {
				what = "bad cache line";
				goto bad;
			}
		} else if (n == 9 && (!strcmp(f[0], "hot") || !strcmp(f[0], "fill"))) {
			struct cachepin_align_entry *e;
			char *end1, *end2, *end3;

			off = strtoull(f[4], &end1, 0);
			al = strtoull(f[5], &end2, 0);
			fs = (unsigned int)strtoul(f[6], &end3, 0);
			/* a fill unit may have no symbol (an assembly object's fixup code) */
			if (*end1 || *end2 || *end3 || (!strcmp(f[1], "-") && !strcmp(f[0], "hot"))) {
				what = "bad unit line (kind symbol object section offset align first-set hot-lines sets)";
				goto bad;
			}
			if (GROW(a->e, acap, a->nr + 1)) {
				err = -ENOMEM;
				goto fail;
			}
			e = &a->e[a->nr++];
			e->symbol = strcmp(f[1], "-") ? strdup(f[1]) : NULL;
			e->object = strcmp(f[2], "-") ? strdup(f[2]) : NULL;
			e->section = strdup(f[3]);
			e->off = off;
			e->align = al;
			e->first_set = fs;
			e->hot = !strcmp(f[0], "hot");
		} else {
			what = "unknown line";
			goto bad;
		}
	}
	if (!lineno) {
		what = "empty file";
		goto bad;
	}
	if (!a->block_align || !a->line) {
		lineno++;
		what = "no 'block-align' or 'cache' line";
		goto bad;
	}
	free(line);
	fclose(fp);
	return a;
bad:
	pr_warn("'%s':%lu: %s\n", path, lineno, what);
fail:
	free(line);
	fclose(fp);
	cachepin_align__free(a);
	errno = -err;
	return NULL;
}
