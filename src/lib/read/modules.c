// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A kernel's modules by name: the .ko files under a directory, indexed
 * once, each opened as a binary when first asked for.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include "cachepin/modules.h"
#include "internal.h"
#include "scan.h"

#define MOD_DEPTH 32		/* a kernel tree is some 8 deep */

struct mod_ent {
	char *name;		/* "nf_conntrack.ko" */
	char *path;
	struct cachepin_binary *bin;
	bool tried;		/* opened, or said why not */
};

struct cachepin_modules {
	char *dir;
	struct mod_ent *ents;	/* by name, then path */
	size_t nr, cap;
};

char *cachepin_modules__name(const char *name, char *buf, size_t size)
{
	const char *b = name[0] == '[' ? name + 1 : cachepin_base_name(name);
	const char *ko = name[0] == '[' ? NULL : strstr(b, ".ko");
	size_t n = name[0] == '[' ? strcspn(b, "]") : ko ? (size_t)(ko - b) : strlen(b), i;

	snprintf(buf, size, "%.*s.ko", (int)n, b);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '-')
			buf[i] = '_';
	return buf;
}

/* Is the file name NAME a module's, compressed (*.ko.xz) or not? */
static bool is_ko(const char *name, bool *compressed)
{
	const char *ko = strstr(name, ".ko");

	while (ko && ko[3] && ko[3] != '.')
		ko = strstr(ko + 1, ".ko");
	if (!ko || ko == name)
		return false;
	*compressed = ko[3] == '.';
	return true;
}

static int mod_add(struct cachepin_modules *m, const char *path, const char *base)
{
	char name[NAME_MAX + 8];
	struct mod_ent *e;

	if (m->nr == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;

		if (!(e = realloc(m->ents, cap * sizeof(*e))))
			return -ENOMEM;
		m->ents = e;
		m->cap = cap;
	}
	e = &m->ents[m->nr];
	memset(e, 0, sizeof(*e));
	cachepin_modules__name(base, name, sizeof(name));
	if (!(e->name = strdup(name)) || !(e->path = strdup(path))) {
		free(e->name);
		return -ENOMEM;
	}
	m->nr++;
	return 0;
}

/* The .ko files under DIR into M, DEPTH levels down; the compressed ones counted in *NZ. */
static int mod_walk(struct cachepin_modules *m, const char *dir, int depth, size_t *nz)
{
	struct dirent *de;
	char path[PATH_MAX];
	struct stat st;
	bool z;
	DIR *d;
	int err = 0;

	if (depth > MOD_DEPTH)
		return 0;
	if (!(d = opendir(dir)))
		return depth ? 0 : -errno;	/* an unreadable subdirectory is no module */
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path) ||
		    lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			err = mod_walk(m, path, depth + 1, nz);
		else if (S_ISREG(st.st_mode) && is_ko(de->d_name, &z))
			err = z ? ((*nz)++, 0) : mod_add(m, path, de->d_name);
	}
	closedir(d);
	return err;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct mod_ent *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->path, y->path);
}

struct cachepin_modules *cachepin_modules__open(const char *dir)
{
	struct cachepin_modules *m = calloc(1, sizeof(*m));
	size_t nz = 0, i, n = 0;
	int err;

	if (!m || !(m->dir = strdup(dir))) {
		free(m);
		pr_warn("out of memory\n");
		errno = ENOMEM;
		return NULL;
	}
	err = mod_walk(m, dir, 0, &nz);
	if (err == -ENOMEM) {
		pr_warn("out of memory\n");
	} else if (err) {
		pr_warn("cannot read the modules' directory '%s': %s\n", dir, strerror(-err));
	} else if (!m->nr) {
		err = -ENOENT;
		pr_warn("'%s': no kernel module (*.ko) under it%s\n", dir,
			nz ? ", only compressed ones" : "");
		pr_warn("hint: %s\n", nz ? "decompress them (xz -d, zstd -d) into a directory and give that" :
			"give the kernel build tree, or the directory 'make modules_install' filled");
	}
	if (err) {
		cachepin_modules__free(m);
		errno = -err;
		return NULL;
	}
	qsort(m->ents, m->nr, sizeof(*m->ents), cmp_ent);
	/* one file per name: the first path */
	for (i = 0; i < m->nr; i++) {
		if (n && !strcmp(m->ents[n - 1].name, m->ents[i].name)) {
			free(m->ents[i].name);
			free(m->ents[i].path);
			continue;
		}
		m->ents[n++] = m->ents[i];
	}
	m->nr = n;
	return m;
}

static int cmp_key(const void *key, const void *ent)
{
	return strcmp(key, ((const struct mod_ent *)ent)->name);
}

const struct cachepin_binary *cachepin_modules__get(struct cachepin_modules *mods,
						    const char *name)
{
	char key[NAME_MAX + 8];
	struct mod_ent *e;

	if (!mods)
		return NULL;
	cachepin_modules__name(name, key, sizeof(key));
	e = bsearch(key, mods->ents, mods->nr, sizeof(*mods->ents), cmp_key);
	if (!e)
		return NULL;
	if (e->tried)
		return e->bin;
	e->tried = true;
	e->bin = cachepin_binary__open(e->path);
	if (e->bin && !e->bin->kmodule) {
		pr_warn("'%s': not a kernel module (no .gnu.linkonce.this_module section); its samples stay by page\n",
			e->path);
		cachepin_binary__free(e->bin);
		e->bin = NULL;
	}
	return e->bin;
}

const char *cachepin_modules__dir(const struct cachepin_modules *mods)
{
	return mods->dir;
}

void cachepin_modules__free(struct cachepin_modules *mods)
{
	size_t i;

	if (!mods)
		return;
	for (i = 0; i < mods->nr; i++) {
		free(mods->ents[i].name);
		free(mods->ents[i].path);
		cachepin_binary__free(mods->ents[i].bin);
	}
	free(mods->ents);
	free(mods->dir);
	free(mods);
}

static int cmp_loaded(const void *a, const void *b)
{
	const struct cachepin_loaded *x = a, *y = b;

	return (x->base > y->base) - (x->base < y->base);
}

/* One line of /proc/modules into *L: 0, -EINVAL if it is not one, -ENOMEM. */
static int loaded_line(const char *line, size_t len, struct cachepin_loaded *l)
{
	const char *p = line, *e = line + len;
	struct scan_field f[7];
	char name[NAME_MAX + 8], file[NAME_MAX + 8];
	size_t n = scan_fields(p, e, f, ARRAY_SIZE(f));

	if (n < 6 || f[0].e - f[0].p > NAME_MAX || !scan_u64(f[1].p, f[1].e, &l->size) ||
	    !scan_hex0x(f[5].p, f[5].e, &l->base))
		return -EINVAL;
	snprintf(name, sizeof(name), "[%.*s]", (int)(f[0].e - f[0].p), f[0].p);
	cachepin_modules__name(name, file, sizeof(file));
	return (l->name = strdup(file)) ? 0 : -ENOMEM;
}

int cachepin_loaded__read(const char *path, struct cachepin_loaded **out, size_t *n)
{
	struct scan_reader r = { 0 };
	struct cachepin_loaded *v = NULL, l;
	unsigned long lineno = 0;
	size_t nr = 0, cap = 0, len, i;
	char *line;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (!(r.f = fopen(path, "r"))) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	while ((line = cachepin_scan_text_line(&r, path, &lineno, &err))) {
		len = strlen(line);
		if (scan_skip_ws(line, line + len) == line + len)
			continue;
		memset(&l, 0, sizeof(l));
		if ((err = loaded_line(line, len, &l))) {
			if (err == -ENOMEM)
				pr_warn("out of memory\n");
			else
				pr_warn("'%s': line %lu is not a line of /proc/modules (NAME SIZE REFS DEPS STATE ADDRESS)\n",
					path, lineno);
			break;
		}
		if (!l.base) {
			err = -EINVAL;
			pr_warn("'%s': line %lu: %s at address 0: the addresses were hidden\n", path,
				lineno, l.name);
			free(l.name);
			pr_warn("hint: copy /proc/modules as root with kernel.kptr_restrict = 0\n");
			break;
		}
		if (nr == cap) {
			struct cachepin_loaded *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv) {
				free(l.name);
				err = -ENOMEM;
				pr_warn("out of memory\n");
				break;
			}
			v = nv;
		}
		v[nr++] = l;
	}
	cachepin_scan_release(&r);
	fclose(r.f);
	if (!err && !nr) {
		err = -EINVAL;
		pr_warn("'%s': no module in it\n", path);
	}
	if (!err) {
		qsort(v, nr, sizeof(*v), cmp_loaded);
		for (i = 1; i < nr; i++)
			if (v[i - 1].base + v[i - 1].size > v[i].base) {
				err = -EINVAL;
				pr_warn("'%s': modules %s and %s overlap\n", path, v[i - 1].name, v[i].name);
				break;
			}
	}
	if (err) {
		cachepin_loaded__free(v, nr);
		return err;
	}
	*out = v;
	*n = nr;
	return 0;
}

const struct cachepin_loaded *cachepin_loaded__find(const struct cachepin_loaded *loaded, size_t n,
						    uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < loaded[mid].base)
			hi = mid;
		else if (addr - loaded[mid].base >= loaded[mid].size)
			lo = mid + 1;
		else
			return &loaded[mid];
	}
	return NULL;
}

void cachepin_loaded__free(struct cachepin_loaded *loaded, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(loaded[i].name);
	free(loaded);
}

static int cmp_remap(const void *a, const void *b)
{
	const struct cachepin_remap *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Is F of module MOD code of its text as loaded (not init code, not a synthetic)? */
static bool text_func(const struct cachepin_binary *mod, const struct cachepin_func *f)
{
	const struct cachepin_unit *u = cachepin_binary__func_unit(mod, f);

	return f->size && !(f->flags & CACHEPIN_FUNC_SYNTHETIC) && u && u->section &&
	       strncmp(u->section, ".init", 5) != 0;
}

int cachepin_modules__remap(const struct cachepin_loaded *loaded, size_t n,
			    struct cachepin_modules *old, struct cachepin_modules *new,
			    struct cachepin_remap **out, size_t *nr, size_t *missing)
{
	struct cachepin_remap *v = NULL;
	size_t cnt = 0, cap = 0, i, k;

	*out = NULL;
	*nr = *missing = 0;
	for (i = 0; i < n; i++) {
		const struct cachepin_binary *a = cachepin_modules__get(old, loaded[i].name);
		const struct cachepin_binary *b = cachepin_modules__get(new, loaded[i].name);

		for (k = 0; a && k < a->nr_funcs; k++) {
			const struct cachepin_func *f = &a->funcs[k], *g;
			bool amb = false;

			if (!text_func(a, f))
				continue;
			g = b ? cachepin_binary__lookup(b, f->name, NULL, &amb) : NULL;
			if (!g || amb || (cachepin_binary__lookup(a, f->name, NULL, &amb) && amb) ||
			    !text_func(b, g)) {
				(*missing)++;
				continue;
			}
			if (cnt == cap) {
				struct cachepin_remap *nv = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));

				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[cnt++] = (struct cachepin_remap){
				.lo = loaded[i].base + f->addr, .hi = loaded[i].base + f->addr + f->size,
				.delta = (int64_t)(g->addr - f->addr),
			};
		}
	}
	qsort(v, cnt, sizeof(*v), cmp_remap);
	*out = v;
	*nr = cnt;
	return 0;
}

const struct cachepin_remap *cachepin_remap__find(const struct cachepin_remap *remap, size_t n,
						  uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < remap[mid].lo)
			hi = mid;
		else if (addr >= remap[mid].hi)
			lo = mid + 1;
		else
			return &remap[mid];
	}
	return NULL;
}
