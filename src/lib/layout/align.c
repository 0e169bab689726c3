// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The alignment file (cachepin-plan(5)): where the plan put every unit,
 * written with the fragment, read back and verified against the
 * relinked binary's symbols by cachepin check.
 */
#include <inttypes.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/align.h"
#include "emit-int.h"
#include "internal.h"
#include "scan.h"

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


/* The first named function in [FROM, TO), whose name is its own; NULL if none. */
static const struct cachepin_func *tail_func(const struct cachepin_binary *bin, uint64_t from,
					     uint64_t to)
{
	size_t i;

	for (i = 0; i < bin->nr_funcs; i++) {
		const struct cachepin_func *f = &bin->funcs[i];
		bool amb = false;

		if (f->addr < from || (f->flags & CACHEPIN_FUNC_SYNTHETIC))
			continue;
		if (f->addr >= to)
			break;
		if (cachepin_binary__lookup(bin, f->name, NULL, &amb) && !amb)
			return f;
	}
	return NULL;
}

int cachepin_align__write(FILE *f, const struct cachepin_layout *l,
			  const struct cachepin_model *m, const struct cachepin_cache *c,
			  const struct cachepin_emit_info *info)
{
	const struct cachepin_binary *bin = m->bin;
	int32_t *unit_pu = malloc((bin->nr_units + 1) * sizeof(*unit_pu));
	uint32_t **sets = calloc(l->nr_units + 1, sizeof(*sets));
	size_t *nsets = calloc(l->nr_units + 1, sizeof(*nsets));
	size_t i, j;
	int err = -ENOMEM;

	if (!unit_pu || !sets || !nsets)
		goto out;
	for (i = 0; i < bin->nr_units; i++)
		unit_pu[i] = -1;
	for (i = 0; i < l->nr_units; i++)
		unit_pu[l->units[i].unit] = (int32_t)i;
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
		off = l->block_start + l->units[k].off + (fn->addr - u->addr) + it->off;
		s = cachepin_cache__set(c, off);
		p = realloc(sets[k], (nsets[k] + 1) * sizeof(*p));
		if (!p)
			goto out;
		sets[k] = p;
		p[nsets[k]++] = s;
	}
	fprintf(f, "# cachepin-align 1\n");
	emit_header(f, l, info, "#");
	fprintf(f, "block-align %" PRIu64 "\n", l->block_align);
	fprintf(f, "cache %s %u %u\n", c->name, c->line, c->sets);
	if (l->tail_to) {
		const struct cachepin_func *tf = tail_func(bin, l->tail_from, l->tail_to);

		if (tf) {
			fputs("tail ", f);
			cachepin_scan_put_field(f, tf->name);
			fprintf(f, " 0x%" PRIx64 "\n", (tf->addr + l->tail_shift) % l->block_align);
		}
	}
	fprintf(f, "# kind symbol object section offset align first-set hot-lines sets\n");
	for (i = 0; i < l->nr_units; i++) {
		const struct cachepin_layout_unit *pu = &l->units[i];
		const struct cachepin_unit *u = &bin->units[pu->unit];
		const struct cachepin_func *fn = cachepin_binary__unit_func(bin, u);
		/* offset and first set are the symbol's */
		uint64_t off = pu->off + cachepin_binary__unit_symoff(bin, u);
		size_t n = 0;

		sort_n(sets[i], nsets[i], sizeof(*sets[i]), cachepin_cmp_u32);
		for (j = 0; j < nsets[i]; j++)
			if (!n || sets[i][n - 1] != sets[i][j])
				sets[i][n++] = sets[i][j];
		/* hot lines: distinct (set, way span) pairs are lines; count distinct lines */
		fprintf(f, "%s ", pu->hot ? "hot" : "fill");
		cachepin_scan_put_opt(f, fn ? fn->name : NULL);
		fputc(' ', f);
		cachepin_scan_put_opt(f, u->object);
		fputc(' ', f);
		cachepin_scan_put_field(f, u->section);
		fprintf(f, " 0x%" PRIx64 " %" PRIu64 " %u %zu ", off, pu->align,
			cachepin_cache__set(c, l->block_start + off), n);
		put_ranges(f, sets[i], n);
		fputc('\n', f);
	}
	/* the trailer: a file cut at a line end is not a smaller plan */
	fprintf(f, "end %zu %zu\n", l->nr_hot, l->nr_fill);
	err = ferror(f) ? -EIO : 0;
out:
	if (sets)
		for (i = 0; i < l->nr_units; i++)
			free(sets[i]);
	free(sets);
	free(nsets);
	free(unit_pu);
	return err;
}

/* ---- reading it back ---- */

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
	free(a->tail_symbol);
	free(a);
}

/*
 * A unit line's fields F[0..8] into a new entry of A.  0, -ENOMEM, or
 * -EINVAL with *WHAT.
 */
static int read_unit(struct cachepin_align *a, size_t *cap, char **f, const char **what)
{
	struct cachepin_align_entry *e;
	unsigned long long off, al;
	char *end1, *end2, *end3;
	unsigned int fs;

	off = strtoull(f[4], &end1, 0);
	al = strtoull(f[5], &end2, 0);
	fs = (unsigned int)strtoul(f[6], &end3, 0);
	/* a fill unit may have no symbol (an assembly object's fixup code) */
	if (*end1 || *end2 || *end3 || (!strcmp(f[1], "-") && !strcmp(f[0], "hot"))) {
		*what = "bad unit line (kind symbol object section offset align first-set hot-lines sets)";
		return -EINVAL;
	}
	if (GROW(a->e, *cap, a->nr + 1))
		return -ENOMEM;
	e = &a->e[a->nr++];
	e->symbol = strcmp(f[1], "-") ? strdup(f[1]) : NULL;
	e->object = strcmp(f[2], "-") ? strdup(f[2]) : NULL;
	e->section = strdup(f[3]);
	if ((!e->symbol && strcmp(f[1], "-")) || (!e->object && strcmp(f[2], "-")) || !e->section)
		return -ENOMEM;
	e->off = off;
	e->align = al;
	e->first_set = fs;
	e->hot = !strcmp(f[0], "hot");
	return 0;
}

/* What the reader has seen of the trailer. */
struct align_end {
	bool seen;
	unsigned long long hot, fill;
};

/* One line after the first.  0, -ENOMEM, or -EINVAL with *WHAT. */
static int read_line(struct cachepin_align *a, size_t *cap, char *line, const char **what,
		     struct align_end *trail)
{
	char *f[9];
	size_t n;

	if (line[0] == '#' || line[0] == '\n' || !line[0])
		return 0;
	if (trail->seen) {
		*what = "a line after the 'end' line";
		return -EINVAL;
	}
	if (strlen(line) >= 500) {
		*what = "line too long";
		return -EINVAL;
	}
	n = cachepin_scan_split_fields(line, f, ARRAY_SIZE(f));
	if (n == SIZE_MAX) {
		*what = "a quoted field without its closing '\"' (or a bad escape)";
		return -EINVAL;
	}
	if (n == 2 && !strcmp(f[0], "block-align")) {
		a->block_align = strtoull(f[1], NULL, 0);
		if (!a->block_align || (a->block_align & (a->block_align - 1))) {
			*what = "bad block-align";
			return -EINVAL;
		}
		return 0;
	}
	if (n == 4 && !strcmp(f[0], "cache")) {
		free(a->cache);
		a->cache = strdup(f[1]);
		if (!a->cache)
			return -ENOMEM;
		a->line = (uint32_t)strtoul(f[2], NULL, 0);
		a->sets = (uint32_t)strtoul(f[3], NULL, 0);
		if (!a->line || !a->sets) {
			*what = "bad cache line";
			return -EINVAL;
		}
		return 0;
	}
	if (n == 3 && !strcmp(f[0], "tail")) {
		char *end;

		free(a->tail_symbol);
		a->tail_symbol = strdup(f[1]);
		if (!a->tail_symbol)
			return -ENOMEM;
		errno = 0;
		a->tail_phase = strtoull(f[2], &end, 0);
		if (errno || *end || end == f[2]) {
			*what = "bad tail line";
			return -EINVAL;
		}
		return 0;
	}
	if (n == 3 && !strcmp(f[0], "end")) {
		char *e1, *e2;

		errno = 0;
		trail->hot = strtoull(f[1], &e1, 10);
		trail->fill = strtoull(f[2], &e2, 10);
		if (errno || *e1 || *e2 || e1 == f[1] || e2 == f[2]) {
			*what = "bad 'end' line (end HOT-UNITS FILL-UNITS)";
			return -EINVAL;
		}
		trail->seen = true;
		return 0;
	}
	if (n == 9 && (!strcmp(f[0], "hot") || !strcmp(f[0], "fill")))
		return read_unit(a, cap, f, what);
	*what = "unknown line";
	return -EINVAL;
}

/* Units already read, by symbol, object and section. */
struct seen_unit {
	char *key;
	UT_hash_handle hh;
};

static void free_seen(struct seen_unit **h)
{
	struct seen_unit *e, *t;

	HASH_ITER(hh, *h, e, t) {
		HASH_DEL(*h, e);
		free(e->key);
		free(e);
	}
}

/* The entry just read must not be one read before.  0, -ENOMEM or -EINVAL with *WHAT. */
static int unit_twice(const struct cachepin_align *a, struct seen_unit **h, const char **what)
{
	const struct cachepin_align_entry *e = &a->e[a->nr - 1];
	struct seen_unit *s;
	char *key;

	if (asprintf(&key, "%s\037%s\037%s", e->symbol ? e->symbol : "-", e->object ? e->object : "-",
		     e->section) < 0)
		return -ENOMEM;
	HASH_FIND_STR(*h, key, s);
	if (s) {
		free(key);
		*what = "a unit listed twice";
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		free(key);
		return -ENOMEM;
	}
	s->key = key;
	HASH_ADD_KEYPTR(hh, *h, s->key, strlen(s->key), s);
	return 0;
}

struct cachepin_align *cachepin_align__read(const char *path)
{
	struct cachepin_align *a = calloc(1, sizeof(*a));
	struct seen_unit *seen = NULL;
	struct align_end end = { 0 };
	char endmsg[160];
	size_t acap = 0, nr_before = 0;
	unsigned long lineno = 0;
	const char *what = NULL;
	struct scan_reader r = { 0 };
	char *line = NULL;
	bool said;
	int err = 0;
	FILE *fp;

	if (!a) {
		pr_warn("out of memory\n");
		return NULL;
	}
	fp = fopen(path, "r");
	if (!fp) {
		err = errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(err));
		free(a);
		errno = err;
		return NULL;
	}
	r.f = fp;
	while (!err && (line = cachepin_scan_text_line(&r, path, &lineno, &err))) {
		if (lineno == 1 && strncmp(line, "# cachepin-align 1", 18)) {
			what = "not a cachepin alignment file (no '# cachepin-align 1' line)";
			err = -EINVAL;
		} else {
			err = read_line(a, &acap, line, &what, &end);
		}
		if (!err && a->nr > nr_before)
			err = unit_twice(a, &seen, &what);
		nr_before = a->nr;
	}
	said = err && !line;	/* the reader's error, said */
	if (!err && !lineno) {
		what = "empty file";
		err = -EINVAL;
	} else if (!err && (!a->block_align || !a->line)) {
		lineno++;
		what = "no 'block-align' or 'cache' line";
		err = -EINVAL;
	} else if (!err && !end.seen) {
		lineno++;
		what = "no 'end' line: the file is cut off (or older than the trailer; plan again)";
		err = -EINVAL;
	} else if (!err) {
		size_t hot = 0, i;

		for (i = 0; i < a->nr; i++)
			hot += a->e[i].hot;
		if (end.hot != hot || end.fill != a->nr - hot) {
			snprintf(endmsg, sizeof(endmsg),
				 "the 'end' line says %llu hot and %llu fill units, the file lists %zu and %zu",
				 end.hot, end.fill, hot, a->nr - hot);
			what = endmsg;
			err = -EINVAL;
		}
	}
	free_seen(&seen);
	cachepin_scan_release(&r);
	fclose(fp);
	if (!err)
		return a;
	if (said)
		;
	else if (err == -ENOMEM)
		pr_warn("'%s':%lu: out of memory\n", path, lineno);
	else
		pr_warn("'%s':%lu: %s\n", path, lineno, what);
	cachepin_align__free(a);
	errno = -err;
	return NULL;
}

/* ---- verified against the relinked binary ---- */

int cachepin_align__anchor(const struct cachepin_align *al, const struct cachepin_symmap *sm,
			   struct cachepin_verify *v)
{
	uint64_t addr;
	size_t i;

	memset(v, 0, sizeof(*v));
	v->have_start = cachepin_symmap__lookup(sm, "__cachepin_start", &v->start) == 0;
	if (v->have_start) {
		v->misaligned = v->start % al->block_align != 0;
		return 0;
	}
	/* ordering files carry no start symbol: anchor on the first unit found */
	for (i = 0; i < al->nr; i++)
		if (al->e[i].symbol && cachepin_symmap__lookup(sm, al->e[i].symbol, &addr) == 0) {
			v->start = addr - al->e[i].off;
			v->anchor = al->e[i].symbol;
			return 0;
		}
	return 0;
}

/* Where entry E is now, by V's anchor. */
static void verify_entry(const struct cachepin_align *al, const struct cachepin_symmap *sm,
			 const struct cachepin_verify *v, const struct cachepin_align_entry *e,
			 struct cachepin_verify_entry *out)
{
	uint64_t addr = 0;
	int r;

	*out = (struct cachepin_verify_entry){ .e = e };
	if (!e->symbol) {
		/* a fill unit without a symbol: nothing to look up */
		out->state = CACHEPIN_VERIFY_UNNAMED;
		return;
	}
	r = cachepin_symmap__lookup(sm, e->symbol, &addr);
	if (r == 1) {
		out->state = CACHEPIN_VERIFY_MISSING;
		return;
	}
	if (r == 2) {
		/* static functions that share a name: the one at its slot */
		const uint64_t *all;
		size_t j;

		out->nr_names = cachepin_symmap__lookup_all(sm, e->symbol, &all);
		for (j = 0; j < out->nr_names; j++)
			if (all[j] - v->start == e->off)
				addr = all[j];
		out->one_at_slot = addr - v->start == e->off;
	}
	out->addr = addr;
	out->off = addr - v->start;
	out->set = (uint32_t)((addr / al->line) % al->sets);
	if (out->off == e->off && (!v->have_start || out->set == e->first_set))
		out->state = CACHEPIN_VERIFY_OK;
	else
		out->state = e->hot ? CACHEPIN_VERIFY_MOVED : CACHEPIN_VERIFY_FILL_MOVED;
}

int cachepin_align__verify(const struct cachepin_align *al, const struct cachepin_symmap *sm,
			   struct cachepin_verify *v, cachepin_verify_fn_t fn, void *ctx)
{
	size_t i;

	v->ok = v->moved = v->fill_moved = v->missing = v->unnamed = 0;
	for (i = 0; i < al->nr; i++) {
		struct cachepin_verify_entry ve;

		verify_entry(al, sm, v, &al->e[i], &ve);
		switch (ve.state) {
		case CACHEPIN_VERIFY_OK:
			v->ok++;
			break;
		case CACHEPIN_VERIFY_MOVED:
			v->moved++;
			break;
		case CACHEPIN_VERIFY_FILL_MOVED:
			v->fill_moved++;
			break;
		case CACHEPIN_VERIFY_MISSING:
			v->missing++;
			break;
		case CACHEPIN_VERIFY_UNNAMED:
			v->unnamed++;
			break;
		}
		if (fn)
			fn(ctx, &ve);
	}
	v->tail = CACHEPIN_TAIL_OK;
	if (al->tail_symbol) {
		int r = cachepin_symmap__lookup(sm, al->tail_symbol, &v->tail_addr);

		if (r == 1)
			v->tail = CACHEPIN_TAIL_MISSING;
		else if (r == 0 && v->tail_addr % al->block_align != al->tail_phase)
			v->tail = CACHEPIN_TAIL_MOVED;
	}
	return v->misaligned || v->moved || v->missing || v->tail != CACHEPIN_TAIL_OK ? 1 : 0;
}
