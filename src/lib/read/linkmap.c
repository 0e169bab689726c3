// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * GNU ld -Map output: the input sections of the executable output
 * sections become the units of the binary.
 *
 * Only the "Linker script and memory map" part is read (the "Discarded
 * input sections" part comes before it).  Lines there:
 *   .text           0xc0100000     0x9f70          output section
 *   .note.gnu.build-id                              (long name alone,
 *                   0x00010114       0x24           address on the next line)
 *    .text.foo      0xc0100000       0x18 obj.o    input section
 *    .irqentry.text                                 (long name alone,
 *                   0xc0101270       0x44 obj.o     the rest on the next line)
 *    *fill*         0xc0100054        0xc           padding
 *                   0xc0100000                foo  symbol
 *                   0xc0100000        _stext = .    assignment (ignored)
 *    *(.text .text.*)                               statement (ignored)
 *   LOAD x.o, START GROUP, /DISCARD/ ...            (ignored)
 * Objects are kept as the map writes them: "dir/x.o", "lib.a(x.o)", the
 * member path for thin archives, "linker stubs".
 *
 * Alignment of a unit: the map does not say; the lowest set bit of its
 * address (capped at 64) is used, an upper bound of the real alignment,
 * so that a layout honouring it is never under-aligned.  Such a unit is
 * flagged CACHEPIN_UNIT_ALIGN_GUESS; the objects know the exact value
 * (cachepin_binary__set_aligns()).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "scan.h"
#include "binary-int.h"

#define MAP_MAX_ALIGN 64

struct map_ctx {
	struct cachepin_binary *bin;
	const char *path;
	struct cachepin_unit *units;
	size_t nr_units, cap_units;
	int out;		/* current output section: index into bin->secs, -1 */
	bool out_exec;
	char pend_out[256];	/* output section name waiting for its address line */
	char pend_in[256];	/* input section name waiting for the rest */
	uint64_t fill;
	size_t sym_match, sym_mismatch, out_match, out_mismatch;
	size_t lineno;
	uint64_t *sec_end;	/* per ELF section: the end of its last input section read */
	size_t *sec_line;	/* ... and the map line it was on (of its header, before any) */
	size_t last_line;	/* of the last input section or output section read */
};

static void copy_tok(char *dst, size_t cap, const char *s, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

static void map_output(struct map_ctx *m, const char *name, bool has_addr, uint64_t addr)
{
	const struct cachepin_binary *bin = m->bin;
	int i = cachepin_binary_sec_by_name(bin, name);

	m->out = i;
	m->out_exec = i >= 0 && bin->secs[i].exec;
	if (i >= 0 && !m->sec_line[i])
		m->sec_line[i] = m->lineno;
	if (i < 0 || !has_addr || !bin->secs[i].size)
		return;
	if (bin->secs[i].addr == addr)
		m->out_match++;
	else
		m->out_mismatch++;
}

static int map_input(struct map_ctx *m, const char *name, uint64_t addr, uint64_t size,
		     const char *obj, size_t objlen)
{
	struct cachepin_unit *u;
	uint64_t a;

	if (!m->out_exec || !size)
		return 0;
	while (objlen && (obj[objlen - 1] == ' ' || obj[objlen - 1] == '\r'))
		objlen--;
	if (GROW(m->units, m->cap_units, m->nr_units + 1))
		return -ENOMEM;
	u = &m->units[m->nr_units];
	u->section = strdup(name);
	u->object = objlen ? strndup(obj, objlen) : NULL;
	if (!u->section || (objlen && !u->object)) {
		free(u->section);
		free(u->object);
		return -ENOMEM;
	}
	u->addr = addr;
	u->size = size;
	a = addr & -addr;
	u->align = !a || a > MAP_MAX_ALIGN ? MAP_MAX_ALIGN : a;
	u->outsec = m->out;
	u->flags = CACHEPIN_UNIT_FROM_MAP | CACHEPIN_UNIT_ALIGN_GUESS;
	m->nr_units++;
	if (m->out >= 0 && addr + size > m->sec_end[m->out]) {
		m->sec_end[m->out] = addr + size;
		m->sec_line[m->out] = m->lineno;
	}
	return 0;
}

static void map_symbol(struct map_ctx *m, const char *name, size_t len, uint64_t addr)
{
	char buf[512];
	const struct cachepin_func *f;
	bool amb;

	if (!m->out_exec || len >= sizeof(buf))
		return;
	memcpy(buf, name, len);
	buf[len] = '\0';
	f = cachepin_binary__lookup(m->bin, buf, NULL, &amb);
	if (!f || amb)
		return;
	if (f->addr == addr)
		m->sym_match++;
	else
		m->sym_mismatch++;
}

static bool is_keyword(const char *t, size_t len)
{
	static const char *const kw[] = { "LOAD", "START", "END", "/DISCARD/", "OUTPUT",
					  "TARGET", "INSERT", "OUTPUT_FORMAT" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kw); i++)
		if (strlen(kw[i]) == len && !memcmp(kw[i], t, len))
			return true;
	return memchr(t, '(', len) != NULL;
}

static int map_line(struct map_ctx *m, const char *line, size_t len)
{
	struct scan_field f[4];
	const char *tok[4];
	size_t tl[4], n, i;
	uint64_t addr, size;
	char name[256];

	if (len && line[len - 1] == '\r')
		len--;
	n = scan_fields(line, line + len, f, ARRAY_SIZE(f));
	for (i = 0; i < n; i++) {
		tok[i] = f[i].p;
		tl[i] = (size_t)(f[i].e - f[i].p);
	}
	if (!n)
		return 0;

	if (line[0] != ' ' && line[0] != '\t') {	/* output section or command */
		m->pend_out[0] = m->pend_in[0] = '\0';
		if (is_keyword(tok[0], tl[0])) {
			m->out = -1;
			m->out_exec = false;
			return 0;
		}
		copy_tok(name, sizeof(name), tok[0], tl[0]);
		if (n >= 3 && scan_hex0x(tok[1], tok[1] + tl[1], &addr) && scan_hex0x(tok[2], tok[2] + tl[2], &size))
			map_output(m, name, true, addr);
		else if (n == 1) {
			map_output(m, name, false, 0);
			memcpy(m->pend_out, name, sizeof(name));
		} else {
			m->out = -1;
			m->out_exec = false;
		}
		return 0;
	}

	if (line[1] != ' ' && line[1] != '\t') {	/* input section, fill or statement */
		m->pend_out[0] = m->pend_in[0] = '\0';
		if (tl[0] == 6 && !memcmp(tok[0], "*fill*", 6)) {
			if (n >= 3 && scan_hex0x(tok[2], tok[2] + tl[2], &size))
				m->fill += size;
			return 0;
		}
		if (tok[0][0] == '*' || memchr(tok[0], '(', tl[0]))
			return 0;
		copy_tok(name, sizeof(name), tok[0], tl[0]);
		if (n == 1) {
			memcpy(m->pend_in, name, sizeof(name));
			return 0;
		}
		if (n >= 3 && scan_hex0x(tok[1], tok[1] + tl[1], &addr) && scan_hex0x(tok[2], tok[2] + tl[2], &size))
			return map_input(m, name, addr, size, n > 3 ? tok[3] : NULL,
					 n > 3 ? (size_t)(line + len - tok[3]) : 0);
		return 0;
	}

	/* indented: continuation, symbol or assignment */
	if (!scan_hex0x(tok[0], tok[0] + tl[0], &addr)) {
		m->pend_out[0] = m->pend_in[0] = '\0';
		return 0;
	}
	if (m->pend_in[0]) {
		int err = 0;

		if (n >= 2 && scan_hex0x(tok[1], tok[1] + tl[1], &size))
			err = map_input(m, m->pend_in, addr, size, n > 2 ? tok[2] : NULL,
					n > 2 ? (size_t)(line + len - tok[2]) : 0);
		m->pend_in[0] = '\0';
		return err;
	}
	if (m->pend_out[0]) {
		if (n >= 2 && scan_hex0x(tok[1], tok[1] + tl[1], &size))
			map_output(m, m->pend_out, true, addr);
		m->pend_out[0] = '\0';
		return 0;
	}
	if (n == 2 && !scan_hex0x(tok[1], tok[1] + tl[1], &size))
		map_symbol(m, tok[1], tl[1], addr);
	return 0;
}

static char *read_file(const char *path, size_t *lenp)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	while (len < (size_t)st.st_size &&
	       (r = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

/*
 * The input sections of an executable section reach its end (an output
 * section may end with alignment: 4 KiB of slack).  A map cut off, or
 * with a line the reader takes for another output section, silently lost
 * the rest of .text.  0, or -EINVAL after a message.
 */
static int sections_reach_end(const struct map_ctx *m)
{
	const struct cachepin_binary *bin = m->bin;
	size_t i;

	for (i = 0; i < bin->nr_secs; i++) {
		const struct cachepin_section *s = &bin->secs[i];

		if (!s->exec || !s->size || (m->sec_end[i] && m->sec_end[i] + 4096 >= s->addr + s->size))
			continue;
		if (!m->sec_line[i])
			pr_warn("'%s': has no output section '%s' of '%s' (0x%" PRIx64 ", %" PRIu64 " bytes)\n",
				m->path, s->name, bin->path, s->addr, s->size);
		else if (!m->sec_end[i])
			pr_warn("'%s':%zu: gives no input section of '%s'\n", m->path, m->sec_line[i], s->name);
		else
			pr_warn("'%s':%zu: the input sections of '%s' end at 0x%" PRIx64 ", short of its end at 0x%" PRIx64 "\n",
				m->path, m->sec_line[i], s->name, m->sec_end[i], s->addr + s->size);
		pr_warn("hint: the map is cut off, or has a line that is not ld's; use the map of the link unchanged\n");
		return -EINVAL;
	}
	return 0;
}

int cachepin_binary__load_map(struct cachepin_binary *bin, const char *path)
{
	static const char marker[] = "Linker script and memory map";
	struct map_ctx m = { .bin = bin, .path = path, .out = -1 };
	const char *p, *end, *nl;
	size_t len, i;
	char *buf;
	int err = 0;

	m.sec_end = calloc(bin->nr_secs + 1, sizeof(*m.sec_end));
	m.sec_line = calloc(bin->nr_secs + 1, sizeof(*m.sec_line));
	if (!m.sec_end || !m.sec_line) {
		free(m.sec_end);
		free(m.sec_line);
		pr_warn("'%s': out of memory\n", path);
		return -ENOMEM;
	}
	buf = read_file(path, &len);
	if (!buf) {
		free(m.sec_end);
		free(m.sec_line);
		err = -errno;
		if (err == -EINVAL)
			pr_warn("'%s': not a regular file; a link map is read from a file\n", path);
		else
			pr_warn("'%s': cannot read: %s\n", path, strerror(errno));
		return err;
	}
	end = buf + len;
	p = strstr(buf, marker);
	if (!p) {
		pr_warn("'%s': not a GNU ld map (no '%s' part)\n"
			"hint: write it with 'ld -Map=FILE' (kernel: CONFIG_VMLINUX_MAP=y)\n",
			path, marker);
		err = -EINVAL;
		goto out;
	}
	/* line numbers of the file, not of the part read */
	for (nl = buf; (nl = memchr(nl, '\n', (size_t)(p - nl))); nl++)
		m.lineno++;	/* the loop counts the marker's own line first */
	for (p = strchr(p, '\n'); p && p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		m.lineno++;
		err = map_line(&m, p, (size_t)(nl - p));
		if (err)
			goto out;
		if (nl == end)
			break;
	}
	if (!m.nr_units) {
		pr_warn("'%s': no input sections of the executable sections of '%s'\n",
			path, bin->path);
		err = -EINVAL;
		goto out;
	}
	/* A map of this very link places every function where the ELF has it. */
	if (m.out_mismatch || m.sym_mismatch) {
		pr_warn("'%s': does not belong to '%s' (%zu of %zu sections and %zu of %zu "
			"functions are at other addresses)\n"
			"hint: use the map written by the link that produced '%s'\n",
			path, bin->path, m.out_mismatch, m.out_match + m.out_mismatch,
			m.sym_mismatch, m.sym_match + m.sym_mismatch, bin->path);
		err = -EINVAL;
		goto out;
	}
	if ((err = sections_reach_end(&m)))
		goto out;
	err = cachepin_binary_set_units(bin, m.units, m.nr_units);
	m.units = NULL;
	m.nr_units = 0;
	if (err)
		goto out;
	pr_info("'%s': %zu units, %llu bytes of fill, %zu of %zu symbols checked\n", path,
		bin->nr_units, (unsigned long long)m.fill, m.sym_match,
		m.sym_match + m.sym_mismatch);
out:
	if (err == -ENOMEM)
		pr_warn("'%s': out of memory\n", path);
	for (i = 0; i < m.nr_units; i++) {
		free(m.units[i].section);
		free(m.units[i].object);
	}
	free(m.units);
	free(m.sec_end);
	free(m.sec_line);
	free(buf);
	return err;
}
