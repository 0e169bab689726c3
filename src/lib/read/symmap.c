// SPDX-License-Identifier: GPL-2.0-or-later
/* Symbol addresses for cachepin check: from an ELF or System.map/nm text. */
#include <ctype.h>
#include <elf.h>
#include <stdio.h>
#include <uthash.h>
#include "cachepin/symmap.h"
#include "internal.h"
#include "scan.h"
#include "binary-int.h"
#include "kernel.h"

struct sym {
	char *name;
	uint64_t addr;		/* the first one seen */
	bool dup;		/* seen at several addresses */
	uint64_t *all;		/* every address, when dup */
	size_t nr_all, cap_all;
	UT_hash_handle hh;
};

struct cachepin_symmap {
	struct sym *h;
};

static int sm_add(struct cachepin_symmap *sm, const char *name, uint64_t addr)
{
	struct sym *s;

	HASH_FIND_STR(sm->h, name, s);
	if (s) {
		size_t i;

		if (s->addr == addr)
			return 0;
		if (!s->dup) {
			s->dup = true;
			if (GROW(s->all, s->cap_all, 1))
				return -ENOMEM;
			s->all[s->nr_all++] = s->addr;
		}
		for (i = 0; i < s->nr_all; i++)
			if (s->all[i] == addr)
				return 0;
		if (GROW(s->all, s->cap_all, s->nr_all + 1))
			return -ENOMEM;
		s->all[s->nr_all++] = addr;
		return 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->name = strdup(name))) {
		free(s);
		return -ENOMEM;
	}
	s->addr = addr;
	HASH_ADD_KEYPTR(hh, sm->h, s->name, strlen(s->name), s);
	return 0;
}

void cachepin_symmap__free(struct cachepin_symmap *sm)
{
	struct sym *s, *tmp;

	if (!sm)
		return;
	HASH_ITER(hh, sm->h, s, tmp) {
		HASH_DEL(sm->h, s);
		free(s->all);
		free(s->name);
		free(s);
	}
	free(sm);
}

int cachepin_symmap__lookup(const struct cachepin_symmap *sm, const char *name, uint64_t *addr)
{
	struct sym *s;

	HASH_FIND_STR(sm->h, name, s);
	if (!s)
		return 1;
	*addr = s->addr;
	return s->dup ? 2 : 0;
}

size_t cachepin_symmap__lookup_all(const struct cachepin_symmap *sm, const char *name,
				   const uint64_t **addrs)
{
	struct sym *s;

	HASH_FIND_STR(sm->h, name, s);
	if (!s)
		return 0;
	if (!s->dup) {
		*addrs = &s->addr;
		return 1;
	}
	*addrs = s->all;
	return s->nr_all;
}

/* A symbol of the ELF: every named one, as nm lists them. */
static int elf_sym(const struct cachepin_elf_sym *s, void *arg)
{
	uint64_t v = s->value;

	if (s->name[0] == '$')
		return 0;	/* mapping symbols ($a, $d, $t, $x) and their kin */
	cachepin_arch_thumb(s->machine, s->type, &v);
	return sm_add(arg, s->name, v);
}

static int read_elf(struct cachepin_symmap *sm, const char *path, int fd)
{
	int err = cachepin_elf_for_each_symbol(path, fd, false, elf_sym, sm);

	/* no .symtab (a stripped file): no symbols, each is reported missing */
	return err == -ENOENT || err == -ENODATA ? 0 : err;
}

/*
 * A System.map or nm output lists a symbol within its first lines; so
 * many lines without one are another file (or endless noise).
 */
#define MAP_FIRST_SYMBOL 100000

/*
 * The address (or size) field S of line LINENO of a System.map or nm
 * output: 1 with it in *ADDR, 0 for a field that is no number (the line
 * is none of a symbol), -ERANGE after a message for more hex digits than
 * 64 bits hold (it would wrap).
 */
static int map_addr(const char *path, unsigned long lineno, const char *s, uint64_t *addr)
{
	size_t len = strlen(s);

	if (scan_hex(s, s + len, addr))
		return 1;
	if (len > 16 && strspn(s, "0123456789abcdefABCDEF") == len) {
		pr_warn("'%s':%lu: address '%.40s%s' has more than 16 hex digits\n", path, lineno, s,
			len > 40 ? "..." : "");
		return -ERANGE;
	}
	return 0;
}

static int read_text(struct cachepin_symmap *sm, const char *path, FILE *f)
{
	struct scan_reader r = { .f = f };
	char *line;
	unsigned long lineno = 0, good = 0;
	int err = 0;

	while (!err && (line = cachepin_scan_text_line(&r, path, &lineno, &err))) {
		char *tok[4];
		size_t n;
		uint64_t addr;

		if (!good && lineno > MAP_FIRST_SYMBOL)
			break;
		n = cachepin_scan_split(line, tok, ARRAY_SIZE(tok));
		if (n < 3)
			continue;	/* "U name" lines of nm, blank lines */
		if ((err = map_addr(path, lineno, tok[0], &addr)) <= 0)
			continue;
		err = 0;
		/* ADDR TYPE NAME or ADDR SIZE TYPE NAME */
		err = sm_add(sm, n == 4 ? tok[3] : tok[2], addr);
		good++;
	}
	cachepin_scan_release(&r);
	if (!err && !good) {
		pr_warn("'%s': not an ELF file, System.map or nm output\n", path);
		return -EINVAL;
	}
	return err;
}

struct cachepin_symmap *cachepin_symmap__open(const char *path)
{
	struct cachepin_symmap *sm = calloc(1, sizeof(*sm));
	char magic[4] = "";
	FILE *f;
	int err;

	if (!sm)
		return NULL;
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		goto fail;
	}
	if (fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4)) {
		err = read_elf(sm, path, fileno(f));
	} else {
		rewind(f);
		err = read_text(sm, path, f);
	}
	fclose(f);
	if (err)
		goto fail;
	return sm;
fail:
	cachepin_symmap__free(sm);
	errno = -err;
	return NULL;
}

/* ---- a binary from a symbol map ---- */

struct map_sym {
	char *name;
	uint64_t addr, size;
	char type;
};

static int cmp_map_sym(const void *pa, const void *pb)
{
	const struct map_sym *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The text symbols of a System.map or nm output (ADDR [SIZE] TYPE NAME). */
static int read_map_syms(const char *path, struct map_sym **out, size_t *nr, unsigned int *digits)
{
	FILE *f = fopen(path, "r");
	struct scan_reader r = { .f = f };
	char *line;
	size_t acap = 0;
	unsigned long lineno = 0;
	int err = 0;

	*out = NULL;
	*nr = 0;
	*digits = 8;
	if (!f) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	while (!err && (line = cachepin_scan_text_line(&r, path, &lineno, &err))) {
		char *tok[4];
		size_t n = cachepin_scan_split(line, tok, ARRAY_SIZE(tok));
		uint64_t addr, size = 0;
		const char *type;

		if (!*nr && lineno > MAP_FIRST_SYMBOL)
			break;
		if (n < 3 || (err = map_addr(path, lineno, tok[0], &addr)) <= 0)
			continue;
		err = 0;
		if (n == 4 && (err = map_addr(path, lineno, tok[1], &size)) <= 0)
			continue;
		err = 0;
		type = tok[n - 2];
		if (strlen(type) != 1 || !strchr("TtWw", type[0]) || tok[n - 1][0] == '$')
			continue;
		if (strlen(tok[0]) > 8)
			*digits = 16;
		if (GROW(*out, acap, *nr + 1) || !((*out)[*nr].name = strdup(tok[n - 1]))) {
			err = -ENOMEM;
			break;
		}
		(*out)[*nr].addr = addr;
		(*out)[*nr].size = size;
		(*out)[(*nr)++].type = type[0];
	}
	cachepin_scan_release(&r);
	fclose(f);
	if (!err && !*nr) {
		pr_warn("'%s': no text symbols: not a System.map or nm output\n", path);
		err = -EINVAL;
	}
	return err;
}

struct cachepin_binary *cachepin_binary__open_symmap(const char *path)
{
	struct cachepin_binary *bin = cachepin_binary_new(path);
	struct map_sym *ms = NULL;
	unsigned int digits;
	size_t n = 0, i;
	int err;

	if (!bin) {
		pr_warn("out of memory\n");
		errno = ENOMEM;
		return NULL;
	}
	err = read_map_syms(path, &ms, &n, &digits);
	if (err)
		goto out;
	qsort(ms, n, sizeof(*ms), cmp_map_sym);
	/* one executable section over all the text symbols */
	err = -ENOMEM;
	bin->secs = calloc(1, sizeof(*bin->secs));
	if (!bin->secs || !(bin->secs[0].name = strdup(".text")))
		goto out;
	bin->nr_secs = 1;
	bin->secs[0].addr = ms[0].addr;
	bin->secs[0].size = ms[n - 1].addr + (ms[n - 1].size ? ms[n - 1].size : 4) - ms[0].addr;
	bin->secs[0].align = 4;
	bin->secs[0].exec = true;
	bin->elf_class = digits > 8 ? 64 : 32;
	bin->arch = "unknown";
	for (i = 0; i < n; i++) {
		struct cachepin_sym s = {
			.name = ms[i].name, .addr = ms[i].addr, .size = ms[i].size, .sec = 0,
			.type = STT_FUNC,
			.bind = ms[i].type == 't' ? STB_LOCAL :
				ms[i].type == 'W' || ms[i].type == 'w' ? STB_WEAK : STB_GLOBAL,
		};

		if (cachepin_binary_add_sym(bin, &s))
			goto out;
	}
	if (cachepin_binary_end_syms(bin) || cachepin_binary_initial_units(bin))
		goto out;
	err = 0;
out:
	for (i = 0; i < n; i++)
		free(ms[i].name);
	free(ms);
	if (err) {
		if (err == -ENOMEM)
			pr_warn("out of memory\n");
		cachepin_binary__free(bin);
		errno = -err;
		return NULL;
	}
	return bin;
}
