// SPDX-License-Identifier: GPL-2.0-or-later
/* Symbol addresses for cachepin check: from an ELF or System.map/nm text. */
#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>
#include <uthash.h>
#include "cachepin/symmap.h"
#include "internal.h"

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

static int read_elf(struct cachepin_symmap *sm, const char *path, int fd)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int err = 0;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		pr_warn("'%s': not an ELF file\n", path);
		if (e)
			elf_end(e);
		return -EINVAL;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n && !err; i++) {
			GElf_Sym s;
			const char *name;
			uint64_t v;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			if (GELF_ST_TYPE(s.st_info) == STT_SECTION || GELF_ST_TYPE(s.st_info) == STT_FILE)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || !*name || name[0] == '$')
				continue;
			v = s.st_value;
			if (eh.e_machine == EM_ARM && GELF_ST_TYPE(s.st_info) == STT_FUNC)
				v &= ~1ULL;
			err = sm_add(sm, name, v);
		}
	}
	elf_end(e);
	return err;
}

static int read_text(struct cachepin_symmap *sm, const char *path, FILE *f)
{
	char *line = NULL, *p, *end;
	size_t cap = 0;
	unsigned long lineno = 0, good = 0;
	int err = 0;

	while (getline(&line, &cap, f) > 0 && !err) {
		char *tok[4];
		int n = 0;
		uint64_t addr;

		lineno++;
		for (p = strtok(line, " \t\n"); p && n < 4; p = strtok(NULL, " \t\n"))
			tok[n++] = p;
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
