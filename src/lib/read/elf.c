// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ELF file through libelf, the only user of libelf: sections,
 * PT_LOAD segments, the build-id and the symbol table, read into the
 * object model of binary.c (which decides which symbols are functions).
 * The symbol table walker also serves symmap.c.
 *
 * Symbols: those of .symtab (the first one in the file), or of .dynsym
 * for a stripped binary; not the undefined, section, file and nameless
 * ones.  An ET_REL file's sections are laid out from 0 as ld would,
 * executable ones first, and its symbols moved with them; a kernel
 * module's as the kernel loads it (read_sections()).
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "binary-int.h"
#include "kernel.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

struct elf_ctx {
	const char *path;
	struct cachepin_binary *bin;	/* NULL when only the symbols are walked */
	Elf *elf;
	size_t shnum;
	uint64_t file_size;
	int *sec_of;		/* ELF section index -> bin->secs index or -1 */
};

static bool scn_in_file(struct elf_ctx *c, GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS)
		return true;
	return sh->sh_offset <= c->file_size && sh->sh_size <= c->file_size - sh->sh_offset;
}

/* libelf on FD: C->elf and *EH.  0 or -EINVAL after logging. */
static int elf_open(struct elf_ctx *c, const char *path, int fd, GElf_Ehdr *eh)
{
	elf_version(EV_CURRENT);
	c->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!c->elf || elf_kind(c->elf) != ELF_K_ELF || !gelf_getehdr(c->elf, eh)) {
		pr_warn("'%s': not an ELF file\n", path);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sections, segments, build-id                                       */

/* Is section I of C named NAME? */
static bool section_named(struct elf_ctx *c, size_t shstrndx, size_t i, const char *name)
{
	Elf_Scn *scn = elf_getscn(c->elf, i);
	const char *s;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	s = elf_strptr(c->elf, shstrndx, sh.sh_name);
	return s && !strcmp(s, name);
}

/*
 * Which pass lays out an allocated section: 0 the executable ones, 1 a
 * kernel module's init code, 2 the rest.  A linked file's sections are
 * all taken in pass 0, at their addresses.
 */
static int section_pass(const struct cachepin_binary *bin, const char *name, bool exec)
{
	if (!bin->relocatable)
		return 0;
	if (!exec)
		return 2;
	/* kernel/module/main.c module_init_section(): ".init*" goes apart */
	return bin->kmodule && !strncmp(name, ".init", 5) ? 1 : 0;
}

/*
 * A kernel module's text (kernel/module/main.c layout_sections(), Linux
 * 6.1): the executable allocated sections in the order of the section
 * headers, each at the next multiple of its alignment from 0, the start
 * of its page-aligned allocation; init code (".init*") in an allocation
 * of its own, which is put here a page after the end of the rest; exit
 * code stays in place (CONFIG_MODULE_UNLOAD).  ARM's .plt, sized only
 * at load time, is taken at its size in the file.
 */
#define KMODULE_INIT_GAP 4096

static int read_sections(struct elf_ctx *c)
{
	struct cachepin_binary *bin = c->bin;
	size_t shstrndx, i, cap = 0;
	uint64_t rel_addr = 0;
	int pass;

	if (elf_getshdrnum(c->elf, &c->shnum) || elf_getshdrstrndx(c->elf, &shstrndx)) {
		pr_warn("'%s': bad section headers: %s\n", bin->path, elf_errmsg(-1));
		return -EINVAL;
	}
	c->sec_of = malloc((c->shnum + 1) * sizeof(*c->sec_of));
	if (!c->sec_of)
		return -ENOMEM;
	for (i = 0; i <= c->shnum; i++)
		c->sec_of[i] = -1;
	/* modpost's __this_module: in a .ko and nowhere else */
	for (i = 1; bin->relocatable && !bin->kmodule && i < c->shnum; i++)
		bin->kmodule = section_named(c, shstrndx, i, ".gnu.linkonce.this_module");

	/* ET_REL: executable sections first, from 0, as ld would; then the rest. */
	for (pass = 0; pass < 3; pass++) {
		if (pass == 1 && bin->kmodule)
			rel_addr = (rel_addr + 2 * KMODULE_INIT_GAP - 1) & ~(uint64_t)(KMODULE_INIT_GAP - 1);
		for (i = 1; i < c->shnum; i++) {
			Elf_Scn *scn = elf_getscn(c->elf, i);
			struct cachepin_section *s;
			GElf_Shdr sh;
			const char *name;
			bool exec;

			if (!scn || !gelf_getshdr(scn, &sh)) {
				pr_warn("'%s': bad section header %zu\n", bin->path, i);
				return -EINVAL;
			}
			if (!(sh.sh_flags & SHF_ALLOC))
				continue;
			exec = sh.sh_flags & SHF_EXECINSTR;
			name = elf_strptr(c->elf, shstrndx, sh.sh_name);
			if (section_pass(bin, name ? name : "", exec) != pass)
				continue;
			if (GROW(bin->secs, cap, bin->nr_secs + 1))
				return -ENOMEM;
			s = &bin->secs[bin->nr_secs];
			s->name = strdup(name ? name : "");
			if (!s->name)
				return -ENOMEM;
			s->size = sh.sh_size;
			s->offset = sh.sh_offset;
			s->align = sh.sh_addralign;
			s->exec = exec;
			if (bin->relocatable) {
				uint64_t a = sh.sh_addralign > 1 ? sh.sh_addralign : 1;

				if (a & (a - 1))
					a = 1;
				rel_addr = (rel_addr + a - 1) & ~(a - 1);
				s->addr = rel_addr;
				rel_addr += sh.sh_size;
			} else {
				s->addr = sh.sh_addr;
			}
			c->sec_of[i] = (int)bin->nr_secs++;
		}
	}
	return 0;
}

static int read_segments(struct elf_ctx *c)
{
	struct cachepin_binary *bin = c->bin;
	size_t phnum, i, cap = 0;

	if (elf_getphdrnum(c->elf, &phnum))
		return 0;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (GROW(bin->segs, cap, bin->nr_segs + 1))
			return -ENOMEM;
		bin->segs[bin->nr_segs].vaddr = ph.p_vaddr;
		bin->segs[bin->nr_segs].offset = ph.p_offset;
		bin->segs[bin->nr_segs].filesz = ph.p_filesz;
		bin->segs[bin->nr_segs].exec = ph.p_flags & PF_X;
		bin->nr_segs++;
	}
	return 0;
}

static bool build_id_from(struct cachepin_binary *bin, Elf_Data *d)
{
	GElf_Nhdr nh;
	size_t off = 0, next, name_off, desc_off;

	while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(bin->build_id)) {
			memcpy(bin->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
			bin->build_id_len = nh.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

static void read_build_id(struct elf_ctx *c)
{
	Elf_Scn *scn = NULL;
	size_t phnum, i;

	while ((scn = elf_nextscn(c->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !scn_in_file(c, &sh))
			continue;
		if (build_id_from(c->bin, elf_getdata(scn, NULL)))
			return;
	}
	if (elf_getphdrnum(c->elf, &phnum))
		return;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > c->file_size || ph.p_filesz > c->file_size - ph.p_offset)
			continue;
		if (build_id_from(c->bin, elf_getdata_rawchunk(c->elf, (int64_t)ph.p_offset,
							       ph.p_filesz, ELF_T_NHDR)))
			return;
	}
}

/* ------------------------------------------------------------------ */
/* Symbols                                                            */

/* The symbol table: the first .symtab, else (if DYNSYM) the first .dynsym. */
static Elf_Scn *find_symtab(struct elf_ctx *c, bool dynsym, GElf_Shdr *shp, Elf_Data **xndx)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dsh;
	size_t tab_idx = 0;

	*xndx = NULL;
	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_size)
			continue;
		if (!scn_in_file(c, &sh)) {
			/* a symbol table outside the file is a broken file, not a stripped one */
			if (sh.sh_type == SHT_SYMTAB)
				pr_warn("'%s': its symbol table lies outside the file (offset 0x%" PRIx64 ", %" PRIu64 " bytes, the file has %" PRIu64 ")%s\n",
					c->path, (uint64_t)sh.sh_offset, (uint64_t)sh.sh_size,
					c->file_size, dynsym ? "; only its dynamic symbols are read" : "");
			continue;
		}
		if (sh.sh_type == SHT_SYMTAB && !tab) {
			tab = scn;
			*shp = sh;
			tab_idx = elf_ndxscn(scn);
		} else if (sh.sh_type == SHT_DYNSYM && !dyn && dynsym) {
			dyn = scn;
			dsh = sh;
		}
	}
	if (tab) {
		scn = NULL;
		while ((scn = elf_nextscn(c->elf, scn))) {
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
			    sh.sh_link == tab_idx && scn_in_file(c, &sh))
				*xndx = elf_getdata(scn, NULL);
		}
		return tab;
	}
	if (dyn)
		*shp = dsh;
	return dyn;
}

/*
 * FN(sym, ARG) for each symbol of the table (see the top of this file).
 * Returns 0, FN's first non-zero result, -ENOENT if there is no table,
 * -ENODATA if it is unreadable (elf_errmsg() says why); logs nothing.
 */
static int walk_syms(struct elf_ctx *c, bool dynsym,
		     int (*fn)(const struct cachepin_elf_sym *sym, void *arg), void *arg)
{
	struct cachepin_elf_sym s = { 0 };
	Elf_Data *data, *xndx;
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	size_t i, nsyms;
	int err = 0;

	scn = find_symtab(c, dynsym, &sh, &xndx);
	if (!scn)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || !sh.sh_entsize)
		return -ENODATA;
	nsyms = data->d_size / gelf_fsize(c->elf, ELF_T_SYM, 1, EV_CURRENT);
	s.machine = gelf_getehdr(c->elf, &eh) ? eh.e_machine : EM_NONE;
	for (i = 1; i < nsyms && !err; i++) {
		Elf32_Word shndx_x;
		GElf_Sym sym;

		if (!gelf_getsymshndx(data, xndx, (int)i, &sym, &shndx_x))
			continue;
		s.type = GELF_ST_TYPE(sym.st_info);
		s.name = elf_strptr(c->elf, sh.sh_link, sym.st_name);
		if (!s.name || !*s.name || s.type == STT_SECTION || s.type == STT_FILE ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		s.bind = GELF_ST_BIND(sym.st_info);
		s.st_shndx = sym.st_shndx;
		s.shndx = sym.st_shndx == SHN_XINDEX ? shndx_x : sym.st_shndx;
		s.value = sym.st_value;
		s.size = sym.st_size;
		err = fn(&s, arg);
	}
	return err;
}

/* A symbol into the model: its value, its address in the binary's layout. */
static int model_sym(const struct cachepin_elf_sym *s, void *arg)
{
	struct elf_ctx *c = arg;
	struct cachepin_binary *bin = c->bin;
	struct cachepin_sym m = { .name = s->name, .size = s->size, .type = s->type,
				  .bind = s->bind };

	if (s->st_shndx == SHN_ABS)
		return cachepin_binary_add_value(bin, s->name, s->value, s->bind != STB_LOCAL);
	if (s->st_shndx == SHN_COMMON || s->shndx >= c->shnum)
		return 0;
	m.sec = c->sec_of[s->shndx];
	m.addr = s->value;
	if (m.sec >= 0 && bin->relocatable)
		m.addr += bin->secs[m.sec].addr;
	m.thumb = cachepin_arch_thumb(bin->machine, s->type, &m.addr);
	return cachepin_binary_add_sym(bin, &m);
}

static int read_funcs(struct elf_ctx *c)
{
	const char *path = c->bin->path;
	int err = walk_syms(c, true, model_sym, c);

	if (err == -ENOENT) {
		pr_warn("'%s': no symbol table\n"
			"hint: use the unstripped binary (vmlinux, not zImage; the build's "
			"program before 'strip')\n", path);
		return -ENOENT;
	}
	if (err == -ENODATA) {
		pr_warn("'%s': unreadable symbol table: %s\n", path, elf_errmsg(-1));
		return -EINVAL;
	}
	return err ? err : cachepin_binary_end_syms(c->bin);
}

int cachepin_elf_for_each_symbol(const char *path, int fd, bool dynsym,
				 int (*fn)(const struct cachepin_elf_sym *sym, void *arg),
				 void *arg)
{
	struct elf_ctx c = { .path = path };
	struct stat st;
	GElf_Ehdr eh;
	int err;

	c.file_size = !fstat(fd, &st) && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	err = elf_open(&c, path, fd, &eh);
	if (!err)
		err = walk_syms(&c, dynsym, fn, arg);
	if (c.elf)
		elf_end(c.elf);
	return err;
}

/* ------------------------------------------------------------------ */
/* The binary                                                         */

/* Open PATH, a regular file: *FD and *SIZE.  0 or a negative errno after logging. */
static int open_file(const char *path, int *fd, uint64_t *size)
{
	struct stat st;
	int err;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0 || fstat(*fd, &st)) {
		err = -errno;
		pr_warn("cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		pr_warn("'%s': not a regular file\n", path);
		return -EINVAL;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

static int read_elf(struct elf_ctx *c, int fd)
{
	struct cachepin_binary *bin = c->bin;
	const char *path = bin->path;
	GElf_Ehdr eh;
	int err;

	err = elf_open(c, path, fd, &eh);
	if (err)
		return err;
	bin->elf_class = gelf_getclass(c->elf) == ELFCLASS64 ? 64 : 32;
	bin->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	bin->machine = eh.e_machine;
	bin->arch = cachepin_arch_name(eh.e_machine);
	bin->relocatable = eh.e_type == ET_REL;
	if (eh.e_shoff > c->file_size ||
	    (uint64_t)eh.e_shnum * eh.e_shentsize > c->file_size - eh.e_shoff) {
		pr_warn("'%s': truncated ELF file (section headers past the end at offset 0x%llx)\n",
			path, (unsigned long long)eh.e_shoff);
		return -EINVAL;
	}
	err = read_sections(c);
	if (!err)
		err = read_segments(c);
	if (err)
		return err;
	read_build_id(c);
	err = read_funcs(c);
	if (!err)
		err = cachepin_binary_initial_units(bin);
	if (!err)
		err = cachepin_binary_ebase_init(bin);
	if (err)
		return err;
	pr_info("'%s': %s ELF%d %s, %zu functions, %zu sections\n", path, bin->arch,
		bin->elf_class, bin->big_endian ? "big-endian" : "little-endian",
		bin->nr_funcs, bin->nr_secs);
	return 0;
}

struct cachepin_binary *cachepin_binary__open(const char *path)
{
	struct elf_ctx c = { .path = path };
	int fd = -1, err;

	c.bin = cachepin_binary_new(path);
	err = c.bin ? open_file(path, &fd, &c.file_size) : -ENOMEM;
	if (!err)
		err = read_elf(&c, fd);
	if (err == -ENOMEM)
		pr_warn("'%s': out of memory\n", path);
	free(c.sec_of);
	if (c.elf)
		elf_end(c.elf);
	if (fd >= 0)
		close(fd);
	if (!err)
		return c.bin;
	cachepin_binary__free(c.bin);
	errno = -err;
	return NULL;
}
