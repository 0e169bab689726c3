// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Address to source line through libdwarf: every CU's line table is read
 * once into one sorted array of rows; DW_TAG_inlined_subroutine ranges
 * (low/high pc, DWARF 4 .debug_ranges, DWARF 5 .debug_rnglists) give the
 * innermost inlined function at an address.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <libdwarf.h>
#include <dwarf.h>
#include <uthash.h>
#include "internal.h"
#include "cachepin/srcline.h"

struct sl_row {
	uint64_t addr;
	uint32_t file, line;
	bool end;		/* end of a sequence: no line from here */
	size_t seq;		/* for a stable sort */
};

struct sl_inl {
	uint64_t lo, hi;
	const char *name;
	size_t seq;
};

struct sl_str {
	char *s;
	uint32_t idx;
	UT_hash_handle hh;
};

struct cachepin_srcline {
	Dwarf_Debug dbg;
	struct sl_row *rows;
	size_t nr_rows, cap_rows;
	struct sl_inl *inls;
	size_t nr_inls, cap_inls;
	struct sl_str *strs;	/* interned file and function names */
	char **files;
	size_t nr_files, cap_files;
	bool looped;		/* a DIE's child or sibling was not after it: walk cut */
};

static const char *intern(struct cachepin_srcline *sl, const char *s, uint32_t *idx)
{
	struct sl_str *e;

	HASH_FIND_STR(sl->strs, s, e);
	if (e) {
		if (idx)
			*idx = e->idx;
		return e->s;
	}
	if (GROW(sl->files, sl->cap_files, sl->nr_files + 1))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->s = strdup(s))) {
		free(e);
		return NULL;
	}
	e->idx = (uint32_t)sl->nr_files;
	sl->files[sl->nr_files++] = e->s;
	HASH_ADD_KEYPTR(hh, sl->strs, e->s, strlen(e->s), e);
	if (idx)
		*idx = e->idx;
	return e->s;
}

static void drop_error(Dwarf_Debug dbg, Dwarf_Error *err)
{
	if (*err) {
		dwarf_dealloc(dbg, *err, DW_DLA_ERROR);
		*err = NULL;
	}
}

/*
 * The file of LINE as its line table records it, its name without the
 * directory, or NULL.  Not dwarf_linesrc(): libdwarf 20210528 (Debian 12)
 * prefixes the directory through an index it does not check, and a
 * corrupt table reads past its directory array (found by fuzz-dwarf;
 * libdwarf-code issue 90, fixed in 0.4.x).  The file number is checked
 * against the table's own range here.
 */
static const char *line_file(Dwarf_Debug dbg, Dwarf_Line_Context ctx, Dwarf_Line line,
			     Dwarf_Signed base, Dwarf_Signed end)
{
	Dwarf_Unsigned fno, dir, mtime, len;
	Dwarf_Form_Data16 *md5;
	Dwarf_Error err = NULL;
	const char *name = NULL;

	if (dwarf_line_srcfileno(line, &fno, &err) != DW_DLV_OK ||
	    (Dwarf_Signed)fno < base || (Dwarf_Signed)fno >= end ||
	    dwarf_srclines_files_data_b(ctx, (Dwarf_Signed)fno, &name, &dir, &mtime, &len, &md5,
					&err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		return NULL;
	}
	return name;
}

static int read_lines(struct cachepin_srcline *sl, Dwarf_Die cu)
{
	Dwarf_Debug dbg = sl->dbg;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0, i;
	Dwarf_Signed fbase = 0, fcount = 0, fend = 0;
	Dwarf_Unsigned ver;
	Dwarf_Small tc;
	Dwarf_Error err = NULL;
	int ret = 0;

	if (dwarf_srclines_b(cu, &ver, &tc, &ctx, &err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		return 0;
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &err) != DW_DLV_OK ||
	    dwarf_srclines_files_indexes(ctx, &fbase, &fcount, &fend, &err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		n = 0;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Addr addr;
		Dwarf_Unsigned lineno;
		Dwarf_Bool end = 0;
		const char *src;
		struct sl_row *r;
		uint32_t fidx = 0;

		if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK ||
		    dwarf_lineno(lines[i], &lineno, &err) != DW_DLV_OK) {
			drop_error(dbg, &err);
			continue;
		}
		dwarf_lineendsequence(lines[i], &end, &err);
		drop_error(dbg, &err);
		if (!end) {
			if (!(src = line_file(dbg, ctx, lines[i], fbase, fend)))
				continue;
			if (!intern(sl, src, &fidx)) {
				ret = -ENOMEM;
				break;
			}
		}
		if (GROW(sl->rows, sl->cap_rows, sl->nr_rows + 1)) {
			ret = -ENOMEM;
			break;
		}
		r = &sl->rows[sl->nr_rows];
		r->addr = addr;
		r->file = fidx;
		r->line = (uint32_t)lineno;
		r->end = end;
		r->seq = sl->nr_rows++;
	}
	dwarf_srclines_dealloc_b(ctx);
	return ret;
}

static int inl_add(struct cachepin_srcline *sl, uint64_t lo, uint64_t hi, const char *name)
{
	struct sl_inl *x;

	if (hi <= lo)
		return 0;
	if (GROW(sl->inls, sl->cap_inls, sl->nr_inls + 1))
		return -ENOMEM;
	x = &sl->inls[sl->nr_inls];
	x->lo = lo;
	x->hi = hi;
	x->name = name;
	x->seq = sl->nr_inls++;
	return 0;
}

static const char *origin_name(struct cachepin_srcline *sl, Dwarf_Die die)
{
	Dwarf_Debug dbg = sl->dbg;
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Off off;
	Dwarf_Die org;
	const char *ret = NULL;
	char *name;
	int depth;

	org = die;
	for (depth = 0; depth < 4; depth++) {	/* origin, or its specification */
		Dwarf_Die next = NULL;

		if (dwarf_diename(org, &name, &err) == DW_DLV_OK) {
			ret = intern(sl, name, NULL);
			break;
		}
		drop_error(dbg, &err);
		if (dwarf_attr(org, DW_AT_abstract_origin, &attr, &err) != DW_DLV_OK &&
		    dwarf_attr(org, DW_AT_specification, &attr, &err) != DW_DLV_OK)
			break;
		if (dwarf_global_formref(attr, &off, &err) != DW_DLV_OK ||
		    dwarf_offdie_b(dbg, off, 1, &next, &err) != DW_DLV_OK) {
			dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
			break;
		}
		dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
		if (org != die)
			dwarf_dealloc_die(org);
		org = next;
	}
	drop_error(dbg, &err);
	if (org != die)
		dwarf_dealloc_die(org);
	return ret;
}

static int read_ranges(struct cachepin_srcline *sl, Dwarf_Die die, uint64_t cu_base,
		       Dwarf_Half cu_ver, const char *name)
{
	Dwarf_Debug dbg = sl->dbg;
	Dwarf_Attribute attr;
	Dwarf_Error err = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	int ret = 0;

	if (dwarf_lowpc(die, &lo, &err) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, &err) == DW_DLV_OK) {
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		return inl_add(sl, lo, hi, name);
	}
	drop_error(dbg, &err);
	if (dwarf_attr(die, DW_AT_ranges, &attr, &err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		return 0;
	}
	if (dwarf_whatform(attr, &form, &err) != DW_DLV_OK)
		goto out;
	if (cu_ver >= 5 || form == DW_FORM_rnglistx) {
		Dwarf_Rnglists_Head head = NULL;
		Dwarf_Unsigned val = 0, cnt = 0, goff, i;

		if (form == DW_FORM_rnglistx) {
			if (dwarf_formudata(attr, &val, &err) != DW_DLV_OK)
				goto out;
		} else if (dwarf_global_formref(attr, &val, &err) != DW_DLV_OK) {
			goto out;
		}
		if (dwarf_rnglists_get_rle_head(attr, form, val, &head, &cnt, &goff, &err) !=
		    DW_DLV_OK)
			goto out;
		for (i = 0; i < cnt && !ret; i++) {
			unsigned int len, code;
			Dwarf_Unsigned r1, r2, c1, c2;
			Dwarf_Bool unavail = 0;

			if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2,
							      &unavail, &c1, &c2, &err) !=
			    DW_DLV_OK) {
				drop_error(dbg, &err);
				break;
			}
			if (unavail || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
			    code == DW_RLE_base_addressx)
				continue;
			ret = inl_add(sl, c1, c2, name);
		}
		dwarf_dealloc_rnglists_head(head);
	} else {
		Dwarf_Ranges *rs = NULL;
		Dwarf_Signed cnt = 0, i;
		Dwarf_Unsigned bytes, off;
		Dwarf_Off real;
		uint64_t base = cu_base;

		if (dwarf_global_formref(attr, &off, &err) != DW_DLV_OK ||
		    dwarf_get_ranges_b(dbg, off, die, &real, &rs, &cnt, &bytes, &err) != DW_DLV_OK)
			goto out;
		for (i = 0; i < cnt && !ret; i++) {
			if (rs[i].dwr_type == DW_RANGES_END)
				break;
			if (rs[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = rs[i].dwr_addr2;
				continue;
			}
			ret = inl_add(sl, base + rs[i].dwr_addr1, base + rs[i].dwr_addr2, name);
		}
		dwarf_ranges_dealloc(dbg, rs, cnt);
	}
out:
	drop_error(dbg, &err);
	dwarf_dealloc(dbg, attr, DW_DLA_ATTR);
	return ret;
}

/*
 * The unit headers of a DWARF 5 .debug_rnglists or .debug_loclists
 * section (LEN bytes at D, byte order BE): each unit_length within the
 * section, version 5, an address size of 4 or 8, no segment selector,
 * its offset table inside the unit.  NULL if sound, else what is wrong
 * and *AT where.  Debian 12's libdwarf (20210528) frees twice when it
 * loads a rnglists section whose first length runs past its end.
 */
static const char *lists_header_bad(const uint8_t *d, size_t len, bool be, size_t *at)
{
	size_t p = 0;

	while (p < len) {
		uint64_t ulen;
		size_t hdr = 4, offsz = 4, end;
		uint16_t ver;
		uint32_t cnt;

		*at = p;
		if (len - p < 4)
			return "a unit header cut off";
		ulen = be ? (uint64_t)d[p] << 24 | d[p + 1] << 16 | d[p + 2] << 8 | d[p + 3] :
			    (uint64_t)d[p + 3] << 24 | d[p + 2] << 16 | d[p + 1] << 8 | d[p];
		if (ulen == 0xffffffff) {
			size_t i;

			if (len - p < 12)
				return "a unit header cut off";
			for (ulen = 0, i = 0; i < 8; i++)
				ulen |= (uint64_t)d[p + 4 + (be ? 7 - i : i)] << (8 * i);
			hdr = 12;
			offsz = 8;
		} else if (ulen >= 0xfffffff0) {
			return "a reserved unit length";
		}
		if (ulen > len - p - hdr)
			return "a unit longer than the section";
		if (ulen < 8)
			return "a unit shorter than its header";
		end = p + hdr + (size_t)ulen;
		p += hdr;
		ver = be ? (uint16_t)(d[p] << 8 | d[p + 1]) : (uint16_t)(d[p + 1] << 8 | d[p]);
		if (ver != 5)
			return "a unit of another version than 5";
		if (d[p + 2] != 4 && d[p + 2] != 8)
			return "an address size other than 4 or 8";
		if (d[p + 3])
			return "a segment selector";
		cnt = be ? (uint32_t)d[p + 4] << 24 | d[p + 5] << 16 | d[p + 6] << 8 | d[p + 7] :
			   (uint32_t)d[p + 7] << 24 | d[p + 6] << 16 | d[p + 5] << 8 | d[p + 4];
		if ((uint64_t)cnt * offsz > ulen - 8)
			return "an offset table longer than its unit";
		p = end;
	}
	return NULL;
}

/*
 * Check what libdwarf takes on trust before the first unit: every
 * section within the file and named, and the sections it parses on its
 * own (rnglists, loclists); say, once, why the source lines are lost.
 * True when PATH must not be handed over.
 */
static bool lists_bad(const char *path)
{
	static const char *const names[] = { ".debug_rnglists", ".debug_loclists" };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool bad = false;
	Elf_Scn *scn = NULL;
	struct stat st;
	GElf_Ehdr eh;
	size_t shstr;
	Elf *e;

	if (fd < 0)
		return false;	/* libdwarf says why */
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstr) || fstat(fd, &st)) {
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	while (!bad && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name, *why;
		Elf_Data *data;
		size_t i, at = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		/*
		 * libdwarf 20210528 allocates what a section header says
		 * before it reads: a section past the file's end is a
		 * request for terabytes (found by fuzz-dwarf)
		 */
		if (sh.sh_offset > (uint64_t)st.st_size || sh.sh_size > (uint64_t)st.st_size - sh.sh_offset) {
			pr_warn("'%s': bad ELF: section %zu lies past the end of the file; no source lines\n",
				path, elf_ndxscn(scn));
			bad = true;
			break;
		}
		/* libdwarf reads the names whatever the string table's type */
		if (!(name = elf_strptr(e, shstr, sh.sh_name))) {
			pr_warn("'%s': bad ELF: the name of section %zu cannot be read; no source lines\n",
				path, elf_ndxscn(scn));
			bad = true;
			break;
		}
		for (i = 0; i < ARRAY_SIZE(names) && strcmp(name, names[i]); i++)
			;
		if (i == ARRAY_SIZE(names))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
			pr_warn("'%s': bad DWARF: %s cannot be uncompressed; no source lines\n", path, name);
			bad = true;
			break;
		}
		data = elf_getdata(scn, NULL);
		if (!data || (!data->d_buf && data->d_size)) {
			pr_warn("'%s': bad DWARF: %s cannot be read; no source lines\n", path, name);
			bad = true;
			break;
		}
		why = lists_header_bad(data->d_buf, data->d_size, eh.e_ident[EI_DATA] == ELFDATA2MSB, &at);
		if (why) {
			pr_warn("'%s': bad DWARF: %s has %s at 0x%zx; no source lines\n", path, name, why, at);
			bad = true;
		}
	}
	elf_end(e);
	close(fd);
	return bad;
}

/* Walk the children of DIE looking for inlined subroutines. */
static int walk(struct cachepin_srcline *sl, Dwarf_Die die, uint64_t cu_base, Dwarf_Half ver,
		int depth)
{
	Dwarf_Debug dbg = sl->dbg;
	Dwarf_Error err = NULL;
	Dwarf_Die child = NULL, next;
	Dwarf_Off at = 0, prev = 0;
	int ret = 0;

	if (depth > 64 || dwarf_child(die, &child, &err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		return 0;
	}
	if (dwarf_dieoffset(die, &prev, &err) != DW_DLV_OK)
		drop_error(dbg, &err);
	while (child && !ret) {
		Dwarf_Half tag = 0;

		/*
		 * A child comes after its parent and a sibling after the DIE
		 * before it; a corrupt DW_AT_sibling that points back would
		 * loop for ever: stop there, the rest costs only source lines
		 */
		if (dwarf_dieoffset(child, &at, &err) != DW_DLV_OK) {
			drop_error(dbg, &err);
			break;
		}
		if (at <= prev) {
			sl->looped = true;
			break;
		}
		prev = at;

		if (dwarf_tag(child, &tag, &err) != DW_DLV_OK)
			drop_error(dbg, &err);
		if (tag == DW_TAG_inlined_subroutine) {
			const char *name = origin_name(sl, child);

			if (name)
				ret = read_ranges(sl, child, cu_base, ver, name);
		}
		if (!ret && (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
			     tag == DW_TAG_inlined_subroutine || tag == DW_TAG_namespace ||
			     tag == DW_TAG_class_type || tag == DW_TAG_structure_type))
			ret = walk(sl, child, cu_base, ver, depth + 1);
		next = NULL;
		if (dwarf_siblingof_b(dbg, child, 1, &next, &err) != DW_DLV_OK) {
			drop_error(dbg, &err);
			next = NULL;
		}
		dwarf_dealloc_die(child);
		child = next;
	}
	if (child)
		dwarf_dealloc_die(child);
	return ret;
}

static int row_cmp(const void *a, const void *b)
{
	const struct sl_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;	/* a sequence ends before the next starts */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int inl_cmp(const void *a, const void *b)
{
	const struct sl_inl *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;	/* outer first */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct cachepin_srcline *cachepin_srcline__open(const char *path)
{
	struct cachepin_srcline *sl;
	Dwarf_Error err = NULL;
	int res, ret = 0;

	if (lists_bad(path)) {
		errno = EINVAL;
		return NULL;
	}
	sl = calloc(1, sizeof(*sl));
	if (!sl) {
		errno = ENOMEM;
		return NULL;
	}
	res = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL,
			      &sl->dbg, NULL, 0, NULL, &err);
	if (res == DW_DLV_NO_ENTRY) {
		free(sl);
		errno = ENODATA;
		return NULL;
	}
	if (res != DW_DLV_OK) {
		pr_warn("'%s': cannot read DWARF: %s\n", path,
			err ? dwarf_errmsg(err) : "unknown error");
		if (err)
			dwarf_dealloc(NULL, err, DW_DLA_ERROR);
		free(sl);
		errno = EINVAL;
		return NULL;
	}

	for (;;) {
		Dwarf_Unsigned hlen, toff, next;
		Dwarf_Half ver, asz, lsz, esz, cutype;
		Dwarf_Off abbr;
		Dwarf_Sig8 sig;
		Dwarf_Die cu = NULL;
		Dwarf_Addr base = 0;

		res = dwarf_next_cu_header_d(sl->dbg, 1, &hlen, &ver, &abbr, &asz, &lsz, &esz,
					     &sig, &toff, &next, &cutype, &err);
		if (res != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(sl->dbg, NULL, 1, &cu, &err) != DW_DLV_OK) {
			drop_error(sl->dbg, &err);
			continue;
		}
		if (dwarf_lowpc(cu, &base, &err) != DW_DLV_OK)
			drop_error(sl->dbg, &err);
		ret = read_lines(sl, cu);
		if (!ret)
			ret = walk(sl, cu, base, ver, 0);
		dwarf_dealloc_die(cu);
		if (ret)
			break;
	}
	if (res == DW_DLV_ERROR) {
		pr_warn("'%s': bad DWARF: %s\n", path, dwarf_errmsg(err));
		drop_error(sl->dbg, &err);
	}
	if (sl->looped)
		pr_warn("'%s': bad DWARF: a DIE's child or sibling is not after it (.debug_info corrupt); inlined functions after it are not named\n",
			path);
	if (ret) {
		pr_warn("'%s': out of memory reading DWARF\n", path);
		cachepin_srcline__free(sl);
		errno = -ret;
		return NULL;
	}
	if (!sl->nr_rows) {
		cachepin_srcline__free(sl);
		errno = ENODATA;
		return NULL;
	}
	sort_n(sl->rows, sl->nr_rows, sizeof(*sl->rows), row_cmp);
	sort_n(sl->inls, sl->nr_inls, sizeof(*sl->inls), inl_cmp);
	return sl;
}

int cachepin_srcline__lookup(struct cachepin_srcline *sl, uint64_t addr,
			     const char **file, unsigned int *line, const char **inlined)
{
	size_t lo = 0, hi, i, k;

	*inlined = NULL;
	if (!sl)
		return -EINVAL;
	hi = sl->nr_rows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sl->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || sl->rows[lo - 1].end)
		return 1;
	*file = sl->files[sl->rows[lo - 1].file];
	*line = sl->rows[lo - 1].line;

	lo = 0;
	hi = sl->nr_inls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sl->inls[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the last range starting at or below addr that holds it is the innermost */
	for (i = lo, k = 0; i > 0 && k < 4096; i--, k++)
		if (addr < sl->inls[i - 1].hi) {
			*inlined = sl->inls[i - 1].name;
			break;
		}
	return 0;
}

void cachepin_srcline__free(struct cachepin_srcline *sl)
{
	struct sl_str *e, *t;

	if (!sl)
		return;
	if (sl->dbg)
		dwarf_finish(sl->dbg, NULL);
	HASH_ITER(hh, sl->strs, e, t) {
		HASH_DEL(sl->strs, e);
		free(e->s);
		free(e);
	}
	free(sl->files);
	free(sl->rows);
	free(sl->inls);
	free(sl);
}
