// SPDX-License-Identifier: GPL-2.0-or-later
/* Symbol addresses for cachepin check: from an ELF or System.map/nm text. */
#include <ctype.h>
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

static int read_text(struct cachepin_symmap *sm, const char *path, FILE *f)
{
	char *line = NULL, *end;
	size_t cap = 0;
	unsigned long lineno = 0, good = 0;
	int err = 0;

	while (getline(&line, &cap, f) > 0 && !err) {
		char *tok[4];
		size_t n;
		uint64_t addr;

		lineno++;
		n = cachepin_scan_split(line, tok, ARRAY_SIZE(tok));
		if (n < 3)
			continue;	/* "U name" lines of nm, blank lines */
		addr = strtoull(tok[0], &end, 16);
		if (*end || !isxdigit((unsigned char)tok[0][0]))
			continue;
		/* ADDR TYPE NAME or ADDR SIZE TYPE NAME */
		err = sm_add(sm, n == 4 ? tok[3] : tok[2], addr);
		good++;
	}
	free(line);
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
