// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Objects and archives through libbfd: a static call graph from the
 * call/jump relocations of their code sections.
 *
 * Relocations taken (by the howto name, so one binary serves every
 * target libbfd knows):
 *   ARM      R_ARM_CALL, R_ARM_THM_CALL (call); R_ARM_JUMP24,
 *            R_ARM_THM_JUMP24 (tail); R_ARM_PC24 (the L bit decides)
 *   AArch64  R_AARCH64_CALL26 (call), R_AARCH64_JUMP26 (tail)
 *   MIPS     R_MIPS_26 (jal: call, j: tail), R_MIPS_JALR (call, the hint
 *            on PIC "jalr $25"), R_MIPS_PC16 to another function (tail)
 *   x86-64   R_X86_64_PLT32/PC32 on a call (e8: call) or jmp/jcc (tail);
 *            other uses (lea, mov) are address references, not edges
 * The caller is the function symbol at or below the relocation's offset;
 * the callee the symbol, or for a section symbol the function at the
 * target offset (addend, or the in-place field for ARM/MIPS REL).
 *
 * Every code section is also kept with its alignment (libbfd's
 * alignment power, sh_addralign), named by object and section as the
 * link map names the input section, for the units the map describes.
 */
#define PACKAGE "cachepin"
#define PACKAGE_VERSION CACHEPIN_VERSION
#include <bfd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <uthash.h>
#include "internal.h"
#include "cachepin/objects.h"
#include "kernel.h"

struct edge_ent {
	char *key;		/* caller \0 object \0 callee \0 tail */
	size_t keylen;
	struct cachepin_cgedge e;
	UT_hash_handle hh;
};

struct sec_ent {
	char *key;		/* object \0 section */
	size_t keylen;
	struct cachepin_objsec s;
	UT_hash_handle hh;
};

struct load_ctx {
	struct cachepin_objects *objs;
	struct edge_ent *edges;
	struct sec_ent *secs;
};

struct fsym {			/* a function symbol of one section */
	uint64_t value;
	const char *name;
};

enum rel_kind { REL_NONE, REL_CALL, REL_TAIL, REL_ARM_PC24, REL_MIPS_26, REL_MIPS_PC16,
		REL_X86_PC };

static enum rel_kind rel_classify(const char *n)
{
	static const struct { const char *name; enum rel_kind kind; } tab[] = {
		{ "R_ARM_CALL", REL_CALL },
		{ "R_ARM_THM_CALL", REL_CALL },
		{ "R_ARM_JUMP24", REL_TAIL },
		{ "R_ARM_THM_JUMP24", REL_TAIL },
		{ "R_ARM_PC24", REL_ARM_PC24 },
		{ "R_AARCH64_CALL26", REL_CALL },
		{ "R_AARCH64_JUMP26", REL_TAIL },
		{ "R_MIPS_26", REL_MIPS_26 },
		{ "R_MIPS_JALR", REL_CALL },
		{ "R_MIPS_PC16", REL_MIPS_PC16 },
		{ "R_X86_64_PLT32", REL_X86_PC },
		{ "R_X86_64_PC32", REL_X86_PC },
	};
	size_t i;

	if (!n)
		return REL_NONE;
	for (i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcmp(n, tab[i].name))
			return tab[i].kind;
	return REL_NONE;
}

static bool sym_is_func(const asymbol *s)
{
	if (s->flags & (BSF_SECTION_SYM | BSF_FILE | BSF_DEBUGGING | BSF_OBJECT))
		return false;
	if (!s->name || !*s->name || cachepin_arch_mapping_sym(s->name) || !strncmp(s->name, ".L", 2))
		return false;
	if (s->flags & BSF_FUNCTION)
		return true;
	return (s->flags & (BSF_GLOBAL | BSF_WEAK)) != 0;
}

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The function at or below OFF in a sorted list, or NULL. */
static const char *fsym_at(const struct fsym *f, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].value <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? f[lo - 1].name : NULL;
}

static int edge_add(struct load_ctx *c, const char *caller, const char *object,
		    const char *callee, bool tail)
{
	size_t l1 = strlen(caller), l2 = strlen(object), l3 = strlen(callee);
	size_t len = l1 + l2 + l3 + 4;
	struct edge_ent *e;
	char *key = malloc(len);

	if (!key)
		return -ENOMEM;
	memcpy(key, caller, l1 + 1);
	memcpy(key + l1 + 1, object, l2 + 1);
	memcpy(key + l1 + l2 + 2, callee, l3 + 1);
	key[len - 1] = tail ? 't' : 'c';
	HASH_FIND(hh, c->edges, key, len, e);
	if (e) {
		free(key);
		e->e.count++;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(key);
		return -ENOMEM;
	}
	e->key = key;
	e->keylen = len;
	e->e.caller = key;
	e->e.caller_object = key + l1 + 1;
	e->e.callee = key + l1 + l2 + 2;
	e->e.count = 1;
	e->e.tail = tail;
	HASH_ADD_KEYPTR(hh, c->edges, e->key, e->keylen, e);
	return 0;
}

struct obj_syms {
	asymbol **syms;
	long nsyms;
	/* per section index: sorted function symbols */
	struct fsym **fs;
	size_t *nfs;
	unsigned int nsec;
};

static const char *sec_func_at(struct obj_syms *os, asection *sec, uint64_t off)
{
	if (!sec || sec->index >= os->nsec)
		return NULL;
	return fsym_at(os->fs[sec->index], os->nfs[sec->index], off);
}

static int do_relocs(struct load_ctx *c, bfd *abfd, asection *sec, const char *object,
		     struct obj_syms *os)
{
	bool be = bfd_big_endian(abfd);
	bfd_byte *contents = NULL;
	arelent **rels = NULL;
	long sz, n, i;
	int err = 0;

	sz = bfd_get_reloc_upper_bound(abfd, sec);
	if (sz <= 0)
		return 0;
	rels = malloc((size_t)sz);
	if (!rels)
		return -ENOMEM;
	n = bfd_canonicalize_reloc(abfd, sec, rels, os->syms);
	if (n > 0 && !bfd_malloc_and_get_section(abfd, sec, &contents))
		contents = NULL;

	for (i = 0; i < n && !err; i++) {
		arelent *r = rels[i];
		enum rel_kind k = r->howto ? rel_classify(r->howto->name) : REL_NONE;
		uint64_t off = r->address, toff;
		const asymbol *s;
		const char *caller, *callee;
		uint32_t insn = 0;
		bool tail = false, have_insn;

		if (k == REL_NONE || !r->sym_ptr_ptr || !*r->sym_ptr_ptr)
			continue;
		s = *r->sym_ptr_ptr;
		have_insn = contents && off + 4 <= bfd_section_size(sec);
		if (have_insn)
			insn = get_u32(contents + off, be);
		toff = s->value + (uint64_t)r->addend;

		switch (k) {
		case REL_CALL:
			break;
		case REL_TAIL:
			tail = true;
			break;
		case REL_ARM_PC24:
			if (have_insn) {
				int32_t imm = (int32_t)(insn << 8) >> 6;

				tail = !(insn & (1u << 24));
				toff = s->value + (uint64_t)(int64_t)imm + 8;
			}
			break;
		case REL_MIPS_26:
			if (!have_insn)
				continue;
			tail = (insn >> 26) == 2;		/* j, not jal */
			if ((insn >> 26) != 2 && (insn >> 26) != 3)
				continue;
			toff = s->value + ((insn & 0x3ffffffu) << 2);
			break;
		case REL_MIPS_PC16:
			tail = true;
			break;
		case REL_X86_PC:
			if (!contents || off < 1 || off + 4 > bfd_section_size(sec))
				continue;
			if (contents[off - 1] == 0xe8)
				tail = false;
			else if (contents[off - 1] == 0xe9 ||
				 (off >= 2 && contents[off - 2] == 0x0f &&
				  (contents[off - 1] & 0xf0) == 0x80))
				tail = true;
			else
				continue;
			toff += 4;	/* the addend is relative to the field's end */
			break;
		default:
			continue;
		}

		caller = sec_func_at(os, sec, off);
		if (!caller)
			continue;
		if (s->flags & BSF_SECTION_SYM)
			callee = sec_func_at(os, s->section, toff);
		else
			callee = s->name;
		if (!callee || !*callee)
			continue;
		if (k == REL_MIPS_PC16 && !strcmp(callee, caller))
			continue;	/* a branch inside the function */
		err = edge_add(c, caller, object, callee, tail);
	}
	free(contents);
	free(rels);
	return err;
}

static void obj_syms_free(struct obj_syms *os)
{
	unsigned int i;

	if (os->fs)
		for (i = 0; i < os->nsec; i++)
			free(os->fs[i]);
	free(os->fs);
	free(os->nfs);
	free(os->syms);
}

static bool sym_in_code(const asymbol *s, const struct obj_syms *os)
{
	return sym_is_func(s) && s->section && s->section->index < os->nsec &&
	       (s->section->flags & SEC_CODE);
}

/* The symbols of ABFD, and per code section its functions by address. */
static int obj_syms_read(bfd *abfd, struct obj_syms *os)
{
	long sz, i;

	os->nsec = bfd_count_sections(abfd);
	os->fs = calloc(os->nsec + 1, sizeof(*os->fs));
	os->nfs = calloc(os->nsec + 1, sizeof(*os->nfs));
	if (!os->fs || !os->nfs)
		return -ENOMEM;
	sz = bfd_get_symtab_upper_bound(abfd);
	if (sz > 0) {
		os->syms = malloc((size_t)sz);
		if (!os->syms)
			return -ENOMEM;
		os->nsyms = bfd_canonicalize_symtab(abfd, os->syms);
		if (os->nsyms < 0)
			os->nsyms = 0;
	}
	for (i = 0; i < os->nsyms; i++)	/* count, then fill */
		if (sym_in_code(os->syms[i], os))
			os->nfs[os->syms[i]->section->index]++;
	for (i = 0; i < (long)os->nsec; i++) {
		os->fs[i] = calloc(os->nfs[i] + 1, sizeof(**os->fs));
		if (!os->fs[i])
			return -ENOMEM;
		os->nfs[i] = 0;
	}
	for (i = 0; i < os->nsyms; i++) {
		asymbol *s = os->syms[i];
		unsigned int x;

		if (!sym_in_code(s, os))
			continue;
		x = s->section->index;
		os->fs[x][os->nfs[x]].value = s->value;
		os->fs[x][os->nfs[x]].name = s->name;
		os->nfs[x]++;
	}
	for (i = 0; i < (long)os->nsec; i++)
		sort_n(os->fs[i], os->nfs[i], sizeof(**os->fs), fsym_cmp);
	return 0;
}

/* Code section SEC of OBJECT, with its alignment.  0 or -ENOMEM. */
static int sec_add(struct load_ctx *c, const char *object, const asection *sec)
{
	size_t ol = strlen(object), sl = strlen(sec->name), keylen = ol + 1 + sl;
	unsigned int power = bfd_section_alignment(sec);
	uint64_t align = power < 63 ? (uint64_t)1 << power : 1;
	struct sec_ent *e;
	char *key = malloc(keylen + 1);

	if (!key)
		return -ENOMEM;
	memcpy(key, object, ol + 1);
	memcpy(key + ol + 1, sec->name, sl + 1);
	HASH_FIND(hh, c->secs, key, keylen, e);
	if (e) {
		free(key);
		if (e->s.align != align)
			e->s.mixed = true;
		if (align > e->s.align)
			e->s.align = align;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		free(key);
		return -ENOMEM;
	}
	e->key = key;
	e->keylen = keylen;
	e->s.object = key;
	e->s.section = key + ol + 1;
	e->s.align = align;
	HASH_ADD_KEYPTR(hh, c->secs, e->key, e->keylen, e);
	return 0;
}

/* The call graph edges and the alignments of the code sections of ABFD. */
static int do_object(struct load_ctx *c, bfd *abfd, const char *object)
{
	struct obj_syms os = { 0 };
	asection *sec;
	int err = obj_syms_read(abfd, &os);

	for (sec = abfd->sections; sec && !err; sec = sec->next) {
		if (!(sec->flags & SEC_CODE) || !bfd_section_size(sec))
			continue;
		err = sec_add(c, object, sec);
		if (!err)
			err = do_relocs(c, abfd, sec, object, &os);
	}
	obj_syms_free(&os);
	return err;
}

static int load_bfd(struct load_ctx *c, bfd *abfd, const char *name, int depth);

static int load_archive(struct load_ctx *c, bfd *ar, const char *arname, int depth)
{
	bool thin = bfd_is_thin_archive(ar);
	bfd *m = NULL, *last = NULL;
	int err = 0;

	while (!err && (m = bfd_openr_next_archived_file(ar, m))) {
		char *name;

		if (m == last)
			break;	/* a broken archive that loops */
		if (thin) {
			name = strdup(bfd_get_filename(m));
		} else {
			size_t len = strlen(arname) + strlen(bfd_get_filename(m)) + 3;

			name = malloc(len);
			if (name)
				snprintf(name, len, "%s(%s)", arname, bfd_get_filename(m));
		}
		if (!name)
			err = -ENOMEM;
		else
			err = load_bfd(c, m, name, depth + 1);
		free(name);
		if (last)
			bfd_close(last);
		last = m;
	}
	if (last)
		bfd_close(last);
	if (!err && bfd_get_error() != bfd_error_no_more_archived_files &&
	    bfd_get_error() != bfd_error_no_error) {
		pr_warn("'%s': bad archive: %s\n", arname, bfd_errmsg(bfd_get_error()));
		err = -EINVAL;
	}
	return err;
}

static int load_bfd(struct load_ctx *c, bfd *abfd, const char *name, int depth)
{
	if (depth > 16) {
		pr_warn("'%s': archives nested too deep\n", name);
		return -ELOOP;
	}
	if (bfd_check_format(abfd, bfd_archive)) {
		bfd_set_error(bfd_error_no_error);
		return load_archive(c, abfd, name, depth);
	}
	if (bfd_check_format(abfd, bfd_object))
		return do_object(c, abfd, name);
	pr_warn("'%s': not an object file or archive: %s\n", name,
		bfd_errmsg(bfd_get_error()));
	return -EINVAL;
}

static int edge_cmp(const void *a, const void *b)
{
	const struct cachepin_cgedge *x = a, *y = b;
	int r = strcmp(x->caller, y->caller);

	if (!r)
		r = strcmp(x->callee, y->callee);
	if (!r)
		r = strcmp(x->caller_object, y->caller_object);
	if (!r)
		r = (int)x->tail - (int)y->tail;
	return r;
}

static void edges_drop(struct load_ctx *c)
{
	struct edge_ent *e, *t;
	struct sec_ent *se, *st;

	HASH_ITER(hh, c->edges, e, t) {
		HASH_DEL(c->edges, e);
		free(e->key);
		free(e);
	}
	HASH_ITER(hh, c->secs, se, st) {
		HASH_DEL(c->secs, se);
		free(se->key);
		free(se);
	}
}

static int objsec_cmp(const void *a, const void *b)
{
	const struct cachepin_objsec *x = a, *y = b;
	int r = strcmp(x->object, y->object);

	return r ? r : strcmp(x->section, y->section);
}

/* The code sections collected, sorted into C->objs.  0 or -ENOMEM. */
static int secs_take(struct load_ctx *c)
{
	struct cachepin_objects *o = c->objs;
	struct sec_ent *e, *t;

	o->secs = calloc(HASH_COUNT(c->secs) + 1, sizeof(*o->secs));
	if (!o->secs)
		return -ENOMEM;
	HASH_ITER(hh, c->secs, e, t) {
		struct cachepin_objsec *s = &o->secs[o->nr_secs];
		size_t ol = strlen(e->s.object);

		/* one allocation: the section name follows the object's */
		s->object = malloc(e->keylen + 1);
		if (!s->object)
			return -ENOMEM;
		memcpy(s->object, e->key, e->keylen + 1);
		s->section = s->object + ol + 1;
		s->align = e->s.align;
		s->mixed = e->s.mixed;
		o->nr_secs++;
	}
	sort_n(o->secs, o->nr_secs, sizeof(*o->secs), objsec_cmp);
	return 0;
}

const struct cachepin_objsec *cachepin_objects__section(const struct cachepin_objects *objs,
							const char *object, const char *section)
{
	struct cachepin_objsec key = { .object = (char *)object, .section = (char *)section };
	size_t lo = 0, hi = objs->nr_secs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int r = objsec_cmp(&key, &objs->secs[mid]);

		if (!r)
			return &objs->secs[mid];
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

struct cachepin_objects *cachepin_objects__load(const char *const *paths, size_t n)
{
	static bool inited;
	struct load_ctx c = { 0 };
	struct edge_ent *e, *t;
	size_t i;
	int err = 0;

	if (!inited) {
		bfd_init();
		inited = true;
	}
	c.objs = calloc(1, sizeof(*c.objs));
	if (!c.objs) {
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n && !err; i++) {
		struct stat st;
		bfd *abfd;

		if (!stat(paths[i], &st) && S_ISDIR(st.st_mode)) {
			pr_warn("'%s': a directory; --objects takes objects and archives\n", paths[i]);
			pr_warn("hint: name the files, e.g. --objects DIR/built-in.a or one --objects per object\n");
			err = -EISDIR;
			break;
		}
		abfd = bfd_openr(paths[i], NULL);
		if (!abfd) {
			pr_warn("'%s': cannot open: %s\n", paths[i], bfd_errmsg(bfd_get_error()));
			err = -ENOENT;
			break;
		}
		err = load_bfd(&c, abfd, paths[i], 0);
		bfd_close(abfd);
	}
	if (!err) {
		struct cachepin_objects *o = c.objs;

		o->edges = calloc(HASH_COUNT(c.edges) + 1, sizeof(*o->edges));
		if (!o->edges)
			err = -ENOMEM;
		HASH_ITER(hh, c.edges, e, t) {
			if (err)
				break;
			o->edges[o->nr_edges] = e->e;
			o->edges[o->nr_edges].caller = strdup(e->e.caller);
			o->edges[o->nr_edges].caller_object = strdup(e->e.caller_object);
			o->edges[o->nr_edges].callee = strdup(e->e.callee);
			if (!o->edges[o->nr_edges].caller || !o->edges[o->nr_edges].caller_object ||
			    !o->edges[o->nr_edges].callee)
				err = -ENOMEM;
			o->nr_edges++;
		}
		if (!err)
			sort_n(o->edges, o->nr_edges, sizeof(*o->edges), edge_cmp);
		if (!err)
			err = secs_take(&c);
	}
	edges_drop(&c);
	if (err) {
		if (err == -ENOMEM)
			pr_warn("out of memory reading objects\n");
		cachepin_objects__free(c.objs);
		errno = -err;
		return NULL;
	}
	return c.objs;
}

void cachepin_objects__free(struct cachepin_objects *objs)
{
	size_t i;

	if (!objs)
		return;
	for (i = 0; i < objs->nr_edges; i++) {
		free(objs->edges[i].caller);
		free(objs->edges[i].caller_object);
		free(objs->edges[i].callee);
	}
	free(objs->edges);
	for (i = 0; i < objs->nr_secs; i++)
		free(objs->secs[i].object);
	free(objs->secs);
	free(objs);
}
